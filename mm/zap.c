/*
 * Zap: remove the PTEs of a range and release what they mapped (Linux
 * zap_page_range / unmap_vmas). Private anonymous pages are freed with
 * their last reference, shared anonymous pages stay in their object, the
 * zero page is never counted. Page-table pages left empty are freed by
 * arch_mmu_walk, which also invalidates the TLB entries. Guard markers
 * (mm/guard.c) stay through a zap (MADV_DONTNEED) and go with an unmap
 * (mm_zap_piece).
 *
 * Note: frames are released inside the walk, before its TLB invalidation
 * completes; correct on one CPU (no user code runs in between), to be
 * revisited with SMP shootdown.
 */
#include "internal.h"

void mm_unmap_page(struct mm *mm, struct page *p, bool shared)
{
	page_mapcount_add(p, -1);
	user_page_put(p);
	mm_count(&mm->rss, -1);
	if (shared)
		mm_count(&mm->rss_shared, -1);
}

struct zap_ctx {
	struct mm *mm;
	bool shared;
};

static enum mmu_action zap_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct zap_ctx *z = arg;
	struct page *p;

	if (mm_is_zero_pa(pa))
		return MMU_CLEAR;
	p = phys_to_page(pa);
	BUG_ON(!p || p->mapcount <= 0);
	if (z->shared && (*state & MMU_DIRTY))
		p->flags |= PG_dirty;   /* zap_present_ptes: a shmem folio keeps the PTE's dirty bit */
	mm_unmap_page(z->mm, p, z->shared);
	return MMU_CLEAR;
}

unsigned long mm_zap_range(struct mm *mm, const struct vma *vma, uintptr_t start, uintptr_t end)
{
	struct zap_ctx z = { mm, vma->object != NULL };

	BUG_ON(start < vma->start || end > vma->end);
	return arch_mmu_walk(mm->mmu, start, end, zap_visit, &z);
}

void mm_zap_piece(struct mm *mm, const struct vma *piece, void *arg)
{
	mm_zap_range(mm, piece, piece->start, piece->end);
	/* An unmap also drops guard markers (unmap_vmas: ZAP_FLAG_DROP_MARKER); a zap alone keeps them. */
	mm_guard_clear(mm, piece->start, piece->end);
}
