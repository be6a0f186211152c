/*
 * LAB filemap: fault-around maps nothing: a read fault maps the one page
 * that faulted. Map the object's pages that are in its cache already in
 * the block around va that the comment above describes (the one page
 * table's worth of neighbours Linux's fault_around_bytes allows), where
 * nothing is mapped yet. docs/labs/filemap.md, Part B.
 */
static void object_fault_around(struct mm *mm, struct vma *vma, uintptr_t va, unsigned want)
{
	/* TODO */
	(void)mm;
	(void)vma;
	(void)va;
	(void)want;
}
