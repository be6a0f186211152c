/* The advices that act on pages only (mmap_lock read), for one VMA's part [start, end). */
static int advise_pages(struct mm *mm, struct vma *vma, struct vma **prev, uintptr_t start,
			uintptr_t end, int advice, struct tlb_batch *tlb)
{
	*prev = vma;
	switch (advice) {
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:
	case MADV_FREE:
		/*
		 * LAB madvise: accepted, but nothing happens yet. DONTNEED
		 * drops the pages of [start, end) (the next touch finds
		 * zeroes); FREE lets reclaim drop them unless they are written
		 * again. Mind VM_LOCKED, that FREE is for private anonymous
		 * memory only, and the locks (mmap_lock is held for reading
		 * only, unless madv_lock=write: page tables change under
		 * pt_lock; a change goes into tlb, flushed once for the whole
		 * call). docs/labs/madvise.md.
		 */
		return 0;
	case MADV_REMOVE:
		*prev = NULL;
		return madvise_remove(mm, vma, start, end, tlb);
	case MADV_WILLNEED:
		return madvise_willneed(mm, vma, start, end);
	case MADV_COLD:
	case MADV_PAGEOUT:
		return madvise_cold_pageout(mm, vma, start, end, advice == MADV_PAGEOUT, tlb);
	case MADV_GUARD_INSTALL:
		return mm_guard_install(mm, vma, start, end, tlb);
	case MADV_GUARD_REMOVE:
		return mm_guard_remove(mm, vma, start, end);
	default:                          /* none left (advise_vma does MADV_COLLAPSE) */
		return -EINVAL;
	}
}
