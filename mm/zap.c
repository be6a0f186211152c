/*
 * Zap: remove the PTEs of a range and release what they mapped (Linux
 * zap_page_range / unmap_vmas). Private anonymous pages lose a reference,
 * and the last one sends the frame to the operation's TLB batch, which
 * frees it once every CPU has flushed its translations (mm/mm_tlb.c);
 * page-cache pages stay in their object (an orphan that truncation took
 * out of its cache goes to the batch with its last mapping, like a private
 * page); the zero page is never counted. Page-table pages left empty stay
 * until an unmap frees those no remaining VMA shares (mm_zap_piece,
 * Linux's free_pgtables), or a MADV_DONTNEED frees the page tables it
 * covers whole (Linux 6.14's PT_RECLAIM). Swap entries go with their slots'
 * references (mm/swap_pte.c). A 2 MiB leaf the range covers goes whole,
 * one it covers in part is split first (mm/thp.c). Guard markers (mm/guard.c) stay through a
 * zap (MADV_DONTNEED) and go with an unmap (mm_zap_piece).
 */
#include "internal.h"

void mm_unmap_page(struct mm *mm, struct page *p, bool file, struct tlb_batch *tlb)
{
	page_mapcount_add(p, -1);
	if (!tlb)
		user_page_put(p);
	else if (p->flags & PG_anon)
		user_page_put_tlb(p, tlb);
	else
		mm_tlb_put_page(tlb, p);
	mm_count(&mm->rss, -1);
	if (file)
		mm_count(&mm->rss_file, -1);
}

void mm_unmap_pte_page(struct mm *mm, struct page *p, unsigned state, struct tlb_batch *tlb)
{
	/* a private file mapping holds both kinds: the page says which it is */
	bool file = !(p->flags & PG_anon);

	if (file && (state & MMU_DIRTY))
		vm_object_page_dirty(p);
	mm_unmap_page(mm, p, file, tlb);
}

struct zap_ctx {
	struct mm *mm;
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
	mm_unmap_pte_page(z->mm, p, *state, z->tlb);
	return MMU_CLEAR;
}

/* A huge page wholly inside the range goes whole: its 512 frames (mm/thp.c) and one entry. */
static enum mmu_action zap_huge_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct zap_ctx *z = arg;
	struct page *head;

	(void)va;
	(void)state;
	if (mm_is_zero_pa(pa))
		return MMU_CLEAR;               /* the huge zero page: nothing counted */
	head = phys_to_page(pa);
	BUG_ON(!head || !(head->flags & PG_anon));
	mm_count(&z->mm->rss, -(1L << HUGE_ORDER));
	if (huge_share_drop(pa))
		return MMU_CLEAR;       /* the frames hold another leaf's counts (mm/thp.c) */
	/* mm_unmap_page for each frame, in one pass: the frames are consecutive anonymous pages */
	for (unsigned i = 0; i < (1U << HUGE_ORDER); i++) {
		BUG_ON(head[i].mapcount <= 0);
		page_mapcount_add(&head[i], -1);
		if (z->tlb)
			user_page_put_tlb(&head[i], z->tlb);
		else
			user_page_put(&head[i]);
	}
	return MMU_CLEAR;
}

unsigned long mm_zap_range(struct mm *mm, const struct vma *vma, uintptr_t start, uintptr_t end,
			   struct tlb_batch *tlb)
{
	struct zap_ctx z = { mm, tlb };

	unsigned long n;

	BUG_ON(start < vma->start || end > vma->end);
	assert_spin_held(&mm->pt_lock);
	n = arch_mmu_walk_huge(mm->mmu, start, end, zap_huge_visit, zap_visit, &z, tlb);
	mm_swap_clear(mm, start, end, true);    /* zap_pte_range frees swap entries too */
	return n;
}

void mm_zap_piece(struct mm *mm, const struct vma *piece, void *arg)
{
	struct unmap_window *u = arg;
	struct zap_ctx z = { mm, u->tlb };

	/*
	 * Nothing under the piece (it was never touched) and no table of the
	 * window to free: no pt_lock, which would wait for the faults filling
	 * entries in shared mode and hold up every other fault meanwhile
	 * (Linux's unmap takes a page table's lock only where there is one).
	 */
	if (mmap_is_write_locked(mm) &&
	    !arch_mmu_unmap_has_work(mm->mmu, piece->start, piece->end, u->floor, u->ceiling))
		return;
	mm_pt_lock(mm);
	/* An unmap also drops guard markers (unmap_vmas: ZAP_FLAG_DROP_MARKER); a zap alone keeps them. */
	mm_guard_clear(mm, piece->start, piece->end);
	mm_swap_clear(mm, piece->start, piece->end, true);
	/* Markers and swap entries first: the last walk frees the tables it empties (free_pgtables). */
	arch_mmu_unmap_walk(mm->mmu, piece->start, piece->end, zap_huge_visit, zap_visit, &z, u->floor,
			    u->ceiling, u->tlb);
	mm_pt_unlock(mm);
}

void mm_unmap_window(struct mm *mm, uintptr_t start, uintptr_t end, struct unmap_window *u)
{
	struct vma *prev, *v = vma_find_prev(mm, start, &prev);

	/* A VMA across start keeps its part below: the window starts there. */
	u->floor = v && v->start < start ? start : prev ? prev->end : 0;
	v = vma_find(mm, end);
	u->ceiling = !v ? 0 : v->start < end ? end : v->start;
}

int mm_unmap_range_tlb(struct mm *mm, uintptr_t start, uintptr_t end, struct tlb_batch *tlb)
{
	struct unmap_window u = { .tlb = tlb };

	mm_unmap_window(mm, start, end, &u);
	return vma_unmap_range(mm, start, end, mm_zap_piece, &u);
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
