; arch/x86_64/uaccess.asm -- the instructions that touch user memory on the
; kernel's behalf, and their exception table.
;
; x86_copy_user(dst, src, n) and x86_clear_user(dst, n) return the number of
; bytes NOT copied/cleared (0 on success). Each faulting instruction is
; listed in x86_extable with the address to resume at; the page-fault and
; #GP handlers consult uaccess_fixup() (kernel/uaccess.c). rep movsb/stosb
; leave the remaining count in rcx when they fault, so the fixup returns it.
; With SMAP on (x86_smap_enabled, arch/x86_64/smap.c) each helper opens user
; memory with STAC and closes it with CLAC on both exits: these are the only
; instructions of the kernel that may touch a user page. (A fault in the
; copy enters the kernel with AC cleared by entry.asm; IRET restores it.)

%macro USER_OPEN 0
	cmp byte [x86_smap_enabled], 0
	je %%no
	stac
%%no:
%endmacro

%macro USER_CLOSE 0
	cmp byte [x86_smap_enabled], 0
	je %%no
	clac
%%no:
%endmacro

bits 64
default rel

extern x86_smap_enabled

section .text
global x86_copy_user, x86_clear_user

; size_t x86_copy_user(void *dst (rdi), const void *src (rsi), size_t n (rdx))
x86_copy_user:
	mov rcx, rdx
	USER_OPEN
.copy:
	rep movsb
	USER_CLOSE
	xor eax, eax
	ret
.copy_fault:
	USER_CLOSE
	mov rax, rcx
	ret

; size_t x86_clear_user(void *dst (rdi), size_t n (rsi))
x86_clear_user:
	mov rcx, rsi
	USER_OPEN
	xor eax, eax
.clear:
	rep stosb
	USER_CLOSE
	ret
.clear_fault:
	USER_CLOSE
	mov rax, rcx
	ret

section .rodata
align 8
global x86_extable, x86_extable_end
x86_extable:
	dq x86_copy_user.copy, x86_copy_user.copy_fault
	dq x86_clear_user.clear, x86_clear_user.clear_fault
x86_extable_end:
