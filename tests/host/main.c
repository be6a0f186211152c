/*
 * Host test driver: 32 MiB of simulated RAM, the buddy allocator and slab on
 * top of it, then the ktest tests the arguments select (include/ktest.h:
 * "all", "default", suite names or SUITE[.CASE][/PARAM] globs; default:
 * every non-slow suite). Exit status 0 when nothing failed.
 *
 *   ktest-host [--list | --match] [--fork] [--timeout S] [FILTER...]
 *
 * --list     print the selected tests, one "suite.case[/param]" a line
 * --match    read test names, one "suite.case[/param]" a line, from stdin
 *            (any names: a kernel's list too) and print those FILTER
 *            selects (tests/host/match.c); runs nothing
 * --fork     run each case in a child process (tests/host/isolate.c): a
 *            crash (ASan/UBSan abort, segfault) fails that case only
 * --timeout  with --fork: a case still running after S seconds is killed
 *            and fails
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmm.h"
#include "slab.h"
#include "ktest.h"
#include "hosted.h"
#include "isolate.h"
#include "match.h"

#define HOSTED_RAM (32UL << 20)

static int usage(void)
{
	fprintf(stderr, "usage: ktest-host [--list | --match] [--fork] [--timeout S] [FILTER...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct page pages[HOSTED_RAM >> PAGE_SHIFT];
	/* Frame 0 stays reserved, like the real-mode IVT page on a PC. */
	struct mem_range free = { PAGE_SIZE, HOSTED_RAM };
	char filter[2048] = "";
	bool list = false, match = false;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--list") == 0)
			list = true;
		else if (strcmp(argv[i], "--match") == 0)
			match = true;
		else if (strcmp(argv[i], "--fork") == 0)
			host_isolate_cases(0);
		else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
			host_isolate_cases((unsigned)atoi(argv[++i]));
		else
			return usage();
	}
	for (int first = i; i < argc; i++) {
		if (i > first)
			strncat(filter, ",", sizeof(filter) - strlen(filter) - 1);
		strncat(filter, argv[i], sizeof(filter) - strlen(filter) - 1);
	}
	if (match)
		return host_match_names(filter);
	if (list)
		return ktest_list(filter[0] ? filter : "default") ? 1 : 0;

	hosted_ram_init(HOSTED_RAM);
	pmm_init(pages, HOSTED_RAM >> PAGE_SHIFT, &free, 1);
	slab_init();
	return ktest_run(filter[0] ? filter : "default") ? 1 : 0;
}
