int vma_modify_flags(struct mm *mm, struct vma *vma, struct vma *prev, uintptr_t start,
		     uintptr_t end, unsigned long new_flags, struct vma **out)
{
	mmap_assert_write_locked(mm);
	if (!range_ok(start, end) || start < vma->start || end > vma->end)
		return -EINVAL;
	if (prev && prev != vma && prev->end > vma->start)
		return -EINVAL;
	/* mprotect_fixup / madvise_update_vma: nothing to do when the flags do not change. */
	if (new_flags == vma->flags) {
		*out = vma;
		return 0;
	}
	/*
	 * LAB merge: a range that starts or ends vma (or both) may merge
	 * with prev or next instead of splitting vma. TODO: try that here
	 * (can_merge_left/right, then the shapes above), and fall back to
	 * the split below when neither side merges.
	 */
	return modify_split(mm, vma, start, end, new_flags, out);
}
