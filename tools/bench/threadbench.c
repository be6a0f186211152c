/*
 * threadbench: will-it-scale-like loops in N threads of one process (one
 * address space, one mmap_lock), on Linux and on this kernel alike. Built
 * by tools/bench/smpbench with musl-gcc -static -pthread (a real libc: malloc1
 * needs a thread-safe malloc), so the same static binary runs on both.
 *
 *   threadbench [--quick] [--pin] [--max N] [WORKLOAD...]     (default: all six)
 *
 * Workloads (each thread on its own memory, as will-it-scale's threads
 * mode; an operation is):
 *   page_fault1  a write of one byte to a page of a fresh anonymous mapping
 *                of 128 MiB, as will-it-scale (--quick: 32 MiB),
 *                unmapped at the end (one page fault)
 *   mmap1        mmap + munmap of 128 MiB, untouched
 *   brk1         brk(+1 page) and back: the break is the process's, shared
 *                by all threads (see tools/bench/smpbench's notes)
 *   malloc1      malloc(1 MiB) + a write to its first byte + free (musl
 *                serves it with mmap/munmap)
 *   tlb_flush1   a write to the thread's own page + MADV_DONTNEED of it
 *   mixed1       a page fault, as page_fault1 but in 4 KiB pages
 *                (MADV_NOHUGEPAGE) and with 2000 other VMAs in the
 *                process; with 2 threads or more, one of them does no
 *                faults but maps and unmaps 64 KiB (mmap + munmap, its
 *                own count: mapper_ops) until the others are done, so the
 *                faults meet a writer of the mmap_lock and of the VMA tree
 *                all the time (issue 20's mixed row)
 * for 1, 2, 4, 8 and 16 threads (--max N: those up to N), a fixed number
 * of operations per thread (--quick: a quarter).
 *
 * --pin (before the workloads): thread i runs on CPU i only (modulo the
 * CPUs the process may use), the mixed1 mapper on CPU 0, and each mixed1
 * faulting thread executes a marker instruction before its first fault
 * and after its last (MARK_FAULTS_BEGIN, MARK_FAULTS_END) and the main
 * thread one at the start of each run (MARK_RUN). The markers
 * are no-ops; under QEMU with tools/bench/insncount.c they give each
 * CPU's own instruction count there, so tools/bench/mixedcost can take a
 * faulting thread's instructions apart from the mapper's.
 *
 * One line per run: "threadbench W threads=N ops=OPS ns=NS ops_per_sec=R"
 * and, on this kernel (vmk_memstat, syscall 1000; -ENOSYS on Linux), the
 * counters' increase over the run: mmap_read, mmap_write, contended
 * (mmap_lock acquisitions that waited), lockless and fallback faults,
 * shootdowns, ipis; on both kernels, when /proc/vmstat can be read (as
 * Linux's /init it mounts /proc first), the increase of thp_fault_alloc
 * (huge pages a fault mapped) and thp_split_pmd (2 MiB mappings split).
 * NS is CLOCK_MONOTONIC from the start signal to the
 * last join: host time under multi-threaded TCG, guest instructions
 * under -icount shift=0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "vmk.h"

#define MAX_THREADS 16
#define PAGE 4096UL

/* tools/bench/insncount.c's markers: nopl 0x4b4d56NN(%rax,%rax,1), a no-op with code NN. */
#define MARK_FAULTS_BEGIN 1
#define MARK_FAULTS_END 2
#define MARK_RUN 3
#define mark(code) __asm__ volatile(".byte 0x0f, 0x1f, 0x84, 0x00, %c0, 0x56, 0x4d, 0x4b" : : "i"(code) : "memory")

static bool pin;                /* --pin */
static int max_threads = MAX_THREADS;  /* --max N: only the thread counts up to N */

struct params {
	unsigned long pf_bytes;          /* page_fault1's mapping */
	long mmap_ops, brk_ops, malloc_ops, tlb_ops;
};

/* The default: will-it-scale's 128 MiB; --quick: a quarter of everything. */
static const struct params full = { 128UL << 20, 2000, 4000, 2000, 4000 };
static const struct params quick = { 32UL << 20, 500, 1000, 500, 1000 };
static const struct params *par = &full;

static volatile int ready, go;
/* mixed1: faulting threads still running (the mapper stops at 0), and the mapper's operations. */
static int mixed_faulters;
static long mapper_ops;

static long page_fault1(void)
{
	char *p = mmap(NULL, par->pf_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	for (unsigned long off = 0; off < par->pf_bytes; off += PAGE)
		p[off] = 1;
	munmap(p, par->pf_bytes);
	return (long)(par->pf_bytes / PAGE);
}

static long mmap1(void)
{
	for (long i = 0; i < par->mmap_ops; i++) {
		void *p = mmap(NULL, 128UL << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, 128UL << 20))
			return -1;
	}
	return par->mmap_ops;
}

static long brk1(void)
{
	for (long i = 0; i < par->brk_ops; i++) {
		long cur = syscall(SYS_brk, 0);

		syscall(SYS_brk, cur + PAGE);
		syscall(SYS_brk, cur);
	}
	return par->brk_ops;
}

static long malloc1(void)
{
	for (long i = 0; i < par->malloc_ops; i++) {
		volatile char *p = malloc(1UL << 20);

		if (!p)
			return -1;
		p[0] = 1;
		free((void *)p);
	}
	return par->malloc_ops;
}

static long tlb_flush1(void)
{
	volatile char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	for (long i = 0; i < par->tlb_ops; i++) {
		p[0] = 1;
		madvise((void *)p, PAGE, MADV_DONTNEED);
	}
	munmap((void *)p, PAGE);
	return par->tlb_ops;
}

/* mixed1's faulting thread: page_fault1's loop in 4 KiB pages. */
static long mixed_fault(void)
{
	char *p = mmap(NULL, par->pf_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long n = (long)(par->pf_bytes / PAGE);

	if (p == MAP_FAILED || madvise(p, par->pf_bytes, MADV_NOHUGEPAGE))
		n = -1;
	if (pin)
		mark(MARK_FAULTS_BEGIN);
	for (unsigned long off = 0; n > 0 && off < par->pf_bytes; off += PAGE)
		p[off] = 1;
	if (pin)
		mark(MARK_FAULTS_END);
	if (p != MAP_FAILED)
		munmap(p, par->pf_bytes);
	__atomic_sub_fetch(&mixed_faulters, 1, __ATOMIC_SEQ_CST);
	return n;
}

/* mixed1's mapper: mmap + munmap of 64 KiB until no faulting thread is left; does no fault itself. */
static long mixed_map(void)
{
	long ops = 0;

	while (__atomic_load_n(&mixed_faulters, __ATOMIC_SEQ_CST) > 0) {
		void *p = mmap(NULL, 64 << 10, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, 64 << 10))
			return -1;
		ops++;
	}
	__atomic_store_n(&mapper_ops, ops, __ATOMIC_SEQ_CST);
	return 0;
}

static const struct workload {
	const char *name;
	long (*fn)(void);
	long (*first)(void);    /* what thread 0 runs instead when there are 2 threads or more */
} workloads[] = {
	{ "page_fault1", page_fault1, NULL }, { "mmap1", mmap1, NULL }, { "brk1", brk1, NULL },
	{ "malloc1", malloc1, NULL }, { "tlb_flush1", tlb_flush1, NULL },
	{ "mixed1", mixed_fault, mixed_map },
};

/* mixed1's 2000 other VMAs: 2000 pages, every other one PROT_NONE, so no two merge. Stay mapped. */
static int mixed_setup(void)
{
	static char *others;

	if (others)
		return 0;
	others = mmap(NULL, 2000 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (others == MAP_FAILED)
		return -1;
	for (int i = 1; i < 2000; i += 2)
		if (mprotect(others + i * PAGE, PAGE, PROT_NONE))
			return -1;
	return 0;
}

struct start {
	long (*fn)(void);
	int cpu;                /* --pin: the one CPU it runs on */
};

/* --pin: the calling thread on the k-th CPU of those the process may use. */
static void pin_to(int k)
{
	cpu_set_t allowed, one;
	int n = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed) && n++ == k % CPU_COUNT(&allowed))
			CPU_SET(c, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

static void *worker(void *arg)
{
	const struct start *st = arg;

	if (pin)
		pin_to(st->cpu);
	__atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&go, __ATOMIC_SEQ_CST))
		sched_yield();
	return (void *)st->fn();
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static int memstat(struct vmk_memstat *st)
{
	memset(st, 0, sizeof(*st));
	return syscall(__NR_vmk_memstat, st, sizeof(*st)) == 0;
}

/* Run w in n threads at once; print its line. 0, or 1 when a thread failed. */
/* The huge-page counters of /proc/vmstat (both kernels name them as Linux does); false when it cannot be read. */
struct thp_counts {
	long fault_alloc, split_pmd;
};

static long vmstat_field(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, name, n) == 0 && l[n] == ' ')
			return atol(l + n + 1);
	return -1;
}

static bool thp_counts(struct thp_counts *c)
{
	static char buf[16384];
	int fd = open("/proc/vmstat", O_RDONLY);
	ssize_t got, n = 0;

	if (fd < 0)
		return false;
	while (n < (ssize_t)sizeof(buf) - 1 && (got = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += got;
	close(fd);
	buf[n] = 0;
	c->fault_alloc = vmstat_field(buf, "thp_fault_alloc");
	c->split_pmd = vmstat_field(buf, "thp_split_pmd");
	return c->fault_alloc >= 0 && c->split_pmd >= 0;
}

static int run(const struct workload *w, int n)
{
	pthread_t t[MAX_THREADS];
	struct start st[MAX_THREADS];
	struct vmk_memstat a, b;
	struct thp_counts h0, h1;
	long ops = 0, t0, t1;
	int counted;
	bool thp;
	bool mapper = w->first && n > 1;

	ready = go = 0;
	if (w->first && mixed_setup())
		return 1;
	mixed_faulters = mapper ? n - 1 : n;
	mapper_ops = 0;
	for (int i = 0; i < n; i++) {
		st[i].fn = i == 0 && mapper ? w->first : w->fn;
		st[i].cpu = i;
		if (pthread_create(&t[i], NULL, worker, &st[i]))
			return 1;
	}
	while (__atomic_load_n(&ready, __ATOMIC_SEQ_CST) < n)
		sched_yield();
	counted = memstat(&a);
	thp = thp_counts(&h0);
	if (pin)
		mark(MARK_RUN);
	t0 = now_ns();
	__atomic_store_n(&go, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < n; i++) {
		void *r;

		pthread_join(t[i], &r);
		if ((long)r < 0)
			return 1;
		ops += (long)r;
	}
	t1 = now_ns();
	printf("threadbench %s threads=%d ops=%ld ns=%ld ops_per_sec=%ld", w->name, n, ops, t1 - t0,
	       t1 > t0 ? (long)((__int128)ops * 1000000000 / (t1 - t0)) : 0);
	if (mapper)
		printf(" mapper_ops=%ld", mapper_ops);
	if (counted && memstat(&b))
		printf(" mmap_read=%lu mmap_write=%lu contended=%lu lockless=%lu fallback=%lu pt_shared=%lu"
		       " shootdowns=%lu ipis=%lu",
		       (unsigned long)(b.mmap_read_acquired - a.mmap_read_acquired),
		       (unsigned long)(b.mmap_write_acquired - a.mmap_write_acquired),
		       (unsigned long)(b.mmap_read_contended + b.mmap_write_contended - a.mmap_read_contended -
				       a.mmap_write_contended),
		       (unsigned long)(b.faults_lockless - a.faults_lockless),
		       (unsigned long)(b.faults_fallback - a.faults_fallback),
		       (unsigned long)(b.faults_pt_shared - a.faults_pt_shared),
		       (unsigned long)(b.tlb_shootdowns - a.tlb_shootdowns), (unsigned long)(b.tlb_ipis - a.tlb_ipis));
	if (thp && thp_counts(&h1))
		printf(" thp_fault_alloc=%ld thp_split_pmd=%ld", h1.fault_alloc - h0.fault_alloc,
		       h1.split_pmd - h0.split_pmd);
	printf("\n");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static const int counts[] = { 1, 2, 4, 8, 16 };
	int first = 1, status = 0, any = 0;

	if (getpid() == 1) {            /* Linux's /init: nothing has mounted /proc */
		mkdir("/proc", 0555);
		mount("proc", "/proc", "proc", 0, NULL);
	}
	for (; first < argc && argv[first][0] == '-'; first++) {
		if (strcmp(argv[first], "--quick") == 0)
			par = &quick;
		else if (strcmp(argv[first], "--pin") == 0)
			pin = true;
		else if (strcmp(argv[first], "--max") == 0 && first + 1 < argc)
			max_threads = atoi(argv[++first]);
		else
			break;
	}
	for (size_t k = 0; k < sizeof(workloads) / sizeof(workloads[0]); k++) {
		bool chosen = argc <= first;

		for (int i = first; i < argc; i++)
			chosen |= strcmp(argv[i], workloads[k].name) == 0;
		if (!chosen)
			continue;
		any = 1;
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]) && counts[c] <= max_threads; c++)
			status |= run(&workloads[k], counts[c]);
	}
	if (!any) {
		fprintf(stderr, "usage: threadbench [--quick] [--pin] [--max N] [page_fault1|mmap1|brk1|malloc1|tlb_flush1|mixed1]...\n");
		return 2;
	}
	printf("threadbench done\n");
	fflush(stdout);
	if (getpid() == 1) {
		/* Linux's /init (tools/bench/smpbench): if init returned, Linux
		 * would panic with this output still in the console's buffer;
		 * wait until it is sent, then power off. */
		tcdrain(1);
		reboot(RB_POWER_OFF);
	}
	return status;
}
