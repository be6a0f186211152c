/*
 * ktest: a small unit-test framework shared by the kernel (run at boot, KTAP
 * output on the serial port) and the host build (tests/host/main.c runs the
 * same suites under ASan and UBSan).
 *
 *   static void test_foo(struct ktest *t) { EXPECT_EQ(t, 1 + 1, 2); }
 *   static const struct ktest_case pmm_cases[] = { KTEST_CASE(test_foo), {0} };
 *   KTEST_SUITE(pmm, pmm_cases);
 *
 * A suite may be parameterized: give .nparams and .param_name, and every case
 * runs once per parameter with t->param set (KTAP subtests named
 * "case/param"). With .param_name and no .nparams, the parameters are
 * counted at run time: 0, 1, ... until param_name returns NULL (the
 * per-backend VMA suites use vma_backend_name, so they follow the registry).
 * EXPECT_* records a failure and goes on; ASSERT_* records it and returns
 * from the case.
 *
 * Selection (lib/ktest_filter.c), the same on the kernel command line
 * (ktest=...) and the host runner's: "all", "default" (every suite not
 * marked KTEST_SLOW), "none", or comma-separated patterns
 * SUITE[.CASE][/PARAM] with '*' and '?' globs: "pmm", "mm_fork.test_cow*",
 * "vma_index/avl" (every case, parameter avl). A pattern that matches no test is an error (a typo
 * never silently runs nothing). Suites marked KTEST_KERNEL_ONLY need real
 * hardware and are not built on the host; KTEST_SLOW ones run only when
 * named exactly or with "all".
 */
#ifndef KTEST_H
#define KTEST_H

#include "kernel.h"

struct ktest {
	const struct ktest_case *tcase;
	const struct ktest_suite *suite;
	unsigned param;               /* parameter index, for parameterized suites */
	unsigned failures;            /* EXPECT/ASSERT failures in this case */
	unsigned checks;              /* checks evaluated */
	bool skipped;
	const char *skip_reason;
};

struct ktest_case {
	const char *name;
	void (*fn)(struct ktest *t);
};

struct ktest_suite {
	const char *name;
	const struct ktest_case *cases;       /* terminated by an entry with fn == NULL */
	unsigned nparams;                     /* 0: not parameterized, or counted by param_name */
	const char *(*param_name)(unsigned i);
	int (*init)(void);                    /* optional, run before the suite; non-zero fails it */
	void (*exit)(void);                   /* optional, run after */
	unsigned flags;
};

#define KTEST_KERNEL_ONLY 0x1
#define KTEST_SLOW        0x2

#define KTEST_CASE(fn) { #fn, fn }

#define KTEST_REGISTER(sym) \
	static const struct ktest_suite *const __ktest_ptr_##sym \
	__attribute__((used, section("ktest_suites"), aligned(8))) = &sym

/* Define and register a plain suite named `name` over the case array `cases`. */
#define KTEST_SUITE(name, cases) \
	static const struct ktest_suite __ktest_suite_##name = { #name, cases, 0, NULL, NULL, NULL, 0 }; \
	KTEST_REGISTER(__ktest_suite_##name)

/* Record a failed check (used by the macros below). */
__printf(4, 5) void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...);
/* Mark the running case skipped, with a reason (counts as neither pass nor fail). */
void ktest_skip(struct ktest *t, const char *reason);

/* Operands compare with C's usual conversions (EXPECT_EQ(t, size, 0) is fine, hence no sign-compare warning). */
#define __KT_CMP(t, a, op, b, ret) do { \
	__typeof__(a) __a = (a); __typeof__(b) __b = (b); \
	(t)->checks++; \
	_Pragma("GCC diagnostic push") \
	_Pragma("GCC diagnostic ignored \"-Wsign-compare\"") \
	bool __ok = __a op __b; \
	_Pragma("GCC diagnostic pop") \
	if (!__ok) { \
		ktest_fail(t, __FILE__, __LINE__, "%s %s %s: 0x%llx vs 0x%llx", #a, #op, #b, \
			   (unsigned long long)__a, (unsigned long long)__b); \
		ret; \
	} \
} while (0)

#define EXPECT_EQ(t, a, b) __KT_CMP(t, a, ==, b, (void)0)
#define EXPECT_NE(t, a, b) __KT_CMP(t, a, !=, b, (void)0)
#define EXPECT_LT(t, a, b) __KT_CMP(t, a, <, b, (void)0)
#define EXPECT_LE(t, a, b) __KT_CMP(t, a, <=, b, (void)0)
#define EXPECT_GT(t, a, b) __KT_CMP(t, a, >, b, (void)0)
#define EXPECT_GE(t, a, b) __KT_CMP(t, a, >=, b, (void)0)
#define ASSERT_EQ(t, a, b) __KT_CMP(t, a, ==, b, return)
#define ASSERT_NE(t, a, b) __KT_CMP(t, a, !=, b, return)
#define ASSERT_LT(t, a, b) __KT_CMP(t, a, <, b, return)
#define ASSERT_LE(t, a, b) __KT_CMP(t, a, <=, b, return)
#define ASSERT_GT(t, a, b) __KT_CMP(t, a, >, b, return)
#define ASSERT_GE(t, a, b) __KT_CMP(t, a, >=, b, return)

#define EXPECT_TRUE(t, c)  __KT_CMP(t, !!(c), ==, 1, (void)0)
#define EXPECT_FALSE(t, c) __KT_CMP(t, !!(c), ==, 0, (void)0)
#define ASSERT_TRUE(t, c)  __KT_CMP(t, !!(c), ==, 1, return)
#define ASSERT_FALSE(t, c) __KT_CMP(t, !!(c), ==, 0, return)

#define EXPECT_STREQ(t, a, b) do { \
	const char *__sa = (a), *__sb = (b); \
	(t)->checks++; \
	if (!__sa || !__sb || strcmp(__sa, __sb) != 0) \
		ktest_fail(t, __FILE__, __LINE__, "%s == %s: \"%s\" vs \"%s\"", #a, #b, \
			   __sa ? __sa : "(null)", __sb ? __sb : "(null)"); \
} while (0)

/* ktest_nparams: how many times each case of s runs (0: not parameterized). */
unsigned ktest_nparams(const struct ktest_suite *s);
/* ktest_find_suite: the registered suite named name, or NULL. */
const struct ktest_suite *ktest_find_suite(const char *name);

/* One pattern of a filter: pointers into the filter text (not terminated). */
struct ktest_pattern {
	const char *text, *suite, *tcase, *param;
	size_t text_len, suite_len, case_len, param_len;
	bool has_param;               /* the pattern has a /PARAM part */
	unsigned hits;                /* tests it matched (ktest_filter_match counts) */
};

#define KTEST_MAX_PATTERNS 64

struct ktest_filter {
	bool all, dflt;               /* "all", "default" given */
	unsigned npatterns;
	struct ktest_pattern pat[KTEST_MAX_PATTERNS];
};

/* ktest_glob: does s match the glob [pat, pat + plen) ('*' any run, '?' one character)? */
bool ktest_glob(const char *pat, size_t plen, const char *s);

/*
 * ktest_filter_parse: parse text (NULL or "": "default") into f, which
 * keeps pointers into text. 0; -EINVAL for an empty part in a pattern
 * ("pmm.", "x/"); -E2BIG for more than KTEST_MAX_PATTERNS patterns.
 */
int ktest_filter_parse(struct ktest_filter *f, const char *text);

/*
 * ktest_filter_match: is case tcase of suite s, with parameter name param
 * (NULL when s is not parameterized), selected by f? Counts a hit on every
 * pattern that matches.
 */
bool ktest_filter_match(struct ktest_filter *f, const struct ktest_suite *s, const char *tcase,
			const char *param);

/*
 * ktest_run: run the tests selected by `filter` (the language above) and
 * print KTAP v1 (each selected suite a subtest, its selected cases numbered
 * from 1, named "case" or "case/param") and a final line "N passed, N
 * failed". Returns the number of failed cases; a malformed filter, or a
 * pattern that matches no test, is reported and counted as a failure.
 */
unsigned ktest_run(const char *filter);

/*
 * ktest_list: print the tests `filter` selects, one "suite.case" or
 * "suite.case/param" a line, after a header line "# ktest: N tests". Returns
 * the number of errors (as ktest_run counts them), without running anything.
 */
unsigned ktest_list(const char *filter);

/*
 * How each case runs: NULL (the default, and always in the kernel) calls
 * the case function in place. The host runner's --fork sets a function
 * that runs it in a child process and copies failures, checks and skip
 * state back into t (a crash or a timeout is recorded as a failure), so
 * one broken case costs only itself.
 */
extern void (*ktest_case_runner)(struct ktest *t, void (*fn)(struct ktest *t));

/*
 * ktest_catch_faults (kernel only, kernel/ktest_catch.c): from now on run
 * each case under the kernel's fault recovery, so a case that takes an
 * exception or panics fails alone instead of stopping the kernel.
 */
void ktest_catch_faults(void);

#endif
