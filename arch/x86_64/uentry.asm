; arch/x86_64/uentry.asm -- the SYSCALL entry, the context switch, and the
; first return of a new task to user mode.
;
; SYSCALL (LSTAR = syscall_entry) arrives with interrupts off (FMASK clears
; IF, TF, DF, AC, NT), rcx = user rip, r11 = user rflags, rsp = user stack,
; GS = user GS base. We swap GS, save the user rsp in the per-CPU area
; (offset 24), switch to the task's kernel stack (offset 32), and push a
; struct trap_frame (arch/x86_64/include/x86.h) shaped exactly like an interrupt's, with
; vector VEC_SYSCALL: everything else (signals, fork's frame copy, the
; return through IRET) then treats both entries alike.
;
; Return: syscall_dispatch says whether SYSRET is safe (rcx == rip and
; r11 == rflags in the frame, rip a canonical user address: a SYSRET to a
; non-canonical rcx would fault in ring 0 on the user stack); otherwise we
; leave through trap_return (IRET), as after rt_sigreturn or execve.
%include "arch/x86_64/trap_frame.inc"

bits 64
default rel

%define USER_DS 0x2b                ; as arch/x86_64/include/x86.h
%define USER_CS 0x33
%define VEC_SYSCALL 0x100
%define PCPU_USER_RSP 24
%define PCPU_KSTACK_TOP 32

extern syscall_dispatch
extern trap_return
extern sched_tail

section .text
align 16
global syscall_entry
syscall_entry:
	swapgs
	mov [gs:PCPU_USER_RSP], rsp
	mov rsp, [gs:PCPU_KSTACK_TOP]
	push USER_DS                    ; ss
	push qword [gs:PCPU_USER_RSP]   ; rsp
	push r11                        ; rflags
	push USER_CS                    ; cs
	push rcx                        ; rip
	push 0                          ; error
	push VEC_SYSCALL                ; vector
	PUSH_GPRS
	cld
	mov rdi, rsp
	call syscall_dispatch           ; returns with interrupts off
	test eax, eax
	jz trap_return                  ; IRET (swaps GS back itself)
	POP_GPRS
	add rsp, 16                     ; vector, error
	pop rcx                         ; rip (== the saved rcx)
	add rsp, 8                      ; cs
	pop r11                         ; rflags (== the saved r11)
	swapgs
	pop rsp                         ; user rsp; interrupts stay off until sysret
	o64 sysret

; void x86_switch(uint64_t *save_ksp, uint64_t next_ksp): save the
; callee-saved registers on this stack, store rsp in *save_ksp, continue on
; next_ksp's stack (which was saved the same way, or built by
; arch_task_setup_stack to "return" into ret_from_fork). Interrupts off.
global x86_switch
x86_switch:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

; A new task's first run: rsp = its user trap frame (the top of its kernel stack).
global ret_from_fork
ret_from_fork:
	call sched_tail
	jmp trap_return

; A new kernel thread's first run (arch_task_setup_kthread): r13 = its
; function, r12 = the argument; interrupts on while it runs.
extern kthread_exit
global ret_from_kthread
ret_from_kthread:
	call sched_tail
	sti
	mov rdi, r12
	call r13
	call kthread_exit

