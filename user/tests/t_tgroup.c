/*
 * A multi-threaded process as one process (Linux's thread-group rules):
 * execve from any thread ends the others and the execing thread takes the
 * process id; a thread's children go to a sibling thread when it exits and
 * any thread's wait4 reaps them; kill and kill(-pgid) reach a process
 * whose main thread has exited while others run; FUTEX_CMP_REQUEUE
 * compares and moves. Every test runs its process in a forked child so
 * that leftovers cannot disturb the next one. Expected values are Linux's
 * (the same binary runs there); waits are on futexes, pipes and wait4,
 * never on time.
 */
#include "uclone.h"
#include "utests.h"
#include "uthread.h"

#define INT_MAX_ 0x7fffffff

static volatile int never;      /* stays 0: futex sleepers on it sleep until the process ends */

static int sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		futex(&never, FUTEX_WAIT | FUTEX_PRIVATE, 0);
	return 1;
}

static int spin_forever(void *arg)
{
	(void)arg;
	for (;;)
		__asm__ volatile("pause");
	return 1;
}

/* ---------------------------------------------------------------- execve */

/*
 * tests --exec-ids PID PPID TID...: run after an execve in process PID
 * (parent PPID) whose threads had the ids TID... Exit 0 when this is the
 * process's only thread, with the process id as its thread id and the
 * same parent: every TID other than PID (and 0: a thread not started) is gone. Else the number of the
 * first failed check.
 */
int tgroup_exec_ids(int argc, char **argv)
{
	long pid, ppid;

	if (argc < 4)
		return 10;
	pid = strtol(argv[2], NULL, 0);
	ppid = strtol(argv[3], NULL, 0);
	if (usys0(__NR_getpid) != pid)
		return 11;
	if (usys0(__NR_gettid) != pid)
		return 12;
	if (usys0(__NR_getppid) != ppid)
		return 13;
	for (int i = 4; i < argc; i++) {
		long tid = strtol(argv[i], NULL, 0);

		if (tid > 0 && tid != pid && usys3(__NR_tgkill, pid, tid, 0) != -ESRCH)
			return 14;
	}
	return 0;
}

#define EXEC_THREADS 3
static struct thread exec_threads[EXEC_THREADS];

/* execve of tests --exec-ids with this process's ids and every thread id (those of exec_threads too). */
static int exec_ids(void *arg)
{
	static char num[3 + EXEC_THREADS][24];
	char *argv[4 + 3 + EXEC_THREADS] = { ut_argv0, "--exec-ids" };
	char *envp[] = { NULL };
	int n = 2;

	(void)arg;
	snprintf(num[0], sizeof(num[0]), "%ld", usys0(__NR_getpid));
	snprintf(num[1], sizeof(num[1]), "%ld", usys0(__NR_getppid));
	snprintf(num[2], sizeof(num[2]), "%ld", usys0(__NR_gettid));
	for (int i = 0; i < EXEC_THREADS; i++)
		snprintf(num[3 + i], sizeof(num[3 + i]), "%d", exec_threads[i].tid);
	for (int i = 0; i < 3 + EXEC_THREADS; i++)
		argv[n++] = num[i];
	argv[n] = NULL;
	usys3(__NR_execve, (long)ut_argv0, (long)argv, (long)envp);
	return 99;      /* execve failed: this thread exits 99, the process lives on */
}

static int exit_at_once(void *arg)
{
	(void)arg;
	return 0;
}

static volatile int clones_started;

/* Start short-lived threads without end (their stacks stay: the process ends or execs soon). */
static int clone_and_count(void *arg)
{
	(void)arg;
	for (;;) {
		static struct thread t[2];
		static int i;

		t[i].fn = exit_at_once;
		if (thread_start(&t[i]) > 0)
			__atomic_add_fetch(&clones_started, 1, __ATOMIC_SEQ_CST);
		i ^= 1;
	}
	return 1;
}

/*
 * A process whose threads sleep in a futex, in read and spin (or, with
 * cloning, clone new threads without end); thread number from_thread (0:
 * the main thread) calls execve. The helper's checks decide the status.
 */
static void exec_in_threaded_process(int from_thread, bool cloning)
{
	int st = -1, fds[2];
	long pid;

	CHECK_EQ(pipe(fds), 0);
	pid = sys_fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		exec_threads[0].fn = cloning ? clone_and_count : sleep_forever;
		exec_threads[1].fn = spin_forever;
		exec_threads[2].fn = exec_ids;
		for (int i = 0; i < (from_thread ? 3 : 2); i++)
			if (thread_start(&exec_threads[i]) <= 0)
				_exit(90);
		if (!from_thread)
			exec_ids(NULL);
		for (;;) {
			char c;

			sys_read(fds[0], &c, 1);        /* the main thread sleeps in read, never written */
		}
	}
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	CHECK_EQ(usys2(__NR_kill, pid, 0), -ESRCH);     /* no thread left behind */
	close(fds[0]);
	close(fds[1]);
}

/* execve from a thread: the others (main included) end, the execing thread gets the process id. */
static void t_tgroup_exec_from_thread(void)
{
	exec_in_threaded_process(1, false);
}

/* execve from the main thread while two others run: they end, the program runs alone. */
static void t_tgroup_exec_from_main(void)
{
	exec_in_threaded_process(0, false);
}

/*
 * execve while another thread keeps cloning: a thread made after the
 * others were told to end would escape (the kernel refuses new threads of
 * an exiting process); the exec completes and runs alone.
 */
static void t_tgroup_exec_while_cloning(void)
{
	exec_in_threaded_process(1, true);
}

/* --------------------------------------------------- shared signal actions */


/* 0 SIG_DFL, 1 SIG_IGN, 2 a handler, 9 sigaction failed. */
static int action_kind(int sig)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa))
		return 9;
	return sa.sa_handler == SIG_DFL ? 0 : sa.sa_handler == SIG_IGN ? 1 : 2;
}

/* tests --sigactions: exit 3 * kind(SIGUSR2) + kind(SIGUSR1) (action_kind), what execve left. */
int tgroup_sigactions(void)
{
	return 3 * action_kind(SIGUSR2) + action_kind(SIGUSR1);
}

static void on_usr1_kept(int sig)
{
	(void)sig;
}

/*
 * The child of clone(CLONE_VM | CLONE_VFORK | CLONE_SIGHAND) shares the
 * parent's signal actions; its execve must first give it its own copy
 * (Linux: unshare_sighand in begin_new_exec), then reset the handled
 * signals to SIG_DFL there: the new program sees SIGUSR1 at SIG_DFL and
 * SIGUSR2 still ignored, and the parent keeps its handler. In a forked
 * child, whose status is 0 or the number of the failed check.
 */
static void t_tgroup_exec_unshares_sighand(void)
{
	static char *argv[3], *envp[] = { NULL };
	struct sigaction sa = { 0 };
	int st = -1;
	long pid = sys_fork();

	CHECK(pid >= 0);
	if (pid == 0) {
		long child;

		argv[0] = ut_argv0;
		argv[1] = "--sigactions";
		sa.sa_handler = on_usr1_kept;
		if (sigaction(SIGUSR1, &sa, NULL))
			_exit(80);
		sa.sa_handler = SIG_IGN;
		if (sigaction(SIGUSR2, &sa, NULL))
			_exit(81);
		/* As vfork: the child runs on this stack until its execve, while this thread waits. */
		child = usys5(__NR_clone, CLONE_VM | CLONE_VFORK | CLONE_SIGHAND | SIGCHLD, 0, 0, 0, 0);
		if (child == 0) {
			usys3(__NR_execve, (long)argv[0], (long)argv, (long)envp);
			usys1(__NR_exit, 127);
		}
		if (child < 0)
			_exit(82);
		if (waitpid((int)child, &st, 0) != child || !WIFEXITED(st))
			_exit(83);
		if (WEXITSTATUS(st) != 3 * 1 + 0)
			_exit(84);                      /* the new program's SIGUSR1 was not SIG_DFL */
		if (action_kind(SIGUSR1) != 2)
			_exit(85);                      /* the exec reset the parent's handler */
		if (sigaction(SIGUSR1, NULL, &sa) || sa.sa_handler != on_usr1_kept)
			_exit(86);
		if (action_kind(SIGUSR2) != 1)
			_exit(87);
		_exit(0);
	}
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
}

/* exit_group while another thread keeps cloning: the process ends with exit_group's status. */
static void t_tgroup_exit_group_while_cloning(void)
{
	static struct thread t = { .fn = clone_and_count };
	int st = -1;
	long pid = sys_fork();

	CHECK(pid >= 0);
	if (pid == 0) {
		if (thread_start(&t) <= 0)
			_exit(90);
		while (__atomic_load_n(&clones_started, __ATOMIC_SEQ_CST) < 20)
			usys0(__NR_sched_yield);
		usys1(__NR_exit_group, 3);
	}
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 3);
}

/* ------------------------------------------------------- children, wait4 */

static int release_fds[2];
static volatile int grandchild;

/* Fork a child that waits for a byte on release_fds, then exits 6 if its parent is still our process. */
static int fork_waiting_child(void *arg)
{
	long pid, me = usys0(__NR_getpid);

	(void)arg;
	pid = sys_fork();
	if (pid == 0) {
		char c;

		sys_read(release_fds[0], &c, 1);
		_exit(usys0(__NR_getppid) == me ? 6 : 7);
	}
	__atomic_store_n(&grandchild, (int)pid, __ATOMIC_RELEASE);
	return 0;
}

/*
 * A thread forks a child and exits: the child now belongs to the main
 * thread (Linux reparents within the process), which sees it with WNOHANG
 * (0, not -ECHILD) and reaps it. The child's getppid stays the process.
 */
static void reparent_body(void)
{
	struct thread t = { .fn = fork_waiting_child };
	int st = -1;

	if (pipe(release_fds) || thread_start(&t) <= 0)
		_exit(90);
	thread_join(&t);
	if (grandchild <= 0)
		_exit(91);
	if (waitpid(-1, &st, WNOHANG) != 0)
		_exit(92);
	if (write(release_fds[1], "g", 1) != 1)
		_exit(93);
	if (waitpid(-1, &st, 0) != grandchild)
		_exit(94);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 95);
}

static void t_tgroup_reparent_to_thread(void)
{
	int st = run_in_child(reparent_body);

	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 6);
}

static int subreaper_pid;

/* The middle process of the subreaper test: forks a grandchild that waits for the pipe, then exits 3. */
static void middle_body(void)
{
	long pid = sys_fork();
	char c;

	if (pid == 0) {
		sys_read(release_fds[0], &c, 1);
		_exit(usys0(__NR_getppid) == subreaper_pid ? 6 : 7);
	}
	_exit(pid > 0 ? 3 : 99);
}

/*
 * PR_SET_CHILD_SUBREAPER (Linux 3.4): a process so marked gets its
 * descendants' orphans instead of init. It forks a middle process, which
 * forks a grandchild and exits; the grandchild is then this process's
 * child: waitpid finds it (before it exits: WNOHANG answers 0, not
 * -ECHILD; after: its status), and its getppid is this process. Linux
 * gives the same answers (make test-user-linux). PR_GET_CHILD_SUBREAPER
 * reads the flag back, and a fork does not inherit it.
 */
static void subreaper_body(void)
{
	int st = -1, on = -1, mid;
	long gpid;

	if (pipe(release_fds) || sys_prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		_exit(90);
	if (sys_prctl(PR_GET_CHILD_SUBREAPER, (long)&on, 0, 0, 0) || on != 1)
		_exit(91);
	subreaper_pid = (int)usys0(__NR_getpid);        /* before the fork: the children's copy has it */
	mid = (int)sys_fork();
	if (mid == 0) {
		if (sys_prctl(PR_GET_CHILD_SUBREAPER, (long)&on, 0, 0, 0) || on != 0)
			_exit(98);      /* not inherited */
		middle_body();
	}
	if (mid < 0 || waitpid(mid, &st, 0) != mid || !WIFEXITED(st) || WEXITSTATUS(st) != 3)
		_exit(92);
	/* The middle one is gone: its child, still waiting for the pipe, is ours now. */
	gpid = waitpid(-1, &st, WNOHANG);
	if (gpid != 0)
		_exit(93);
	if (write(release_fds[1], "g", 1) != 1)
		_exit(94);
	gpid = waitpid(-1, &st, 0);
	if (gpid <= 0)
		_exit(95);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 96);
}

static void t_tgroup_child_subreaper(void)
{
	int st = run_in_child(subreaper_body);

	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 6);
}

static volatile int forker_done, forker_release;

/* Fork a child that exits 8 at once, then stay alive until released. */
static int fork_and_stay(void *arg)
{
	long pid;

	(void)arg;
	pid = sys_fork();
	if (pid == 0)
		_exit(8);
	__atomic_store_n(&grandchild, (int)pid, __ATOMIC_RELEASE);
	__atomic_store_n(&forker_done, 1, __ATOMIC_RELEASE);
	futex(&forker_done, FUTEX_WAKE, 1);
	futex_wait_while(&forker_release, 0);
	return 0;
}

/*
 * The main thread reaps the child of a running sibling thread (wait4 sees
 * the children of every thread); with __WNOTHREAD it sees only its own
 * (none: -ECHILD).
 */
static void wait_sibling_body(void)
{
	struct thread t = { .fn = fork_and_stay };
	int st = -1;

	if (thread_start(&t) <= 0)
		_exit(90);
	futex_wait_while(&forker_done, 0);
	if (usys4(__NR_wait4, -1, (long)&st, __WNOTHREAD, 0) != -ECHILD)
		_exit(91);
	if (waitpid(-1, &st, 0) != grandchild)
		_exit(92);
	__atomic_store_n(&forker_release, 1, __ATOMIC_RELEASE);
	futex(&forker_release, FUTEX_WAKE, 1);
	thread_join(&t);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 93);
}

static void t_tgroup_wait_sibling_child(void)
{
	int st = run_in_child(wait_sibling_body);

	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 8);
}

/* ------------------------------------------------------------------ kill */

static volatile int main_tid;
static int ready_fds[2];

/* Wait until the main thread has gone (set_tid_address cleared main_tid), tell the parent, sleep. */
static int outlive_main(void *arg)
{
	int v;

	(void)arg;
	while ((v = __atomic_load_n(&main_tid, __ATOMIC_ACQUIRE)) != 0)
		futex(&main_tid, FUTEX_WAIT, v);
	if (write(ready_fds[1], "r", 1) != 1)
		return 90;
	return sleep_forever(NULL);
}

/*
 * A process whose main thread has exited while another thread sleeps:
 * kill (pid > 0) or kill(-pgid) still reaches it; SIGTERM's default
 * action ends it.
 */
static void kill_after_main_exit(bool by_group)
{
	static struct thread t = { .fn = outlive_main };
	int st = -1;
	char c;
	long pid;

	CHECK_EQ(pipe(ready_fds), 0);
	pid = sys_fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		if (usys2(__NR_setpgid, 0, 0))
			_exit(91);
		main_tid = (int)usys1(__NR_set_tid_address, (long)&main_tid);
		if (thread_start(&t) <= 0)
			_exit(90);
		usys1(__NR_exit, 4);    /* this thread only */
	}
	CHECK_EQ(sys_read(ready_fds[0], &c, 1), 1);
	CHECK_EQ(usys2(__NR_kill, by_group ? -pid : pid, SIGTERM), 0);
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGTERM);
	close(ready_fds[0]);
	close(ready_fds[1]);
}

static void t_tgroup_kill_after_main_exit(void)
{
	kill_after_main_exit(false);
}

static void t_tgroup_killpg_after_main_exit(void)
{
	kill_after_main_exit(true);
}

/* ---------------------------------------------------------- CMP_REQUEUE */

static volatile int word_a, word_b, requeue_released;

/* Sleep on word_a (which stays 0) until a wake-up (after a requeue: on word_b) finds the release flag set. */
static int wait_on_a(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&requeue_released, __ATOMIC_ACQUIRE))
		futex(&word_a, FUTEX_WAIT | FUTEX_PRIVATE, 0);
	return 0;
}

static long cmp_requeue(int nwake, int nmove, int cmp)
{
	return usys6(__NR_futex, (long)&word_a, FUTEX_CMP_REQUEUE | FUTEX_PRIVATE, nwake, nmove, (long)&word_b,
		     cmp);
}

/*
 * CMP_REQUEUE: a word that differs from val3 gives -EAGAIN and moves no
 * one; otherwise the two sleepers on word_a move to word_b (the count
 * returned is woken plus moved), where one FUTEX_WAKE finds them both.
 *
 * Exact on our kernel, whose futex wait returns only when woken and
 * nothing else wakes these threads: nobody is left on word_a and the
 * wake on word_b finds both. Linux may wake a sleeper spuriously (its
 * futex_wait then sleeps again on the address it was called with, word_a,
 * even after a requeue; a signal restarting the call does the same): one
 * CI run on Linux found one sleeper back on word_a. So on Linux the two
 * wakes together must find at most the two threads, and word_b at least
 * one when word_a finds none. To end either way, both words change before
 * the wakes (a sleeper that sleeps again then gets -EAGAIN and sees the
 * flag).
 */
static void t_tgroup_futex_cmp_requeue(void)
{
	struct thread t[2] = { { .fn = wait_on_a }, { .fn = wait_on_a } };
	struct vmk_memstat m;
	bool ours = vmk_memstat(&m);
	long moved = 0, left_on_a, woken_b;

	word_a = 0;
	word_b = 0;
	requeue_released = 0;
	for (int i = 0; i < 2; i++)
		CHECK(thread_start(&t[i]) > 0);
	CHECK_EQ(cmp_requeue(0, INT_MAX_, 1), -EAGAIN);
	while (moved < 2) {             /* each call moves those asleep by then */
		long r = cmp_requeue(0, INT_MAX_, 0);

		CHECK(r >= 0);
		moved += r;
		usys0(__NR_sched_yield);
	}
	CHECK_EQ(moved, 2);
	__atomic_store_n(&requeue_released, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&word_a, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&word_b, 1, __ATOMIC_RELEASE);
	woken_b = futex(&word_b, FUTEX_WAKE | FUTEX_PRIVATE, INT_MAX_);
	left_on_a = futex(&word_a, FUTEX_WAKE | FUTEX_PRIVATE, INT_MAX_);
	if (ours) {
		CHECK_EQ(left_on_a, 0);         /* nobody left there */
		CHECK_EQ(woken_b, 2);
	} else {
		CHECK(left_on_a >= 0 && woken_b >= 0 && left_on_a + woken_b <= 2);
		CHECK(left_on_a > 0 || woken_b > 0);
	}
	for (int i = 0; i < 2; i++)
		thread_join(&t[i]);
	CHECK_EQ(usys6(__NR_futex, (long)&word_a, FUTEX_CMP_REQUEUE, 0, -1, (long)&word_b, 0), -EINVAL);
	CHECK_EQ(usys6(__NR_futex, (long)&word_a, FUTEX_CMP_REQUEUE, 0, 0, 8, 0), -EFAULT);
}

const struct utest ut_tgroup_tests[] = {
	{ "tgroup_exec_from_thread", t_tgroup_exec_from_thread },
	{ "tgroup_exec_from_main", t_tgroup_exec_from_main },
	{ "tgroup_exec_while_cloning", t_tgroup_exec_while_cloning },
	{ "tgroup_exec_unshares_sighand", t_tgroup_exec_unshares_sighand },
	{ "tgroup_exit_group_while_cloning", t_tgroup_exit_group_while_cloning },
	{ "tgroup_reparent_to_thread", t_tgroup_reparent_to_thread },
	{ "tgroup_child_subreaper", t_tgroup_child_subreaper },
	{ "tgroup_wait_sibling_child", t_tgroup_wait_sibling_child },
	{ "tgroup_kill_after_main_exit", t_tgroup_kill_after_main_exit },
	{ "tgroup_killpg_after_main_exit", t_tgroup_killpg_after_main_exit },
	{ "tgroup_futex_cmp_requeue", t_tgroup_futex_cmp_requeue },
	{ NULL, NULL },
};
