/*
 * LAB madvise: what reclaim does to MADV_FREE'd memory (include/mm.h):
 * drop each lazily freed page that is still clean and mapped only here,
 * and make a written one an ordinary page again. Returns the pages freed.
 */
unsigned long mm_reclaim_lazyfree(struct mm *mm)
{
	(void)mm;
	return 0;                       /* TODO */
}
