/*
 * Per-case isolation for the host runner (--fork): each case runs in a
 * forked child, which sends its failure count, check count and skip state
 * back through a pipe. Whatever the child writes to stderr (an ASan or
 * UBSan report) comes back as "#" diagnostic lines of that case. A child
 * that dies first (a sanitizer abort, a segfault) or runs past the timeout
 * (SIGALRM) is one failed case, and the run goes on with the next.
 *
 * The child exits with _exit: no atexit handlers, so no leak report for
 * what the case left behind (the parent's address space never sees it).
 */
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

#include "ktest.h"
#include "printk.h"
#include "isolate.h"

/* The diagnostic lines of a crashed case's stderr at most (ASan reports are long). */
#define MAX_REPORT_LINES 40

static unsigned case_timeout_s;

struct case_result {
	unsigned failures, checks;
	bool skipped;
	const char *skip_reason;      /* a string literal: the same address in the parent */
};

static void run_child(struct ktest *t, void (*fn)(struct ktest *t), int res_fd, int err_fd)
{
	struct case_result r;

	dup2(err_fd, 2);
	close(err_fd);
	if (case_timeout_s)
		alarm(case_timeout_s);
	fn(t);
	r.failures = t->failures;
	r.checks = t->checks;
	r.skipped = t->skipped;
	r.skip_reason = t->skip_reason;
	fflush(stdout);
	if (write(res_fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(3);
	_exit(0);
}

/* Copy the child's stderr into the KTAP stream as diagnostics (printk's line prefix). */
static void relay_stderr(int fd)
{
	FILE *f = fdopen(fd, "r");
	char line[512];
	unsigned n = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (n++ < MAX_REPORT_LINES)
			printk("%s%s", line, strchr(line, '\n') ? "" : "\n");
	if (n > MAX_REPORT_LINES)
		printk("(%u more lines of standard error)\n", n - MAX_REPORT_LINES);
	fclose(f);
}

static void describe_death(int status)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		printk("case timed out after %u s: killed\n", case_timeout_s);
	else if (WIFSIGNALED(status))
		printk("case crashed: killed by signal %d (%s)\n", WTERMSIG(status),
		       strsignal(WTERMSIG(status)));
	else
		printk("case crashed: exit status %d before reporting its result\n",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void run_forked(struct ktest *t, void (*fn)(struct ktest *t))
{
	int res[2], err[2], status = 0;
	struct case_result r;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (pipe(res) || pipe(err) || (pid = fork()) < 0) {
		printk("cannot fork for the case: running it in place\n");
		fn(t);
		return;
	}
	if (pid == 0) {
		close(res[0]);
		close(err[0]);
		run_child(t, fn, res[1], err[1]);
	}
	close(res[1]);
	close(err[1]);
	relay_stderr(err[0]);
	ssize_t got = read(res[0], &r, sizeof(r));
	close(res[0]);
	waitpid(pid, &status, 0);
	if (got != (ssize_t)sizeof(r)) {
		describe_death(status);
		t->failures++;
		return;
	}
	t->failures = r.failures;
	t->checks = r.checks;
	t->skipped = r.skipped;
	t->skip_reason = r.skip_reason;
}

void host_isolate_cases(unsigned timeout_s)
{
	if (timeout_s)
		case_timeout_s = timeout_s;
	ktest_case_runner = run_forked;
}
