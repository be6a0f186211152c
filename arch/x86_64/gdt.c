/*
 * GDT and TSS, one of each per CPU. Layout (selectors in
 * arch/x86_64/include/x86.h), Linux's order, so that user code sees the
 * selectors it sees on Linux (cs 0x33, ss 0x2b):
 *   0x00 null, 0x08 unused (Linux: 32-bit kernel code), 0x10 kernel code,
 *   0x18 kernel data, 0x20 unused (Linux: 32-bit user code), 0x28 user
 *   data, 0x30 user code, 0x38 unused, 0x40 TSS (16-byte descriptor).
 * Kernel data follows kernel code (SYSCALL: SS = STAR[47:32] + 8) and user
 * data and code follow the 0x20 slot (SYSRET: SS = STAR[63:48] + 8,
 * CS = STAR[63:48] + 16; arch/x86_64/process.c). The unused slots stay
 * zero: there is no 32-bit compatibility mode, so a far jump or an
 * rt_sigreturn to 0x23 faults (SIGSEGV) where Linux would run 32-bit code.
 * TSS.rsp0 is the running task's kernel-stack top (tss_set_rsp0, on every
 * context switch, in the TSS of the CPU switching). The TSS gives the
 * double-fault handler (IST1) and the NMI handler (IST2) stacks of their
 * own, so a kernel stack overflow still gets reported: static ones for the
 * boot CPU, pages from the buddy allocator for the others (smp.c).
 */
#include "x86.h"
#include "arch.h"
#include "kstring.h"

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

static uint64_t gdt[NR_CPUS][GDT_ENTRIES] __attribute__((aligned(16)));
static struct tss tss[NR_CPUS] __attribute__((aligned(16)));
static uint8_t boot_df_stack[IST_STACK_SIZE] __attribute__((aligned(16)));
static uint8_t boot_nmi_stack[IST_STACK_SIZE] __attribute__((aligned(16)));

struct gdt_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

/* tss_set_rsp0: the stack this CPU switches to on an interrupt or exception from ring 3. */
void tss_set_rsp0(uint64_t rsp0)
{
	tss[arch_cpu_id()].rsp[0] = rsp0;
}

/* Fill CPU cpu's GDT, with its TSS descriptor. */
static void gdt_fill(unsigned cpu)
{
	uint64_t base = (uint64_t)&tss[cpu];
	uint64_t limit = sizeof(tss[cpu]) - 1;
	uint64_t *g = gdt[cpu];

	memset(g, 0, sizeof(gdt[cpu]));
	g[KERNEL_CS / 8] = 0x00209A0000000000UL;        /* kernel code: P, DPL0, L */
	g[KERNEL_DS / 8] = 0x0000920000000000UL;        /* kernel data: P, DPL0, W */
	g[USER_DS / 8] = 0x0000F20000000000UL;          /* user data: P, DPL3, W */
	g[USER_CS / 8] = 0x0020FA0000000000UL;          /* user code: P, DPL3, L */
	/* 64-bit available TSS (type 9), present */
	g[TSS_SEL / 8] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89UL << 40) |
			 (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	g[TSS_SEL / 8 + 1] = base >> 32;
}

/*
 * gdt_init_cpu: load CPU cpu's GDT and TSS on the running CPU, whose
 * double-fault and NMI stacks end at df_top and nmi_top. Interrupts off.
 */
void gdt_init_cpu(unsigned cpu, uint64_t df_top, uint64_t nmi_top)
{
	struct gdt_ptr p;

	memset(&tss[cpu], 0, sizeof(tss[cpu]));
	tss[cpu].ist[0] = df_top;
	tss[cpu].ist[1] = nmi_top;
	tss[cpu].iomap_base = sizeof(tss[cpu]);   /* no I/O permission bitmap */
	gdt_fill(cpu);
	p.limit = sizeof(gdt[cpu]) - 1;
	p.base = (uint64_t)gdt[cpu];
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

/* gdt_init: the boot CPU's GDT and TSS, with its static IST stacks. Interrupts off. */
void gdt_init(void)
{
	gdt_init_cpu(0, (uint64_t)(boot_df_stack + IST_STACK_SIZE),
		     (uint64_t)(boot_nmi_stack + IST_STACK_SIZE));
}
