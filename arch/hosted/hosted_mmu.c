/*
 * The hosted arch_mmu: arch/x86_64/user_mmu.c compiled for the host (the
 * same 4-level table format, with tables in simulated RAM and no kernel
 * half). User accesses through those tables are mm_soft_access
 * (mm/soft_access.c), the software "CPU" that calls the fault handler the
 * way the hardware would. The TLB side is hosted_tlb.c.
 */
#include "../x86_64/user_mmu.c"

#include "hosted.h"
#include "mm.h"

bool hosted_exec_only;
void (*hosted_walk_hook)(uint64_t *pte, uintptr_t va);

int hosted_user_read8(struct mm *mm, uintptr_t va, uint8_t *val)
{
	return mm_soft_access(mm, va, FAULT_READ, val, 1);
}

int hosted_user_write8(struct mm *mm, uintptr_t va, uint8_t val)
{
	return mm_soft_access(mm, va, FAULT_WRITE, &val, 1);
}

bool hosted_hw_write8(uint64_t *pte, uintptr_t va, uint8_t val)
{
	uint64_t e = READ_ONCE(*pte);   /* races with walk_leaf; the compare-exchange re-checks it */

	if ((e & (PTE_P | PTE_W)) != (PTE_P | PTE_W))
		return false;
	/* A real CPU's locked update: it sets the bits only in an entry still present. */
	if (!__atomic_compare_exchange_n(pte, &e, e | PTE_A | PTE_D, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return false;
	((uint8_t *)phys_to_virt(e & PTE_ADDR_MASK))[va & (PAGE_SIZE - 1)] = val;
	return true;
}
