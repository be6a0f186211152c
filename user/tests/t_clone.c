/*
 * Process creation and its companions as glibc and Go use them: clone with
 * fork's flags (SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID),
 * vfork, SIGCHLD with its siginfo, futex WAIT/WAKE on one thread,
 * set_robust_list, rseq, clone3. Expected values are Linux 6.18's.
 */
#include "utests.h"
#include "uthread.h"
#include "uclone.h"

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_PRIVATE 128
#define ETIMEDOUT 110
#define CLD_EXITED 1
#define CLD_KILLED 2

/*
 * Both sides of a fork-like clone that asked for CLONE_PARENT_SETTID into
 * *ptid and CLONE_CHILD_SETTID into *child_tid: the child reports through
 * a shared page whether its copy of child_tid holds its tid and exits
 * code; the parent checks its own words and the child's report.
 */
static void check_settid_fork(long pid, const int *ptid, volatile int *child_tid, int *shared, int code)
{
	int st;

	CHECK(pid >= 0);
	if (pid == 0) {
		/* the kernel wrote our tid into our copy of child_tid before we ran */
		shared[0] = *child_tid == getpid() ? 1 : 0;
		_exit(code);
	}
	CHECK_EQ(*ptid, pid);                   /* CLONE_PARENT_SETTID: in the parent's memory */
	CHECK_EQ(*child_tid, 0);                /* CHILD_SETTID wrote the child's copy only */
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), code);
	CHECK_EQ(shared[0], 1);
}

/* glibc's fork: clone(SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID, 0, NULL, &tid, 0). */
static void t_clone_fork_flags(void)
{
	static volatile int child_tid;
	int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int ptid = 0;
	long pid;

	CHECK(shared != MAP_FAILED);
	shared[0] = -1;
	pid = usys5(__NR_clone, SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | CLONE_PARENT_SETTID,
		    0, (long)&ptid, (long)&child_tid, 0);
	check_settid_fork(pid, &ptid, &child_tid, shared, 5);
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

/* clone3's struct clone_args, version 2 (88 bytes); version 0 is the first 64. */
struct clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	uint64_t set_tid, set_tid_size, cgroup;
};

static long clone3(const void *args, unsigned long size)
{
	return usys2(__NR_clone3, (long)args, (long)size);
}

/*
 * clone3 as a fork: the exit signal in its own field, both tid words
 * written as clone does, and a size past the struct accepted when the
 * bytes past it are zero (copy_struct_from_user).
 */
static void t_clone3_fork(void)
{
	static volatile int child_tid;
	int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t buf[16] = { 0 };       /* 128 bytes: the struct and 40 zero bytes after it */
	struct clone_args *a = (struct clone_args *)buf;
	int ptid = 0;

	CHECK(shared != MAP_FAILED);
	shared[0] = -1;
	a->flags = CLONE_CHILD_SETTID | CLONE_PARENT_SETTID;
	a->exit_signal = SIGCHLD;
	a->child_tid = (uint64_t)&child_tid;
	a->parent_tid = (uint64_t)&ptid;
	check_settid_fork(clone3(buf, sizeof(buf)), &ptid, &child_tid, shared, 7);
}

/* clone3's argument checks (copy_clone_args_from_user, clone3_args_valid): nothing is created. */
static void t_clone3_bad(void)
{
	uint64_t buf[16] = { 0 };
	struct clone_args *a = (struct clone_args *)buf;
	static char stack[4096];

	CHECK_EQ(clone3(buf, 63), -EINVAL);                    /* under version 0 */
	CHECK_EQ(clone3(buf, 4097), -E2BIG);                   /* over a page */
	CHECK_EQ(clone3((void *)0x10, 64), -EFAULT);
	((char *)buf)[100] = 1;                                /* a nonzero byte past the struct */
	CHECK_EQ(clone3(buf, sizeof(buf)), -E2BIG);
	((char *)buf)[100] = 0;
	a->exit_signal = 65;                                   /* past the last signal */
	CHECK_EQ(clone3(a, 64), -EINVAL);
	a->exit_signal = 0;
	a->flags = SIGCHLD;                                    /* the CSIGNAL bits are not for clone3 */
	CHECK_EQ(clone3(a, 64), -EINVAL);
	a->flags = CLONE_DETACHED;
	CHECK_EQ(clone3(a, 64), -EINVAL);
	a->flags = 1UL << 40;                                  /* an unknown flag */
	CHECK_EQ(clone3(a, 64), -EINVAL);
	a->flags = CLONE_VM | CLONE_SIGHAND | CLONE_CLEAR_SIGHAND;
	CHECK_EQ(clone3(a, 64), -EINVAL);                      /* share the actions and clear them */
	a->flags = CLONE_VM | CLONE_SIGHAND | CLONE_THREAD;
	a->exit_signal = SIGCHLD;                              /* a thread has no exit signal */
	CHECK_EQ(clone3(a, 64), -EINVAL);
	a->flags = 0;
	a->stack = (uint64_t)stack;                            /* a stack needs a size */
	CHECK_EQ(clone3(a, 64), -EINVAL);
	a->stack = 0;
	a->stack_size = sizeof(stack);                         /* and a size a stack */
	CHECK_EQ(clone3(a, 64), -EINVAL);
	a->stack = 0x7ffffffff000UL - 4096;                    /* past the top of user space */
	a->stack_size = 8192;
	CHECK_EQ(clone3(a, 64), -EINVAL);
	a->stack = a->stack_size = 0;
	a->set_tid_size = 1;                                   /* a set_tid count without the array */
	CHECK_EQ(clone3(buf, 88), -EINVAL);
}

static int clear_sighand_child(void)
{
	struct sigaction sa;

	if (sigaction(SIGUSR1, NULL, &sa) || sa.sa_handler != SIG_DFL || sa.sa_flags)
		return 1;
	if (sigaction(SIGUSR2, NULL, &sa) || sa.sa_handler != SIG_IGN)
		return 2;
	return 0;
}

static void on_usr1_unused(int sig)
{
	(void)sig;
}

/* CLONE_CLEAR_SIGHAND: the child's handlers are back to SIG_DFL, ignored signals stay ignored; the parent's stay. */
static void t_clone3_clear_sighand(void)
{
	struct clone_args a = { .flags = CLONE_CLEAR_SIGHAND, .exit_signal = SIGCHLD };
	struct sigaction sa;
	int st;
	long pid;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1_unused;
	sa.sa_flags = SA_RESTART;
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	sa.sa_handler = SIG_IGN;
	CHECK_EQ(sigaction(SIGUSR2, &sa, NULL), 0);
	pid = clone3(&a, sizeof(a));
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(clear_sighand_child());
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	CHECK_EQ(sigaction(SIGUSR1, NULL, &sa), 0);
	CHECK(sa.sa_handler == on_usr1_unused);
}

static volatile uint64_t clone3_thread_sp;

static int clone3_thread_fn(void *arg)
{
	volatile int local = 0;

	clone3_thread_sp = (uint64_t)&local;
	return (int)(long)arg;
}

/* clone3 a thread running fn(arg) on the stack a describes; fn's value goes to exit (this thread only). */
static long clone3_thread(struct clone_args *a, int (*fn)(void *), void *arg)
{
	register long r12 __asm__("r12") = (long)fn;       /* callee-saved: the child has them too */
	register long r13 __asm__("r13") = (long)arg;
	long ret;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "mov %%r13, %%rdi\n\t"
			 "call *%%r12\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov $60, %%eax\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "0"((long)__NR_clone3), "D"(a), "S"(sizeof(*a)), "r"(r12), "r"(r13)
			 : "rcx", "r11", "memory");
	return ret;
}

/*
 * A thread made by clone3 as glibc 2.34+ makes one: the stack given as base
 * and size, so the thread starts at base + size (x86 stacks grow down) and
 * its frames lie in the block; joined through the child-tid word.
 */
static void t_clone3_thread(void)
{
	struct thread t = { 0 };
	struct clone_args a = {
		.flags = CLONE_VM | 0x200 /* FS */ | 0x400 /* FILES */ | CLONE_SIGHAND | CLONE_THREAD |
			 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID,
		.stack_size = THREAD_STACK_SIZE,
	};
	long tid;

	t.stack = mmap(NULL, THREAD_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(t.stack != MAP_FAILED);
	a.stack = (uint64_t)t.stack;
	a.parent_tid = a.child_tid = (uint64_t)&t.tid;
	tid = clone3_thread(&a, clone3_thread_fn, NULL);
	CHECK(tid > 0);
	CHECK(tid != getpid());
	thread_join(&t);                /* munmaps the stack too */
	CHECK(clone3_thread_sp >= a.stack + a.stack_size - 4096);
	CHECK(clone3_thread_sp < a.stack + a.stack_size);
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
	{ "clone3_fork", t_clone3_fork },
	{ "clone3_bad", t_clone3_bad },
	{ "clone3_clear_sighand", t_clone3_clear_sighand },
	{ "clone3_thread", t_clone3_thread },
	{ NULL, NULL },
};
