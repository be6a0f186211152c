/*
 * usertests: runs the tests of t_*.c, each in a forked child, and prints
 * "ok NAME" or "FAILED NAME (why)" per test, then "N passed, N failed".
 * Exit status 0 when all passed. With arguments: only the named tests, or a
 * helper (hello.c) when argv[1] starts with "--".
 *
 * On our kernel it also checks for leaks: the free-frame count after all
 * the tests (every child reaped) must equal the count before them exactly;
 * and after each test the kernel's frame-map audit (frame_audit_ok).
 * UTEST_REPEAT=N in the environment runs the selection N times.
 */
#include "utests.h"

static const struct utest *const groups[] = { ut_mem_tests, ut_proc_tests, ut_sig_tests, ut_vm_tests,
						 ut_forkmerge_tests, ut_fd_tests, ut_pipeline_tests,
						 ut_clone_tests, ut_sigx_tests, ut_manyvma_tests, ut_smp_tests,
						 ut_thread_tests, ut_tgroup_tests, ut_threadvm_tests, ut_file_tests,
						 ut_pressure_tests, ut_gort_tests, ut_procfs_tests, ut_attr_tests,
						 ut_lock_tests, ut_thp_tests, ut_fdshare_tests, ut_sigctx_tests,
						 ut_cputime_tests };

void ut_fail(const char *file, int line, const char *what)
{
	dprintf(1, "    check failed: %s:%d: %s\n", file, line, what);
	_exit(1);
}

void ut_fail_eq(const char *file, int line, const char *a, const char *b, long va, long vb)
{
	dprintf(1, "    check failed: %s:%d: %s == %s: %ld (%#lx) vs %ld (%#lx)\n", file, line, a, b,
		va, va, vb, vb);
	_exit(1);
}

bool vmk_memstat(struct vmk_memstat *st)
{
	/*
	 * Written first: a page of *st touched for the first time by the
	 * kernel's copy would be allocated after the count it returns, and
	 * the next count would be a frame short (a stack page, when the
	 * caller's frame lies across a page boundary: it depends on the
	 * binary's layout; file_no_leak met it on a lab skeleton).
	 */
	memset(st, 0, sizeof(*st));
	return usys2(__NR_vmk_memstat, (long)st, sizeof(*st)) == 0;
}

bool on_vmkernel(void)
{
	struct vmk_memstat st;

	return vmk_memstat(&st);
}

void ut_catch_signal(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO;
	CHECK_EQ(sigaction(sig, &sa, NULL), 0);
}

long ut_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	long n, total = 0;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = 0;
	return n < 0 ? -1 : total;
}

int run_in_child(void (*fn)(void))
{
	int pid = fork(), status = -1;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		fn();
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/*
 * A hang detector, not a speed check: threads on 4 emulated CPUs of a loaded
 * 2-core machine can take tens of seconds of guest clock for one test. The
 * environment's UTESTS_TIMEOUT (seconds) replaces it (tools/run --env). A
 * test past it is killed (SIGKILL) and reported as hung; one that SIGKILL
 * does not end within KILL_WAIT_S (a task that never returns to user mode,
 * where signals are delivered) is left behind, reported too, and the run
 * goes on: the boot no longer runs to its time limit with no report.
 */
#define TEST_TIMEOUT_S 300
#define KILL_WAIT_S 30
#define TIMED_OUT (-2)
#define UNKILLABLE (-3)

bool env_has(const char *var)
{
	for (char **e = environ; e && *e; e++)
		if (!strcmp(*e, var))
			return true;
	return false;
}

/* The positive number in the environment variable NAME=..., or dflt. */
static long env_number(const char *name, long dflt)
{
	size_t n = strlen(name);

	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=' && strtol(*e + n + 1, NULL, 0) > 0)
			return strtol(*e + n + 1, NULL, 0);
	return dflt;
}

static long test_timeout_s(void)
{
	return env_number("UTESTS_TIMEOUT", TEST_TIMEOUT_S);
}

/*
 * The watchdog's clock: CLOCK_MONOTONIC summed over the watchdog's own
 * polling steps, each step counted at most STEP_MAX_NS. A clock that
 * jumps then costs one step, not the test: once in CI the guest's clock
 * moved 1800 s while the host's moved 17 s (cause not found; the TSC
 * calibration was checked under load and is steady), and a test that was
 * running fine was reported hung. A hang still adds up: a polling step is
 * 1-10 ms (on a loaded host a step of a second or two happens, and counts
 * as one). A step past JUMP_NS is reported after the test's line (main):
 * printing from here, during the test, could take a frame (a deeper stack
 * page of this process) under a test that counts the free frames.
 */
#define STEP_MAX_NS 1000000000L        /* 1 s */
#define JUMP_NS 60000000000L           /* 1 min: no 1 ms nap takes that long */
#define NSEC 1000000000L

struct watch {
	long last_ns;           /* the clock at the previous step */
	long elapsed_ns;        /* the steps so far, each at most STEP_MAX_NS */
};

static long watch_jump_ns;      /* the largest step past JUMP_NS in the last test (0: none) */

static long clock_ns(void)
{
	long ts[2] = { 0, 0 };

	usys2(__NR_clock_gettime, 1, (long)ts);
	return ts[0] * NSEC + ts[1];
}

static void watch_start(struct watch *w)
{
	w->last_ns = clock_ns();
	w->elapsed_ns = 0;
}

/* One polling step of w; the time it counts so far, in seconds. */
static long watch_step(struct watch *w)
{
	long now = clock_ns(), step = now - w->last_ns;

	if (step > JUMP_NS && step > watch_jump_ns)
		watch_jump_ns = step;
	if (step > STEP_MAX_NS || step < 0)
		step = STEP_MAX_NS;
	w->last_ns = now;
	w->elapsed_ns += step;
	return w->elapsed_ns / NSEC;
}

/* After SIGKILL: true once pid is reaped, false if it is still there after KILL_WAIT_S. */
static bool reap_killed(int pid)
{
	long nap[2] = { 0, 10000000 };    /* 10 ms */
	struct watch w;
	int st;

	watch_start(&w);
	while (watch_step(&w) <= KILL_WAIT_S) {
		int r = waitpid(pid, &st, WNOHANG);

		if (r == pid || r < 0)
			return true;
		usys2(35 /* nanosleep */, (long)nap, 0);
	}
	return false;
}

/*
 * run_in_child with a watchdog: a test still running after the timeout is
 * killed (TIMED_OUT; UNKILLABLE when SIGKILL does not end it).
 */
static int run_test(void (*fn)(void))
{
	long limit = test_timeout_s(), nap[2] = { 0, 1000000 };     /* 1 ms */
	struct watch w;
	int pid, st = -1;

	watch_jump_ns = 0;
	watch_start(&w);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fn();
		_exit(0);
	}
	for (;;) {
		int r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0)
			return -1;
		if (watch_step(&w) > limit) {
			kill(pid, SIGKILL);
			return reap_killed(pid) ? TIMED_OUT : UNKILLABLE;
		}
		usys2(35 /* nanosleep */, (long)nap, 0);
	}
}

/* Is the test named name selected by the patterns argv[1..argc)? (All of them without patterns.) */
static bool selected(int argc, char **argv, const char *name, int *hits)
{
	bool any = false;

	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (fnmatch(argv[i], name, 0) == 0) {
			hits[i]++;
			any = true;
		}
	return any;
}

#define MAX_PATTERNS 512

/* The patterns that matched no test, each one failure (a typo must not pass by testing nothing). */
static int unmatched(int argc, char **argv, const int *hits)
{
	int n = 0;

	for (int i = 1; i < argc; i++)
		if (!hits[i]) {
			printf("FAILED no test matches '%s'\n", argv[i]);
			n++;
		}
	return n;
}

/* --list [PATTERNS]: the selected test names, one a line. */
static int list_tests(int argc, char **argv)
{
	int hits[MAX_PATTERNS] = { 0 };

	for (unsigned g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (const struct utest *t = groups[g]; t->name; t++)
			if (selected(argc, argv, t->name, hits))
				printf("%s\n", t->name);
	return unmatched(argc, argv, hits) ? 1 : 0;
}

static void warm_up(void) { }

/*
 * The tests count on a fresh descriptor table (0, 1, 2 only): "the lowest
 * free number", "fd 77 is closed". A shell or CI runner may pass others
 * open (seen in CI: fd 84), so the run starts by closing them.
 */
static void close_inherited_fds(void)
{
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
}

/*
 * The kernel's frame-map audit (vmk_check with VMK_CHECK_MAPS: every
 * frame's mapcount against every page-table entry, include/uapi/vmk.h)
 * after a test that passed: a count it left wrong fails it, where the
 * drift happened rather than at the leak check or in a later test's data.
 * Only until the first such failure (a drift stays: every later test
 * would fail it). True when the audit is off or found nothing wrong.
 */
#define AUDIT_FAILED (-4)
static bool audit_on;

static bool frame_audit_ok(void)
{
	struct vmk_check r;

	if (!audit_on)
		return true;
	if (usys3(__NR_vmk_check, (long)&r, sizeof(r), VMK_CHECK_MAPS) == 0)
		return true;
	audit_on = false;
	return false;
}

/* Runs every test the patterns select, one line each ("ok NAME", "FAILED NAME (why)"), and counts them. */
static void run_selected(int argc, char **argv, int *hits, int *passed, int *failed)
{
	for (unsigned g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		for (const struct utest *t = groups[g]; t->name; t++) {
			int st;

			if (!selected(argc, argv, t->name, hits))
				continue;
			st = run_test(t->fn);
			if (st == 0 && !frame_audit_ok())
				st = AUDIT_FAILED;
			if (st == 0) {
				(*passed)++;
				printf("ok %s\n", t->name);
			} else {
				(*failed)++;
				if (st == TIMED_OUT)
					printf("FAILED %s (hung: killed after %ld s)\n", t->name, test_timeout_s());
				else if (st == UNKILLABLE)
					printf("FAILED %s (hung: killed after %ld s, and SIGKILL did not end it in %d s: "
					       "left behind)\n", t->name, test_timeout_s(), KILL_WAIT_S);
				else if (st == AUDIT_FAILED)
					printf("FAILED %s (the kernel's frame-map audit after it found counts wrong: "
					       "its log shows them; no audits after this one)\n", t->name);
				else if (st < 0)
					printf("FAILED %s (fork/wait failed)\n", t->name);
				else if (WIFSIGNALED(st))
					printf("FAILED %s (killed by signal %d)\n", t->name, WTERMSIG(st));
				else
					printf("FAILED %s (exit status %d)\n", t->name, WEXITSTATUS(st));
			}
			if (watch_jump_ns)
				printf("# usertests: CLOCK_MONOTONIC moved %ld s in one polling step of %s's "
				       "watchdog; counted as 1 s\n", watch_jump_ns / NSEC, t->name);
		}
	}
}

int main(int argc, char **argv, char **envp)
{
	struct vmk_memstat before, after;
	int passed = 0, failed = 0, hits[MAX_PATTERNS] = { 0 };
	bool vmk;

	(void)envp;
	ut_argv0 = argv[0];
	if (argc > MAX_PATTERNS) {
		printf("usertests: at most %d names\n", MAX_PATTERNS - 1);
		return 2;
	}
	if (argc > 1 && strcmp(argv[1], "--list") == 0)
		return list_tests(argc - 1, argv + 1);
	if (argc > 1 && argv[1][0] == '-' && argv[1][1] == '-')
		return helper_main(argc, argv);
	close_inherited_fds();
	/* 4 KiB pages on Linux too (no transparent huge pages), inherited by the children */
	sys_prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	/* one fork and one printf first, so that caches and this process's own pages are in place */
	printf("usertests on %s\n", on_vmkernel() ? "vmkernel" : "Linux");
	run_in_child(warm_up);
	/* Their pages (bss) in place before the count, as the run writes them. */
	watch_jump_ns = 0;
	audit_on = !env_has("UTEST_AUDIT=0");
	vmk = vmk_memstat(&before);
	audit_on = audit_on && vmk;
	/* UTEST_REPEAT=N: the selection N times over (a rare failure's hunt), a line per test run. */
	for (long round = env_number("UTEST_REPEAT", 1); round > 0; round--)
		run_selected(argc, argv, hits, &passed, &failed);
	failed += unmatched(argc, argv, hits);
	/*
	 * The leak check runs after the whole set, or after the tests named
	 * when UTEST_LEAK_CHECK=1 says they leave no cache behind (make
	 * test's user-stress stage: threads and anonymous memory only).
	 */
	if (vmk && (argc < 2 || env_has("UTEST_LEAK_CHECK=1"))) {
		vmk_memstat(&after);
		/* Not checks: what the SMP machinery did during the run (children's faults are their own). */
		printf("# vmkernel: %lu CPUs; TLB: %lu flushes, %lu shootdowns, %lu IPIs, %lu pages, %lu full\n",
		       after.cpus, after.tlb_flushes - before.tlb_flushes,
		       after.tlb_shootdowns - before.tlb_shootdowns, after.tlb_ipis - before.tlb_ipis,
		       after.tlb_pages - before.tlb_pages, after.tlb_full_flushes - before.tlb_full_flushes);
		if (after.free_frames == before.free_frames) {
			passed++;
			printf("ok leak_check (%lu free frames before and after)\n", after.free_frames);
		} else {
			failed++;
			printf("FAILED leak_check: %lu free frames before the tests, %lu after\n",
			       before.free_frames, after.free_frames);
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
