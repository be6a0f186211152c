/*
 * arch_mmu_walk semantics (the same checks run against the hosted and the
 * x86 tables) and the VM system-call cores: munmap frees, MADV_DONTNEED
 * refaults zeroes, mincore, brk, mmap errors. Expected values come from
 * arch_mmu.h's contract and Linux (the .out files of tests/mmscript).
 */
#include "test_mm_util.h"
#include "kerrno.h"

struct rec { unsigned n; uintptr_t va[8]; };

static enum mmu_action rec_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *st)
{
	struct rec *r = arg;

	if (r->n < 8)
		r->va[r->n] = va;
	r->n++;
	if (va == 0x40001000UL) {
		*st = MMU_READ;               /* drop write */
		return MMU_UPDATE;
	}
	return va == 0x7f0000000000UL ? MMU_CLEAR : MMU_KEEP;
}

static enum mmu_action clear_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *st)
{
	return MMU_CLEAR;
}

/*
 *   0x40000000 0x40001000 (rw)   0x7f0000000000 (rw)   0x7f0000200000 (r-x)
 * walk [0x40000000, 0x7f0000201000): visited in address order, UPDATE and
 * CLEAR applied; the tables a walk empties stay until
 * arch_mmu_free_tables, which frees only the empty ones whose whole block
 * lies in its window (root alone remains at the end).
 */
static void test_arch_walk_semantics(struct ktest *t)
{
	struct arch_mmu *m = arch_mmu_create();
	struct page *f = pmm_alloc(0, 0);
	phys_addr_t pa = page_to_phys(f), got;
	unsigned st;
	struct rec r = { 0, { 0 } };
	struct tlb_batch tlb;

	ASSERT_TRUE(t, m && f);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 1);
	EXPECT_EQ(t, arch_mmu_map(m, 0x40000000UL, pa, MMU_READ | MMU_WRITE), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 4);                /* PDPT, PD, PT */
	EXPECT_EQ(t, arch_mmu_map(m, 0x40001000UL, pa, MMU_READ | MMU_WRITE), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 4);
	EXPECT_EQ(t, arch_mmu_map(m, 0x7f0000000000UL, pa, MMU_READ | MMU_WRITE | MMU_DIRTY), 0);
	EXPECT_EQ(t, arch_mmu_map(m, 0x7f0000200000UL, pa, MMU_READ | MMU_EXEC), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 8);                /* + PDPT, PD, 2 PTs (same PML4/PDPT slot) */
	EXPECT_EQ(t, arch_mmu_query(m, 0x7f0000000000UL, &got, &st), 0);
	EXPECT_EQ(t, got, pa);
	EXPECT_EQ(t, st, MMU_READ | MMU_WRITE | MMU_DIRTY);
	EXPECT_EQ(t, arch_mmu_query(m, 0x7f0000200000UL, NULL, &st), 0);
	EXPECT_EQ(t, st, MMU_READ | MMU_EXEC);
	EXPECT_EQ(t, arch_mmu_query(m, 0x40002000UL, NULL, NULL), -ENOENT);

	EXPECT_EQ(t, arch_mmu_walk(m, 0x40000000UL, 0x7f0000201000UL, rec_visit, &r, NULL), 4);
	EXPECT_EQ(t, r.n, 4);
	EXPECT_EQ(t, r.va[0], 0x40000000UL);
	EXPECT_EQ(t, r.va[1], 0x40001000UL);
	EXPECT_EQ(t, r.va[2], 0x7f0000000000UL);
	EXPECT_EQ(t, r.va[3], 0x7f0000200000UL);
	EXPECT_EQ(t, arch_mmu_query(m, 0x40001000UL, NULL, &st), 0);
	EXPECT_EQ(t, st & MMU_PROT_MASK, MMU_READ);
	EXPECT_EQ(t, arch_mmu_query(m, 0x7f0000000000UL, NULL, NULL), -ENOENT);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 8);                /* the emptied PT stays */
	/* A window that ends inside the PT's 2 MiB block keeps it (a neighbour shares it). */
	tlb_batch_init(&tlb, m, false);
	arch_mmu_free_tables(m, 0x7f0000000000UL, 0x7f0000001000UL, 0x7f0000000000UL, 0x7f00001ff000UL, 3, &tlb);
	arch_tlb_flush(&tlb);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 8);
	/* Its whole block in the window: it goes; the PD still maps 0x7f0000200000, the PDPT the PD. */
	arch_mmu_free_tables(m, 0x7f0000000000UL, 0x7f0000001000UL, 0x40002000UL, 0x7f0000200000UL, 3, &tlb);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 8);                /* freed at the flush, not before */
	arch_tlb_flush(&tlb);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 7);
	/* A non-empty table never goes, whatever the window. */
	arch_mmu_free_tables(m, 0x40000000UL, 0x40001000UL, 0, 0, 3, &tlb);
	arch_tlb_flush(&tlb);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 7);
	/* A walk of a sub-range sees only that range. */
	r.n = 0;
	EXPECT_EQ(t, arch_mmu_walk(m, 0x40001000UL, 0x40002000UL, rec_visit, &r, NULL), 1);
	/* PROT_NONE entries keep their frame and are still walked. */
	EXPECT_EQ(t, arch_mmu_map(m, 0x40002000UL, pa, 0), 0);
	EXPECT_EQ(t, arch_mmu_query(m, 0x40002000UL, &got, &st), 0);
	EXPECT_EQ(t, got, pa);
	EXPECT_EQ(t, st & MMU_PROT_MASK, 0);
	EXPECT_EQ(t, arch_mmu_walk(m, 0, TASK_SIZE, clear_visit, NULL, NULL), 4);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 7);
	/* top 1: only page tables go (the two PTs); then every level (PDs, PDPTs) but the root. */
	arch_mmu_free_tables(m, 0, TASK_SIZE, 0, 0, 1, &tlb);
	arch_tlb_flush(&tlb);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 5);
	arch_mmu_free_tables(m, 0, TASK_SIZE, 0, 0, 3, &tlb);
	arch_tlb_flush(&tlb);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 1);
	arch_mmu_destroy(m);
	pmm_free(f, 0);
}

static void test_munmap_dontneed_mincore(struct ktest *t)
{
	const uintptr_t a = 0x30000000UL;
	unsigned char vec[8];
	size_t frames;
	struct mm *mm;
	struct page *pg;

	ut_warm_up();
	frames = ut_free_frames();
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, a, 4 * PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)a);
	EXPECT_EQ(t, vm_mincore(mm, a, 4 * PAGE_SIZE, vec), 0);
	EXPECT_EQ(t, vec[0] | vec[1] | vec[2] | vec[3], 0);
	ut_write8(mm, a, 1);
	ut_read8(mm, a + 2 * PAGE_SIZE);
	/* mincore.out: "write +0x10000, read +0x12000 => 1010" */
	EXPECT_EQ(t, vm_mincore(mm, a, 4 * PAGE_SIZE, vec), 0);
	EXPECT_TRUE(t, vec[0] == 1 && vec[1] == 0 && vec[2] == 1 && vec[3] == 0);
	EXPECT_EQ(t, vm_mincore(mm, a + 0x800, PAGE_SIZE, vec), -EINVAL);
	EXPECT_EQ(t, vm_mincore(mm, a - PAGE_SIZE, 2 * PAGE_SIZE, vec), -ENOMEM);
	/* DONTNEED drops the page: it reads zero again, and the frame is free. */
	EXPECT_EQ(t, vm_madvise(mm, a, 4 * PAGE_SIZE, MADV_DONTNEED), 0);
	EXPECT_EQ(t, mm->rss, 0);
	EXPECT_EQ(t, ut_pa(mm, a), 0);
	EXPECT_EQ(t, ut_read8(mm, a), 0);
	ut_write8(mm, a + PAGE_SIZE, 3);
	pg = phys_to_page(ut_pa(mm, a + PAGE_SIZE));
	EXPECT_EQ(t, pg->refcount, 1);
	EXPECT_EQ(t, vm_munmap(mm, a, 4 * PAGE_SIZE), 0);
	EXPECT_EQ(t, pg->refcount, 0);                            /* freed */
	EXPECT_EQ(t, mm->rss, 0);
	EXPECT_EQ(t, mm->map_count, 0);
	EXPECT_EQ(t, ut_read8(mm, a + PAGE_SIZE), UT_READ_FAULT(FAULT_SIGSEGV_MAPERR));
	EXPECT_EQ(t, arch_mmu_table_pages(mm->mmu), 1);
	/* munmap_errors.out */
	EXPECT_EQ(t, vm_munmap(mm, a + 0x800, PAGE_SIZE), -EINVAL);
	EXPECT_EQ(t, vm_munmap(mm, a, 0), -EINVAL);
	EXPECT_EQ(t, vm_munmap(mm, 0x7ffffffff000UL, PAGE_SIZE), -EINVAL);
	mm_put(mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

/* mmap_errors.out / mmap_basic.out cases that do not depend on the layout. */
static void test_mmap_errors(struct ktest *t)
{
	struct mm *mm = mm_create();
	const uintptr_t a = 0x30000000UL;

	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap(mm, a, 0, UT_RW, UT_PA | MAP_FIXED), -EINVAL);
	EXPECT_EQ(t, vm_mmap(mm, a, 0xfffffffffffff001UL, UT_RW, UT_PA | MAP_FIXED), -ENOMEM);
	EXPECT_EQ(t, vm_mmap(mm, a, PAGE_SIZE, UT_RW, MAP_ANONYMOUS | MAP_FIXED), -EINVAL);
	EXPECT_EQ(t, vm_mmap(mm, a, PAGE_SIZE, UT_RW, MAP_PRIVATE | MAP_FIXED), -EBADF);
	EXPECT_EQ(t, vm_mmap(mm, a + 0x800, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), -EINVAL);
	EXPECT_EQ(t, vm_mmap(mm, 0x7ffffffff000UL, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), -ENOMEM);
	EXPECT_EQ(t, vm_mmap(mm, 0x1000, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), -EPERM);
	EXPECT_EQ(t, vm_mmap(mm, a, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)a);
	EXPECT_EQ(t, vm_mmap(mm, a, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED_NOREPLACE), -EEXIST);
	EXPECT_EQ(t, vm_mmap(mm, a + 0x2000, 1, UT_RW, UT_PA), (long)(a + 0x2000));   /* free hint taken */
	EXPECT_EQ(t, vm_mmap(mm, a, PAGE_SIZE, UT_RW, UT_SA | MAP_GROWSDOWN), -EINVAL);
	/* MAP_POPULATE faults every page in. */
	EXPECT_EQ(t, vm_mmap(mm, a + 0x10000, 4 * PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED | MAP_POPULATE),
		  (long)(a + 0x10000));
	EXPECT_EQ(t, mm->rss, 4);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

/* brk.out: grow, shrink (pages gone, zero when regrown), refusals return the old break. */
static void test_brk(struct ktest *t)
{
	struct mm *mm = mm_create();
	const uintptr_t b = 0x600000UL;

	ASSERT_TRUE(t, mm);
	mm->start_brk = mm->brk = b;
	EXPECT_EQ(t, vm_brk(mm, 0), (long)b);
	EXPECT_EQ(t, vm_brk(mm, b + 0x2000), (long)(b + 0x2000));
	EXPECT_EQ(t, ut_write8(mm, b + 0x1fff, 1), FAULT_OK);
	EXPECT_EQ(t, vm_brk(mm, b + 0x3001), (long)(b + 0x3001));
	EXPECT_EQ(t, ut_write8(mm, b + 0x3fff, 2), FAULT_OK);
	EXPECT_EQ(t, ut_read8(mm, b + 0x4000), UT_READ_FAULT(FAULT_SIGSEGV_MAPERR));
	EXPECT_EQ(t, mm->map_count, 1);
	EXPECT_EQ(t, vm_brk(mm, b + 0x1000), (long)(b + 0x1000));
	EXPECT_EQ(t, ut_read8(mm, b + 0x1fff), UT_READ_FAULT(FAULT_SIGSEGV_MAPERR));
	EXPECT_EQ(t, vm_brk(mm, b + 0x2000), (long)(b + 0x2000));
	EXPECT_EQ(t, ut_read8(mm, b + 0x1fff), 0);
	EXPECT_EQ(t, vm_brk(mm, 0x1000), (long)(b + 0x2000));
	EXPECT_EQ(t, vm_brk(mm, 0xffffffffffffffffUL), (long)(b + 0x2000));
	/* A mapping at b+0x100000: the heap may end at most one page below it. */
	EXPECT_EQ(t, vm_mmap(mm, b + 0x100000, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)(b + 0x100000));
	EXPECT_EQ(t, vm_brk(mm, b + 0xff000), (long)(b + 0xff000));
	EXPECT_EQ(t, vm_brk(mm, b + 0xff001), (long)(b + 0xff000));
	EXPECT_EQ(t, vm_brk(mm, b), (long)b);
	EXPECT_EQ(t, mm->map_count, 1);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

/*
 * Page tables go as Linux's free_pgtables and PT_RECLAIM let them: an
 * unmap frees a page table only when its whole 2 MiB lies between the
 * VMAs that stay (so one a neighbour shares stays, even empty), and a
 * MADV_DONTNEED frees the page tables whose whole 2 MiB it covers. Eight
 * MiB at 1 GiB (B(0)..B(3) its 2 MiB blocks), one page written in each:
 * the root, a PDPT, a PD and four page tables. user test
 * vm_pgtables_freed_like_linux checks the same steps on Linux (VmPTE).
 */
static void test_unmap_frees_tables_like_linux(struct ktest *t)
{
	const uintptr_t a = 0x40000000UL;
	struct mm *mm = mm_create();

#define B(k) (a + (uintptr_t)(k) * HUGE_SIZE)
	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, a, 4 * HUGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)a);
	ASSERT_EQ(t, vm_madvise(mm, a, 4 * HUGE_SIZE, MADV_NOHUGEPAGE), 0);
	for (int k = 0; k < 4; k++)
		ut_write8(mm, B(k) + (k == 1 ? 0x100000 : 0), 1);
	EXPECT_EQ(t, arch_mmu_table_pages(mm->mmu), 7);
	/* A hole in B(1) around its page: the table is empty, but both sides of it stay mapped. */
	EXPECT_EQ(t, vm_munmap(mm, B(1) + 0xc0000, 0x80000), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(mm->mmu), 7);
	/* DONTNEED of all of B(2) frees its table; of B(3) but its last page, keeps it (emptied). */
	EXPECT_EQ(t, vm_madvise(mm, B(2), HUGE_SIZE, MADV_DONTNEED), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(mm->mmu), 6);
	EXPECT_EQ(t, vm_madvise(mm, B(3), HUGE_SIZE - PAGE_SIZE, MADV_DONTNEED), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(mm->mmu), 6);
	/* B(1)'s lower piece goes: the upper piece still shares the table. */
	EXPECT_EQ(t, vm_munmap(mm, B(1), 0xc0000), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(mm->mmu), 6);
	/* The upper piece goes: B(1) now lies between B(0) and B(2)'s VMA: freed. */
	EXPECT_EQ(t, vm_munmap(mm, B(1) + 0x140000, 0xc0000), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(mm->mmu), 5);
	/* A MAP_FIXED mapping over B(3) frees its table as an unmap would (nothing else in the block). */
	EXPECT_EQ(t, vm_mmap(mm, B(3), HUGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)B(3));
	EXPECT_EQ(t, arch_mmu_table_pages(mm->mmu), 4);
	/* Everything: the window is the whole address space, the PD and PDPT go too. */
	EXPECT_EQ(t, vm_munmap(mm, a, 4 * HUGE_SIZE), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(mm->mmu), 1);
#undef B
	mm_put(mm);
}

/*
 * arch_mmu_query_near and arch_mmu_map_near remember the page table of the
 * block they used last and fill it without walking; the table is
 * forgotten when it leaves the tree, so a map after the table was freed
 * (munmap's zap and free_pgtables) builds a new one, which a plain query
 * (a full walk) sees, and the table count says so.
 */
static void test_arch_near_table(struct ktest *t)
{
	const uintptr_t A = 0x40000000UL;
	struct arch_mmu *m = arch_mmu_create();
	struct page *f = pmm_alloc(0, 0), *g = pmm_alloc(0, 0);
	struct tlb_batch tlb;
	phys_addr_t got = 0;
	size_t tables;

	ASSERT_TRUE(t, m && f && g);
	EXPECT_EQ(t, arch_mmu_query_near(m, A, NULL, NULL), -ENOENT);
	EXPECT_EQ(t, arch_mmu_map_near(m, A, page_to_phys(f), MMU_READ | MMU_WRITE), 0);
	EXPECT_EQ(t, arch_mmu_map_near(m, A + PAGE_SIZE, page_to_phys(g), MMU_READ), 0);
	EXPECT_EQ(t, arch_mmu_query(m, A + PAGE_SIZE, &got, NULL), 0);
	EXPECT_EQ(t, got, page_to_phys(g));
	EXPECT_EQ(t, arch_mmu_query_near(m, A, &got, NULL), 0);
	EXPECT_EQ(t, got, page_to_phys(f));
	tables = arch_mmu_table_pages(m);
	EXPECT_EQ(t, tables, 4);                                 /* root, PDPT, PD, PT */
	tlb_batch_init(&tlb, m, false);
	EXPECT_EQ(t, arch_mmu_walk(m, A, A + 2 * PAGE_SIZE, clear_visit, NULL, &tlb), 2);
	arch_mmu_free_tables(m, A, A + 2 * PAGE_SIZE, 0, 0, 1, &tlb);
	arch_tlb_flush(&tlb);
	EXPECT_EQ(t, arch_mmu_table_pages(m), tables - 1);       /* the PT went */
	EXPECT_EQ(t, arch_mmu_query_near(m, A, NULL, NULL), -ENOENT);
	EXPECT_EQ(t, arch_mmu_map_near(m, A + 2 * PAGE_SIZE, page_to_phys(f), MMU_READ), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(m), tables);           /* a new PT, not the freed one */
	EXPECT_EQ(t, arch_mmu_query(m, A + 2 * PAGE_SIZE, &got, NULL), 0);
	EXPECT_EQ(t, got, page_to_phys(f));
	arch_mmu_walk(m, A, A + 4 * PAGE_SIZE, clear_visit, NULL, &tlb);
	arch_tlb_flush(&tlb);
	arch_mmu_destroy(m);
	pmm_free(f, 0);
	pmm_free(g, 0);
}

/*
 * The shared-mode pair (arch_mmu_find_empty, arch_mmu_fill_empty): an
 * empty entry of a table that exists is found; a present entry, or no
 * table, is not. A fill after another CPU mapped the entry (arch_mmu_map
 * here) fails and leaves that mapping; a fill that wins counts in its
 * table's entries: when the table's other entries are cleared, freeing
 * the tables of their range keeps the table (an uncounted fill would
 * leave it looking empty, and it would go with the page still in it).
 */
static void test_arch_fill_empty(struct ktest *t)
{
	const uintptr_t A = 0x40000000UL;
	struct arch_mmu *m = arch_mmu_create();
	struct page *f = pmm_alloc(0, 0), *g = pmm_alloc(0, 0);
	struct mmu_empty_slot s, s2;
	struct tlb_batch tlb;
	phys_addr_t got = 0;
	unsigned st = 0;
	size_t tables;

	ASSERT_TRUE(t, m && f && g);
	EXPECT_FALSE(t, arch_mmu_find_empty(m, A, &s));                          /* no table */
	EXPECT_EQ(t, arch_mmu_map(m, A, page_to_phys(f), MMU_READ | MMU_WRITE), 0);
	EXPECT_FALSE(t, arch_mmu_find_empty(m, A, &s));                          /* present */
	EXPECT_FALSE(t, arch_mmu_find_empty(m, A + HUGE_SIZE, &s));              /* no table there */
	ASSERT_TRUE(t, arch_mmu_find_empty(m, A + PAGE_SIZE, &s));
	EXPECT_EQ(t, arch_mmu_map(m, A + PAGE_SIZE, page_to_phys(g), MMU_READ), 0);    /* another CPU first */
	EXPECT_FALSE(t, arch_mmu_fill_empty(&s, page_to_phys(f), MMU_READ | MMU_WRITE));
	EXPECT_EQ(t, arch_mmu_query(m, A + PAGE_SIZE, &got, NULL), 0);
	EXPECT_EQ(t, got, page_to_phys(g));
	ASSERT_TRUE(t, arch_mmu_find_empty(m, A + 2 * PAGE_SIZE, &s2));
	EXPECT_TRUE(t, arch_mmu_fill_empty(&s2, page_to_phys(g), MMU_READ));
	EXPECT_EQ(t, arch_mmu_query(m, A + 2 * PAGE_SIZE, &got, &st), 0);
	EXPECT_EQ(t, got, page_to_phys(g));
	EXPECT_EQ(t, st & MMU_PROT_MASK, MMU_READ);
	tables = arch_mmu_table_pages(m);
	tlb_batch_init(&tlb, m, false);
	EXPECT_EQ(t, arch_mmu_walk(m, A, A + 2 * PAGE_SIZE, clear_visit, NULL, &tlb), 2);
	arch_mmu_free_tables(m, A, A + 2 * PAGE_SIZE, 0, 0, 1, &tlb);
	arch_tlb_flush(&tlb);
	EXPECT_EQ(t, arch_mmu_table_pages(m), tables);           /* the PT still holds the filled entry */
	EXPECT_EQ(t, arch_mmu_query(m, A + 2 * PAGE_SIZE, &got, NULL), 0);
	EXPECT_EQ(t, arch_mmu_walk(m, A, A + 4 * PAGE_SIZE, clear_visit, NULL, &tlb), 1);
	arch_mmu_free_tables(m, A, A + 4 * PAGE_SIZE, 0, 0, 1, &tlb);
	arch_tlb_flush(&tlb);
	EXPECT_EQ(t, arch_mmu_table_pages(m), tables - 1);       /* now empty: it went */
	arch_mmu_destroy(m);
	pmm_free(f, 0);
	pmm_free(g, 0);
}

/*
 * arch_mmu_link_tables, the shared mode's table link: at A it links the
 * PDPT, the page directory and the page table (3 tables beside the root),
 * after which A's entry is found empty; again at A it adds nothing; at A
 * plus 2 MiB only a page table. Each link counts in its parent as the
 * exclusive mode's would: with a page filled at A, freeing the tables of
 * [A + 2 MiB, A + 4 MiB) frees exactly the empty page table there (an
 * uncounted link would leave the page directory looking empty, and it
 * would go with A's table still in it). Not a user address: -EEXIST.
 */
static void test_arch_link_tables(struct ktest *t)
{
	const uintptr_t A = 0x40000000UL;
	struct arch_mmu *m = arch_mmu_create();
	struct page *f = pmm_alloc(0, 0);
	struct mmu_empty_slot s;
	struct tlb_batch tlb;
	phys_addr_t got = 0;

	ASSERT_TRUE(t, m && f);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 1);
	EXPECT_FALSE(t, arch_mmu_find_empty(m, A, &s));
	EXPECT_EQ(t, arch_mmu_link_tables(m, A), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 4);
	ASSERT_TRUE(t, arch_mmu_find_empty(m, A, &s));
	EXPECT_EQ(t, arch_mmu_link_tables(m, A + PAGE_SIZE), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 4);
	EXPECT_EQ(t, arch_mmu_link_tables(m, A + HUGE_SIZE), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 5);
	EXPECT_EQ(t, arch_mmu_link_tables(m, 1UL << 47), -EEXIST);     /* the non-canonical hole */
	EXPECT_TRUE(t, arch_mmu_fill_empty(&s, page_to_phys(f), MMU_READ | MMU_WRITE));
	tlb_batch_init(&tlb, m, false);
	arch_mmu_free_tables(m, A + HUGE_SIZE, A + 2 * HUGE_SIZE, 0, 0, 3, &tlb);
	arch_tlb_flush(&tlb);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 4);
	EXPECT_EQ(t, arch_mmu_query(m, A, &got, NULL), 0);
	EXPECT_EQ(t, got, page_to_phys(f));
	EXPECT_EQ(t, arch_mmu_walk(m, A, A + PAGE_SIZE, clear_visit, NULL, &tlb), 1);
	arch_mmu_free_tables(m, A, A + PAGE_SIZE, 0, 0, 3, &tlb);
	arch_tlb_flush(&tlb);
	EXPECT_EQ(t, arch_mmu_table_pages(m), 1);
	arch_mmu_destroy(m);
	pmm_free(f, 0);
}

/*
 * arch_mmu_unmap_has_work, against the walk it stands for: with one page
 * mapped at A (tables: root, PDPT, PD, PT), a range holding A has work; a
 * range of A's table without an entry has none when the window leaves
 * the table's 2 MiB out (A's VMA stays: the walk could free nothing), and
 * has when the window holds the block (the walk would free an empty
 * table). A range in the next block: none with a window that leaves A's
 * 1 GiB out, some with the window over it all (floor 0, ceiling 0: no VMA
 * around), as the walk would free the PD if it were empty. An empty
 * address space: none.
 */
static void test_arch_unmap_has_work(struct ktest *t)
{
	const uintptr_t A = 0x40000000UL, N = A + HUGE_SIZE;
	struct arch_mmu *m = arch_mmu_create();
	struct page *f = pmm_alloc(0, 0);
	struct tlb_batch tlb;

	ASSERT_TRUE(t, m && f);
	EXPECT_FALSE(t, arch_mmu_unmap_has_work(m, A, A + PAGE_SIZE, 0, 0));
	EXPECT_EQ(t, arch_mmu_map(m, A, page_to_phys(f), MMU_READ | MMU_WRITE), 0);
	EXPECT_TRUE(t, arch_mmu_unmap_has_work(m, A, A + PAGE_SIZE, A, A + PAGE_SIZE));
	EXPECT_FALSE(t, arch_mmu_unmap_has_work(m, A + 8 * PAGE_SIZE, A + 9 * PAGE_SIZE, A + PAGE_SIZE, N));
	EXPECT_TRUE(t, arch_mmu_unmap_has_work(m, A + 8 * PAGE_SIZE, A + 9 * PAGE_SIZE, A, N));
	EXPECT_FALSE(t, arch_mmu_unmap_has_work(m, N, N + 16 * PAGE_SIZE, A + PAGE_SIZE, N + 16 * PAGE_SIZE));
	EXPECT_FALSE(t, arch_mmu_unmap_has_work(m, N, N + 16 * PAGE_SIZE, N, 0));
	EXPECT_TRUE(t, arch_mmu_unmap_has_work(m, N, N + 16 * PAGE_SIZE, 0, 0));
	tlb_batch_init(&tlb, m, false);
	arch_mmu_walk(m, A, A + PAGE_SIZE, clear_visit, NULL, &tlb);
	arch_tlb_flush(&tlb);
	arch_mmu_destroy(m);
	pmm_free(f, 0);
}

static const struct ktest_case mm_vm_cases[] = {
	KTEST_CASE(test_arch_walk_semantics),
	KTEST_CASE(test_arch_near_table),
	KTEST_CASE(test_arch_fill_empty),
	KTEST_CASE(test_arch_link_tables),
	KTEST_CASE(test_arch_unmap_has_work),
	KTEST_CASE(test_munmap_dontneed_mincore),
	KTEST_CASE(test_unmap_frees_tables_like_linux),
	KTEST_CASE(test_mmap_errors),
	KTEST_CASE(test_brk),
	{ 0 },
};
KTEST_SUITE(mm_vm, mm_vm_cases);
