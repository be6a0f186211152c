/*
 * fork (mm_dup): copy-on-write in both directions with refcount/mapcount,
 * MADV_DONTFORK / MADV_WIPEONFORK, shared anonymous memory across fork,
 * and mprotect keeping COW pages write-protected. Expected values follow
 * Linux's fork semantics (dup_mmap, do_wp_page's reuse rule). Layouts are
 * drawn (UT_EXPECT_DRAWING, tests/unit/test_mm_util.h): VMAs as letter
 * runs, then each page's permissions and page-table entry (the merge
 * cases after fork draw no entries: whether fork shares pages read-only is
 * the cow lab's, graded in test_fork_cow_both_directions).
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
	/* Shared, read-only in both, counted twice; the unwritten page is in neither. */
	pg = phys_to_page(pa);
	EXPECT_EQ(t, ut_pa(c, B0), pa);
	EXPECT_EQ(t, pg->refcount, 2);
	EXPECT_EQ(t, pg->mapcount, 2);
	UT_EXPECT_DRAWING(p, B0, "AA", "ww", "r.");
	UT_EXPECT_DRAWING(c, B0, "AA", "ww", "r.");
	EXPECT_EQ(t, c->rss, 1);
	/* The child's VMA has an identity of its own; the page keeps the parent's. */
	EXPECT_NE(t, ut_vma(c, B0)->anon, ut_vma(p, B0)->anon);
	EXPECT_EQ(t, pg->private, ut_vma(p, B0)->anon);
	/* Child writes: it gets a copy; the parent still sees 1. */
	EXPECT_EQ(t, ut_write8(c, B0, 2), FAULT_OK);
	cpa = ut_pa(c, B0);
	EXPECT_NE(t, cpa, pa);
	EXPECT_EQ(t, c->cow_copies, 1);
	EXPECT_EQ(t, ut_read8(p, B0), 1);
	EXPECT_EQ(t, ut_read8(c, B0), 2);
	EXPECT_EQ(t, pg->refcount, 1);
	EXPECT_EQ(t, pg->mapcount, 1);
	UT_EXPECT_DRAWING(c, B0, "AA", "ww", "w.");
	UT_EXPECT_DRAWING(p, B0, "AA", "ww", "r.");    /* write-protected until its next write */
	/*
	 * The copy replaced one anonymous page by another: the child's rss stays
	 * 1 and none of it is a file's (rss_file counts page-cache pages only,
	 * include/mm.h; Linux's MM_ANONPAGES/MM_FILEPAGES: RssAnon 4 kB, RssFile
	 * 0). Dropping the old page as a file's would take rss_file below zero.
	 */
	EXPECT_EQ(t, c->rss, 1);
	EXPECT_EQ(t, c->rss_file, 0);
	EXPECT_EQ(t, p->rss, 1);
	EXPECT_EQ(t, p->rss_file, 0);
	/* Parent writes: the only mapping now, so it is reused in place. */
	EXPECT_EQ(t, ut_write8(p, B0, 3), FAULT_OK);
	EXPECT_EQ(t, ut_pa(p, B0), pa);
	EXPECT_EQ(t, p->cow_reuses, 1);
	EXPECT_EQ(t, p->cow_copies, 0);
	EXPECT_EQ(t, p->rss, 1);
	EXPECT_EQ(t, p->rss_file, 0);
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
	EXPECT_TRUE(t, ut_vma(c, wipe)->flags & VM_WIPEONFORK);
	EXPECT_EQ(t, ut_read8(p, dont), 2);
	EXPECT_EQ(t, ut_read8(p, wipe), 3);
	EXPECT_EQ(t, ut_vma_check(c), 0);
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
	EXPECT_EQ(t, ut_vma_check(p), 0);
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

/*
 * Fork children and merging (Linux 6.16+ is_mergeable_anon_vma with
 * vma_had_uncowed_parents, later renamed vma_is_fork_child): a child VMA
 * copied from a parent VMA that had an anon_vma has an anon_vma_chain of
 * two entries (its own anon_vma and the parent's). Merging must neither
 * make such a VMA share its anon_vma with an unfaulted neighbour (case 2:
 * the target is the fork child) nor dup it into one (case 1: the source
 * is). The parent's VMAs keep a singular chain and merge as before.
 */
#define P PAGE_SIZE

/* (1) A new range next to an inherited faulted VMA: not merged in the child, merged in the parent. */
static void test_fork_child_new_range_next_to_faulted(struct ktest *t)
{
	struct mm *p = mm_create(), *c;
	struct vma *a, *n;

	ASSERT_TRUE(t, p);
	ASSERT_EQ(t, vm_mmap(p, B0, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)B0);
	ASSERT_EQ(t, ut_write8(p, B0, 1), FAULT_OK);       /* A gets an anon_vma in the parent */
	c = mm_dup(p);
	ASSERT_TRUE(t, c);
	/*
	 * Child: |A (faulted, fork child)|new| -> vma_merge_new_range, prev = A:
	 * tgt A has an anon_vma, the new range none: case 2, A "had uncowed
	 * parents" (chain of 2) -> refused. Same below A (next = A).
	 */
	ASSERT_EQ(t, vm_mmap(c, B0 + 2 * P, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)(B0 + 2 * P));
	ASSERT_EQ(t, vm_mmap(c, B0 - 2 * P, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)(B0 - 2 * P));
	UT_EXPECT_DRAWING(c, B0 - 2 * P, "AABBCC", "wwwwww", NULL);
	a = ut_vma(c, B0);
	/*
	 * anon_vma_prepare of the new range above A: find_mergeable_anon_vma ->
	 * reusable_anon_vma(A) needs a singular chain -> a new anon_vma.
	 */
	EXPECT_EQ(t, ut_write8(c, B0 + 2 * P, 2), FAULT_OK);
	n = ut_vma(c, B0 + 2 * P);
	EXPECT_TRUE(t, n->anon && n->anon != a->anon);
	/*
	 * That VMA's chain is singular (its own anon_vma only): a further new
	 * range above it merges (case 2, tgt not a fork child).
	 */
	ASSERT_EQ(t, vm_mmap(c, B0 + 4 * P, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)(B0 + 4 * P));
	EXPECT_EQ(t, ut_vma(c, B0 + 4 * P), n);
	UT_EXPECT_DRAWING(c, B0 - 2 * P, "AABBCCCC", "wwwwwwww", NULL);
	EXPECT_EQ(t, ut_vma_check(c), 0);
	EXPECT_EQ(t, ut_vma_check_merged(c), 0);
	/* Parent: A's chain is singular: case 2 allowed on both sides -> one VMA. */
	ASSERT_EQ(t, vm_mmap(p, B0 + 2 * P, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)(B0 + 2 * P));
	ASSERT_EQ(t, vm_mmap(p, B0 - 2 * P, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)(B0 - 2 * P));
	UT_EXPECT_DRAWING(p, B0 - 2 * P, "AAAAAA", "wwwwww", NULL);
	EXPECT_EQ(t, ut_vma_check(p), 0);
	mm_put(c);
	mm_put(p);
}

/* (2) The parent never faulted A: the child's copy has no anon_vma (empty chain) and merges. */
static void test_fork_child_new_range_next_to_unfaulted(struct ktest *t)
{
	struct mm *p = mm_create(), *c;

	ASSERT_TRUE(t, p);
	ASSERT_EQ(t, vm_mmap(p, B0, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)B0);
	c = mm_dup(p);
	ASSERT_TRUE(t, c);
	EXPECT_EQ(t, ut_vma(c, B0)->anon, NULL);
	/* anon_vma_fork returns early when the parent VMA has no anon_vma: both NULL, case 3 -> merge. */
	ASSERT_EQ(t, vm_mmap(c, B0 + 2 * P, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)(B0 + 2 * P));
	UT_EXPECT_DRAWING(c, B0, "AAAA", "wwww", NULL);
	/* First write in the child: __anon_vma_prepare links one entry (singular), so case 2 allows the next merge. */
	EXPECT_EQ(t, ut_write8(c, B0, 1), FAULT_OK);
	ASSERT_EQ(t, vm_mmap(c, B0 + 4 * P, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)(B0 + 4 * P));
	UT_EXPECT_DRAWING(c, B0, "AAAAAA", "wwwwww", NULL);
	EXPECT_EQ(t, ut_vma_check(c), 0);
	EXPECT_EQ(t, ut_vma_check_merged(c), 0);
	/* Parent: the same mapping merges as well. */
	ASSERT_EQ(t, vm_mmap(p, B0 + 2 * P, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)(B0 + 2 * P));
	UT_EXPECT_DRAWING(p, B0, "AAAA", "wwww", NULL);
	mm_put(c);
	mm_put(p);
}

/*
 * (3) mprotect (vma_merge_existing_range) in the child and in the parent.
 *   |A: RW, faulted|N: PROT_READ, never faulted|   mprotect(N, RW)
 * N's new flags (VM_ACCOUNT charged by mprotect) equal A's: the left merge
 * has tgt = A (anon_vma), src = N (none): case 2 -> refused in the child
 * (A is a fork child), allowed in the parent.
 */
static void test_fork_child_mprotect_case2(struct ktest *t)
{
	struct mm *p = mm_create(), *c;

	ASSERT_TRUE(t, p);
	ASSERT_EQ(t, vm_mmap(p, B0, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)B0);
	ASSERT_EQ(t, vm_mmap(p, B0 + 2 * P, 2 * P, PROT_READ, UT_PA | MAP_FIXED), (long)(B0 + 2 * P));
	ASSERT_EQ(t, ut_write8(p, B0, 1), FAULT_OK);
	UT_EXPECT_DRAWING(p, B0, "AABB", "wwrr", NULL);   /* flags differ */
	c = mm_dup(p);
	ASSERT_TRUE(t, c);
	EXPECT_EQ(t, vm_mprotect(c, B0 + 2 * P, 2 * P, UT_RW), 0);
	EXPECT_EQ(t, ut_vma(c, B0 + 2 * P)->flags, ut_vma(c, B0)->flags);
	UT_EXPECT_DRAWING(c, B0, "AABB", "wwww", NULL);   /* case 2, tgt fork child */
	EXPECT_EQ(t, ut_vma_check(c), 0);
	EXPECT_EQ(t, ut_vma_check_merged(c), 0);
	EXPECT_EQ(t, vm_mprotect(p, B0 + 2 * P, 2 * P, UT_RW), 0);
	UT_EXPECT_DRAWING(p, B0, "AAAA", "wwww", NULL);   /* case 2, singular chain */
	EXPECT_EQ(t, ut_vma_check(p), 0);
	mm_put(c);
	mm_put(p);
}

/*
 *   |A: PROT_READ (was RW: VM_ACCOUNT kept), faulted|N: RW, never faulted|
 * mprotect(A, RW): A's new flags equal N's; the right merge has tgt = N
 * (no anon_vma), src = A (middle, has one): case 1 (N would dup A's
 * anon_vma) -> refused in the child (A is a fork child), allowed in the
 * parent, where N then takes A's anon_vma (dup_anon_vma).
 */
static void test_fork_child_mprotect_case1(struct ktest *t)
{
	struct mm *p = mm_create(), *c;
	struct vma *v;

	ASSERT_TRUE(t, p);
	ASSERT_EQ(t, vm_mmap(p, B0, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)B0);
	ASSERT_EQ(t, ut_write8(p, B0, 1), FAULT_OK);
	ASSERT_EQ(t, vm_mprotect(p, B0, 2 * P, PROT_READ), 0);
	ASSERT_EQ(t, vm_mmap(p, B0 + 2 * P, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)(B0 + 2 * P));
	UT_EXPECT_DRAWING(p, B0, "AABB", "rrww", NULL);
	c = mm_dup(p);
	ASSERT_TRUE(t, c);
	EXPECT_EQ(t, ut_vma(c, B0 + 2 * P)->anon, NULL);
	EXPECT_EQ(t, vm_mprotect(c, B0, 2 * P, UT_RW), 0);
	EXPECT_EQ(t, ut_vma(c, B0 + 2 * P)->flags, ut_vma(c, B0)->flags);
	UT_EXPECT_DRAWING(c, B0, "AABB", "wwww", NULL);   /* case 1, src fork child */
	EXPECT_EQ(t, ut_vma(c, B0 + 2 * P)->anon, NULL);
	EXPECT_EQ(t, ut_vma_check(c), 0);
	EXPECT_EQ(t, ut_vma_check_merged(c), 0);
	EXPECT_EQ(t, vm_mprotect(p, B0, 2 * P, UT_RW), 0);
	UT_EXPECT_DRAWING(p, B0, "AAAA", "wwww", NULL);   /* case 1, singular chain */
	v = ut_vma(p, B0);
	EXPECT_TRUE(t, v->anon != NULL);
	EXPECT_EQ(t, ut_vma_check(p), 0);
	mm_put(c);
	mm_put(p);
}

/*
 * Splits copy the chain (anon_vma_clone in __split_vma): the pieces of an
 * inherited faulted VMA stay fork children, and pieces with the same
 * anon_vma merge back (case 3 does not look at chains).
 */
static void test_fork_child_split_keeps_fork_child(struct ktest *t)
{
	struct mm *p = mm_create(), *c;
	struct anon_vma *av;

	ASSERT_TRUE(t, p);
	ASSERT_EQ(t, vm_mmap(p, B0, 4 * P, UT_RW, UT_PA | MAP_FIXED), (long)B0);
	ASSERT_EQ(t, ut_write8(p, B0, 1), FAULT_OK);
	c = mm_dup(p);
	ASSERT_TRUE(t, c);
	av = ut_vma(c, B0)->anon;
	ASSERT_TRUE(t, av != NULL);
	/* Middle page to READ and back: split twice, then prev/middle/next share av: case 3 -> one VMA again. */
	EXPECT_EQ(t, vm_mprotect(c, B0 + P, P, PROT_READ), 0);
	UT_EXPECT_DRAWING(c, B0, "ABCC", "wrww", NULL);
	EXPECT_EQ(t, vm_mprotect(c, B0 + P, P, UT_RW), 0);
	UT_EXPECT_DRAWING(c, B0, "AAAA", "wwww", NULL);
	EXPECT_EQ(t, ut_vma(c, B0)->anon, av);
	/*
	 *   munmap [B0+2P, B0+4P)          -> |B0 RW av, 2 pages|
	 *   mprotect(B0+P, P, READ)        -> |B0 RW av|B0+P READ av|  (split: both fork children)
	 *   mmap(B0+2P, 2P, RW), unfaulted -> prev is the READ piece: flags differ, no merge
	 *   mprotect(B0+P, P, RW): middle = READ piece (av, fork child).
	 *     left:  tgt B0 piece has av, src av: case 3 -> yes
	 *     right: tgt new range has no anon_vma, src has av: case 1, src is a
	 *            fork child -> no
	 *   -> |B0, B0+2P) av|B0+2P, B0+4P) no anon_vma|
	 */
	EXPECT_EQ(t, vm_munmap(c, B0 + 2 * P, 2 * P), 0);
	EXPECT_EQ(t, vm_mprotect(c, B0 + P, P, PROT_READ), 0);
	ASSERT_EQ(t, vm_mmap(c, B0 + 2 * P, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)(B0 + 2 * P));
	UT_EXPECT_DRAWING(c, B0, "ABCC", "wrww", NULL);
	EXPECT_EQ(t, vm_mprotect(c, B0 + P, P, UT_RW), 0);
	UT_EXPECT_DRAWING(c, B0, "AABB", "wwww", NULL);
	EXPECT_EQ(t, ut_vma_check(c), 0);
	EXPECT_EQ(t, ut_vma_check_merged(c), 0);
	/*
	 * Parent, same steps: the split pieces have singular chains, so the
	 * last mprotect's right side is an allowed case 1 and prev, middle and
	 * next (av / av / none: compatible with each other) become one VMA.
	 */
	EXPECT_EQ(t, vm_mprotect(p, B0 + P, P, PROT_READ), 0);
	EXPECT_EQ(t, vm_mprotect(p, B0 + P, P, UT_RW), 0);
	EXPECT_EQ(t, vm_munmap(p, B0 + 2 * P, 2 * P), 0);
	EXPECT_EQ(t, vm_mprotect(p, B0 + P, P, PROT_READ), 0);
	ASSERT_EQ(t, vm_mmap(p, B0 + 2 * P, 2 * P, UT_RW, UT_PA | MAP_FIXED), (long)(B0 + 2 * P));
	UT_EXPECT_DRAWING(p, B0, "ABCC", "wrww", NULL);   /* |RW|READ|RW new|: flags differ */
	EXPECT_EQ(t, vm_mprotect(p, B0 + P, P, UT_RW), 0);
	UT_EXPECT_DRAWING(p, B0, "AAAA", "wwww", NULL);
	EXPECT_EQ(t, ut_vma_check(p), 0);
	mm_put(c);
	mm_put(p);
}

static const struct ktest_case mm_fork_cases[] = {
	KTEST_CASE(test_fork_cow_both_directions),
	KTEST_CASE(test_fork_dontfork_wipeonfork),
	KTEST_CASE(test_shared_anon_across_fork),
	KTEST_CASE(test_mprotect_in_place_keeps_cow),
	KTEST_CASE(test_fork_oom_leaks_nothing),
	KTEST_CASE(test_fork_child_new_range_next_to_faulted),
	KTEST_CASE(test_fork_child_new_range_next_to_unfaulted),
	KTEST_CASE(test_fork_child_mprotect_case2),
	KTEST_CASE(test_fork_child_mprotect_case1),
	KTEST_CASE(test_fork_child_split_keeps_fork_child),
	{ 0 },
};
KTEST_SUITE(mm_fork, mm_fork_cases);
