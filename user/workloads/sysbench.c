/*
 * workloads sysbench: the 2007 MADV_FREE / mmap_sem experiment's load. Rik
 * van Riel measured MySQL under sysbench: every client thread allocates
 * and frees memory per query through glibc's malloc, whose per-thread
 * arenas ("heaps") were reserved PROT_NONE, made read-write with mprotect
 * as they grew, and trimmed with MADV_DONTNEED when free space gathered
 * at their top; each mprotect and each DONTNEED took mmap_sem for writing,
 * so threads serialised on it, and trimmed pages came back as zero-filled
 * page faults.
 *
 *   workloads sysbench --threads N --tx T [--grow mprotect|none] [--free dontneed|free]
 *                      [--work W] [--skew K] [--pressure C]
 *
 * N threads (clone, threads.c; at most 16) share T transactions (thread k
 * runs numbers k, k + N, ...), each in the thread's own arena: 1 MiB
 * reserved at the start. Transaction i draws its sizes from a generator
 * seeded with i, so every N runs the same transactions (the checksum says
 * so). A transaction (a query): 8-24 allocations of 1-24 KiB bump
 * the arena's top (each block is written, one word per 64 bytes, as rows
 * are copied into it), W rounds of user-mode work over the blocks (the
 * query's computation, default 4: each reads every 64th byte and folds it
 * into a checksum), then everything is freed at once and the arena is
 * trimmed as glibc's heap_trim did: when more than TRIM_THRESHOLD (128
 * KiB) is free above TOP_PAD (64 KiB), everything above TOP_PAD goes back
 * to the kernel.
 *
 *   --grow mprotect  the arena starts PROT_NONE; growing past the
 *                    read-write part mprotects the next 64 KiB steps
 *                    read-write, trimming madvises the released part and
 *                    mprotects it PROT_NONE again (glibc before 2007's
 *                    fix: shrink_heap gave up the protection too, so every
 *                    grow was an mprotect under the write lock)
 *   --grow none      the arena is mapped read-write at the start, no
 *                    mprotect ever (the "new glibc": grow_heap only
 *                    mprotects above the highest size it ever had)
 *   --free dontneed  trimming is MADV_DONTNEED: the pages are zapped at
 *                    once and the next transaction faults them in again
 *   --free free      MADV_FREE: the pages stay mapped, clean; the next
 *                    write cancels the free without a fault (reclaim
 *                    would drop them only under memory pressure)
 *   --pressure C     memory pressure (C KiB; 0, the default: none): a
 *                    child process (pressure.c) leaves the run little free
 *                    memory, SB_PRESSURE_SLACK KiB a thread above the low
 *                    watermark, and maps, writes and unmaps C KiB over and
 *                    over while the threads run, so the kernel reclaims
 *                    all along; with --free free, what it can take is the
 *                    arenas' lazily freed pages (pglazyfreed), which the
 *                    next transaction faults in again
 *   --skew K         K million rounds of an empty loop before the start
 *                    (default 0): the same run, begun at another phase of
 *                    the timer's ticks, for the spread between boots of
 *                    one configuration
 *
 * The kernel side of the variants is the boot option madv_lock=write|read
 * (whether DONTNEED/FREE take the mmap_lock for writing, as 2.6.21 did, or
 * reading, Nick Piggin's patch). The threads wait for one start signal
 * (a futex), so they run their transactions at the same time; the main
 * thread takes the clock and the kernel's counters just before the signal
 * and after the last thread has been joined, and prints
 *   @result workload=sysbench phase=all threads=N tx=T ns=... (guest time)
 *           faults=... (the process's page faults) and, on vmkernel, the
 *           mmap_lock acquisitions (rlock, wlock) and how many had to wait
 *           (rlock_wait, wlock_wait), TLB shootdowns, IPIs and the CPUs
 *           online; mprotects, madvises, tsc (time-stamp counter ticks of
 *           the run) and vm_tsc (ticks the threads spent inside their
 *           mprotect and trimming madvise calls: with one thread, the share
 *           of a transaction that holds the mmap_lock for writing in the
 *           write-lock variants) and the checksum (the same for every
 *           thread count and kernel: the run is deterministic);
 *           lazyfreed and stolen, the lazily freed pages reclaimed and all
 *           pages reclaimed (/proc/vmstat pglazyfreed, pgsteal_kswapd +
 *           pgsteal_direct) during the run; with --pressure, pressure=C,
 *           churns (the child's cycles), hog_kib (what it held) and
 *           pressure_ok (0 when the OOM killer ended it).
 */
#include "wl.h"

#define SB_MAX_THREADS 16
#define SB_ARENA (1024 * 1024UL)
#define SB_GROW_STEP (64 * 1024UL)
#define SB_TOP_PAD (64 * 1024UL)
#define SB_TRIM_THRESHOLD (128 * 1024UL)
/*
 * --pressure's free memory per thread above the low watermark, in KiB. A
 * thread holds TOP_PAD (64 KiB) and one transaction's blocks (8-24 of 1-24
 * KiB: about 200 KiB on average), which the watermarks' headroom (low to
 * min: 360 KiB in 128 MiB) and 256 KiB a thread cover for a few threads
 * at once without the OOM killer (at 192, 4 threads sometimes outgrew it
 * and the child was killed; beyond 4 threads the sum can outgrow 256 too:
 * the child says so), while an arena trimmed with MADV_FREE keeps its high
 * water mapped (348 KiB at --tx 480: 87 pages), more than 256: reclaim
 * has to take some of it at every churn. The fork that starts the child
 * makes the threads' stacks copy-on-write: a few faults more than without
 * --pressure, once each.
 */
#define SB_PRESSURE_SLACK 256UL

struct sb_config {
	bool grow_mprotect;
	int free_advice;              /* MADV_DONTNEED or MADV_FREE */
	unsigned long work;
};

struct sb_thread {
	struct wl_thread t;
	const struct sb_config *cfg;
	unsigned long first, stride, end;       /* transactions first, first + stride, ... < end */
	char *base;                             /* the arena */
	unsigned long top;                      /* bytes allocated now */
	unsigned long rw;                       /* bytes readable and writable (--grow mprotect) */
	unsigned long hiwater;                  /* bytes touched since the last trim */
	unsigned long mprotects, madvises, checksum;
	uint64_t vm_tsc;                        /* TSC ticks inside those mprotect and madvise calls */
	struct wl_rng rng;
};

static volatile int sb_go;

/* glibc's grow_heap: make the arena usable up to top. */
static void arena_grow(struct sb_thread *s, unsigned long top)
{
	if (s->cfg->grow_mprotect && top > s->rw) {
		unsigned long to = (top + SB_GROW_STEP - 1) & ~(SB_GROW_STEP - 1);

		uint64_t t0 = wl_tsc();

		wl_protect(s->base + s->rw, to - s->rw, PROT_READ | PROT_WRITE);
		s->vm_tsc += wl_tsc() - t0;
		s->mprotects++;
		s->rw = to;
	}
	if (top > s->hiwater)
		s->hiwater = top;
}

/* glibc's heap_trim after everything was freed: give back what lies above TOP_PAD. */
static void arena_trim(struct sb_thread *s)
{
	uint64_t t0 = wl_tsc();

	if (s->hiwater < SB_TOP_PAD + SB_TRIM_THRESHOLD)
		return;
	if (madvise(s->base + SB_TOP_PAD, s->hiwater - SB_TOP_PAD, s->cfg->free_advice))
		wl_die("madvise(%p, %lu, %d) failed: errno %d", s->base + SB_TOP_PAD,
		       s->hiwater - SB_TOP_PAD, s->cfg->free_advice, errno);
	s->madvises++;
	if (s->cfg->grow_mprotect) {
		wl_protect(s->base + SB_TOP_PAD, s->rw - SB_TOP_PAD, PROT_NONE);
		s->mprotects++;
		s->rw = SB_TOP_PAD;
	}
	s->vm_tsc += wl_tsc() - t0;
	s->hiwater = SB_TOP_PAD;
}

/* One query: allocate and fill blocks, compute over them, free everything, trim. */
static void transaction(struct sb_thread *s)
{
	char *blocks[24];
	unsigned long sizes[24], n = wl_between(&s->rng, 8, 24), sum = 0;

	s->top = 0;
	for (unsigned long i = 0; i < n; i++) {
		sizes[i] = wl_between(&s->rng, 1024, 24 * 1024) & ~63UL;
		blocks[i] = s->base + s->top;
		arena_grow(s, s->top + sizes[i]);
		s->top += sizes[i];
		for (unsigned long o = 0; o < sizes[i]; o += 64)
			*(volatile unsigned long *)(blocks[i] + o) = i * 0x9e3779b97f4a7c15UL + o;
	}
	for (unsigned long w = 0; w < s->cfg->work; w++)
		for (unsigned long i = 0; i < n; i++)
			for (unsigned long o = 0; o < sizes[i]; o += 64)
				sum = (sum ^ *(volatile unsigned long *)(blocks[i] + o)) * 31 + w;
	s->checksum += sum;
	s->top = 0;
	arena_trim(s);
}

static int sb_thread_main(void *arg)
{
	struct sb_thread *s = arg;

	wl_futex_wait_while(&sb_go, 0);
	for (unsigned long i = s->first; i < s->end; i += s->stride) {
		wl_rng_seed(&s->rng, (i + 1) * 0x9e3779b97f4a7c15ULL);
		transaction(s);
	}
	return 0;
}

static void sb_config_parse(int argc, char **argv, struct sb_config *cfg)
{
	const char *grow = "mprotect", *free_ = "dontneed";

	for (int i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "--grow") == 0)
			grow = argv[i + 1];
		if (strcmp(argv[i], "--free") == 0)
			free_ = argv[i + 1];
	}
	if (strcmp(grow, "mprotect") && strcmp(grow, "none"))
		wl_die("sysbench: --grow mprotect|none, not '%s'", grow);
	if (strcmp(free_, "dontneed") && strcmp(free_, "free"))
		wl_die("sysbench: --free dontneed|free, not '%s'", free_);
	cfg->grow_mprotect = strcmp(grow, "mprotect") == 0;
	cfg->free_advice = strcmp(free_, "free") == 0 ? MADV_FREE : MADV_DONTNEED;
	cfg->work = wl_opt(argc, argv, "--work", 4);
}

/* The kernel's lock and TLB counters (zero on Linux, which has no vmk_memstat). */
static void sb_memstat(struct vmk_memstat *m)
{
	memset(m, 0, sizeof(*m));
	usys2(__NR_vmk_memstat, (long)m, sizeof(*m));
}

/* The reclaim counters of /proc/vmstat the report gives (-1 when unreadable). */
struct sb_vmstat {
	long lazyfreed, stolen;
};

/* From one read of /proc/vmstat: reclaim may be running, and counts between separate reads. */
static void sb_vmstat(struct sb_vmstat *v)
{
	static const char *const keys[] = { "pgsteal_kswapd", "pgsteal_direct", "pglazyfreed" };
	long got[3];

	wl_proc_numbers("/proc/vmstat", keys, got, 3);
	v->lazyfreed = got[2];
	v->stolen = got[0] < 0 || got[1] < 0 ? -1 : got[0] + got[1];
}

static void sb_report(const struct sb_thread *s, unsigned long nthreads, unsigned long tx,
		      uint64_t ns, uint64_t tsc, const struct wl_counts *c0, const struct wl_counts *c1,
		      const struct vmk_memstat *m0, const struct vmk_memstat *m1,
		      const struct sb_vmstat *v0, const struct sb_vmstat *v1, const char *pressure)
{
	unsigned long mprotects = 0, madvises = 0, checksum = 0;
	uint64_t vm_tsc = 0;

	for (unsigned long i = 0; i < nthreads; i++) {
		vm_tsc += s[i].vm_tsc;
		mprotects += s[i].mprotects;
		madvises += s[i].madvises;
		checksum += s[i].checksum;
	}
	wl_result("workload=sysbench phase=all threads=%lu tx=%lu ns=%llu faults=%llu cpus=%llu "
		  "rlock=%llu wlock=%llu rlock_wait=%llu wlock_wait=%llu shootdowns=%llu ipis=%llu "
		  "mprotects=%lu madvises=%lu tsc=%llu vm_tsc=%llu checksum=%lu lazyfreed=%ld stolen=%ld%s",
		  nthreads, tx, (unsigned long long)ns,
		  (unsigned long long)(c1->faults - c0->faults), (unsigned long long)m1->cpus,
		  (unsigned long long)(m1->mmap_read_acquired - m0->mmap_read_acquired),
		  (unsigned long long)(m1->mmap_write_acquired - m0->mmap_write_acquired),
		  (unsigned long long)(m1->mmap_read_contended - m0->mmap_read_contended),
		  (unsigned long long)(m1->mmap_write_contended - m0->mmap_write_contended),
		  (unsigned long long)(m1->tlb_shootdowns - m0->tlb_shootdowns),
		  (unsigned long long)(m1->tlb_ipis - m0->tlb_ipis), mprotects, madvises,
		  (unsigned long long)tsc, (unsigned long long)vm_tsc, checksum,
		  v0->lazyfreed < 0 || v1->lazyfreed < 0 ? -1 : v1->lazyfreed - v0->lazyfreed,
		  v0->stolen < 0 || v1->stolen < 0 ? -1 : v1->stolen - v0->stolen, pressure);
}

int wl_sysbench(int argc, char **argv)
{
	static struct sb_thread s[SB_MAX_THREADS];
	struct sb_config cfg;
	unsigned long nthreads = wl_opt(argc, argv, "--threads", 1), tx = wl_opt(argc, argv, "--tx", 100);
	unsigned long churn = wl_opt(argc, argv, "--pressure", 0), cycles = 0, hog_kib = 0;
	struct wl_counts c0, c1;
	struct vmk_memstat m0, m1;
	struct sb_vmstat v0, v1;
	struct wl_pressure pr;
	char pressure[128] = "";
	uint64_t t0, t1;

	sb_config_parse(argc, argv, &cfg);
	if (nthreads < 1 || nthreads > SB_MAX_THREADS || tx < nthreads)
		wl_die("sysbench: --threads 1..%d and --tx at least the threads", SB_MAX_THREADS);
	for (unsigned long i = 0; i < nthreads; i++) {
		s[i].cfg = &cfg;
		s[i].first = i;
		s[i].stride = nthreads;
		s[i].end = tx;
		s[i].base = wl_map(NULL, SB_ARENA, cfg.grow_mprotect ? PROT_NONE : PROT_READ | PROT_WRITE, 0);
		wl_thread_start(&s[i].t, sb_thread_main, &s[i]);
	}
	if (churn)      /* after the threads' stacks: the slack is for the arenas */
		wl_pressure_start(&pr, nthreads * SB_PRESSURE_SLACK, churn);
	for (volatile unsigned long k = wl_opt(argc, argv, "--skew", 0) * 1000000; k; k--)
		;
	sb_vmstat(&v0);
	wl_counts(&c0);
	sb_memstat(&m0);
	t0 = wl_now_ns();
	wl_futex_set_wake_all(&sb_go, 1);
	for (unsigned long i = 0; i < nthreads; i++)
		wl_thread_join(&s[i].t);
	t1 = wl_now_ns();
	wl_counts(&c1);
	sb_memstat(&m1);
	sb_vmstat(&v1);
	if (churn) {
		bool ok = wl_pressure_stop(&pr, &cycles, &hog_kib);

		snprintf(pressure, sizeof(pressure), " pressure=%lu churns=%lu hog_kib=%lu pressure_ok=%d",
			 churn, cycles, hog_kib, ok);
	}
	sb_report(s, nthreads, tx, t1 - t0, c1.tsc - c0.tsc, &c0, &c1, &m0, &m1, &v0, &v1, pressure);
	for (unsigned long i = 0; i < nthreads; i++)
		wl_unmap(s[i].base, SB_ARENA);
	return 0;
}
