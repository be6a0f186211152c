/*
 * Threads as pthread_create makes them (clone with CLONE_VM | CLONE_FS |
 * CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
 * CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID), joined through the
 * child-tid futex: thread ids, a futex mutex whose counter must come out
 * exact, exit_group while threads sleep in system calls, tgkill to one
 * thread, fork of a multi-threaded process, a shared futex across
 * processes through MAP_SHARED memory, robust futexes released at a
 * thread's exit, out of memory in one thread killing the process, the
 * memory of a threaded process free as soon as wait4 reports it.
 * Expected values are Linux's; nothing depends on timing
 * (waits are on futexes and flags, never on sleeps).
 */
#include "utests.h"
#include "uthread.h"

#define FUTEX_WAITERS 0x80000000U
#define FUTEX_OWNER_DIED 0x40000000U
#define MAX_THREADS 8

/* ---------------------------------------------------------------- ids */

static volatile int seen_pid, seen_tid, seen_ppid;

static int report_ids(void *arg)
{
	(void)arg;
	seen_pid = (int)usys0(__NR_getpid);
	seen_tid = (int)usys0(__NR_gettid);
	seen_ppid = (int)usys0(__NR_getppid);
	return 0;
}

/* A thread has the process id, its own thread id (the one clone returned), the same parent. */
static void t_thread_ids(void)
{
	struct thread t = { .fn = report_ids };
	long tid = thread_start(&t);

	CHECK(tid > 0);
	thread_join(&t);
	CHECK_EQ(seen_pid, usys0(__NR_getpid));
	CHECK_EQ(seen_tid, tid);
	CHECK(seen_tid != seen_pid);
	CHECK_EQ(seen_ppid, usys0(__NR_getppid));
	CHECK_EQ(t.tid, 0);
}

/* ----------------------------------------------------- futex mutex counter */

/* Drepper's mutex ("Futexes are tricky", mutex 2): 0 free, 1 locked, 2 locked with waiters. */
static volatile int mutex;
static volatile long counter;
#define ROUNDS 3000

static void lock(void)
{
	int c = 0;

	if (__atomic_compare_exchange_n(&mutex, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(&mutex, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		futex(&mutex, FUTEX_WAIT | FUTEX_PRIVATE, 2);
		c = __atomic_exchange_n(&mutex, 2, __ATOMIC_ACQUIRE);
	}
}

static void unlock(void)
{
	if (__atomic_fetch_sub(&mutex, 1, __ATOMIC_RELEASE) != 1) {
		__atomic_store_n(&mutex, 0, __ATOMIC_RELEASE);
		futex(&mutex, FUTEX_WAKE | FUTEX_PRIVATE, 1);
	}
}

static int count_up(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		lock();
		counter = counter + 1;  /* a plain read-modify-write: only the mutex keeps it exact */
		if (i % 64 == 0)
			usys0(__NR_sched_yield);     /* hand the lock over while others wait */
		unlock();
	}
	return 0;
}

/* Every increment under the futex mutex survives: no lost wake-up, no two holders. */
static void t_thread_futex_mutex(void)
{
	struct thread t[MAX_THREADS];

	counter = 0;
	for (int i = 0; i < MAX_THREADS; i++) {
		t[i] = (struct thread){ .fn = count_up };
		CHECK(thread_start(&t[i]) > 0);
	}
	count_up(NULL);
	for (int i = 0; i < MAX_THREADS; i++)
		thread_join(&t[i]);
	CHECK_EQ(counter, (long)(MAX_THREADS + 1) * ROUNDS);
	CHECK_EQ(mutex, 0);
}

/* ------------------------------------------------------------ exit_group */

static volatile int sleepers_ready, never;
static int pipe_fds[2];

static int sleep_in_futex(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&sleepers_ready, 1, __ATOMIC_SEQ_CST);
	for (;;)
		futex(&never, FUTEX_WAIT | FUTEX_PRIVATE, 0);
	return 1;
}

static int sleep_in_read(void *arg)
{
	char c;

	(void)arg;
	__atomic_add_fetch(&sleepers_ready, 1, __ATOMIC_SEQ_CST);
	sys_read(pipe_fds[0], &c, 1);   /* nobody ever writes */
	return 1;
}

static int spin_forever(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&sleepers_ready, 1, __ATOMIC_SEQ_CST);
	for (;;)
		__asm__ volatile("pause");
	return 1;
}

/* exit_group from the main thread ends threads asleep in futex and read, and one spinning in user mode. */
static void t_thread_exit_group(void)
{
	static struct thread t[3] = { { .fn = sleep_in_futex }, { .fn = sleep_in_read }, { .fn = spin_forever } };
	int st = 0;
	long pid;

	CHECK_EQ(pipe(pipe_fds), 0);
	pid = sys_fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		for (int i = 0; i < 3; i++)
			if (thread_start(&t[i]) <= 0)
				_exit(90);
		while (__atomic_load_n(&sleepers_ready, __ATOMIC_SEQ_CST) < 3)
			usys0(__NR_sched_yield);
		usys1(__NR_exit_group, 7);
	}
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 7);
	CHECK_EQ(usys1(__NR_kill, pid), -ESRCH);
}

/*
 * The main thread leaves with exit(2) first (set_tid_address: the kernel
 * clears main_tid and wakes the thread when it is gone); the last thread
 * then ends with exit(9): Linux reports 9 for the process.
 */
static volatile int main_tid;

static int exit_after_main(void *arg)
{
	int v;

	(void)arg;
	while ((v = __atomic_load_n(&main_tid, __ATOMIC_ACQUIRE)) != 0)
		futex(&main_tid, FUTEX_WAIT, v);
	return 9;
}

static void t_thread_main_exits_first(void)
{
	static struct thread t = { .fn = exit_after_main };
	int st = 0;
	long pid = sys_fork();

	CHECK(pid >= 0);
	if (pid == 0) {
		main_tid = (int)usys1(__NR_set_tid_address, (long)&main_tid);
		if (thread_start(&t) <= 0)
			_exit(90);
		usys1(__NR_exit, 4);    /* this thread only */
	}
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 9);
}

/* ---------------------------------------------------------------- tgkill */

static volatile int handler_tid, target_go;

static void on_usr1(int sig)
{
	(void)sig;
	handler_tid = (int)usys0(__NR_gettid);
}

static int wait_for_signal(void *arg)
{
	(void)arg;
	target_go = 1;
	while (!handler_tid)
		usys0(__NR_sched_yield);
	return 0;
}

/* tgkill reaches the named thread: its handler (shared with the main thread) runs on that thread. */
static void t_thread_tgkill(void)
{
	struct thread t = { .fn = wait_for_signal };
	struct sigaction sa = { 0 };
	long tid;

	sa.sa_handler = on_usr1;
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	tid = thread_start(&t);
	CHECK(tid > 0);
	while (!target_go)
		usys0(__NR_sched_yield);
	CHECK_EQ(usys3(__NR_tgkill, usys0(__NR_getpid), tid, SIGUSR1), 0);
	thread_join(&t);
	CHECK_EQ(handler_tid, tid);
	/*
	 * Gone, but not necessarily yet: the join returns when the kernel clears the child-tid
	 * word, and Linux does that in mm_release, before the exiting thread is unhashed (our
	 * kernel, likewise, in task_exit before thread_end_locked). Until then tgkill can
	 * still find it and signal 0 succeeds; under load that window is seen. So retry,
	 * yielding, until -ESRCH: anything else than 0 or -ESRCH is wrong, and a thread that
	 * never goes away is left to the test watchdog.
	 */
	for (;;) {
		long r = usys3(__NR_tgkill, usys0(__NR_getpid), tid, 0);

		if (r == -ESRCH)
			break;
		CHECK_EQ(r, 0);
		usys0(__NR_sched_yield);
	}
	CHECK_EQ(usys3(__NR_tgkill, usys0(__NR_getpid) + 100000, usys0(__NR_gettid), 0), -ESRCH);
}

/* ------------------------------------------------------------------ fork */

static volatile long busy_value;

static int keep_writing(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&busy_value, __ATOMIC_SEQ_CST) >= 0)
		__atomic_add_fetch(&busy_value, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* fork of a process with a running thread: the child has one thread and a copy of memory. */
static void t_thread_fork(void)
{
	struct thread t = { .fn = keep_writing };
	int st = 0;
	long pid;

	busy_value = 0;
	CHECK(thread_start(&t) > 0);
	pid = sys_fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		long v = busy_value;

		for (int i = 0; i < 1000; i++)
			usys0(__NR_sched_yield);
		_exit(busy_value == v ? 3 : 4);        /* nobody writes in the child */
	}
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	__atomic_store_n(&busy_value, -1000000000L, __ATOMIC_SEQ_CST);
	thread_join(&t);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 3);
}

/* ------------------------------------------------------------ shared futex */

/* A shared futex word in MAP_SHARED memory: a waiter in the child is woken by the parent. */
static void t_thread_shared_futex(void)
{
	volatile int *w = (volatile int *)sys_mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
						   -1, 0);
	int st = 0;
	long pid, woken = 0;

	CHECK((long)w > 0);
	w[0] = 0;
	w[1] = 0;
	pid = sys_fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		__atomic_store_n(&w[1], 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&w[0], __ATOMIC_SEQ_CST) == 0)
			futex(&w[0], FUTEX_WAIT, 0);    /* shared: keyed by the page */
		_exit(5);
	}
	while (!__atomic_load_n(&w[1], __ATOMIC_SEQ_CST))
		usys0(__NR_sched_yield);
	__atomic_store_n(&w[0], 1, __ATOMIC_SEQ_CST);
	/* The child may not be asleep yet (it then sees 1 and leaves): wake until it has gone. */
	while (waitpid((int)pid, &st, WNOHANG) == 0) {
		woken += futex(&w[0], FUTEX_WAKE, 1);
		usys0(__NR_sched_yield);
	}
	CHECK(woken <= 1);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 5);
	sys_munmap((unsigned long)w, 4096);
}

/* ----------------------------------------------------------------- robust */

static volatile int robust_word;
static long robust_head[3];
static long robust_entry[1];

static int die_holding(void *arg)
{
	(void)arg;
	robust_entry[0] = (long)robust_head;    /* the entry's next: back to the head */
	robust_head[0] = (long)robust_entry;
	robust_head[1] = (long)&robust_word - (long)robust_entry;       /* futex_offset */
	robust_head[2] = 0;
	if (usys2(__NR_set_robust_list, (long)robust_head, 24))
		return 1;
	robust_word = (int)usys0(__NR_gettid) | (int)FUTEX_WAITERS;
	return 0;                       /* exits owning it */
}

/* A thread exiting with a robust futex held: the kernel marks it OWNER_DIED, keeps WAITERS. */
static void t_thread_robust(void)
{
	struct thread t = { .fn = die_holding };

	CHECK(thread_start(&t) > 0);
	thread_join(&t);
	CHECK_EQ((unsigned)robust_word, FUTEX_WAITERS | FUTEX_OWNER_DIED);
}

/* ------------------------------------------------------------------- OOM */

/* Touch 1 GiB, far more than the test machine has: out of memory in a page fault. */
static int touch_until_oom(void *arg)
{
	size_t len = 1UL << 30;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	(void)arg;
	if (p == MAP_FAILED)
		return 3;
	for (size_t off = 0; off < len; off += 4096)
		p[off] = 1;
	return 4;                       /* should not get here */
}

static void oom_in_thread(void)
{
	struct thread t = { .fn = touch_until_oom };

	if (thread_start(&t) <= 0)
		_exit(90);
	thread_join(&t);                /* the kill ends this thread too: no return */
	_exit(91);
}

static int return_at_once(void *arg)
{
	(void)arg;
	return 0;
}

static void thread_then_exit(void)
{
	struct thread t = { .fn = return_at_once };

	if (thread_start(&t) <= 0)
		_exit(90);
	thread_join(&t);
}

/*
 * Out of memory in a page fault of one thread kills the whole process
 * (SIGKILL), as Linux's OOM kill: ending only the faulting thread freed
 * nothing while the main thread lived on (it returned from the join, here
 * exit 91). Not on Linux: it would use the host's memory.
 */
static void t_thread_oom_kill(void)
{
	int st;

	if (!on_vmkernel()) {
		printf("    (skipped on Linux: would use the host's memory)\n");
		return;
	}
	struct vmk_memstat before, after;

	CHECK_EQ(run_in_child(thread_then_exit), 0);     /* the caches a threaded process uses, filled */
	CHECK(vmk_memstat(&before));
	st = run_in_child(oom_in_thread);
	CHECK(vmk_memstat(&after));
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGKILL);
	/*
	 * wait4 reports the process once every thread has given up the address
	 * space: the gigabyte is back right after it (it reported the process
	 * as soon as the leader was a zombie and no thread was left in the
	 * live count, while the faulting thread could still hold the memory:
	 * 6 free frames right after the wait, ~18,000 missing at -smp 4). Two
	 * frames of slack, less than a thread's kernel stack: running out of
	 * memory can leave a slab cache a page fuller (1 frame, once, with
	 * fault_lock=vma).
	 */
	CHECK(after.free_frames + 2 >= before.free_frames);
}

/* ---------------------------------------------------------- dead threads */

static volatile int spinners_ready;

static int spin_until_killed(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&spinners_ready, 1, __ATOMIC_SEQ_CST);
	for (;;)
		__asm__ volatile("pause");
	return 1;
}

#define TOUCHED_MIB 4

/* TOUCHED_MIB of memory, MAX_THREADS threads spinning in user mode, then exit_group: they end with the process. */
static void threads_then_exit_group(void)
{
	static struct thread t[MAX_THREADS];
	size_t len = TOUCHED_MIB << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(89);
	for (size_t off = 0; off < len; off += 4096)
		p[off] = 1;
	for (int i = 0; i < MAX_THREADS; i++) {
		t[i].fn = spin_until_killed;
		if (thread_start(&t[i]) <= 0)
			_exit(90);
	}
	while (__atomic_load_n(&spinners_ready, __ATOMIC_SEQ_CST) < MAX_THREADS)
		usys0(__NR_sched_yield);
	usys1(__NR_exit_group, 0);
}

/*
 * Right after wait4 has reported a threaded process, every frame it had is
 * free: its memory (wait4 waits until every thread has given up the
 * address space; the last to leave the live count could still hold it,
 * 1024 frames missing) and the threads' kernel stacks (a thread is freed
 * as soon as it is off its CPU; they waited on a list until the next clone
 * or wait4 anywhere: 5 frames per thread missing). A race, so 4 rounds;
 * the first run fills the caches. Not on Linux: the frame count is ours.
 */
static void t_thread_frames_back_after_wait(void)
{
	struct vmk_memstat before, after;

	if (!on_vmkernel()) {
		printf("    (skipped on Linux: counts our kernel's free frames)\n");
		return;
	}
	CHECK_EQ(run_in_child(threads_then_exit_group), 0);
	for (int round = 0; round < 4; round++) {
		int st;

		CHECK(vmk_memstat(&before));
		st = run_in_child(threads_then_exit_group);
		CHECK(vmk_memstat(&after));
		CHECK_EQ(st, 0);
		CHECK_EQ(after.free_frames, before.free_frames);
	}
}

const struct utest ut_thread_tests[] = {
	{ "thread_ids", t_thread_ids },
	{ "thread_futex_mutex", t_thread_futex_mutex },
	{ "thread_exit_group", t_thread_exit_group },
	{ "thread_main_exits_first", t_thread_main_exits_first },
	{ "thread_tgkill", t_thread_tgkill },
	{ "thread_fork", t_thread_fork },
	{ "thread_shared_futex", t_thread_shared_futex },
	{ "thread_robust", t_thread_robust },
	{ "thread_oom_kill", t_thread_oom_kill },
	{ "thread_frames_back_after_wait", t_thread_frames_back_after_wait },
	{ NULL, NULL },
};
