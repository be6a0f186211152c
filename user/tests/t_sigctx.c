/*
 * What rt_sigreturn accepts of a handler's changes to uc_mcontext's cs, ss
 * and eflags, as x86-64 Linux 6.x's restore_sigcontext does it: cs and ss
 * come back with RPL 3 forced (selector | 3); an ss that is not a usable
 * stack segment is replaced by __USER_DS (0x2b) when the handler cleared
 * UC_STRICT_RESTORE_SS in uc_flags, and kills with SIGSEGV (the return to
 * user mode faults) when the flag is set, as in every frame the kernel
 * builds for 64-bit code; a cs that is not a user code segment kills with
 * SIGSEGV; of eflags only AC OF DF TF SF ZF AF PF CF RF are taken, the rest
 * (IF, IOPL, NT, VM, ID) stay as they were. Linux's __USER32_CS (0x23)
 * would resume in 32-bit compatibility mode, which this kernel does not
 * have (docs/abi.md): that case is not here.
 */
#include "utests.h"

#define UC_STRICT_RESTORE_SS 0x4UL
#define UC_MCONTEXT          40                 /* offsetof(ucontext_t, uc_mcontext) */
#define SC_EFLAGS            (UC_MCONTEXT + 17 * 8)
#define SC_CS                (UC_MCONTEXT + 18 * 8)
#define SC_SS                (SC_CS + 6)
#define EFLAGS_TF            0x100UL

/* What the SIGUSR1 handler writes into the frame; set before the child forks. */
static struct {
	bool set_cs, set_ss, clear_strict, set_eflags;
	unsigned short cs, ss;
	unsigned long eflags;
} patch;

static void on_usr1_patch(int sig, siginfo_t *si, void *ucv)
{
	char *uc = ucv;

	(void)sig;
	(void)si;
	if (patch.set_cs)
		*(unsigned short *)(uc + SC_CS) = patch.cs;
	if (patch.set_ss)
		*(unsigned short *)(uc + SC_SS) = patch.ss;
	if (patch.clear_strict)
		*(unsigned long *)uc &= ~UC_STRICT_RESTORE_SS;
	if (patch.set_eflags)
		*(unsigned long *)(uc + SC_EFLAGS) = patch.eflags;
}

struct after_return {
	unsigned long eflags;
	unsigned short cs, ss;
};

/*
 * kill(getpid(), SIGUSR1) as one syscall instruction; the handler runs on
 * its way back, and the instructions right after it read RFLAGS, cs and ss
 * as rt_sigreturn left them, then put back plain flags (IF) before any
 * compiled code runs (a handler may have set DF or AC). Skips the red zone.
 */
static struct after_return kill_self_and_read(void)
{
	struct after_return r;
	long ret = __NR_kill;

	ut_catch_signal(SIGUSR1, on_usr1_patch);
	__asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
			 "syscall\n\t"
			 "pushfq\n\t"
			 "popq %1\n\t"
			 "pushq $0x202\n\t"
			 "popfq\n\t"
			 "lea 128(%%rsp), %%rsp\n\t"
			 "movw %%cs, %2\n\t"
			 "movw %%ss, %3"
			 : "+a"(ret), "=&r"(r.eflags), "=&r"(r.cs), "=&r"(r.ss)
			 : "D"((long)getpid()), "S"((long)SIGUSR1)
			 : "rcx", "r11", "memory", "cc");
	CHECK_EQ(ret, 0);
	return r;
}

/* The child: the handler's patch is taken; cs 0x33, ss 0x2b after the return. */
static void child_selectors_ok(void)
{
	struct after_return r = kill_self_and_read();

	CHECK_EQ(r.cs, 0x33);
	CHECK_EQ(r.ss, 0x2b);
}

/* Run child_selectors_ok with the handler writing cs (when cs >= 0) and ss (when ss >= 0); its wait status. */
static int selectors_case(int cs, int ss, bool strict)
{
	patch.set_cs = cs >= 0;
	patch.cs = (unsigned short)cs;
	patch.set_ss = ss >= 0;
	patch.ss = (unsigned short)ss;
	patch.clear_strict = !strict;
	patch.set_eflags = false;
	return run_in_child(child_selectors_ok);
}

static void check_returns(int st)
{
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
}

static void check_segv(int st)
{
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGSEGV);
}

/*
 * cs and ss written by the handler, each case in its own child. RPL 0 is
 * raised to 3 (0x30 -> 0x33, 0x28 -> 0x2b); kernel code (0x10 | 3), user
 * data as code (0x2b) and a null or code ss with UC_STRICT_RESTORE_SS kill
 * with SIGSEGV; without the flag a bad ss (null, code, Linux's read-only
 * per-CPU segment 0x7b) becomes 0x2b.
 */
static void t_sigreturn_selectors(void)
{
	check_returns(selectors_case(-1, -1, true));
	check_returns(selectors_case(0x33, 0x2b, true));
	check_returns(selectors_case(0x30, 0x28, true));
	check_segv(selectors_case(0x2b, -1, true));
	check_segv(selectors_case(0x13, -1, true));
	check_segv(selectors_case(0x10, -1, true));
	check_segv(selectors_case(0, -1, true));
	check_segv(selectors_case(-1, 0, true));
	check_segv(selectors_case(-1, 0x33, true));
	check_segv(selectors_case(-1, 0x7b, true));
	check_returns(selectors_case(-1, 0, false));
	check_returns(selectors_case(-1, 0x33, false));
	check_returns(selectors_case(-1, 0x7b, false));
	check_returns(selectors_case(-1, 0x2b, false));
	check_segv(selectors_case(0x2b, 0x2b, false));
}

static unsigned long want_eflags;

static void child_eflags(void)
{
	struct after_return r = kill_self_and_read();

	CHECK_EQ(r.eflags, want_eflags);
	CHECK_EQ(r.cs, 0x33);
	CHECK_EQ(r.ss, 0x2b);
}

/* Run child_eflags with the handler writing eflags = v; expect RFLAGS = want right after the return. */
static void eflags_case(unsigned long v, unsigned long want)
{
	memset(&patch, 0, sizeof(patch));
	patch.set_eflags = true;
	patch.eflags = v;
	want_eflags = want;
	check_returns(run_in_child(child_eflags));
}

/*
 * eflags written by the handler. All bits but TF (which would single-step):
 * CF PF AF ZF SF DF OF AC come back (0x40cd5), with IF and the fixed bit 1
 * as before (0x202); IOPL, NT, VM, VIF, VIP, ID and RF do not show (RF is
 * never pushed). Zero: IF stays on. Only IF and IOPL cleared/set: ignored.
 */
static void t_sigreturn_eflags(void)
{
	eflags_case(~EFLAGS_TF, 0x40ed7);
	eflags_case(0, 0x202);
	eflags_case(0x3000 | 0x4000 | 0x200000, 0x202);
	eflags_case(0x1 | 0x40 | 0x400, 0x643);
}

const struct utest ut_sigctx_tests[] = {
	{ "sigreturn_selectors", t_sigreturn_selectors },
	{ "sigreturn_eflags", t_sigreturn_eflags },
	{ NULL, NULL },
};
