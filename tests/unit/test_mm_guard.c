/*
 * The rest of Linux 6.18's madvise list for anonymous memory: guard
 * regions (MADV_GUARD_INSTALL/REMOVE: markers in the page tables, at the
 * arch level and through the VM calls, fork, mremap, munmap, populate and
 * kernel accesses), MADV_PAGEOUT of lazily freed pages, MADV_MERGEABLE on
 * shared mappings, MADV_COLLAPSE without huge pages. Expected values are
 * Linux's, as the host showed them (tests/mmscript/madvise_guard*.mms,
 * madvise_pageout.mms, madvise_numbers.mms hold the same facts as scripts,
 * with Linux's outputs; user/tests/t_vm.c (vm_guard_*) checks the signal and fork
 * cases on both kernels), or arch_mmu.h's contract for the arch level.
 * Layouts are drawn (UT_EXPECT_DRAWING, tests/unit/test_mm_util.h): a
 * guard marker is a 'g' in the pages row, a read of untouched private
 * memory maps the zero page read-only ('r', as Linux does by default).
 */
#include "test_mm_util.h"
#include "kerrno.h"

#define G 0x20000000UL                /* a fixed, page-table-fresh base */
#define P(n) ((uintptr_t)(n) * PAGE_SIZE)
#define SEGV_READ UT_READ_FAULT(FAULT_SIGSEGV_MAPERR)

static enum mmu_action count_guard(void *ctx, uintptr_t va)
{
	(*(unsigned *)ctx)++;
	(void)va;
	return MMU_KEEP;
}

static enum mmu_action clear_guard(void *ctx, uintptr_t va)
{
	(void)ctx;
	(void)va;
	return MMU_CLEAR;
}

static enum mmu_action clear_entry(void *arg, uintptr_t va, phys_addr_t pa, unsigned *st)
{
	return MMU_CLEAR;
}

/* Markers in guard_range of m, counted with a keeping walk. */
static unsigned guards_in(struct arch_mmu *m, uintptr_t start, uintptr_t end)
{
	unsigned n = 0;

	arch_mmu_walk_guards(m, start, end, count_guard, &n);
	return n;
}

/*
 * arch_mmu.h's contract: a marker is reported by query as -EFAULT, is
 * skipped by arch_mmu_walk (a clearing walk leaves it and its tables),
 * visited only by arch_mmu_walk_guards, whose clearing frees the tables.
 */
static void test_arch_guard_markers(struct ktest *t)
{
	struct arch_mmu *m = arch_mmu_create();
	struct page *f = pmm_alloc(0, 0);
	phys_addr_t pa;
	unsigned st;

	ASSERT_TRUE(t, m && f);
	EXPECT_EQ(t, arch_mmu_set_guard(m, G + P(1)), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 4);                /* PDPT, PD, PT */
	EXPECT_EQ(t, arch_mmu_set_guard(m, G + P(1)), 0);        /* again: no change */
	EXPECT_EQ(t, arch_mmu_query(m, G + P(1), &pa, &st), -EFAULT);
	EXPECT_EQ(t, arch_mmu_query(m, G, NULL, NULL), -ENOENT);
	EXPECT_EQ(t, arch_mmu_map(m, G, page_to_phys(f), MMU_READ | MMU_WRITE), 0);
	EXPECT_EQ(t, guards_in(m, G, G + P(4)), 1);
	/* A clearing walk sees the page only; the marker keeps the tables alive. */
	EXPECT_EQ(t, arch_mmu_walk(m, G, G + P(4), clear_entry, NULL, NULL), 1);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 4);
	EXPECT_EQ(t, arch_mmu_query(m, G + P(1), NULL, NULL), -EFAULT);
	EXPECT_EQ(t, guards_in(m, G + P(2), G + P(4)), 0);
	EXPECT_EQ(t, arch_mmu_walk_guards(m, G, G + P(4), clear_guard, NULL), 1);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 4);                /* emptied, not freed by the walk */
	ut_free_tables(m);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 1);
	EXPECT_EQ(t, arch_mmu_query(m, G + P(1), NULL, NULL), -ENOENT);
	pmm_free(f, 0);
	arch_mmu_destroy(m);
}

/*
 * Install zaps what is mapped (the data is gone), then every access to a
 * marker faults with SEGV_MAPERR; the VMA is not split; markers stay
 * through MADV_DONTNEED, MADV_FREE, MADV_PAGEOUT and mprotect; mincore
 * says 0 there; remove brings back demand-zero pages.
 */
static void test_guard_install_remove(struct ktest *t)
{
	struct mm *mm = mm_create();
	unsigned char vec[4];

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, G, P(4), UT_RW, UT_PA | MAP_FIXED), (long)G);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(t, ut_write8(mm, G + P(i), (uint8_t)(0x30 + i)), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, G + P(1), P(2), MADV_GUARD_INSTALL), 0);
	EXPECT_EQ(t, mm->rss, 2);
	UT_EXPECT_DRAWING(mm, G, "AAAA", "wwww", "wggw");     /* no split, pages 1-2 zapped */
	EXPECT_EQ(t, ut_read8(mm, G + P(1)), SEGV_READ);
	EXPECT_EQ(t, ut_write8(mm, G + P(2), 1), FAULT_SIGSEGV_MAPERR);
	EXPECT_EQ(t, ut_read8(mm, G), 0x30);
	EXPECT_EQ(t, ut_read8(mm, G + P(3)), 0x33);
	EXPECT_EQ(t, vm_mincore(mm, G, P(4), vec), 0);
	EXPECT_EQ(t, vec[0] * 1000 + vec[1] * 100 + vec[2] * 10 + vec[3], 1001);
	EXPECT_EQ(t, vm_madvise(mm, G, P(4), MADV_DONTNEED), 0);
	EXPECT_EQ(t, vm_madvise(mm, G, P(4), MADV_FREE), 0);
	EXPECT_EQ(t, vm_madvise(mm, G, P(4), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, vm_mprotect(mm, G, P(4), PROT_NONE), 0);
	EXPECT_EQ(t, vm_mprotect(mm, G, P(4), UT_RW), 0);
	EXPECT_EQ(t, ut_read8(mm, G + P(1)), SEGV_READ);
	/* Installing over markers is fine; removing leaves mapped pages alone. */
	EXPECT_EQ(t, vm_madvise(mm, G + P(2), P(1), MADV_GUARD_INSTALL), 0);
	EXPECT_EQ(t, ut_write8(mm, G + P(3), 9), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, G, P(4), MADV_GUARD_REMOVE), 0);
	EXPECT_EQ(t, ut_read8(mm, G + P(3)), 9);
	EXPECT_EQ(t, ut_read8(mm, G + P(1)), 0);
	EXPECT_EQ(t, ut_write8(mm, G + P(2), 7), FAULT_OK);
	EXPECT_EQ(t, guards_in(mm->mmu, G, G + P(4)), 0);
	/* One VMA still (the pages' entries after MADV_DONTNEED are the madvise lab's to check). */
	UT_EXPECT_DRAWING(mm, G, "AAAA", "wwww", NULL);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

/*
 * The VMA side (madvise_guard_install): a private VMA gets an anon identity
 * (anon_vma_prepare), a shared one does not (Linux: shmem is not
 * vma_is_anonymous); VM_LOCKED refuses install but not remove; holes give
 * -ENOMEM after the mapped parts are done; bad arguments -EINVAL.
 */
static void test_guard_vma_rules(struct ktest *t)
{
	struct mm *mm = mm_create();

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, G, P(2), UT_RW, UT_PA | MAP_FIXED), (long)G);
	ASSERT_EQ(t, vm_mmap(mm, G + P(4), P(2), UT_RW, UT_SA | MAP_FIXED), (long)(G + P(4)));
	ASSERT_EQ(t, vm_mmap(mm, G + P(8), P(2), UT_RW, UT_PA | MAP_FIXED | MAP_LOCKED),
		  (long)(G + P(8)));
	EXPECT_EQ(t, ut_vma(mm, G)->anon, NULL);
	EXPECT_EQ(t, vm_madvise(mm, G, P(1), MADV_GUARD_INSTALL), 0);
	EXPECT_NE(t, ut_vma(mm, G)->anon, NULL);
	EXPECT_EQ(t, vm_madvise(mm, G + P(4), P(1), MADV_GUARD_INSTALL), 0);
	EXPECT_EQ(t, ut_vma(mm, G + P(4))->anon, NULL);
	EXPECT_EQ(t, vm_madvise(mm, G + P(8), P(1), MADV_GUARD_INSTALL), -EINVAL);
	EXPECT_EQ(t, vm_madvise(mm, G + P(8), P(1), MADV_GUARD_REMOVE), 0);
	/* From the first VMA across the hole into the second: both done, then -ENOMEM. */
	EXPECT_EQ(t, vm_madvise(mm, G + P(1), P(4), MADV_GUARD_INSTALL), -ENOMEM);
	EXPECT_EQ(t, ut_read8(mm, G + P(1)), SEGV_READ);
	EXPECT_EQ(t, ut_read8(mm, G + P(4)), SEGV_READ);
	EXPECT_EQ(t, ut_read8(mm, G + P(5)), 0);
	EXPECT_EQ(t, vm_madvise(mm, G + P(12), P(1), MADV_GUARD_INSTALL), -ENOMEM);
	EXPECT_EQ(t, vm_madvise(mm, G + 0x800, P(1), MADV_GUARD_INSTALL), -EINVAL);
	EXPECT_EQ(t, vm_madvise(mm, G, 0, MADV_GUARD_REMOVE), 0);
	/*
	 * Markers at 0 and 1 (private), 4 (shared: markers need no identity).
	 * Page 5 was read: a shared writable mapping maps its page writable
	 * at once (Linux: vm_page_prot is PAGE_SHARED, shmem wants no write
	 * notification). MAP_LOCKED populated 8-9 with write faults (Linux's
	 * populate_vma_page_range breaks COW of writable private mappings).
	 */
	UT_EXPECT_DRAWING(mm, G, "AA  BB  CC", "ww  ww  ww", "gg  gw  ww");
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

/*
 * Markers follow the page tables: fork copies them (not into a
 * VM_WIPEONFORK VMA), mremap moves them, munmap drops them, and an address
 * space torn down with markers gives back every frame. A shared page
 * behind a marker keeps its data in the object.
 */
static void test_guard_fork_mremap_munmap(struct ktest *t)
{
	struct mm *mm, *child;
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, G, P(4), UT_RW, UT_PA | MAP_FIXED), (long)G);
	ASSERT_EQ(t, vm_mmap(mm, G + P(8), P(2), UT_RW, UT_PA | MAP_FIXED), (long)(G + P(8)));
	ASSERT_EQ(t, vm_mmap(mm, G + P(16), P(2), UT_RW, UT_SA | MAP_FIXED), (long)(G + P(16)));
	EXPECT_EQ(t, ut_write8(mm, G + P(16), 0x5a), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, G + P(8), P(2), MADV_WIPEONFORK), 0);
	EXPECT_EQ(t, vm_madvise(mm, G + P(1), P(1), MADV_GUARD_INSTALL), 0);
	EXPECT_EQ(t, vm_madvise(mm, G + P(8), P(1), MADV_GUARD_INSTALL), 0);
	EXPECT_EQ(t, vm_madvise(mm, G + P(16), P(1), MADV_GUARD_INSTALL), 0);
	/* Installing zapped the shared page 16 (its data stays in the object). */
	UT_EXPECT_DRAWING(mm, G, "AAAA    BB      CC", "wwww    ww      ww", ".g..    g.      g.");
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	UT_EXPECT_DRAWING(child, G, "AAAA    BB      CC", "wwww    ww      ww", ".g..    ..      g.");
	EXPECT_EQ(t, ut_read8(child, G + P(1)), SEGV_READ);
	EXPECT_EQ(t, ut_read8(child, G + P(8)), 0);              /* wiped: no marker */
	EXPECT_EQ(t, ut_read8(child, G + P(16)), SEGV_READ);
	EXPECT_EQ(t, vm_madvise(child, G + P(16), P(1), MADV_GUARD_REMOVE), 0);
	EXPECT_EQ(t, ut_read8(child, G + P(16)), 0x5a);          /* the object kept it */
	EXPECT_EQ(t, ut_read8(mm, G + P(16)), SEGV_READ);        /* the parent's marker stays */
	mm_put(child);
	/* mremap: the marker moves with the range; the old place is free of it. */
	EXPECT_EQ(t, vm_mremap(mm, G, P(4), P(4), MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
			       G + P(32)), (long)(G + P(32)));
	EXPECT_EQ(t, ut_read8(mm, G + P(33)), SEGV_READ);
	EXPECT_EQ(t, ut_read8(mm, G + P(1)), 0);
	/* munmap drops it: a new mapping there has none. */
	EXPECT_EQ(t, vm_munmap(mm, G + P(32), P(4)), 0);
	EXPECT_EQ(t, guards_in(mm->mmu, G + P(32), G + P(36)), 0);
	EXPECT_EQ(t, vm_mmap(mm, G + P(32), P(4), UT_RW, UT_PA | MAP_FIXED), (long)(G + P(32)));
	EXPECT_EQ(t, ut_read8(mm, G + P(33)), 0);
	/* (entries of the pages read are the zero page's: the lazy lab's to check) */
	UT_EXPECT_DRAWING(mm, G, "AAAA    BB      CC              DDDD",
			  "wwww    ww      ww              wwww", NULL);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);                                  /* with a marker at G + P(8) and G + P(16) */
	EXPECT_EQ(t, ut_free_frames(), frames);
}

/*
 * Populating a marker fails with -EFAULT (the fault is SIGSEGV), after the
 * pages before it; a kernel access (read(2)/write(2) buffers) is -EFAULT.
 */
static void test_guard_populate_kernel_access(struct ktest *t)
{
	struct mm *mm = mm_create();
	unsigned char vec[4];
	char buf[2] = { 1, 2 };

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, G, P(4), UT_RW, UT_PA | MAP_FIXED), (long)G);
	EXPECT_EQ(t, vm_madvise(mm, G + P(2), P(1), MADV_GUARD_INSTALL), 0);
	EXPECT_EQ(t, vm_madvise(mm, G, P(4), MADV_POPULATE_WRITE), -EFAULT);
	UT_EXPECT_DRAWING(mm, G, "AAAA", "wwww", "wwg.");
	EXPECT_EQ(t, vm_mincore(mm, G, P(4), vec), 0);
	EXPECT_EQ(t, vec[0] + vec[1] * 10 + vec[2] * 100 + vec[3] * 1000, 11);
	EXPECT_EQ(t, mm_copy_to(mm, G + P(2), buf, 1), -EFAULT);
	EXPECT_EQ(t, mm_copy_from(mm, buf, G + P(2) - 1, 2), -EFAULT);
	EXPECT_EQ(t, mm_copy_to(mm, G + P(1), buf, 2), 0);
	mm_put(mm);
}

/* No memory for the page tables: -ENOMEM, no marker; the same call works later. */
static void test_guard_oom(struct ktest *t)
{
	struct mm *mm = mm_create();
	struct list_head held;
	int r;

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, G, P(2), UT_RW, UT_SA | MAP_FIXED), (long)G);
	list_init(&held);
	ut_grab_all_frames(&held);
	r = vm_madvise(mm, G, P(2), MADV_GUARD_INSTALL);
	ut_release_frames(&held);
	EXPECT_EQ(t, r, -ENOMEM);
	EXPECT_EQ(t, guards_in(mm->mmu, G, G + P(2)), 0);
	EXPECT_EQ(t, vm_madvise(mm, G, P(2), MADV_GUARD_INSTALL), 0);
	EXPECT_EQ(t, guards_in(mm->mmu, G, G + P(2)), 2);
	mm_put(mm);
	/* An address space that never installed a marker skips the marker walks (the flag says so). */
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	EXPECT_FALSE(t, mm->may_have_guards);
	EXPECT_EQ(t, vm_mmap(mm, G, P(2), UT_RW, UT_PA | MAP_FIXED), (long)G);
	EXPECT_EQ(t, vm_madvise(mm, G, P(2), MADV_GUARD_REMOVE), 0);
	EXPECT_FALSE(t, mm->may_have_guards);
	mm_put(mm);
}

/*
 * MADV_PAGEOUT reclaims the range at once: a clean lazily freed page is
 * dropped (mincore 0, reads zero), a page written after MADV_FREE or never
 * freed stays (no swap), so does a page a fork child still maps, and
 * written shared memory (Linux: "fill 4, free the last, pageout the last
 * two" gives mincore 1110).
 */
static void test_pageout_body(struct ktest *t)
{
	struct mm *mm = mm_create(), *child;
	unsigned char vec[4];

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, G, P(4), UT_RW, UT_PA | MAP_FIXED), (long)G);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(t, ut_write8(mm, G + P(i), 5), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, G + P(3), P(1), MADV_FREE), 0);
	EXPECT_EQ(t, vm_madvise(mm, G + P(2), P(2), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, vm_mincore(mm, G, P(4), vec), 0);
	EXPECT_EQ(t, vec[0] * 1000 + vec[1] * 100 + vec[2] * 10 + vec[3], 1110);
	EXPECT_EQ(t, mm->rss, 3);
	EXPECT_EQ(t, ut_read8(mm, G + P(3)), 0);
	EXPECT_EQ(t, ut_read8(mm, G + P(2)), 5);
	/* Written after the free: dirty again, it stays. */
	EXPECT_EQ(t, vm_madvise(mm, G + P(1), P(1), MADV_FREE), 0);
	EXPECT_EQ(t, ut_write8(mm, G + P(1), 6), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, G, P(4), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, ut_read8(mm, G + P(1)), 6);
	/* Mapped by a fork child too: left alone, still lazily free afterwards. */
	EXPECT_EQ(t, vm_madvise(mm, G, P(1), MADV_FREE), 0);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	EXPECT_EQ(t, vm_madvise(mm, G, P(1), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, ut_read8(mm, G), 5);
	mm_put(child);
	EXPECT_EQ(t, vm_madvise(mm, G, P(1), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, vm_mincore(mm, G, P(1), vec), 0);
	EXPECT_EQ(t, vec[0], 0);
	/* Shared memory written has nowhere to go without swap. */
	ASSERT_EQ(t, vm_mmap(mm, G + P(8), P(1), UT_RW, UT_SA | MAP_FIXED), (long)(G + P(8)));
	EXPECT_EQ(t, ut_write8(mm, G + P(8), 8), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, G + P(8), P(1), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, ut_read8(mm, G + P(8)), 8);
	mm_put(mm);
}

UT_CASE_WITHOUT_SWAP(test_pageout)

/*
 * Shared memory and MADV_PAGEOUT (tests/mmscript/madvise_pageout_shared.mms
 * has Linux's outputs): a page never written and mapped only here leaves
 * the object (mincore 0); a page written, even before a zap and a clean
 * refault, stays. A read fault maps the present pages around it
 * (fault-around: 16 pages, from the VMA start when it is later than the
 * aligned block), so pages read through a second view are mapped twice
 * and a pageout of the first view keeps them. Without swap, as the
 * script's Linux had none: with it, the written page would go to swap.
 */
static void test_pageout_shared_fault_around_body(struct ktest *t)
{
	struct mm *mm = mm_create();
	unsigned char vec[32];
	unsigned long rss;
	unsigned kept = 0;

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, G, P(32), UT_RW, UT_SA | MAP_FIXED), (long)G);
	EXPECT_EQ(t, vm_madvise(mm, G, P(32), MADV_POPULATE_READ), 0);
	EXPECT_EQ(t, ut_write8(mm, G + P(1), 1), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, G + P(1), P(1), MADV_DONTNEED), 0);
	EXPECT_EQ(t, ut_read8(mm, G + P(1)), 1);                /* mapped clean, the page is dirty */
	/* A second view at page 3 of a page table; a read of its page 20 maps its pages 13..28. */
	EXPECT_EQ(t, vm_mremap(mm, G, 0, P(32), MREMAP_MAYMOVE | MREMAP_FIXED, G + P(512 + 3)),
		  (long)(G + P(512 + 3)));
	rss = mm->rss;
	EXPECT_EQ(t, ut_read8(mm, G + P(512 + 3 + 20)), 0);
	EXPECT_EQ(t, mm->rss, rss + 16);
	EXPECT_EQ(t, vm_madvise(mm, G, P(32), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, vm_mincore(mm, G, P(32), vec), 0);
	for (int i = 0; i < 32; i++)
		kept += vec[i];
	EXPECT_EQ(t, kept, 17);
	EXPECT_EQ(t, vec[0], 0);
	EXPECT_EQ(t, vec[1], 1);
	EXPECT_EQ(t, vec[12], 0);
	EXPECT_EQ(t, vec[13], 1);
	EXPECT_EQ(t, vec[28], 1);
	EXPECT_EQ(t, vec[29], 0);
	EXPECT_EQ(t, ut_read8(mm, G + P(1)), 1);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

UT_CASE_WITHOUT_SWAP(test_pageout_shared_fault_around)

/*
 * MADV_MERGEABLE (ksm_madvise): a shared mapping keeps its flags (no split)
 * and the call succeeds; a private one gets VM_MERGEABLE on the range.
 * MADV_COLLAPSE: no VMA can hold a huge page, -EINVAL (0 for length 0).
 */
static void test_mergeable_collapse(struct ktest *t)
{
	struct mm *mm = mm_create();

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, G, P(3), UT_RW, UT_SA | MAP_FIXED), (long)G);
	ASSERT_EQ(t, vm_mmap(mm, G + P(4), P(3), UT_RW, UT_PA | MAP_FIXED), (long)(G + P(4)));
	EXPECT_EQ(t, vm_madvise(mm, G + P(1), P(1), MADV_MERGEABLE), 0);
	EXPECT_FALSE(t, ut_vma(mm, G)->flags & VM_MERGEABLE);
	EXPECT_EQ(t, vm_madvise(mm, G + P(5), P(1), MADV_MERGEABLE), 0);
	UT_EXPECT_DRAWING(mm, G, "AAA BCD", NULL, NULL);      /* shared kept whole, private split */
	EXPECT_TRUE(t, ut_vma(mm, G + P(5))->flags & VM_MERGEABLE);
	EXPECT_EQ(t, vm_madvise(mm, G + P(5), P(1), MADV_UNMERGEABLE), 0);
	UT_EXPECT_DRAWING(mm, G, "AAA BBB", NULL, NULL);
	EXPECT_EQ(t, vm_madvise(mm, G + P(4), P(3), MADV_COLLAPSE), -EINVAL);
	EXPECT_EQ(t, vm_madvise(mm, G + P(4), 0, MADV_COLLAPSE), 0);
	EXPECT_EQ(t, vm_madvise(mm, G + P(3), P(2), MADV_COLLAPSE), -EINVAL);
	EXPECT_EQ(t, vm_madvise(mm, G + P(8), P(1), MADV_COLLAPSE), -ENOMEM);
	EXPECT_EQ(t, vm_madvise(mm, G, P(1), MADV_HWPOISON), -EINVAL);
	EXPECT_EQ(t, vm_madvise(mm, G, P(1), MADV_SOFT_OFFLINE), -EINVAL);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

static const struct ktest_case mm_guard_cases[] = {
	KTEST_CASE(test_arch_guard_markers),
	KTEST_CASE(test_guard_install_remove),
	KTEST_CASE(test_guard_vma_rules),
	KTEST_CASE(test_guard_fork_mremap_munmap),
	KTEST_CASE(test_guard_populate_kernel_access),
	KTEST_CASE(test_guard_oom),
	KTEST_CASE(test_pageout),
	KTEST_CASE(test_pageout_shared_fault_around),
	KTEST_CASE(test_mergeable_collapse),
	{ 0 },
};
KTEST_SUITE(mm_guard, mm_guard_cases);
