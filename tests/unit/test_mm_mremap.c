/*
 * vm_mremap (mm/mremap.c), the MADV_FREE state machine
 * (mm/madvise.c: vm_madvise(MADV_FREE) + mm_reclaim_lazyfree) and the
 * mmap_lock mode of each madvise.
 *
 * Expected values come from Linux 6.18's rules, written beside each check
 * (mm/mremap.c: check_mremap_params, check_prep_vma, remap_move,
 * expand_vma, move_vma; mm/vma.c: copy_vma, vma_merge_extend; mm/madvise.c
 * madvise_free_pte_range; mm/vmscan.c: lazyfree folios are dropped while
 * clean), and from the corpus tests/mmscript/mremap_*.mms and
 * madvise_free.mms, whose outputs Linux produced. Layouts are drawn
 * (UT_EXPECT_DRAWING, tests/unit/test_mm_util.h): VMAs as letter runs,
 * then each page's permissions and page-table entry.
 */
#include "test_mm_util.h"
#include "kerrno.h"

#define B  0x40000000UL                    /* a base far from everything */
#define P(n) ((uintptr_t)(n) << PAGE_SHIFT)

static struct vma *at(struct mm *mm, uintptr_t a)
{
	return ut_vma(mm, a);
}

/*
 * Grow in place and shrink.
 *   0 1 2 3 4 5 6
 *   AAA . BBB          A = [0,2) rw written, B = [3,5) rw unfaulted
 * mremap A 2 -> 3 pages: the old range ends A, page 2 is free: A grows to
 * [0,3), touches B, and B (pgoff continuing, no anon of its own) merges
 * in: one VMA [0,5). Then shrink back to 1 page: the tail is unmapped.
 */
static void test_mremap_grow_shrink(struct ktest *t)
{
	struct mm *mm;
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap(mm, B, P(2), UT_RW, UT_PA | MAP_FIXED), (long)B);
	EXPECT_EQ(t, vm_mmap(mm, B + P(3), P(2), UT_RW, UT_PA | MAP_FIXED), (long)(B + P(3)));
	EXPECT_EQ(t, ut_write8(mm, B + P(1), 0x5a), FAULT_OK);
	UT_EXPECT_DRAWING(mm, B, "AA BB", "ww ww", ".w ..");
	EXPECT_EQ(t, vm_mremap(mm, B, P(2), P(3), 0, 0), (long)B);
	UT_EXPECT_DRAWING(mm, B, "AAAAA", "wwwww", ".w...");
	EXPECT_EQ(t, mm->map_count, 1);
	EXPECT_EQ(t, ut_read8(mm, B + P(1)), 0x5a);
	/* Without MAYMOVE, growth that does not fit in place is -ENOMEM. */
	EXPECT_EQ(t, vm_mmap(mm, B + P(5), P(1), PROT_READ, UT_PA | MAP_FIXED), (long)(B + P(5)));
	EXPECT_EQ(t, vm_mremap(mm, B, P(5), P(6), 0, 0), -ENOMEM);
	/* Shrink: pages 1..4 unmapped, the written page 1 freed. */
	EXPECT_EQ(t, vm_mremap(mm, B, P(5), P(1), 0, 0), (long)B);
	UT_EXPECT_DRAWING(mm, B, "A    B", "w    r", ".    .");
	EXPECT_EQ(t, ut_read8(mm, B + P(1)), UT_READ_FAULT(FAULT_SIGSEGV_MAPERR));
	EXPECT_EQ(t, mm->rss, 0);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

/*
 * MAYMOVE and FIXED moves: contents and anon identity travel, the page
 * offset of a faulted VMA travels with it (copy_vma keeps vm_pgoff), an
 * unfaulted VMA takes the offset of its new address and merges like a new
 * mapping there.
 */
static void test_mremap_move(struct ktest *t)
{
	struct mm *mm = mm_create();
	struct anon_vma *av;
	struct vma *v;
	long r;

	ASSERT_TRUE(t, mm);
	/* A = [0,2) written; Z = [20,21) rw unfaulted. */
	EXPECT_EQ(t, vm_mmap(mm, B, P(2), UT_RW, UT_PA | MAP_FIXED), (long)B);
	EXPECT_EQ(t, ut_write8(mm, B, 0x11), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, B + P(1), 0x22), FAULT_OK);
	av = at(mm, B)->anon;
	ASSERT_TRUE(t, av != NULL);
	EXPECT_EQ(t, vm_mmap(mm, B + P(20), P(1), UT_RW, UT_PA | MAP_FIXED), (long)(B + P(20)));

	/*
	 * Move A to [21,23), right after Z: A keeps pgoff B>>12, Z's pgoff
	 * is (B>>12)+20, so Z's end does not continue A's offset: no merge.
	 */
	r = vm_mremap(mm, B, P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED, B + P(21));
	EXPECT_EQ(t, r, (long)(B + P(21)));
	EXPECT_TRUE(t, at(mm, B) == NULL);
	v = at(mm, B + P(21));
	ASSERT_TRUE(t, v != NULL);
	EXPECT_EQ(t, v->start, B + P(21));
	EXPECT_EQ(t, v->pgoff, B >> PAGE_SHIFT);
	EXPECT_TRUE(t, v->anon == av);
	EXPECT_EQ(t, ut_read8(mm, B + P(21)), 0x11);
	EXPECT_EQ(t, ut_read8(mm, B + P(22)), 0x22);
	EXPECT_EQ(t, mm->map_count, 2);
	EXPECT_EQ(t, mm->rss, 2);

	/*
	 * Move the unfaulted Z to [40,41): pgoff becomes (B>>12)+40. A new
	 * unfaulted mapping at [41,42) (pgoff (B>>12)+41) then merges with it.
	 */
	r = vm_mremap(mm, B + P(20), P(1), P(1), MREMAP_MAYMOVE | MREMAP_FIXED, B + P(40));
	EXPECT_EQ(t, r, (long)(B + P(40)));
	EXPECT_EQ(t, at(mm, B + P(40))->pgoff, (B >> PAGE_SHIFT) + 40);
	EXPECT_EQ(t, vm_mmap(mm, B + P(41), P(1), UT_RW, UT_PA | MAP_FIXED), (long)(B + P(41)));
	EXPECT_EQ(t, at(mm, B + P(40))->end, B + P(42));

	/* MAYMOVE growth where the space above is taken: moved elsewhere, contents kept. */
	EXPECT_EQ(t, vm_mmap(mm, B + P(23), P(1), PROT_READ, UT_PA | MAP_FIXED), (long)(B + P(23)));
	r = vm_mremap(mm, B + P(21), P(2), P(8), MREMAP_MAYMOVE, 0);
	ASSERT_TRUE(t, r > 0);
	EXPECT_TRUE(t, (uintptr_t)r != B + P(21));
	EXPECT_EQ(t, ut_read8(mm, (uintptr_t)r + P(1)), 0x22);
	EXPECT_EQ(t, ut_read8(mm, (uintptr_t)r + P(7)), 0);
	EXPECT_TRUE(t, at(mm, (uintptr_t)r)->anon == av);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

/* Every error of the corpus's mremap_errors.mms, in Linux's order. */
static void test_mremap_errors(struct ktest *t)
{
	struct mm *mm = mm_create();

	ASSERT_TRUE(t, mm);
	/* [0,4) rw, [4,6) r--: two VMAs. */
	EXPECT_EQ(t, vm_mmap(mm, B, P(4), UT_RW, UT_PA | MAP_FIXED), (long)B);
	EXPECT_EQ(t, vm_mmap(mm, B + P(4), P(2), PROT_READ, UT_PA | MAP_FIXED), (long)(B + P(4)));
	/* check_mremap_params, before any lookup. */
	EXPECT_EQ(t, vm_mremap(mm, B, P(1), P(1), 8, 0), -EINVAL);             /* unknown flag */
	EXPECT_EQ(t, vm_mremap(mm, B + 1, P(1), P(1), 0, 0), -EINVAL);          /* unaligned */
	EXPECT_EQ(t, vm_mremap(mm, B, P(1), 0, 0, 0), -EINVAL);                 /* new_len 0 */
	EXPECT_EQ(t, vm_mremap(mm, B, P(1), P(1), MREMAP_FIXED, B + P(10)), -EINVAL); /* no MAYMOVE */
	EXPECT_EQ(t, vm_mremap(mm, B, P(1), P(2), MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
			       B + P(10)), -EINVAL);                          /* DONTUNMAP resizes */
	EXPECT_EQ(t, vm_mremap(mm, B, P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED, B + P(1)),
		  -EINVAL);                                                   /* overlap */
	EXPECT_EQ(t, vm_mremap(mm, B, P(1), P(1), MREMAP_MAYMOVE | MREMAP_FIXED, B + 0x800),
		  -EINVAL);                                                   /* unaligned new */
	/* check_prep_vma */
	EXPECT_EQ(t, vm_mremap(mm, B + P(8), P(1), P(2), MREMAP_MAYMOVE, 0), -EFAULT); /* no VMA */
	EXPECT_EQ(t, vm_mremap(mm, B, P(5), P(6), MREMAP_MAYMOVE, 0), -EFAULT); /* two VMAs */
	EXPECT_EQ(t, vm_mremap(mm, B, 0, P(1), MREMAP_MAYMOVE, 0), -EINVAL);    /* private dup */
	/* A same-size fixed move starting in a hole: -EFAULT; nothing moved. */
	EXPECT_EQ(t, vm_mremap(mm, B - P(1), P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED, B + P(20)),
		  -EFAULT);
	/* No resize, no move: the address, whatever lies past the VMA (no check). */
	EXPECT_EQ(t, vm_mremap(mm, B, P(6), P(6), 0, 0), (long)B);
	UT_EXPECT_DRAWING(mm, B, "AAAABB", "wwwwrr", "......");
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

/*
 * A same-size MREMAP_FIXED move spanning two VMAs and a hole (Linux 6.17+
 * remap_move): each VMA moves to the same offset from new_addr.
 *   [0,2) rw  hole [2,3)  [3,4) r--   ->  [10,12) rw  hole  [13,14) r--
 */
static void test_mremap_multi(struct ktest *t)
{
	struct mm *mm = mm_create();

	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap(mm, B, P(2), UT_RW, UT_PA | MAP_FIXED), (long)B);
	EXPECT_EQ(t, vm_mmap(mm, B + P(3), P(1), PROT_READ, UT_PA | MAP_FIXED), (long)(B + P(3)));
	EXPECT_EQ(t, ut_write8(mm, B + P(1), 7), FAULT_OK);
	EXPECT_EQ(t, vm_mremap(mm, B, P(4), P(4), MREMAP_MAYMOVE | MREMAP_FIXED, B + P(10)),
		  (long)(B + P(10)));
	UT_EXPECT_DRAWING(mm, B, "          AA B", "          ww r", "          .w .");
	EXPECT_EQ(t, ut_read8(mm, B + P(11)), 7);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

/*
 * MREMAP_DONTUNMAP: the old range stays mapped and empty (zero on the
 * next touch); the whole VMA moved, so it also loses its anon identity
 * (dontunmap_complete); VM_ACCOUNT stays (Linux 6.18.y).
 */
static void test_mremap_dontunmap(struct ktest *t)
{
	struct mm *mm;
	struct vma *old;
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap(mm, B, P(2), UT_RW, UT_PA | MAP_FIXED), (long)B);
	EXPECT_EQ(t, ut_write8(mm, B, 0x33), FAULT_OK);
	EXPECT_EQ(t, vm_mremap(mm, B, P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
			       B + P(10)), (long)(B + P(10)));
	UT_EXPECT_DRAWING(mm, B, "AA        BB", "ww        ww", "..        w.");
	old = at(mm, B);
	ASSERT_TRUE(t, old != NULL);
	EXPECT_TRUE(t, old->anon == NULL);
	EXPECT_TRUE(t, (old->flags & VM_ACCOUNT) != 0);
	EXPECT_EQ(t, ut_read8(mm, B + P(10)), 0x33);
	EXPECT_EQ(t, ut_read8(mm, B), 0);
	EXPECT_EQ(t, mm->rss, 1);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

/*
 * Shared anonymous memory: a grown mapping is bigger than its object, so
 * pages past the object's size fault with SIGBUS; old_len 0 makes a
 * second view of the same pages.
 */
static void test_mremap_shared(struct ktest *t)
{
	size_t objects = vm_object_inuse();     /* the file system's files, in the kernel */
	struct mm *mm = mm_create();

	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap(mm, B, P(2), UT_RW, UT_SA | MAP_FIXED), (long)B);
	EXPECT_EQ(t, ut_write8(mm, B + P(1), 0x44), FAULT_OK);
	EXPECT_EQ(t, vm_mremap(mm, B, P(2), P(4), 0, 0), (long)B);
	EXPECT_EQ(t, ut_read8(mm, B + P(1)), 0x44);
	EXPECT_EQ(t, ut_read8(mm, B + P(2)), UT_READ_FAULT(FAULT_SIGBUS));
	EXPECT_EQ(t, vm_mremap(mm, B, 0, P(2), MREMAP_MAYMOVE | MREMAP_FIXED, B + P(20)),
		  (long)(B + P(20)));
	EXPECT_EQ(t, ut_read8(mm, B + P(21)), 0x44);
	EXPECT_EQ(t, ut_write8(mm, B + P(20), 0x55), FAULT_OK);
	EXPECT_EQ(t, ut_read8(mm, B), 0x55);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
	EXPECT_EQ(t, vm_object_inuse(), objects);
}

/*
 * MADV_FREE: the data stays until reclaim; reclaim drops clean lazily
 * freed pages (the next read sees zero, mincore 0); a write after
 * MADV_FREE re-dirties the page and cancels the free; a page also mapped
 * by a fork child is left alone (madvise_free_pte_range skips folios
 * mapped more than once).
 */
static void test_madv_free(struct ktest *t)
{
	struct mm *mm, *child;
	unsigned char vec[4];
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap(mm, B, P(4), UT_RW, UT_PA | MAP_FIXED), (long)B);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(t, ut_write8(mm, B + P(i), (uint8_t)(0x10 + i)), FAULT_OK);
	EXPECT_EQ(t, mm->rss, 4);
	EXPECT_EQ(t, vm_madvise(mm, B, P(3), MADV_FREE), 0);
	/* Nothing happens before reclaim: data and residency unchanged. */
	EXPECT_EQ(t, ut_read8(mm, B), 0x10);
	EXPECT_EQ(t, vm_mincore(mm, B, P(4), vec), 0);
	EXPECT_EQ(t, vec[0] + vec[1] + vec[2] + vec[3], 4);
	/* Page 1 written again: dirty, no longer freeable. */
	EXPECT_EQ(t, ut_write8(mm, B + P(1), 0x99), FAULT_OK);
	/* Reclaim: pages 0 and 2 are clean and lazily free (a read does not dirty). */
	EXPECT_EQ(t, mm_reclaim_lazyfree(mm), 2);
	EXPECT_EQ(t, mm->rss, 2);
	UT_EXPECT_DRAWING(mm, B, "AAAA", "wwww", ".w.w");
	EXPECT_EQ(t, vm_mincore(mm, B, P(4), vec), 0);
	EXPECT_EQ(t, vec[0], 0);
	EXPECT_EQ(t, vec[1], 1);
	EXPECT_EQ(t, vec[2], 0);
	EXPECT_EQ(t, vec[3], 1);
	EXPECT_EQ(t, ut_read8(mm, B), 0);
	EXPECT_EQ(t, ut_read8(mm, B + P(1)), 0x99);
	EXPECT_EQ(t, ut_read8(mm, B + P(2)), 0);
	EXPECT_EQ(t, ut_read8(mm, B + P(3)), 0x13);
	/* A second reclaim finds nothing: page 1 lost its lazyfree mark. */
	EXPECT_EQ(t, mm_reclaim_lazyfree(mm), 0);

	/* After fork the pages are mapped twice: MADV_FREE leaves them, reclaim too. */
	child = mm_dup(mm);
	ASSERT_TRUE(t, child != NULL);
	EXPECT_EQ(t, vm_madvise(mm, B + P(3), P(1), MADV_FREE), 0);
	EXPECT_EQ(t, mm_reclaim_lazyfree(mm), 0);
	EXPECT_EQ(t, ut_read8(mm, B + P(3)), 0x13);
	EXPECT_EQ(t, ut_read8(child, B + P(3)), 0x13);
	mm_put(child);
	/* Shared anonymous memory: MADV_FREE is -EINVAL (not vma_is_anonymous). */
	EXPECT_EQ(t, vm_mmap(mm, B + P(8), P(1), UT_RW, UT_SA | MAP_FIXED), (long)(B + P(8)));
	EXPECT_EQ(t, vm_madvise(mm, B + P(8), P(1), MADV_FREE), -EINVAL);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

/*
 * Which advices take the mmap_lock exclusively (Linux madvise_need_mmap_write,
 * since 2007 for DONTNEED): DONTNEED, FREE, WILLNEED, COLD, PAGEOUT and the
 * guard advices only touch pages and take it for reading; RANDOM changes VMA flags and takes it
 * for writing. Counted with the lock's acquisition counters.
 */
static void test_madvise_lock_mode(struct ktest *t)
{
	static const int readers[] = { MADV_DONTNEED, MADV_FREE, MADV_WILLNEED, MADV_COLD, MADV_PAGEOUT };
	static const int guards[] = { MADV_GUARD_INSTALL, MADV_GUARD_REMOVE };
	struct mm *mm = mm_create();
	unsigned long w, r;

	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap(mm, B, P(4), UT_RW, UT_PA | MAP_FIXED), (long)B);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(t, ut_write8(mm, B + P(i), 1), FAULT_OK);
	for (unsigned i = 0; i < ARRAY_SIZE(readers); i++) {
		w = mm->mmap_lock.write_acquired;
		r = mm->mmap_lock.read_acquired;
		EXPECT_EQ(t, vm_madvise(mm, B, P(4), readers[i]), 0);
		EXPECT_EQ(t, mm->mmap_lock.write_acquired, w);
		EXPECT_EQ(t, mm->mmap_lock.read_acquired, r + 1);
	}
	w = mm->mmap_lock.write_acquired;
	EXPECT_EQ(t, vm_madvise(mm, B, P(2), MADV_RANDOM), 0);
	EXPECT_EQ(t, mm->mmap_lock.write_acquired, w + 1);
	/* DONTNEED under the read lock still dropped the pages. */
	EXPECT_EQ(t, mm->rss, 0);
	for (unsigned i = 0; i < ARRAY_SIZE(guards); i++) {
		w = mm->mmap_lock.write_acquired;
		r = mm->mmap_lock.read_acquired;
		EXPECT_EQ(t, vm_madvise(mm, B, P(4), guards[i]), 0);
		EXPECT_EQ(t, mm->mmap_lock.write_acquired, w);
		EXPECT_EQ(t, mm->mmap_lock.read_acquired, r + 1);
	}
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

static const struct ktest_case mm_mremap_cases[] = {
	KTEST_CASE(test_mremap_grow_shrink),
	KTEST_CASE(test_mremap_move),
	KTEST_CASE(test_mremap_errors),
	KTEST_CASE(test_mremap_multi),
	KTEST_CASE(test_mremap_dontunmap),
	KTEST_CASE(test_mremap_shared),
	KTEST_CASE(test_madv_free),
	KTEST_CASE(test_madvise_lock_mode),
	{ 0 },
};
KTEST_SUITE(mm_mremap, mm_mremap_cases);
