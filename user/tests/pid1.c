/*
 * Helpers meant to run as pid 1 under tools/run (tools/run-check, and
 * tools/pid1-stress, which repeats them): the end of init is a path of its
 * own in the kernel (kernel/task/init.c), which no test in a forked child reaches.
 *
 *   tests --orphans-at-exit [N] [MS]  start N children (default 16) that map and unmap memory
 *                           in a loop until their parent is gone, and a while after (each
 *                           a millisecond more than the one before), then exit; once they
 *                           are all running, start 3 threads that map and unmap too, and
 *                           exit 0 (exit_group) after MS milliseconds (default 200): the
 *                           orphans and threads are still exiting while the kernel checks
 *                           every address space at init's end (kernel/task/init.c)
 *   tests --exec-from-thread  a second thread execs "tests --exit 7" while the main thread
 *                           waits for it: the run must end with status 7 (Go's syscall.Exec)
 *   tests --init-signals    as pid 1, send itself SIGTERM, SIGKILL, SIGUSR1 (kill(1), kill(0),
 *                           tgkill, from a child too, one while blocked) and exit 0: kill(2):
 *                           "the only signals that can be sent to process ID 1, the init
 *                           process, are those for which init has explicitly installed signal
 *                           handlers"; a handler it installed runs (status 4 if not)
 */
#include "uthread.h"

#define ORPHAN_VMAS 512

/*
 * Many VMAs (pages of alternating protection: no merging), so that the
 * kernel's check of this address space at init's end takes a while.
 */
static void many_vmas(void)
{
	char *p = (char *)sys_mmap(0, ORPHAN_VMAS * 4096UL, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if ((long)p < 0)
		_exit(3);
	for (int i = 0; i < ORPHAN_VMAS; i += 2)
		sys_mprotect((unsigned long)p + i * 4096UL, 4096, PROT_READ);
}

static long now_us(void)
{
	long ts[2] = { 0, 0 };

	usys2(__NR_clock_gettime, 1, (long)ts);
	return ts[0] * 1000000 + ts[1] / 1000;
}

/* Off CPU 0, whose idle task is the kernel's boot context: it then checks as soon as init ends. */
static void leave_cpu0(void)
{
	unsigned long not_cpu0 = ~1UL;

	sys_sched_setaffinity(0, sizeof(not_cpu0), &not_cpu0);
}

/* Map 16 pages, touch them, unmap them. */
static void map_round(void)
{
	char *p = (char *)sys_mmap(0, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if ((long)p < 0)
		_exit(3);
	for (int i = 0; i < 16; i++)
		p[i * 4096] = 1;
	sys_munmap((unsigned long)p, 16 * 4096);
}

/*
 * Map rounds until the parent (ppid) is gone, then spin for `after` more
 * microseconds (the orphans end one after another) and exit.
 */
static void orphan_loop(long ppid, long after, volatile int *ready)
{
	leave_cpu0();
	many_vmas();
	__atomic_add_fetch(ready, 1, __ATOMIC_SEQ_CST);
	while (usys0(__NR_getppid) == ppid)
		map_round();
	/* then no mmap_lock taken: the kernel's check must not sleep on it (which turned interrupts on) */
	for (long gone = now_us(); now_us() - gone < after;)
		;
	_exit(0);
}

/* A thread of init that maps and unmaps until exit_group ends it. */
static int map_loop(void *arg)
{
	(void)arg;
	leave_cpu0();
	for (;;)
		map_round();
	return 0;
}

#define INIT_THREADS 3

static int orphans_at_exit(int argc, char **argv)
{
	long n = argc > 2 ? strtol(argv[2], NULL, 0) : 16, ms = argc > 3 ? strtol(argv[3], NULL, 0) : 200;
	long self = usys0(__NR_getpid);
	volatile int *ready = (volatile int *)sys_mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if ((long)ready < 0)
		return 1;
	for (long i = 0; i < n; i++) {
		int pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0)
			orphan_loop(self, i * 1000, ready);
	}
	while (__atomic_load_n(ready, __ATOMIC_SEQ_CST) < n)
		msleep(10);
	for (int i = 0; i < INIT_THREADS; i++) {
		static struct thread t[INIT_THREADS];

		t[i].fn = map_loop;
		if (thread_start(&t[i]) <= 0)
			return 1;
	}
	msleep(ms);
	return 0;
}

static int exec_exit7(void *arg)
{
	char *argv[] = { ut_argv0, "--exit", "7", NULL };
	char *envp[] = { NULL };

	(void)arg;
	usys3(__NR_execve, (long)ut_argv0, (long)argv, (long)envp);
	return 99;      /* execve failed: this thread exits 99, the process lives on */
}

static int exec_from_thread(void)
{
	static struct thread t = { .fn = exec_exit7 };

	if (thread_start(&t) <= 0)
		return 1;
	thread_join(&t);        /* the execve ends this thread and this one */
	return 98;              /* the execve failed: the join returned */
}

static volatile int usr2_seen;

static void on_usr2(int sig)
{
	(void)sig;
	usr2_seen++;
}

/* Status 0: every signal init left at SIG_DFL was dropped; the handled one ran. */
static int init_signals(void)
{
	struct sigaction sa;
	sigset_t term = sigmask_of(SIGTERM), none = 0;
	int pid, st;

	if (getpid() != 1)
		return 2;
	kill(1, SIGTERM);
	kill(0, SIGTERM);
	kill(1, SIGKILL);
	kill(0, SIGQUIT);
	usys3(__NR_tgkill, 1, 1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &term, NULL);
	kill(1, SIGTERM);
	sigprocmask(SIG_SETMASK, &none, NULL);
	pid = fork();
	if (pid == 0) {
		kill(1, SIGTERM);
		kill(1, SIGKILL);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
		return 3;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	kill(1, SIGUSR2);
	return usr2_seen == 1 ? 0 : 4;
}

int pid1_helper(int argc, char **argv)
{
	if (strcmp(argv[1], "--init-signals") == 0)
		return init_signals();
	if (strcmp(argv[1], "--orphans-at-exit") == 0)
		return orphans_at_exit(argc, argv);
	if (strcmp(argv[1], "--exec-from-thread") == 0)
		return exec_from_thread();
	return -1;
}
