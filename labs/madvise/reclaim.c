/*
 * LAB madvise: what reclaim does to MADV_FREE'd memory (mm/internal.h):
 * over the present pages of [start, end), part of one private anonymous
 * VMA of rs->mm, drop each lazily freed page that is still clean and
 * mapped only here (into rs->tlb; reclaim_freed(rs, 1) counts it in
 * rs->freed and pgsteal) until rs->freed reaches rs->want, give a
 * page read since its last scan a second chance (reclaim proper only),
 * and make a written one an ordinary page again; count the lazily freed
 * pages looked at in rs->scanned, and each page dropped, as it is
 * dropped, in pglazyfreed (count_vm_event). rs->pageout: MADV_PAGEOUT (references
 * ignored, a page mapped elsewhere too left as it is). pt_lock held.
 */
void mm_reclaim_lazyfree_range(struct reclaim_scan *rs, uintptr_t start, uintptr_t end)
{
	(void)rs;
	(void)start;
	(void)end;                      /* TODO */
}
