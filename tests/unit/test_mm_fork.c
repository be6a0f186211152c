/*
 * fork (mm_dup): copy-on-write in both directions with refcount/mapcount,
 * MADV_DONTFORK / MADV_WIPEONFORK, shared anonymous memory across fork,
 * and mprotect keeping COW pages write-protected. Expected values follow
 * Linux's fork semantics (dup_mmap, do_wp_page's reuse rule).
 */
#include "test_mm_util.h"
#include "kerrno.h"

#define B0 0x20000000UL

static void test_fork_cow_both_directions(struct ktest *t)
{
	struct mm *p = mm_create(), *c;
	phys_addr_t pa, cpa;
	struct page *pg;

	ASSERT_TRUE(t, p);
	ASSERT_EQ(t, vm_mmap(p, B0, 2 * PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)B0);
	ASSERT_EQ(t, ut_write8(p, B0, 1), FAULT_OK);
	pa = ut_pa(p, B0);
	c = mm_dup(p);
	ASSERT_TRUE(t, c);
	/* Shared, read-only in both, counted twice. */
	pg = phys_to_page(pa);
	EXPECT_EQ(t, ut_pa(c, B0), pa);
	EXPECT_EQ(t, pg->refcount, 2);
	EXPECT_EQ(t, pg->mapcount, 2);
	EXPECT_FALSE(t, ut_state(p, B0) & MMU_WRITE);
	EXPECT_FALSE(t, ut_state(c, B0) & MMU_WRITE);
	EXPECT_EQ(t, c->rss, 1);
	/* The child's VMA has an identity of its own; the page keeps the parent's. */
	EXPECT_NE(t, vma_lookup(c, B0)->anon, vma_lookup(p, B0)->anon);
	EXPECT_EQ(t, pg->private, vma_lookup(p, B0)->anon);
	/* Child writes: it gets a copy; the parent still sees 1. */
	EXPECT_EQ(t, ut_write8(c, B0, 2), FAULT_OK);
	cpa = ut_pa(c, B0);
	EXPECT_NE(t, cpa, pa);
	EXPECT_EQ(t, c->cow_copies, 1);
	EXPECT_EQ(t, ut_read8(p, B0), 1);
	EXPECT_EQ(t, ut_read8(c, B0), 2);
	EXPECT_EQ(t, pg->refcount, 1);
	EXPECT_EQ(t, pg->mapcount, 1);
	/* Parent writes: the only mapping now, so it is reused in place. */
	EXPECT_EQ(t, ut_write8(p, B0, 3), FAULT_OK);
	EXPECT_EQ(t, ut_pa(p, B0), pa);
	EXPECT_EQ(t, p->cow_reuses, 1);
	EXPECT_EQ(t, p->cow_copies, 0);
	EXPECT_EQ(t, ut_read8(c, B0), 2);
	EXPECT_EQ(t, ut_read8(p, B0), 3);
	/* Parent-first direction on the second page. */
	EXPECT_EQ(t, ut_write8(p, B0 + PAGE_SIZE, 7), FAULT_OK);   /* not present at fork: private to p */
	EXPECT_EQ(t, ut_read8(c, B0 + PAGE_SIZE), 0);
	mm_put(c);
	EXPECT_EQ(t, pg->refcount, 1);
	mm_put(p);
}

static void test_fork_dontfork_wipeonfork(struct ktest *t)
{
	struct mm *p = mm_create(), *c;
	uintptr_t keep = B0, dont = B0 + 0x10000, wipe = B0 + 0x20000;

	ASSERT_TRUE(t, p);
	ASSERT_EQ(t, vm_mmap(p, keep, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)keep);
	ASSERT_EQ(t, vm_mmap(p, dont, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)dont);
	ASSERT_EQ(t, vm_mmap(p, wipe, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)wipe);
	ut_write8(p, keep, 1);
	ut_write8(p, dont, 2);
	ut_write8(p, wipe, 3);
	EXPECT_EQ(t, vm_madvise(p, dont, PAGE_SIZE, MADV_DONTFORK), 0);
	EXPECT_EQ(t, vm_madvise(p, wipe, PAGE_SIZE, MADV_WIPEONFORK), 0);
	c = mm_dup(p);
	ASSERT_TRUE(t, c);
	EXPECT_EQ(t, c->map_count, 2);
	EXPECT_EQ(t, ut_read8(c, keep), 1);
	EXPECT_EQ(t, ut_read8(c, dont), UT_READ_FAULT(FAULT_SIGSEGV_MAPERR));
	EXPECT_EQ(t, ut_read8(c, wipe), 0);                     /* copied empty */
	EXPECT_TRUE(t, vma_lookup(c, wipe)->flags & VM_WIPEONFORK);
	EXPECT_EQ(t, ut_read8(p, dont), 2);
	EXPECT_EQ(t, ut_read8(p, wipe), 3);
	EXPECT_EQ(t, vma_check(c), 0);
	mm_put(c);
	mm_put(p);
}

/* MAP_SHARED|MAP_ANONYMOUS: one object; writes are seen across fork both ways, and survive the parent. */
static void test_shared_anon_across_fork(struct ktest *t)
{
	struct mm *p = mm_create(), *c;
	long a;

	ASSERT_TRUE(t, p);
	a = vm_mmap(p, 0, 4 * PAGE_SIZE, UT_RW, UT_SA);
	ASSERT_GT(t, a, 0);
	EXPECT_EQ(t, ut_write8(p, a, 1), FAULT_OK);
	c = mm_dup(p);
	ASSERT_TRUE(t, c);
	EXPECT_TRUE(t, ut_state(c, a) & MMU_WRITE);              /* shared stays writable */
	EXPECT_EQ(t, ut_write8(c, a, 2), FAULT_OK);
	EXPECT_EQ(t, ut_read8(p, a), 2);
	EXPECT_EQ(t, ut_write8(c, a + PAGE_SIZE, 9), FAULT_OK);  /* faulted in by the child only */
	EXPECT_EQ(t, ut_read8(p, a + PAGE_SIZE), 9);
	EXPECT_EQ(t, phys_to_page(ut_pa(p, a))->mapcount, 2);
	EXPECT_EQ(t, phys_to_page(ut_pa(p, a))->refcount, 3);     /* object + two PTEs */
	mm_put(p);
	EXPECT_EQ(t, ut_read8(c, a), 2);
	mm_put(c);
}

/* mprotect rewrites PTEs in place; a COW-shared page stays read-only through PROT_WRITE. */
static void test_mprotect_in_place_keeps_cow(struct ktest *t)
{
	struct mm *p = mm_create(), *c;
	phys_addr_t pa;
	unsigned long faults;

	ASSERT_TRUE(t, p);
	ASSERT_EQ(t, vm_mmap(p, B0, 2 * PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)B0);
	ut_write8(p, B0, 1);
	ut_write8(p, B0 + PAGE_SIZE, 1);
	pa = ut_pa(p, B0);
	EXPECT_EQ(t, vm_mprotect(p, B0, 2 * PAGE_SIZE, PROT_READ), 0);
	EXPECT_EQ(t, ut_pa(p, B0), pa);
	EXPECT_EQ(t, ut_state(p, B0) & MMU_PROT_MASK, MMU_READ);
	EXPECT_EQ(t, ut_write8(p, B0, 2), FAULT_SIGSEGV_ACCERR);
	EXPECT_EQ(t, vm_mprotect(p, B0, 2 * PAGE_SIZE, PROT_NONE), 0);
	EXPECT_EQ(t, ut_state(p, B0) & MMU_PROT_MASK, 0);           /* kept, not accessible */
	EXPECT_EQ(t, ut_pa(p, B0), pa);
	EXPECT_EQ(t, vm_mprotect(p, B0, 2 * PAGE_SIZE, UT_RW), 0);
	EXPECT_TRUE(t, ut_state(p, B0) & MMU_WRITE);                /* exclusive: writable at once */
	faults = p->faults;
	EXPECT_EQ(t, ut_write8(p, B0, 4), FAULT_OK);
	EXPECT_EQ(t, p->faults, faults);                             /* no refault */
	c = mm_dup(p);
	ASSERT_TRUE(t, c);
	EXPECT_EQ(t, vm_mprotect(p, B0, PAGE_SIZE, UT_RW), 0);       /* no change of flags */
	EXPECT_EQ(t, vm_mprotect(p, B0, PAGE_SIZE, PROT_READ), 0);
	EXPECT_EQ(t, vm_mprotect(p, B0, PAGE_SIZE, UT_RW), 0);
	EXPECT_FALSE(t, ut_state(p, B0) & MMU_WRITE);                /* still shared with c */
	EXPECT_EQ(t, ut_write8(p, B0, 5), FAULT_OK);
	EXPECT_EQ(t, ut_read8(c, B0), 4);
	EXPECT_EQ(t, vma_check(p), 0);
	mm_put(c);
	mm_put(p);
}

static void test_fork_oom_leaks_nothing(struct ktest *t)
{
	struct mm *p;
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	p = mm_create();
	ASSERT_TRUE(t, p);
	ASSERT_EQ(t, vm_mmap(p, B0, 64 * PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)B0);
	for (int i = 0; i < 64; i++)
		ut_write8(p, B0 + i * PAGE_SIZE, (uint8_t)i);
	for (unsigned long n = 1; n < 6; n++) {
		struct mm *c;

		slab_fail_nth(n);
		c = mm_dup(p);
		slab_fail_nth(0);
		if (c)
			mm_put(c);
	}
	for (int i = 0; i < 64; i++)
		EXPECT_EQ(t, ut_read8(p, B0 + i * PAGE_SIZE), i);
	EXPECT_EQ(t, ut_write8(p, B0, 99), FAULT_OK);
	mm_put(p);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

static const struct ktest_case mm_fork_cases[] = {
	KTEST_CASE(test_fork_cow_both_directions),
	KTEST_CASE(test_fork_dontfork_wipeonfork),
	KTEST_CASE(test_shared_anon_across_fork),
	KTEST_CASE(test_mprotect_in_place_keeps_cow),
	KTEST_CASE(test_fork_oom_leaks_nothing),
	{ 0 },
};
KTEST_SUITE(mm_fork, mm_fork_cases);
