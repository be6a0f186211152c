/*
 * Pipelines as a shell builds them: fork, pipe, dup2 onto 0/1, close the
 * rest, execve the stages (helpers of this same program, hello.c: --yes,
 * --seq, --head, --wc, --cat), wait for all. Checks the bytes that come out
 * and each stage's status: `yes | head` ends with yes killed by SIGPIPE,
 * as in a shell on Linux.
 */
#include "utests.h"

#define MAX_STAGES 4

/*
 * Run the stages (each a NULL-terminated helper argument list after argv0)
 * connected by pipes; stdin of the first is /dev/null-like (a closed
 * pipe), stdout of the last is returned in out (up to size bytes). The
 * stages' wait statuses go to st[]. Returns the output length.
 */
static long run_pipeline(const char *const *stages[], int n, char *out, size_t size, int st[])
{
	int pids[MAX_STAGES], in_fd, outp[2], p[2];
	long len = 0, r;

	CHECK(pipe(p) == 0);
	close(p[1]);
	in_fd = p[0];                   /* empty input */
	CHECK(pipe(outp) == 0);
	for (int i = 0; i < n; i++) {
		int next[2] = { -1, -1 };

		if (i < n - 1)
			CHECK(pipe(next) == 0);
		pids[i] = fork();
		CHECK(pids[i] >= 0);
		if (pids[i] == 0) {
			char *argv[8];
			int k = 0;

			dup2(in_fd, 0);
			dup2(i < n - 1 ? next[1] : outp[1], 1);
			close(in_fd);
			close(outp[0]);
			close(outp[1]);
			if (i < n - 1) {
				close(next[0]);
				close(next[1]);
			}
			argv[k++] = ut_argv0;
			for (const char *const *a = stages[i]; *a && k < 7; a++)
				argv[k++] = (char *)*a;
			argv[k] = NULL;
			execve(ut_argv0, argv, NULL);
			_exit(127);
		}
		close(in_fd);
		if (i < n - 1) {
			close(next[1]);
			in_fd = next[0];
		}
	}
	close(outp[1]);
	while ((r = read(outp[0], out + len, size - 1 - (size_t)len)) > 0)
		len += r;
	close(outp[0]);
	out[len] = 0;
	for (int i = 0; i < n; i++)
		CHECK_EQ(waitpid(pids[i], &st[i], 0), pids[i]);
	return len;
}

/* yes | head -n 3: three lines; yes dies of SIGPIPE once head has gone. */
static void t_pipe_yes_head(void)
{
	static const char *const yes[] = { "--yes", NULL }, *const head[] = { "--head", "3", NULL };
	const char *const *stages[] = { yes, head };
	char out[256];
	int st[2];

	CHECK_EQ(run_pipeline(stages, 2, out, sizeof(out), st), 6);
	CHECK_EQ(strcmp(out, "y\ny\ny\n"), 0);
	CHECK(WIFSIGNALED(st[0]));
	CHECK_EQ(WTERMSIG(st[0]), SIGPIPE);
	CHECK_EQ(st[1], 0);
}

/* seq 20000 | cat | head -n 15000 | wc: four stages, 64 KiB pipes filled and drained. */
static void t_pipe_chain(void)
{
	static const char *const seq[] = { "--seq", "20000", NULL }, *const cat[] = { "--cat", NULL };
	static const char *const head[] = { "--head", "15000", NULL }, *const wc[] = { "--wc", NULL };
	const char *const *stages[] = { seq, cat, head, wc };
	char out[256], want[64];
	int st[4];
	long bytes = 0;

	for (int i = 1; i <= 15000; i++)
		bytes += i < 10 ? 2 : i < 100 ? 3 : i < 1000 ? 4 : i < 10000 ? 5 : 6;
	snprintf(want, sizeof(want), "15000 %ld\n", bytes);
	run_pipeline(stages, 4, out, sizeof(out), st);
	CHECK_EQ(strcmp(out, want), 0);
	/* seq and cat may finish or die of SIGPIPE, depending on who runs first; head and wc exit 0 */
	for (int i = 0; i < 2; i++)
		CHECK(st[i] == 0 || (WIFSIGNALED(st[i]) && WTERMSIG(st[i]) == SIGPIPE));
	CHECK_EQ(st[2], 0);
	CHECK_EQ(st[3], 0);
}

/* seq 5000 | wc: the whole stream arrives (no stage stops early). */
static void t_pipe_seq_wc(void)
{
	static const char *const seq[] = { "--seq", "5000", NULL }, *const wc[] = { "--wc", NULL };
	const char *const *stages[] = { seq, wc };
	char out[256];
	int st[2];

	run_pipeline(stages, 2, out, sizeof(out), st);
	CHECK_EQ(strcmp(out, "5000 23893\n"), 0);       /* 9*2 + 90*3 + 900*4 + 4001*5 bytes */
	CHECK_EQ(st[0], 0);
	CHECK_EQ(st[1], 0);
}

const struct utest ut_pipeline_tests[] = {
	{ "pipe_yes_head", t_pipe_yes_head },
	{ "pipe_chain", t_pipe_chain },
	{ "pipe_seq_wc", t_pipe_seq_wc },
	{ NULL, NULL },
};
