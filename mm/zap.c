/*
 * Zap: remove the PTEs of a range and release what they mapped (Linux
 * zap_page_range / unmap_vmas). Private anonymous pages lose a reference,
 * and the last one sends the frame to the operation's TLB batch, which
 * frees it once every CPU has flushed its translations (mm/tlb.c); shared
 * anonymous pages stay in their object; the zero page is never counted.
 * Page-table pages left empty wait in the batch too (arch_mmu_walk). Guard
 * markers (mm/guard.c) stay through a zap (MADV_DONTNEED) and go with an
 * unmap (mm_zap_piece).
 */
#include "internal.h"

void mm_unmap_page(struct mm *mm, struct page *p, bool shared, struct tlb_batch *tlb)
{
	page_mapcount_add(p, -1);
	user_page_put_tlb(p, tlb);
	mm_count(&mm->rss, -1);
	if (shared)
		mm_count(&mm->rss_shared, -1);
}

struct zap_ctx {
	struct mm *mm;
	bool shared;
	struct tlb_batch *tlb;
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
	mm_unmap_page(z->mm, p, z->shared, z->tlb);
	return MMU_CLEAR;
}

unsigned long mm_zap_range(struct mm *mm, const struct vma *vma, uintptr_t start, uintptr_t end,
			   struct tlb_batch *tlb)
{
	struct zap_ctx z = { mm, vma->object != NULL, tlb };

	BUG_ON(start < vma->start || end > vma->end);
	assert_spin_held(&mm->pt_lock);
	return arch_mmu_walk(mm->mmu, start, end, zap_visit, &z, tlb);
}

void mm_zap_piece(struct mm *mm, const struct vma *piece, void *tlb)
{
	BUG_ON(!tlb);
	mm_pt_lock(mm);
	mm_zap_range(mm, piece, piece->start, piece->end, tlb);
	/* An unmap also drops guard markers (unmap_vmas: ZAP_FLAG_DROP_MARKER); a zap alone keeps them. */
	mm_guard_clear(mm, piece->start, piece->end);
	mm_pt_unlock(mm);
}

int mm_unmap_range_tlb(struct mm *mm, uintptr_t start, uintptr_t end, struct tlb_batch *tlb)
{
	return vma_unmap_range(mm, start, end, mm_zap_piece, tlb);
}

int mm_unmap_range(struct mm *mm, uintptr_t start, uintptr_t end)
{
	struct tlb_batch tlb;
	int err;

	mm_tlb_init(&tlb, mm, false);
	err = mm_unmap_range_tlb(mm, start, end, &tlb);
	mm_tlb_finish(&tlb);
	return err;
}
