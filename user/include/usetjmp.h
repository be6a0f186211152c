/*
 * usetjmp.h - setjmp/longjmp and sigsetjmp/siglongjmp (x86-64 assembly in
 * user/lib/setjmp.S). sigsetjmp with savemask != 0 saves the signal mask with
 * rt_sigprocmask and siglongjmp restores it, so jumping out of a signal
 * handler unblocks the signal again.
 */
#ifndef USETJMP_H
#define USETJMP_H

#include <stdint.h>

/* rbx rbp r12 r13 r14 r15 rsp rip | savemask | mask. Layout used by setjmp.S. */
typedef struct {
	uint64_t regs[8];
	uint64_t savemask;
	uint64_t mask;
} sigjmp_buf[1];
typedef sigjmp_buf jmp_buf;

int sigsetjmp(sigjmp_buf env, int savemask) __attribute__((returns_twice));
void siglongjmp(sigjmp_buf env, int val) __attribute__((noreturn));
int setjmp(jmp_buf env) __attribute__((returns_twice));
void longjmp(jmp_buf env, int val) __attribute__((noreturn));

#endif
