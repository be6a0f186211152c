/*
 * Reclaim under memory pressure (mm/vmscan.c, include/vmscan.h): the
 * clock over lazily freed pages (second chance for a page read since
 * MADV_FREE, a hand that goes on where it stopped), the watermarks and
 * GFP_USER, and direct reclaim in a fault before FAULT_OOM. The counters
 * (include/vmstat.h) are checked against what each test did.
 *
 * Expected values come from the rules written beside each check (Linux's
 * shrink_folio_list for lazyfree folios: a clean one is dropped, a
 * referenced one kept once, a dirty one goes back to being an ordinary
 * page), not from running the code.
 */
#include "test_mm_util.h"
#include "lru.h"
#include "vmscan.h"
#include "vmstat.h"

#define B  0x40000000UL                    /* a base far from everything */
#define P(n) ((uintptr_t)(n) << PAGE_SHIFT)

struct counts {
	unsigned long v[NR_VM_EVENTS];
};

static void counts_take(struct counts *c)
{
	for (unsigned e = 0; e < NR_VM_EVENTS; e++)
		c->v[e] = vm_event_sum(e);
}

static unsigned long counts_delta(const struct counts *c, enum vm_event e)
{
	return vm_event_sum(e) - c->v[e];
}

/* An address space with n private pages at B, page i holding 0x10 + i, all MADV_FREE'd. */
static struct mm *lazyfree_mm(struct ktest *t, unsigned n)
{
	struct mm *mm = mm_create();

	if (!mm)
		return NULL;
	EXPECT_EQ(t, vm_mmap(mm, B, P(n), UT_RW, UT_PA | MAP_FIXED), (long)B);
	for (unsigned i = 0; i < n; i++)
		EXPECT_EQ(t, ut_write8(mm, B + P(i), (uint8_t)(0x10 + i)), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, B, P(n), MADV_FREE), 0);
	return mm;
}

/*
 * 0 1 2 3 4 5 6 7   eight lazily freed pages; page 0 read after MADV_FREE.
 * mm_reclaim(3): the clock from the start: page 0 is referenced (second
 * chance: its accessed bit is cleared, it stays), 1 2 3 are dropped, and
 * the scan stops there (4 lazily freed pages looked at). mm_reclaim(100):
 * the hand goes on: 4..7 dropped, then round again to page 0, whose
 * chance is used up: dropped. Everything reads zero afterwards.
 */
static void test_clock_second_chance_body(struct ktest *t)
{
	struct counts c;
	struct mm *mm;
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	counts_take(&c);
	mm = lazyfree_mm(t, 8);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, counts_delta(&c, VM_PGLAZYFREE), 8);
	EXPECT_EQ(t, vm_stat_read(VM_NR_LAZYFREE), 8);
	EXPECT_EQ(t, ut_read8(mm, B), 0x10);
	EXPECT_TRUE(t, ut_state(mm, B) & MMU_ACCESSED);
	EXPECT_EQ(t, mm_reclaim(3, RECLAIM_DIRECT), 3);
	EXPECT_EQ(t, mm->rss, 5);
	EXPECT_FALSE(t, ut_state(mm, B) & MMU_ACCESSED);
	EXPECT_EQ(t, ut_pa(mm, B + P(1)), 0);
	EXPECT_EQ(t, ut_pa(mm, B + P(3)), 0);
	EXPECT_NE(t, ut_pa(mm, B + P(4)), 0);
	EXPECT_EQ(t, counts_delta(&c, VM_PGSTEAL_DIRECT), 3);
	EXPECT_EQ(t, counts_delta(&c, VM_PGSCAN_DIRECT), 4);
	EXPECT_EQ(t, mm_reclaim(100, RECLAIM_KSWAPD), 5);
	EXPECT_EQ(t, mm->rss, 0);
	EXPECT_EQ(t, counts_delta(&c, VM_PGSTEAL_KSWAPD), 5);
	EXPECT_EQ(t, counts_delta(&c, VM_PGSCAN_KSWAPD), 5);
	EXPECT_EQ(t, counts_delta(&c, VM_PGLAZYFREED), 8);
	EXPECT_EQ(t, vm_stat_read(VM_NR_LAZYFREE), 0);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_EQ(t, ut_read8(mm, B + P(i)), 0);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

UT_CASE_WITHOUT_SWAP(test_clock_second_chance)

/*
 * A page written after MADV_FREE is data again: reclaim un-marks it and
 * keeps it (and a later reclaim does not look at it any more). The
 * page-table clock (reclaim's rounds without swap, mm/vmscan.c) sees the
 * dirty entry at its first look: the page is looked at once, and, with
 * the LRU lists on (reclaim=lru), goes from the inactive file list, where
 * MADV_FREE put it, to the active anonymous list, as Linux's reclaim
 * moves a lazily freed folio found dirty (try_to_unmap_one sets it
 * swap-backed, activate_locked).
 */
static void test_written_page_kept_body(struct ktest *t)
{
	struct counts c;
	struct mm *mm = lazyfree_mm(t, 4);
	unsigned long looked;

	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, ut_write8(mm, B + P(2), 0x77), FAULT_OK);
	counts_take(&c);
	EXPECT_EQ(t, mm_reclaim(100, RECLAIM_KSWAPD), 3);
	looked = counts_delta(&c, VM_PGSCAN_KSWAPD);
	EXPECT_EQ(t, looked, 4);                /* the written page was looked at once */
	if (vmscan_reclaim_lru)
		EXPECT_EQ(t, lru_page_list(phys_to_page(ut_pa(mm, B + P(2)))), LRU_ACTIVE_ANON);
	EXPECT_EQ(t, ut_read8(mm, B + P(2)), 0x77);
	EXPECT_EQ(t, ut_read8(mm, B + P(0)), 0);
	EXPECT_EQ(t, mm->rss, 1);
	EXPECT_EQ(t, mm_reclaim(100, RECLAIM_KSWAPD), 0);
	EXPECT_EQ(t, counts_delta(&c, VM_PGSCAN_KSWAPD), looked);
	mm_put(mm);
}

UT_CASE_WITHOUT_SWAP(test_written_page_kept)

#ifdef HOSTED
/*
 * Another CPU writes lazily freed pages while reclaim looks at them: each
 * write lands right after the walk read the page's entry, before the
 * visitor decides (hosted_walk_hook; the hardware's locked update of the
 * dirty bit can land there). A page written after MADV_FREE is data again
 * (Linux discards a lazyfree folio only when its PTE, cleared, was clean):
 * both pages must be kept with the writes, through a second reclaim too.
 * Page 0 was read since MADV_FREE (the clock's second chance: its
 * accessed bit is cleared, an update), page 1 was not (dropped unless
 * dirty). A walk that decides on the entry it read and stores over it
 * forgets the dirty bit: page 1 goes in the first reclaim, page 0 in the
 * second, and both read zero. A write that finds the entry gone (it would
 * fault) is done after the walk, as the CPU retries it.
 */
static struct racing_write {
	uintptr_t va;
	uint8_t val;
	bool landed;
} racing[2];

static void write_during_walk(uint64_t *pte, uintptr_t va)
{
	for (unsigned i = 0; i < 2; i++)
		if (racing[i].va == va && !racing[i].landed)
			racing[i].landed = hosted_hw_write8(pte, va, racing[i].val);
}

static void test_write_during_reclaim_kept_body(struct ktest *t)
{
	struct mm *mm = lazyfree_mm(t, 2);

	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, ut_read8(mm, B), 0x10);                    /* page 0 referenced */
	for (unsigned i = 0; i < 2; i++)
		racing[i] = (struct racing_write){ B + P(i), (uint8_t)(0x70 + i), false };
	hosted_walk_hook = write_during_walk;
	mm_reclaim(100, RECLAIM_DIRECT);
	hosted_walk_hook = NULL;
	for (unsigned i = 0; i < 2; i++)
		if (!racing[i].landed)
			EXPECT_EQ(t, ut_write8(mm, racing[i].va, racing[i].val), FAULT_OK);
	mm_reclaim(100, RECLAIM_DIRECT);
	EXPECT_EQ(t, ut_read8(mm, B), 0x70);
	EXPECT_EQ(t, ut_read8(mm, B + P(1)), 0x71);
	EXPECT_EQ(t, mm->rss, 2);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

UT_CASE_WITHOUT_SWAP(test_write_during_reclaim_kept)
#endif

/* Hold free frames (plain allocations, which may use the reserve) until only n are left. */
static void hold_until(struct list_head *held, size_t n)
{
	struct page *p;

	while (pmm_free_frames() > n && (p = pmm_alloc(0, 0)) != NULL)
		list_add(&p->lru, held);
}

/*
 * min_free_kbytes (/proc/sys/vm): 4096 KiB make min 1024 frames, and low
 * and high lie max(1024 / 4, 0.1% of the frames) and twice that above it
 * (Linux's __setup_per_zone_wmarks, watermark_scale_factor 10); the read
 * gives the KiB written, 1001 too (Linux keeps the number, not the frames:
 * min 250). Negative is -EINVAL and changes nothing. The default it
 * replaced is Linux's sqrt(16 x KiB of RAM), at least 128.
 */
static void test_min_free_kbytes(struct ktest *t)
{
	unsigned long old = pmm_min_free_kbytes();
	size_t step = MAX(1024 / 4, pmm_total_frames() * 10 / 10000);
	unsigned long kib = pmm_total_frames() * (PAGE_SIZE >> 10), r = 0;

	while ((r + 1) * (r + 1) <= kib * 16)
		r++;
	EXPECT_EQ(t, old, MAX(r, 128UL));
	ASSERT_EQ(t, pmm_set_min_free_kbytes(4096), 0);
	EXPECT_EQ(t, pmm_min_free_kbytes(), 4096);
	EXPECT_EQ(t, pmm_watermark(WMARK_MIN), 1024);
	EXPECT_EQ(t, pmm_watermark(WMARK_LOW), 1024 + step);
	EXPECT_EQ(t, pmm_watermark(WMARK_HIGH), 1024 + 2 * step);
	EXPECT_EQ(t, pmm_set_min_free_kbytes(-1), -EINVAL);
	EXPECT_EQ(t, pmm_min_free_kbytes(), 4096);
	EXPECT_EQ(t, pmm_set_min_free_kbytes(1001), 0);
	EXPECT_EQ(t, pmm_min_free_kbytes(), 1001);
	EXPECT_EQ(t, pmm_watermark(WMARK_MIN), 250);
	EXPECT_EQ(t, pmm_set_min_free_kbytes((long)old), 0);
	EXPECT_EQ(t, pmm_watermark(WMARK_MIN), old / (PAGE_SIZE >> 10));
}

/* min < low < high; a user page is refused when it would take the free frames below min, a kernel one is not. */
static void test_watermarks_gfp_user(struct ktest *t)
{
	size_t min = pmm_watermark(WMARK_MIN);
	struct list_head held;
	struct page *u, *k;

	EXPECT_GE(t, min, 128 / (PAGE_SIZE >> 10));                 /* min_free_kbytes >= 128 */
	EXPECT_LT(t, min, pmm_watermark(WMARK_LOW));
	EXPECT_LT(t, pmm_watermark(WMARK_LOW), pmm_watermark(WMARK_HIGH));
	list_init(&held);
	hold_until(&held, min + 1);
	u = pmm_alloc(0, GFP_USER);                 /* leaves min free: allowed */
	EXPECT_TRUE(t, u != NULL);
	EXPECT_TRUE(t, pmm_alloc(0, GFP_USER) == NULL);
	k = pmm_alloc(0, 0);
	EXPECT_TRUE(t, k != NULL);
	if (u)
		pmm_free(u, 0);
	if (k)
		pmm_free(k, 0);
	ut_release_frames(&held);
	EXPECT_EQ(t, pmm_check(), 0);
}

/*
 * A fault that finds no user page reclaims lazily freed pages itself
 * (direct reclaim: allocstall, pgsteal_direct) and succeeds; with nothing
 * left to reclaim it answers FAULT_OOM, and after memory comes back the
 * same fault works.
 */
static void test_direct_reclaim_in_fault_body(struct ktest *t)
{
	struct mm *lazy, *mm = mm_create();
	struct list_head held;
	struct counts c;
	enum fault_result r1, r2;

	ASSERT_TRUE(t, mm);
	/* Three one-page VMAs apart (no merging, nothing filled ahead of a fault). */
	for (unsigned i = 0; i < 3; i++)
		ASSERT_EQ(t, vm_mmap(mm, B + P(2 * i), P(1), UT_RW, UT_PA | MAP_FIXED), (long)(B + P(2 * i)));
	ASSERT_EQ(t, ut_write8(mm, B, 1), FAULT_OK);            /* page tables exist */
	lazy = lazyfree_mm(t, 64);
	ASSERT_TRUE(t, lazy);
	list_init(&held);
	counts_take(&c);
	hold_until(&held, pmm_watermark(WMARK_MIN));
	r1 = handle_mm_fault(mm, B + P(2), FAULT_WRITE | FAULT_USER);
	EXPECT_EQ(t, mm_reclaim_lazyfree(lazy), 64 - counts_delta(&c, VM_PGSTEAL_DIRECT));
	hold_until(&held, pmm_watermark(WMARK_MIN));
	r2 = handle_mm_fault(mm, B + P(4), FAULT_WRITE | FAULT_USER);
	ut_release_frames(&held);
	EXPECT_EQ(t, r1, FAULT_OK);
	EXPECT_GE(t, counts_delta(&c, VM_ALLOCSTALL), 2);
	EXPECT_GE(t, counts_delta(&c, VM_PGSTEAL_DIRECT), 1);
	EXPECT_EQ(t, r2, FAULT_OOM);
	EXPECT_EQ(t, ut_pa(mm, B + P(4)), 0);
	EXPECT_EQ(t, ut_write8(mm, B + P(4), 2), FAULT_OK);
	EXPECT_EQ(t, ut_read8(mm, B + P(4)), 2);
	EXPECT_EQ(t, pmm_check(), 0);
	mm_put(lazy);
	mm_put(mm);
}

UT_CASE_WITHOUT_SWAP(test_direct_reclaim_in_fault)

/*
 * A page-cache page (here shared anonymous memory) is a user page: a fault
 * that needs one at the min watermark gets none (FAULT_OOM, nothing to
 * reclaim without swap) and leaves the frames below min to the kernel,
 * which can still allocate. Before cache pages were GFP_USER, the fault
 * took a kernel frame, and a program filling shared memory made the
 * kernel's own allocations (an open's) fail. Once memory is back the same
 * fault works.
 */
static void test_cache_page_leaves_min_body(struct ktest *t)
{
	size_t min = pmm_watermark(WMARK_MIN);
	struct mm *mm = mm_create();
	struct list_head held;
	enum fault_result r;
	size_t left;
	struct page *k;

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, B, P(2), UT_RW, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED), (long)B);
	ASSERT_EQ(t, ut_write8(mm, B, 1), FAULT_OK);            /* page tables and the object's tree exist */
	list_init(&held);
	hold_until(&held, min);
	r = handle_mm_fault(mm, B + P(1), FAULT_WRITE | FAULT_USER);
	left = pmm_free_frames();
	k = pmm_alloc(0, 0);
	EXPECT_TRUE(t, k != NULL);
	if (k)
		pmm_free(k, 0);
	ut_release_frames(&held);
	EXPECT_EQ(t, r, FAULT_OOM);
	EXPECT_GE(t, left, min);
	EXPECT_EQ(t, ut_write8(mm, B + P(1), 2), FAULT_OK);
	EXPECT_EQ(t, ut_read8(mm, B + P(1)), 2);
	EXPECT_EQ(t, ut_read8(mm, B), 1);
	mm_put(mm);
	EXPECT_EQ(t, pmm_check(), 0);
}

UT_CASE_WITHOUT_SWAP(test_cache_page_leaves_min)

/*
 * A 64 TiB private VMA (a fuzzer's kind) with one lazily freed page at
 * its start, one in its middle and one at its end. arch_mmu_next_used
 * answers from the tables alone: the address itself inside a 2 MiB block
 * that has a page table, else the next such block's start, else the end
 * given. Reclaim then finds the three pages and looks at nothing else
 * (3 scanned, 3 dropped). Stepping through the VMA 2 MiB at a time, as
 * reclaim once did, is 32 million steps of a few hundred instructions:
 * about 2 s on the host, not a failure here; the swap suite's sparse case,
 * whose steps are 64 pages, is the one that cannot finish without the skip.
 */
#define HUGE_VMA (64UL << 40)

static void test_sparse_huge_vma_body(struct ktest *t)
{
	uintptr_t mid = B + HUGE_VMA / 2 + P(2), last = B + HUGE_VMA - PAGE_SIZE;
	struct mm *mm = mm_create();
	struct counts c;

	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap(mm, B, HUGE_VMA, UT_RW, UT_PA | MAP_FIXED | MAP_NORESERVE), (long)B);
	EXPECT_EQ(t, vm_madvise(mm, B, HUGE_VMA, MADV_NOHUGEPAGE), 0);  /* three 4 KiB pages, not 2 MiB ones */
	EXPECT_EQ(t, ut_write8(mm, B, 1), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, mid, 2), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, last, 3), FAULT_OK);
	mm_pt_lock(mm);
	EXPECT_EQ(t, arch_mmu_next_used(mm->mmu, B + P(5), B + HUGE_VMA), B + P(5));
	EXPECT_EQ(t, arch_mmu_next_used(mm->mmu, B + HUGE_SIZE, B + HUGE_VMA), B + HUGE_VMA / 2);
	EXPECT_EQ(t, arch_mmu_next_used(mm->mmu, mid + PAGE_SIZE, B + HUGE_VMA), mid + PAGE_SIZE);
	EXPECT_EQ(t, arch_mmu_next_used(mm->mmu, B + HUGE_VMA / 2 + HUGE_SIZE, B + HUGE_VMA),
		  B + HUGE_VMA - HUGE_SIZE);
	EXPECT_EQ(t, arch_mmu_next_used(mm->mmu, mid + HUGE_SIZE, last - HUGE_SIZE), last - HUGE_SIZE);
	EXPECT_EQ(t, arch_mmu_next_used(mm->mmu, B + HUGE_VMA, TASK_SIZE), TASK_SIZE);
	mm_pt_unlock(mm);
	EXPECT_EQ(t, vm_madvise(mm, B, HUGE_VMA, MADV_FREE), 0);
	EXPECT_EQ(t, vm_stat_read(VM_NR_LAZYFREE), 3);
	counts_take(&c);
	EXPECT_EQ(t, mm_reclaim(100, RECLAIM_KSWAPD), 3);
	EXPECT_EQ(t, counts_delta(&c, VM_PGSCAN_KSWAPD), 3);
	EXPECT_EQ(t, mm->rss, 0);
	EXPECT_EQ(t, ut_read8(mm, mid), 0);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

UT_CASE_WITHOUT_SWAP(test_sparse_huge_vma)

static const struct ktest_case mm_reclaim_cases[] = {
	KTEST_CASE(test_clock_second_chance),
	KTEST_CASE(test_written_page_kept),
#ifdef HOSTED
	KTEST_CASE(test_write_during_reclaim_kept),
#endif
	KTEST_CASE(test_min_free_kbytes),
	KTEST_CASE(test_watermarks_gfp_user),
	KTEST_CASE(test_direct_reclaim_in_fault),
	KTEST_CASE(test_cache_page_leaves_min),
	KTEST_CASE(test_sparse_huge_vma),
	{ 0 },
};
KTEST_SUITE(mm_reclaim, mm_reclaim_cases);
