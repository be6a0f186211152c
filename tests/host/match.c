/*
 * ktest-host --match FILTER: which of the test names on stdin a ktest
 * filter selects, for tools that select among listed tests (the grader,
 * tools/labs/lablib/grading.py) without a copy of the selection language.
 *
 * A name's suite gives the flags the filter looks at (KTEST_SLOW: only an
 * exact suite name or "all" selects it): a suite registered in this binary
 * lends its own; a suite it does not have (a kernel-only one) is taken as
 * an ordinary suite. The kernel's filter is this same code, so the answer
 * differs from the kernel's only for a kernel-only KTEST_SLOW suite
 * (smp_bench), which a wildcard or "default" selects here but not at boot.
 */
#include <stdio.h>
#include <string.h>

#include "ktest.h"
#include "match.h"

/* Split "suite.case[/param]" in place; false when a part is missing. */
static bool split_name(char *name, char **tcase, char **param)
{
	char *dot = strchr(name, '.'), *slash;

	if (!dot || dot == name || !dot[1])
		return false;
	*dot = '\0';
	*tcase = dot + 1;
	slash = strchr(*tcase, '/');
	*param = NULL;
	if (slash) {
		*slash = '\0';
		*param = slash + 1;
	}
	return **tcase && (!*param || **param);
}

/* Does f select the test named line ("suite.case[/param]", split in place)? -1: malformed. */
static int name_selected(struct ktest_filter *f, char *line)
{
	struct ktest_suite stand_in = { 0 };
	const struct ktest_suite *s;
	char *tcase, *param;

	if (!split_name(line, &tcase, &param))
		return -1;
	s = ktest_find_suite(line);
	if (!s) {
		stand_in.name = line;
		s = &stand_in;
	}
	return ktest_filter_match(f, s, tcase, param);
}

int host_match_names(const char *filter)
{
	static struct ktest_filter f;
	char line[512], name[512];

	if (ktest_filter_parse(&f, filter)) {
		fprintf(stderr, "ktest-host: bad test filter '%s'\n", filter);
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0])
			continue;
		strcpy(name, line);
		switch (name_selected(&f, name)) {
		case -1:
			fprintf(stderr, "ktest-host: '%s' is not a test name (suite.case[/param])\n", line);
			return 2;
		case 1:
			printf("%s\n", line);
		}
	}
	return 0;
}
