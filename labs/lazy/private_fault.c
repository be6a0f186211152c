/*
 * A fault on private memory: a page already there (present), or the first
 * touch of this page (of a file: its page, done for you; of anonymous
 * memory: below).
 *
 * LAB lazy: a first touch fills ahead: the page that faulted and the
 * FILL_AHEAD - 1 pages after it in the VMA that are not mapped yet each get
 * a zeroed frame of their own, now (eager zero-fill). Make it lazy: map
 * only the page that faulted, and, for a read when
 * mm->zero_page is on, map the shared zero page read-only instead
 * (mm_zero_pa; no frame allocated, no anon identity, count zero_maps): a
 * later write copies it (wp_fault). A new page is writable and dirty at
 * once when the VMA allows writing. docs/labs/lazy.md.
 */
#define FILL_AHEAD 16

static enum fault_result private_fault(struct mm *mm, struct vma *vma, uintptr_t va,
				       unsigned flags, bool present, phys_addr_t pa, unsigned state)
{
	unsigned want = mm_vm_to_mmu(vma->flags);
	struct page *p;

	if (present) {
		if ((flags & FAULT_WRITE) && !(state & MMU_WRITE))
			return wp_fault(mm, vma, va, pa);
		/* Spurious, or exec/read rights lagging behind the VMA: add them (never W here). */
		if (want & ~state & ~MMU_WRITE)
			mm_set_pte_state(mm, va, state | (want & ~MMU_WRITE));
		return FAULT_OK;
	}
	if (vma->file)
		return (flags & FAULT_WRITE) ? cow_fault(mm, vma, va) : object_fault(mm, vma, va, flags);
	if (vma_anon_prepare(mm, vma))
		return FAULT_OOM;
	for (uintptr_t a = va; a < vma->end && a < va + FILL_AHEAD * PAGE_SIZE; a += PAGE_SIZE) {
		unsigned prot = want | (a == va ? MMU_ACCESSED : 0);

		if (arch_mmu_query(mm->mmu, a, NULL, NULL) != -ENOENT)
			continue;               /* mapped already, or a guard marker */
		p = anon_page_alloc(vma, a, true);
		if (!p)
			return a == va ? FAULT_OOM : FAULT_OK;  /* the faulting page is there */
		if (a == va && (want & MMU_WRITE))
			prot |= MMU_DIRTY;
		if (install_page(mm, a, p, prot, false)) {
			user_page_put(p);
			return a == va ? FAULT_OOM : FAULT_OK;
		}
		mm_count(&mm->rss, 1);
	}
	return FAULT_OK;
}
