/*
 * Linux x86-64's rt_sigframe (include/signal_frame.h).
 *
 * Frame, from the handler's rsp up (Linux arch/x86/kernel/signal_64.c):
 *   rsp        return address = sa_restorer
 *   rsp + 8    struct ucontext (uc_flags, uc_link, uc_stack, sigcontext, uc_sigmask)
 *   rsp + 312  siginfo (128 bytes)
 *   ...        (padding) the 512-byte FXSAVE image, 64-byte aligned, that
 *              sigcontext.fpstate points at
 *   old rsp - 128: the red zone is skipped
 * rsp + 8 is 16-byte aligned, as after a call. The handler gets rdi = sig,
 * rsi = &info, rdx = &uc, rax = 0 and a fresh FPU state.
 */
#include "signal_frame.h"
#include "task.h"
#include "uaccess.h"
#include "x86.h"
#include "mm.h"
#include "kstring.h"
#include "kerrno.h"

struct sigcontext_k {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;
	uint64_t reserved1[8];
};

struct ucontext_k {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct {
		uint64_t ss_sp;
		int32_t ss_flags;
		int32_t pad;
		uint64_t ss_size;
	} uc_stack;
	struct sigcontext_k uc_mcontext;
	ksigset_t uc_sigmask;
};

struct rt_sigframe_k {
	uint64_t pretcode;
	struct ucontext_k uc;
	struct k_siginfo info;
};

_Static_assert(sizeof(struct sigcontext_k) == 256, "Linux struct sigcontext is 256 bytes");
_Static_assert(sizeof(struct ucontext_k) == 304, "Linux struct ucontext is 304 bytes");
_Static_assert(sizeof(struct k_siginfo) == 128, "siginfo_t is 128 bytes");
_Static_assert(offsetof(struct rt_sigframe_k, info) == 312, "rt_sigframe layout");

#define UC_SIGCONTEXT_SS      0x2
#define UC_STRICT_RESTORE_SS  0x4
#define RED_ZONE              128
#define FPU_IMAGE             512
/* RFLAGS bits user code may change through sigreturn: AC OF DF TF SF ZF AF PF CF RF. */
#define FIX_EFLAGS            0x50DD5UL

uint64_t arch_user_sp(const struct trap_frame *tf)
{
	return tf->rsp;
}

/* The sigcontext of tf, interrupted by sig (info), with oldmask and the FPU image at fpstate. */
static struct sigcontext_k sigcontext_of(const struct trap_frame *tf, int sig, const struct k_siginfo *info,
					 ksigset_t oldmask, uint64_t fpstate)
{
	return (struct sigcontext_k){
		.r8 = tf->r8, .r9 = tf->r9, .r10 = tf->r10, .r11 = tf->r11,
		.r12 = tf->r12, .r13 = tf->r13, .r14 = tf->r14, .r15 = tf->r15,
		.rdi = tf->rdi, .rsi = tf->rsi, .rbp = tf->rbp, .rbx = tf->rbx,
		.rdx = tf->rdx, .rax = tf->rax, .rcx = tf->rcx, .rsp = tf->rsp,
		.rip = tf->rip, .eflags = tf->rflags,
		.cs = USER_CS, .ss = USER_DS,
		.err = tf->vector < 32 ? tf->error : 0,
		.trapno = tf->vector < 32 ? tf->vector : 0,
		.oldmask = oldmask,
		.cr2 = (sig == SIGSEGV || sig == SIGBUS) ? info->addr : 0,
		.fpstate = fpstate,
	};
}

int arch_signal_frame_setup(struct trap_frame *tf, int sig, const struct k_sigaction *ka,
			    const struct k_siginfo *info, ksigset_t oldmask,
			    const struct signal_stack *ss, uint64_t top)
{
	struct task *t = current;
	struct rt_sigframe_k fr;
	uintptr_t sp, fpstate;

	if (!(ka->flags & SA_RESTORER) || ka->handler >= TASK_SIZE)
		return -EFAULT;
	sp = top ? top : tf->rsp - RED_ZONE;
	fpstate = ALIGN_DOWN(sp - FPU_IMAGE, 64UL);
	sp = ALIGN_DOWN(fpstate - sizeof(fr), 16UL) - 8;
	/*
	 * On the alternate stack (entering it, or nested there), a frame that
	 * would not fit is refused rather than written over what lies below
	 * it, as Linux's get_sigframe does: the delivery fails (SIGSEGV).
	 */
	if ((top || (ss->flags & SS_ONSTACK)) && !(sp > ss->sp && sp - ss->sp <= ss->size))
		return -EFAULT;

	memset(&fr, 0, sizeof(fr));
	fr.pretcode = ka->restorer;
	fr.uc.uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	fr.uc.uc_stack.ss_sp = ss->sp;
	fr.uc.uc_stack.ss_flags = ss->flags;
	fr.uc.uc_stack.ss_size = ss->size;
	fr.uc.uc_mcontext = sigcontext_of(tf, sig, info, oldmask, fpstate);
	fr.uc.uc_sigmask = oldmask;
	fr.info = *info;

	arch_task_save_fpu(t);
	if (copy_to_user((void *)fpstate, t->arch.fpu, FPU_IMAGE) ||
	    copy_to_user((void *)sp, &fr, sizeof(fr)))
		return -EFAULT;

	tf->rdi = sig;
	tf->rsi = sp + offsetof(struct rt_sigframe_k, info);
	tf->rdx = sp + offsetof(struct rt_sigframe_k, uc);
	tf->rax = 0;
	tf->rip = ka->handler;
	tf->rsp = sp;
	tf->cs = USER_CS;
	tf->ss = USER_DS;
	tf->rflags &= ~(RFLAGS_DF | RFLAGS_RF | RFLAGS_TF);
	arch_task_reset_fpu(t);
	arch_task_load_fpu(t);
	return 0;
}

/* The FPU image of sc into t's (a fresh one when sc has none); -EFAULT when unreadable or invalid. */
static int restore_fpu(struct task *t, const struct sigcontext_k *sc)
{
	uint32_t mxcsr;

	if (!sc->fpstate) {
		arch_task_reset_fpu(t);
		return 0;
	}
	if (copy_from_user(t->arch.fpu, (const void *)sc->fpstate, FPU_IMAGE))
		return -EFAULT;
	memcpy(&mxcsr, t->arch.fpu + 24, sizeof(mxcsr));
	if (mxcsr & 0xffff0000U) {     /* reserved MXCSR bits: Linux's restore fails */
		arch_task_reset_fpu(t);
		return -EFAULT;
	}
	return 0;
}

/* The frame at the handler's rsp - 8 (its return popped pretcode) into fr, checked as Linux; 0 or -EFAULT. */
static int read_frame(struct task *t, const struct trap_frame *tf, struct rt_sigframe_k *fr)
{
	const struct sigcontext_k *sc = &fr->uc.uc_mcontext;

	if (copy_from_user(fr, (const void *)(tf->rsp - 8), sizeof(*fr)) || sc->rip >= TASK_SIZE)
		return -EFAULT;
	/* Linux returns with cs|3 and ss|3: anything but the user selectors faults (SIGSEGV) */
	if ((sc->cs | 3) != USER_CS || ((fr->uc.uc_flags & UC_STRICT_RESTORE_SS) && (sc->ss | 3) != USER_DS))
		return -EFAULT;
	return restore_fpu(t, sc);
}

int arch_signal_frame_restore(struct trap_frame *tf, ksigset_t *mask, struct signal_stack *ss, long *ret)
{
	struct task *t = current;
	struct rt_sigframe_k fr;
	const struct sigcontext_k *sc = &fr.uc.uc_mcontext;

	if (read_frame(t, tf, &fr)) {
		tf->error = SYSCALL_NO_RESTART;
		return -EFAULT;
	}
	tf->r8 = sc->r8; tf->r9 = sc->r9; tf->r10 = sc->r10; tf->r11 = sc->r11;
	tf->r12 = sc->r12; tf->r13 = sc->r13; tf->r14 = sc->r14; tf->r15 = sc->r15;
	tf->rdi = sc->rdi; tf->rsi = sc->rsi; tf->rbp = sc->rbp; tf->rbx = sc->rbx;
	tf->rdx = sc->rdx; tf->rax = sc->rax; tf->rcx = sc->rcx; tf->rsp = sc->rsp;
	tf->rip = sc->rip;
	tf->rflags = (tf->rflags & ~FIX_EFLAGS) | (sc->eflags & FIX_EFLAGS);
	tf->cs = USER_CS;
	tf->ss = USER_DS;
	tf->vector = VEC_SYSCALL;
	tf->error = SYSCALL_NO_RESTART;
	arch_task_load_fpu(t);
	*mask = fr.uc.uc_sigmask;
	*ss = (struct signal_stack){ .sp = fr.uc.uc_stack.ss_sp, .flags = fr.uc.uc_stack.ss_flags,
				     .size = fr.uc.uc_stack.ss_size };
	*ret = (long)tf->rax;
	return 0;
}
