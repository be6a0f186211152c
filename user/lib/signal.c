/*
 * signal.c - sigaction with an SA_RESTORER trampoline, sigprocmask.
 *
 * On x86-64 Linux the kernel builds the signal frame (struct rt_sigframe:
 * return address = sa_restorer, then ucontext and siginfo) on the user stack
 * below the red zone; when the handler returns it jumps to sa_restorer, which
 * must issue rt_sigreturn so the kernel restores the interrupted context.
 */
#include "ulib.h"

/* The trampoline: a handler's "ret" lands here with rsp just past the return
 * address; rt_sigreturn finds the ucontext at that rsp. No frame may be built. */
__asm__(".text\n"
	".globl __urestore_rt\n"
	".type __urestore_rt, @function\n"
	"__urestore_rt:\n"
	"	movq $15, %rax\n"     /* __NR_rt_sigreturn */
	"	syscall\n"
	"	hlt\n"
	".size __urestore_rt, . - __urestore_rt\n");

/* sigaction - see usignal.h. */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction k;
	const struct sigaction *kp = NULL;

	if (act) {
		k = *act;
		k.sa_flags |= SA_RESTORER;
		k.sa_restorer = __urestore_rt;
		kp = &k;
	}
	return (int)uerrno_ret(usys4(__NR_rt_sigaction, sig, (long)kp, (long)old,
				     sizeof(sigset_t)));
}

/* sigprocmask - see usignal.h. */
int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return (int)uerrno_ret(usys4(__NR_rt_sigprocmask, how, (long)set, (long)old,
				     sizeof(sigset_t)));
}
