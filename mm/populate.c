/*
 * mm_populate: fault a range in ahead of use (MAP_POPULATE, MADV_POPULATE_*,
 * exec's stack and segments), Linux __mm_populate / faultin_page_range.
 */
#include "internal.h"
#include "kerrno.h"

int mm_populate(struct mm *mm, uintptr_t start, uintptr_t end, bool write)
{
	uintptr_t va = ALIGN_DOWN(start, PAGE_SIZE);

	end = ALIGN_UP(end, PAGE_SIZE);
	while (va < end) {
		struct vma *vma;
		uintptr_t vend;
		unsigned long vflags;
		bool need_fault;
		phys_addr_t pa;
		unsigned state;
		enum fault_result r;

		mmap_read_lock(mm);
		vma = vma_find(mm, va);
		if (!vma || vma->start >= end) {
			mmap_read_unlock(mm);
			break;
		}
		if (va < vma->start)
			va = vma->start;
		vend = MIN(vma->end, end);
		vflags = vma->flags;
		if (!(vflags & VM_ACCESS_FLAGS)) {
			/* Nothing to populate in a PROT_NONE mapping. */
			mmap_read_unlock(mm);
			va = vend;
			continue;
		}
		need_fault = arch_mmu_query(mm->mmu, va, &pa, &state) != 0 ||
			     (write && !(state & MMU_WRITE));
		mmap_read_unlock(mm);
		if (need_fault) {
			r = handle_mm_fault(mm, va, write ? FAULT_WRITE : FAULT_READ);
			if (r == FAULT_OOM)
				return -ENOMEM;
			if (r != FAULT_OK)
				return -EFAULT;
		}
		va += PAGE_SIZE;
	}
	return 0;
}
