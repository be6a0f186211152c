/*
 * LAB filemap: a shared VMA maps the object's page (done: do_shared_fault).
 * A private VMA gets a copy of the file's page at its first touch, read
 * or write alike, and past the end of the file (or in a hole) a page of
 * zeros: every private page is anonymous, as if each access were a
 * write. Make a private read map the file's own page, read-only (a later
 * write copies it: wp_fault), and past the end of the file send SIGBUS,
 * as Linux's do_read_fault. docs/labs/filemap.md, Part A.
 */
static enum fault_result object_fault(struct mm *mm, struct vma *vma, uintptr_t va, unsigned flags)
{
	unsigned want = mm_vm_to_mmu(vma->flags);
	struct page *p, *np;
	int err;

	if (!(flags & FAULT_WRITE))
		object_fault_around(mm, vma, va, (vma->flags & VM_SHARED) ? want : want & ~MMU_WRITE);
	if (vma->flags & VM_SHARED) {
		err = vm_object_page(vma_object(vma), vma_pgoff_at(vma, va), VMO_ALLOC | VMO_NOWAIT, &p);
		if (err == -EAGAIN)
			return FAULT_SWAPIN;
		if (err)
			return object_error(err);
		if (install_page(mm, va, p, want | MMU_ACCESSED | ((flags & FAULT_WRITE) ? MMU_DIRTY : 0), false)) {
			user_page_put(p);
			return FAULT_OOM;
		}
		mm_count(&mm->rss, 1);
		mm_count(&mm->rss_file, 1);
		return FAULT_OK;
	}
	/* TODO */
	if (vma_anon_prepare(mm, vma))
		return FAULT_OOM;
	err = vm_object_page(vma_object(vma), vma_pgoff_at(vma, va), VMO_PAST_EOF | VMO_NOWAIT, &p);
	if (err == -EAGAIN)
		return FAULT_SWAPIN;
	if (err)
		return object_error(err);
	np = anon_page_alloc(vma, va, p == NULL);
	if (np && p)
		arch_copy_page(page_address(np), page_address(p));
	if (p)
		user_page_put(p);
	if (!np)
		return FAULT_OOM;
	if (install_page(mm, va, np, want | MMU_ACCESSED | ((want & MMU_WRITE) ? MMU_DIRTY : 0), false)) {
		user_page_put(np);
		return FAULT_OOM;
	}
	mm_count(&mm->rss, 1);
	return FAULT_OK;
}
