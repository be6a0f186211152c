/* The host runner's --match mode (tests/host/match.c). */
#ifndef HOST_MATCH_H
#define HOST_MATCH_H

/*
 * Read test names ("suite.case" or "suite.case/param", as --list prints
 * them), one a line, from stdin and print each one the ktest filter text
 * selects, in their order, deciding as lib/ktest_filter.c does for a run.
 * Returns 0, or 2 (after a message) for a malformed filter or name.
 */
int host_match_names(const char *filter);

#endif
