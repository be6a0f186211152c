/*
 * The reverse map (mm/rmap.c, include/rmap.h): from a private anonymous
 * page to every entry that maps it, after fork, mremap, a split and COW,
 * and none left over after munmap and exit; from a page-cache page
 * (shared memory) to every entry of the shared and private file mappings
 * that map the cache page itself (not a private copy), after mremap,
 * fork, munmap and exit.
 *
 * Expected mappings come from what each test did (an entry maps a page
 * when fork copied it read-only and nobody wrote it since; a write copies
 * the page for the writer, Linux's do_wp_page), checked against the page
 * tables themselves (ut_pa).
 */
#include "test_mm_util.h"
#include "rmap.h"
#include "vm_object.h"

#define B  0x40000000UL                    /* the parent's range */
#define C  0x50000000UL                    /* where the child moves its copy */
#define P(n) ((uintptr_t)(n) << PAGE_SHIFT)

#define MAX_SEEN 8

struct seen {
	unsigned n;
	struct mm *mm[MAX_SEEN];
	uintptr_t va[MAX_SEEN];
};

static bool record_visit(struct page *page, struct mm *mm, uintptr_t va, unsigned state, void *arg)
{
	struct seen *s = arg;

	(void)page;
	(void)state;
	if (s->n < MAX_SEEN) {
		s->mm[s->n] = mm;
		s->va[s->n] = va;
	}
	s->n++;
	return true;
}

/* Walk the page mapped at va of mm (a reference held meanwhile); the mappings found in s. */
static unsigned walk_at(struct mm *mm, uintptr_t va, struct seen *s)
{
	struct page *p = phys_to_page(ut_pa(mm, va));
	struct rmap_walk_control rwc = { .visit = record_visit, .arg = s };
	unsigned n;

	s->n = 0;
	user_page_get(p);
	n = rmap_walk(p, &rwc);
	user_page_put(p);
	return rwc.skipped ? ~0u : n;
}

static bool seen_has(const struct seen *s, struct mm *mm, uintptr_t va)
{
	for (unsigned i = 0; i < s->n && i < MAX_SEEN; i++)
		if (s->mm[i] == mm && s->va[i] == va)
			return true;
	return false;
}

/*
 * Four pages written in the parent at B; fork; the child moves its copy
 * to C (mremap), the parent makes page 1 read-only (mprotect: its VMA is
 * split in three). Every page is then mapped twice, at B + i in the
 * parent and C + i in the child, and the walk from either side finds
 * exactly those two entries. The child then writes page 2 (COW): its new
 * page is mapped once, at C + 2 in the child, and the parent's page 2 is
 * left with its one entry.
 */
static void test_fork_mremap_split_cow(struct ktest *t)
{
	struct mm *mm = mm_create(), *child;
	struct seen s;

	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap(mm, B, P(4), UT_RW, UT_PA | MAP_FIXED), (long)B);
	for (unsigned i = 0; i < 4; i++)
		EXPECT_EQ(t, ut_write8(mm, B + P(i), (uint8_t)(0x30 + i)), FAULT_OK);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	ASSERT_EQ(t, vm_mremap(child, B, P(4), P(4), MREMAP_MAYMOVE | MREMAP_FIXED, C), (long)C);
	EXPECT_EQ(t, vm_mprotect(mm, B + P(1), P(1), PROT_READ), 0);
	EXPECT_EQ(t, ut_vmas_in(mm, B, B + P(4)), 3);
	for (unsigned i = 0; i < 4; i++) {
		EXPECT_EQ(t, ut_pa(mm, B + P(i)), ut_pa(child, C + P(i)));
		EXPECT_EQ(t, walk_at(mm, B + P(i), &s), 2);
		EXPECT_TRUE(t, seen_has(&s, mm, B + P(i)));
		EXPECT_TRUE(t, seen_has(&s, child, C + P(i)));
		EXPECT_EQ(t, walk_at(child, C + P(i), &s), 2);
	}
	EXPECT_EQ(t, ut_write8(child, C + P(2), 0x77), FAULT_OK);
	EXPECT_NE(t, ut_pa(mm, B + P(2)), ut_pa(child, C + P(2)));
	EXPECT_EQ(t, walk_at(child, C + P(2), &s), 1);
	EXPECT_TRUE(t, seen_has(&s, child, C + P(2)));
	EXPECT_EQ(t, walk_at(mm, B + P(2), &s), 1);
	EXPECT_TRUE(t, seen_has(&s, mm, B + P(2)));
	EXPECT_EQ(t, ut_read8(mm, B + P(2)), 0x32);
	mm_put(child);
	mm_put(mm);
}

/*
 * No stale entries: the walk from a page (held by the test, so it stays)
 * finds the child's entry until the child unmaps it, the parent's until
 * the parent exits, and then nothing; a grandchild (fork of the child)
 * is found too while it lives, and nothing of it after it exits. Every
 * identity is gone at the end.
 */
static void test_none_stale_after_munmap_exit(struct ktest *t)
{
	size_t identities = anon_identity_inuse();
	struct rmap_walk_control rwc = { .visit = record_visit };
	struct mm *mm = mm_create(), *child, *grandchild;
	struct page *p;
	struct seen s;

	ASSERT_TRUE(t, mm);
	rwc.arg = &s;
	EXPECT_EQ(t, vm_mmap(mm, B, P(2), UT_RW, UT_PA | MAP_FIXED), (long)B);
	EXPECT_EQ(t, ut_write8(mm, B, 1), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, B + P(1), 2), FAULT_OK);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	grandchild = mm_dup(child);
	ASSERT_TRUE(t, grandchild);
	p = phys_to_page(ut_pa(mm, B));
	user_page_get(p);
	EXPECT_EQ(t, (s.n = 0, rmap_walk(p, &rwc)), 3);
	EXPECT_TRUE(t, seen_has(&s, grandchild, B));
	EXPECT_EQ(t, vm_munmap(child, B, P(1)), 0);
	EXPECT_EQ(t, (s.n = 0, rmap_walk(p, &rwc)), 2);
	EXPECT_FALSE(t, seen_has(&s, child, B));
	mm_put(grandchild);
	EXPECT_EQ(t, (s.n = 0, rmap_walk(p, &rwc)), 1);
	EXPECT_TRUE(t, seen_has(&s, mm, B));
	mm_put(child);
	mm_put(mm);
	EXPECT_EQ(t, (s.n = 0, rmap_walk(p, &rwc)), 0);
	EXPECT_EQ(t, p->mapcount, 0);
	user_page_put(p);
	EXPECT_EQ(t, anon_identity_inuse(), identities);
}

/* Walk the cache page at pgoff of o (held meanwhile); the mappings found in s. */
static unsigned walk_cache(struct vm_object *o, unsigned long pgoff, struct seen *s)
{
	struct rmap_walk_control rwc = { .visit = record_visit, .arg = s };
	struct page *p = NULL;
	unsigned n;

	s->n = 0;
	if (vm_object_page(o, pgoff, 0, &p) || !p)
		return ~0u;
	n = rmap_walk(p, &rwc);
	vm_object_page_put(p);
	return rwc.skipped ? ~0u : n;
}

/*
 * A 4-page memory object (MAP_SHARED | MAP_ANONYMOUS's kind) mapped
 * shared at B (pages written through it) and private at C (page 2 read:
 * the cache page mapped read-only; page 3 written: a private copy,
 * Linux's do_cow_fault). Linux's i_mmap walk (rmap_walk_file) finds for
 * cache page i every VMA whose offset range holds i, at vm_start + (i -
 * vm_pgoff) pages, and keeps the entries that map the page itself: cache
 * page 2 at B + 2 and C + 2, cache page 3 at B + 3 only (C + 3 maps the
 * copy, which the anon walk finds). After mremap moves the shared pages
 * 1-2 to D (offsets kept), cache page 2 is at D + 1; after fork, also in
 * the child at both places (fork copies the entries); munmap and exit
 * take theirs away.
 */
static void test_file_rmap_mremap_fork_cow(struct ktest *t)
{
	const uintptr_t D = 0x60000000UL;
	struct vm_file *f = shared_anon_file(P(4));
	struct mm *mm = mm_create(), *child;
	struct seen s;

	ASSERT_TRUE(t, mm && f);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, B, P(4), UT_RW, MAP_SHARED | MAP_FIXED, f, 0), (long)B);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, C, P(4), UT_RW, MAP_PRIVATE | MAP_FIXED, f, 0), (long)C);
	for (unsigned i = 0; i < 4; i++)
		EXPECT_EQ(t, ut_write8(mm, B + P(i), (uint8_t)(0x60 + i)), FAULT_OK);
	EXPECT_EQ(t, ut_read8(mm, C + P(2)), 0x62);
	EXPECT_EQ(t, ut_write8(mm, C + P(3), 0x99), FAULT_OK);
	EXPECT_EQ(t, walk_cache(f->obj, 2, &s), 2);
	EXPECT_TRUE(t, seen_has(&s, mm, B + P(2)) && seen_has(&s, mm, C + P(2)));
	EXPECT_NE(t, ut_pa(mm, B + P(3)), ut_pa(mm, C + P(3)));
	EXPECT_EQ(t, walk_cache(f->obj, 3, &s), 1);
	EXPECT_TRUE(t, seen_has(&s, mm, B + P(3)));
	EXPECT_EQ(t, walk_at(mm, C + P(3), &s), 1);     /* the copy: anonymous, its own walk */
	/* page 0: B + 0, and C + 0 when the read of C + 2 mapped it too (fault-around) */
	EXPECT_EQ(t, walk_cache(f->obj, 0, &s), 1u + (ut_pa(mm, C) == ut_pa(mm, B)));
	ASSERT_EQ(t, vm_mremap(mm, B + P(1), P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED, D), (long)D);
	EXPECT_EQ(t, walk_cache(f->obj, 2, &s), 2);
	EXPECT_TRUE(t, seen_has(&s, mm, D + P(1)) && seen_has(&s, mm, C + P(2)));
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	EXPECT_EQ(t, ut_read8(child, D + P(1)), 0x62);
	EXPECT_EQ(t, ut_read8(child, C + P(2)), 0x62);
	EXPECT_EQ(t, walk_cache(f->obj, 2, &s), 4);
	EXPECT_TRUE(t, seen_has(&s, child, D + P(1)) && seen_has(&s, child, C + P(2)));
	EXPECT_EQ(t, vm_munmap(mm, D, P(2)), 0);
	mm_put(child);
	EXPECT_EQ(t, walk_cache(f->obj, 2, &s), 1);
	EXPECT_TRUE(t, seen_has(&s, mm, C + P(2)));
	mm_put(mm);
	EXPECT_EQ(t, walk_cache(f->obj, 2, &s), 0);
	f->ops->put(f);
}

/*
 * try_to_unmap_file (Linux try_to_unmap of a shmem folio) on the cache
 * page that a shared mapping wrote and a private mapping copied: the
 * shared entry goes (rss down by one), its dirty bit passes into the
 * page (PG_dirty: written through the entry, never by write()), the
 * private copy stays mapped where it was with its own data; the shared
 * mapping reads the data back from the cache by a fault.
 */
static void test_unmap_file_keeps_cow_copy(struct ktest *t)
{
	struct vm_file *f = shared_anon_file(P(1));
	struct mm *mm = mm_create();
	struct page *p = NULL;
	phys_addr_t copy;
	long rss;

	ASSERT_TRUE(t, mm && f);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, B, P(1), UT_RW, MAP_SHARED | MAP_FIXED, f, 0), (long)B);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, C, P(1), UT_RW, MAP_PRIVATE | MAP_FIXED, f, 0), (long)C);
	EXPECT_EQ(t, ut_write8(mm, B, 0x5a), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, C, 0xa5), FAULT_OK);
	copy = ut_pa(mm, C);
	ASSERT_EQ(t, vm_object_page(f->obj, 0, 0, &p), 0);
	ASSERT_TRUE(t, p != NULL);
	EXPECT_NE(t, page_to_phys(p), copy);
	EXPECT_FALSE(t, p->flags & PG_dirty);
	rss = mm->rss;
	EXPECT_TRUE(t, try_to_unmap_file(p));
	EXPECT_EQ(t, p->mapcount, 0);
	EXPECT_TRUE(t, p->flags & PG_dirty);
	EXPECT_EQ(t, mm->rss, rss - 1);
	EXPECT_EQ(t, ut_pa(mm, C), copy);
	vm_object_page_put(p);
	EXPECT_EQ(t, ut_read8(mm, C), 0xa5);
	EXPECT_EQ(t, ut_read8(mm, B), 0x5a);
	mm_put(mm);
	f->ops->put(f);
}

/* A new address space mapping a shared anonymous object of 4 written pages at B (the mapping its only holder). */
static struct mm *mm_with_shared_pages(struct ktest *t)
{
	struct vm_file *f = shared_anon_file(P(4));
	struct mm *mm = mm_create();

	if (!mm || !f)
		return NULL;
	EXPECT_EQ(t, vm_mmap_pgoff(mm, B, P(4), UT_RW, MAP_SHARED | MAP_FIXED, f, 0), (long)B);
	f->ops->put(f);
	for (unsigned i = 0; i < 4; i++)
		EXPECT_EQ(t, ut_write8(mm, B + P(i), (uint8_t)i), FAULT_OK);
	return mm;
}

/*
 * An address space whose last reference went through mm_put_deferred (a
 * reverse-map walk's put under another mmap_lock) waits on the deferred
 * stack, still listed and still mapping a shared object's pages. The
 * checker (mm_check_all, what vmk_check and the leak checks run) must
 * tear it down first: after it every frame is back (the object's pages,
 * the page tables) and the address space is gone from mm_live_count.
 * Before that, a dead address space skipped by the checker held the
 * object until the next reclaim.
 */
static void test_check_flushes_deferred_put(struct ktest *t)
{
	size_t mms, frames;
	struct mm *mm = mm_with_shared_pages(t);

	ASSERT_TRUE(t, mm != NULL);
	mm_put(mm);                     /* the same once, torn down at once: caches first used stay */
	mms = mm_live_count();
	frames = ut_free_frames();
	mm = mm_with_shared_pages(t);
	ASSERT_TRUE(t, mm != NULL);
	mm_put_deferred(mm);            /* the last reference: queued, not torn down */
	EXPECT_EQ(t, mm_live_count(), mms + 1);
	EXPECT_EQ(t, mm_check_all(NULL), 0);
	EXPECT_EQ(t, mm_live_count(), mms);
	EXPECT_EQ(t, ut_free_frames(), frames);
	mm_put_deferred_flush();        /* leaves nothing queued if the check did not */
}

/*
 * The last task to leave an address space empties it itself (mm_leave),
 * even while another reference keeps it (khugepaged's scan, reclaim's
 * walk, a /proc reader): every frame its mappings held is back when
 * mm_leave returns, so a parent that wait4s for the process finds its
 * memory free. Before, that other reference's mm_put tore it down later,
 * in khugepaged or kswapd: a fuzz seed's frame count and the frame-map
 * audit then saw up to 990 MiB of huge pages that no listed address space
 * mapped. Until that put, of the frames the address space used only the
 * top page table stays (arch_mmu_destroy frees it with the struct; the
 * unmap freed every lower table, no VMA being left), besides the slab
 * memory of the struct and its empty index: no anonymous or page-cache
 * frame. The address space stays listed, empty and consistent, and the
 * put gives back every frame.
 */
static void test_last_task_empties_mm(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	size_t mms, frames, anon, cache, tables;
	struct mm *mm;

	thp_mode = THP_ALWAYS;
	for (int round = 0; round < 2; round++) {
		/* Round 0 warms the caches (its frames are not counted); round 1 is the case. */
		mms = mm_live_count();
		frames = ut_free_frames();
		anon = pmm_frames_with(PG_anon);
		cache = pmm_frames_with(PG_cache);
		tables = pmm_frames_with(PG_pgtable);
		mm = mm_with_shared_pages(t);
		ASSERT_TRUE(t, mm != NULL);
		EXPECT_EQ(t, vm_mmap(mm, C, 2 * HUGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)C);
		EXPECT_EQ(t, ut_write8(mm, C, 1), FAULT_OK);                    /* a huge page */
		EXPECT_EQ(t, vm_madvise(mm, C + HUGE_SIZE, HUGE_SIZE, MADV_NOHUGEPAGE), 0);
		EXPECT_EQ(t, ut_write8(mm, C + HUGE_SIZE, 2), FAULT_OK);        /* a 4 KiB page */
		mm_enter(mm);           /* a task uses it; the reference mm_create gave is the task's */
		mm_get(mm);             /* a scanner's */
		mm_leave(mm);           /* the task exits */
		EXPECT_EQ(t, mm->rss, 0);
		EXPECT_EQ(t, mm->map_count, 0);
		EXPECT_EQ(t, mm_live_count(), mms + 1);
		EXPECT_EQ(t, pmm_frames_with(PG_anon), anon);
		EXPECT_EQ(t, pmm_frames_with(PG_cache), cache);
		EXPECT_EQ(t, pmm_frames_with(PG_pgtable), tables + 1);
		EXPECT_EQ(t, mm_check_all(NULL), 0);
		EXPECT_EQ(t, mm_audit_maps(), 0);
		mm_put(mm);             /* the scanner's: the struct and the top table */
		EXPECT_EQ(t, mm_live_count(), mms);
		EXPECT_EQ(t, pmm_frames_with(PG_pgtable), tables);
		if (round)
			EXPECT_EQ(t, ut_free_frames(), frames);
	}
	thp_mode = saved;
}

static const struct ktest_case mm_rmap_cases[] = {
	KTEST_CASE(test_check_flushes_deferred_put),
	KTEST_CASE(test_last_task_empties_mm),
	KTEST_CASE(test_file_rmap_mremap_fork_cow),
	KTEST_CASE(test_unmap_file_keeps_cow_copy),
	KTEST_CASE(test_fork_mremap_split_cow),
	KTEST_CASE(test_none_stale_after_munmap_exit),
	{ 0 },
};
KTEST_SUITE(mm_rmap, mm_rmap_cases);
