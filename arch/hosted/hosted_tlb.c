/*
 * The hosted stand-ins for arch/x86_64/x86_tlb.c, the x86 half of TLB
 * maintenance that arch/x86_64/user_mmu.c (compiled here by hosted_mmu.c)
 * calls. Each host thread plays a CPU, which has the address space it runs
 * with and caches nothing (mm_soft_access walks the tables every time):
 * switching moves the thread's bit in m->cpus, flushes are only counted
 * (the same statistics as the kernel's, so host tests can check the
 * batching), and there is no lazy TLB.
 */
#include "arch_mmu.h"
#include "arch_mmu_debug.h"
#include "x86_mmu.h"
#include "arch.h"

static __thread struct arch_mmu *hosted_active;
static struct tlb_stats hosted_tlb_stats;

static void stat_add(unsigned long *c, unsigned long n)
{
	__atomic_add_fetch(c, n, __ATOMIC_RELAXED);
}

void x86_mm_switch(struct arch_mmu *m)
{
	unsigned long bit = 1UL << arch_cpu_id();

	if (hosted_active == m)
		return;
	if (m)
		__atomic_fetch_or(&m->cpus, bit, __ATOMIC_SEQ_CST);
	if (hosted_active)
		__atomic_fetch_and(&hosted_active->cpus, ~bit, __ATOMIC_SEQ_CST);
	hosted_active = m;
}

bool x86_mm_loaded_here(const struct arch_mmu *m)
{
	return hosted_active == m;
}

void x86_tlb_flush(struct arch_mmu *m, const uintptr_t *va, unsigned n, bool full, bool local_only,
		   bool leave)
{
	/* Seq_cst, as x86_tlb.c's fence and load: after the caller's PTE stores. */
	unsigned long others = __atomic_load_n(&m->cpus, __ATOMIC_SEQ_CST) & ~(1UL << arch_cpu_id());
	unsigned long copies = (hosted_active == m) + (local_only ? 0 : __builtin_popcountl(others));

	(void)va;
	if (!local_only)
		stat_add(&hosted_tlb_stats.flushes, 1);
	if (!local_only && others) {
		stat_add(&hosted_tlb_stats.shootdowns, 1);
		stat_add(&hosted_tlb_stats.ipis, __builtin_popcountl(others));
	}
	if (full)
		stat_add(&hosted_tlb_stats.full_flushes, copies);
	else
		stat_add(&hosted_tlb_stats.pages, n * copies);
	if (leave && hosted_active == m)
		x86_mm_switch(NULL);
}

void arch_tlb_stats(struct tlb_stats *out)
{
	*out = hosted_tlb_stats;
}

void arch_mmu_enter_lazy(void)
{
}
