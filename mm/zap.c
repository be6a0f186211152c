/*
 * Zap: remove the PTEs of a range and release what they mapped (Linux
 * zap_page_range / unmap_vmas). Private anonymous pages are freed with
 * their last reference, page-cache pages stay in their object, the zero
 * page is never counted. Page-table pages left empty are freed by
 * arch_mmu_walk, which also invalidates the TLB entries. Guard markers
 * (mm/guard.c) stay through a zap (MADV_DONTNEED) and go with an unmap
 * (mm_zap_piece).
 *
 * Note: frames are released inside the walk, before its TLB invalidation
 * completes; correct on one CPU (no user code runs in between), to be
 * revisited with SMP shootdown.
 */
#include "internal.h"

void mm_unmap_page(struct mm *mm, struct page *p, bool file)
{
	page_mapcount_add(p, -1);
	user_page_put(p);
	mm_count(&mm->rss, -1);
	if (file)
		mm_count(&mm->rss_file, -1);
}

void mm_unmap_pte_page(struct mm *mm, struct page *p, unsigned state)
{
	/* a private file mapping holds both kinds: the page says which it is */
	bool file = !(p->flags & PG_anon);

	if (file && (state & MMU_DIRTY))
		vm_object_page_dirty(p);
	mm_unmap_page(mm, p, file);
}

static enum mmu_action zap_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct mm *mm = arg;
	struct page *p;

	if (mm_is_zero_pa(pa))
		return MMU_CLEAR;
	p = phys_to_page(pa);
	BUG_ON(!p || p->mapcount <= 0);
	mm_unmap_pte_page(mm, p, *state);
	return MMU_CLEAR;
}

unsigned long mm_zap_range(struct mm *mm, const struct vma *vma, uintptr_t start, uintptr_t end)
{
	BUG_ON(start < vma->start || end > vma->end);
	return arch_mmu_walk(mm->mmu, start, end, zap_visit, mm);
}

void mm_zap_piece(struct mm *mm, const struct vma *piece, void *arg)
{
	mm_zap_range(mm, piece, piece->start, piece->end);
	/* An unmap also drops guard markers (unmap_vmas: ZAP_FLAG_DROP_MARKER); a zap alone keeps them. */
	mm_guard_clear(mm, piece->start, piece->end);
}
