/*
 * smp_bench: will-it-scale-like workloads run by T kernel threads in one
 * address space (kthread_use_mm: what user threads will do), on T CPUs,
 * with faults under the mmap_lock or under per-VMA locks (the suite's
 * parameter). Not a test of speed: it prints counts per operation as KTAP
 * diagnostics, which tools/bench/smpbench collects into docs/smp-bench.md:
 *
 *   # smp_bench WORKLOAD fault_lock=MODE threads=T ops=N cycles_per_op=C
 *     mmap_read=.. mmap_write=.. contended=.. lockless=.. fallback=..
 *     shootdowns=.. ipis=.. (all per operation, x1000)
 *
 * Workloads (after will-it-scale): page_fault (each thread maps 1 MiB,
 * writes one byte per page, unmaps, again), tlb_flush (each thread writes
 * its page and MADV_DONTNEEDs it, again), mmap (each thread maps and
 * unmaps 128 KiB without touching it, again). Cycles are the TSC from the
 * start signal to the last thread's end: with -icount, guest instructions.
 * The only checks are that every operation succeeded. KTEST_SLOW: run it
 * by name (ktest=smp_bench).
 */
#include "ktest.h"
#include "task.h"
#include "mm.h"
#include "arch_mmu.h"
#include "uaccess.h"
#include "arch.h"
#include "x86.h"
#include "printk.h"
#include "lockless.h"
#include "mm/internal.h"

#define BENCH_BASE 0x100000000UL
#define REGION (1UL << 24)              /* each thread's own 16 MiB of address space */
#define PF_BYTES (1UL << 20)
#define PF_ROUNDS 8
#define TLB_ROUNDS 256
#define MMAP_ROUNDS 128
#define MMAP_BYTES (128UL << 10)

enum workload { W_PAGE_FAULT, W_TLB_FLUSH, W_MMAP };
static const char *const workload_names[] = { "page_fault", "tlb_flush", "mmap" };

struct bench {
	struct mm *mm;
	enum workload w;
	int go;                         /* [atomic] the start signal (smp_store_release) */
	unsigned ready;                 /* [atomic] threads waiting for go */
	unsigned long ops;              /* [atomic] operations done; plain reads after the joins */
};

struct bench_thread {
	struct bench *b;
	unsigned id;
};

static unsigned long page_fault_round(struct bench *b, uintptr_t base)
{
	unsigned long n = 0;

	if (vm_mmap(b->mm, base, PF_BYTES, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) != (long)base)
		return 0;
	for (uintptr_t a = base; a < base + PF_BYTES; a += PAGE_SIZE) {
		char c = 1;

		n += copy_to_user((void *)a, &c, 1) == 0;
	}
	vm_munmap(b->mm, base, PF_BYTES);
	return n;
}

static unsigned long run_workload(struct bench *b, uintptr_t base)
{
	unsigned long ops = 0;
	char c = 1;

	switch (b->w) {
	case W_PAGE_FAULT:
		for (unsigned r = 0; r < PF_ROUNDS; r++)
			ops += page_fault_round(b, base);
		break;
	case W_TLB_FLUSH:
		if (vm_mmap(b->mm, base, PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) != (long)base)
			break;
		for (unsigned r = 0; r < TLB_ROUNDS; r++)
			ops += copy_to_user((void *)base, &c, 1) == 0 &&
			       vm_madvise(b->mm, base, PAGE_SIZE, MADV_DONTNEED) == 0;
		vm_munmap(b->mm, base, PAGE_SIZE);
		break;
	case W_MMAP:
		for (unsigned r = 0; r < MMAP_ROUNDS; r++)
			ops += vm_mmap(b->mm, base, MMAP_BYTES, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) == (long)base &&
			       vm_munmap(b->mm, base, MMAP_BYTES) == 0;
		break;
	}
	return ops;
}

static void bench_thread(void *arg)
{
	struct bench_thread *bt = arg;
	struct bench *b = bt->b;
	unsigned long ops;

	kthread_use_mm(b->mm);
	__atomic_add_fetch(&b->ready, 1, __ATOMIC_ACQ_REL);
	while (!smp_load_acquire(&b->go))
		sched_yield();          /* CPU 0's thread shares its CPU with the test */
	ops = run_workload(b, BENCH_BASE + bt->id * REGION);
	__atomic_add_fetch(&b->ops, ops, __ATOMIC_RELAXED);
	kthread_unuse_mm();
}

struct counts {
	uint64_t cycles;
	unsigned long rd, wr, contended, lockless, fallback;
	struct tlb_stats tlb;
};

static void snapshot(struct mm *mm, struct counts *c)
{
	c->cycles = rdtsc();
	c->rd = mm->mmap_lock.read_acquired;
	c->wr = mm->mmap_lock.write_acquired;
	c->contended = mm->mmap_lock.read_contended + mm->mmap_lock.write_contended;
	c->lockless = mm->faults_lockless;
	c->fallback = mm->faults_fallback;
	arch_tlb_stats(&c->tlb);
}

/* x1000 per operation, so that small rates stay visible in integers. */
static unsigned long per_kop(unsigned long n, unsigned long ops)
{
	return ops ? n * 1000 / ops : 0;
}

static void report(struct bench *b, unsigned threads, bool vma, const struct counts *s,
		   const struct counts *e)
{
	unsigned long ops = b->ops;

	printk("# smp_bench %s fault_lock=%s threads=%u ops=%lu cycles_per_op=%llu"
	       " x1000/op: mmap_read=%lu mmap_write=%lu contended=%lu lockless=%lu fallback=%lu"
	       " shootdowns=%lu ipis=%lu\n",
	       workload_names[b->w], vma ? "vma" : "mmap", threads, ops,
	       (unsigned long long)(ops ? (e->cycles - s->cycles) / ops : 0),
	       per_kop(e->rd - s->rd, ops), per_kop(e->wr - s->wr, ops),
	       per_kop(e->contended - s->contended, ops), per_kop(e->lockless - s->lockless, ops),
	       per_kop(e->fallback - s->fallback, ops),
	       per_kop(e->tlb.shootdowns - s->tlb.shootdowns, ops), per_kop(e->tlb.ipis - s->tlb.ipis, ops));
}

/* Run workload w with threads threads on CPUs 0..threads-1; false when something failed. */
static bool run_bench(enum workload w, unsigned threads, bool vma)
{
	struct bench b = { .w = w };
	struct bench_thread bt[NR_CPUS];
	struct task *th[NR_CPUS];
	struct counts s, e;

	b.mm = mm_create();
	if (!b.mm)
		return false;
	mmap_write_lock(b.mm);
	vma_lockless_set(b.mm, vma);
	mmap_write_unlock(b.mm);
	for (unsigned i = 0; i < threads; i++) {
		bt[i] = (struct bench_thread){ &b, i };
		th[i] = kthread_create(bench_thread, &bt[i], (int)i, "smp_bench");
		if (!th[i])
			return false;
		kthread_start(th[i]);
	}
	while (smp_load_acquire(&b.ready) < threads)
		sched_yield();
	snapshot(b.mm, &s);
	smp_store_release(&b.go, 1);
	for (unsigned i = 0; i < threads; i++)
		kthread_join(th[i]);
	snapshot(b.mm, &e);
	report(&b, threads, vma, &s, &e);
	mm_put(b.mm);
	return b.ops > 0;
}

static void bench_all_thread_counts(struct ktest *t, enum workload w)
{
	unsigned n = arch_nr_cpus();

	for (unsigned threads = 1; threads <= n; threads *= 2)
		EXPECT_TRUE(t, run_bench(w, threads, t->param == 1));
}

static void test_page_fault(struct ktest *t) { bench_all_thread_counts(t, W_PAGE_FAULT); }
static void test_tlb_flush(struct ktest *t) { bench_all_thread_counts(t, W_TLB_FLUSH); }
static void test_mmap(struct ktest *t) { bench_all_thread_counts(t, W_MMAP); }

static const char *mode_name(unsigned i)
{
	return i == 0 ? "fault_lock=mmap" : i == 1 ? "fault_lock=vma" : NULL;
}

static const struct ktest_case smp_bench_cases[] = {
	KTEST_CASE(test_page_fault),
	KTEST_CASE(test_tlb_flush),
	KTEST_CASE(test_mmap),
	{ NULL, NULL },
};

static const struct ktest_suite smp_bench_suite = {
	.name = "smp_bench",
	.cases = smp_bench_cases,
	.nparams = 2,
	.param_name = mode_name,
	.flags = KTEST_SLOW,
};
KTEST_REGISTER(smp_bench_suite);
