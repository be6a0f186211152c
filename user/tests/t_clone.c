/*
 * Process creation and its companions as glibc and Go use them: clone with
 * fork's flags (SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID),
 * vfork, SIGCHLD with its siginfo, futex WAIT/WAKE on one thread,
 * set_robust_list, rseq. Expected values are Linux 6.18's.
 */
#include "utests.h"

#define CLONE_VM 0x100
#define CLONE_SIGHAND 0x800
#define CLONE_THREAD 0x10000
#define CLONE_PARENT_SETTID 0x100000
#define CLONE_CHILD_CLEARTID 0x200000
#define CLONE_CHILD_SETTID 0x1000000
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_PRIVATE 128
#define ETIMEDOUT 110
#define CLD_EXITED 1
#define CLD_KILLED 2

/* glibc's fork: clone(SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID, 0, NULL, &tid, 0). */
static void t_clone_fork_flags(void)
{
	static volatile int child_tid;
	int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int ptid = 0, st;
	long pid;

	CHECK(shared != MAP_FAILED);
	shared[0] = -1;
	pid = usys5(__NR_clone, SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | CLONE_PARENT_SETTID,
		    0, (long)&ptid, (long)&child_tid, 0);
	CHECK(pid >= 0);
	if (pid == 0) {
		/* the kernel wrote our tid into our copy of child_tid before we ran */
		shared[0] = child_tid == getpid() ? 1 : 0;
		_exit(5);
	}
	CHECK_EQ(ptid, pid);                    /* CLONE_PARENT_SETTID: in the parent's memory */
	CHECK_EQ(child_tid, 0);                 /* CHILD_SETTID wrote the child's copy only */
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 5);
	CHECK_EQ(shared[0], 1);
}

/*
 * CLONE_CHILD_CLEARTID: exit clears the address only when the exiting
 * task's memory is shared with another task (Linux's mm_release: threads);
 * a fork child's own copy is left alone, as a shared page shows.
 */
static void t_clone_cleartid(void)
{
	int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int st;
	long pid;

	CHECK(shared != MAP_FAILED);
	shared[1] = 12345;
	pid = usys5(__NR_clone, SIGCHLD | CLONE_CHILD_CLEARTID, 0, 0, (long)&shared[1], 0);
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(0);
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK_EQ(shared[1], 12345);
}

/* Bad flag combinations: Linux's -EINVAL (the legacy clone does not check the exit signal's range). */
static void t_clone_bad(void)
{
	CHECK_EQ(usys5(__NR_clone, CLONE_SIGHAND | SIGCHLD, 0, 0, 0, 0), -EINVAL);   /* SIGHAND needs VM */
	CHECK_EQ(usys5(__NR_clone, CLONE_THREAD | SIGCHLD, 0, 0, 0, 0), -EINVAL);    /* THREAD needs SIGHAND */
}

/* vfork: the child borrows the parent's memory until it exits; the parent waits until then. */
static void t_vfork(void)
{
	static volatile int flag;
	long pid;
	int st;

	flag = 0;
	pid = usys0(__NR_vfork);
	if (pid == 0) {
		flag = 42;              /* the parent's memory */
		usys1(__NR_exit, 3);
	}
	CHECK(pid > 0);
	CHECK_EQ(flag, 42);             /* the child ran (and exited) before vfork returned */
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK_EQ(WEXITSTATUS(st), 3);
}

/* vfork then execve: the parent goes on once the child's exec succeeded. */
static void t_vfork_exec(void)
{
	char *argv[] = { ut_argv0, "--exit", "9", NULL };
	long pid;
	int st;

	pid = usys0(__NR_vfork);
	if (pid == 0) {
		usys3(__NR_execve, (long)ut_argv0, (long)argv, 0);
		usys1(__NR_exit, 127);
	}
	CHECK(pid > 0);
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 9);
}

static volatile int chld_count, chld_pid, chld_status, chld_code;

static void on_chld(int sig, siginfo_t *si, void *uc)
{
	int *w = (int *)si;             /* si_pid at byte 16, si_status at 24 */

	(void)uc;
	chld_count++;
	chld_code = si->si_code;
	chld_pid = w[4];
	chld_status = w[6];
	(void)sig;
}

/* SIGCHLD reaches the parent when a child exits, with si_pid, si_code CLD_EXITED/CLD_KILLED, si_status. */
static void t_sigchld(void)
{
	struct sigaction sa;
	sigset_t block = sigmask_of(SIGCHLD), none = 0;
	int pid, st;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_chld;
	sa.sa_flags = SA_SIGINFO;
	CHECK_EQ(sigaction(SIGCHLD, &sa, NULL), 0);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &block, NULL), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(7);
	CHECK_EQ(waitpid(pid, &st, 0), pid);    /* reaped; SIGCHLD stays pending while blocked */
	CHECK_EQ(chld_count, 0);
	CHECK_EQ(sigprocmask(SIG_SETMASK, &none, NULL), 0);
	CHECK_EQ(chld_count, 1);
	CHECK_EQ(chld_pid, pid);
	CHECK_EQ(chld_code, CLD_EXITED);
	CHECK_EQ(chld_status, 7);
	/* killed by a signal: CLD_KILLED with the signal number */
	CHECK_EQ(sigprocmask(SIG_BLOCK, &block, NULL), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		for (;;)
			usys0(__NR_sched_yield);
	CHECK_EQ(kill(pid, SIGTERM), 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(sigprocmask(SIG_SETMASK, &none, NULL), 0);
	CHECK_EQ(chld_count, 2);
	CHECK_EQ(chld_code, CLD_KILLED);
	CHECK_EQ(chld_status, SIGTERM);
}

/* futex on one thread: WAKE with nobody waiting, WAIT's value check and timeout, bad input. */
static void t_futex(void)
{
	static int word = 5;
	long ts[2] = { 0, 20 * 1000000 };       /* 20 ms */
	long bad_ts[2] = { 0, 1000000000 };

	CHECK_EQ(usys3(__NR_futex, (long)&word, FUTEX_WAKE | FUTEX_PRIVATE, 1), 0);
	CHECK_EQ(usys3(__NR_futex, (long)&word, FUTEX_WAKE, 1), 0);
	CHECK_EQ(usys4(__NR_futex, (long)&word, FUTEX_WAIT | FUTEX_PRIVATE, 4, 0), -EAGAIN);
	CHECK_EQ(usys4(__NR_futex, (long)&word, FUTEX_WAIT | FUTEX_PRIVATE, 5, (long)ts), -ETIMEDOUT);
	CHECK_EQ(usys4(__NR_futex, (long)&word, FUTEX_WAIT | FUTEX_PRIVATE, 5, (long)bad_ts), -EINVAL);
	CHECK_EQ(usys4(__NR_futex, (long)&word + 1, FUTEX_WAIT | FUTEX_PRIVATE, 5, 0), -EINVAL);
	CHECK_EQ(usys3(__NR_futex, (long)&word + 2, FUTEX_WAKE | FUTEX_PRIVATE, 1), -EINVAL);
	CHECK_EQ(usys4(__NR_futex, 0x1000, FUTEX_WAIT | FUTEX_PRIVATE, 5, 0), -EFAULT);
	CHECK_EQ(usys4(__NR_futex, (long)0xffffffff81000000UL, FUTEX_WAIT, 5, 0), -EFAULT);
	CHECK_EQ(usys3(__NR_futex, (long)&word, 77 | FUTEX_PRIVATE, 1), -ENOSYS);
}

/* set_robust_list takes a 24-byte head; get_robust_list returns it. */
static void t_robust_list(void)
{
	long head[3] = { 0, 0, 0 }, got = 0, len = 0;

	head[0] = (long)head;
	CHECK_EQ(usys2(__NR_set_robust_list, (long)head, 24), 0);
	CHECK_EQ(usys2(__NR_set_robust_list, (long)head, 23), -EINVAL);
	CHECK_EQ(usys3(__NR_get_robust_list, 0, (long)&got, (long)&len), 0);
	CHECK_EQ(got, (long)head);
	CHECK_EQ(len, 24);
	CHECK_EQ(usys3(__NR_get_robust_list, 0, 0x10, (long)&len), -EFAULT);
	CHECK_EQ(usys3(__NR_get_robust_list, 999999, (long)&got, (long)&len), -ESRCH);
}

/* rseq: this kernel answers as Linux built without it (-ENOSYS); Linux registers it. */
static void t_rseq(void)
{
	static unsigned char area[32] __attribute__((aligned(32)));
	long r = usys4(__NR_rseq, (long)area, 32, 0, 0x53053053);

	if (on_vmkernel())
		CHECK_EQ(r, -ENOSYS);
	else
		CHECK(r == 0 || r == -EBUSY);   /* EBUSY: the host's libc registered one already */
}

const struct utest ut_clone_tests[] = {
	{ "clone_fork_flags", t_clone_fork_flags },
	{ "clone_cleartid", t_clone_cleartid },
	{ "clone_bad", t_clone_bad },
	{ "vfork", t_vfork },
	{ "vfork_exec", t_vfork_exec },
	{ "sigchld", t_sigchld },
	{ "futex", t_futex },
	{ "robust_list", t_robust_list },
	{ "rseq", t_rseq },
	{ NULL, NULL },
};
