/*
 * Transparent huge pages: the 2 MiB leaves of include/arch_mmu.h (map,
 * query, split with the same bits, walks that show a leaf whole or split
 * it) and mm/thp.c's fault, fallback, fork sharing, huge zero page and
 * split-first partial operations with exact RSS. Expected values come
 * from arch_mmu.h's contract (512 entries per leaf, one set-aside table
 * each) and from Linux's behaviour (a huge page partly unmapped keeps the
 * rest of its data; AnonHugePages counts whole 2 MiB leaves; fork shares
 * a huge page read-only and a write splits and copies 4 KiB
 * (do_huge_pmd_wp_page); a read maps the huge zero page, which counts in
 * no RSS, and a write replaces it with a huge page (6.15+)).
 */
#include "test_mm_util.h"
#include "vmstat.h"
#include "lru.h"
#include "arch_mmu_debug.h"


static enum mmu_action thp_clear(void *arg, uintptr_t va, phys_addr_t pa, unsigned *st)
{
	(*(unsigned *)arg)++;
	return MMU_CLEAR;
}

static enum mmu_action thp_keep(void *arg, uintptr_t va, phys_addr_t pa, unsigned *st)
{
	(*(unsigned *)arg)++;
	return MMU_KEEP;
}

static enum mmu_action thp_readonly(void *arg, uintptr_t va, phys_addr_t pa, unsigned *st)
{
	*st = MMU_READ | MMU_HUGE;
	return MMU_UPDATE;
}

/*
 * A leaf: root + PDPT + PD + its set-aside table = 4 table pages; query
 * inside it gives the 4 KiB frame and MMU_HUGE; a split keeps every bit
 * and frame and uses the set-aside table (still 4); a clearing walk frees
 * everything but the root.
 */
static void test_thp_map_split(struct ktest *t)
{
	struct arch_mmu *m = arch_mmu_create();
	struct page *b = pmm_alloc(HUGE_ORDER, 0);
	phys_addr_t pa = b ? page_to_phys(b) : 0, got = 0;
	unsigned st = 0, n = 0;

	ASSERT_TRUE(t, m && b);
	EXPECT_EQ(t, arch_mmu_map_huge(m, HV, pa, MMU_READ | MMU_WRITE | MMU_ACCESSED | MMU_DIRTY), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 4);
	EXPECT_EQ(t, arch_mmu_huge_leaves(m), 1);
	EXPECT_EQ(t, arch_mmu_map_huge(m, HV, pa, MMU_READ), -EEXIST);
	EXPECT_EQ(t, arch_mmu_link_tables(m, HV + 0x1000), -EEXIST);      /* the shared mode's link: the leaf stays */
	EXPECT_EQ(t, arch_mmu_table_pages(m), 4);
	EXPECT_FALSE(t, arch_mmu_huge_free(m, HV + 0x1000));
	EXPECT_TRUE(t, arch_mmu_huge_free(m, HV + HUGE_SIZE));
	EXPECT_EQ(t, arch_mmu_query(m, HV + 0x3456, &got, &st), 0);
	EXPECT_EQ(t, got, pa + 0x3000);
	EXPECT_EQ(t, st, MMU_READ | MMU_WRITE | MMU_ACCESSED | MMU_DIRTY | MMU_HUGE);
	EXPECT_TRUE(t, arch_mmu_split_huge(m, HV + 0x1ff000));
	EXPECT_FALSE(t, arch_mmu_split_huge(m, HV));
	EXPECT_EQ(t, arch_mmu_huge_leaves(m), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 4);
	for (uintptr_t off = 0; off < HUGE_SIZE; off += 0x7f000) {
		EXPECT_EQ(t, arch_mmu_query(m, HV + off, &got, &st), 0);
		EXPECT_EQ(t, got, pa + off);
		EXPECT_EQ(t, st, MMU_READ | MMU_WRITE | MMU_ACCESSED | MMU_DIRTY);
	}
	EXPECT_EQ(t, arch_mmu_walk(m, HV, HV + HUGE_SIZE, thp_clear, &n, NULL), 512);
	EXPECT_EQ(t, n, 512);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 4);                /* emptied tables stay */
	ut_free_tables(m);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 1);
	/* PROT_NONE leaves keep their frame; a partial walk splits first and sees 4 KiB entries. */
	EXPECT_EQ(t, arch_mmu_map_huge(m, HV, pa, 0), 0);
	EXPECT_EQ(t, arch_mmu_query(m, HV + 0x5000, &got, &st), 0);
	EXPECT_EQ(t, got, pa + 0x5000);
	EXPECT_EQ(t, st, MMU_HUGE);
	n = 0;
	EXPECT_EQ(t, arch_mmu_walk(m, HV + 0x1000, HV + 0x3000, thp_clear, &n, NULL), 2);
	EXPECT_EQ(t, arch_mmu_query(m, HV, &got, &st), 0);
	EXPECT_EQ(t, st, 0);
	EXPECT_EQ(t, arch_mmu_query(m, HV + 0x1000, NULL, NULL), -ENOENT);
	n = 0;
	EXPECT_EQ(t, arch_mmu_walk(m, 0, TASK_SIZE, thp_clear, &n, NULL), 510);
	ut_free_tables(m);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 1);
	arch_mmu_destroy(m);
	pmm_free(b, HUGE_ORDER);
}

/*
 * arch_mmu_walk_huge: a leaf wholly inside is shown once (KEEP leaves it,
 * UPDATE rewrites the whole leaf, CLEAR frees it and its set-aside table);
 * a leaf partly inside is split and only the 4 KiB entries inside shown.
 */
static void test_thp_walk_huge(struct ktest *t)
{
	struct arch_mmu *m = arch_mmu_create();
	struct page *b = pmm_alloc(HUGE_ORDER, 0);
	phys_addr_t pa = b ? page_to_phys(b) : 0;
	unsigned st = 0, nh = 0, n = 0;

	ASSERT_TRUE(t, m && b);
	ASSERT_EQ(t, arch_mmu_map_huge(m, HV, pa, MMU_READ | MMU_WRITE), 0);
	EXPECT_EQ(t, arch_mmu_walk_huge(m, HV, HV + HUGE_SIZE, thp_keep, thp_keep, &nh, NULL), 1);
	EXPECT_EQ(t, nh, 1);
	EXPECT_EQ(t, arch_mmu_walk_huge(m, 0, TASK_SIZE, thp_readonly, thp_keep, &n, NULL), 1);
	EXPECT_EQ(t, arch_mmu_query(m, HV + 0x1000, NULL, &st), 0);
	EXPECT_EQ(t, st, MMU_READ | MMU_HUGE);
	EXPECT_EQ(t, arch_mmu_walk_huge(m, HV, HV + HUGE_SIZE, thp_clear, thp_keep, &n, NULL), 1);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 3);                /* the set-aside table went; PDPT and PD stay */
	ut_free_tables(m);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 1);
	EXPECT_EQ(t, arch_mmu_huge_leaves(m), 0);
	ASSERT_EQ(t, arch_mmu_map_huge(m, HV, pa, MMU_READ | MMU_WRITE), 0);
	n = nh = 0;
	EXPECT_EQ(t, arch_mmu_walk_huge(m, HV + 0x1000, HV + HUGE_SIZE, thp_clear, thp_keep, &n, NULL), 511);
	EXPECT_EQ(t, n, 511);
	EXPECT_EQ(t, arch_mmu_query(m, HV, NULL, &st), 0);
	EXPECT_EQ(t, st, MMU_READ | MMU_WRITE);
	EXPECT_EQ(t, arch_mmu_walk(m, 0, TASK_SIZE, thp_clear, &n, NULL), 512);
	ut_free_tables(m);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 1);
	arch_mmu_destroy(m);
	pmm_free(b, HUGE_ORDER);
}

/*
 * thp_mm with thp=always and two huge pages at HV, written at HV + 0x1234
 * (7) and HV + HUGE_SIZE + 9 (8).
 */
static struct mm *two_huge_pages(struct ktest *t, size_t *frames)
{
	struct mm *mm = ut_thp_mm(THP_ALWAYS, 2 * HUGE_SIZE, frames);

	if (!mm)
		return NULL;
	EXPECT_EQ(t, ut_write8(mm, HV + 0x1234, 7), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, HV + HUGE_SIZE + 9, 8), FAULT_OK);
	return mm;
}

/*
 * thp=always: writes fault in huge pages; munmap of 4 KiB splits (511
 * pages stay, data kept; thp_split_pmd counts it, Linux's
 * __split_huge_pmd_locked); mprotect of a whole huge page keeps it whole
 * (no split counted); every frame comes back at the end. (MADV_DONTNEED of a whole one: the
 * next case, graded in the madvise lab, whose skeleton leaves
 * MADV_DONTNEED to the student; fork: test_thp_fork_share, graded in the
 * cow lab.)
 */
static void test_thp_fault_split(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	unsigned long allocs = vm_event_sum(VM_THP_FAULT_ALLOC), splits = vm_event_sum(VM_THP_SPLIT_PMD);
	size_t frames;
	struct mm *mm;

	mm = two_huge_pages(t, &frames);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_event_sum(VM_THP_FAULT_ALLOC) - allocs, 2);
	EXPECT_EQ(t, vm_event_sum(VM_THP_SPLIT_PMD), splits);
	EXPECT_TRUE(t, ut_state(mm, HV + 0x1000) & MMU_HUGE);
	EXPECT_EQ(t, mm->rss, 1024);
	EXPECT_EQ(t, ut_anon_huge(mm, HV), 2 * HUGE_SIZE);
	EXPECT_EQ(t, vm_munmap(mm, HV + 0x5000, PAGE_SIZE), 0);
	EXPECT_EQ(t, mm->rss, 1023);
	EXPECT_FALSE(t, ut_state(mm, HV + 0x1000) & MMU_HUGE);
	EXPECT_EQ(t, ut_read8(mm, HV + 0x1234), 7);
	EXPECT_EQ(t, ut_anon_huge(mm, HV + HUGE_SIZE), HUGE_SIZE);
	EXPECT_EQ(t, vm_mprotect(mm, HV + HUGE_SIZE, HUGE_SIZE, PROT_READ), 0);
	EXPECT_EQ(t, ut_state(mm, HV + HUGE_SIZE) & (MMU_HUGE | MMU_WRITE), MMU_HUGE);
	EXPECT_EQ(t, vm_mprotect(mm, HV + HUGE_SIZE, HUGE_SIZE, UT_RW), 0);
	EXPECT_EQ(t, ut_state(mm, HV + HUGE_SIZE) & (MMU_HUGE | MMU_WRITE), MMU_HUGE | MMU_WRITE);
	EXPECT_EQ(t, ut_read8(mm, HV + HUGE_SIZE + 9), 8);
	EXPECT_EQ(t, vm_event_sum(VM_THP_SPLIT_PMD) - splits, 1);
	ut_thp_done(t, mm, saved, frames);
	EXPECT_EQ(t, vm_event_sum(VM_THP_SPLIT_PMD) - splits, 1);
}

/*
 * thp=always: MADV_DONTNEED of a whole huge page (beside a split one)
 * frees all 512 of its frames at once: RSS drops by 512, the range reads
 * zero again, and the frames are back in the allocator.
 */
static void test_thp_dontneed_whole(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	size_t frames;
	struct mm *mm;

	mm = two_huge_pages(t, &frames);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_munmap(mm, HV + 0x5000, PAGE_SIZE), 0);
	EXPECT_EQ(t, mm->rss, 1023);
	EXPECT_TRUE(t, ut_state(mm, HV + HUGE_SIZE) & MMU_HUGE);
	EXPECT_EQ(t, vm_madvise(mm, HV + HUGE_SIZE, HUGE_SIZE, MADV_DONTNEED), 0);
	EXPECT_EQ(t, mm->rss, 511);
	EXPECT_EQ(t, ut_read8(mm, HV + HUGE_SIZE + 9), 0);
	EXPECT_EQ(t, ut_read8(mm, HV + 0x1234), 7);
	ut_thp_done(t, mm, saved, frames);
}

/*
 * A huge page's 512 frames go onto the inactive anonymous list at once
 * (lru_add_run) and count in nr_anon_pages; a munmap of a whole huge page
 * takes its 512 off the list and the count after the flush (the batch's
 * user_pages_release) and frees them as one block (pmm_free_list); a
 * 4 KiB munmap of the other takes one. Nothing else allocates user pages
 * while a suite runs, so the gauges move by exactly these.
 */
static void test_thp_lists_and_counts(struct ktest *t)
{
	unsigned long inactive = lru_list_pages(LRU_INACTIVE_ANON), anon = vm_stat_read(VM_NR_ANON_PAGES);
	enum thp_mode saved = thp_mode;
	size_t frames;
	struct mm *mm;

	mm = two_huge_pages(t, &frames);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, lru_list_pages(LRU_INACTIVE_ANON) - inactive, 1024);
	EXPECT_EQ(t, vm_stat_read(VM_NR_ANON_PAGES) - anon, 1024);
	EXPECT_EQ(t, vm_munmap(mm, HV, HUGE_SIZE), 0);
	EXPECT_EQ(t, mm->rss, 512);
	EXPECT_EQ(t, lru_list_pages(LRU_INACTIVE_ANON) - inactive, 512);
	EXPECT_EQ(t, vm_stat_read(VM_NR_ANON_PAGES) - anon, 512);
	EXPECT_EQ(t, vm_munmap(mm, HV + HUGE_SIZE + 0x3000, PAGE_SIZE), 0);
	EXPECT_EQ(t, lru_list_pages(LRU_INACTIVE_ANON) - inactive, 511);
	EXPECT_EQ(t, vm_stat_read(VM_NR_ANON_PAGES) - anon, 511);
	EXPECT_EQ(t, ut_read8(mm, HV + HUGE_SIZE + 9), 8);
	ut_thp_done(t, mm, saved, frames);
	EXPECT_EQ(t, lru_list_pages(LRU_INACTIVE_ANON), inactive);
	EXPECT_EQ(t, vm_stat_read(VM_NR_ANON_PAGES), anon);
	EXPECT_EQ(t, pmm_check(), 0);
}

/* refcount and mapcount of the frame mapped at va, as refs * 10 + maps. */
static int thp_counts(struct mm *mm, uintptr_t va)
{
	struct page *p = phys_to_page(ut_pa(mm, va));

	return p ? page_total_refs(p) * 10 + page_total_mapcount(p) : -1;
}

/*
 * Fork shares huge pages (copy_huge_pmd): the child maps the parent's two
 * huge pages with two read-only leaves, each frame one reference and one
 * mapping more, and fork allocates no data frame (a copy would take 1024;
 * the child's page tables and slab objects take a few). A write in the
 * child splits its leaf (the other stays whole, AnonHugePages shows one)
 * (one thp_split_pmd) and copies exactly one frame: the page written; the rest stays shared
 * and the parent's data is unchanged; the child's 4 KiB munmap splits
 * only its own leaf, and mprotect of the parent's leaf keeps it whole and
 * read-only while a frame is shared. Once the child is gone the parent's
 * frames are exclusive again and its write reuses the leaf whole, with no
 * frame allocated (do_huge_pmd_wp_page's reuse).
 */
static void test_thp_fork_share(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	const uintptr_t h2 = HV + HUGE_SIZE;
	unsigned long splits;
	size_t frames, before;
	struct mm *mm, *child;

	mm = two_huge_pages(t, &frames);
	ASSERT_TRUE(t, mm);
	before = ut_free_frames();
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	EXPECT_LT(t, before - ut_free_frames(), 64);
	EXPECT_EQ(t, child->rss, 1024);
	EXPECT_EQ(t, ut_pa(child, h2 + PAGE_SIZE), ut_pa(mm, h2 + PAGE_SIZE));
	EXPECT_EQ(t, ut_state(child, h2) & (MMU_HUGE | MMU_WRITE), MMU_HUGE);
	EXPECT_EQ(t, ut_state(mm, h2) & (MMU_HUGE | MMU_WRITE), MMU_HUGE);
	EXPECT_EQ(t, thp_counts(mm, h2 + PAGE_SIZE), 22);
	EXPECT_EQ(t, ut_anon_huge(child, HV), 2 * HUGE_SIZE);
	before = ut_free_frames();
	splits = vm_event_sum(VM_THP_SPLIT_PMD);
	EXPECT_EQ(t, ut_write8(child, h2 + 9, 9), FAULT_OK);
	EXPECT_EQ(t, vm_event_sum(VM_THP_SPLIT_PMD) - splits, 1);
	EXPECT_EQ(t, before - ut_free_frames(), 1);
	EXPECT_EQ(t, child->cow_copies, 1);
	EXPECT_EQ(t, child->rss, 1024);
	EXPECT_FALSE(t, ut_state(child, h2) & MMU_HUGE);
	EXPECT_NE(t, ut_pa(child, h2), ut_pa(mm, h2));
	EXPECT_EQ(t, ut_pa(child, h2 + PAGE_SIZE), ut_pa(mm, h2 + PAGE_SIZE));
	EXPECT_EQ(t, thp_counts(mm, h2), 11);
	EXPECT_EQ(t, thp_counts(mm, h2 + PAGE_SIZE), 22);
	EXPECT_EQ(t, ut_anon_huge(child, HV), HUGE_SIZE);
	EXPECT_EQ(t, ut_anon_huge(mm, HV), 2 * HUGE_SIZE);
	EXPECT_EQ(t, ut_read8(mm, h2 + 9), 8);
	EXPECT_EQ(t, ut_read8(child, h2 + 9), 9);
	EXPECT_EQ(t, ut_read8(child, HV + 0x1234), 7);
	/* The child unmaps 4 KiB of the other: its leaf splits, the parent's stays whole. */
	EXPECT_EQ(t, vm_munmap(child, HV + 0x2000, PAGE_SIZE), 0);
	EXPECT_EQ(t, child->rss, 1023);
	EXPECT_EQ(t, thp_counts(mm, HV + 0x2000), 11);
	EXPECT_EQ(t, thp_counts(mm, HV + 0x3000), 22);
	/* mprotect of the parent's whole leaf (change_huge_pmd): whole still, read-only while shared. */
	EXPECT_EQ(t, vm_mprotect(mm, HV, HUGE_SIZE, PROT_READ), 0);
	EXPECT_EQ(t, vm_mprotect(mm, HV, HUGE_SIZE, UT_RW), 0);
	EXPECT_EQ(t, ut_state(mm, HV) & (MMU_HUGE | MMU_WRITE), MMU_HUGE);
	EXPECT_EQ(t, vm_event_sum(VM_THP_SPLIT_PMD) - splits, 2);
	mm_put(child);
	EXPECT_EQ(t, thp_counts(mm, h2 + PAGE_SIZE), 11);
	before = ut_free_frames();
	EXPECT_EQ(t, ut_write8(mm, h2 + 10, 10), FAULT_OK);
	EXPECT_EQ(t, ut_free_frames(), before);
	EXPECT_EQ(t, ut_state(mm, h2 + PAGE_SIZE) & (MMU_HUGE | MMU_WRITE), MMU_HUGE | MMU_WRITE);
	EXPECT_EQ(t, mm->cow_copies, 0);
	EXPECT_EQ(t, ut_read8(mm, h2 + 9), 8);
	ut_thp_done(t, mm, saved, frames);
}

/*
 * Three address spaces share one huge page (fork, then fork again): fork
 * counts a shared leaf once per block (mm/thp.c, "Deferred shares"), yet
 * every frame must read 3 references and 3 mappings, as if each had been
 * counted one by one, through any order of splits and exits, and the
 * frames must go exactly with the last mapping. Expected counts, as refs
 * * 10 + maps (thp_counts): each mapping of a frame holds one of each.
 * - a unmaps 4 KiB: its leaf splits; the frame it unmapped reads 22, a
 *   frame all three still map 33.
 * - The parent goes first: 22 and 11 (a's 4 KiB entry and b's leaf).
 * - b writes page 3: a still maps it (4 KiB), so b's leaf cannot be
 *   reused whole: it splits and one page is copied; page 3 then reads 11.
 * - a goes: b's frames read 11; b writes page 5, which is its alone: the
 *   4 KiB write fault reuses it (no frame allocated, no copy).
 * - b goes: every frame the test took is back.
 */
static void test_thp_fork_three_ways(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	size_t frames, before;
	struct mm *mm = ut_thp_mm(THP_ALWAYS, HUGE_SIZE, &frames), *a, *b;

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, ut_write8(mm, HV + 3 * PAGE_SIZE, 3), FAULT_OK);
	ASSERT_TRUE(t, ut_state(mm, HV) & MMU_HUGE);
	a = mm_dup(mm);
	ASSERT_TRUE(t, a);
	b = mm_dup(mm);
	ASSERT_TRUE(t, b);
	EXPECT_EQ(t, thp_counts(mm, HV), 33);
	EXPECT_EQ(t, thp_counts(b, HV + 0x1ff000), 33);
	EXPECT_EQ(t, vm_munmap(a, HV + 0x7000, PAGE_SIZE), 0);
	EXPECT_FALSE(t, ut_state(a, HV) & MMU_HUGE);
	EXPECT_EQ(t, thp_counts(mm, HV + 0x7000), 22);
	EXPECT_EQ(t, thp_counts(mm, HV + 0x6000), 33);
	EXPECT_EQ(t, thp_counts(a, HV + 0x6000), 33);
	mm_put(mm);
	EXPECT_EQ(t, thp_counts(b, HV + 0x7000), 11);
	EXPECT_EQ(t, thp_counts(b, HV + 0x6000), 22);
	EXPECT_TRUE(t, ut_state(b, HV) & MMU_HUGE);
	before = ut_free_frames();
	EXPECT_EQ(t, ut_write8(b, HV + 3 * PAGE_SIZE + 1, 4), FAULT_OK);
	EXPECT_EQ(t, before - ut_free_frames(), 1);
	EXPECT_EQ(t, b->cow_copies, 1);
	EXPECT_FALSE(t, ut_state(b, HV) & MMU_HUGE);
	EXPECT_EQ(t, thp_counts(a, HV + 3 * PAGE_SIZE), 11);
	EXPECT_EQ(t, thp_counts(b, HV + 3 * PAGE_SIZE), 11);
	EXPECT_EQ(t, ut_read8(a, HV + 3 * PAGE_SIZE), 3);
	EXPECT_EQ(t, ut_read8(a, HV + 3 * PAGE_SIZE + 1), 0);
	EXPECT_EQ(t, ut_read8(b, HV + 3 * PAGE_SIZE), 3);
	EXPECT_EQ(t, ut_read8(b, HV + 3 * PAGE_SIZE + 1), 4);
	mm_put(a);
	EXPECT_EQ(t, thp_counts(b, HV + 5 * PAGE_SIZE), 11);
	before = ut_free_frames();
	EXPECT_EQ(t, ut_write8(b, HV + 5 * PAGE_SIZE, 5), FAULT_OK);
	EXPECT_EQ(t, ut_free_frames(), before);
	EXPECT_EQ(t, b->cow_copies, 1);
	EXPECT_EQ(t, ut_read8(b, HV + 5 * PAGE_SIZE), 5);
	ut_thp_done(t, b, saved, frames);
}

/*
 * mremap of whole huge pages to a 2 MiB boundary moves each leaf whole
 * (Linux's move_huge_pmd): the same frames, still one leaf each, no split
 * counted, RSS and data kept, nothing left at the old place. A huge page
 * moved to an address off a 2 MiB boundary cannot stay one leaf: split
 * (counted once), data kept. Graded in the mremap lab (its skeleton
 * cannot move anything).
 */
static void test_thp_mremap_whole(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	const uintptr_t nv = HV + 8 * HUGE_SIZE, off = HV + 16 * HUGE_SIZE + 0x3000;
	unsigned long splits = vm_event_sum(VM_THP_SPLIT_PMD);
	phys_addr_t pa1, pa2;
	size_t frames;
	struct mm *mm;

	mm = two_huge_pages(t, &frames);
	ASSERT_TRUE(t, mm);
	pa1 = ut_pa(mm, HV);
	pa2 = ut_pa(mm, HV + HUGE_SIZE);
	EXPECT_EQ(t, vm_mremap(mm, HV, 2 * HUGE_SIZE, 2 * HUGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, nv),
		  (long)nv);
	EXPECT_EQ(t, vm_event_sum(VM_THP_SPLIT_PMD), splits);
	EXPECT_EQ(t, ut_state(mm, nv) & (MMU_HUGE | MMU_WRITE), MMU_HUGE | MMU_WRITE);
	EXPECT_EQ(t, ut_state(mm, nv + HUGE_SIZE) & MMU_HUGE, MMU_HUGE);
	EXPECT_EQ(t, ut_pa(mm, nv), pa1);
	EXPECT_EQ(t, ut_pa(mm, nv + HUGE_SIZE), pa2);
	EXPECT_EQ(t, arch_mmu_query(mm->mmu, HV, NULL, NULL), -ENOENT);
	EXPECT_EQ(t, arch_mmu_huge_leaves(mm->mmu), 2);
	EXPECT_EQ(t, mm->rss, 1024);
	EXPECT_EQ(t, ut_anon_huge(mm, nv), 2 * HUGE_SIZE);
	EXPECT_EQ(t, ut_read8(mm, nv + 0x1234), 7);
	EXPECT_EQ(t, ut_read8(mm, nv + HUGE_SIZE + 9), 8);
	/* The second, to an address 12 KiB past a 2 MiB boundary: split. */
	EXPECT_EQ(t, vm_mremap(mm, nv + HUGE_SIZE, HUGE_SIZE, HUGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, off),
		  (long)off);
	EXPECT_EQ(t, vm_event_sum(VM_THP_SPLIT_PMD) - splits, 1);
	EXPECT_FALSE(t, ut_state(mm, off) & MMU_HUGE);
	EXPECT_EQ(t, ut_pa(mm, off), pa2);
	EXPECT_EQ(t, ut_read8(mm, off + 9), 8);
	EXPECT_EQ(t, mm->rss, 1024);
	EXPECT_EQ(t, arch_mmu_huge_leaves(mm->mmu), 1);
	ut_thp_done(t, mm, saved, frames);
}

/*
 * /proc/meminfo's AnonHugePages (thp_anon_blocks) counts each huge page
 * once, as Linux's NR_ANON_THPS counts a folio while at least one PMD maps
 * it: fork's second leaf for the same huge page adds nothing (smaps, per
 * mapping, shows it in both), and the page counts until its last leaf is
 * split; the huge zero page's leaves count nowhere. Splits by 4 KiB
 * munmap only (no COW write: the cow lab's skeleton runs this case too).
 */
static void test_thp_meminfo_once(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	const uintptr_t hz = HV + 2 * HUGE_SIZE;
	unsigned long base;
	size_t frames;
	struct mm *mm, *child;

	base = thp_anon_blocks();
	mm = two_huge_pages(t, &frames);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, thp_anon_blocks() - base, 2);
	ASSERT_EQ(t, vm_mmap(mm, hz, HUGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)hz);
	EXPECT_EQ(t, ut_read8(mm, hz + 5), 0);
	EXPECT_EQ(t, ut_pa(mm, hz), mm_huge_zero_pa);
	EXPECT_EQ(t, thp_anon_blocks() - base, 2);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	EXPECT_EQ(t, ut_anon_huge(child, HV), 2 * HUGE_SIZE);
	EXPECT_EQ(t, ut_pa(child, hz), mm_huge_zero_pa);
	EXPECT_EQ(t, thp_anon_blocks() - base, 2);
	/* The parent splits its leaf of the first: the child's still maps it whole. */
	EXPECT_EQ(t, vm_munmap(mm, HV + 0x5000, PAGE_SIZE), 0);
	EXPECT_EQ(t, thp_anon_blocks() - base, 2);
	EXPECT_EQ(t, vm_munmap(child, HV + 0x6000, PAGE_SIZE), 0);
	EXPECT_EQ(t, thp_anon_blocks() - base, 1);
	mm_put(child);
	EXPECT_EQ(t, thp_anon_blocks() - base, 1);
	EXPECT_EQ(t, vm_munmap(mm, HV + HUGE_SIZE, HUGE_SIZE), 0);
	EXPECT_EQ(t, thp_anon_blocks(), base);
	ut_thp_done(t, mm, saved, frames);
}

/*
 * The huge zero page: a read maps it (one leaf, read-only, no RSS, no
 * AnonHugePages; allocated once: thp_zero_page_alloc counts it when no
 * address space held it), a second read maps the same page with only its
 * set-aside table allocated; a write replaces it by a huge page of the
 * VMA's own (thp_fault_alloc); a 4 KiB munmap splits the other leaf
 * (thp_split_pmd counts it: Linux counts before it looks for the huge
 * zero page), which still reads zero, and a write there takes one 4 KiB page; fork
 * gives the child the zero leaf too. munmap gives the data frames back;
 * the address space holds the huge zero page until its teardown, which
 * frees it when nobody else holds it.
 */
static void test_thp_huge_zero(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	unsigned long zallocs = vm_event_sum(VM_THP_ZERO_PAGE_ALLOC);
	unsigned long allocs = vm_event_sum(VM_THP_FAULT_ALLOC), splits;
	bool fresh = !mm_huge_zero_pa;
	size_t frames, before, tables;
	struct mm *mm, *child;

	mm = ut_thp_mm(THP_ALWAYS, 2 * HUGE_SIZE, &frames);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, ut_read8(mm, HV + 0x1234), 0);
	EXPECT_EQ(t, vm_event_sum(VM_THP_ZERO_PAGE_ALLOC) - zallocs, fresh ? 1 : 0);
	ASSERT_TRUE(t, mm_huge_zero_pa != 0);
	EXPECT_EQ(t, ut_pa(mm, HV + 0x1234), mm_huge_zero_pa + 0x1000);
	EXPECT_EQ(t, ut_state(mm, HV) & (MMU_HUGE | MMU_WRITE), MMU_HUGE);
	before = ut_free_frames();
	tables = arch_mmu_table_pages(mm->mmu);
	EXPECT_EQ(t, ut_read8(mm, HV + HUGE_SIZE + 5), 0);
	EXPECT_EQ(t, ut_pa(mm, HV + HUGE_SIZE), mm_huge_zero_pa);
	EXPECT_EQ(t, arch_mmu_table_pages(mm->mmu) - tables, 1);
	EXPECT_EQ(t, before - ut_free_frames(), 1);
	EXPECT_EQ(t, mm->rss, 0);
	EXPECT_EQ(t, ut_anon_huge(mm, HV), 0);
	EXPECT_EQ(t, ut_write8(mm, HV + HUGE_SIZE + 5, 7), FAULT_OK);
	EXPECT_EQ(t, vm_event_sum(VM_THP_FAULT_ALLOC) - allocs, 1);
	EXPECT_EQ(t, ut_state(mm, HV + HUGE_SIZE) & (MMU_HUGE | MMU_WRITE), MMU_HUGE | MMU_WRITE);
	EXPECT_EQ(t, mm->rss, 512);
	EXPECT_EQ(t, ut_anon_huge(mm, HV), HUGE_SIZE);
	EXPECT_EQ(t, ut_read8(mm, HV + HUGE_SIZE + 5), 7);
	EXPECT_EQ(t, ut_read8(mm, HV + HUGE_SIZE + 6), 0);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	EXPECT_EQ(t, ut_pa(child, HV), mm_huge_zero_pa);
	EXPECT_EQ(t, child->rss, 512);
	mm_put(child);
	splits = vm_event_sum(VM_THP_SPLIT_PMD);
	EXPECT_EQ(t, vm_munmap(mm, HV + 0x3000, PAGE_SIZE), 0);
	EXPECT_EQ(t, vm_event_sum(VM_THP_SPLIT_PMD) - splits, 1);
	EXPECT_FALSE(t, ut_state(mm, HV) & MMU_HUGE);
	EXPECT_EQ(t, ut_read8(mm, HV + 0x5000), 0);
	EXPECT_EQ(t, ut_write8(mm, HV + 0x5000, 3), FAULT_OK);
	EXPECT_EQ(t, ut_read8(mm, HV + 0x5000), 3);
	EXPECT_EQ(t, ut_read8(mm, HV + 0x6000), 0);
	EXPECT_EQ(t, mm->rss, 513);
	EXPECT_EQ(t, vm_munmap(mm, HV, 2 * HUGE_SIZE), 0);
	EXPECT_EQ(t, mm->rss, 0);
	EXPECT_TRUE(t, mm->huge_zero);
	ut_thp_done(t, mm, saved, frames);
	if (fresh)
		EXPECT_EQ(t, mm_huge_zero_pa, 0);
}

/* Leave no free order-9 block: take each, give back all but its first frame (on held; ut_release_frames). */
static void hold_huge_blocks(struct list_head *held)
{
	struct page *b;

	list_init(held);
	while ((b = pmm_alloc(HUGE_ORDER, 0)) != NULL) {
		for (unsigned i = 1; i < (1U << HUGE_ORDER); i++) {
			b[i].refcount = 1;
			pmm_free(b + i, 0);
		}
		b->order = 0;
		list_add(&b->lru, held);
	}
}

/*
 * MADV_COLLAPSE (mm/collapse.c), with thp=never (it ignores the policy):
 * a VMA never faulted: -EINVAL; a slot with two written pages and a read
 * one (the zero page) becomes one writable leaf whose data is theirs
 * (zero elsewhere), RSS 512, the old frames freed (the old page table
 * becomes the leaf's set-aside one: nothing else allocated),
 * thp_collapse_alloc and AnonHugePages count it; done again: 0, nothing
 * taken. Over three slots, an untouched one ends the walk (-EINVAL, the
 * third, written, stays 4 KiB); alone the third collapses. A range with
 * no whole slot: -EINVAL, or 0 when it starts on a 2 MiB boundary
 * (Linux's arithmetic). MADV_NOHUGEPAGE: -EINVAL. No order-9 block:
 * -ENOMEM, thp_collapse_alloc_failed. Values from the host's Linux 6.18
 * (the user test thp_collapse).
 */
static void test_thp_collapse(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	unsigned long allocs = vm_event_sum(VM_THP_COLLAPSE_ALLOC), blocks = thp_anon_blocks();
	unsigned long failed = vm_event_sum(VM_THP_COLLAPSE_ALLOC_FAILED);
	size_t frames, before;
	struct list_head held;
	struct mm *mm;
	long rss;

	mm = ut_thp_mm(THP_NEVER, 3 * HUGE_SIZE, &frames);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_madvise(mm, HV, HUGE_SIZE, MADV_COLLAPSE), -EINVAL);
	EXPECT_EQ(t, ut_write8(mm, HV + 0x1234, 7), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, HV + 0x5003, 8), FAULT_OK);
	EXPECT_EQ(t, ut_read8(mm, HV + 0x9000), 0);
	rss = mm->rss;
	before = ut_free_frames();
	EXPECT_EQ(t, vm_madvise(mm, HV, HUGE_SIZE, MADV_COLLAPSE), 0);
	EXPECT_EQ(t, ut_state(mm, HV + 0x7000) & (MMU_HUGE | MMU_WRITE), MMU_HUGE | MMU_WRITE);
	EXPECT_EQ(t, before - ut_free_frames(), 512 - rss);
	EXPECT_EQ(t, mm->rss, 512);
	EXPECT_EQ(t, vm_event_sum(VM_THP_COLLAPSE_ALLOC) - allocs, 1);
	EXPECT_EQ(t, thp_anon_blocks() - blocks, 1);
	EXPECT_EQ(t, ut_anon_huge(mm, HV), HUGE_SIZE);
	EXPECT_EQ(t, ut_read8(mm, HV + 0x1234) + ut_read8(mm, HV + 0x5003), 15);
	EXPECT_EQ(t, ut_read8(mm, HV + 0x1235) + ut_read8(mm, HV + 0x9000) + ut_read8(mm, HV + 0x1ff000), 0);
	EXPECT_EQ(t, vm_madvise(mm, HV, HUGE_SIZE, MADV_COLLAPSE), 0);
	EXPECT_EQ(t, vm_event_sum(VM_THP_COLLAPSE_ALLOC) - allocs, 1);
	EXPECT_EQ(t, ut_write8(mm, HV + 2 * HUGE_SIZE + 5, 9), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, HV, 3 * HUGE_SIZE, MADV_COLLAPSE), -EINVAL);
	EXPECT_FALSE(t, ut_state(mm, HV + 2 * HUGE_SIZE) & MMU_HUGE);
	EXPECT_EQ(t, vm_madvise(mm, HV + HUGE_SIZE + PAGE_SIZE, PAGE_SIZE, MADV_COLLAPSE), -EINVAL);
	EXPECT_EQ(t, vm_madvise(mm, HV + HUGE_SIZE, PAGE_SIZE, MADV_COLLAPSE), 0);
	hold_huge_blocks(&held);
	EXPECT_EQ(t, vm_madvise(mm, HV + 2 * HUGE_SIZE, HUGE_SIZE, MADV_COLLAPSE), -ENOMEM);
	EXPECT_EQ(t, vm_event_sum(VM_THP_COLLAPSE_ALLOC_FAILED) - failed, 1);
	ut_release_frames(&held);
	EXPECT_EQ(t, vm_madvise(mm, HV + 2 * HUGE_SIZE, HUGE_SIZE, MADV_COLLAPSE), 0);
	EXPECT_EQ(t, ut_state(mm, HV + 2 * HUGE_SIZE) & MMU_HUGE, MMU_HUGE);
	EXPECT_EQ(t, ut_read8(mm, HV + 2 * HUGE_SIZE + 5), 9);
	EXPECT_EQ(t, vm_madvise(mm, HV, HUGE_SIZE, MADV_NOHUGEPAGE), 0);
	EXPECT_EQ(t, vm_madvise(mm, HV, HUGE_SIZE, MADV_COLLAPSE), -EINVAL);
	ut_thp_done(t, mm, saved, frames);
}

/*
 * A write fault after fork in a block that MADV_COLLAPSE made one 2 MiB
 * leaf, where the block's last fault before the collapse was in its 4 KiB
 * page table (which the collapse took out of the tree, and the fault path
 * must not use again: arch_mmu_query_near): the fault finds the leaf and
 * copies (Linux 6.x: the parent's leaf split, one 4 KiB page copied); the
 * child keeps the old byte. Needs the cow lab's code (graded there).
 */
static void test_thp_collapse_fork_write(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	struct mm *mm, *child;
	size_t frames;

	mm = ut_thp_mm(THP_NEVER, HUGE_SIZE, &frames);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, ut_write8(mm, HV + 5, 9), FAULT_OK);
	EXPECT_EQ(t, vm_madvise(mm, HV, HUGE_SIZE, MADV_COLLAPSE), 0);
	EXPECT_EQ(t, ut_state(mm, HV) & MMU_HUGE, MMU_HUGE);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	EXPECT_EQ(t, ut_write8(mm, HV + 5, 10), FAULT_OK);
	EXPECT_EQ(t, ut_read8(mm, HV + 5), 10);
	EXPECT_EQ(t, ut_read8(child, HV + 5), 9);
	mm_put(child);
	ut_thp_done(t, mm, saved, frames);
}

/*
 * No free order-9 block (each one taken and given back but for one frame):
 * the fault maps 4 KiB and counts thp_fault_fallback; a read finds no
 * block for the huge zero page either (when nobody holds one already:
 * thp_zero_page_alloc_failed and thp_fault_fallback, and 4 KiB);
 * thp=never and MADV_NOHUGEPAGE map 4 KiB without counting.
 */
static void test_thp_fallback_policy(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	unsigned long fallbacks = vm_event_sum(VM_THP_FAULT_FALLBACK);
	unsigned long zfailed = vm_event_sum(VM_THP_ZERO_PAGE_ALLOC_FAILED);
	bool fresh = !mm_huge_zero_pa;
	struct list_head held;
	struct mm *mm = mm_create();

	ASSERT_TRUE(t, mm);
	thp_mode = THP_ALWAYS;
	ASSERT_EQ(t, vm_mmap(mm, HV, 3 * HUGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)HV);
	ASSERT_EQ(t, vm_madvise(mm, HV + 2 * HUGE_SIZE, HUGE_SIZE, MADV_NOHUGEPAGE), 0);
	hold_huge_blocks(&held);
	EXPECT_EQ(t, ut_write8(mm, HV, 1), FAULT_OK);
	EXPECT_EQ(t, vm_event_sum(VM_THP_FAULT_FALLBACK) - fallbacks, 1);
	EXPECT_FALSE(t, ut_state(mm, HV) & MMU_HUGE);
	EXPECT_EQ(t, ut_read8(mm, HV + HUGE_SIZE), 0);
	EXPECT_EQ(t, vm_event_sum(VM_THP_ZERO_PAGE_ALLOC_FAILED) - zfailed, fresh ? 1 : 0);
	if (fresh)
		EXPECT_FALSE(t, ut_state(mm, HV + HUGE_SIZE) & MMU_HUGE);
	ut_release_frames(&held);
	EXPECT_EQ(t, ut_write8(mm, HV + 2 * HUGE_SIZE, 1), FAULT_OK);
	EXPECT_FALSE(t, ut_state(mm, HV + 2 * HUGE_SIZE) & MMU_HUGE);
	thp_mode = THP_NEVER;
	EXPECT_EQ(t, ut_write8(mm, HV + HUGE_SIZE, 1), FAULT_OK);
	EXPECT_FALSE(t, ut_state(mm, HV + HUGE_SIZE) & MMU_HUGE);
	EXPECT_EQ(t, vm_event_sum(VM_THP_FAULT_FALLBACK) - fallbacks, fresh ? 2 : 1);
	EXPECT_LT(t, mm->rss, 512);               /* no huge page came in (3 pages, more with fill-ahead) */
	thp_mode = saved;
	mm_put(mm);
}

/*
 * Reclaim splits first: MADV_PAGEOUT of a huge page (on a RAM-disk swap
 * area of its own) splits the leaf and writes all 512 pages out (RSS 0,
 * 512 swap entries); they read back as written, as 4 KiB pages. Written
 * out again, MADV_COLLAPSE reads them back and makes one huge page of
 * them (Linux's __collapse_huge_page_swapin): no swap entry left, RSS
 * 512, the data as written.
 */
static void test_thp_pageout_body(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	struct ut_swap_area area;
	struct mm *mm;

	if (!ut_swap_area_on(t, &area, 2UL << HUGE_ORDER))
		return;
	thp_mode = THP_ALWAYS;
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, HV, HUGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)HV);
	for (uintptr_t off = 0; off < HUGE_SIZE; off += 64 * PAGE_SIZE)
		EXPECT_EQ(t, ut_write8(mm, HV + off + 3, (uint8_t)(off >> 12)), FAULT_OK);
	EXPECT_TRUE(t, ut_state(mm, HV) & MMU_HUGE);
	EXPECT_EQ(t, vm_madvise(mm, HV, HUGE_SIZE, MADV_PAGEOUT), 0);
	EXPECT_EQ(t, mm->rss, 0);
	EXPECT_EQ(t, mm->swap_ents, 512);
	for (uintptr_t off = 0; off < HUGE_SIZE; off += 64 * PAGE_SIZE)
		EXPECT_EQ(t, ut_read8(mm, HV + off + 3), (int)(uint8_t)(off >> 12));
	EXPECT_FALSE(t, ut_state(mm, HV) & MMU_HUGE);
	EXPECT_EQ(t, vm_madvise(mm, HV, HUGE_SIZE, MADV_PAGEOUT), 0);
	EXPECT_GT(t, mm->swap_ents, 0);
	EXPECT_EQ(t, vm_madvise(mm, HV, HUGE_SIZE, MADV_COLLAPSE), 0);
	EXPECT_EQ(t, mm->swap_ents, 0);
	/* The slots read back are free again: no swap entry nor swap cache page holds one. */
	EXPECT_EQ(t, swap_free_pages(), swap_total_pages());
	EXPECT_EQ(t, mm->rss, 512);
	EXPECT_TRUE(t, ut_state(mm, HV) & MMU_HUGE);
	for (uintptr_t off = 0; off < HUGE_SIZE; off += 64 * PAGE_SIZE)
		EXPECT_EQ(t, ut_read8(mm, HV + off + 3), (int)(uint8_t)(off >> 12));
	mm_put(mm);
	thp_mode = saved;
	ut_swap_area_off(t, &area);
}
UT_CASE_WITHOUT_SWAP(test_thp_pageout)

static const struct ktest_case mm_thp_cases[] = {
	KTEST_CASE(test_thp_map_split),
	KTEST_CASE(test_thp_walk_huge),
	KTEST_CASE(test_thp_fault_split),
	KTEST_CASE(test_thp_lists_and_counts),
	KTEST_CASE(test_thp_fork_share),
	KTEST_CASE(test_thp_fork_three_ways),
	KTEST_CASE(test_thp_huge_zero),
	KTEST_CASE(test_thp_meminfo_once),
	KTEST_CASE(test_thp_mremap_whole),
	KTEST_CASE(test_thp_dontneed_whole),
	KTEST_CASE(test_thp_fallback_policy),
	KTEST_CASE(test_thp_collapse),
	KTEST_CASE(test_thp_collapse_fork_write),
	KTEST_CASE(test_thp_pageout),
	{ 0 },
};
KTEST_SUITE(mm_thp, mm_thp_cases);
