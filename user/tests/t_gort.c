/*
 * What the Go runtime asks of the kernel at start and while it runs, as
 * Linux does it: real-time signals 32..64 (sigaction, masks, queueing of
 * every instance with its siginfo, delivered lowest number first and in
 * the order sent; standard signals merged), sigaltstack per thread,
 * tgkill reaching a chosen thread that spins in user mode (goroutine
 * preemption by SIGURG), futex waits with absolute timeouts (checked by
 * the value returned, never by durations), sched_getaffinity and
 * sched_setaffinity, and epoll (the runtime's timers and network poller).
 * Expected values are Linux's (this file runs on the host Linux too).
 */
#include "utests.h"
#include "uthread.h"

#define FUTEX_WAIT_BITSET 9
#define FUTEX_CLOCK_REALTIME 256
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define EPOLL_CTL_ADD 1
#define EPOLL_CTL_DEL 2
#define EPOLL_CTL_MOD 3
#define EPOLLIN 0x001
#define EPOLLOUT 0x004
#define EPOLLHUP 0x010
#define EPOLLONESHOT (1U << 30)
#define EPOLL_CLOEXEC 02000000

/* The siginfo fields these tests read (Linux's layout for kill and sigqueue). */
struct rtinfo {
	int signo, errno_, code, pad;
	int pid, uid;
	long value;
};

struct stack_u {
	void *ss_sp;
	int ss_flags;
	size_t ss_size;
};

struct epoll_event_u {
	uint32_t events;
	uint64_t data;
} __attribute__((packed));

/* ------------------------------------------------------- real-time signals */

#define LOG_MAX 16
static volatile int log_n;
static volatile int log_sig[LOG_MAX], log_code[LOG_MAX], log_pid[LOG_MAX];
static volatile long log_value[LOG_MAX];

static void log_signal(int sig, siginfo_t *si, void *uc)
{
	const struct rtinfo *ri = (const struct rtinfo *)si;

	(void)uc;
	if (log_n < LOG_MAX) {
		log_sig[log_n] = sig;
		log_code[log_n] = ri->code;
		log_pid[log_n] = ri->pid;
		log_value[log_n] = ri->value;
		log_n++;
	}
}

/* Handle sig with log_signal, blocking every signal while it runs (one delivery per sigreturn). */
static void log_on(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = log_signal;
	sa.sa_flags = SA_SIGINFO;
	sa.sa_mask = ~0UL;
	CHECK_EQ(sigaction(sig, &sa, NULL), 0);
}

/* rt_sigqueueinfo to this process: sig with si_code SI_QUEUE and si_value v. */
static long queue_self(int sig, long v)
{
	struct rtinfo ri[4];            /* 128 bytes */

	memset(ri, 0, sizeof(ri));
	ri[0].signo = sig;
	ri[0].code = SI_QUEUE;
	ri[0].pid = getpid();
	ri[0].value = v;
	return usys3(__NR_rt_sigqueueinfo, getpid(), sig, (long)ri);
}

/*
 * Every signal number 1..64 has an action (SIGKILL and SIGSTOP cannot be
 * set), 0 and 65 do not; the blocked set takes all 64 bits but SIGKILL
 * and SIGSTOP.
 */
static void t_rt_sigaction_range(void)
{
	struct sigaction sa, old;
	sigset_t all = ~0UL, got;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = (void (*)(int))1;       /* SIG_IGN */
	for (int s = 1; s <= 64; s++)
		CHECK_EQ(sigaction(s, &sa, &old) == 0, s != SIGKILL && s != 19);
	CHECK_EQ(usys4(__NR_rt_sigaction, 0, (long)&sa, 0, 8), -EINVAL);
	CHECK_EQ(usys4(__NR_rt_sigaction, 65, (long)&sa, 0, 8), -EINVAL);
	CHECK_EQ(usys4(__NR_rt_sigaction, 64, 0, (long)&old, 8), 0);
	CHECK_EQ((long)old.sa_handler, 1);
	CHECK_EQ(sigprocmask(SIG_SETMASK, &all, NULL), 0);
	CHECK_EQ(sigprocmask(SIG_SETMASK, NULL, &got), 0);
	CHECK_EQ(got, ~((1UL << (SIGKILL - 1)) | (1UL << (19 - 1))));
}

/*
 * Blocked, two real-time signals queued twice each and a standard one
 * sent twice: rt_sigpending shows them; once unblocked, the standard one
 * comes once, then each real-time signal's instances in the order sent,
 * the lower number first, each with its own si_code and si_value.
 */
static void t_rt_queue_order(void)
{
	sigset_t set = (1UL << (SIGUSR1 - 1)) | (1UL << 33) | (1UL << 34), pend = 0;

	log_on(SIGUSR1);
	log_on(34);
	log_on(35);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &set, NULL), 0);
	CHECK_EQ(queue_self(35, 1), 0);
	CHECK_EQ(queue_self(34, 2), 0);
	CHECK_EQ(kill(getpid(), 35), 0);        /* a kill queues a real-time signal too */
	CHECK_EQ(queue_self(34, 4), 0);
	CHECK_EQ(kill(getpid(), SIGUSR1), 0);
	CHECK_EQ(kill(getpid(), SIGUSR1), 0);   /* merged with the first */
	CHECK_EQ(usys2(__NR_rt_sigpending, (long)&pend, 8), 0);
	CHECK_EQ(pend, set);
	CHECK_EQ(log_n, 0);
	CHECK_EQ(sigprocmask(SIG_UNBLOCK, &set, NULL), 0);
	CHECK_EQ(log_n, 5);
	CHECK_EQ(log_sig[0], SIGUSR1);
	CHECK_EQ(log_code[0], SI_USER);
	CHECK_EQ(log_pid[0], getpid());
	CHECK_EQ(log_sig[1], 34);
	CHECK_EQ(log_code[1], SI_QUEUE);
	CHECK_EQ(log_value[1], 2);
	CHECK_EQ(log_sig[2], 34);
	CHECK_EQ(log_value[2], 4);
	CHECK_EQ(log_sig[3], 35);
	CHECK_EQ(log_code[3], SI_QUEUE);
	CHECK_EQ(log_value[3], 1);
	CHECK_EQ(log_sig[4], 35);
	CHECK_EQ(log_code[4], SI_USER);
	CHECK_EQ(log_pid[4], getpid());
	CHECK_EQ(usys2(__NR_rt_sigpending, (long)&pend, 8), 0);
	CHECK_EQ(pend, 0);
}

/* Ignoring a real-time signal drops every queued instance; it stays unqueued while ignored. */
static void t_rt_ignore_discards(void)
{
	sigset_t set = 1UL << (40 - 1), pend = 0;
	struct sigaction ign;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = (void (*)(int))1;
	log_on(40);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &set, NULL), 0);
	CHECK_EQ(queue_self(40, 7), 0);
	CHECK_EQ(queue_self(40, 8), 0);
	CHECK_EQ(sigaction(40, &ign, NULL), 0);
	CHECK_EQ(usys2(__NR_rt_sigpending, (long)&pend, 8), 0);
	CHECK_EQ(pend, 0);
	log_on(40);
	CHECK_EQ(queue_self(40, 9), 0);
	CHECK_EQ(sigprocmask(SIG_UNBLOCK, &set, NULL), 0);
	CHECK_EQ(log_n, 1);
	CHECK_EQ(log_value[0], 9);
}

static void die_by_rt(void)
{
	kill(getpid(), 50);
	_exit(0);
}

/* A real-time signal's default action terminates the process. */
static void t_rt_default_kills(void)
{
	int st = run_in_child(die_by_rt);

	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), 50);
}

/* ------------------------------------------------------------- threads */

static char main_alt[16384] __attribute__((aligned(16)));
static char thread_alt[16384] __attribute__((aligned(16)));
static volatile int thread_ss_flags, thread_ready, thread_spin_done;
static volatile int urg_tid, urg_code, urg_pid, urg_on_alt;

static void on_urg(int sig, siginfo_t *si, void *uc)
{
	volatile char here;

	(void)sig;
	(void)uc;
	urg_tid = (int)usys0(__NR_gettid);
	urg_code = ((const struct rtinfo *)si)->code;
	urg_pid = ((const struct rtinfo *)si)->pid;
	urg_on_alt = &here > thread_alt && &here < thread_alt + sizeof(thread_alt);
	thread_spin_done = 1;
}

/*
 * A new thread starts without an alternate stack (the creator's is not
 * inherited), sets its own, and spins in user mode without a system call
 * until the SIGURG handler has run on it.
 */
static int spin_for_urg(void *arg)
{
	struct stack_u ss = { thread_alt, 0, sizeof(thread_alt) }, old;

	(void)arg;
	if (usys2(__NR_sigaltstack, 0, (long)&old))
		return 1;
	thread_ss_flags = old.ss_flags;
	if (usys2(__NR_sigaltstack, (long)&ss, 0))
		return 2;
	thread_ready = 1;
	while (!thread_spin_done)
		;
	return 0;
}

/*
 * tgkill(SIGURG) to a thread busy in user mode: its SA_ONSTACK handler
 * runs on that thread, on that thread's alternate stack, with SI_TKILL
 * and the sender's pid (goroutine preemption).
 */
static void t_tgkill_spinning_thread(void)
{
	struct stack_u ss = { main_alt, 0, sizeof(main_alt) };
	struct thread t = { .fn = spin_for_urg };
	struct sigaction sa;
	long tid;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_urg;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	CHECK_EQ(sigaction(SIGURG, &sa, NULL), 0);
	CHECK_EQ(usys2(__NR_sigaltstack, (long)&ss, 0), 0);
	tid = thread_start(&t);
	CHECK(tid > 0);
	while (!thread_ready)
		usys0(__NR_sched_yield);
	CHECK_EQ(thread_ss_flags, SS_DISABLE);
	CHECK_EQ(usys3(__NR_tgkill, getpid(), tid, SIGURG), 0);
	thread_join(&t);
	CHECK_EQ(urg_tid, tid);
	CHECK_EQ(urg_code, SI_TKILL);
	CHECK_EQ(urg_pid, getpid());
	CHECK_EQ(urg_on_alt, 1);
}

static void fork_keeps_altstack(void)
{
	struct stack_u old;

	if (usys2(__NR_sigaltstack, 0, (long)&old) || old.ss_sp != main_alt || old.ss_flags != 0)
		_exit(1);
	_exit(0);
}

/*
 * sigaltstack's rules: a fork child keeps the stack; SS_DISABLE removes it
 * (reported as SS_DISABLE); a bad mode is -EINVAL, a size under
 * MINSIGSTKSZ (2048) -ENOMEM; changing it while on it is -EPERM, but
 * reading it there is allowed and says SS_ONSTACK.
 */
static volatile long alt_read, alt_set;
static volatile int alt_flags;

static void on_usr2_alt(int sig)
{
	struct stack_u cur, ss = { thread_alt, SS_DISABLE, 0 };

	(void)sig;
	alt_read = usys2(__NR_sigaltstack, 0, (long)&cur);
	alt_flags = cur.ss_flags;
	alt_set = usys2(__NR_sigaltstack, (long)&ss, 0);
}

static void t_sigaltstack_rules(void)
{
	struct stack_u ss = { main_alt, 0, sizeof(main_alt) }, old;
	struct sigaction sa;
	int st;

	CHECK_EQ(usys2(__NR_sigaltstack, (long)&ss, 0), 0);
	st = run_in_child(fork_keeps_altstack);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	ss.ss_flags = 5;
	CHECK_EQ(usys2(__NR_sigaltstack, (long)&ss, 0), -EINVAL);
	ss.ss_flags = 0;
	ss.ss_size = 2047;
	CHECK_EQ(usys2(__NR_sigaltstack, (long)&ss, 0), -ENOMEM);
	ss.ss_size = sizeof(main_alt);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2_alt;
	sa.sa_flags = SA_ONSTACK;
	CHECK_EQ(sigaction(SIGUSR2, &sa, NULL), 0);
	CHECK_EQ(kill(getpid(), SIGUSR2), 0);
	CHECK_EQ(alt_read, 0);
	CHECK_EQ(alt_flags, SS_ONSTACK);
	CHECK_EQ(alt_set, -EPERM);
	ss.ss_flags = SS_DISABLE;
	CHECK_EQ(usys2(__NR_sigaltstack, (long)&ss, (long)&old), 0);
	CHECK_EQ((long)old.ss_sp, (long)main_alt);
	CHECK_EQ(usys2(__NR_sigaltstack, 0, (long)&old), 0);
	CHECK_EQ(old.ss_flags, SS_DISABLE);
	CHECK_EQ(old.ss_size, 0);
}

/* --------------------------------------------------------------- futex */

/*
 * FUTEX_WAIT_BITSET takes an absolute time: CLOCK_MONOTONIC's by default,
 * CLOCK_REALTIME's with FUTEX_CLOCK_REALTIME. A time already past ends
 * the wait with -ETIMEDOUT (the value still matching); a bitset of 0 is
 * -EINVAL; FUTEX_CLOCK_REALTIME on FUTEX_WAKE is -ENOSYS.
 */
static void t_futex_abs_timeouts(void)
{
	static int word = 3;
	long now[2], past[2] = { 0, 1 };

	CHECK_EQ(usys2(__NR_clock_gettime, CLOCK_MONOTONIC, (long)now), 0);
	CHECK_EQ(usys6(__NR_futex, (long)&word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE, 3, (long)now, 0, -1),
		 -ETIMEDOUT);
	CHECK_EQ(usys6(__NR_futex, (long)&word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE, 3, (long)past, 0, -1),
		 -ETIMEDOUT);
	CHECK_EQ(usys2(__NR_clock_gettime, CLOCK_REALTIME, (long)now), 0);
	CHECK_EQ(usys6(__NR_futex, (long)&word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE | FUTEX_CLOCK_REALTIME, 3,
		       (long)now, 0, -1), -ETIMEDOUT);
	CHECK_EQ(usys6(__NR_futex, (long)&word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE, 2, (long)now, 0, -1),
		 -EAGAIN);
	CHECK_EQ(usys6(__NR_futex, (long)&word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE, 3, (long)now, 0, 0),
		 -EINVAL);
	CHECK_EQ(usys3(__NR_futex, (long)&word, FUTEX_WAKE | FUTEX_PRIVATE | FUTEX_CLOCK_REALTIME, 1),
		 -ENOSYS);
}

/* ------------------------------------------------------------ affinity */

static int popcount(unsigned long m)
{
	return __builtin_popcountl(m);
}

static volatile unsigned long thread_mask;

static int read_mask(void *arg)
{
	unsigned long m = 0;

	(void)arg;
	if (usys3(__NR_sched_getaffinity, 0, 8, (long)&m) != 8)
		return 1;
	thread_mask = m;
	return 0;
}

/*
 * sched_getaffinity copies min(len, cpumask_size()) bytes and returns that
 * count: cpumask_size() depends on Linux's configuration (8 with
 * CPUMASK_OFFSTACK and up to 64 CPUs, as Debian's kernels and this one;
 * NR_CPUS / 8 without), so only a multiple of 8 is required, with the
 * CPUs in the first word (this machine has at most 64 of them); a length
 * not a multiple of 8 is -EINVAL,
 * an unknown pid -ESRCH. sched_setaffinity to the CPU the caller is on:
 * read back the same, the caller then runs there, and a new thread
 * inherits it; an empty mask is -EINVAL.
 */
static void t_sched_affinity(void)
{
	unsigned long all = 0, one, got = 0, none = 0, buf[4] = { 0, 0, 0, 0 };
	unsigned cpu = 0;
	struct thread t = { .fn = read_mask };
	long r;

	r = usys3(__NR_sched_getaffinity, 0, sizeof(buf), (long)buf);
	CHECK(r >= 8 && r <= (long)sizeof(buf) && r % 8 == 0);
	all = buf[0];
	CHECK(popcount(all) >= 1);
	CHECK_EQ(buf[1] | buf[2] | buf[3], 0);
	CHECK_EQ(usys3(__NR_sched_getaffinity, 0, 4, (long)&got), -EINVAL);
	CHECK_EQ(usys3(__NR_sched_getaffinity, 0, 12, (long)buf), -EINVAL);
	CHECK_EQ(usys3(__NR_sched_getaffinity, 999999, 8, (long)&got), -ESRCH);
	CHECK_EQ(usys3(__NR_sched_getaffinity, 0, 8, 0x1000), -EFAULT);
	CHECK_EQ(usys3(__NR_getcpu, (long)&cpu, 0, 0), 0);
	one = 1UL << cpu;
	CHECK(all & one);
	CHECK_EQ(usys3(__NR_sched_setaffinity, 0, 8, (long)&one), 0);
	CHECK_EQ(usys3(__NR_sched_getaffinity, getpid(), 8, (long)&got), 8);
	CHECK_EQ(got, one);
	CHECK_EQ(usys3(__NR_getcpu, (long)&cpu, 0, 0), 0);
	CHECK_EQ(1UL << cpu, one);
	CHECK(thread_start(&t) > 0);
	thread_join(&t);
	CHECK_EQ(thread_mask, one);
	CHECK_EQ(usys3(__NR_sched_setaffinity, 0, 8, (long)&none), -EINVAL);
	CHECK_EQ(usys3(__NR_sched_setaffinity, 0, 8, (long)&all), 0);
	CHECK_EQ(usys3(__NR_sched_getaffinity, 0, 8, (long)&got), 8);
	CHECK_EQ(got, all);
}

/* --------------------------------------------------------------- epoll */

/*
 * epoll on a pipe: nothing ready (timeout 0 and 10 ms both give 0), data
 * makes the read end report EPOLLIN with its data word (level-triggered:
 * again on the next call), EPOLLONESHOT reports once until EPOLL_CTL_MOD,
 * the write end's close reports EPOLLHUP; and the errors.
 */
static void t_epoll_pipe(void)
{
	struct epoll_event_u ev = { EPOLLIN, 0x1122334455667788UL }, out[4];
	int p[2], ep = (int)usys1(__NR_epoll_create1, EPOLL_CLOEXEC);

	CHECK(ep >= 0);
	CHECK_EQ(usys1(__NR_epoll_create, 0), -EINVAL);
	CHECK_EQ(usys1(__NR_epoll_create1, 1), -EINVAL);
	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(usys4(__NR_epoll_ctl, ep, EPOLL_CTL_ADD, p[0], (long)&ev), 0);
	CHECK_EQ(usys4(__NR_epoll_ctl, ep, EPOLL_CTL_ADD, p[0], (long)&ev), -EEXIST);
	CHECK_EQ(usys4(__NR_epoll_ctl, ep, EPOLL_CTL_MOD, p[1], (long)&ev), -ENOENT);
	CHECK_EQ(usys4(__NR_epoll_ctl, ep, EPOLL_CTL_ADD, ep, (long)&ev), -EINVAL);
	CHECK_EQ(usys4(__NR_epoll_ctl, p[0], EPOLL_CTL_ADD, p[1], (long)&ev), -EINVAL);
	CHECK_EQ(usys4(__NR_epoll_ctl, ep, EPOLL_CTL_ADD, 999, (long)&ev), -EBADF);
	CHECK_EQ(usys4(__NR_epoll_wait, ep, (long)out, 0, 0), -EINVAL);
	CHECK_EQ(usys4(__NR_epoll_wait, p[0], (long)out, 4, 0), -EINVAL);
	CHECK_EQ(usys4(__NR_epoll_wait, ep, (long)out, 4, 0), 0);
	CHECK_EQ(usys6(__NR_epoll_pwait, ep, (long)out, 4, 10, 0, 8), 0);
	CHECK_EQ(write(p[1], "x", 1), 1);
	CHECK_EQ(usys4(__NR_epoll_wait, ep, (long)out, 4, -1), 1);
	CHECK_EQ(out[0].events, EPOLLIN);
	CHECK_EQ(out[0].data, 0x1122334455667788UL);
	CHECK_EQ(usys4(__NR_epoll_wait, ep, (long)out, 4, 0), 1);
	ev.events = EPOLLIN | EPOLLONESHOT;
	ev.data = 5;
	CHECK_EQ(usys4(__NR_epoll_ctl, ep, EPOLL_CTL_MOD, p[0], (long)&ev), 0);
	CHECK_EQ(usys4(__NR_epoll_wait, ep, (long)out, 4, 0), 1);
	CHECK_EQ(out[0].data, 5);
	CHECK_EQ(usys4(__NR_epoll_wait, ep, (long)out, 4, 0), 0);
	CHECK_EQ(usys4(__NR_epoll_ctl, ep, EPOLL_CTL_MOD, p[0], (long)&ev), 0);
	CHECK_EQ(usys4(__NR_epoll_wait, ep, (long)out, 4, 0), 1);
	ev.events = EPOLLIN;
	CHECK_EQ(usys4(__NR_epoll_ctl, ep, EPOLL_CTL_MOD, p[0], (long)&ev), 0);
	CHECK_EQ(close(p[1]), 0);
	CHECK_EQ(usys4(__NR_epoll_wait, ep, (long)out, 4, 0), 1);
	CHECK_EQ(out[0].events, EPOLLIN | EPOLLHUP);
	CHECK_EQ(usys4(__NR_epoll_ctl, ep, EPOLL_CTL_DEL, p[0], 0), 0);
	CHECK_EQ(usys4(__NR_epoll_ctl, ep, EPOLL_CTL_DEL, p[0], 0), -ENOENT);
	CHECK_EQ(usys4(__NR_epoll_wait, ep, (long)out, 4, 0), 0);
	close(p[0]);
	close(ep);
}

/*
 * An epoll fd has no read or write: both are -EINVAL, as on Linux (the
 * file has no read/write methods; pread is -ESPIPE, it has no offset).
 * Found by the syscall fuzzer: the kernel called a NULL method.
 */
static void t_epoll_read_write(void)
{
	char buf[16] = { 0 };
	int ep = (int)usys1(__NR_epoll_create1, 0);

	CHECK(ep >= 0);
	CHECK_EQ(sys_read(ep, buf, sizeof(buf)), -EINVAL);
	CHECK_EQ(sys_write(ep, buf, sizeof(buf)), -EINVAL);
	CHECK_EQ(sys_pread(ep, buf, sizeof(buf), 0), -ESPIPE);
	close(ep);
}

/*
 * An entry goes with its file: a pipe registered and then closed without
 * EPOLL_CTL_DEL leaves nothing behind, so a new pipe that gets the same fd
 * number is added afresh (not -EEXIST) and reports its own data word.
 */
static void t_epoll_closed_fd(void)
{
	struct epoll_event_u ev = { EPOLLIN, 1 }, out[4];
	int p[2], q[2], ep = (int)usys1(__NR_epoll_create1, 0);

	CHECK(ep >= 0);
	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(write(p[1], "x", 1), 1);
	CHECK_EQ(usys4(__NR_epoll_ctl, ep, EPOLL_CTL_ADD, p[0], (long)&ev), 0);
	CHECK_EQ(close(p[0]), 0);
	CHECK_EQ(close(p[1]), 0);
	CHECK_EQ(usys4(__NR_epoll_wait, ep, (long)out, 4, 0), 0);
	CHECK_EQ(pipe(q), 0);
	CHECK_EQ(q[0], p[0]);                   /* the lowest free fds again */
	ev.data = 2;
	CHECK_EQ(usys4(__NR_epoll_ctl, ep, EPOLL_CTL_ADD, q[0], (long)&ev), 0);
	CHECK_EQ(usys4(__NR_epoll_wait, ep, (long)out, 4, 0), 0);
	CHECK_EQ(write(q[1], "y", 1), 1);
	CHECK_EQ(usys4(__NR_epoll_wait, ep, (long)out, 4, 0), 1);
	CHECK_EQ(out[0].data, 2);
	close(q[0]);
	close(q[1]);
	close(ep);
}

const struct utest ut_gort_tests[] = {
	{ "rt_sigaction_range", t_rt_sigaction_range },
	{ "rt_queue_order", t_rt_queue_order },
	{ "rt_ignore_discards", t_rt_ignore_discards },
	{ "rt_default_kills", t_rt_default_kills },
	{ "tgkill_spinning_thread", t_tgkill_spinning_thread },
	{ "sigaltstack_rules", t_sigaltstack_rules },
	{ "futex_abs_timeouts", t_futex_abs_timeouts },
	{ "sched_affinity", t_sched_affinity },
	{ "epoll_pipe", t_epoll_pipe },
	{ "epoll_closed_fd", t_epoll_closed_fd },
	{ "epoll_read_write", t_epoll_read_write },
	{ NULL, NULL },
};
