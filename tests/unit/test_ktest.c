/*
 * The ktest runner's own bookkeeping (lib/ktest.c): how many times a
 * parameterized suite's cases run, finding a registered suite by name, and
 * the selection language (lib/ktest_filter.c: globs, SUITE.CASE/PARAM
 * patterns, the slow-suite rule, hit counting for "matches no test").
 * The suites below are built for the test and never registered, so the
 * runner does not run them; the expected counts are read off their
 * definitions.
 */
#include "ktest.h"
#include "kstring.h"
#include "kerrno.h"
#include "printk.h"

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

#define GLOB(p, s) ktest_glob(p, strlen(p), s)

/* Globs: '*' is any run (empty too), '?' exactly one character, the rest literal; the whole string must match. */
static void test_glob(struct ktest *t)
{
	EXPECT_TRUE(t, GLOB("pmm", "pmm"));
	EXPECT_FALSE(t, GLOB("pmm", "pmmx"));
	EXPECT_FALSE(t, GLOB("pmm", "pm"));
	EXPECT_TRUE(t, GLOB("*", ""));
	EXPECT_TRUE(t, GLOB("*", "anything"));
	EXPECT_TRUE(t, GLOB("test_*", "test_"));
	EXPECT_TRUE(t, GLOB("test_*", "test_cow"));
	EXPECT_FALSE(t, GLOB("test_*", "tes"));
	EXPECT_TRUE(t, GLOB("*_cow", "test_fork_cow"));
	EXPECT_FALSE(t, GLOB("*_cow", "test_cow_x"));
	EXPECT_TRUE(t, GLOB("a*b*c", "aXXbYYc"));
	EXPECT_TRUE(t, GLOB("a*b*c", "abbbc"));     /* backtracking: the first 'b' is not the one */
	EXPECT_FALSE(t, GLOB("a*b*c", "acb"));
	EXPECT_TRUE(t, GLOB("?vl", "avl"));
	EXPECT_FALSE(t, GLOB("?vl", "vl"));
	EXPECT_TRUE(t, GLOB("list+cache", "list+cache"));
	EXPECT_TRUE(t, GLOB("**", "x"));
	/* only plen characters of the pattern count */
	EXPECT_TRUE(t, ktest_glob("avlXYZ", 3, "avl"));
}

static const char *const backend_names[] = { "list", "avl", "list+cache" };
static const char *backend_param(unsigned i)
{
	return i < ARRAY_SIZE(backend_names) ? backend_names[i] : NULL;
}

/* The pattern parts: SUITE, SUITE.CASE, SUITE/PARAM, SUITE.CASE/PARAM; malformed ones fail. */
static void test_filter_parse(struct ktest *t)
{
	static struct ktest_filter f;     /* static: too large for a kernel test's stack frame */

	ASSERT_EQ(t, ktest_filter_parse(&f, "pmm,mm_fork.test_cow*,vma_index/avl,vma_merge.test_a/l*"), 0);
	ASSERT_EQ(t, f.npatterns, 4);
	EXPECT_FALSE(t, f.all || f.dflt);
	EXPECT_EQ(t, f.pat[0].suite_len, 3);
	EXPECT_TRUE(t, ktest_glob(f.pat[0].tcase, f.pat[0].case_len, "any_case"));
	EXPECT_FALSE(t, f.pat[0].has_param);
	EXPECT_EQ(t, f.pat[1].case_len, strlen("test_cow*"));
	EXPECT_TRUE(t, f.pat[2].has_param);
	EXPECT_EQ(t, f.pat[2].suite_len, strlen("vma_index"));
	EXPECT_EQ(t, f.pat[2].param_len, 3);
	EXPECT_EQ(t, f.pat[3].case_len, strlen("test_a"));
	EXPECT_EQ(t, f.pat[3].param_len, 2);
	ASSERT_EQ(t, ktest_filter_parse(&f, "default,pmm"), 0);
	EXPECT_TRUE(t, f.dflt);
	EXPECT_EQ(t, f.npatterns, 1);
	EXPECT_EQ(t, ktest_filter_parse(&f, NULL), 0);
	EXPECT_TRUE(t, f.dflt);              /* no filter: the default set */
	EXPECT_EQ(t, ktest_filter_parse(&f, "pmm."), -EINVAL);
	EXPECT_EQ(t, ktest_filter_parse(&f, "vma_index/"), -EINVAL);
	EXPECT_EQ(t, ktest_filter_parse(&f, ".x"), -EINVAL);
	{
		static char many[4 * (KTEST_MAX_PATTERNS + 1)];
		size_t n = 0;

		for (unsigned i = 0; i <= KTEST_MAX_PATTERNS; i++)    /* one pattern too many */
			n += ksnprintf(many + n, sizeof(many) - n, "%sp%u", i ? "," : "", i % 100);
		EXPECT_EQ(t, ktest_filter_parse(&f, many), -E2BIG);
	}
}

/*
 * Matching, against suites built here: a parameter pattern never matches
 * an unparameterized case; a slow suite needs its exact name; every
 * matching pattern counts a hit, so one that never matched can be reported.
 */
static void test_filter_match(struct ktest *t)
{
	static struct ktest_filter f;
	const struct ktest_suite plain = { "plain", noop_cases, 0, NULL, NULL, NULL, 0 };
	const struct ktest_suite idx = { "idx", noop_cases, 0, backend_param, NULL, NULL, 0 };
	const struct ktest_suite slow = { "slow_one", noop_cases, 0, NULL, NULL, NULL, KTEST_SLOW };

	ASSERT_EQ(t, ktest_filter_parse(&f, "idx/avl,plain.noop*,slo*,alv_typo/alv"), 0);
	EXPECT_TRUE(t, ktest_filter_match(&f, &idx, "noop_case", "avl"));
	EXPECT_FALSE(t, ktest_filter_match(&f, &idx, "noop_case", "list"));
	EXPECT_TRUE(t, ktest_filter_match(&f, &plain, "noop_case", NULL));
	EXPECT_FALSE(t, ktest_filter_match(&f, &slow, "noop_case", NULL));   /* "slo*" is a wildcard */
	EXPECT_EQ(t, f.pat[0].hits, 1);
	EXPECT_EQ(t, f.pat[1].hits, 1);
	EXPECT_EQ(t, f.pat[2].hits, 0);
	EXPECT_EQ(t, f.pat[3].hits, 0);

	ASSERT_EQ(t, ktest_filter_parse(&f, "slow_one,plain/avl"), 0);
	EXPECT_TRUE(t, ktest_filter_match(&f, &slow, "noop_case", NULL));    /* the exact name */
	EXPECT_FALSE(t, ktest_filter_match(&f, &plain, "noop_case", NULL)); /* no parameter to match */

	ASSERT_EQ(t, ktest_filter_parse(&f, "default"), 0);
	EXPECT_TRUE(t, ktest_filter_match(&f, &plain, "noop_case", NULL));
	EXPECT_FALSE(t, ktest_filter_match(&f, &slow, "noop_case", NULL));
	ASSERT_EQ(t, ktest_filter_parse(&f, "all"), 0);
	EXPECT_TRUE(t, ktest_filter_match(&f, &slow, "noop_case", NULL));
	ASSERT_EQ(t, ktest_filter_parse(&f, "none"), 0);
	EXPECT_FALSE(t, ktest_filter_match(&f, &plain, "noop_case", NULL));
}

static const struct ktest_case ktest_cases[] = {
	KTEST_CASE(test_nparams_fixed),
	KTEST_CASE(test_nparams_counted),
	KTEST_CASE(test_find_suite),
	KTEST_CASE(test_glob),
	KTEST_CASE(test_filter_parse),
	KTEST_CASE(test_filter_match),
	{ NULL, NULL },
};

KTEST_SUITE(ktest, ktest_cases);
