/*
 * smpbench: N processes at once, each running a will-it-scale-like loop
 * in its own address space, on Linux and on this kernel alike:
 *
 *   smpbench page_fault N   each maps 16 MiB, writes one byte per page, unmaps (4 times)
 *   smpbench mmap N         each maps and unmaps 128 KiB (2048 times)
 *
 * Prints one line: "smpbench WORKLOAD procs=N ops=OPS ns=NS ops_per_sec=R",
 * NS being CLOCK_MONOTONIC from the start signal to the last child's end
 * (on this kernel the TSC: host time, or with -icount guest instructions).
 * The children wait in shared memory for the start signal, so they run
 * their loops at the same time. Used by tools/bench/smpbench (docs/smp-bench.md).
 */
#include "ulib.h"

#define MAXPROCS 16
#define PF_BYTES (16UL << 20)
#define PF_ROUNDS 4
#define MMAP_BYTES (128UL << 10)
#define MMAP_ROUNDS 2048

static long now_ns(void)
{
	long ts[2] = { 0, 0 };

	usys2(__NR_clock_gettime, 1 /* CLOCK_MONOTONIC */, (long)ts);
	return ts[0] * 1000000000L + ts[1];
}

static long page_fault_loop(void)
{
	long ops = 0;

	for (int r = 0; r < PF_ROUNDS; r++) {
		char *p = mmap(NULL, PF_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return -1;
		for (unsigned long off = 0; off < PF_BYTES; off += 4096, ops++)
			p[off] = 1;
		munmap(p, PF_BYTES);
	}
	return ops;
}

static long mmap_loop(void)
{
	for (int r = 0; r < MMAP_ROUNDS; r++) {
		void *p = mmap(NULL, MMAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, MMAP_BYTES))
			return -1;
	}
	return MMAP_ROUNDS;
}

int main(int argc, char **argv)
{
	volatile long *sh;
	bool pf;
	int n, st;
	long t0, t1, ops = 0;

	if (argc != 3 || (strcmp(argv[1], "page_fault") && strcmp(argv[1], "mmap"))) {
		dprintf(2, "usage: smpbench page_fault|mmap NPROCS\n");
		return 2;
	}
	pf = strcmp(argv[1], "page_fault") == 0;
	n = (int)strtol(argv[2], NULL, 10);
	if (n < 1 || n > MAXPROCS)
		return 2;
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	for (int i = 0; i < n; i++) {
		if (fork() == 0) {
			long r;

			__atomic_add_fetch(&sh[1], 1, __ATOMIC_ACQ_REL);
			while (!__atomic_load_n(&sh[0], __ATOMIC_ACQUIRE))
				usys0(__NR_sched_yield);
			r = pf ? page_fault_loop() : mmap_loop();
			__atomic_add_fetch(&sh[2], r, __ATOMIC_ACQ_REL);
			_exit(r < 0);
		}
	}
	while (__atomic_load_n(&sh[1], __ATOMIC_ACQUIRE) < n)
		usys0(__NR_sched_yield);
	t0 = now_ns();
	__atomic_store_n(&sh[0], 1, __ATOMIC_RELEASE);
	for (int i = 0; i < n; i++)
		if (waitpid(-1, &st, 0) < 0 || st != 0)
			return 1;
	t1 = now_ns();
	ops = sh[2];
	printf("smpbench %s procs=%d ops=%ld ns=%ld ops_per_sec=%ld\n", argv[1], n, ops, t1 - t0,
	       t1 > t0 ? (long)((unsigned __int128)ops * 1000000000 / (unsigned long)(t1 - t0)) : 0);
	return 0;
}
