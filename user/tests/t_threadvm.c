/*
 * Threads of one address space on several CPUs (make test boots 4):
 * faults on the same and on different pages, munmap and mprotect racing
 * with readers and writers, COW breaks while other threads read, fork while
 * threads write. The stale-TLB checks need no timing: a flag set after
 * munmap (mprotect, the COW write) returned is read before the access, so
 * an access that sees the flag must fault (see the new data); one that
 * does not is a stale TLB entry. Each thread catches its own SIGSEGV with
 * sigsetjmp and goes on. Expected values hold on Linux (same binary).
 */
#include "utests.h"
#include "uthread.h"

#define NWORKERS 3                       /* plus the main thread: one per CPU of -smp 4 */
#define PAGE 4096L
#define WORDS (PAGE / 8)
#define RACE_PAGES 16
#define RACE_ROUNDS 6
#define WARM_READS 64                    /* accesses each worker makes before the change */

struct worker {
	struct thread t;
	int idx;
	volatile int tid;
	sigjmp_buf jb;                   /* where its SIGSEGV handler resumes */
	volatile long accesses, faults, stale;
	volatile long outcome;           /* faults + stale: the change has reached this worker */
	volatile long page;              /* the page it is at (kept across a siglongjmp) */
};

static struct worker workers[NWORKERS];
static volatile int go, stop;
static volatile long *region;
static long npages;

static void start_workers(int (*fn)(void *))
{
	go = 0;
	stop = 0;
	for (int i = 0; i < NWORKERS; i++) {
		memset((void *)&workers[i], 0, sizeof(workers[i]));
		workers[i].idx = i;
		workers[i].t.fn = fn;
		workers[i].t.arg = &workers[i];
		CHECK(thread_start(&workers[i].t) > 0);
	}
	__atomic_store_n(&go, 1, __ATOMIC_SEQ_CST);
}

static void join_workers(void)
{
	__atomic_store_n(&stop, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < NWORKERS; i++)
		thread_join(&workers[i].t);
}

/* Wait (yielding) until every worker's counter at offset off reaches n. */
static void wait_workers(size_t off, long n)
{
	for (int i = 0; i < NWORKERS; i++)
		while (__atomic_load_n((volatile long *)((char *)&workers[i] + off), __ATOMIC_SEQ_CST) < n)
			usys0(__NR_sched_yield);
}

static void wait_go(struct worker *w)
{
	w->tid = (int)usys0(__NR_gettid);
	while (!__atomic_load_n(&go, __ATOMIC_SEQ_CST))
		__asm__ volatile("pause");
}

/* SIGSEGV: back to the faulting worker's sigsetjmp (found by thread id). */
static void on_segv(int sig, siginfo_t *si, void *uc)
{
	int tid = (int)usys0(__NR_gettid);

	(void)sig;
	(void)si;
	(void)uc;
	for (int i = 0; i < NWORKERS; i++)
		if (workers[i].tid == tid) {
			workers[i].faults++;
			workers[i].outcome++;
			siglongjmp(workers[i].jb, 1);
		}
	_exit(77);
}

static volatile long *map_region(long pages)
{
	void *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	npages = pages;
	return p;
}

/* ------------------------------------------------------------ faults */

#define FAULT_PAGES 256

static long byte_of(long page, int idx)
{
	return (page * 7 + idx * 31 + 1) & 0xff;
}

/* Every worker writes its byte into every page, all at once: each page is faulted by several CPUs. */
static int write_same_pages(void *arg)
{
	struct worker *w = arg;
	volatile unsigned char *b = (volatile unsigned char *)region;

	wait_go(w);
	for (long p = 0; p < npages; p++)
		b[p * PAGE + w->idx] = (unsigned char)byte_of(p, w->idx);
	return 0;
}

static void t_threadvm_fault_same_pages(void)
{
	volatile unsigned char *b;

	region = map_region(FAULT_PAGES);
	b = (volatile unsigned char *)region;
	start_workers(write_same_pages);
	join_workers();
	for (long p = 0; p < npages; p++)
		for (int i = 0; i < NWORKERS; i++)
			CHECK_EQ(b[p * PAGE + i], byte_of(p, i));
	munmap((void *)region, npages * PAGE);
}

/* Worker i writes the pages i, i + NWORKERS, ...: different pages on different CPUs at once. */
static int write_own_pages(void *arg)
{
	struct worker *w = arg;

	wait_go(w);
	for (long p = w->idx; p < npages; p += NWORKERS)
		for (long k = 0; k < WORDS; k += 64)
			region[p * WORDS + k] = p * 1000 + k;
	return 0;
}

static void t_threadvm_fault_different_pages(void)
{
	region = map_region(FAULT_PAGES);
	start_workers(write_own_pages);
	join_workers();
	for (long p = 0; p < npages; p++)
		for (long k = 0; k < WORDS; k += 64)
			CHECK_EQ(region[p * WORDS + k], p * 1000 + k);
	munmap((void *)region, npages * PAGE);
}

/* -------------------------------------------------------- munmap race */

static volatile int changed;             /* set by the main thread once munmap/mprotect returned */

static long pattern(long p)
{
	return 0x5a5a000000L + p;
}

/*
 * Read the pages round and round. Before munmap returned: the pattern;
 * after (the flag, read first, says so): a fault, never data. A stale read
 * ends the loop (the main thread waits for a fault or for that).
 */
static int read_until_unmapped(void *arg)
{
	struct worker *w = arg;

	wait_go(w);
	if (sigsetjmp(w->jb, 1))
		w->page = (w->page + 1) % npages;       /* faulted: the next page */
	while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
		int after = __atomic_load_n(&changed, __ATOMIC_SEQ_CST);
		long v = region[w->page * WORDS];

		if (after || v != pattern(w->page)) {
			w->stale++;
			w->outcome++;
			break;
		}
		w->accesses++;
		w->page = (w->page + 1) % npages;
	}
	return 0;
}

/* munmap while three threads read the pages: none reads them after munmap returned. */
static void t_threadvm_munmap_race(void)
{
	ut_catch_signal(SIGSEGV, on_segv);
	for (int round = 0; round < RACE_ROUNDS; round++) {
		region = map_region(RACE_PAGES);
		for (long p = 0; p < npages; p++)
			region[p * WORDS] = pattern(p);
		changed = 0;
		start_workers(read_until_unmapped);
		wait_workers(offsetof(struct worker, accesses), WARM_READS);
		CHECK_EQ(munmap((void *)region, npages * PAGE), 0);
		__atomic_store_n(&changed, 1, __ATOMIC_SEQ_CST);
		wait_workers(offsetof(struct worker, outcome), 1);
		join_workers();
		for (int i = 0; i < NWORKERS; i++)
			CHECK_EQ(workers[i].stale, 0);
	}
}

/* ------------------------------------------------------ mprotect race */

/*
 * Write the pages round and round; after mprotect(PROT_READ) every write
 * faults. A write that went through although the flag, read first, said
 * mprotect had returned ends the loop as stale.
 */
static int write_until_protected(void *arg)
{
	struct worker *w = arg;

	wait_go(w);
	if (sigsetjmp(w->jb, 1))
		w->page = (w->page + 1) % npages;
	while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
		int after = __atomic_load_n(&changed, __ATOMIC_SEQ_CST);

		region[w->page * WORDS + 1 + w->idx] = ++w->accesses;
		if (after) {
			w->stale++;
			w->outcome++;
			break;
		}
		w->page = (w->page + 1) % npages;
	}
	return 0;
}

/*
 * mprotect(PROT_READ) while three threads write the pages: no write goes
 * through once it returned, and a copy taken right after it is what the
 * pages hold when the writers have faulted and stopped (a write through a
 * stale writable TLB entry would change them).
 */
static void t_threadvm_mprotect_race(void)
{
	static long snapshot[RACE_PAGES][NWORKERS];

	ut_catch_signal(SIGSEGV, on_segv);
	for (int round = 0; round < RACE_ROUNDS; round++) {
		region = map_region(RACE_PAGES);
		changed = 0;
		start_workers(write_until_protected);
		wait_workers(offsetof(struct worker, accesses), WARM_READS);
		CHECK_EQ(mprotect((void *)region, npages * PAGE, PROT_READ), 0);
		__atomic_store_n(&changed, 1, __ATOMIC_SEQ_CST);
		for (long p = 0; p < npages; p++)
			for (int i = 0; i < NWORKERS; i++)
				snapshot[p][i] = region[p * WORDS + 1 + i];
		wait_workers(offsetof(struct worker, outcome), 1);
		join_workers();
		for (int i = 0; i < NWORKERS; i++)
			CHECK_EQ(workers[i].stale, 0);
		for (long p = 0; p < npages; p++)
			for (int i = 0; i < NWORKERS; i++)
				CHECK_EQ(region[p * WORDS + 1 + i], snapshot[p][i]);
		munmap((void *)region, npages * PAGE);
	}
}

/* ------------------------------------------------ COW while reading */

static volatile int broken[RACE_PAGES];  /* page p's COW write has returned */

static long new_value(long p)
{
	return 0x77000000L + p;
}

/* Read the pages round and round: the old value, or the new one, and only the new once broken[p] says so. */
static int read_across_cow(void *arg)
{
	struct worker *w = arg;

	wait_go(w);
	while (!__atomic_load_n(&stop, __ATOMIC_SEQ_CST)) {
		long p = w->page;
		int after = __atomic_load_n(&broken[p], __ATOMIC_SEQ_CST);
		long v = region[p * WORDS];

		if (v != new_value(p) && (after || v != pattern(p)))
			w->stale++;
		w->accesses++;
		w->page = (p + 1) % npages;
	}
	return 0;
}

/*
 * The pages are shared copy-on-write with a forked child; the main thread
 * writes each (a COW break) while three threads read them: no reader sees
 * the old frame after the write returned, and the child keeps the old values.
 */
static void t_threadvm_cow_while_reading(void)
{
	int fds[2], st = -1;
	long pid;

	region = map_region(RACE_PAGES);
	for (long p = 0; p < npages; p++) {
		region[p * WORDS] = pattern(p);
		broken[p] = 0;
	}
	CHECK_EQ(pipe(fds), 0);
	pid = sys_fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		char c;

		if (sys_read(fds[0], &c, 1) != 1)
			_exit(2);
		for (long p = 0; p < npages; p++)
			if (region[p * WORDS] != pattern(p))
				_exit(3);
		_exit(0);
	}
	start_workers(read_across_cow);
	wait_workers(offsetof(struct worker, accesses), WARM_READS);
	for (long p = 0; p < npages; p++) {
		region[p * WORDS] = new_value(p);
		__atomic_store_n(&broken[p], 1, __ATOMIC_SEQ_CST);
	}
	wait_workers(offsetof(struct worker, accesses), 2 * WARM_READS);
	join_workers();
	for (int i = 0; i < NWORKERS; i++)
		CHECK_EQ(workers[i].stale, 0);
	CHECK_EQ(write(fds[1], "c", 1), 1);
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	munmap((void *)region, npages * PAGE);
}

/* ------------------------------------------------ fork while writing */

#define FORK_PAGES 48
#define FORKS 6
static volatile long done_round[FORK_PAGES];

/*
 * Round after round, write page p's value (round * 1000 + p), then
 * done_round[p] = round: whoever sees done_round[p] sees that value or a
 * later round's.
 */
static int write_rounds(void *arg)
{
	struct worker *w = arg;

	wait_go(w);
	for (long r = 1; !__atomic_load_n(&stop, __ATOMIC_SEQ_CST); r++) {
		for (long p = w->idx; p < npages; p += NWORKERS) {
			region[p * WORDS] = r * 1000 + p;
			__atomic_store_n(&done_round[p], r, __ATOMIC_RELEASE);
		}
		w->accesses++;
	}
	return 0;
}

/* Memory consistent with the writers' order: page p holds done_round[p]'s value or a later round's. */
static int check_rounds(void)
{
	for (long p = 0; p < npages; p++) {
		long r = done_round[p], v = region[p * WORDS];

		if (r && (v % 1000 != p || v / 1000 < r))
			return 3;
	}
	return 0;
}

/* fork, again and again, while three threads write: each child has a consistent copy of the memory. */
static void t_threadvm_fork_while_writing(void)
{
	region = map_region(FORK_PAGES);
	for (long p = 0; p < npages; p++)
		done_round[p] = 0;
	start_workers(write_rounds);
	for (int f = 0; f < FORKS; f++) {
		int st = -1;
		long pid;

		wait_workers(offsetof(struct worker, accesses), f + 1);
		pid = sys_fork();
		CHECK(pid >= 0);
		if (pid == 0)
			_exit(check_rounds());
		CHECK_EQ(waitpid((int)pid, &st, 0), pid);
		CHECK(WIFEXITED(st));
		CHECK_EQ(WEXITSTATUS(st), 0);
	}
	join_workers();
	CHECK_EQ(check_rounds(), 0);
	munmap((void *)region, npages * PAGE);
}

const struct utest ut_threadvm_tests[] = {
	{ "threadvm_fault_same_pages", t_threadvm_fault_same_pages },
	{ "threadvm_fault_different_pages", t_threadvm_fault_different_pages },
	{ "threadvm_munmap_race", t_threadvm_munmap_race },
	{ "threadvm_mprotect_race", t_threadvm_mprotect_race },
	{ "threadvm_cow_while_reading", t_threadvm_cow_while_reading },
	{ "threadvm_fork_while_writing", t_threadvm_fork_while_writing },
	{ NULL, NULL },
};
