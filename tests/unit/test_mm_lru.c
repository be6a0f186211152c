/*
 * The LRU lists (mm/lru.c, include/lru.h), host and kernel: a fault puts
 * its new page on the inactive anonymous list (Linux 6.1 without the
 * multi-generational LRU: folio_add_lru_vma, inactive since Linux 5.9),
 * shmem pages (MAP_SHARED | MAP_ANONYMOUS) go on the anonymous lists too
 * (they are swap-backed), MADV_COLD moves a page mapped only here back to
 * the inactive list (folio_deactivate), MADV_FREE moves a page to the
 * inactive file list (lru_lazyfree_fn), and a freed page leaves its list
 * (the counts fall back by exactly what the test freed; pmm_free refuses
 * a frame still on a list).
 *
 * The gauges count the pages on each list and those queued in a CPU's
 * batch, so they move by exactly the pages a test faulted or freed:
 * nothing else allocates user pages while a suite runs. The page counts
 * are larger than a batch (15), so batches fill and drain during a test.
 */
#include "test_mm_util.h"
#include "lru.h"
#include "vmscan.h"
#include "vmstat.h"

#define B  0x40000000UL
#define P(n) ((uintptr_t)(n) << PAGE_SHIFT)

struct lru_counts {
	unsigned long n[NR_LRU_LISTS];
};

static void lru_take(struct lru_counts *c)
{
	for (unsigned l = 0; l < NR_LRU_LISTS; l++)
		c->n[l] = lru_list_pages(l);
}

/* List l's pages now less those at c (negative when it shrank). */
static long lru_delta(const struct lru_counts *c, enum lru_list l)
{
	return (long)lru_list_pages(l) - (long)c->n[l];
}

/* The list of the page mapped at va (-1: none, or nothing mapped). */
static int list_at(struct mm *mm, uintptr_t va)
{
	phys_addr_t pa = ut_pa(mm, va);

	return pa ? lru_page_list(phys_to_page(pa)) : -1;
}

/* An address space with n pages at B (flags: UT_PA or UT_SA), each written. */
static struct mm *written(struct ktest *t, unsigned n, int flags)
{
	struct mm *mm = mm_create();

	if (!mm)
		return NULL;
	EXPECT_EQ(t, vm_mmap(mm, B, P(n), UT_RW, flags | MAP_FIXED), (long)B);
	for (unsigned i = 0; i < n; i++)
		EXPECT_EQ(t, ut_write8(mm, B + P(i), (uint8_t)i), FAULT_OK);
	return mm;
}

/* Put mm (the test's last reference): every list is back where c saw it, and the allocator is sound. */
static void put_and_check(struct ktest *t, struct mm *mm, const struct lru_counts *c)
{
	mm_put(mm);
	for (unsigned l = 0; l < NR_LRU_LISTS; l++)
		EXPECT_EQ(t, lru_delta(c, l), 0);
	EXPECT_EQ(t, pmm_check(), 0);
}

/*
 * 40 private pages faulted, in two VMAs of 20 (apart: they do not merge):
 * 40 more inactive anonymous pages, none active; the second VMA
 * unmapped: 20 fewer; the address space put: back where they were.
 */
static void test_fault_adds_inactive(struct ktest *t)
{
	const uintptr_t b2 = B + P(100);
	struct lru_counts c;
	struct mm *mm;

	lru_take(&c);
	mm = written(t, 20, UT_PA);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap(mm, b2, P(20), UT_RW, UT_PA | MAP_FIXED), (long)b2);
	for (unsigned i = 0; i < 20; i++)
		EXPECT_EQ(t, ut_write8(mm, b2 + P(i), (uint8_t)i), FAULT_OK);
	EXPECT_EQ(t, lru_delta(&c, LRU_INACTIVE_ANON), 40);
	EXPECT_EQ(t, lru_delta(&c, LRU_ACTIVE_ANON), 0);
	EXPECT_EQ(t, lru_delta(&c, LRU_INACTIVE_FILE) + lru_delta(&c, LRU_ACTIVE_FILE), 0);
	for (unsigned i = 0; i < 20; i++) {
		EXPECT_EQ(t, list_at(mm, B + P(i)), LRU_INACTIVE_ANON);
		EXPECT_EQ(t, list_at(mm, b2 + P(i)), LRU_INACTIVE_ANON);
	}
	lru_drain_all();                                     /* queued or linked: the same list */
	EXPECT_EQ(t, lru_delta(&c, LRU_INACTIVE_ANON), 40);
	EXPECT_EQ(t, list_at(mm, b2 + P(19)), LRU_INACTIVE_ANON);
	EXPECT_EQ(t, vm_munmap(mm, b2, P(20)), 0);
	EXPECT_EQ(t, lru_delta(&c, LRU_INACTIVE_ANON), 20);
	put_and_check(t, mm, &c);
}

/*
 * 20 private pages made active (as reclaim's scan does with a page it
 * finds referenced), then MADV_COLD on pages 5..14: those ten go back to
 * the inactive list, the others stay active; MADV_COLD of all twenty
 * moves the other ten. (No VMA is split and no page freed by an advice,
 * so that the labs' skeletons, which stub those, still pass this.)
 */
static void test_cold_deactivates(struct ktest *t)
{
	struct lru_counts c;
	struct mm *mm;

	lru_take(&c);
	mm = written(t, 20, UT_PA);
	ASSERT_TRUE(t, mm);
	for (unsigned i = 0; i < 20; i++)
		lru_activate(phys_to_page(ut_pa(mm, B + P(i))));
	EXPECT_EQ(t, lru_delta(&c, LRU_ACTIVE_ANON), 20);
	EXPECT_EQ(t, lru_delta(&c, LRU_INACTIVE_ANON), 0);
	EXPECT_EQ(t, vm_madvise(mm, B + P(5), P(10), MADV_COLD), 0);
	for (unsigned i = 0; i < 20; i++)
		EXPECT_EQ(t, list_at(mm, B + P(i)), i >= 5 && i < 15 ? LRU_INACTIVE_ANON : LRU_ACTIVE_ANON);
	EXPECT_EQ(t, lru_delta(&c, LRU_ACTIVE_ANON), 10);
	EXPECT_EQ(t, lru_delta(&c, LRU_INACTIVE_ANON), 10);
	EXPECT_EQ(t, vm_madvise(mm, B, P(20), MADV_COLD), 0);
	EXPECT_EQ(t, lru_delta(&c, LRU_ACTIVE_ANON), 0);
	EXPECT_EQ(t, lru_delta(&c, LRU_INACTIVE_ANON), 20);
	EXPECT_EQ(t, ut_read8(mm, B + P(7)), 7);             /* data untouched */
	put_and_check(t, mm, &c);
}

/*
 * 24 pages of shared anonymous memory (shmem): 24 more inactive
 * anonymous pages (swap-backed: Linux counts shmem in Inactive(anon)),
 * none on the file lists; they leave with the object, when the last
 * mapping goes.
 */
static void test_shmem_on_anon_lists(struct ktest *t)
{
	struct lru_counts c;
	struct mm *mm;

	lru_take(&c);
	mm = written(t, 24, UT_SA);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, lru_delta(&c, LRU_INACTIVE_ANON), 24);
	EXPECT_EQ(t, lru_delta(&c, LRU_INACTIVE_FILE) + lru_delta(&c, LRU_ACTIVE_FILE), 0);
	EXPECT_EQ(t, list_at(mm, B + P(23)), LRU_INACTIVE_ANON);
	put_and_check(t, mm, &c);
}

/*
 * MADV_FREE moves each page it marks to the inactive file list (Linux
 * lru_lazyfree_fn: off its anonymous list, active or not, to the head of
 * the file list, its PG_referenced cleared, counted as pglazyfree and not
 * as a deactivation): 20 pages, the first 5 made active, MADV_FREE of the
 * first 16: 16 more inactive file pages, 5 active and 11 inactive
 * anonymous ones fewer, pgdeactivate unchanged. Reclaim without swap
 * drops them (16 asked, 16 dropped, each reading zero again, the 4 others
 * kept with their data) and they leave the file list.
 */
static void test_lazyfree_on_file_list_body(struct ktest *t)
{
	struct lru_counts c;
	struct mm *mm;
	unsigned long deact0;

	lru_take(&c);
	mm = written(t, 20, UT_PA);
	ASSERT_TRUE(t, mm);
	for (unsigned i = 0; i < 5; i++)
		lru_activate(phys_to_page(ut_pa(mm, B + P(i))));
	deact0 = vm_event_sum(VM_PGDEACTIVATE);
	EXPECT_EQ(t, vm_madvise(mm, B, P(16), MADV_FREE), 0);
	EXPECT_EQ(t, lru_delta(&c, LRU_INACTIVE_FILE), 16);
	EXPECT_EQ(t, lru_delta(&c, LRU_ACTIVE_FILE), 0);
	EXPECT_EQ(t, lru_delta(&c, LRU_ACTIVE_ANON), 0);
	EXPECT_EQ(t, lru_delta(&c, LRU_INACTIVE_ANON), 4);
	EXPECT_EQ(t, vm_event_sum(VM_PGDEACTIVATE), deact0);
	EXPECT_EQ(t, list_at(mm, B + P(2)), LRU_INACTIVE_FILE);
	EXPECT_EQ(t, list_at(mm, B + P(16)), LRU_INACTIVE_ANON);
	EXPECT_EQ(t, mm_reclaim(16, RECLAIM_KSWAPD), 16);
	EXPECT_EQ(t, lru_delta(&c, LRU_INACTIVE_FILE), 0);
	EXPECT_EQ(t, mm->rss, 4);
	for (unsigned i = 0; i < 20; i++)
		EXPECT_EQ(t, ut_read8(mm, B + P(i)), i < 16 ? 0 : (int)i);
	put_and_check(t, mm, &c);
}

UT_CASE_WITHOUT_SWAP(test_lazyfree_on_file_list)

static const struct ktest_case mm_lru_cases[] = {
	KTEST_CASE(test_fault_adds_inactive),
	KTEST_CASE(test_cold_deactivates),
	KTEST_CASE(test_shmem_on_anon_lists),
	KTEST_CASE(test_lazyfree_on_file_list),
	{ 0 },
};
KTEST_SUITE(mm_lru, mm_lru_cases);
