/*
 * The ktest runner's own bookkeeping (lib/ktest.c): how many times a
 * parameterized suite's cases run, and finding a registered suite by name.
 * The suites below are built for the test and never registered, so the
 * runner does not run them; the expected counts are read off their
 * definitions.
 */
#include "ktest.h"
#include "kstring.h"

static void noop_case(struct ktest *t)
{
}

static const struct ktest_case noop_cases[] = {
	KTEST_CASE(noop_case),
	{ NULL, NULL },
};

/* Three parameters, then NULL: "a", "b", "c". */
static const char *three_names(unsigned i)
{
	static const char *const names[] = { "a", "b", "c" };

	return i < ARRAY_SIZE(names) ? names[i] : NULL;
}

static const char *no_names(unsigned i)
{
	return NULL;
}

/* A fixed .nparams is used as given, with or without a name function. */
static void test_nparams_fixed(struct ktest *t)
{
	const struct ktest_suite fixed = { "fixed", noop_cases, 5, three_names, NULL, NULL, 0 };
	const struct ktest_suite unnamed = { "unnamed", noop_cases, 2, NULL, NULL, NULL, 0 };

	EXPECT_EQ(t, ktest_nparams(&fixed), 5);
	EXPECT_EQ(t, ktest_nparams(&unnamed), 2);
}

/* With .param_name and no .nparams, the parameters are counted up to the first NULL name. */
static void test_nparams_counted(struct ktest *t)
{
	const struct ktest_suite counted = { "counted", noop_cases, 0, three_names, NULL, NULL, 0 };
	const struct ktest_suite empty = { "empty", noop_cases, 0, no_names, NULL, NULL, 0 };
	const struct ktest_suite plain = { "plain", noop_cases, 0, NULL, NULL, NULL, 0 };

	EXPECT_EQ(t, ktest_nparams(&counted), 3);
	EXPECT_EQ(t, ktest_nparams(&empty), 0);     /* no parameter: the cases run once, unnamed */
	EXPECT_EQ(t, ktest_nparams(&plain), 0);
}

/* Registered suites are found by their exact name, this one included; others are not. */
static void test_find_suite(struct ktest *t)
{
	const struct ktest_suite *self = ktest_find_suite("ktest");

	ASSERT_TRUE(t, self != NULL);
	EXPECT_TRUE(t, self == t->suite);
	EXPECT_STREQ(t, ktest_find_suite("pmm")->name, "pmm");
	EXPECT_TRUE(t, ktest_find_suite("no_such_suite") == NULL);
	EXPECT_TRUE(t, ktest_find_suite("ktes") == NULL);
	EXPECT_TRUE(t, ktest_find_suite("") == NULL);
}

static const struct ktest_case ktest_cases[] = {
	KTEST_CASE(test_nparams_fixed),
	KTEST_CASE(test_nparams_counted),
	KTEST_CASE(test_find_suite),
	{ NULL, NULL },
};

KTEST_SUITE(ktest, ktest_cases);
