/*
 * Zeroing and copying whole 4 KiB pages (include/arch.h), with the string
 * instruction Linux picks for the CPU (clear_page / copy_page in
 * arch/x86/lib): with ERMS ("enhanced rep movsb/stosb", CPUID 7.0 EBX bit 9)
 * the byte forms, which such CPUs run fastest; without it the quadword
 * forms, 512 iterations per page instead of 4096 (Linux's REP_GOOD path,
 * the one it takes on QEMU's default qemu64 CPU). Under QEMU's -icount every
 * iteration of a rep instruction counts as one instruction, which is why
 * the choice shows in docs/bench-linux.md.
 */
#include "arch.h"
#include "x86.h"

void arch_clear_page(void *va)
{
	unsigned long n;

	if (x86_cpu.erms) {
		n = PAGE_SIZE;
		__asm__ volatile("rep stosb" : "+D"(va), "+c"(n) : "a"(0) : "memory");
	} else {
		n = PAGE_SIZE / 8;
		__asm__ volatile("rep stosq" : "+D"(va), "+c"(n) : "a"(0UL) : "memory");
	}
}

void arch_copy_page(void *dst, const void *src)
{
	unsigned long n;

	if (x86_cpu.erms) {
		n = PAGE_SIZE;
		__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	} else {
		n = PAGE_SIZE / 8;
		__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	}
}
