/*
 * A user access performed in software the way the CPU performs it:
 * translate through mm's page tables, and on a missing entry or one that
 * forbids the access take the "fault" into handle_mm_fault, then retry.
 * The host tests' simulated CPU (arch/hosted) and the kernel's unit tests
 * (on an address space that is not the active one) both use it, so the
 * fault logic under test is the same on both sides.
 */
#include "internal.h"
#include "arch.h"
#include "arch_mmu.h"
#include "kstring.h"

/* The CPU's side of an access: ACCESSED, and DIRTY on a store, set in the entry. */
static enum mmu_action set_bits_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	unsigned set = *(unsigned *)arg;

	if ((*state & set) == set)
		return MMU_KEEP;
	*state |= set;
	return MMU_UPDATE;
}

/*
 * Set the bits in page's entry, as the CPU does: no rights change, nothing
 * to flush elsewhere. A 2 MiB leaf gets them whole (the walk over its
 * range shows it to set_bits_visit once, unsplit).
 */
static void set_access_bits(struct mm *mm, uintptr_t page, unsigned set)
{
	struct tlb_batch tlb;
	unsigned st = 0;

	tlb_batch_init(&tlb, mm->mmu, true);
	mm_pt_lock(mm);
	if (arch_mmu_query(mm->mmu, page, NULL, &st) == 0 && (st & MMU_HUGE))
		arch_mmu_walk_huge(mm->mmu, ALIGN_DOWN(page, HUGE_SIZE), ALIGN_DOWN(page, HUGE_SIZE) + HUGE_SIZE,
				   set_bits_visit, set_bits_visit, &set, &tlb);
	else
		arch_mmu_walk(mm->mmu, page, page + PAGE_SIZE, set_bits_visit, &set, &tlb);
	mm_pt_unlock(mm);
	arch_tlb_flush(&tlb);
}

/* x86 rules: fetches need EXEC; data needs READ (not execute-only), and stores WRITE too. */
static bool access_allowed(unsigned state, unsigned access)
{
	if (!(state & MMU_PROT_MASK))
		return false;             /* PROT_NONE entry: not present to the hardware */
	if (access & FAULT_EXEC)
		return state & MMU_EXEC;
	if (!(state & MMU_READ))
		return false;             /* execute-only: a protection-key fault */
	if (access & FAULT_WRITE)
		return state & MMU_WRITE;
	return true;
}

/* Translate page for access, faulting as the CPU would. FAULT_OK and *pa, a failed fault's result, or -1. */
static int translate(struct mm *mm, uintptr_t va, uintptr_t page, unsigned access, phys_addr_t *pa)
{
	for (int tries = 0;; tries++) {
		unsigned state = 0;
		bool present = va < TASK_SIZE && arch_mmu_query(mm->mmu, page, pa, &state) == 0 &&
			       (state & MMU_PROT_MASK);
		enum fault_result r;

		if (present && access_allowed(state, access))
			return FAULT_OK;
		if (tries >= 2)
			return -1;
		r = handle_mm_fault(mm, va, access | FAULT_USER | (present ? FAULT_PROT : 0));
		if (r != FAULT_OK)
			return (int)r;
	}
}

int mm_soft_access(struct mm *mm, uintptr_t va, unsigned access, void *buf, size_t len)
{
	unsigned char *b = buf;

	access &= FAULT_READ | FAULT_WRITE | FAULT_EXEC;
	while (len) {
		uintptr_t page = ALIGN_DOWN(va, PAGE_SIZE);
		size_t off = va - page, n = MIN(len, PAGE_SIZE - off);
		unsigned set = MMU_ACCESSED | ((access & FAULT_WRITE) ? MMU_DIRTY : 0);
		phys_addr_t pa = 0;
		int r = translate(mm, va, page, access, &pa);

		if (r != FAULT_OK)
			return r;
		set_access_bits(mm, page, set);
		if (access & FAULT_WRITE)
			memcpy((unsigned char *)phys_to_virt(pa) + off, b, n);
		else if (b)
			memcpy(b, (unsigned char *)phys_to_virt(pa) + off, n);
		va += n;
		if (b)
			b += n;
		len -= n;
	}
	return FAULT_OK;
}
