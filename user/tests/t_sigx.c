/*
 * Signal features that real programs need, as Linux 6.18 does them:
 * sigaltstack with SA_ONSTACK (the Go runtime), alarm / setitimer /
 * getitimer / pause, SA_RESTART for a read blocked on a pipe, sigsuspend,
 * sysinfo; rt_sigtimedwait; SS_AUTODISARM; the segment selectors user code
 * runs with (issue 22, item 8); the SIGSEGV a handler gets whose frame
 * cannot be written (issue 21); and regressions from fuzzing (issue 13,
 * section 4), each with the value Linux gives.
 */
#include "utests.h"

#define SS_ONSTACK 1
#define SS_DISABLE 2
#define EPERM 1
#define ENOMEM 12
#define EINTR 4
#define EAGAIN 11
#define EINVAL 22
#define EFAULT 14
#define SS_AUTODISARM (1U << 31)
#define SI_USER 0
#define CLD_EXITED 1
#define PR_SET_NAME 15
#define PR_GET_NAME 16

struct stack_u {
	void *ss_sp;
	int ss_flags;
	size_t ss_size;
};

static char altstack[65536] __attribute__((aligned(16)));
static volatile long handler_sp;
static volatile int handler_oss_flags, handler_set_err;

static void on_usr1_altstack(int sig)
{
	struct stack_u cur, other = { altstack, 0, sizeof(altstack) };
	volatile char here;

	(void)sig;
	handler_sp = (long)&here;
	usys2(__NR_sigaltstack, 0, (long)&cur);
	handler_oss_flags = cur.ss_flags;
	handler_set_err = (int)usys2(__NR_sigaltstack, (long)&other, 0);  /* on it: EPERM */
}

/* SA_ONSTACK runs the handler on the alternate stack; sigaltstack reports and guards it. */
static void t_sigaltstack(void)
{
	struct stack_u ss = { altstack, 0, sizeof(altstack) }, old;
	struct sigaction sa;

	CHECK_EQ(usys2(__NR_sigaltstack, 0, (long)&old), 0);
	CHECK_EQ(old.ss_flags, SS_DISABLE);
	CHECK_EQ(usys2(__NR_sigaltstack, (long)&ss, 0), 0);
	CHECK_EQ(usys2(__NR_sigaltstack, 0, (long)&old), 0);
	CHECK_EQ(old.ss_flags, 0);
	CHECK_EQ((long)old.ss_sp, (long)altstack);
	CHECK_EQ(old.ss_size, sizeof(altstack));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1_altstack;
	sa.sa_flags = SA_ONSTACK;
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	CHECK_EQ(kill(getpid(), SIGUSR1), 0);
	CHECK(handler_sp > (long)altstack && handler_sp < (long)altstack + (long)sizeof(altstack));
	CHECK_EQ(handler_oss_flags, SS_ONSTACK);
	CHECK_EQ(handler_set_err, -EPERM);
	/* bad input */
	ss.ss_size = 1000;
	CHECK_EQ(usys2(__NR_sigaltstack, (long)&ss, 0), -ENOMEM);
	ss.ss_size = sizeof(altstack);
	ss.ss_flags = 77;
	CHECK_EQ(usys2(__NR_sigaltstack, (long)&ss, 0), -EINVAL);
	CHECK_EQ(usys2(__NR_sigaltstack, 0x10, 0), -EFAULT);
	CHECK_EQ(usys2(__NR_sigaltstack, 0, 0x10), -EFAULT);
	ss.ss_flags = SS_DISABLE;
	CHECK_EQ(usys2(__NR_sigaltstack, (long)&ss, 0), 0);
	CHECK_EQ(usys2(__NR_sigaltstack, 0, (long)&old), 0);
	CHECK_EQ(old.ss_flags, SS_DISABLE);
}

static volatile int alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* setitimer/getitimer (ITIMER_REAL), pause until SIGALRM, alarm's return value, bad input. */
static void t_itimer_pause(void)
{
	struct sigaction sa;
	long it[4] = { 0, 0, 0, 30000 }, cur[4], old[4];       /* interval 0, value 30 ms */

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	CHECK_EQ(sigaction(SIGALRM, &sa, NULL), 0);
	CHECK_EQ(usys3(__NR_setitimer, 0, (long)it, 0), 0);
	CHECK_EQ(usys2(__NR_getitimer, 0, (long)cur), 0);
	CHECK(cur[2] == 0 && cur[3] > 0 && cur[3] <= 30000);
	CHECK_EQ(usys0(__NR_pause), -EINTR);
	CHECK_EQ(alarms, 1);
	CHECK_EQ(usys2(__NR_getitimer, 0, (long)cur), 0);
	CHECK(cur[2] == 0 && cur[3] == 0);                      /* expired, no interval */
	/* alarm returns the seconds left, rounded to the nearest, at least 1 */
	CHECK_EQ(usys1(__NR_alarm, 5), 0);
	CHECK_EQ(usys1(__NR_alarm, 0), 5);
	CHECK_EQ(usys1(__NR_alarm, 0), 0);
	/* an interval timer fires again */
	it[1] = 10000;
	it[3] = 10000;
	CHECK_EQ(usys3(__NR_setitimer, 0, (long)it, (long)old), 0);
	CHECK_EQ(old[3], 0);
	while (alarms < 3)
		usys0(__NR_pause);
	CHECK_EQ(usys3(__NR_setitimer, 0, 0, (long)old), 0);     /* NULL disarms */
	CHECK_EQ(old[0], 0);
	CHECK_EQ(old[1], 10000);
	it[3] = 1000000;                                        /* usec out of range */
	CHECK_EQ(usys3(__NR_setitimer, 0, (long)it, 0), -EINVAL);
	CHECK_EQ(usys3(__NR_setitimer, 7, (long)it, 0), -EINVAL);
	CHECK_EQ(usys2(__NR_getitimer, 7, (long)cur), -EINVAL);
	CHECK_EQ(usys2(__NR_getitimer, 0, 0x10), -EFAULT);
}

static volatile int usr1_seen;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_seen++;
}

/*
 * A read blocked on an empty pipe, with signals arriving: restarted when
 * the handler has SA_RESTART (the data comes through), -EINTR without it.
 * The parent keeps signalling until the child reports, so the outcome does
 * not depend on when the child blocks.
 */
static int read_with_signals(bool restart)
{
	struct sigaction sa;
	int data[2], done[2], pid, st;
	char c = 0;

	CHECK_EQ(pipe(data), 0);
	CHECK_EQ(pipe(done), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		long r;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sa.sa_flags = restart ? SA_RESTART : 0;
		sigaction(SIGUSR1, &sa, NULL);
		close(data[1]);
		write(done[1], "s", 1);                 /* handler installed */
		r = read(data[0], &c, 1);
		_exit(r == 1 && c == 'x' && usr1_seen > 0 ? 10 : r == -1 && errno == EINTR ? 20 : 30);
	}
	close(done[1]);
	CHECK_EQ(read(done[0], &c, 1), 1);
	for (int i = 0; i < 20; i++) {
		kill(pid, SIGUSR1);
		msleep(5);
	}
	write(data[1], "x", 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void t_sa_restart(void)
{
	CHECK_EQ(read_with_signals(true), 10);
	CHECK_EQ(read_with_signals(false), 20);
}

/* sigsuspend: wait with a mask that lets the signal in; the old mask is back afterwards. */
static void t_sigsuspend(void)
{
	struct sigaction sa;
	sigset_t block = sigmask_of(SIGUSR1), cur, wait_mask = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &block, NULL), 0);
	CHECK_EQ(kill(getpid(), SIGUSR1), 0);                   /* pending, blocked */
	CHECK_EQ(usr1_seen, 0);
	CHECK_EQ(usys2(__NR_rt_sigsuspend, (long)&wait_mask, 8), -EINTR);
	CHECK_EQ(usr1_seen, 1);
	CHECK_EQ(sigprocmask(SIG_BLOCK, NULL, &cur), 0);
	CHECK_EQ(cur, block);
	CHECK_EQ(usys2(__NR_rt_sigsuspend, (long)&wait_mask, 4), -EINVAL);
	CHECK_EQ(usys2(__NR_rt_sigsuspend, 0x10, 8), -EFAULT);
}

/* sysinfo: plausible memory and uptime figures; a bad pointer. */
static void t_sysinfo(void)
{
	struct {
		long uptime;
		unsigned long loads[3], totalram, freeram, sharedram, bufferram, totalswap, freeswap;
		unsigned short procs, pad;
		unsigned pad2;
		unsigned long totalhigh, freehigh;
		unsigned mem_unit;
		char reserved[4];
	} si;

	CHECK_EQ(usys1(__NR_sysinfo, (long)&si), 0);
	CHECK(si.uptime >= 0);
	CHECK(si.mem_unit >= 1);
	CHECK(si.totalram > 0 && si.freeram > 0 && si.freeram <= si.totalram);
	CHECK(si.procs >= 1);
	CHECK_EQ(usys1(__NR_sysinfo, 0x10), -EFAULT);
}

/* Bug 1: PR_GET_NAME returns the name zero-padded to 16 bytes, never stale kernel bytes. */
static void t_prctl_name_padding(void)
{
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char out[16];

	CHECK(page != MAP_FAILED);
	CHECK_EQ(munmap(page + 4096, 4096), 0);
	memcpy(page + 4096 - 3, "ab", 3);       /* a short name ending at the page end */
	CHECK_EQ(sys_prctl(PR_SET_NAME, (long)(page + 4096 - 3), 0, 0, 0), 0);
	memset(out, 0x55, sizeof(out));
	CHECK_EQ(sys_prctl(PR_GET_NAME, (long)out, 0, 0, 0), 0);
	CHECK_EQ(memcmp(out, "ab", 3), 0);
	for (int i = 3; i < 16; i++)
		CHECK_EQ(out[i], 0);
}

/* Bug 4: mincore stops at a hole: entries before it written, the rest untouched; unmapped + bad vector: ENOMEM. */
static void t_mincore_hole(void)
{
	char *p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char vec[4];

	CHECK(p != MAP_FAILED);
	p[0] = 1;
	CHECK_EQ(munmap(p + 2 * 4096, 4096), 0);
	memset(vec, 0x77, sizeof(vec));
	CHECK_EQ(mincore(p, 4 * 4096, vec), -1);
	CHECK_EQ(errno, ENOMEM);
	CHECK_EQ(vec[0], 1);
	CHECK_EQ(vec[1], 0);
	CHECK_EQ(vec[2], 0x77);
	CHECK_EQ(vec[3], 0x77);
	CHECK_EQ(sys_mincore((unsigned long)p + 2 * 4096, 4096, (unsigned char *)0x1000), -ENOMEM);
}

static volatile int chld_seen;

static void on_chld_count(int sig)
{
	(void)sig;
	chld_seen++;
}

/* Bug 5: kill of a zombie succeeds (0), as on Linux; after the reap it is ESRCH. */
static void t_kill_zombie(void)
{
	struct sigaction sa;
	sigset_t block = sigmask_of(SIGCHLD), none = 0;
	int pid, st;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld_count;
	CHECK_EQ(sigaction(SIGCHLD, &sa, NULL), 0);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &block, NULL), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(0);
	while (!chld_seen)              /* SIGCHLD: the child is a zombie now */
		usys2(__NR_rt_sigsuspend, (long)&none, 8);
	CHECK_EQ(kill(pid, 0), 0);
	CHECK_EQ(kill(pid, SIGTERM), 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	CHECK_EQ(kill(pid, 0), -1);
	CHECK_EQ(errno, ESRCH);
}

/* Bug 6: error precedence of rt_sigprocmask, kill, tkill, tgkill. */
static void t_signal_errno_order(void)
{
	CHECK_EQ(usys4(__NR_rt_sigprocmask, 77, 0x10, 0, 8), -EFAULT);  /* bad set before bad how */
	CHECK_EQ(usys4(__NR_rt_sigprocmask, 77, 0, 0, 8), 0);           /* no set: how unchecked */
	CHECK_EQ(usys2(__NR_kill, 99999, -2), -ESRCH);
	CHECK_EQ(usys2(__NR_kill, getpid(), -2), -EINVAL);
	CHECK_EQ(usys2(__NR_tkill, 99999, 66), -ESRCH);
	CHECK_EQ(usys2(__NR_tkill, getpid(), 66), -EINVAL);
	CHECK_EQ(usys2(__NR_tkill, 0, 1), -EINVAL);
	CHECK_EQ(usys3(__NR_tgkill, 99999, 99999, 66), -ESRCH);
}

/* Bug 7: clock ids Linux does not have (10: CLOCK_SGI_CYCLE) are EINVAL for gettime and getres. */
static void t_clock_ids(void)
{
	long ts[2];

	CHECK_EQ(usys2(__NR_clock_gettime, 10, (long)ts), -EINVAL);
	CHECK_EQ(usys2(__NR_clock_getres, 10, (long)ts), -EINVAL);
	CHECK_EQ(usys2(__NR_clock_gettime, 12, (long)ts), -EINVAL);
	CHECK_EQ(usys2(__NR_clock_gettime, 11, (long)ts), 0);   /* CLOCK_TAI */
	CHECK_EQ(usys2(__NR_clock_gettime, 7, (long)ts), 0);    /* CLOCK_BOOTTIME */
}

/* Bug 8: a buffer that runs past the top of user space is EFAULT as a whole (Linux's access_ok). */
static void t_getrandom_range(void)
{
	char buf[16];

	/* the last 8 bytes of the stack page at the top, and 8 beyond TASK_SIZE */
	CHECK_EQ(usys3(__NR_getrandom, 0x7fffffffeff8L, 16, 0), -EFAULT);
	CHECK_EQ(usys3(__NR_getrandom, (long)buf, 16, 0), 16);
}

static void touch_kernel_address(void)
{
	volatile char *k = (volatile char *)0xffffffff81000000UL;

	(void)*k;
}

static volatile int segv_code;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	segv_code = si->si_code;
	_exit(segv_code == SEGV_MAPERR ? 0 : 1);
}

/* Bug 9: a kernel address faults with SEGV_MAPERR, whether the kernel maps it or not. */
static void t_kernel_address_maperr(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	CHECK_EQ(sigaction(SIGSEGV, &sa, NULL), 0);
	touch_kernel_address();
	CHECK(0);                       /* the handler exits */
}

static void bad_cs_handler(int sig, siginfo_t *si, void *ucv)
{
	unsigned short *cs = (unsigned short *)((char *)ucv + 40 + 18 * 8);     /* uc_mcontext.cs */

	(void)sig;
	(void)si;
	*cs = 0;
}

/* Raise SIGUSR1 with handler h; exit 0 if the process survives its return (it should not). */
static void raise_with(void (*h)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	kill(getpid(), SIGUSR1);
	_exit(0);
}

static void sigreturn_bad_cs(void)
{
	raise_with(bad_cs_handler);     /* sigreturn to CS 0 kills with SIGSEGV */
}

static void bad_mxcsr_handler(int sig, siginfo_t *si, void *ucv)
{
	unsigned long fpstate = *(unsigned long *)((char *)ucv + 40 + 23 * 8);  /* uc_mcontext.fpstate */

	(void)sig;
	(void)si;
	*(unsigned *)(fpstate + 24) |= 0x10000000;      /* a reserved MXCSR bit */
}

static void sigreturn_bad_mxcsr(void)
{
	raise_with(bad_mxcsr_handler);
}

/* Bug 9: rt_sigreturn to a bad code segment or with reserved MXCSR bits kills with SIGSEGV. */
static void t_sigreturn_bad_context(void)
{
	int st = run_in_child(sigreturn_bad_cs);

	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGSEGV);
	st = run_in_child(sigreturn_bad_mxcsr);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGSEGV);
}

/* The segment selectors of user code now: cs, ss, ds, es, fs, gs (in that order). */
static void read_selectors(unsigned short sel[6])
{
	__asm__ volatile("mov %%cs, %0\n\tmov %%ss, %1\n\tmov %%ds, %2\n\t"
			 "mov %%es, %3\n\tmov %%fs, %4\n\tmov %%gs, %5"
			 : "=r"(sel[0]), "=r"(sel[1]), "=r"(sel[2]), "=r"(sel[3]), "=r"(sel[4]), "=r"(sel[5]));
}

static unsigned short handler_sel[6], frame_cs, frame_ss;

static void on_usr1_selectors(int sig, siginfo_t *si, void *ucv)
{
	unsigned short *csgsfs = (unsigned short *)((char *)ucv + 40 + 18 * 8);    /* uc_mcontext.cs */

	(void)sig;
	(void)si;
	read_selectors(handler_sel);
	frame_cs = csgsfs[0];
	frame_ss = csgsfs[3];
}

/* Check Linux's user selectors: cs __USER_CS (0x33), ss __USER_DS (0x2b), ds = es = fs = gs = 0. */
static void check_linux_selectors(const unsigned short sel[6])
{
	CHECK_EQ(sel[0], 0x33);
	CHECK_EQ(sel[1], 0x2b);
	for (int i = 2; i < 6; i++)
		CHECK_EQ(sel[i], 0);
}

/*
 * Item 8: user code runs with Linux's selectors, from exec (IRET), after a
 * system call (SYSRET), in a signal handler and after rt_sigreturn; the
 * signal frame records cs and ss as Linux does. Linux: GDT entries 5 and 6
 * (__USER_DS = 0x2b, __USER_CS = 0x33); start_thread loads 0 into ds, es,
 * fs and gs of a 64-bit program and arch_prctl(ARCH_SET_FS) changes the fs
 * base only.
 */
static void t_user_selectors(void)
{
	unsigned short sel[6];

	read_selectors(sel);
	check_linux_selectors(sel);
	CHECK(getpid() > 0);
	read_selectors(sel);
	check_linux_selectors(sel);
	ut_catch_signal(SIGUSR1, on_usr1_selectors);
	CHECK_EQ(kill(getpid(), SIGUSR1), 0);
	check_linux_selectors(handler_sel);
	CHECK_EQ(frame_cs, 0x33);
	CHECK_EQ(frame_ss, 0x2b);
	read_selectors(sel);
	check_linux_selectors(sel);
}

static long sigtimedwait_k(sigset_t set, siginfo_t *info, long sec, long nsec, bool timeout)
{
	struct { long sec, nsec; } ts = { sec, nsec };

	return usys4(__NR_rt_sigtimedwait, (long)&set, (long)info, timeout ? (long)&ts : 0, 8);
}

static volatile int usr2_seen;

static void on_usr2(int sig)
{
	(void)sig;
	usr2_seen++;
}

/*
 * rt_sigtimedwait, as sigwait/sigtimedwait/sigwaitinfo use it: the pending
 * signal of the set comes back with its siginfo (lowest number first),
 * a blocked SIGCHLD left at SIG_DFL is queued for it (Linux never discards
 * a blocked signal), a zero timeout polls (EAGAIN), another signal's
 * handler ends the wait (EINTR), bad arguments get Linux's errno.
 */
static void t_sigtimedwait(void)
{
	sigset_t set = sigmask_of(SIGUSR1) | sigmask_of(SIGUSR2) | sigmask_of(SIGCHLD), pend;
	struct sigaction sa;
	siginfo_t info;
	int pid, st, *ints = (int *)&info, self = getpid();

	CHECK_EQ(sigprocmask(SIG_BLOCK, &set, NULL), 0);
	CHECK_EQ(sigtimedwait_k(set, &info, 0, 0, true), -EAGAIN);
	CHECK_EQ(sigtimedwait_k(set, &info, 0, 1000000000, true), -EINVAL);
	CHECK_EQ(sigtimedwait_k(set, &info, -1, 0, true), -EINVAL);
	CHECK_EQ(usys4(__NR_rt_sigtimedwait, (long)&set, 0, 0, 4), -EINVAL);
	CHECK_EQ(usys4(__NR_rt_sigtimedwait, 0x10, 0, 0, 8), -EFAULT);
	CHECK_EQ(sigtimedwait_k(set, &info, 0, 10000000, true), -EAGAIN);       /* 10 ms, nothing comes */

	CHECK_EQ(kill(getpid(), SIGUSR2), 0);
	CHECK_EQ(kill(getpid(), SIGUSR1), 0);
	memset(&info, 0, sizeof(info));
	CHECK_EQ(sigtimedwait_k(set, &info, 0, 0, false), SIGUSR1);
	CHECK_EQ(info.si_signo, SIGUSR1);
	CHECK_EQ(info.si_code, SI_USER);
	CHECK_EQ(ints[4], getpid());                                           /* si_pid */
	CHECK_EQ(sigtimedwait_k(set, NULL, 0, 0, true), SIGUSR2);
	CHECK_EQ(usys2(__NR_rt_sigpending, (long)&pend, 8), 0);
	CHECK_EQ(pend, 0);

	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(7);
	memset(&info, 0, sizeof(info));
	CHECK_EQ(sigtimedwait_k(sigmask_of(SIGCHLD), &info, 0, 0, false), SIGCHLD);
	CHECK_EQ(info.si_code, CLD_EXITED);
	CHECK_EQ(ints[4], pid);                                                /* si_pid */
	CHECK_EQ(ints[6], 7);                                                  /* si_status */
	CHECK_EQ(waitpid(pid, &st, 0), pid);

	/* a child keeps sending SIGUSR2 (unblocked, with a handler) while we wait for SIGUSR1 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	CHECK_EQ(sigaction(SIGUSR2, &sa, NULL), 0);
	pend = sigmask_of(SIGUSR2);
	CHECK_EQ(sigprocmask(SIG_UNBLOCK, &pend, NULL), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		for (;;) {
			kill(self, SIGUSR2);
			msleep(2);
		}
	}
	for (int i = 0; i < 100; i++) {
		long r = sigtimedwait_k(sigmask_of(SIGUSR1), NULL, 5, 0, true);

		CHECK(r == -EINTR || r == -EAGAIN);
		if (r == -EINTR)
			break;
		CHECK(i < 99);
	}
	CHECK(usr2_seen > 0);
	kill(pid, SIGKILL);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
}

static char disarm_stack[65536] __attribute__((aligned(16)));
static char other_stack[65536] __attribute__((aligned(16)));
static volatile long disarm_sp, nested_sp;
static volatile int disarm_inside_flags, disarm_frame_flags, disarm_set_err;
static volatile long disarm_frame_sp;

static void on_usr2_nested(int sig)
{
	volatile char here;

	(void)sig;
	nested_sp = (long)&here;
}

static void on_usr1_disarm(int sig, siginfo_t *si, void *ucv)
{
	struct stack_u cur, other = { other_stack, 0, sizeof(other_stack) };
	struct stack_u *uc_stack = (struct stack_u *)((char *)ucv + 16);         /* uc_stack */
	volatile char here;

	(void)sig;
	(void)si;
	disarm_sp = (long)&here;
	disarm_frame_sp = (long)uc_stack->ss_sp;
	disarm_frame_flags = uc_stack->ss_flags;
	usys2(__NR_sigaltstack, 0, (long)&cur);
	disarm_inside_flags = cur.ss_flags;
	kill(getpid(), SIGUSR2);                        /* SA_ONSTACK, but the stack is disarmed */
	disarm_set_err = (int)usys2(__NR_sigaltstack, (long)&other, 0);
}

/*
 * SS_AUTODISARM (Linux 4.7): the alternate stack is switched off while a
 * handler runs on it, so sigaltstack reports SS_DISABLE there, a nested
 * SA_ONSTACK handler runs further down the same stack (not from its top
 * again), a new stack may be installed; rt_sigreturn puts back the stack of
 * the frame (uc_stack: the old one, flags SS_AUTODISARM).
 */
static void t_sigaltstack_autodisarm(void)
{
	struct stack_u ss = { disarm_stack, (int)SS_AUTODISARM, sizeof(disarm_stack) }, cur;
	struct sigaction sa;

	CHECK_EQ(usys2(__NR_sigaltstack, (long)&ss, 0), 0);
	CHECK_EQ(usys2(__NR_sigaltstack, 0, (long)&cur), 0);
	CHECK_EQ(cur.ss_flags, (int)SS_AUTODISARM);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2_nested;
	sa.sa_flags = SA_ONSTACK;
	CHECK_EQ(sigaction(SIGUSR2, &sa, NULL), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1_disarm;
	sa.sa_flags = SA_ONSTACK | SA_SIGINFO;
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	CHECK_EQ(kill(getpid(), SIGUSR1), 0);
	CHECK(disarm_sp > (long)disarm_stack && disarm_sp < (long)disarm_stack + (long)sizeof(disarm_stack));
	CHECK_EQ(disarm_frame_sp, (long)disarm_stack);
	CHECK_EQ(disarm_frame_flags, (int)SS_AUTODISARM);
	CHECK_EQ(disarm_inside_flags, SS_DISABLE);
	CHECK(nested_sp > (long)disarm_stack && nested_sp < disarm_sp);
	CHECK_EQ(disarm_set_err, 0);
	CHECK_EQ(usys2(__NR_sigaltstack, 0, (long)&cur), 0);
	CHECK_EQ((long)cur.ss_sp, (long)disarm_stack);
	CHECK_EQ(cur.ss_size, sizeof(disarm_stack));
	CHECK_EQ(cur.ss_flags, (int)SS_AUTODISARM);
}

#define BAD_STACK_SIZE 65536
#define UC_SIGMASK     296              /* offsetof(ucontext_t, uc_sigmask) */

/* An alternate stack the kernel cannot write: mapped, installed, then PROT_NONE. */
static void *install_bad_altstack(void)
{
	void *p = mmap(NULL, BAD_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct stack_u ss = { p, 0, BAD_STACK_SIZE };

	CHECK(p != MAP_FAILED);
	CHECK_EQ(usys2(__NR_sigaltstack, (long)&ss, 0), 0);
	CHECK_EQ(mprotect(p, BAD_STACK_SIZE, PROT_NONE), 0);
	return p;
}

static volatile int bad_usr1_ran;

static void on_usr1_bad_stack(int sig)
{
	(void)sig;
	bad_usr1_ran = 1;               /* never: its frame cannot be written */
}

/* Install h for sig with flags and sa_mask mask (SA_SIGINFO when sigaction is set). */
static void set_action(int sig, void (*h)(int), void (*sa)(int, siginfo_t *, void *), unsigned long flags,
		       sigset_t mask)
{
	struct sigaction act;

	memset(&act, 0, sizeof(act));
	if (sa)
		act.sa_sigaction = sa;
	else
		act.sa_handler = h;
	act.sa_flags = flags | (sa ? SA_SIGINFO : 0);
	act.sa_mask = mask;
	CHECK_EQ(sigaction(sig, &act, NULL), 0);
}

static sigjmp_buf forced_jb;
static volatile int forced_signo, forced_code, forced_errno;
static volatile long forced_addr, forced_sp;
static volatile sigset_t forced_frame_mask;

static void on_segv_forced(int sig, siginfo_t *si, void *ucv)
{
	volatile char here;

	(void)sig;
	forced_signo = si->si_signo;
	forced_code = si->si_code;
	forced_errno = si->si_errno;
	forced_addr = (long)si->si_addr;
	forced_sp = (long)&here;
	forced_frame_mask = *(sigset_t *)((char *)ucv + UC_SIGMASK);
	siglongjmp(forced_jb, 1);
}

/*
 * A handler whose frame cannot be written (SA_ONSTACK on a PROT_NONE
 * alternate stack) gets the process a SIGSEGV: here a SIGSEGV handler on
 * the ordinary stack catches it and jumps back; see t_sigaltstack_bad_frame.
 */
static void bad_frame_caught(void)
{
	struct sigaction cur;
	struct stack_u ss;
	sigset_t before = sigmask_of(SIGTERM), now;
	void *stack = install_bad_altstack();

	set_action(SIGUSR1, on_usr1_bad_stack, NULL, SA_ONSTACK, sigmask_of(SIGSEGV) | sigmask_of(SIGUSR2));
	set_action(SIGSEGV, NULL, on_segv_forced, 0, 0);
	CHECK_EQ(sigprocmask(SIG_SETMASK, &before, NULL), 0);
	if (sigsetjmp(forced_jb, 1) == 0) {
		kill(getpid(), SIGUSR1);
		CHECK(0);               /* the SIGSEGV handler jumps back */
	}
	CHECK_EQ(bad_usr1_ran, 0);
	CHECK_EQ(forced_signo, SIGSEGV);
	CHECK_EQ(forced_code, SI_KERNEL);
	CHECK_EQ(forced_errno, 0);
	CHECK_EQ(forced_addr, 0);
	CHECK(forced_sp < (long)stack || forced_sp >= (long)stack + BAD_STACK_SIZE);
	CHECK_EQ(forced_frame_mask, before);
	CHECK_EQ(sigprocmask(SIG_SETMASK, NULL, &now), 0);
	CHECK_EQ(now, before);
	CHECK_EQ(sigaction(SIGSEGV, NULL, &cur), 0);
	CHECK_EQ((long)cur.sa_sigaction, (long)on_segv_forced);
	CHECK_EQ(sigaction(SIGUSR1, NULL, &cur), 0);
	CHECK_EQ((long)cur.sa_handler, (long)on_usr1_bad_stack);
	CHECK_EQ(usys2(__NR_sigaltstack, 0, (long)&ss), 0);
	CHECK_EQ((long)ss.ss_sp, (long)stack);
	CHECK_EQ(ss.ss_flags, 0);
}

static void raise_bad_frame(void)
{
	install_bad_altstack();
	set_action(SIGUSR1, on_usr1_bad_stack, NULL, SA_ONSTACK, 0);
	kill(getpid(), SIGUSR1);
	_exit(3);                       /* survived: wrong */
}

static void segv_handler_on_bad_stack(void)
{
	set_action(SIGSEGV, NULL, on_segv_forced, SA_ONSTACK, 0);
	raise_bad_frame();
}

static void segv_blocked(void)
{
	sigset_t segv = sigmask_of(SIGSEGV);

	set_action(SIGSEGV, NULL, on_segv_forced, 0, 0);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &segv, NULL), 0);
	raise_bad_frame();
}

static void segv_ignored(void)
{
	set_action(SIGSEGV, SIG_IGN, NULL, 0, 0);
	raise_bad_frame();
}

static void check_killed_by_segv(void (*fn)(void))
{
	int st = run_in_child(fn);

	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGSEGV);
}

/*
 * A handler nested on the alternate stack whose frame would not fit there
 * is not run: Linux's get_sigframe refuses a frame that would leave the
 * alternate stack it is on, and the delivery fails into SIGSEGV (here
 * the default action: the process dies of it). The handler (SA_ONSTACK |
 * SA_NODEFER) sends itself its signal again at every level, so each frame
 * goes below the last on the 16 KiB alternate stack; one frame is at most
 * a few KiB (Linux's xsave area included), so the stack overflows long
 * before the 40th level. Writable memory lies below the alternate stack
 * (64 KiB of it, more than 40 frames take), so a kernel that writes the
 * frames on regardless lets the handler reach level 40 and exit 0. (Found
 * by the fuzzer, seed 23: frames that overflowed an alternate stack wrote
 * over the thread's own stack below it.)
 */
#define OVF_BELOW (64 * 1024)
#define OVF_ALT (16 * 1024)
static char ovf_area[OVF_BELOW + OVF_ALT] __attribute__((aligned(4096)));
static volatile int ovf_depth;

static void on_usr2_ovf(int sig)
{
	if (++ovf_depth >= 40)
		_exit(0);
	kill(getpid(), sig);
}

static void altstack_overflow(void)
{
	struct stack_u ss = { ovf_area + OVF_BELOW, 0, OVF_ALT };

	CHECK_EQ(usys2(__NR_sigaltstack, (long)&ss, 0), 0);
	set_action(SIGUSR2, on_usr2_ovf, NULL, SA_ONSTACK | SA_NODEFER, 0);
	kill(getpid(), SIGUSR2);
	_exit(3);                       /* the handler returned: wrong */
}

static void t_sigaltstack_overflow(void)
{
	check_killed_by_segv(altstack_overflow);
}

/*
 * Issue 21: a handler whose frame cannot be written gets the process a
 * SIGSEGV, as Linux's force_sigsegv does: si_code SI_KERNEL (0x80),
 * si_errno 0, no address. A SIGSEGV handler on the ordinary stack runs
 * and may siglongjmp out, and the process goes on; the failed delivery
 * changes nothing else: the failed handler's sa_mask (SIGSEGV and SIGUSR2
 * here) is not applied, so SIGSEGV is not blocked and its frame saves the
 * mask of before (SIGTERM only); both handlers stay installed. The
 * SIGSEGV kills when it cannot be handled: its own handler's frame fails
 * too (SA_ONSTACK on the same bad stack: that second failure resets it to
 * SIG_DFL), or it is blocked or ignored (forced: unblocked, back to
 * SIG_DFL). Values from Linux 6.18.
 */
static void t_sigaltstack_bad_frame(void)
{
	CHECK_EQ(run_in_child(bad_frame_caught), 0);
	check_killed_by_segv(segv_handler_on_bad_stack);
	check_killed_by_segv(segv_blocked);
	check_killed_by_segv(segv_ignored);
}

const struct utest ut_sigx_tests[] = {
	{ "sigaltstack", t_sigaltstack },
	{ "itimer_pause", t_itimer_pause },
	{ "sa_restart", t_sa_restart },
	{ "sigsuspend", t_sigsuspend },
	{ "sysinfo", t_sysinfo },
	{ "prctl_name_padding", t_prctl_name_padding },
	{ "mincore_hole", t_mincore_hole },
	{ "kill_zombie", t_kill_zombie },
	{ "signal_errno_order", t_signal_errno_order },
	{ "clock_ids", t_clock_ids },
	{ "getrandom_range", t_getrandom_range },
	{ "kernel_address_maperr", t_kernel_address_maperr },
	{ "sigreturn_bad_context", t_sigreturn_bad_context },
	{ "user_selectors", t_user_selectors },
	{ "sigtimedwait", t_sigtimedwait },
	{ "sigaltstack_autodisarm", t_sigaltstack_autodisarm },
	{ "sigaltstack_bad_frame", t_sigaltstack_bad_frame },
	{ "sigaltstack_overflow", t_sigaltstack_overflow },
	{ NULL, NULL },
};
