; boot/ap_trampoline.asm -- where application processors start.
;
; arch/x86_64/smp.c copies [ap_trampoline_start, ap_trampoline_end) to the
; page at AP_TRAMPOLINE_BASE (below 1 MiB, page aligned) and points a
; STARTUP IPI at it. An AP begins there in real mode with CS = base >> 4,
; IP = 0; the code loads its own GDT, enters protected mode, enables PAE,
; loads the trampoline page tables (CR3 from tramp_cr3: the low 2 MiB
; identity mapped, the kernel half copied from the kernel's PML4), sets
; EFER.LME (and NXE), turns paging on, enters long mode and jumps to the
; C entry tramp_entry(tramp_cpu) in the higher half, on the stack
; tramp_stack, with rbp = 0 so backtraces end there. The BSP fills the
; tramp_* words before each STARTUP IPI and waits for the AP to report in
; before starting the next one, so one copy serves every AP.

AP_TRAMPOLINE_BASE equ 0x8000

%define T(label) (AP_TRAMPOLINE_BASE + (label) - ap_trampoline_start)

section .rodata
align 16
global ap_trampoline_start, ap_trampoline_end
global ap_tramp_cr3, ap_tramp_efer, ap_tramp_stack, ap_tramp_entry, ap_tramp_cpu

bits 16
ap_trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	lgdt [tramp_gdt_ptr - ap_trampoline_start]
	mov eax, cr0
	or eax, 1                       ; PE
	mov cr0, eax
	jmp dword 0x08:T(pm32)

bits 32
pm32:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4
	or eax, 1 << 5                  ; PAE
	mov cr4, eax
	mov eax, [T(ap_tramp_cr3)]
	mov cr3, eax
	mov ecx, 0xC0000080             ; EFER
	rdmsr
	or eax, [T(ap_tramp_efer)]      ; LME, and NXE when the CPU has NX
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16)   ; PG, WP
	mov cr0, eax
	jmp 0x18:T(lm64)

bits 64
lm64:
	xor eax, eax
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov fs, ax
	mov gs, ax
	mov rsp, [T(ap_tramp_stack)]
	mov edi, [T(ap_tramp_cpu)]
	mov rax, [T(ap_tramp_entry)]
	xor ebp, ebp
	push 0                          ; a null return address: the call chain ends here
	jmp rax

align 8
tramp_gdt:
	dq 0
	dq 0x00CF9A000000FFFF           ; 0x08: 32-bit code, flat
	dq 0x00CF92000000FFFF           ; 0x10: 32-bit data, flat
	dq 0x00209A0000000000           ; 0x18: 64-bit code
tramp_gdt_end:
tramp_gdt_ptr:
	dw tramp_gdt_end - tramp_gdt - 1
	dd T(tramp_gdt)

align 8
ap_tramp_cr3:    dd 0
ap_tramp_efer:   dd 0
ap_tramp_stack:  dq 0
ap_tramp_entry:  dq 0
ap_tramp_cpu:    dd 0
ap_trampoline_end:
