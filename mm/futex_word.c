/*
 * Futex support in mm/: the key of a futex word (Linux get_futex_key) and
 * an atomic compare-and-exchange on a word of user memory (Linux's
 * futex_atomic_cmpxchg_inatomic, used for robust lists). Both look at the
 * page tables under the page-table lock, so the frame they see cannot be
 * unmapped and freed meanwhile (a zap clears the entry under pt_lock and
 * frees the frame only after its TLB flush).
 */
#include "internal.h"
#include "kerrno.h"

/* Tries before giving up on a page that another thread unmaps again after each fault. */
#define FUTEX_FAULT_TRIES 4

/* The frame address of addr's byte (PROT_NONE entries included); false: not mapped. pt_lock held. */
static bool word_phys(struct mm *mm, uintptr_t addr, phys_addr_t *pa, unsigned *state)
{
	if (arch_mmu_query(mm->mmu, addr & ~(uintptr_t)(PAGE_SIZE - 1), pa, state) != 0)
		return false;
	*pa = (*pa & ~(phys_addr_t)(PAGE_SIZE - 1)) | (addr & (PAGE_SIZE - 1));
	return true;
}

int mm_futex_key(struct mm *mm, uintptr_t addr, bool *shared, uint64_t *key)
{
	for (int tries = 0; tries < FUTEX_FAULT_TRIES; tries++) {
		struct vma *v;
		phys_addr_t pa;
		bool mapped = true;
		int r = -EFAULT;

		mmap_read_lock(mm);
		v = vma_lookup(mm, addr);
		if (v && !(v->flags & VM_SHARED)) {
			*shared = false;
			*key = addr;
			r = 0;
		} else if (v) {
			mm_pt_lock(mm);
			mapped = word_phys(mm, addr, &pa, NULL);
			mm_pt_unlock(mm);
			if (mapped) {
				*shared = true;
				*key = pa;
				r = 0;
			}
		}
		mmap_read_unlock(mm);
		if (mapped)
			return r;
		if (handle_mm_fault(mm, addr, FAULT_READ | FAULT_USER) != FAULT_OK)
			return -EFAULT;
	}
	return -EFAULT;
}

int mm_user_cmpxchg32(struct mm *mm, uintptr_t addr, uint32_t old, uint32_t new, uint32_t *cur)
{
	if (addr & 3)
		return -EINVAL;
	for (int tries = 0; tries < FUTEX_FAULT_TRIES; tries++) {
		phys_addr_t pa;
		unsigned state = 0;
		bool done = false;

		mm_pt_lock(mm);
		if (word_phys(mm, addr, &pa, &state) && (state & MMU_WRITE) &&
		    !mm_is_zero_pa(pa & ~(phys_addr_t)(PAGE_SIZE - 1))) {
			uint32_t *w = phys_to_virt(pa);

			*cur = old;
			__atomic_compare_exchange_n(w, cur, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
			vm_object_page_dirty(phys_to_page(pa)); /* written behind the PTE's dirty bit */
			done = true;
		}
		mm_pt_unlock(mm);
		if (done)
			return 0;
		if (handle_mm_fault(mm, addr, FAULT_WRITE | FAULT_USER) != FAULT_OK)
			return -EFAULT;
	}
	return -EFAULT;
}
