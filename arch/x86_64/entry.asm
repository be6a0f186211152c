; arch/x86_64/entry.asm -- interrupt entry stubs, the common trap path, and
; the register save/restore pair used by the test-only fault recovery.
;
; Every vector 0..255 has a stub that pushes a zero error code (unless the
; CPU pushed one), then the vector number, and jumps to trap_common, which
; saves the general registers as a struct trap_frame (arch/x86_64/include/x86.h) and
; calls trap_dispatch(frame). isr_stub_table[v] is the stub for vector v.
; Coming from user mode (saved CS has RPL 3) the entry and the exit swap GS
; base (swapgs) so that the kernel always runs with GS = the per-CPU area.
; With SMAP on, the entry clears RFLAGS.AC (CLAC): user mode may have set it
; (POPF), and an interrupt inside a copy helper arrives with it set; the
; handler must not reach user pages either way. IRET restores the saved AC.
%include "arch/x86_64/trap_frame.inc"

bits 64
default rel

extern trap_dispatch
extern x86_smap_enabled

%macro ISR_STUB 1
isr_stub_%1:
%if %1 == 8 || %1 == 10 || %1 == 11 || %1 == 12 || %1 == 13 || %1 == 14 || %1 == 17 || %1 == 21 || %1 == 29 || %1 == 30
%else
	push 0
%endif
	push %1
	jmp trap_common
%endmacro

section .text
align 16
trap_common:
	PUSH_GPRS
	test qword [rsp + 15*8 + 24], 3 ; saved cs: from user mode?
	jz .kernel_gs
	swapgs                          ; GS base: the per-CPU area
.kernel_gs:
	cld
	cmp byte [x86_smap_enabled], 0
	je .ac_clear
	clac
.ac_clear:
	mov rdi, rsp
	call trap_dispatch
; Leave through the frame at rsp (also the first entry of a new task into user mode).
global trap_return
trap_return:
	cli
	test qword [rsp + 15*8 + 24], 3
	jz .to_kernel
	swapgs                          ; GS base: the user's again
.to_kernel:
	POP_GPRS
	add rsp, 16                     ; vector and error code
	iretq

%assign i 0
%rep 256
ISR_STUB i
%assign i i+1
%endrep

section .rodata
align 8
global isr_stub_table
isr_stub_table:
%assign i 0
%rep 256
	dq isr_stub_ %+ i
%assign i i+1
%endrep

; int x86_setjmp(uint64_t jb[8]): saves rbx, rbp, r12-r15, rsp, rip; returns 0,
; or the value given to x86_longjmp.
section .text
global x86_setjmp, x86_longjmp, x86_fault_resume
x86_setjmp:
	mov [rdi + 0], rbx
	mov [rdi + 8], rbp
	mov [rdi + 16], r12
	mov [rdi + 24], r13
	mov [rdi + 32], r14
	mov [rdi + 40], r15
	lea rdx, [rsp + 8]              ; rsp after our return
	mov [rdi + 48], rdx
	mov rdx, [rsp]                  ; return address
	mov [rdi + 56], rdx
	xor eax, eax
	ret

; void x86_longjmp(uint64_t jb[8], int val): resumes x86_setjmp returning val (non-zero).
x86_longjmp:
	mov eax, esi
	mov rbx, [rdi + 0]
	mov rbp, [rdi + 8]
	mov r12, [rdi + 16]
	mov r13, [rdi + 24]
	mov r14, [rdi + 32]
	mov r15, [rdi + 40]
	mov rsp, [rdi + 48]
	jmp [rdi + 56]

; Where a caught fault resumes (rdi = the jump buffer, set by fault_recover).
x86_fault_resume:
	mov esi, 1
	jmp x86_longjmp
