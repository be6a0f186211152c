/*
 * MADV_COLLAPSE (Linux 6.18 mm/khugepaged.c: madvise_collapse,
 * hpage_collapse_scan_pmd, collapse_huge_page): each 2 MiB-aligned slot
 * wholly inside the range becomes one huge page, synchronously, whatever
 * the thp= policy (Linux's TVA_FORCED_COLLAPSE ignores the sysfs setting).
 *
 * What the host's Linux 6.18 does, and this file with it (user test
 * thp_collapse, tests/unit/test_mm_thp.c):
 *  - the VMA must be private anonymous, without MADV_NOHUGEPAGE or
 *    PR_SET_THP_DISABLE, faulted once (its anon identity), and long
 *    enough for an aligned huge page: else -EINVAL
 *    (thp_vma_collapsible);
 *  - a range holding no whole aligned 2 MiB: -EINVAL, but 0 when it
 *    starts on a boundary (Linux's hstart == hend);
 *  - a slot mapped by a 2 MiB leaf already (the huge zero page's too)
 *    counts as done; a slot with no page table (never touched, or
 *    emptied) or with a guard marker ends the walk with -EINVAL;
 *  - otherwise the slot is collapsed, whatever its entries map: written
 *    pages, the zero page, pages shared with a forked child (copied; the
 *    child keeps its own), read-only or PROT_NONE entries. The new huge
 *    page is a copy (zero where nothing or the zero page was mapped),
 *    mapped with the VMA's rights, dirty; the old pages lose this
 *    mapping. thp_collapse_alloc counts each order-9 block taken,
 *    thp_collapse_alloc_failed each one missing (-ENOMEM, the walk ends);
 *  - 0 when every slot is a huge page at the end, else the last error.
 *
 * Swapped pages of a slot are read back first (Linux's
 * __collapse_huge_page_swapin); a slot where one stays in swap (no memory
 * to read it into, an I/O error) is left as it is: -EAGAIN, the walk goes
 * on.
 *
 * Locking: the mmap_lock held for writing with the range's VMA locks
 * (vm_madvise), so no fault runs; pt_lock around each slot. The old
 * entries are write-protected and flushed before the copy, so that no
 * CPU writes through a stale TLB entry meanwhile (Linux clears the PMD
 * and flushes first, pmdp_collapse_flush).
 */
#include "internal.h"
#include "kerrno.h"
#include "vmstat.h"

/* What one slot came to (Linux's scan_result, grouped by how madvise_collapse treats it). */
enum slot_result {
	SLOT_HUGE,              /* a leaf maps it now */
	SLOT_SKIP,              /* not collapsed, the walk goes on (errno kept) */
	SLOT_STOP,              /* not collapsed, the walk ends (errno kept) */
};

/*
 * hpage_collapse_scan_pmd: may the slot at h be collapsed? SLOT_HUGE when
 * a leaf maps it already; SLOT_STOP with -EINVAL (no page table, a guard
 * marker), SLOT_SKIP with -EAGAIN (a swap entry left). Else -1: go on.
 */
static int slot_scan(struct mm *mm, uintptr_t h, int *err)
{
	phys_addr_t pa;
	unsigned st;

	if (arch_mmu_huge_free(mm->mmu, h)) {
		*err = -EINVAL;
		return SLOT_STOP;
	}
	for (uintptr_t va = h; va < h + HUGE_SIZE; va += PAGE_SIZE) {
		switch (arch_mmu_query(mm->mmu, va, &pa, &st)) {
		case -EFAULT:
			*err = -EINVAL;
			return SLOT_STOP;
		case -EAGAIN:
			*err = -EAGAIN;
			return SLOT_SKIP;
		case 0:
			if (st & MMU_HUGE)
				return SLOT_HUGE;
			break;
		default:
			break;
		}
	}
	return -1;
}

static enum mmu_action wrprotect_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	if (!(*state & MMU_WRITE))
		return MMU_KEEP;
	*state &= ~MMU_WRITE;
	return MMU_UPDATE;
}

struct collapse_copy {
	struct mm *mm;
	struct page *head;            /* the new huge page's first frame */
	uintptr_t h;
	struct tlb_batch *tlb;
};

/* Each old page: its data into the new frame at the same offset, then it loses this mapping. */
static enum mmu_action copy_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct collapse_copy *c = arg;
	struct page *p;

	if (mm_is_zero_pa(pa))
		return MMU_KEEP;        /* the new frame is zeroed already */
	p = phys_to_page(pa);
	arch_copy_page(page_address(c->head + ((va - c->h) >> PAGE_SHIFT)), page_address(p));
	/* Freed (if this was its last reference) only after the flush of the entry (tlb). */
	mm_unmap_pte_page(c->mm, p, *state, c->tlb);
	return MMU_KEEP;
}

/*
 * collapse_huge_page for the slot at h of vma, its entries checked: a
 * new huge page with their data replaces them. pt_lock held.
 */
static int slot_collapse(struct mm *mm, struct vma *vma, uintptr_t h, struct tlb_batch *tlb, int *err)
{
	struct collapse_copy c = { mm, thp_page_alloc(vma, h), h, tlb };

	if (!c.head) {
		count_vm_event(VM_THP_COLLAPSE_ALLOC_FAILED);
		*err = -ENOMEM;
		return SLOT_STOP;
	}
	count_vm_event(VM_THP_COLLAPSE_ALLOC);
	/* No CPU may write an old page while it is copied (the whole batch is flushed: a few entries more). */
	arch_mmu_walk(mm->mmu, h, h + HUGE_SIZE, wrprotect_visit, NULL, tlb);
	mm_tlb_finish(tlb);
	arch_mmu_walk(mm->mmu, h, h + HUGE_SIZE, copy_visit, &c, tlb);
	arch_mmu_collapse_huge(mm->mmu, h, page_to_phys(c.head), thp_leaf_state(vma), tlb);
	mm_count(&mm->rss, 1L << HUGE_ORDER);
	return SLOT_HUGE;
}

/* One slot: scanned, then collapsed when it may be. */
static int slot_do(struct mm *mm, struct vma *vma, uintptr_t h, struct tlb_batch *tlb, int *err)
{
	int r;

	/* __collapse_huge_page_swapin: swapped pages are read back first (those that cannot be stay). */
	mm_swap_willneed(mm, vma, h, h + HUGE_SIZE);
	mm_pt_lock(mm);
	r = slot_scan(mm, h, err);
	if (r < 0)
		r = slot_collapse(mm, vma, h, tlb, err);
	mm_pt_unlock(mm);
	return r;
}

int thp_collapse(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end, struct tlb_batch *tlb)
{
	uintptr_t hstart = ALIGN_UP(start, HUGE_SIZE), hend = ALIGN_DOWN(end, HUGE_SIZE);
	unsigned long huge = 0;
	int err = -EINVAL;

	if (!thp_vma_collapsible(mm, vma))
		return -EINVAL;
	if (hstart >= hend)
		return hstart == hend ? 0 : -EINVAL;
	for (uintptr_t h = hstart; h < hend; h += HUGE_SIZE) {
		int r = slot_do(mm, vma, h, tlb, &err);

		if (r == SLOT_HUGE)
			huge++;
		else if (r == SLOT_STOP)
			break;
	}
	return huge == (hend - hstart) >> HUGE_SHIFT ? 0 : err;
}
