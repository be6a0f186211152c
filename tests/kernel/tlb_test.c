/*
 * TLB shootdown, proven the way a stale entry would show: a kernel thread
 * on another CPU works in the test's address space (kthread_use_mm) and
 * touches a page, so its CPU caches the translation; then, while it spins
 * without switching address spaces, the test (on CPU 0, not using the
 * address space) unmaps, write-protects, zaps, moves or COW-shares the
 * page; then the thread touches the page again through its own TLB. With
 * the shootdown it faults (or sees the new page); without it the cached
 * entry would hand it the old frame. (With QEMU, a vCPU's software TLB
 * keeps an entry until it is flushed, so a missing shootdown shows.)
 *
 * Also: one shootdown per munmap/mprotect however many VMAs and pages
 * (and a whole-TLB flush past TLB_BATCH_PAGES pages); with a probe on
 * every other CPU, the mask holds exactly their CPUs and one munmap
 * interrupts each of them once; and lazy TLB: a CPU
 * whose kernel thread sleeps keeps the address space loaded until the
 * first shootdown, which makes it switch away instead of flushing.
 * Every test also checks that the probe's CPU is in the address space's
 * CPU mask once the probe has touched the page (that is how a flush finds
 * it), and ends with vma_check and an exact frame count.
 *
 *   A: [ page ][ page ][ page ] ...   private anonymous, read/write
 */
#include "ktest.h"
#include "task.h"
#include "mm.h"
#include "arch_mmu.h"
#include "uaccess.h"
#include "arch.h"
#include "kerrno.h"
#include "tests/unit/test_mm_util.h"
#include "lockless.h"

#define A 0x20000000UL
#define PATTERN 0x5a5a5a5a12345678UL
#define WRITE_BEFORE 0x1111222233334444UL  /* what a probe writes before the change */
#define WRITE_AFTER  0x5555666677778888UL  /* and after */

enum probe_op { PROBE_READ, PROBE_WRITE };

/* The remote CPU's side: touch, report, spin, touch again. */
struct probe {
	struct mm *mm;
	uintptr_t addr, addr2;          /* touched before / after (the same unless a move) */
	enum probe_op before, after;
	int ready, go;                  /* [atomic] probe to test, test to probe (release/acquire) */
	int sleep_between;              /* sleep (lazy TLB) instead of spinning; set before the start */
	int wake;                       /* sched_wait_flag's flag */
	struct task *th;
	int err_before, err_after;
	uint64_t val_before, val_after;
	bool in_mask;                   /* its CPU was in the mm's CPU mask when it was ready */
};

static int touch(uintptr_t addr, enum probe_op op, uint64_t wval, uint64_t *val)
{
	if (op == PROBE_WRITE)
		return copy_to_user((void *)addr, &wval, sizeof(wval));
	return copy_from_user(val, (const void *)addr, sizeof(*val));
}

static void probe_thread(void *arg)
{
	struct probe *p = arg;

	kthread_use_mm(p->mm);
	p->err_before = touch(p->addr, p->before, WRITE_BEFORE, &p->val_before);
	smp_store_release(&p->ready, 1);
	if (p->sleep_between) {
		sched_wait_flag(&p->wake);
	} else {
		while (!smp_load_acquire(&p->go))
			arch_cpu_relax();       /* no schedule: the address space stays in CR3 */
	}
	p->err_after = touch(p->addr2, p->after, WRITE_AFTER, &p->val_after);
	kthread_unuse_mm();
}

static unsigned other_cpu(void)
{
	unsigned long m = arch_cpu_online_mask() & ~1UL;

	return m ? (unsigned)__builtin_ctzl(m) : 0;
}

static bool start_probe(struct probe *p)
{
	p->th = kthread_create(probe_thread, p, (int)other_cpu(), "tlb_probe");
	if (!p->th)
		return false;
	kthread_start(p->th);
	while (!smp_load_acquire(&p->ready))
		sched_yield();
	p->in_mask = arch_mmu_cpus(p->mm->mmu) & (1UL << other_cpu());
	return true;
}

/* After the change: let the probe touch the page again. */
static void finish_probe(struct ktest *t, struct probe *p)
{
	EXPECT_TRUE(t, p->in_mask);
	if (p->sleep_between)
		sched_wake_flag(p->th, &p->wake);
	else
		smp_store_release(&p->go, 1);
	kthread_join(p->th);
}

/* An mm with npages private RW pages at A, all written with PATTERN. */
static struct mm *make_mm(struct ktest *t, unsigned npages)
{
	struct mm *mm = mm_create();
	uint64_t v = PATTERN;

	if (!mm)
		return NULL;
	if (vm_mmap(mm, A, npages * PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) != (long)A) {
		mm_put(mm);
		return NULL;
	}
	for (unsigned i = 0; i < npages; i++)
		if (mm_copy_to(mm, A + i * PAGE_SIZE, &v, sizeof(v))) {
			mm_put(mm);
			return NULL;
		}
	return mm;
}

static bool skip_one_cpu(struct ktest *t)
{
	if (arch_nr_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return true;
	}
	return false;
}

static void check_mm(struct ktest *t, struct mm *mm)
{
	mmap_read_lock(mm);
	EXPECT_EQ(t, vma_check(mm), 0);
	mmap_read_unlock(mm);
}

static void test_munmap_shoots_down(struct ktest *t)
{
	struct probe p = { .addr = A, .addr2 = A, .before = PROBE_READ, .after = PROBE_READ };
	struct tlb_stats s0, s1;
	size_t frames;

	if (skip_one_cpu(t))
		return;
	ut_warm_up();
	frames = ut_free_frames();
	p.mm = make_mm(t, 1);
	ASSERT_TRUE(t, p.mm != NULL);
	ASSERT_TRUE(t, start_probe(&p));
	EXPECT_EQ(t, p.err_before, 0);
	EXPECT_EQ(t, p.val_before, PATTERN);
	EXPECT_TRUE(t, arch_mmu_cpus(p.mm->mmu) & (1UL << other_cpu()));
	arch_tlb_stats(&s0);
	EXPECT_EQ(t, vm_munmap(p.mm, A, PAGE_SIZE), 0);
	arch_tlb_stats(&s1);
	finish_probe(t, &p);
	/* Through a stale entry the read would still return PATTERN from the freed frame. */
	EXPECT_EQ(t, p.err_after, -EFAULT);
	EXPECT_EQ(t, s1.shootdowns - s0.shootdowns, 1);
	EXPECT_EQ(t, s1.ipis - s0.ipis, 1);
	check_mm(t, p.mm);
	mm_put(p.mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

static void test_mprotect_shoots_down(struct ktest *t)
{
	struct probe p = { .addr = A, .addr2 = A, .before = PROBE_WRITE, .after = PROBE_WRITE };
	uint64_t v = 0;

	if (skip_one_cpu(t))
		return;
	p.mm = make_mm(t, 1);
	ASSERT_TRUE(t, p.mm != NULL);
	ASSERT_TRUE(t, start_probe(&p));
	EXPECT_EQ(t, p.err_before, 0);  /* its CPU now caches a writable entry */
	EXPECT_EQ(t, vm_mprotect(p.mm, A, PAGE_SIZE, PROT_READ), 0);
	finish_probe(t, &p);
	EXPECT_EQ(t, p.err_after, -EFAULT);
	EXPECT_EQ(t, mm_copy_from(p.mm, &v, A, sizeof(v)), 0);
	EXPECT_EQ(t, v, WRITE_BEFORE);  /* the first write only */
	check_mm(t, p.mm);
	mm_put(p.mm);
}

static void test_dontneed_shoots_down(struct ktest *t)
{
	struct probe p = { .addr = A, .addr2 = A, .before = PROBE_READ, .after = PROBE_READ };

	if (skip_one_cpu(t))
		return;
	p.mm = make_mm(t, 1);
	ASSERT_TRUE(t, p.mm != NULL);
	ASSERT_TRUE(t, start_probe(&p));
	EXPECT_EQ(t, p.val_before, PATTERN);
	EXPECT_EQ(t, vm_madvise(p.mm, A, PAGE_SIZE, MADV_DONTNEED), 0);
	finish_probe(t, &p);
	EXPECT_EQ(t, p.err_after, 0);
	EXPECT_EQ(t, p.val_after, 0);   /* a fresh zero page, not the old frame */
	check_mm(t, p.mm);
	mm_put(p.mm);
}

static void test_mremap_shoots_down(struct ktest *t)
{
	struct probe p = { .addr = A, .addr2 = A, .before = PROBE_READ, .after = PROBE_READ };
	const uintptr_t to = A + 64 * PAGE_SIZE;
	uint64_t v = 0;

	if (skip_one_cpu(t))
		return;
	p.mm = make_mm(t, 1);
	ASSERT_TRUE(t, p.mm != NULL);
	ASSERT_TRUE(t, start_probe(&p));
	EXPECT_EQ(t, vm_mremap(p.mm, A, PAGE_SIZE, PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, to), (long)to);
	finish_probe(t, &p);
	EXPECT_EQ(t, p.err_after, -EFAULT);     /* the old address no longer reaches the page */
	EXPECT_EQ(t, mm_copy_from(p.mm, &v, to, sizeof(v)), 0);
	EXPECT_EQ(t, v, PATTERN);
	check_mm(t, p.mm);
	mm_put(p.mm);
}

/*
 * Fork while another CPU has a writable entry for the page: after mm_dup
 * the page is shared copy-on-write, so the thread's next write must fault
 * and copy, leaving the child's page as it was.
 */
static void test_fork_write_protect_shoots_down(struct ktest *t)
{
	struct probe p = { .addr = A, .addr2 = A, .before = PROBE_WRITE, .after = PROBE_WRITE };
	struct mm *child;
	uint64_t v = 0;

	if (skip_one_cpu(t))
		return;
	p.mm = make_mm(t, 1);
	ASSERT_TRUE(t, p.mm != NULL);
	ASSERT_TRUE(t, start_probe(&p));
	child = mm_dup(p.mm);
	ASSERT_TRUE(t, child != NULL);
	finish_probe(t, &p);
	EXPECT_EQ(t, p.err_after, 0);
	EXPECT_EQ(t, mm_copy_from(child, &v, A, sizeof(v)), 0);
	EXPECT_EQ(t, v, WRITE_BEFORE);  /* the write before the fork only */
	EXPECT_EQ(t, mm_copy_from(p.mm, &v, A, sizeof(v)), 0);
	EXPECT_EQ(t, v, WRITE_AFTER);
	EXPECT_NE(t, ut_pa(p.mm, A), ut_pa(child, A));
	check_mm(t, p.mm);
	check_mm(t, child);
	mm_put(child);
	mm_put(p.mm);
}

/*
 * A COW break while another CPU reads: parent and child share the page
 * read-only; a thread on one CPU reads it (caching the entry); the test
 * writes the parent's page (a copy replaces the entry); the thread's next
 * read must see the new page, not the old one (which the child keeps).
 */
static void test_cow_break_while_other_cpu_reads(struct ktest *t)
{
	struct probe p = { .addr = A, .addr2 = A, .before = PROBE_READ, .after = PROBE_READ };
	struct mm *child;
	uint64_t nv = 0x0badc0de0badc0deUL, v = 0;

	if (skip_one_cpu(t))
		return;
	p.mm = make_mm(t, 1);
	ASSERT_TRUE(t, p.mm != NULL);
	child = mm_dup(p.mm);
	ASSERT_TRUE(t, child != NULL);
	ASSERT_TRUE(t, start_probe(&p));
	EXPECT_EQ(t, p.val_before, PATTERN);
	EXPECT_EQ(t, mm_copy_to(p.mm, A, &nv, sizeof(nv)), 0);    /* write fault: COW copy */
	finish_probe(t, &p);
	EXPECT_EQ(t, p.err_after, 0);
	EXPECT_EQ(t, p.val_after, nv);
	EXPECT_EQ(t, mm_copy_from(child, &v, A, sizeof(v)), 0);
	EXPECT_EQ(t, v, PATTERN);
	check_mm(t, p.mm);
	check_mm(t, child);
	mm_put(child);
	mm_put(p.mm);
}

/* One munmap over three VMAs and n pages: one IPI round; pages one by one, or a full flush past the batch. */
static void batch_case(struct ktest *t, unsigned npages, bool expect_full)
{
	struct probe p = { .addr = A, .addr2 = A, .before = PROBE_READ, .after = PROBE_READ };
	struct tlb_stats s0, s1;

	if (skip_one_cpu(t))
		return;
	p.mm = make_mm(t, npages);
	ASSERT_TRUE(t, p.mm != NULL);
	/* Three VMAs: the middle page read-only (the mprotect is itself one shootdown-free change: no CPU has it yet). */
	EXPECT_EQ(t, vm_mprotect(p.mm, A + PAGE_SIZE, PAGE_SIZE, PROT_READ), 0);
	EXPECT_EQ(t, p.mm->map_count, 3);
	ASSERT_TRUE(t, start_probe(&p));
	arch_tlb_stats(&s0);
	EXPECT_EQ(t, vm_munmap(p.mm, A, npages * PAGE_SIZE), 0);
	arch_tlb_stats(&s1);
	finish_probe(t, &p);
	EXPECT_EQ(t, s1.shootdowns - s0.shootdowns, 1);
	EXPECT_EQ(t, s1.flushes - s0.flushes, 1);
	if (expect_full) {
		EXPECT_EQ(t, s1.full_flushes - s0.full_flushes, 1);   /* the remote CPU; CPU 0 has no copy */
		EXPECT_EQ(t, s1.pages - s0.pages, 0);
	} else {
		EXPECT_EQ(t, s1.full_flushes - s0.full_flushes, 0);
		EXPECT_EQ(t, s1.pages - s0.pages, npages);
	}
	EXPECT_EQ(t, p.err_after, -EFAULT);
	check_mm(t, p.mm);
	mm_put(p.mm);
}

static void test_munmap_one_shootdown_per_call(struct ktest *t)
{
	batch_case(t, 8, false);
}

static void test_munmap_full_flush_past_threshold(struct ktest *t)
{
	batch_case(t, TLB_BATCH_PAGES + 8, true);
}

static void test_mprotect_one_shootdown_per_call(struct ktest *t)
{
	struct probe p = { .addr = A, .addr2 = A, .before = PROBE_READ, .after = PROBE_READ };
	struct tlb_stats s0, s1;

	if (skip_one_cpu(t))
		return;
	p.mm = make_mm(t, 6);
	ASSERT_TRUE(t, p.mm != NULL);
	EXPECT_EQ(t, vm_mprotect(p.mm, A + 2 * PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_EXEC), 0);
	EXPECT_EQ(t, vm_mprotect(p.mm, A + 4 * PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_EXEC), 0);
	EXPECT_EQ(t, p.mm->map_count, 5);
	ASSERT_TRUE(t, start_probe(&p));
	arch_tlb_stats(&s0);
	EXPECT_EQ(t, vm_mprotect(p.mm, A, 6 * PAGE_SIZE, PROT_READ), 0);   /* five VMAs */
	arch_tlb_stats(&s1);
	finish_probe(t, &p);
	EXPECT_EQ(t, s1.shootdowns - s0.shootdowns, 1);
	EXPECT_EQ(t, s1.pages - s0.pages, 6);   /* (merged into one: the merge suites check that) */
	check_mm(t, p.mm);
	mm_put(p.mm);
}

/*
 * Lazy TLB: the thread sleeps, so its CPU runs idle with the address space
 * still loaded; the munmap's shootdown makes that CPU switch away (no
 * flush); woken, the thread switches back and faults on the unmapped page.
 */
static void test_lazy_cpu_switches_away(struct ktest *t)
{
	struct probe p = { .addr = A, .addr2 = A, .before = PROBE_READ, .after = PROBE_READ,
			   .sleep_between = 1 };
	struct tlb_stats s0, s1;
	unsigned cpu = other_cpu();

	if (skip_one_cpu(t))
		return;
	p.mm = make_mm(t, 1);
	ASSERT_TRUE(t, p.mm != NULL);
	ASSERT_TRUE(t, start_probe(&p));
	/* Lockless: the scheduler (its [sched] lock) switches the probe out and sets it sleeping meanwhile. */
	while (smp_load_acquire(&p.th->on_cpu) || READ_ONCE(p.th->state) != TASK_SLEEPING)
		sched_yield();
	/* The thread sleeps: its CPU idles with the address space still loaded, lazily. */
	EXPECT_TRUE(t, arch_mmu_cpus(p.mm->mmu) & (1UL << cpu));
	arch_tlb_stats(&s0);
	EXPECT_EQ(t, vm_munmap(p.mm, A, PAGE_SIZE), 0);
	arch_tlb_stats(&s1);
	EXPECT_EQ(t, s1.shootdowns - s0.shootdowns, 1);
	EXPECT_EQ(t, s1.lazy_leaves - s0.lazy_leaves, 1);
	EXPECT_EQ(t, s1.pages - s0.pages, 0);   /* it switched away instead of flushing */
	EXPECT_FALSE(t, arch_mmu_cpus(p.mm->mmu) & (1UL << cpu));
	finish_probe(t, &p);
	EXPECT_EQ(t, p.err_after, -EFAULT);
	check_mm(t, p.mm);
	mm_put(p.mm);
}

/* ---- several CPUs in one address space: the mask and the requests */

#define MAX_PROBES 3

/* A reading probe on each other online CPU (at most MAX_PROBES); their CPUs' mask. */
static unsigned start_probes(struct ktest *t, struct probe *p, struct mm *mm, unsigned long *cpus)
{
	unsigned long online = arch_cpu_online_mask() & ~1UL;
	unsigned n = 0;

	*cpus = 0;
	for (unsigned cpu = 1; cpu < NR_CPUS && n < MAX_PROBES; cpu++) {
		if (!(online & (1UL << cpu)))
			continue;
		p[n] = (struct probe){ .mm = mm, .addr = A, .addr2 = A, .before = PROBE_READ,
				       .after = PROBE_READ };
		p[n].th = kthread_create(probe_thread, &p[n], (int)cpu, "tlb_probe");
		if (!p[n].th)
			break;
		kthread_start(p[n].th);
		*cpus |= 1UL << cpu;
		n++;
	}
	for (unsigned i = 0; i < n; i++)
		while (!smp_load_acquire(&p[i].ready))
			sched_yield();
	EXPECT_GT(t, n, 0);
	return n;
}

static void finish_probes(struct probe *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		smp_store_release(&p[i].go, 1);
	for (unsigned i = 0; i < n; i++)
		kthread_join(p[i].th);
}

/*
 * The mask holds exactly the CPUs that run the address space: each probe's
 * CPU (every other CPU) while the probes spin in it, not the test's CPU,
 * which never loaded it. Decided by the mask alone, not by a stale entry.
 */
static void test_cpu_mask_holds_running_cpus(struct ktest *t)
{
	struct probe p[MAX_PROBES];
	unsigned long cpus;
	unsigned n;
	struct mm *mm;

	if (skip_one_cpu(t))
		return;
	mm = make_mm(t, 1);
	ASSERT_TRUE(t, mm != NULL);
	n = start_probes(t, p, mm, &cpus);
	EXPECT_EQ(t, arch_mmu_cpus(mm->mmu), cpus);
	finish_probes(p, n);
	for (unsigned i = 0; i < n; i++)
		EXPECT_EQ(t, p[i].val_before, PATTERN);
	check_mm(t, mm);
	mm_put(mm);
}

/*
 * One munmap while a probe on every other CPU runs the address space: one
 * IPI round, one IPI per probe CPU, and each of those CPUs invalidated the
 * page itself (the test's CPU does not have the address space loaded:
 * nothing to invalidate there); then every probe faults. The counters
 * decide, whether or not a CPU would have used its stale entry.
 */
static void test_shootdown_reaches_every_cpu(struct ktest *t)
{
	struct probe p[MAX_PROBES];
	struct tlb_stats s0, s1;
	unsigned long cpus;
	unsigned n;
	struct mm *mm;

	if (skip_one_cpu(t))
		return;
	mm = make_mm(t, 1);
	ASSERT_TRUE(t, mm != NULL);
	n = start_probes(t, p, mm, &cpus);
	arch_tlb_stats(&s0);
	EXPECT_EQ(t, vm_munmap(mm, A, PAGE_SIZE), 0);
	arch_tlb_stats(&s1);
	finish_probes(p, n);
	EXPECT_EQ(t, s1.shootdowns - s0.shootdowns, 1);
	EXPECT_EQ(t, s1.ipis - s0.ipis, n);
	EXPECT_EQ(t, s1.pages - s0.pages, n);
	EXPECT_EQ(t, s1.full_flushes - s0.full_flushes, 0);
	for (unsigned i = 0; i < n; i++)
		EXPECT_EQ(t, p[i].err_after, -EFAULT);
	check_mm(t, mm);
	mm_put(mm);
}

static const struct ktest_case tlb_cases[] = {
	KTEST_CASE(test_munmap_shoots_down),
	KTEST_CASE(test_mprotect_shoots_down),
	KTEST_CASE(test_dontneed_shoots_down),
	KTEST_CASE(test_mremap_shoots_down),
	KTEST_CASE(test_fork_write_protect_shoots_down),
	KTEST_CASE(test_cow_break_while_other_cpu_reads),
	KTEST_CASE(test_munmap_one_shootdown_per_call),
	KTEST_CASE(test_munmap_full_flush_past_threshold),
	KTEST_CASE(test_mprotect_one_shootdown_per_call),
	KTEST_CASE(test_lazy_cpu_switches_away),
	KTEST_CASE(test_cpu_mask_holds_running_cpus),
	KTEST_CASE(test_shootdown_reaches_every_cpu),
	{ 0 },
};
KTEST_SUITE(tlb, tlb_cases);
