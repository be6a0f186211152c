; arch/x86_64/uaccess.asm -- the instructions that touch user memory on the
; kernel's behalf, and their exception table.
;
; x86_copy_user(dst, src, n) and x86_clear_user(dst, n) return the number of
; bytes NOT copied/cleared (0 on success). Each faulting instruction is
; listed in x86_extable with the address to resume at; the page-fault and
; #GP handlers consult uaccess_fixup() (kernel/uaccess.c). rep movsb/stosb
; leave the remaining count in rcx when they fault, so the fixup returns it.

bits 64
default rel

section .text
global x86_copy_user, x86_clear_user

; size_t x86_copy_user(void *dst (rdi), const void *src (rsi), size_t n (rdx))
x86_copy_user:
	mov rcx, rdx
.copy:
	rep movsb
	xor eax, eax
	ret
.copy_fault:
	mov rax, rcx
	ret

; size_t x86_clear_user(void *dst (rdi), size_t n (rsi))
x86_clear_user:
	mov rcx, rsi
	xor eax, eax
.clear:
	rep stosb
	ret
.clear_fault:
	mov rax, rcx
	ret

section .rodata
align 8
global x86_extable, x86_extable_end
x86_extable:
	dq x86_copy_user.copy, x86_copy_user.copy_fault
	dq x86_clear_user.clear, x86_clear_user.clear_fault
x86_extable_end:
