/*
 * LAB filemap: a write to an unmapped page of a private file mapping
 * takes the skeleton's object_fault path for private VMAs (a copy, zeros
 * past the end). Write Linux's do_cow_fault, as the comment above says:
 * the VMA's anon identity first, then a private copy of the file's page
 * (the cache gets the page if it had none), and SIGBUS past the end.
 * docs/labs/filemap.md, Part A.
 */
static enum fault_result cow_fault(struct mm *mm, struct vma *vma, uintptr_t va)
{
	/* TODO */
	return object_fault(mm, vma, va, FAULT_WRITE);
}
