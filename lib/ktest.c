/*
 * ktest runner: selects tests (the language of lib/ktest_filter.c), runs
 * them (each case once per parameter of a parameterized suite) and prints
 * KTAP v1, then "N passed, N failed"; or lists them. Runs in the kernel at
 * boot and in the host test binary (which may isolate each case in a
 * child process through ktest_case_runner).
 */
#include "ktest.h"
#include "printk.h"
#include "kstring.h"

/* Bounds of the ktest_suites section (linker-made; weak so an image without suites links). */
extern const struct ktest_suite *const __start_ktest_suites[] __attribute__((weak));
extern const struct ktest_suite *const __stop_ktest_suites[] __attribute__((weak));

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t->failures++;
	printk("        # %s:%d: %s\n", file, line, msg);
}

void ktest_skip(struct ktest *t, const char *reason)
{
	t->skipped = true;
	t->skip_reason = reason;
}

unsigned ktest_nparams(const struct ktest_suite *s)
{
	unsigned n = 0;

	if (s->nparams || !s->param_name)
		return s->nparams;
	while (s->param_name(n))
		n++;
	return n;
}

const struct ktest_suite *ktest_find_suite(const char *name)
{
	const struct ktest_suite *const *p;

	for (p = __start_ktest_suites; p < __stop_ktest_suites; p++)
		if (strcmp((*p)->name, name) == 0)
			return *p;
	return NULL;
}

void (*ktest_case_runner)(struct ktest *t, void (*fn)(struct ktest *t));

/* The filter of the current run (static: it is large for a kernel stack). */
static struct ktest_filter run_filter;

/* The name of parameter p of s; NULL when s is not parameterized. */
static const char *param_of(const struct ktest_suite *s, unsigned p)
{
	const char *name;

	if (!ktest_nparams(s))
		return NULL;
	name = s->param_name ? s->param_name(p) : NULL;
	return name ? name : "?";
}

/* What to do with each selected test of a suite. */
typedef void (*instance_fn)(const struct ktest_suite *s, const struct ktest_case *c, unsigned p,
			    unsigned number, void *arg);

/* Call fn (if not NULL) for each test of s the filter selects; returns how many there are. */
static unsigned for_each_selected(const struct ktest_suite *s, instance_fn fn, void *arg)
{
	unsigned nparams = ktest_nparams(s) ? ktest_nparams(s) : 1, n = 0;

	for (const struct ktest_case *c = s->cases; c->fn; c++)
		for (unsigned p = 0; p < nparams; p++)
			if (ktest_filter_match(&run_filter, s, c->name, param_of(s, p))) {
				n++;
				if (fn)
					fn(s, c, p, n, arg);
			}
	return n;
}

/* "case" or "case/param" */
static void test_name(char *buf, size_t size, const struct ktest_suite *s,
		      const struct ktest_case *c, unsigned p)
{
	const char *pname = param_of(s, p);

	if (pname)
		ksnprintf(buf, size, "%s/%s", c->name, pname);
	else
		ksnprintf(buf, size, "%s", c->name);
}

struct tally {
	unsigned passed, failed, skipped;
};

/* Run one selected test and print its KTAP result line. */
static void run_one(const struct ktest_suite *s, const struct ktest_case *c, unsigned p,
		    unsigned number, void *arg)
{
	struct tally *tally = arg;
	struct ktest t = { .tcase = c, .suite = s, .param = p };
	char name[128];

	/* What the case prints (expected reports included) is a KTAP diagnostic. */
	printk_set_line_prefix("    # ");
	if (ktest_case_runner)
		ktest_case_runner(&t, c->fn);
	else
		c->fn(&t);
	printk_set_line_prefix(NULL);
	test_name(name, sizeof(name), s, c, p);
	if (t.failures) {
		printk("    not ok %u %s\n", number, name);
		tally->failed++;
	} else if (t.skipped) {
		printk("    ok %u %s # SKIP %s\n", number, name, t.skip_reason ? t.skip_reason : "");
		tally->skipped++;
	} else {
		printk("    ok %u %s\n", number, name);
		tally->passed++;
	}
}

/* Run the selected tests of one suite (n of them); prints its KTAP subtest block. */
static void run_suite(const struct ktest_suite *s, unsigned index, unsigned n, struct tally *tally)
{
	unsigned failed_before = tally->failed;

	printk("    KTAP version 1\n    # Subtest: %s\n    1..%u\n", s->name, n);
	if (s->init && s->init() != 0) {
		printk("    # %s: init failed\n", s->name);
		printk("not ok %u %s\n", index, s->name);
		tally->failed++;
		return;
	}
	for_each_selected(s, run_one, tally);
	if (s->exit)
		s->exit();
	printk("%s %u %s\n", tally->failed == failed_before ? "ok" : "not ok", index, s->name);
}

/*
 * Parse text into run_filter and count the selected suites and tests.
 * Returns the number of errors: a malformed filter, each pattern that
 * matches no test (each reported as a "#" line).
 */
static unsigned select_tests(const char *text, unsigned *nsuites, unsigned *ntests)
{
	const struct ktest_suite *const *p;
	unsigned errors = 0;

	*nsuites = *ntests = 0;
	if (ktest_filter_parse(&run_filter, text)) {
		printk("# ktest: bad test filter '%s' (SUITE[.CASE][/PARAM] globs, comma-separated)\n",
		       text);
		return 1;
	}
	for (p = __start_ktest_suites; p < __stop_ktest_suites; p++) {
		unsigned n = for_each_selected(*p, NULL, NULL);

		*nsuites += n > 0;
		*ntests += n;
	}
	for (unsigned i = 0; i < run_filter.npatterns; i++)
		if (!run_filter.pat[i].hits) {
			printk("# ktest: '%.*s' matches no test\n", (int)run_filter.pat[i].text_len,
			       run_filter.pat[i].text);
			errors++;
		}
	return errors;
}

unsigned ktest_run(const char *filter)
{
	const struct ktest_suite *const *p;
	struct tally tally = { 0, 0, 0 };
	unsigned nsuites, ntests, index = 0;

	tally.failed = select_tests(filter, &nsuites, &ntests);
	printk("KTAP version 1\n1..%u\n", nsuites);
	for (p = __start_ktest_suites; p < __stop_ktest_suites; p++) {
		unsigned n = for_each_selected(*p, NULL, NULL);

		if (n)
			run_suite(*p, ++index, n, &tally);
	}
	if (tally.skipped)
		printk("%u passed, %u failed, %u skipped\n", tally.passed, tally.failed, tally.skipped);
	else
		printk("%u passed, %u failed\n", tally.passed, tally.failed);
	return tally.failed;
}

static void list_one(const struct ktest_suite *s, const struct ktest_case *c, unsigned p,
		     unsigned number, void *arg)
{
	char name[128];

	test_name(name, sizeof(name), s, c, p);
	printk("%s.%s\n", s->name, name);
}

unsigned ktest_list(const char *filter)
{
	const struct ktest_suite *const *p;
	unsigned nsuites, ntests, errors = select_tests(filter, &nsuites, &ntests);

	printk("# ktest: %u tests\n", ntests);
	for (p = __start_ktest_suites; p < __stop_ktest_suites; p++)
		for_each_selected(*p, list_one, NULL);
	return errors;
}
