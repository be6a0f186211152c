/*
 * LAB madvise: what reclaim does to MADV_FREE'd memory (include/mm.h):
 * drop each lazily freed page of [start, end) that is still clean and
 * mapped only here, and make a written one an ordinary page again.
 * reclaim_lazyfree_range does it for one private range: MADV_PAGEOUT asks
 * for it at once (pageout: a page mapped elsewhere too is left as it is),
 * mm_reclaim_lazyfree for every private VMA of mm. pt_lock held by the
 * caller of reclaim_lazyfree_range, whose dropped entries and pages go into
 * tlb (mm_reclaim_lazyfree makes and finishes a batch of its own). Both
 * return the pages freed.
 */
static unsigned long reclaim_lazyfree_range(struct mm *mm, uintptr_t start, uintptr_t end, bool pageout,
					    struct tlb_batch *tlb)
{
	(void)mm;
	(void)start;
	(void)end;
	(void)pageout;
	(void)tlb;
	return 0;                       /* TODO */
}

unsigned long mm_reclaim_lazyfree(struct mm *mm)
{
	(void)mm;
	return 0;                       /* TODO */
}
