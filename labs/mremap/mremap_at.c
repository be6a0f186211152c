/*
 * mremap_at: resize without a new address.
 *
 * LAB mremap: shrinking and no change work. Growing should happen in place
 * when the old range ends its VMA and the address space above is free
 * (vma_expand_end; Linux's vma_expandable), and move only when that is not
 * possible and MREMAP_MAYMOVE allows it. This version always moves.
 */
static long mremap_at(struct mm *mm, struct remap *r)
{
	int err;

	switch (remap_type(r)) {
	case REMAP_NO_RESIZE:
		return (long)r->addr;
	case REMAP_SHRINK:
		err = mm_munmap_locked(mm, r->addr + r->new_len, r->delta, r->tlb);
		return err ? err : (long)r->addr;
	default:
		break;
	}
	if (!(r->flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	err = set_new_addr(mm, r);
	if (err)
		return err;
	return move_vma(mm, r);
}
