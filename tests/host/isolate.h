/* The host runner's per-case isolation (tests/host/isolate.c). */
#ifndef HOST_ISOLATE_H
#define HOST_ISOLATE_H

/*
 * From now on run every ktest case in a forked child (ktest_case_runner).
 * timeout_s > 0: a case still running after that many seconds is killed;
 * 0 keeps the timeout set before (none at first).
 */
void host_isolate_cases(unsigned timeout_s);

#endif
