/*
 * entry.S - process entry. The kernel enters _start with rsp pointing at
 * argc, followed by argv[] (NULL-terminated), envp[] (NULL-terminated) and
 * the auxiliary vector, as Linux x86-64 lays out the initial stack. rsp is
 * 16-byte aligned here; we clear rbp (end of the frame chain) and pass the
 * stack pointer to __ustart (start.c), which never returns.
 */
	.text
	.globl _start
	.type _start, @function
_start:
	xorl %ebp, %ebp
	movq %rsp, %rdi
	andq $-16, %rsp
	call __ustart
	hlt
	.size _start, . - _start

	.section .note.GNU-stack, "", @progbits
