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
 * khugepaged (mm/khugepaged.c) collapses through the same collapse_slot:
 * the scan of the slot's entries (collapse_scan_slot) under its limits
 * (struct collapse_limits: max_ptes_none/swap/shared, a referenced page
 * needed), where MADV_COLLAPSE has none; then the swap-in and the copy.
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

/* What the entries of a slot hold (hpage_collapse_scan_pmd's counts). */
struct slot_counts {
	unsigned none, swap, shared, referenced;
};

/* One entry into c: COLLAPSE_SCAN_OK to go on, else the slot's verdict. */
static enum collapse_scan entry_count(struct mm *mm, uintptr_t va, const struct collapse_limits *cc,
				      struct slot_counts *c)
{
	phys_addr_t pa;
	unsigned st;
	struct page *p;

	switch (arch_mmu_query(mm->mmu, va, &pa, &st)) {
	case -EFAULT:
		return COLLAPSE_SCAN_NON_PRESENT;
	case -EAGAIN:
		return ++c->swap > cc->max_ptes_swap ? COLLAPSE_SCAN_EXCEED_SWAP : COLLAPSE_SCAN_OK;
	case 0:
		break;
	default:
		return ++c->none > cc->max_ptes_none ? COLLAPSE_SCAN_EXCEED_NONE : COLLAPSE_SCAN_OK;
	}
	if (st & MMU_HUGE)
		return COLLAPSE_SCAN_PMD_MAPPED;
	if (mm_is_zero_pa(pa))
		return ++c->none > cc->max_ptes_none ? COLLAPSE_SCAN_EXCEED_NONE : COLLAPSE_SCAN_OK;
	p = phys_to_page(pa);
	if (READ_ONCE(p->mapcount) > 1 && ++c->shared > cc->max_ptes_shared)
		return COLLAPSE_SCAN_EXCEED_SHARED;
	c->referenced += (st & MMU_ACCESSED) || (READ_ONCE(p->flags) & PG_referenced);
	return COLLAPSE_SCAN_OK;
}

enum collapse_scan collapse_scan_slot(struct mm *mm, uintptr_t h, const struct collapse_limits *cc)
{
	struct slot_counts c = { 0 };

	if (arch_mmu_huge_free(mm->mmu, h))
		return COLLAPSE_SCAN_PMD_NULL;
	for (uintptr_t va = h; va < h + HUGE_SIZE; va += PAGE_SIZE) {
		enum collapse_scan r = entry_count(mm, va, cc, &c);

		if (r != COLLAPSE_SCAN_OK)
			return r;
	}
	if (!cc->khugepaged)
		return c.swap ? COLLAPSE_SCAN_SWAPPED : COLLAPSE_SCAN_OK;
	if (!c.referenced || (c.swap && c.referenced < (1U << HUGE_ORDER) / 2))
		return COLLAPSE_SCAN_LACK_REFERENCED;
	return c.swap ? COLLAPSE_SCAN_SWAPPED : COLLAPSE_SCAN_OK;
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
static enum collapse_scan slot_collapse(struct mm *mm, struct vma *vma, uintptr_t h, struct tlb_batch *tlb)
{
	struct collapse_copy c = { mm, thp_page_alloc(vma, h), h, tlb };

	if (!c.head) {
		count_vm_event(VM_THP_COLLAPSE_ALLOC_FAILED);
		return COLLAPSE_SCAN_ALLOC_FAILED;
	}
	count_vm_event(VM_THP_COLLAPSE_ALLOC);
	/* No CPU may write an old page while it is copied (the whole batch is flushed: a few entries more). */
	arch_mmu_walk(mm->mmu, h, h + HUGE_SIZE, wrprotect_visit, NULL, tlb);
	mm_tlb_finish(tlb);
	arch_mmu_walk(mm->mmu, h, h + HUGE_SIZE, copy_visit, &c, tlb);
	arch_mmu_collapse_huge(mm->mmu, h, page_to_phys(c.head), thp_leaf_state(vma), tlb);
	mm_count(&mm->rss, 1L << HUGE_ORDER);
	return COLLAPSE_SCAN_OK;
}

/* The slot's verdict under pt_lock, and its collapse when it may be. */
static enum collapse_scan slot_scan_collapse(struct mm *mm, struct vma *vma, uintptr_t h,
					     const struct collapse_limits *cc, struct tlb_batch *tlb)
{
	enum collapse_scan r;

	mm_pt_lock(mm);
	r = collapse_scan_slot(mm, h, cc);
	if (r == COLLAPSE_SCAN_OK)
		r = slot_collapse(mm, vma, h, tlb);
	mm_pt_unlock(mm);
	return r;
}

enum collapse_scan collapse_slot(struct mm *mm, struct vma *vma, uintptr_t h, const struct collapse_limits *cc,
				 struct tlb_batch *tlb)
{
	enum collapse_scan r = slot_scan_collapse(mm, vma, h, cc, tlb);

	if (r != COLLAPSE_SCAN_SWAPPED)
		return r;
	/* __collapse_huge_page_swapin: swapped pages are read back first (those that cannot be stay). */
	mm_swap_willneed(mm, vma, h, h + HUGE_SIZE);
	return slot_scan_collapse(mm, vma, h, cc, tlb);
}

/* MADV_COLLAPSE's control: no limits, no referenced page needed (Linux's madvise_collapse). */
static const struct collapse_limits madvise_limits = {
	.khugepaged = false, .max_ptes_none = 1U << HUGE_ORDER,
	.max_ptes_swap = 1U << HUGE_ORDER, .max_ptes_shared = 1U << HUGE_ORDER,
};

/* One slot for MADV_COLLAPSE: what the walk does next, and errno kept in *err. */
static int slot_do(struct mm *mm, struct vma *vma, uintptr_t h, struct tlb_batch *tlb, int *err)
{
	switch (collapse_slot(mm, vma, h, &madvise_limits, tlb)) {
	case COLLAPSE_SCAN_OK:
	case COLLAPSE_SCAN_PMD_MAPPED:
		return SLOT_HUGE;
	case COLLAPSE_SCAN_SWAPPED:
		*err = -EAGAIN;
		return SLOT_SKIP;
	case COLLAPSE_SCAN_ALLOC_FAILED:
		*err = -ENOMEM;
		return SLOT_STOP;
	default:                        /* no page table, a guard marker */
		*err = -EINVAL;
		return SLOT_STOP;
	}
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
