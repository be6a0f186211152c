/*
 * setjmp.S - setjmp/longjmp and sigsetjmp/siglongjmp for x86-64.
 *
 * Buffer layout (usetjmp.h): 0 rbx, 8 rbp, 16 r12, 24 r13, 32 r14, 40 r15,
 * 48 rsp (caller's, after return), 56 rip (return address), 64 savemask,
 * 72 saved signal mask (8 bytes, rt_sigprocmask's kernel sigset).
 * syscall clobbers rax, rcx and r11 only.
 */
	.text

	.globl sigsetjmp
	.type sigsetjmp, @function
/* int sigsetjmp(sigjmp_buf env (rdi), int savemask (esi)) */
sigsetjmp:
	movq %rbx, 0(%rdi)
	movq %rbp, 8(%rdi)
	movq %r12, 16(%rdi)
	movq %r13, 24(%rdi)
	movq %r14, 32(%rdi)
	movq %r15, 40(%rdi)
	leaq 8(%rsp), %rdx
	movq %rdx, 48(%rdi)
	movq (%rsp), %rdx
	movq %rdx, 56(%rdi)
	movl %esi, %esi
	movq %rsi, 64(%rdi)
	testl %esi, %esi
	jz 1f
	/* rt_sigprocmask(SIG_BLOCK, NULL, &env->mask, 8): read the mask */
	leaq 72(%rdi), %rdx
	xorl %esi, %esi
	xorl %edi, %edi
	movl $8, %r10d
	movl $14, %eax
	syscall
1:	xorl %eax, %eax
	ret
	.size sigsetjmp, . - sigsetjmp

	.globl setjmp
	.type setjmp, @function
/* int setjmp(jmp_buf env): sigsetjmp(env, 0) with the same frame */
setjmp:
	xorl %esi, %esi
	jmp sigsetjmp
	.size setjmp, . - setjmp

	.globl siglongjmp
	.type siglongjmp, @function
/* void siglongjmp(sigjmp_buf env (rdi), int val (esi)) */
siglongjmp:
	movq %rdi, %r8
	movl %esi, %r9d
	cmpq $0, 64(%r8)
	je 1f
	/* rt_sigprocmask(SIG_SETMASK, &env->mask, NULL, 8) */
	leaq 72(%r8), %rsi
	movl $2, %edi
	xorl %edx, %edx
	movl $8, %r10d
	movl $14, %eax
	syscall
1:	movq 0(%r8), %rbx
	movq 8(%r8), %rbp
	movq 16(%r8), %r12
	movq 24(%r8), %r13
	movq 32(%r8), %r14
	movq 40(%r8), %r15
	movq 48(%r8), %rsp
	movl %r9d, %eax
	testl %eax, %eax
	jnz 2f
	movl $1, %eax
2:	jmpq *56(%r8)
	.size siglongjmp, . - siglongjmp

	.globl longjmp
	.type longjmp, @function
longjmp:
	jmp siglongjmp
	.size longjmp, . - longjmp

	.section .note.GNU-stack, "", @progbits
