/*
 * SMEP and SMAP: with CR4.SMEP the CPU refuses to execute, in kernel mode,
 * an instruction on a user page; with CR4.SMAP it refuses a kernel-mode
 * read or write of a user page unless RFLAGS.AC is set. The kernel sets AC
 * (STAC) only inside the copy helpers (arch/x86_64/uaccess.asm) and clears
 * it (CLAC) on every exception and interrupt entry (entry.asm; SYSCALL's
 * FMASK clears it), so a stray dereference of a user pointer anywhere else
 * faults at once instead of reading what the program put there. Both are
 * on whenever the CPU has them (QEMU's -cpu max; the default qemu64 has
 * neither).
 */
#include "x86.h"
#include "printk.h"
#include "mm.h"

#define CR4_SMEP (1UL << 20)
#define CR4_SMAP (1UL << 21)
#define RFLAGS_AC (1UL << 18)

uint8_t x86_smap_enabled, x86_smep_enabled;

void x86_smap_init(void)
{
	x86_smep_enabled = x86_cpu.smep;
	x86_smap_enabled = x86_cpu.smap;
	x86_smap_init_cpu();
	printk("x86: SMEP %s, SMAP %s\n", x86_smep_enabled ? "on" : "unavailable",
	       x86_smap_enabled ? "on" : "unavailable");
}

void x86_smap_init_cpu(void)
{
	uint64_t cr4 = read_cr4();

	if (x86_smep_enabled)
		cr4 |= CR4_SMEP;
	if (x86_smap_enabled)
		cr4 |= CR4_SMAP;
	write_cr4(cr4);
}

const char *x86_fault_violation(const struct trap_frame *tf, uint64_t cr2)
{
	if (tf->vector != VEC_PF || (tf->error & PF_U) || !(tf->error & PF_P) || cr2 >= TASK_SIZE)
		return NULL;
	if (tf->error & PF_I)
		return x86_smep_enabled ? "SMEP violation" : NULL;
	return x86_smap_enabled && !(tf->rflags & RFLAGS_AC) ? "SMAP violation" : NULL;
}
