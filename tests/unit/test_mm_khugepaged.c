/*
 * khugepaged (mm/khugepaged.c; the slot rules are mm/collapse.c's
 * collapse_scan_slot): which VMAs it scans under each thp= policy, which
 * slots qualify, and the scan's collapse with its accounting. Expected
 * values: Linux 6.18's rules (hpage_collapse_scan_pmd for khugepaged,
 * thp_vma_allowable_order with TVA_KHUGEPAGED) with the host's defaults
 * in /sys/kernel/mm/transparent_hugepage/khugepaged/ (max_ptes_none 511,
 * max_ptes_swap 64, max_ptes_shared 256, pages_to_scan 4096); the
 * reasoning is next to each check. No thread runs during these cases
 * (on the host there is none; the kernel's starts with init, after the
 * ktest suites), so each scan is the case's own call.
 */
#include "test_mm_util.h"
#include "khugepaged.h"
#include "vmstat.h"

/* Linux's defaults (the host's files). */
static const struct collapse_limits khp_defaults = {
	.khugepaged = true, .max_ptes_none = 511, .max_ptes_swap = 64, .max_ptes_shared = 256,
};

static enum collapse_scan scan_at(struct mm *mm, uintptr_t h, const struct collapse_limits *cc)
{
	enum collapse_scan r;

	mm_pt_lock(mm);
	r = collapse_scan_slot(mm, h, cc);
	mm_pt_unlock(mm);
	return r;
}

static bool khp_vma(struct mm *mm, uintptr_t va)
{
	bool r;

	mmap_read_lock(mm);
	r = thp_vma_khugepaged(mm, vma_lookup(mm, va));
	mmap_read_unlock(mm);
	return r;
}

/*
 * Eligibility follows the policy (unlike MADV_COLLAPSE): always, every
 * private anonymous VMA with an anon identity; madvise, only with
 * MADV_HUGEPAGE; never, none; MADV_NOHUGEPAGE and PR_SET_THP_DISABLE
 * never. A VMA never written has no anon identity (Linux's anon_vma,
 * hugepage_vma_revalidate's SCAN_PAGE_ANON).
 */
static void test_khugepaged_policy(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	size_t frames;
	struct mm *mm = ut_thp_mm(THP_NEVER, 2 * HUGE_SIZE, &frames);

	ASSERT_TRUE(t, mm);
	thp_mode = THP_ALWAYS;
	EXPECT_FALSE(t, khp_vma(mm, HV));
	thp_mode = THP_NEVER;
	EXPECT_EQ(t, ut_write8(mm, HV + 5, 1), FAULT_OK);
	EXPECT_FALSE(t, khp_vma(mm, HV));
	thp_mode = THP_MADVISE;
	EXPECT_FALSE(t, khp_vma(mm, HV));
	thp_mode = THP_ALWAYS;
	EXPECT_TRUE(t, khp_vma(mm, HV));
	mm->thp_disabled = true;
	EXPECT_FALSE(t, khp_vma(mm, HV));
	mm->thp_disabled = false;
	EXPECT_EQ(t, vm_madvise(mm, HV, 2 * HUGE_SIZE, MADV_NOHUGEPAGE), 0);
	EXPECT_FALSE(t, khp_vma(mm, HV));
	EXPECT_EQ(t, vm_madvise(mm, HV, 2 * HUGE_SIZE, MADV_HUGEPAGE), 0);
	EXPECT_TRUE(t, khp_vma(mm, HV));
	thp_mode = THP_MADVISE;
	EXPECT_TRUE(t, khp_vma(mm, HV));
	thp_mode = THP_NEVER;
	EXPECT_FALSE(t, khp_vma(mm, HV));
	ut_thp_done(t, mm, saved, frames);
}

/* Each entry's accessed bit set (arg not NULL) or cleared (NULL). */
static enum mmu_action set_accessed(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	*state = arg ? *state | MMU_ACCESSED : *state & ~MMU_ACCESSED;
	return MMU_UPDATE;
}

/*
 * The slot rules, 4 KiB pages faulted under thp=never in three slots:
 *  - no page table: SCAN_PMD_NULL;
 *  - one written page, 511 empty entries: qualifies (511 <= max_ptes_none);
 *    with max_ptes_none 510 it does not (exceed_none_pte);
 *  - its accessed bit cleared (and PG_referenced never set: no reclaim
 *    ran): lack_referenced_page; read again, it qualifies;
 *  - only the zero page, read: 512 "none" entries > 511;
 *  - written, then mprotect(PROT_READ): qualifies all the same (Linux
 *    6.18 needs no writable entry: the host's MADV_COLLAPSE, the same
 *    scan, collapses a read-only VMA, user test thp_collapse);
 *  - a guard marker: pte_non_present;
 *  - a 2 MiB leaf (MADV_COLLAPSE): page_pmd_mapped.
 */
static void test_khugepaged_scan_rules(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	struct collapse_limits tight = khp_defaults;
	size_t frames;
	struct mm *mm = ut_thp_mm(THP_NEVER, 4 * HUGE_SIZE, &frames);

	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, scan_at(mm, HV, &khp_defaults), COLLAPSE_SCAN_PMD_NULL);
	EXPECT_EQ(t, ut_write8(mm, HV + 0x3000, 1), FAULT_OK);
	EXPECT_EQ(t, scan_at(mm, HV, &khp_defaults), COLLAPSE_SCAN_OK);
	tight.max_ptes_none = 510;
	EXPECT_EQ(t, scan_at(mm, HV, &tight), COLLAPSE_SCAN_EXCEED_NONE);
	arch_mmu_walk(mm->mmu, HV, HV + HUGE_SIZE, set_accessed, NULL, NULL);
	EXPECT_EQ(t, scan_at(mm, HV, &khp_defaults), COLLAPSE_SCAN_LACK_REFERENCED);
	EXPECT_EQ(t, ut_read8(mm, HV + 0x3000), 1);
	EXPECT_EQ(t, scan_at(mm, HV, &khp_defaults), COLLAPSE_SCAN_OK);

	EXPECT_EQ(t, ut_read8(mm, HV + HUGE_SIZE), 0);
	EXPECT_EQ(t, scan_at(mm, HV + HUGE_SIZE, &khp_defaults), COLLAPSE_SCAN_EXCEED_NONE);
	EXPECT_EQ(t, ut_write8(mm, HV + HUGE_SIZE + 0x1000, 2), FAULT_OK);
	EXPECT_EQ(t, scan_at(mm, HV + HUGE_SIZE, &khp_defaults), COLLAPSE_SCAN_OK);
	EXPECT_EQ(t, vm_mprotect(mm, HV + HUGE_SIZE, HUGE_SIZE, PROT_READ), 0);
	EXPECT_EQ(t, scan_at(mm, HV + HUGE_SIZE, &khp_defaults), COLLAPSE_SCAN_OK);

	EXPECT_EQ(t, ut_write8(mm, HV + 2 * HUGE_SIZE, 3), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, HV + 2 * HUGE_SIZE + 0x8000, PAGE_SIZE, MADV_GUARD_INSTALL), 0);
	EXPECT_EQ(t, scan_at(mm, HV + 2 * HUGE_SIZE, &khp_defaults), COLLAPSE_SCAN_NON_PRESENT);

	EXPECT_EQ(t, ut_write8(mm, HV + 3 * HUGE_SIZE, 4), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, HV + 3 * HUGE_SIZE, HUGE_SIZE, MADV_COLLAPSE), 0);
	EXPECT_EQ(t, scan_at(mm, HV + 3 * HUGE_SIZE, &khp_defaults), COLLAPSE_SCAN_PMD_MAPPED);
	ut_thp_done(t, mm, saved, frames);
}

/*
 * Pages shared with a forked child (mapcount 2): two written pages, then
 * fork: 2 shared <= max_ptes_shared 256 qualifies; with max_ptes_shared 1
 * the second shared page exceeds it. A write makes one page the
 * parent's own again (COW): 1 shared <= 1 qualifies.
 */
static void test_khugepaged_shared(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	struct collapse_limits one_shared = khp_defaults;
	size_t frames;
	struct mm *mm = ut_thp_mm(THP_NEVER, HUGE_SIZE, &frames), *child;

	ASSERT_TRUE(t, mm);
	one_shared.max_ptes_shared = 1;
	EXPECT_EQ(t, ut_write8(mm, HV, 1), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, HV + 0x1000, 2), FAULT_OK);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	EXPECT_EQ(t, scan_at(mm, HV, &khp_defaults), COLLAPSE_SCAN_OK);
	EXPECT_EQ(t, scan_at(mm, HV, &one_shared), COLLAPSE_SCAN_EXCEED_SHARED);
	EXPECT_EQ(t, ut_write8(mm, HV + 0x1000, 3), FAULT_OK);
	EXPECT_EQ(t, scan_at(mm, HV, &one_shared), COLLAPSE_SCAN_OK);
	mm_put(child);
	ut_thp_done(t, mm, saved, frames);
}

/* Scan with the default budget until full_scans has advanced by passes (at most tries calls). */
static void scan_passes(unsigned long passes, unsigned tries)
{
	unsigned long until = khugepaged_get(KHUGEPAGED_FULL_SCANS) + passes;

	while (khugepaged_get(KHUGEPAGED_FULL_SCANS) < until && tries--)
		khugepaged_scan(khugepaged_get(KHUGEPAGED_PAGES_TO_SCAN));
}

/*
 * The scanner end to end, thp=madvise as on the host: 4 MiB with three
 * pages written in two slots is not scanned without MADV_HUGEPAGE; after
 * it, two full passes later (a pass ends where the list of address
 * spaces does), with max_ptes_none 510 the first slot only (510 empty
 * entries; the second has 511), with 511 both slots are huge pages: RSS 1024, AnonHugePages
 * 4 MiB, the data kept and zeros around it, thp_collapse_alloc and
 * pages_collapsed up by 2, 1024 - 3 frames more in use; a budget of 512
 * entries (one slot's) collapses at most one slot per call; at the end
 * every frame is back.
 */
static void test_khugepaged_collapse(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	unsigned long allocs = vm_event_sum(VM_THP_COLLAPSE_ALLOC);
	unsigned long collapsed = khugepaged_get(KHUGEPAGED_PAGES_COLLAPSED);
	size_t frames, before;
	struct mm *mm = ut_thp_mm(THP_MADVISE, 2 * HUGE_SIZE, &frames);

	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, ut_write8(mm, HV + 0x1234, 7), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, HV + 0x5003, 8), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, HV + HUGE_SIZE + 9, 9), FAULT_OK);
	for (int i = 0; i < 4; i++)
		khugepaged_scan(khugepaged_get(KHUGEPAGED_PAGES_TO_SCAN));
	EXPECT_EQ(t, mm->rss, 3);
	EXPECT_EQ(t, khugepaged_get(KHUGEPAGED_PAGES_COLLAPSED), collapsed);
	EXPECT_EQ(t, vm_madvise(mm, HV, 2 * HUGE_SIZE, MADV_HUGEPAGE), 0);
	before = ut_free_frames();
	khugepaged_scan(1U << HUGE_ORDER);
	EXPECT_LE(t, khugepaged_get(KHUGEPAGED_PAGES_COLLAPSED) - collapsed, 1);
	/* max_ptes_none 510: the first slot (510 empty entries) qualifies, the second (511) does not. */
	EXPECT_EQ(t, khugepaged_set(KHUGEPAGED_MAX_PTES_NONE, 510), 0);
	scan_passes(2, 100);
	EXPECT_EQ(t, ut_state(mm, HV) & MMU_HUGE, MMU_HUGE);
	EXPECT_EQ(t, ut_state(mm, HV + HUGE_SIZE) & MMU_HUGE, 0);
	EXPECT_EQ(t, khugepaged_set(KHUGEPAGED_MAX_PTES_NONE, 511), 0);
	scan_passes(2, 100);
	EXPECT_EQ(t, ut_state(mm, HV) & (MMU_HUGE | MMU_WRITE), MMU_HUGE | MMU_WRITE);
	EXPECT_EQ(t, ut_state(mm, HV + HUGE_SIZE) & MMU_HUGE, MMU_HUGE);
	EXPECT_EQ(t, mm->rss, 1024);
	EXPECT_EQ(t, ut_anon_huge(mm, HV), 2 * HUGE_SIZE);
	EXPECT_EQ(t, khugepaged_get(KHUGEPAGED_PAGES_COLLAPSED) - collapsed, 2);
	EXPECT_EQ(t, vm_event_sum(VM_THP_COLLAPSE_ALLOC) - allocs, 2);
	EXPECT_EQ(t, before - ut_free_frames(), 1024 - 3);
	EXPECT_EQ(t, ut_read8(mm, HV + 0x1234) + ut_read8(mm, HV + 0x5003) + ut_read8(mm, HV + HUGE_SIZE + 9), 24);
	EXPECT_EQ(t, ut_read8(mm, HV) + ut_read8(mm, HV + 0x5004) + ut_read8(mm, HV + 2 * HUGE_SIZE - 1), 0);
	ut_thp_done(t, mm, saved, frames);
}

/*
 * Swapped pages (a RAM-disk swap area of the case's own), thp=never's
 * 4 KiB pages: slot 0 with 300 written pages, 2 of them paged out: 2 <=
 * max_ptes_swap 64 and 298 referenced >= 256 (half a slot, Linux's rule
 * when a page is in swap): it qualifies once they are read back
 * (COLLAPSE_SCAN_SWAPPED); with max_ptes_swap 1 it does not. Slot 1
 * with 10 written pages, 2 paged out: 8 referenced < 256, not collapsed.
 * Two full passes of the scan (thp=always now, so both slots are
 * scanned): slot 0 is a huge page with its data (swapped pages read
 * back), slot 1 keeps its 8 pages and 2 swap entries.
 */
static void test_khugepaged_swap_body(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	struct collapse_limits one_swap = khp_defaults;
	struct ut_swap_area area;
	struct mm *mm;

	if (!ut_swap_area_on(t, &area, 64))
		return;
	one_swap.max_ptes_swap = 1;
	mm = ut_thp_mm(THP_NEVER, 2 * HUGE_SIZE, &(size_t){ 0 });
	ASSERT_TRUE(t, mm);
	for (unsigned i = 0; i < 300; i++)
		EXPECT_EQ(t, ut_write8(mm, HV + i * PAGE_SIZE + 1, (uint8_t)(i + 1)), FAULT_OK);
	for (unsigned i = 0; i < 10; i++)
		EXPECT_EQ(t, ut_write8(mm, HV + HUGE_SIZE + i * PAGE_SIZE, (uint8_t)(i + 1)), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, HV + 4 * PAGE_SIZE, 2 * PAGE_SIZE, MADV_PAGEOUT), 0);
	EXPECT_EQ(t, vm_madvise(mm, HV + HUGE_SIZE, 2 * PAGE_SIZE, MADV_PAGEOUT), 0);
	EXPECT_EQ(t, mm->swap_ents, 4);
	/* A page-out may age the others; they count as just used, as after the writes. */
	arch_mmu_walk(mm->mmu, HV, HV + 2 * HUGE_SIZE, set_accessed, mm, NULL);
	EXPECT_EQ(t, scan_at(mm, HV, &khp_defaults), COLLAPSE_SCAN_SWAPPED);
	EXPECT_EQ(t, scan_at(mm, HV, &one_swap), COLLAPSE_SCAN_EXCEED_SWAP);
	EXPECT_EQ(t, scan_at(mm, HV + HUGE_SIZE, &khp_defaults), COLLAPSE_SCAN_LACK_REFERENCED);
	thp_mode = THP_ALWAYS;
	scan_passes(2, 100);
	EXPECT_EQ(t, ut_state(mm, HV) & MMU_HUGE, MMU_HUGE);
	EXPECT_EQ(t, ut_state(mm, HV + HUGE_SIZE + 2 * PAGE_SIZE) & MMU_HUGE, 0);
	EXPECT_EQ(t, mm->swap_ents, 2);
	EXPECT_EQ(t, mm->rss, 512 + 8);
	EXPECT_EQ(t, ut_read8(mm, HV + 4 * PAGE_SIZE + 1) + ut_read8(mm, HV + 299 * PAGE_SIZE + 1), 5 + 44);
	EXPECT_EQ(t, ut_read8(mm, HV + HUGE_SIZE + PAGE_SIZE), 2);
	mm_put(mm);
	thp_mode = saved;
	ut_swap_area_off(t, &area);
}
UT_CASE_WITHOUT_SWAP(test_khugepaged_swap)

/* The tunables' ranges (Linux's sysfs stores): pages_to_scan >= 1, max_ptes_* <= 511, counters read-only. */
static void test_khugepaged_tunables(struct ktest *t)
{
	unsigned long none = khugepaged_get(KHUGEPAGED_MAX_PTES_NONE);
	unsigned long pages = khugepaged_get(KHUGEPAGED_PAGES_TO_SCAN);

	EXPECT_EQ(t, khugepaged_set(KHUGEPAGED_PAGES_TO_SCAN, 0), -EINVAL);
	EXPECT_EQ(t, khugepaged_set(KHUGEPAGED_MAX_PTES_NONE, 512), -EINVAL);
	EXPECT_EQ(t, khugepaged_set(KHUGEPAGED_MAX_PTES_SWAP, -1), -EINVAL);
	EXPECT_EQ(t, khugepaged_set(KHUGEPAGED_FULL_SCANS, 0), -EINVAL);
	EXPECT_EQ(t, khugepaged_set(KHUGEPAGED_PAGES_COLLAPSED, 0), -EINVAL);
	EXPECT_EQ(t, khugepaged_set(KHUGEPAGED_MAX_PTES_NONE, 0), 0);
	EXPECT_EQ(t, khugepaged_get(KHUGEPAGED_MAX_PTES_NONE), 0);
	EXPECT_EQ(t, khugepaged_set(KHUGEPAGED_PAGES_TO_SCAN, 512), 0);
	EXPECT_EQ(t, khugepaged_get(KHUGEPAGED_PAGES_TO_SCAN), 512);
	EXPECT_EQ(t, khugepaged_set(KHUGEPAGED_MAX_PTES_NONE, (long)none), 0);
	EXPECT_EQ(t, khugepaged_set(KHUGEPAGED_PAGES_TO_SCAN, (long)pages), 0);
}

static const struct ktest_case mm_khugepaged_cases[] = {
	KTEST_CASE(test_khugepaged_policy),
	KTEST_CASE(test_khugepaged_scan_rules),
	KTEST_CASE(test_khugepaged_shared),
	KTEST_CASE(test_khugepaged_collapse),
	KTEST_CASE(test_khugepaged_swap),
	KTEST_CASE(test_khugepaged_tunables),
	{ 0 },
};
KTEST_SUITE(mm_khugepaged, mm_khugepaged_cases);
