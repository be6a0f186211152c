/*
 * For each present entry of a parent VMA: give the child its own copy.
 *
 * LAB cow: this is an eager-copy fork (Unix before copy-on-write): every
 * private page is copied into a new frame for the child, right now. Make
 * it share them instead, read-only in the child and in the parent, so that
 * the first write faults into wp_fault (mm/fault.c); the counts of a
 * shared page are those of the first branch below. Pages of shared
 * mappings, a file's pages (read-only already in a private mapping) and
 * the zero page are mapped as they are already. docs/labs/cow.md (its
 * appendix, when stuck).
 */
static enum mmu_action dup_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct dup_ctx *c = arg;
	unsigned cst = *state & ~(MMU_ACCESSED | MMU_DIRTY);
	struct vma *cv;
	struct page *np;

	if (c->err)
		return MMU_KEEP;
	if ((c->vma->flags & VM_SHARED) || mm_is_zero_pa(pa) || !(phys_to_page(pa)->flags & PG_anon)) {
		/* Shared memory stays shared; the zero page and file pages are read-only already. */
		if (arch_mmu_map(c->child->mmu, va, pa, cst)) {
			c->err = -ENOMEM;
			return MMU_KEEP;
		}
		if (!mm_is_zero_pa(pa)) {
			user_page_get(phys_to_page(pa));
			page_mapcount_add(phys_to_page(pa), 1);
			mm_count(&c->child->rss, 1);
			if (!(phys_to_page(pa)->flags & PG_anon))
				mm_count(&c->child->rss_file, 1);
		}
		return MMU_KEEP;
	}
	/* A private page: a new frame for the child, owned by its VMA's anon identity. */
	cv = vma_lookup(c->child, va);
	np = cv && cv->anon ? anon_page_alloc(cv, va, false) : NULL;
	if (!np) {
		c->err = -ENOMEM;
		return MMU_KEEP;
	}
	arch_copy_page(page_address(np), page_address(phys_to_page(pa)));
	if (arch_mmu_map(c->child->mmu, va, page_to_phys(np), cst)) {
		user_page_put(np);
		c->err = -ENOMEM;
		return MMU_KEEP;
	}
	page_mapcount_add(np, 1);
	mm_count(&c->child->rss, 1);
	return MMU_KEEP;
}
