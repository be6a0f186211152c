/*
 * The arch MMU's statistics and debugging views, beside the porting
 * contract of include/arch_mmu.h (which mm/ needs to run): TLB counters,
 * 2 MiB leaves mapped, where an address space is loaded, how many
 * page-table pages it uses, its root, and a text dump of its tree. Used by tests, /proc and vmk_* calls,
 * the OOM report and the gdb kit; implemented by the same files
 * (arch/x86_64/user_mmu.c, x86_tlb.c and ptdump.c, and their hosted build).
 * Locking as in arch_mmu.h: the caller keeps the tables from changing where
 * a function reads them.
 */
#ifndef ARCH_MMU_DEBUG_H
#define ARCH_MMU_DEBUG_H

#include "arch_mmu.h"

/* TLB statistics since boot, all CPUs (counted where the flush is asked for). */
struct tlb_stats {
	unsigned long flushes;            /* batches flushed that took rights away (not local_only) */
	unsigned long shootdowns;         /* of which reached other CPUs: one IPI round each */
	unsigned long ipis;               /* CPUs interrupted by those rounds */
	unsigned long pages;              /* pages invalidated one by one, summed over CPUs */
	unsigned long full_flushes;       /* whole-TLB flushes instead, summed over CPUs */
	unsigned long lazy_leaves;        /* lazy CPUs that switched away instead of flushing */
};
void arch_tlb_stats(struct tlb_stats *out);

/* CPUs where m is loaded, active or lazy (bit n: CPU n). */
unsigned long arch_mmu_cpus(const struct arch_mmu *m);

/* 2 MiB leaves m maps now (tests; the system-wide count of blocks is arch_mmu.h's). */
size_t arch_mmu_huge_leaves(const struct arch_mmu *m);

/* Page-table pages m now uses (the root included): for leak checks and statistics. */
size_t arch_mmu_table_pages(const struct arch_mmu *m);

/* Physical address of m's root table (x86: the CR3 value), for tests and debugging. */
phys_addr_t arch_mmu_root(const struct arch_mmu *m);

/* Receives one line of a dump (no newline; the buffer is reused after the call). */
typedef void (*mmu_dump_fn)(void *arg, const char *line);

/*
 * arch_mmu_dump: describe m's page-table tree over [start, end) as text,
 * one line per present entry (the format: arch/x86_64/ptdump.c, and the
 * page-table lab, docs/labs/pgtbl.md), each passed to emit. Returns the
 * number of leaf entries described. For debugging (vmk_vmdump, the gdb
 * kit) and tests; the caller keeps the tables from changing.
 */
unsigned long arch_mmu_dump(struct arch_mmu *m, uintptr_t start, uintptr_t end, mmu_dump_fn emit,
			    void *arg);

#endif
