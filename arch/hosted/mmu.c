/*
 * The hosted arch_mmu: arch/x86_64/user_mmu.c compiled for the host (the
 * same 4-level table format, with tables in simulated RAM and no kernel
 * half), plus a software "CPU" that performs user accesses through those
 * tables and calls the fault handler the way the hardware would.
 */
#include "../x86_64/user_mmu.c"

#include "hosted.h"
#include "mm.h"

/* What the hardware does on an access: set the leaf's A (and D) bits in place. */
static void set_access_bits(struct mm *mm, uintptr_t page, bool write)
{
	uint64_t *slot = leaf_slot(mm->mmu, page);

	if (slot && (*slot & PTE_P))
		__atomic_fetch_or(slot, PTE_A | (write ? PTE_D : 0), __ATOMIC_RELAXED);
}

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

int hosted_user_access(struct mm *mm, uintptr_t va, unsigned access, void *buf, size_t len)
{
	unsigned char *b = buf;

	access &= FAULT_READ | FAULT_WRITE | FAULT_EXEC;
	while (len) {
		uintptr_t page = ALIGN_DOWN(va, PAGE_SIZE);
		size_t off = va - page, n = MIN(len, PAGE_SIZE - off);
		phys_addr_t pa = 0;
		unsigned state = 0;
		int tries = 0;

		for (;;) {
			bool present = va < TASK_SIZE && arch_mmu_query(mm->mmu, page, &pa, &state) == 0 &&
				       (state & MMU_PROT_MASK);
			enum fault_result r;

			if (present && access_allowed(state, access))
				break;
			if (tries++ >= 2)
				return -1;
			r = handle_mm_fault(mm, va, access | FAULT_USER | (present ? FAULT_PROT : 0));
			if (r != FAULT_OK)
				return (int)r;
		}
		set_access_bits(mm, page, access & FAULT_WRITE);
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

int hosted_user_read8(struct mm *mm, uintptr_t va, uint8_t *val)
{
	return hosted_user_access(mm, va, FAULT_READ, val, 1);
}

int hosted_user_write8(struct mm *mm, uintptr_t va, uint8_t val)
{
	return hosted_user_access(mm, va, FAULT_WRITE, &val, 1);
}
