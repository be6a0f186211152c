/*
 * Signal tests: SIGSEGV caught and recovered with siglongjmp (si_code,
 * si_addr), writes to read-only memory and execution of NX memory fault,
 * SIGILL and SIGFPE, a handler run by kill() that returns through
 * rt_sigreturn with registers and mask restored, SIGKILL cannot be caught,
 * an uncaught SIGSEGV kills, ignored signals do nothing.
 */
#include "utests.h"

#define PG 4096UL

static sigjmp_buf jb;
static volatile int got_sig, got_code;
static volatile long got_addr;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_sig = sig;
	got_code = si->si_code;
	got_addr = (long)si->si_addr;
	siglongjmp(jb, 1);
}

static void catch_sig(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	CHECK_EQ(sigaction(sig, &sa, NULL), 0);
	got_sig = got_code = 0;
	got_addr = 0;
}

/* NULL-page access caught twice in a row (siglongjmp restores the mask, so the second is caught too). */
static void t_segv_caught(void)
{
	volatile int *volatile bad = (volatile int *)8;

	catch_sig(SIGSEGV);
	for (int round = 0; round < 2; round++) {
		got_sig = 0;
		if (sigsetjmp(jb, 1) == 0) {
			*bad = 1;
			CHECK(!"no fault");
		}
		CHECK_EQ(got_sig, SIGSEGV);
		CHECK_EQ(got_code, SEGV_MAPERR);
		CHECK_EQ(got_addr, 8);
	}
}

/* A write to a page made read-only faults with SEGV_ACCERR at that address; reading still works. */
static void t_write_readonly(void)
{
	char *p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	p[10] = 'r';
	CHECK_EQ(mprotect(p, PG, PROT_READ), 0);
	catch_sig(SIGSEGV);
	if (sigsetjmp(jb, 1) == 0) {
		((volatile char *)p)[20] = 1;
		CHECK(!"no fault");
	}
	CHECK_EQ(got_code, SEGV_ACCERR);
	CHECK_EQ(got_addr, (long)(p + 20));
	CHECK_EQ(p[10], 'r');
}

/* Jumping into a writable, non-executable page faults (NX) with SEGV_ACCERR at the page. */
static void t_exec_nx(void)
{
	unsigned char *p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void (*fn)(void) = (void (*)(void))p;

	CHECK(p != MAP_FAILED);
	p[0] = 0xc3;                    /* ret */
	catch_sig(SIGSEGV);
	if (sigsetjmp(jb, 1) == 0) {
		fn();
		CHECK(!"executed a non-executable page");
	}
	CHECK_EQ(got_code, SEGV_ACCERR);
	CHECK_EQ(got_addr, (long)p);
	/* made executable, the same code runs */
	CHECK_EQ(mprotect(p, PG, PROT_READ | PROT_EXEC), 0);
	fn();
}

/* CPUID.(7,0):ECX.OSPKE: the kernel turned protection keys on (CR4.PKE). */
static bool os_uses_pkeys(void)
{
	unsigned a = 7, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return (c >> 4) & 1;
}

/*
 * PROT_EXEC alone. Where the kernel uses protection keys (OSPKE), Linux
 * makes the page execute-only: it runs, but a load or a store faults with
 * SEGV_PKUERR, and the kernel's own reads of it fail with EFAULT. Without
 * them any x86 page that can run can be read (a store is SEGV_ACCERR).
 * Checked on Linux 6.18 with and without PKU; OSPKE decides which applies.
 */
static void t_exec_only(void)
{
	unsigned char *p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void (*fn)(void) = (void (*)(void))p;
	bool pk = os_uses_pkeys();
	sigset_t old;
	int r;

	CHECK(p != MAP_FAILED);
	p[0] = 0xc3;                    /* ret */
	p[1] = 0x5a;
	CHECK_EQ(mprotect(p, PG, PROT_EXEC), 0);
	fn();
	catch_sig(SIGSEGV);
	if (sigsetjmp(jb, 1) == 0) {
		CHECK_EQ(((volatile unsigned char *)p)[1], 0x5a);
		CHECK(!pk);
	} else {
		CHECK(pk);
		CHECK_EQ(got_code, SEGV_PKUERR);
		CHECK_EQ(got_addr, (long)(p + 1));
	}
	catch_sig(SIGSEGV);
	if (sigsetjmp(jb, 1) == 0) {
		((volatile unsigned char *)p)[2] = 1;
		CHECK(!"wrote an execute-only page");
	}
	CHECK_EQ(got_code, pk ? SEGV_PKUERR : SEGV_ACCERR);
	/* The kernel reads the page as a signal mask (restored at once). */
	r = sigprocmask(SIG_BLOCK, (sigset_t *)p, &old);
	CHECK_EQ(r, pk ? -1 : 0);
	if (r == 0)
		CHECK_EQ(sigprocmask(SIG_SETMASK, &old, NULL), 0);
	else
		CHECK_EQ(errno, EFAULT);
	/* Readable again once PROT_READ is back. */
	CHECK_EQ(mprotect(p, PG, PROT_READ | PROT_EXEC), 0);
	CHECK_EQ(p[1], 0x5a);
	fn();
	CHECK_EQ(munmap(p, PG), 0);
}

/* ud2 gives SIGILL at its address; integer division by zero SIGFPE. */
static void t_ill_fpe(void)
{
	volatile long zero = 0, one = 1;

	catch_sig(SIGILL);
	if (sigsetjmp(jb, 1) == 0)
		__asm__ volatile("ud2");
	CHECK_EQ(got_sig, SIGILL);
	catch_sig(SIGFPE);
	if (sigsetjmp(jb, 1) == 0)
		one = one / zero;
	CHECK_EQ(got_sig, SIGFPE);
	CHECK_EQ(got_code, 1);          /* FPE_INTDIV */
	catch_sig(SIGTRAP);
	if (sigsetjmp(jb, 1) == 0)
		__asm__ volatile("int3");
	CHECK_EQ(got_sig, SIGTRAP);
	CHECK_EQ(got_code, 0x80);       /* SI_KERNEL, as Linux reports int3 */
}

static volatile int usr1_count;
static volatile unsigned long mask_in_handler;

static void on_usr1(int sig)
{
	sigset_t cur;

	usr1_count += sig;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	mask_in_handler = cur;
}

/*
 * kill(self, SIGUSR1) runs the handler before kill returns; the handler
 * runs with SIGUSR1 (and sa_mask's SIGUSR2) blocked; afterwards the mask
 * is back and the interrupted code's registers (a loop of values kept in
 * registers across the call) are intact.
 */
static void t_handler_returns(void)
{
	struct sigaction sa;
	sigset_t cur;
	register long a = 0x1111, b = 0x2222, c = 0x3333;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_mask = sigmask_of(SIGUSR2);
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(kill(getpid(), SIGUSR1), 0);
		a += 1; b += 2; c += 3;
		__asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c));
	}
	CHECK_EQ(usr1_count, 3 * SIGUSR1);
	CHECK_EQ(a, 0x1114);
	CHECK_EQ(b, 0x2228);
	CHECK_EQ(c, 0x333c);
	CHECK(mask_in_handler & sigmask_of(SIGUSR1));
	CHECK(mask_in_handler & sigmask_of(SIGUSR2));
	CHECK_EQ(sigprocmask(SIG_BLOCK, NULL, &cur), 0);
	CHECK_EQ(cur, 0);
}

/* SIGKILL and SIGSTOP cannot be caught; bad signal numbers are EINVAL. */
static void t_sigaction_errors(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	CHECK_EQ(sigaction(SIGKILL, &sa, NULL), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(sigaction(19, &sa, NULL), -1);
	CHECK_EQ(sigaction(0, &sa, NULL), -1);
	CHECK_EQ(sigaction(65, &sa, NULL), -1);
	CHECK_EQ(usys4(__NR_rt_sigaction, SIGUSR1, (long)&sa, 0, 4), -EINVAL);   /* sigsetsize */
	CHECK_EQ(usys4(__NR_rt_sigaction, SIGUSR1, 0xffffffff81000000L, 0, 8), -EFAULT);
}

static void segv_uncaught(void)
{
	volatile int *volatile bad = (volatile int *)0x10;

	*bad = 1;
}

static void sigchld_ignored(void)
{
	kill(getpid(), SIGCHLD);        /* default action: ignore */
	kill(getpid(), 28);     /* SIGWINCH */
}

/* An uncaught SIGSEGV kills with status SIGSEGV; default-ignored signals do nothing. */
static void t_default_actions(void)
{
	int st = run_in_child(segv_uncaught);

	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGSEGV);
	st = run_in_child(sigchld_ignored);
	CHECK_EQ(st, 0);
}

/* A blocked SIGSEGV from a fault is still delivered (forced, default action): the process dies. */
static void blocked_segv(void)
{
	sigset_t all = sigmask_of(SIGSEGV);

	sigprocmask(SIG_BLOCK, &all, NULL);
	segv_uncaught();
}

static void t_blocked_fault_kills(void)
{
	int st = run_in_child(blocked_segv);

	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGSEGV);
}

const struct utest ut_sig_tests[] = {
	{ "segv_caught", t_segv_caught },
	{ "write_readonly", t_write_readonly },
	{ "exec_nx", t_exec_nx },
	{ "exec_only", t_exec_only },
	{ "ill_fpe", t_ill_fpe },
	{ "handler_returns", t_handler_returns },
	{ "sigaction_errors", t_sigaction_errors },
	{ "default_actions", t_default_actions },
	{ "blocked_fault_kills", t_blocked_fault_kills },
	{ NULL, NULL },
};
