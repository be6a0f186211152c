/*
 * The ktest selection language (include/ktest.h), the same on the kernel
 * command line (ktest=...) and on the host runner's command line:
 *
 *   FILTER  := all | default | none | PATTERN[,PATTERN...]
 *   PATTERN := SUITE[.CASE][/PARAM]     each part a glob: '*' any run, '?' one character
 *
 * "pmm" is every case of pmm, "mm_fork.test_cow*" some of mm_fork's cases,
 * "vma_index/avl" every case of vma_index with the parameter avl (a
 * missing CASE part is "*"). A pattern that names a parameter matches only cases of
 * parameterized suites. A suite marked KTEST_SLOW is selected by its exact
 * name (or "all"), never by a wildcard in the suite part. "all" and
 * "default" may be mixed with patterns ("default,vma_limit/avl").
 */
#include "ktest.h"
#include "kerrno.h"
#include "kstring.h"

bool ktest_glob(const char *pat, size_t plen, const char *s)
{
	const char *star = NULL, *retry = NULL;
	const char *p = pat, *end = pat + plen;

	while (*s) {
		if (p < end && *p == '*') {
			star = ++p;             /* resume here: the '*' swallows one more character each retry */
			retry = s;
		} else if (p < end && (*p == '?' || *p == *s)) {
			p++;
			s++;
		} else if (star) {
			p = star;
			s = ++retry;
		} else {
			return false;
		}
	}
	while (p < end && *p == '*')
		p++;
	return p == end;
}

static bool has_wildcard(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == '*' || p[i] == '?')
			return true;
	return false;
}

/* Split one pattern [w, w + n) into its suite, case and parameter parts. */
static int parse_pattern(struct ktest_pattern *pt, const char *w, size_t n)
{
	const char *slash = NULL, *dot = NULL;

	memset(pt, 0, sizeof(*pt));
	for (size_t i = 0; i < n && !slash; i++)
		if (w[i] == '/')
			slash = w + i;
	for (const char *c = w; c < (slash ? slash : w + n) && !dot; c++)
		if (*c == '.')
			dot = c;
	pt->text = w;
	pt->text_len = n;
	pt->suite = w;
	pt->suite_len = (dot ? dot : slash ? slash : w + n) - w;
	pt->tcase = dot ? dot + 1 : "*";
	pt->case_len = dot ? (size_t)((slash ? slash : w + n) - (dot + 1)) : 1;
	pt->has_param = slash != NULL;
	pt->param = slash ? slash + 1 : "";
	pt->param_len = slash ? n - (size_t)(slash + 1 - w) : 0;
	if (!pt->suite_len || !pt->case_len || (pt->has_param && !pt->param_len))
		return -EINVAL;
	return 0;
}

static bool word_eq(const char *w, size_t n, const char *s)
{
	return strlen(s) == n && strncmp(w, s, n) == 0;
}

int ktest_filter_parse(struct ktest_filter *f, const char *text)
{
	memset(f, 0, sizeof(*f));
	if (!text || !*text)
		text = "default";
	for (const char *w = text; *w;) {
		const char *e = strchr(w, ',');
		size_t n = e ? (size_t)(e - w) : strlen(w);

		if (word_eq(w, n, "all"))
			f->all = true;
		else if (word_eq(w, n, "default"))
			f->dflt = true;
		else if (word_eq(w, n, "none") || !n)
			;                       /* nothing: "none" alone selects no test */
		else if (f->npatterns == KTEST_MAX_PATTERNS)
			return -E2BIG;
		else if (parse_pattern(&f->pat[f->npatterns++], w, n))
			return -EINVAL;
		if (!e)
			break;
		w = e + 1;
	}
	return 0;
}

static bool pattern_matches(const struct ktest_pattern *pt, const struct ktest_suite *s,
			    const char *tcase, const char *param)
{
	if (!ktest_glob(pt->suite, pt->suite_len, s->name))
		return false;
	if ((s->flags & KTEST_SLOW) && has_wildcard(pt->suite, pt->suite_len))
		return false;
	if (!ktest_glob(pt->tcase, pt->case_len, tcase))
		return false;
	if (!pt->has_param)
		return true;
	return param && ktest_glob(pt->param, pt->param_len, param);
}

bool ktest_filter_match(struct ktest_filter *f, const struct ktest_suite *s, const char *tcase,
			const char *param)
{
	bool hit = f->all || (f->dflt && !(s->flags & KTEST_SLOW));

	for (unsigned i = 0; i < f->npatterns; i++)
		if (pattern_matches(&f->pat[i], s, tcase, param)) {
			f->pat[i].hits++;
			hit = true;
		}
	return hit;
}
