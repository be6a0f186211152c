/*
 * The lock-order checker (lib/lockdep.c) against include/lock_order.h, with
 * the two test classes (TEST_OUTER before TEST_INNER): the table's order is
 * silent, a deliberate inversion is reported once, two locks of one class
 * need the _nested annotation, and held locks are tracked. Reports are
 * counted (lockdep_report_only) instead of stopping the kernel; each case
 * puts the switch back. Expected counts come from the table: every
 * acquisition against it is one report.
 */
#include "ktest.h"
#include "spinlock.h"
#include "lockdep.h"
#include "kstring.h"

static struct spinlock outer = SPINLOCK_INIT_CLASS("test_outer", LOCK_CLASS_TEST_OUTER);
static struct spinlock inner = SPINLOCK_INIT_CLASS("test_inner", LOCK_CLASS_TEST_INNER);
static struct spinlock inner2 = SPINLOCK_INIT_CLASS("test_inner2", LOCK_CLASS_TEST_INNER);

#ifdef LOCKDEP
static bool enter(struct ktest *t)
{
	lockdep_report_only = true;
	return true;
}
#else
static bool enter(struct ktest *t)
{
	ktest_skip(t, "built without LOCKDEP");
	return false;
}
#endif

static void leave(void)
{
	lockdep_report_only = false;
}

static void test_table_order_is_silent(struct ktest *t)
{
	unsigned long before = lockdep_reports;

	if (!enter(t))
		return;
	spin_lock(&outer);
	spin_lock(&inner);
	spin_unlock(&inner);
	spin_unlock(&outer);
	leave();
	EXPECT_EQ(t, lockdep_reports, before);
}

static void test_inversion_is_reported(struct ktest *t)
{
	unsigned long before = lockdep_reports;

	if (!enter(t))
		return;
	/* First the table's order (so the report can show where it was taken), then the inversion. */
	spin_lock(&outer);
	spin_lock(&inner);
	spin_unlock(&inner);
	spin_unlock(&outer);
	EXPECT_EQ(t, lockdep_reports, before);
	spin_lock(&inner);
	spin_lock(&outer);              /* inner -> outer: against the table */
	spin_unlock(&outer);
	spin_unlock(&inner);
	leave();
	EXPECT_EQ(t, lockdep_reports, before + 1);
}

static void test_same_class_needs_nested(struct ktest *t)
{
	unsigned long before = lockdep_reports;

	if (!enter(t))
		return;
	spin_lock(&inner);
	spin_lock_nested(&inner2);      /* annotated: allowed */
	spin_unlock(&inner2);
	spin_unlock(&inner);
	EXPECT_EQ(t, lockdep_reports, before);
	spin_lock(&inner);
	spin_lock(&inner2);             /* not annotated: reported */
	spin_unlock(&inner2);
	spin_unlock(&inner);
	leave();
	EXPECT_EQ(t, lockdep_reports, before + 1);
}

static void test_release_out_of_order(struct ktest *t)
{
	unsigned long before = lockdep_reports;

	if (!enter(t))
		return;
	spin_lock(&outer);
	spin_lock(&inner);
	EXPECT_TRUE(t, lockdep_is_held(&outer, outer.lclass));
	EXPECT_TRUE(t, lockdep_is_held(&inner, inner.lclass));
	spin_unlock(&outer);            /* the outer one first: allowed */
	EXPECT_FALSE(t, lockdep_is_held(&outer, outer.lclass));
	EXPECT_TRUE(t, lockdep_is_held(&inner, inner.lclass));
	spin_unlock(&inner);
	EXPECT_FALSE(t, lockdep_is_held(&inner, inner.lclass));
	/* Nothing is held now: taking them in the table's order again is silent. */
	spin_lock(&outer);
	spin_lock(&inner);
	spin_unlock(&inner);
	spin_unlock(&outer);
	leave();
	EXPECT_EQ(t, lockdep_reports, before);
}

static void test_class_table(struct ktest *t)
{
	EXPECT_STREQ(t, lock_class_name(LOCK_CLASS_MMAP), "mmap_lock");
	EXPECT_TRUE(t, lock_class_sleeping(LOCK_CLASS_MMAP));
	EXPECT_FALSE(t, lock_class_sleeping(LOCK_CLASS_PT));
	/* The order the kernel relies on (docs/guide.md): mmap_lock, then the page-table lock, then the allocators, the console, its devices last. */
	EXPECT_LT(t, LOCK_CLASS_MMAP, LOCK_CLASS_PT);
	EXPECT_LT(t, LOCK_CLASS_PT, LOCK_CLASS_PMM);
	EXPECT_LT(t, LOCK_CLASS_SCHED, LOCK_CLASS_PMM);
	EXPECT_EQ(t, LOCK_CLASS_CONSOLE, LOCK_CLASS_CONSOLE_DEV - 1);
	EXPECT_EQ(t, LOCK_CLASS_CONSOLE_DEV, LOCK_CLASS_COUNT - 1);
}

static const struct ktest_case lockdep_cases[] = {
	KTEST_CASE(test_table_order_is_silent),
	KTEST_CASE(test_inversion_is_reported),
	KTEST_CASE(test_same_class_needs_nested),
	KTEST_CASE(test_release_out_of_order),
	KTEST_CASE(test_class_table),
	{ 0 },
};
KTEST_SUITE(lockdep, lockdep_cases);
