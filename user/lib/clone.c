/* clone onto a given stack (user/include/uclone.h). */
#include "uclone.h"
#include "usys.h"

long clone_on_stack(long flags, char *stack_top, int (*fn)(void *), void *arg, volatile int *tid)
{
	uint64_t *sp = (uint64_t *)stack_top - 2;
	long ret;

	/* The child finds fn and arg on its stack: nothing else survives the clone but registers. */
	sp[0] = (uint64_t)fn;
	sp[1] = (uint64_t)arg;
	register long r10 __asm__("r10") = (long)tid;   /* child_tid */
	register long r8 __asm__("r8") = 0;             /* tls */
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "pop %%rax\n\t"
			 "pop %%rdi\n\t"
			 "call *%%rax\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov $60, %%eax\n\t"   /* exit: this thread only */
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "0"((long)__NR_clone), "D"(flags), "S"(sp), "d"(tid), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}
