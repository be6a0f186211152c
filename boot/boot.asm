; boot/boot.asm -- multiboot headers and the 32-bit -> 64-bit trampoline.
;
; Both loaders enter _start in 32-bit protected mode with paging off:
;   GRUB (multiboot2): EAX = 0x36d76289, EBX = physical address of the info
;   QEMU -kernel (multiboot1): EAX = 0x2BADB002, EBX = physical address of the info
;
; _start checks for long mode, builds early page tables that map the first
; 4 GiB three times (identity, the direct map at 0xffff888000000000, and the
; first 2 GiB at the kernel's higher half 0xffffffff80000000) with 2 MiB
; pages, enables PAE, long mode, NX (if the CPU has it) and write protection,
; and jumps to the higher half, where kmain(magic, info) runs on the boot
; stack. arch/x86_64/kpgtable.c later replaces these tables (the identity map
; disappears then).

KERNEL_VMA      equ 0xffffffff80000000
MB2_MAGIC       equ 0xE85250D6
MB1_MAGIC       equ 0x1BADB002
MB1_FLAGS       equ 0x00000003          ; page-align modules, give memory info
COM1            equ 0x3f8
DEBUG_EXIT_PORT equ 0xf4

; ---------------------------------------------------------------- headers
section .multiboot progbits alloc noexec nowrite align=8
align 8
mb2_header:
	dd MB2_MAGIC
	dd 0                            ; architecture: i386 protected mode
	dd mb2_header_end - mb2_header
	dd 0x100000000 - (MB2_MAGIC + (mb2_header_end - mb2_header))
	; entry address tag: enter at _start whatever the ELF entry says
	align 8
	dw 3, 0
	dd 12
	dd _start
	; framebuffer tag, optional (flags bit 0), no preferred size or depth:
	; GRUB sets a graphics mode (gfxpayload= picks one) where it has a video
	; adapter and hands over its framebuffer (drivers/video/fbcon.c); without
	; an adapter (tools/qemu-run's -nodefaults) it boots as before, in text mode
	align 8
	dw 5, 1
	dd 20
	dd 0, 0, 0
	; end tag
	align 8
	dw 0, 0
	dd 8
mb2_header_end:

align 4
mb1_header:
	dd MB1_MAGIC
	dd MB1_FLAGS
	dd 0x100000000 - (MB1_MAGIC + MB1_FLAGS)

; ---------------------------------------------------------------- 32-bit entry
section .boot.text progbits alloc exec nowrite align=16
bits 32
global _start
_start:
	cli
	cld
	mov [boot_magic], eax
	mov [boot_info], ebx

	; CPUID must report long mode (extended leaf 0x80000001, EDX bit 29).
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no_long_mode
	mov [boot_has_nx], edx          ; bit 20 = NX, looked at below

	; Zero the early tables (PML4, two PDPTs, four PDs = 7 pages).
	mov edi, early_pml4
	xor eax, eax
	mov ecx, 7 * 1024
	rep stosd

	; PML4[0] (identity) and PML4[273] (direct map) -> pdpt_low, PML4[511] -> pdpt_high
	mov dword [early_pml4 + 0 * 8], early_pdpt_low + 3
	mov dword [early_pml4 + 273 * 8], early_pdpt_low + 3
	mov dword [early_pml4 + 511 * 8], early_pdpt_high + 3
	; pdpt_low[0..3] -> pd0..pd3 (0..4 GiB); pdpt_high[510..511] -> pd0..pd1 (0..2 GiB)
	mov dword [early_pdpt_low + 0 * 8], early_pd + 0 * 4096 + 3
	mov dword [early_pdpt_low + 1 * 8], early_pd + 1 * 4096 + 3
	mov dword [early_pdpt_low + 2 * 8], early_pd + 2 * 4096 + 3
	mov dword [early_pdpt_low + 3 * 8], early_pd + 3 * 4096 + 3
	mov dword [early_pdpt_high + 510 * 8], early_pd + 0 * 4096 + 3
	mov dword [early_pdpt_high + 511 * 8], early_pd + 1 * 4096 + 3
	; 2048 PD entries of 2 MiB each: present, writable, PS. Entries for
	; 2..4 GiB need bit 32 clear only, so the high dword stays 0.
	mov edi, early_pd
	mov eax, 0x83
	mov ecx, 2048
.fill_pd:
	mov [edi], eax
	add eax, 0x200000
	add edi, 8
	loop .fill_pd

	; CR4.PAE, then CR3
	mov eax, cr4
	or eax, 1 << 5
	mov cr4, eax
	mov eax, early_pml4
	mov cr3, eax

	; EFER.LME, and EFER.NXE when the CPU has NX
	mov ecx, 0xC0000080
	rdmsr
	or eax, 1 << 8
	test dword [boot_has_nx], 1 << 20
	jz .no_nx
	or eax, 1 << 11
.no_nx:
	wrmsr

	; CR0.PG | CR0.WP (| PE, already set)
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16) | 1
	mov cr0, eax

	lgdt [early_gdt_ptr]
	jmp 0x08:long_mode_low

.no_long_mode:
	mov esi, msg_no_lm
.putc:
	lodsb
	test al, al
	jz .give_up
	mov dx, COM1
	out dx, al
	jmp .putc
.give_up:
	mov al, 2                       ; the "panic" exit code (see arch/x86_64/qemu.c)
	mov dx, DEBUG_EXIT_PORT
	out dx, al
.halt:
	hlt
	jmp .halt

bits 64
long_mode_low:
	mov rax, long_mode_high
	jmp rax

; ---------------------------------------------------------------- data (low, identity mapped)
section .boot.data progbits alloc noexec write align=16
boot_magic:   dd 0
boot_info:    dd 0
boot_has_nx:  dd 0
msg_no_lm:    db "boot: this CPU has no long mode (x86-64); cannot boot", 10, 0

align 16
early_gdt:
	dq 0
	dq 0x00209A0000000000           ; 0x08: 64-bit kernel code
	dq 0x0000920000000000           ; 0x10: kernel data
early_gdt_end:
early_gdt_ptr:
	dw early_gdt_end - early_gdt - 1
	dd early_gdt

section .boot.bss nobits alloc noexec write align=4096
early_pml4:      resb 4096
early_pdpt_low:  resb 4096
early_pdpt_high: resb 4096
early_pd:        resb 4 * 4096

; ---------------------------------------------------------------- higher half
section .text
bits 64
extern kmain
long_mode_high:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	mov rsp, boot_stack_top
	xor ebp, ebp                    ; backtraces stop here
	mov edi, [abs boot_magic]
	mov esi, [abs boot_info]
	call kmain
.hang:
	cli
	hlt
	jmp .hang

; The boot stack, with a guard page below it that arch/x86_64/kpgtable.c
; leaves unmapped: an overflow faults (and becomes a reported double fault)
; instead of silently overwriting .bss.
section .bss nobits alloc noexec write align=4096
global boot_stack_guard, boot_stack_bottom, boot_stack_top
boot_stack_guard:
	resb 4096
boot_stack_bottom:
	resb 16384
boot_stack_top:
