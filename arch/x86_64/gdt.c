/*
 * GDT and TSS. Layout (selectors in arch/x86_64/include/x86.h):
 *   0x00 null, 0x08 kernel code, 0x10 kernel data, 0x18 user data,
 *   0x20 user code, 0x28 TSS (16-byte descriptor).
 * User data sits just below user code so that SYSRET's fixed offsets work
 * (STAR[63:48] = 0x10: SS = 0x18|3, CS = 0x20|3; arch/x86_64/process.c).
 * TSS.rsp0 is the running task's kernel-stack top (tss_set_rsp0, on every
 * context switch). The TSS gives the double-fault handler
 * (IST1) and the NMI handler (IST2) stacks of their own, so a kernel stack
 * overflow still gets reported.
 */
#include "x86.h"
#include "arch.h"
#include "kstring.h"

#define IST_STACK_SIZE 8192

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

static uint64_t gdt[7] __attribute__((aligned(16)));
static struct tss tss0 __attribute__((aligned(16)));
static uint8_t df_stack[IST_STACK_SIZE] __attribute__((aligned(16)));
static uint8_t nmi_stack[IST_STACK_SIZE] __attribute__((aligned(16)));

struct gdt_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

/* tss_set_rsp0: the stack the CPU switches to on an interrupt or exception from ring 3. */
void tss_set_rsp0(uint64_t rsp0)
{
	tss0.rsp[0] = rsp0;
}

/* gdt_init: load the GDT and the TSS on the boot CPU. Interrupts off. */
void gdt_init(void)
{
	uint64_t base = (uint64_t)&tss0;
	uint64_t limit = sizeof(tss0) - 1;
	struct gdt_ptr p;

	memset(&tss0, 0, sizeof(tss0));
	tss0.ist[0] = (uint64_t)(df_stack + IST_STACK_SIZE);
	tss0.ist[1] = (uint64_t)(nmi_stack + IST_STACK_SIZE);
	tss0.iomap_base = sizeof(tss0);         /* no I/O permission bitmap */

	gdt[0] = 0;
	gdt[1] = 0x00209A0000000000UL;          /* kernel code: P, DPL0, L */
	gdt[2] = 0x0000920000000000UL;          /* kernel data: P, DPL0, W */
	gdt[3] = 0x0000F20000000000UL;          /* user data: P, DPL3, W */
	gdt[4] = 0x0020FA0000000000UL;          /* user code: P, DPL3, L */
	/* 64-bit available TSS (type 9), present */
	gdt[5] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89UL << 40) |
		 (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	gdt[6] = base >> 32;

	p.limit = sizeof(gdt) - 1;
	p.base = (uint64_t)gdt;
	__asm__ volatile(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"movw %w3, %%ax\n\t"
		"ltr %%ax\n\t"
		: : "m"(p), "i"(KERNEL_CS), "i"(KERNEL_DS), "i"(TSS_SEL) : "rax", "memory");
}
