/*
 * A write to a present, read-only private page at pa, mapped at va.
 *
 * LAB cow: with an eager-copy fork the only such anonymous page is the
 * shared zero page (a read fault mapped it), which gets a zeroed page of
 * the VMA's own; a file's page in a private mapping is copied too. The
 * copy below is finished, for any kind of old page. Once fork shares
 * pages, a write finds an anonymous page that others may map too: copy it,
 * or, when this entry is its only user, reuse it in place (Linux's
 * do_wp_page: wp_page_copy or wp_page_reuse). docs/labs/cow.md (its
 * appendix, when stuck).
 */
static enum fault_result wp_fault(struct mm *mm, struct vma *vma, uintptr_t va, phys_addr_t pa)
{
	unsigned want = mm_vm_to_mmu(vma->flags) | MMU_ACCESSED | MMU_DIRTY;
	struct page *old = mm_is_zero_pa(pa) ? NULL : phys_to_page(pa), *np;

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
		mm_unmap_page(mm, old, !(old->flags & PG_anon), NULL);     /* replace flushed it */
	mm_count(&mm->rss, 1);
	mm_count(&mm->cow_copies, 1);
	return FAULT_OK;
}
