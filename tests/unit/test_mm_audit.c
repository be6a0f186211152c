/*
 * The frame-map audit (mm/audit.c, mm_audit_maps): it agrees with the
 * counts the kernel keeps after fork, COW, a split of a shared huge page
 * and munmap, and it finds each kind of drift the tests make by hand (a
 * frame's mapcount one short or one over, a mapped frame's references
 * fewer than its mappings, an address space's rss or rss_file one over,
 * a huge page's deferred shares as many as its leaves), then agrees
 * again once the count is put back. Expected values from the contract
 * (include/mm.h): what an entry maps is what its frame counts, and what
 * an address space's entries map is its rss. Each drift is made so that
 * exactly one frame or address space is wrong, except the shares' (the
 * block and each of its 512 frames: the audit follows the first 16).
 */
#include "test_mm_util.h"

#define AV 0x40000000UL                  /* 2 MiB aligned: room for huge pages */

/* An address space with n 4 KiB pages written at AV (thp=never: no leaf), and a fork of it. */
static struct mm *small_pages_forked(struct ktest *t, unsigned n, struct mm **child, size_t *frames)
{
	struct mm *mm = ut_thp_mm(THP_NEVER, n * PAGE_SIZE, frames);

	if (!mm)
		return NULL;
	for (unsigned i = 0; i < n; i++)
		EXPECT_EQ(t, ut_write8(mm, AV + i * PAGE_SIZE, (uint8_t)i), FAULT_OK);
	*child = mm_dup(mm);
	return mm;
}

static void test_audit_small_pages(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	struct mm *child = NULL, *mm;
	struct page *shared, *own;
	size_t frames;

	mm = small_pages_forked(t, 4, &child, &frames);
	ASSERT_TRUE(t, mm && child);
	EXPECT_EQ(t, mm_audit_maps(), 0);
	/* A write in the child: a copy of its own; the old page loses one mapping. */
	EXPECT_EQ(t, ut_write8(child, AV + PAGE_SIZE, 9), FAULT_OK);
	EXPECT_EQ(t, mm_audit_maps(), 0);
	shared = phys_to_page(ut_pa(mm, AV));
	own = phys_to_page(ut_pa(child, AV + PAGE_SIZE));
	ASSERT_TRUE(t, shared && own && shared->mapcount == 2 && own->mapcount == 1);
	page_mapcount_add(shared, -1);          /* one mapping short: freed while the other maps it */
	EXPECT_EQ(t, mm_audit_maps(), 1);
	page_mapcount_add(shared, 1);
	page_mapcount_add(own, 1);              /* one over: never freed */
	EXPECT_EQ(t, mm_audit_maps(), 1);
	page_mapcount_add(own, -1);
	ASSERT_EQ(t, own->refcount, 1);
	own->refcount = 0;                      /* no reference for its one mapping: free as far as counts go */
	EXPECT_EQ(t, mm_audit_maps(), 1);
	own->refcount = 1;
	mm_count(&child->rss, 1);               /* a page counted that no entry maps */
	EXPECT_EQ(t, mm_audit_maps(), 1);
	mm_count(&child->rss, -1);
	mm_count(&mm->rss_file, 1);             /* an anonymous page counted as a file's */
	EXPECT_EQ(t, mm_audit_maps(), 1);
	mm_count(&mm->rss_file, -1);
	EXPECT_EQ(t, mm_audit_maps(), 0);
	EXPECT_EQ(t, vm_munmap(mm, AV, 2 * PAGE_SIZE), 0);
	EXPECT_EQ(t, mm_audit_maps(), 0);
	mm_put(child);
	EXPECT_EQ(t, mm_audit_maps(), 0);
	ut_thp_done(t, mm, saved, frames);
	EXPECT_EQ(t, mm_audit_maps(), 0);
}

static void test_audit_huge_shares(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	struct mm *child, *mm;
	int32_t *shares;
	size_t frames;

	mm = ut_thp_mm(THP_ALWAYS, 2 * HUGE_SIZE, &frames);
	ASSERT_TRUE(t, mm != NULL);
	EXPECT_EQ(t, ut_write8(mm, AV + 5, 1), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, AV + HUGE_SIZE + 5, 2), FAULT_OK);
	ASSERT_TRUE(t, ut_state(mm, AV) & MMU_HUGE);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child != NULL);
	shares = pmm_huge_shares(ut_pa(mm, AV));
	EXPECT_EQ(t, *shares, 1);               /* fork's leaf, on the block */
	EXPECT_EQ(t, mm_audit_maps(), 0);
	__atomic_add_fetch(shares, 1, __ATOMIC_RELAXED);   /* as many shares as leaves */
	EXPECT_GT(t, mm_audit_maps(), 0);
	__atomic_sub_fetch(shares, 1, __ATOMIC_RELAXED);
	EXPECT_EQ(t, mm_audit_maps(), 0);
	/* The child's leaf splits (a 4 KiB munmap): the share becomes per-frame counts. */
	EXPECT_EQ(t, vm_munmap(child, AV + PAGE_SIZE, PAGE_SIZE), 0);
	EXPECT_EQ(t, *shares, 0);
	EXPECT_EQ(t, mm_audit_maps(), 0);
	/* COW of the other huge page in the parent: split, one page copied. */
	EXPECT_EQ(t, ut_write8(mm, AV + HUGE_SIZE + 7, 3), FAULT_OK);
	EXPECT_EQ(t, mm_audit_maps(), 0);
	mm_put(child);
	EXPECT_EQ(t, mm_audit_maps(), 0);
	ut_thp_done(t, mm, saved, frames);
	EXPECT_EQ(t, mm_audit_maps(), 0);
}

static const struct ktest_case mm_audit_cases[] = {
	KTEST_CASE(test_audit_small_pages),
	KTEST_CASE(test_audit_huge_shares),
	{ 0 },
};
KTEST_SUITE(mm_audit, mm_audit_cases);
