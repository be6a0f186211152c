/* The sampling profiler, the symbol table it relies on, and the cycle counters. */
#include "ktest.h"
#include "profile.h"
#include "ksyms.h"
#include "x86.h"
#include "lockless.h"
#include "kstring.h"
#include "slab.h"
#include "profile_vma.h"
#include "vma.h"
#include "task.h"

/* A function the profiler should find: spins until `ticks` timer ticks passed. */
__attribute__((noinline)) void profile_test_spin(uint64_t ticks);
__attribute__((noinline)) void profile_test_spin(uint64_t ticks)
{
	uint64_t end = READ_ONCE(timer_ticks) + ticks;

	while (READ_ONCE(timer_ticks) < end)
		__asm__ volatile("pause");
}

static void test_ksyms_lookup(struct ktest *t)
{
	uintptr_t off = 99, size = 0;
	const char *name = ksyms_lookup((uintptr_t)profile_test_spin, &off, &size);

	ASSERT_TRUE(t, name != NULL);
	EXPECT_STREQ(t, name, "profile_test_spin");
	EXPECT_EQ(t, off, 0);
	EXPECT_GT(t, size, 0);
	name = ksyms_lookup((uintptr_t)profile_test_spin + 3, &off, NULL);
	EXPECT_STREQ(t, name, "profile_test_spin");
	EXPECT_EQ(t, off, 3);
	EXPECT_EQ(t, ksyms_addr("profile_test_spin"), (uintptr_t)profile_test_spin);
	/* not text: no symbol */
	EXPECT_TRUE(t, ksyms_lookup((uintptr_t)&ksyms_count, NULL, NULL) == NULL);
	EXPECT_TRUE(t, ksyms_lookup(0, NULL, NULL) == NULL);
}

static void test_ksyms_sorted(struct ktest *t)
{
	ASSERT_GT(t, ksyms_count, 100);
	for (size_t i = 1; i < ksyms_count; i++)
		ASSERT_LE(t, ksyms_table[i - 1].addr, ksyms_table[i].addr);
}

static void test_profiler_samples(struct ktest *t)
{
	uint64_t hits, total;

	if (profile_active()) {
		ktest_skip(t, "the profiler is already running (profile= run)");
		return;
	}
	ASSERT_EQ(t, profile_start(), 0);
	profile_test_spin(100);
	profile_stop();
	hits = profile_hits_at((uintptr_t)profile_test_spin);
	total = profile_total();
	/* ~100 ticks, nearly all inside profile_test_spin (the tick handler itself is not sampled) */
	EXPECT_GE(t, total, 90);
	EXPECT_GE(t, hits * 10, total * 9);
	profile_print(3);
	/* stopped: no more samples */
	profile_test_spin(5);
	EXPECT_EQ(t, profile_total(), total);
}

/* Calls profile_test_spin, so that the stack walk has a known caller to find. */
__attribute__((noinline)) void profile_test_caller(uint64_t ticks);
__attribute__((noinline)) void profile_test_caller(uint64_t ticks)
{
	profile_test_spin(ticks);
	__asm__ volatile("" : : : "memory");    /* not a tail call: keep this frame */
}

static void test_profiler_stacks(struct ktest *t)
{
	bool had = profile_stacks_enabled();
	uint64_t total, pairs;

	if (profile_active()) {
		ktest_skip(t, "the profiler is already running (profile= run)");
		return;
	}
	profile_configure(profile_hz(), true);
	ASSERT_EQ(t, profile_start(), 0);
	profile_test_caller(50);
	profile_stop();
	profile_configure(profile_hz(), had);
	total = profile_total();
	pairs = profile_stacks_samples((uintptr_t)profile_test_spin, (uintptr_t)profile_test_caller);
	/* ~50 ticks at the default rate; nearly all in spin, called from caller (one walk step) */
	EXPECT_GE(t, total, 45);
	EXPECT_GE(t, pairs * 10, total * 9);
	/* the reverse pair never occurs: the walk goes from leaf to root */
	EXPECT_EQ(t, profile_stacks_samples((uintptr_t)profile_test_caller,
					    (uintptr_t)profile_test_spin), 0);
}

/*
 * Dithering (include/kernel_hooks.h: profile_period): stopped, the period
 * is the mean; sampling, every period lies within +-1/8 of the mean, they
 * are not all equal, and their average is the mean (uniform draws: the
 * average of 4096 lies within 1% of it unless the generator is broken).
 */
static void test_profiler_dither(struct ktest *t)
{
	const uint32_t mean = 100000;
	uint32_t lo = UINT32_MAX, hi = 0, p;
	uint64_t sum = 0;

	if (profile_active()) {
		ktest_skip(t, "the profiler is already running (profile= run)");
		return;
	}
	EXPECT_EQ(t, profile_period(mean), mean);
	ASSERT_EQ(t, profile_start(), 0);
	for (int i = 0; i < 4096; i++) {
		p = profile_period(mean);
		sum += p;
		lo = p < lo ? p : lo;
		hi = p > hi ? p : hi;
	}
	profile_set_dither(false);
	EXPECT_EQ(t, profile_period(mean), mean);
	profile_set_dither(true);
	profile_stop();
	EXPECT_EQ(t, profile_period(mean), mean);
	EXPECT_GE(t, lo, mean - mean / 8);
	EXPECT_LT(t, hi, mean + mean / 8);
	EXPECT_LT(t, lo + mean / 16, hi);               /* spread over most of the range */
	EXPECT_GE(t, sum / 4096, mean - mean / 100);
	EXPECT_LE(t, sum / 4096, mean + mean / 100);
}

/* A kernel thread's function, for test_profiler_entry_rip (never called). */
static void profile_test_kthread_fn(void *arg)
{
	(void)arg;
}

/*
 * The user-sample table (kernel/profile/profile_user.c): counts by RIP
 * (and task name), found again by range, emptied by a reset.
 */
static void test_profiler_user_samples(struct ktest *t)
{
	ASSERT_EQ(t, profile_user_reset(), 0);
	for (int i = 0; i < 3; i++)
		profile_user_record(0x401000);
	profile_user_record(0x401ff0);
	profile_user_record(0x402000);
	EXPECT_EQ(t, profile_user_samples_in(0x401000, 0x402000), 4);
	EXPECT_EQ(t, profile_user_samples_in(0x402000, 0x403000), 1);
	EXPECT_EQ(t, profile_user_samples_in(0, 0x401000), 0);
	ASSERT_EQ(t, profile_user_reset(), 0);
	EXPECT_EQ(t, profile_user_samples_in(0, UINTPTR_MAX), 0);
}

/*
 * profile_entry_rip (profile_entry=on): a task with a user frame (cs =
 * USER_CS) entered the kernel from that frame's rip; a frame from kernel
 * mode, a kernel thread and the idle task have no user address, and the
 * test's own thread, a kernel thread, has none either.
 */
static void test_profiler_entry_rip(struct ktest *t)
{
	struct task *fake = kzalloc(sizeof(*fake));
	struct trap_frame tf;

	ASSERT_TRUE(t, fake != NULL);
	memset(&tf, 0, sizeof(tf));
	fake->tf = &tf;
	tf.cs = USER_CS;
	tf.rip = 0x401234;
	EXPECT_EQ(t, profile_entry_rip(fake), 0x401234);
	tf.cs = KERNEL_CS;
	EXPECT_EQ(t, profile_entry_rip(fake), 0);
	tf.cs = USER_CS;
	fake->is_idle = true;
	EXPECT_EQ(t, profile_entry_rip(fake), 0);
	fake->is_idle = false;
	fake->kthread_fn = profile_test_kthread_fn;
	EXPECT_EQ(t, profile_entry_rip(fake), 0);
	EXPECT_EQ(t, profile_entry_rip(NULL), 0);
	EXPECT_EQ(t, profile_entry_rip(current), 0);
	kfree(fake);
}

/*
 * vmastat's counting wrapper around the list backend. Expected values come
 * from the list's cost model (mm/vma_index/list.c): find(addr) touches
 * r + 1 elements, r = the VMAs wholly below addr; erase touches v and its
 * neighbours. The wrapper must also add up to the backend's own counter.
 */
static void test_vma_counted(struct ktest *t)
{
	const struct vma_index_ops *ops = profile_vma_counted(&vma_list_ops);
	/* The list keeps its link after each VMA: 8 VMA objects of vma_alloc_size bytes. */
	char *buf = kzalloc(8 * vma_alloc_size(ops));
	struct vma *vs[8];
	struct vma_index idx;
	struct vmk_vmastat st;
	uint64_t sum = 0;

	ASSERT_TRUE(t, buf != NULL);
	for (int i = 0; i < 8; i++)
		vs[i] = (struct vma *)(buf + i * vma_alloc_size(ops));
	EXPECT_EQ(t, ops->link_size, vma_list_ops.link_size);          /* the wrapper keeps the link size */
	ASSERT_TRUE(t, ops != &vma_list_ops);
	EXPECT_TRUE(t, profile_vma_counted(&vma_list_ops) == ops);      /* one wrapper per backend */
	EXPECT_TRUE(t, profile_vma_is_counted(ops));
	EXPECT_FALSE(t, profile_vma_is_counted(&vma_list_ops));
	EXPECT_STREQ(t, ops->name, "list");
	memset(&idx, 0, sizeof(idx));
	ops->init(&idx);
	idx.ops = ops;                  /* as mm_vma_init does */
	profile_vma_reset();
	ASSERT_EQ(t, ops->reserve(&idx, 8), 0);
	for (int i = 0; i < 8; i++) {
		vs[i]->start = 0x100000 + 2 * i * PAGE_SIZE;
		vs[i]->end = vs[i]->start + PAGE_SIZE;
		ops->insert(&idx, vs[i]);
	}
	profile_vma_stats(&st);
	EXPECT_EQ(t, st.calls[VMK_VMA_INSERT], 8);
	EXPECT_EQ(t, st.accesses[VMK_VMA_INSERT], idx.accesses);
	for (int i = 0; i < 8; i++)
		EXPECT_TRUE(t, ops->find(&idx, vs[i]->start) == vs[i]);
	ops->erase(&idx, vs[3]);
	profile_vma_stats(&st);
	EXPECT_EQ(t, st.calls[VMK_VMA_FIND], 8);
	EXPECT_EQ(t, st.accesses[VMK_VMA_FIND], 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8);
	EXPECT_EQ(t, st.max_accesses[VMK_VMA_FIND], 8);
	EXPECT_EQ(t, st.calls[VMK_VMA_ERASE], 1);
	EXPECT_EQ(t, st.accesses[VMK_VMA_ERASE], 3);
	for (int k = 0; k < VMK_VMA_NR_OPS; k++)
		sum += st.accesses[k];
	EXPECT_EQ(t, sum, idx.accesses);
	while (idx.count)
		ops->erase(&idx, ops->first(&idx));
	ops->destroy(&idx);
	profile_vma_reset();
	profile_vma_stats(&st);
	EXPECT_EQ(t, st.calls[VMK_VMA_FIND] + st.accesses[VMK_VMA_ERASE], 0);
	kfree(buf);
}

static void test_cycle_counter(struct ktest *t)
{
	static struct cycle_counter cc = CYCLE_COUNTER_INIT("test_loop");

	cycles_reset(&cc);
	for (int i = 0; i < 3; i++) {
		cycles_begin(&cc);
		for (volatile int busy = 0; busy < 1000; busy++)  /* volatile: a loop the compiler keeps */
			;
		cycles_end(&cc);
	}
	EXPECT_EQ(t, cycles_count(&cc), 3);
	EXPECT_GT(t, cycles_total(&cc), 3000);  /* 1000 iterations take more than 1000 cycles */
	cycles_print(&cc);
}

static const struct ktest_case profile_cases[] = {
	KTEST_CASE(test_ksyms_lookup),
	KTEST_CASE(test_ksyms_sorted),
	KTEST_CASE(test_profiler_samples),
	KTEST_CASE(test_profiler_stacks),
	KTEST_CASE(test_profiler_dither),
	KTEST_CASE(test_profiler_user_samples),
	KTEST_CASE(test_profiler_entry_rip),
	KTEST_CASE(test_vma_counted),
	KTEST_CASE(test_cycle_counter),
	{ NULL, NULL },
};

static const struct ktest_suite profile_suite = {
	"profile", profile_cases, 0, NULL, NULL, NULL, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(profile_suite);
