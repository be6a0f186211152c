/*
 * khugepaged's scan (include/khugepaged.h; Linux 6.18 mm/khugepaged.c:
 * khugepaged_do_scan, khugepaged_scan_mm_slot, hpage_collapse_scan_pmd,
 * collapse_huge_page). Each wake-up of the thread looks at up to
 * pages_to_scan entries (4096: 8 slots of 2 MiB), going round the address
 * spaces in the order of mm/mm.c's list from where the last one stopped
 * (a list_id and an address: the cursor holds no reference while the
 * thread sleeps). Reaching the end of the list ends a pass: full_scans.
 *
 * What is scanned: the 2 MiB-aligned slots wholly inside the VMAs khugepaged
 * may collapse in (thp_vma_khugepaged: private anonymous with an anon
 * identity, the thp= policy: always, or madvise with MADV_HUGEPAGE;
 * never MADV_NOHUGEPAGE or PR_SET_THP_DISABLE). Linux lists an address
 * space when its first such VMA appears (khugepaged_enter_vma) and drops
 * it when a visit finds none; here every address space is visited and
 * one without such a VMA costs one unit of progress. A pass that met no
 * such VMA is not counted, and the wake-up's scan ends there (Linux's
 * thread waits while its list is empty).
 *
 * A slot is collapsed (collapse_scan_slot, mm/collapse.c) when, as in
 * hpage_collapse_scan_pmd for khugepaged:
 *  - a page table maps it (no 2 MiB leaf already, not empty);
 *  - at most max_ptes_none entries are empty or map the zero page;
 *  - at most max_ptes_swap are swap entries (read back before the copy);
 *  - at most max_ptes_shared map a page mapped elsewhere too (mapcount);
 *  - no entry is a guard marker;
 *  - one page at least is referenced (its entry's accessed bit, or
 *    PG_referenced), half of them when a page is in swap.
 * No writable entry is needed: Linux dropped that rule (SCAN_PAGE_RO) for
 * anonymous memory in 2025, before 6.18 (the host's MADV_COLLAPSE, which
 * runs the same scan, collapses a read-only VMA: user test thp_collapse).
 * Left out: userfaultfd, page locks and LRU isolation, the pin/reference
 * count check (is_refcount_suitable), the NUMA node choice, file and
 * shmem collapse, alloc_sleep_millisecs and defrag (the block is taken
 * from the free lists or not at all, thp_collapse_alloc_failed), and the
 * accessed bits are not cleared by the scan (as Linux).
 *
 * Locking: each address space is referenced (mm_list_from) while it is
 * scanned and skipped when its last user is leaving. The scan holds its
 * mmap_lock for reading, taken with a trylock (a busy one is skipped for
 * this pass), and pt_lock over each slot. A slot that qualifies is
 * collapsed after the read lock is dropped and the write lock taken with
 * a trylock (skipped if busy), the VMA looked up again and write-locked
 * (vma_start_write) and the slot scanned again: a program waits for
 * khugepaged at most the length of one slot's copy. Linux takes the write
 * lock outright there, after allocating the huge page.
 */
#include "internal.h"
#include "khugepaged.h"
#include "kerrno.h"
#include "lockless.h"

void (*khugepaged_kick)(void);

static unsigned long knobs[KHUGEPAGED_NR_KNOBS] = {  /* [atomic] */
	[KHUGEPAGED_PAGES_TO_SCAN] = 8 << HUGE_ORDER,
	[KHUGEPAGED_SCAN_SLEEP_MS] = 10000,
	[KHUGEPAGED_MAX_PTES_NONE] = (1 << HUGE_ORDER) - 1,
	[KHUGEPAGED_MAX_PTES_SWAP] = (1 << HUGE_ORDER) / 8,
	[KHUGEPAGED_MAX_PTES_SHARED] = (1 << HUGE_ORDER) / 2,
};

unsigned long khugepaged_get(enum khugepaged_knob k)
{
	return k < KHUGEPAGED_NR_KNOBS ? READ_ONCE(knobs[k]) : 0;
}

long khugepaged_set(enum khugepaged_knob k, long value)
{
	void (*kick)(void);

	switch (k) {
	case KHUGEPAGED_PAGES_TO_SCAN:
		if (value < 1 || value > UINT32_MAX)
			return -EINVAL;
		break;
	case KHUGEPAGED_SCAN_SLEEP_MS:
		if (value < 0 || value > UINT32_MAX)
			return -EINVAL;
		break;
	case KHUGEPAGED_MAX_PTES_NONE:
	case KHUGEPAGED_MAX_PTES_SWAP:
	case KHUGEPAGED_MAX_PTES_SHARED:
		if (value < 0 || value > (1 << HUGE_ORDER) - 1)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	WRITE_ONCE(knobs[k], (unsigned long)value);
	kick = smp_load_acquire(&khugepaged_kick);
	if (kick && k == KHUGEPAGED_SCAN_SLEEP_MS)
		kick();
	return 0;
}

/* Where the scan goes on: the first address space with list_id >= mm_id, at address. [the scanner] */
static struct {
	uint64_t mm_id;
	uintptr_t address;
	bool seen;              /* this pass met a VMA khugepaged may collapse in */
} cursor = { 1, 0, false };

struct khugepaged_walk {
	unsigned long budget, progress;
	struct collapse_limits limits;
};

/* collapse_huge_page: the slot at h, which qualified under the read lock, is collapsed if it still does. */
static void khugepaged_collapse(struct mm *mm, uintptr_t h, const struct collapse_limits *cc)
{
	struct tlb_batch tlb;
	struct vma *vma;

	if (!mmap_write_trylock(mm))
		return;
	vma = vma_lookup(mm, h);
	if (vma && thp_vma_khugepaged(mm, vma) && h + HUGE_SIZE <= vma->end) {
		vma_start_write(mm, vma);
		mm_tlb_init(&tlb, mm, false);
		if (collapse_slot(mm, vma, h, cc, &tlb) == COLLAPSE_SCAN_OK)
			__atomic_add_fetch(&knobs[KHUGEPAGED_PAGES_COLLAPSED], 1, __ATOMIC_RELAXED);
		mm_tlb_finish(&tlb);
	}
	mmap_write_unlock(mm);
}

/* How scan_vma ended; cursor.address says where to go on. */
enum vma_scan {
	VMA_DONE,               /* every slot looked at */
	VMA_BUDGET,             /* the budget ran out (read lock still held) */
	VMA_COLLAPSED,          /* a slot qualified (read lock dropped) */
};

/* The slots of vma from cursor.address on. */
static enum vma_scan scan_vma(struct mm *mm, struct vma *vma, struct khugepaged_walk *w)
{
	uintptr_t h = ALIGN_UP(MAX(vma->start, cursor.address), HUGE_SIZE);
	enum collapse_scan r;

	for (; h + HUGE_SIZE <= vma->end && h >= vma->start; h += HUGE_SIZE) {
		cursor.address = h;
		if (w->progress >= w->budget)
			return VMA_BUDGET;
		w->progress += 1U << HUGE_ORDER;
		mm_pt_lock(mm);
		r = collapse_scan_slot(mm, h, &w->limits);
		mm_pt_unlock(mm);
		if (r == COLLAPSE_SCAN_OK || r == COLLAPSE_SCAN_SWAPPED) {
			mmap_read_unlock(mm);
			cursor.address = h + HUGE_SIZE;
			khugepaged_collapse(mm, h, &w->limits);
			return VMA_COLLAPSED;
		}
	}
	return VMA_DONE;
}

/* khugepaged_scan_mm_slot: mm from cursor.address on; true when it is done for this pass. */
static bool scan_mm(struct mm *mm, struct khugepaged_walk *w)
{
	struct vma *vma;

	/* Its last user is leaving (hpage_collapse_test_exit), or a program holds its lock. */
	if (smp_load_acquire(&mm->users) <= 1 || !mmap_read_trylock(mm))
		return true;
	for (vma = vma_find(mm, cursor.address); vma; vma = vma_next(mm, vma)) {
		if (!thp_vma_khugepaged(mm, vma)) {
			w->progress++;
			continue;
		}
		cursor.seen = true;
		switch (scan_vma(mm, vma, w)) {
		case VMA_DONE:
			break;
		case VMA_BUDGET:
			mmap_read_unlock(mm);
			return false;
		case VMA_COLLAPSED:
			return false;
		}
	}
	mmap_read_unlock(mm);
	return true;
}

unsigned long khugepaged_scan(unsigned long pages)
{
	struct khugepaged_walk w = {
		.budget = pages,
		.limits = { .khugepaged = true,
			    .max_ptes_none = (unsigned)khugepaged_get(KHUGEPAGED_MAX_PTES_NONE),
			    .max_ptes_swap = (unsigned)khugepaged_get(KHUGEPAGED_MAX_PTES_SWAP),
			    .max_ptes_shared = (unsigned)khugepaged_get(KHUGEPAGED_MAX_PTES_SHARED) },
	};

	while (w.progress < w.budget) {
		struct mm *mm = mm_list_from(cursor.mm_id);
		bool seen = cursor.seen;

		if (!mm) {              /* the end of the list: a pass ended */
			cursor.mm_id = 1;
			cursor.address = 0;
			cursor.seen = false;
			if (!seen)
				break;
			__atomic_add_fetch(&knobs[KHUGEPAGED_FULL_SCANS], 1, __ATOMIC_RELAXED);
			continue;
		}
		if (mm->list_id != cursor.mm_id) {
			cursor.mm_id = mm->list_id;
			cursor.address = 0;
		}
		w.progress++;
		if (scan_mm(mm, &w)) {
			cursor.mm_id = mm->list_id + 1;
			cursor.address = 0;
		}
		mm_put(mm);
	}
	return w.progress;
}
