/*
 * LAB merge: the merge rules (Linux's is_mergeable_vma,
 * is_mergeable_anon_vma, can_vma_merge_before/after and the left/right
 * checks of vma_merge_new_range). Until they are written nothing merges:
 * every mmap, mprotect and madvise leaves VMAs side by side that Linux
 * would have joined, and the maps of the corpus scripts show it.
 *
 * can_merge_left: may the range d (flags, file, pgoff, anon identity)
 * join prev, the VMA just below it? can_merge_right: may it join next, the
 * VMA just above it; when it joins prev as well (left), prev and next must
 * also agree with each other. docs/labs/merge.md has the rules.
 */
static bool can_merge_left(const struct vma *prev, const struct merge_desc *d)
{
	return false;                   /* TODO */
}

static bool can_merge_right(const struct vma *prev, const struct vma *next,
			    const struct merge_desc *d, bool left)
{
	return false;                   /* TODO */
}
