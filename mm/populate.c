/*
 * Faulting a range in ahead of use: MAP_POPULATE and MAP_LOCKED (Linux
 * __mm_populate) and MADV_POPULATE_READ/WRITE (Linux madvise_populate ->
 * faultin_page_range -> __get_user_pages with FOLL_MADV_POPULATE). Both
 * walk the range page by page in address order, under the mmap_lock for
 * reading, dropped around each fault; they differ only in what a hole or
 * a VMA without the access means.
 */
#include "internal.h"
#include "kerrno.h"
#include "sleep.h"

/*
 * Fault in [va, end) (page aligned). strict (madvise): the first problem
 * ends it, a hole with -ENOMEM, a VMA that does not allow the access
 * (check_vma_flags: a read needs VM_READ, a write VM_WRITE) with -EINVAL.
 * Not strict (mmap): holes and VMAs without any access are skipped. Both:
 * a fault that would be SIGSEGV/SIGBUS -EFAULT, no memory -ENOMEM, and
 * -EINTR when the task has SIGKILL pending (Linux's __get_user_pages: a
 * killed task stops here rather than fill memory first; a range may be
 * larger than memory, and pages nothing else maps may be reclaimed while
 * it goes on, so without this it could run for ever); pages before the
 * problem stay populated. 0 when every page was present or faulted in.
 * A 2 MiB leaf found in place is passed over whole (a read of a huge
 * range then costs two looks per 2 MiB, not 512), and the walk gives up
 * the CPU when its slice is over (cond_resched).
 */
static int populate_range(struct mm *mm, uintptr_t va, uintptr_t end, bool write, bool strict)
{
	unsigned long needed = write ? VM_WRITE : VM_READ;

	while (va < end) {
		struct vma *vma;
		unsigned state = 0;
		bool fault;
		enum fault_result r;

		if (current_fatal_signal())
			return -EINTR;
		cond_resched();
		mmap_read_lock(mm);
		vma = vma_find(mm, va);
		if (!vma || vma->start >= end || (strict && vma->start > va)) {
			mmap_read_unlock(mm);
			return strict ? -ENOMEM : 0;
		}
		va = MAX(va, vma->start);
		if (!(vma->flags & (strict ? needed : VM_ACCESS_FLAGS))) {
			uintptr_t vend = MIN(vma->end, end);

			mmap_read_unlock(mm);
			if (strict)
				return -EINVAL;
			va = vend;            /* nothing to populate in a PROT_NONE mapping */
			continue;
		}
		fault = arch_mmu_query(mm->mmu, va, NULL, &state) != 0 ||
			!(state & MMU_PROT_MASK) || (write && !(state & MMU_WRITE));
		mmap_read_unlock(mm);
		if (fault) {
			r = handle_mm_fault(mm, va, write ? FAULT_WRITE : FAULT_READ);
			if (r == FAULT_OOM)
				return -ENOMEM;
			if (r != FAULT_OK)
				return -EFAULT;
			va += PAGE_SIZE;        /* (if it mapped a 2 MiB leaf, the next look skips it) */
			continue;
		}
		/* A 2 MiB leaf with the access is all there: on to its end (Linux's follow_page_mask). */
		va = (state & MMU_HUGE) ? ALIGN_DOWN(va, HUGE_SIZE) + HUGE_SIZE : va + PAGE_SIZE;
	}
	return 0;
}

int mm_populate(struct mm *mm, uintptr_t start, uintptr_t end, bool write)
{
	return populate_range(mm, ALIGN_DOWN(start, PAGE_SIZE), ALIGN_UP(end, PAGE_SIZE), write, false);
}

int mm_populate_strict(struct mm *mm, uintptr_t start, uintptr_t end, bool write)
{
	return populate_range(mm, start, end, write, true);
}
