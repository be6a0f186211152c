/* The sampling profiler, the symbol table it relies on, and the cycle counters. */
#include "ktest.h"
#include "profile.h"
#include "ksyms.h"
#include "x86.h"
#include "kstring.h"

/* A function the profiler should find: spins until `ticks` timer ticks passed. */
__attribute__((noinline)) void profile_test_spin(uint64_t ticks);
__attribute__((noinline)) void profile_test_spin(uint64_t ticks)
{
	uint64_t end = timer_ticks + ticks;

	while (timer_ticks < end)
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

static void test_cycle_counter(struct ktest *t)
{
	static struct cycle_counter cc = CYCLE_COUNTER_INIT("test_loop");

	cycles_reset(&cc);
	for (int i = 0; i < 3; i++) {
		cycles_begin(&cc);
		for (volatile int j = 0; j < 1000; j++)
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
	KTEST_CASE(test_cycle_counter),
	{ NULL, NULL },
};

static const struct ktest_suite profile_suite = {
	"profile", profile_cases, 0, NULL, NULL, NULL, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(profile_suite);
