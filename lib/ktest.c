/*
 * ktest runner: selects suites, runs their cases (once per parameter for
 * parameterized suites) and prints KTAP v1, then "N passed, N failed".
 * Runs in the kernel at boot and in the host test binary.
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

/* Is name one of the comma-separated words in list? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && strncmp(p, name, n) == 0)
			return true;
		if (!e)
			break;
		p = e + 1;
	}
	return false;
}

static bool selected(const struct ktest_suite *s, const char *filter)
{
	if (strcmp(filter, "all") == 0)
		return true;
	if (strcmp(filter, "default") == 0)
		return !(s->flags & KTEST_SLOW);
	return in_list(filter, s->name);
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

static unsigned suite_points(const struct ktest_suite *s)
{
	unsigned n = 0;
	for (const struct ktest_case *c = s->cases; c->fn; c++)
		n++;
	return ktest_nparams(s) ? n * ktest_nparams(s) : n;
}

struct tally {
	unsigned passed, failed, skipped;
};

/* Run one suite; prints its KTAP subtest block. Returns true if nothing failed. */
static bool run_suite(const struct ktest_suite *s, unsigned index, struct tally *tally)
{
	unsigned points = suite_points(s);
	unsigned nparams = ktest_nparams(s) ? ktest_nparams(s) : 1;
	unsigned point = 0;
	bool ok = true;

	printk("    KTAP version 1\n    # Subtest: %s\n    1..%u\n", s->name, points);
	if (s->init && s->init() != 0) {
		printk("    # %s: init failed\n", s->name);
		printk("not ok %u %s\n", index, s->name);
		tally->failed++;
		return false;
	}
	for (const struct ktest_case *c = s->cases; c->fn; c++) {
		for (unsigned p = 0; p < nparams; p++) {
			struct ktest t = { .tcase = c, .suite = s, .param = p };
			/* What the case prints (expected reports included) is a KTAP diagnostic. */
			printk_set_line_prefix("    # ");
			c->fn(&t);
			printk_set_line_prefix(NULL);
			point++;
			const char *pname = ktest_nparams(s) && s->param_name ? s->param_name(p) : NULL;
			char name[128];
			if (ktest_nparams(s))
				ksnprintf(name, sizeof(name), "%s/%s", c->name, pname ? pname : "?");
			else
				ksnprintf(name, sizeof(name), "%s", c->name);
			if (t.failures) {
				printk("    not ok %u %s\n", point, name);
				tally->failed++;
				ok = false;
			} else if (t.skipped) {
				printk("    ok %u %s # SKIP %s\n", point, name,
				       t.skip_reason ? t.skip_reason : "");
				tally->skipped++;
			} else {
				printk("    ok %u %s\n", point, name);
				tally->passed++;
			}
		}
	}
	if (s->exit)
		s->exit();
	printk("%s %u %s\n", ok ? "ok" : "not ok", index, s->name);
	return ok;
}

unsigned ktest_run(const char *filter)
{
	const struct ktest_suite *const *p;
	struct tally tally = { 0, 0, 0 };
	unsigned nsuites = 0, index = 0;

	if (!filter || !*filter)
		filter = "default";
	for (p = __start_ktest_suites; p < __stop_ktest_suites; p++)
		if (selected(*p, filter))
			nsuites++;

	/* Names asked for that match no suite are errors, not silent no-ops. */
	unsigned unknown = 0;
	if (strcmp(filter, "all") != 0 && strcmp(filter, "default") != 0) {
		for (const char *w = filter; *w;) {
			const char *e = strchr(w, ',');
			size_t len = e ? (size_t)(e - w) : strlen(w);
			bool found = false;
			for (p = __start_ktest_suites; p < __stop_ktest_suites; p++)
				if (strlen((*p)->name) == len && strncmp((*p)->name, w, len) == 0)
					found = true;
			if (!found && len) {
				printk("# ktest: no suite named '%.*s'\n", (int)len, w);
				unknown++;
			}
			if (!e)
				break;
			w = e + 1;
		}
	}

	printk("KTAP version 1\n1..%u\n", nsuites);
	for (p = __start_ktest_suites; p < __stop_ktest_suites; p++)
		if (selected(*p, filter))
			run_suite(*p, ++index, &tally);
	tally.failed += unknown;
	if (tally.skipped)
		printk("%u passed, %u failed, %u skipped\n", tally.passed, tally.failed, tally.skipped);
	else
		printk("%u passed, %u failed\n", tally.passed, tally.failed);
	return tally.failed;
}
