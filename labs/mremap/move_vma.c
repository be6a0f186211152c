/*
 * LAB mremap: move_vma: the VMA at r->addr (r->old_len bytes of it) moves
 * to r->new_addr with r->new_len bytes: a new VMA there (vma_copy_range,
 * which merges like Linux's copy_vma), the page-table entries moved, the
 * old range unmapped (or, with MREMAP_DONTUNMAP, left mapped and empty).
 * Returns the new address or an errno. docs/labs/mremap.md.
 */
static long move_vma(struct mm *mm, struct remap *r)
{
	(void)mm;
	(void)r;
	return -ENOMEM;                 /* TODO */
}
