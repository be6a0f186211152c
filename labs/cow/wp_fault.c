/*
 * A write to a present, read-only private page at pa, mapped at va.
 *
 * LAB cow: with an eager-copy fork the only such anonymous page is the
 * shared zero page (a read fault mapped it), which gets a zeroed page of
 * the VMA's own; a file's page in a private mapping is copied too (that
 * part is done). Once fork shares pages, a write finds an anonymous page
 * other processes (or other entries) map too: copy it into a new page of
 * this VMA's anon identity and drop this entry's reference to the old one,
 * or, when this entry is the page's only user (page_refs() == 1, mapcount
 * 1), reuse it in place: make it writable, move it to this VMA's identity
 * (anon_page_move) and count a cow_reuses. docs/labs/cow.md.
 */
static enum fault_result wp_fault(struct mm *mm, struct vma *vma, uintptr_t va, phys_addr_t pa,
				  unsigned state)
{
	unsigned want = mm_vm_to_mmu(vma->flags) | MMU_ACCESSED | MMU_DIRTY;
	struct page *old = mm_is_zero_pa(pa) ? NULL : phys_to_page(pa), *np;

	(void)state;
	if (old && (old->flags & PG_anon))
		return FAULT_SIGSEGV_ACCERR;    /* TODO: copy-on-write of a shared anonymous page */
	if (vma_anon_prepare(mm, vma))
		return FAULT_OOM;
	np = anon_page_alloc(vma, va, old == NULL);
	if (!np)
		return FAULT_OOM;
	if (old)
		arch_copy_page(page_address(np), page_address(old));   /* a file's page */
	if (install_page(mm, va, np, want, true)) {
		user_page_put(np);
		return FAULT_OOM;
	}
	if (old)
		mm_unmap_page(mm, old, true, NULL);     /* replace flushed it */
	mm_count(&mm->rss, 1);
	mm_count(&mm->cow_copies, 1);
	return FAULT_OK;
}
