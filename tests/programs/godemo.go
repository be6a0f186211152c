// godemo: a static Go program (CGO_ENABLED=0) whose output is decided by the
// program, not by the scheduling: goroutines feeding a channel, a worker
// pool summing under a mutex, a map filled from several goroutines, a
// select with a timer, runtime.GC() with a finalizer-free allocation burst,
// a buffered-channel pipeline, itself run as a child through os/exec
// (fork and exec from a Go thread, its output read through a pipe) and an
// os.Pipe read through the runtime's poller (epoll). tools/test-programs
// runs it on Linux and on the kernel and compares the bytes.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// squares: n goroutines each send i*i on one channel; the sum does not
// depend on the order they run in.
func squares(n int) int {
	ch := make(chan int)
	for i := 1; i <= n; i++ {
		go func(i int) { ch <- i * i }(i)
	}
	sum := 0
	for i := 0; i < n; i++ {
		sum += <-ch
	}
	return sum
}

// pool: workers take jobs from a buffered channel and add to a total under a mutex.
func pool(workers, jobs int) (int, int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	total, done := 0, 0
	work := make(chan int, 16)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				mu.Lock()
				total += j
				done++
				mu.Unlock()
			}
		}()
	}
	for j := 1; j <= jobs; j++ {
		work <- j
	}
	close(work)
	wg.Wait()
	return total, done
}

// words: goroutines count words into one map under a mutex; printed sorted.
func words(text string) string {
	var mu sync.Mutex
	var wg sync.WaitGroup
	counts := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		wg.Add(1)
		go func(line string) {
			defer wg.Done()
			for _, w := range strings.Fields(line) {
				mu.Lock()
				counts[w]++
				mu.Unlock()
			}
		}(line)
	}
	wg.Wait()
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%d ", k, counts[k])
	}
	return strings.TrimSpace(b.String())
}

// garbage: allocate and drop about 64 MiB in 1 KiB pieces, keeping a
// checksum of what is kept; runtime.GC() in between.
func garbage() (int, uint64) {
	keep := make([][]byte, 0, 64)
	var sum uint64
	for i := 0; i < 65536; i++ {
		b := make([]byte, 1024)
		b[i%1024] = byte(i / 1024)
		if i%1024 == 1023 {
			keep = append(keep, b)
		}
		if i%16384 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	for _, b := range keep {
		for _, x := range b {
			sum += uint64(x)
		}
	}
	return len(keep), sum
}

// timer: a select between a 20 ms timer and a channel nobody sends on:
// the timer must win; a ticker ticks three times.
func timer() string {
	never := make(chan int)
	start := time.Now()
	select {
	case <-never:
		return "never"
	case <-time.After(20 * time.Millisecond):
	}
	if time.Since(start) < 20*time.Millisecond {
		return "timer fired early"
	}
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for i := 0; i < 3; i++ {
		<-t.C
	}
	return "timer ok, 3 ticks"
}

// pipeline: numbers through three stages connected by channels, in order.
func pipeline() []int {
	src := make(chan int)
	sq := make(chan int, 4)
	out := make(chan int)
	go func() {
		for i := 1; i <= 6; i++ {
			src <- i
		}
		close(src)
	}()
	go func() {
		for v := range src {
			sq <- v * v
		}
		close(sq)
	}()
	go func() {
		for v := range sq {
			out <- v + 1
		}
		close(out)
	}()
	var r []int
	for v := range out {
		r = append(r, v)
	}
	return r
}

// child: run this program again as "godemo child ARGS": its output and exit status.
func child() string {
	out, err := exec.Command("/proc/self/exe", "child", "x", "y").Output()
	return fmt.Sprintf("child: %q, %v", out, err)
}

// pipe: a goroutine writes into an os.Pipe (non-blocking, on the poller), main reads it all.
func pipe() string {
	r, w, err := os.Pipe()
	if err != nil {
		return err.Error()
	}
	go func() {
		for i := 0; i < 3; i++ {
			fmt.Fprintf(w, "part %d;", i)
		}
		w.Close()
	}()
	var b strings.Builder
	buf := make([]byte, 4)
	for {
		n, err := r.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	r.Close()
	return "pipe: " + b.String()
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		fmt.Println("child says", strings.Join(os.Args[2:], "+"))
		os.Exit(4)
	}
	fmt.Println("squares:", squares(100))
	total, done := pool(8, 1000)
	fmt.Println("pool:", total, done)
	fmt.Println("words:", words("the quick brown fox\njumps over\nthe lazy dog\nthe end"))
	kept, sum := garbage()
	fmt.Println("gc:", kept, sum)
	fmt.Println(timer())
	fmt.Println("pipeline:", pipeline())
	fmt.Println(child())
	fmt.Println(pipe())
	fmt.Fprintln(os.Stderr, "args:", len(os.Args)-1, strings.Join(os.Args[1:], ","))
	os.Exit(3)
}
