/*
 * The architecture's half of signal delivery (arch/x86_64/signal_frame.c):
 * the frame a handler runs on and rt_sigreturn's restore from it, in the
 * layout Linux gives the architecture. kernel/signal/signal.c decides which
 * signal, which stack and which mask; these move the registers.
 */
#ifndef SIGNAL_FRAME_H
#define SIGNAL_FRAME_H

#include "signal.h"

struct trap_frame;

/* What sigaltstack reports (uc_stack in the frame): the alternate stack and its SS_* flags. */
struct signal_stack {
	uint64_t sp;
	int32_t flags;
	uint64_t size;
};

/* The user stack pointer tf returns to user space with. */
uint64_t arch_user_sp(const struct trap_frame *tf);

/*
 * arch_signal_frame_setup: push the frame for a handler of sig (ka) onto
 * the user stack: below top (the alternate stack's end), or when top is 0
 * below the interrupted stack pointer and its red zone. The frame keeps
 * tf's registers, the FPU state, oldmask (restored by rt_sigreturn), ss
 * and info; tf then enters the handler (its arguments: sig, &info, &uc)
 * with a fresh FPU state. 0, or -EFAULT (no restorer, a handler outside
 * user space, a stack not writable, a frame that would leave the
 * alternate stack it goes on, ss): tf is then unchanged.
 */
int arch_signal_frame_setup(struct trap_frame *tf, int sig, const struct k_sigaction *ka,
			    const struct k_siginfo *info, ksigset_t oldmask,
			    const struct signal_stack *ss, uint64_t top);

/*
 * arch_signal_frame_restore: rt_sigreturn: read the frame the handler
 * returned from and restore tf and the FPU state from it, with Linux's
 * checks (rip in user space, user segment selectors, MXCSR's reserved bits
 * clear). *mask and *ss get the saved blocked set and uc_stack, *ret the
 * restored return-value register (which rt_sigreturn returns, so that it
 * stays). 0, or -EFAULT (the caller raises SIGSEGV). Either way the system
 * call is not restarted.
 */
int arch_signal_frame_restore(struct trap_frame *tf, ksigset_t *mask, struct signal_stack *ss, long *ret);

#endif
