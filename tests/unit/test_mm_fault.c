/*
 * Page faults on one address space: demand paging, the zero page, COW of
 * the zero page, permissions with x86 rules, stack growth and its limits,
 * out of memory. Expected values come from the rules in include/mm.h and
 * Linux's behaviour (each test says which).
 */
#include "test_mm_util.h"
#include "kerrno.h"

#define A0 0x10000000UL               /* a fixed, page-table-fresh base */

static long map_fixed(struct mm *mm, uintptr_t a, size_t len, int prot, int flags)
{
	return vm_mmap(mm, a, len, prot, flags | MAP_FIXED);
}

/*
 * 64 MiB mapped, one byte written every 1 MiB: exactly 64 pages become
 * resident (demand paging allocates nothing else), and each reads back.
 * This tests 4 KiB demand paging, so the range gets MADV_NOHUGEPAGE: under
 * thp=always (the default) a write would otherwise map a 2 MiB page (512
 * pages of rss) and the read at A0 + 4096 would hit the huge page written
 * at A0 instead of mapping the zero page.
 */
static void test_demand_paging_sparse(struct ktest *t)
{
	struct mm *mm = mm_create();
	const size_t len = 64UL << 20;

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, map_fixed(mm, A0, len, UT_RW, UT_PA), (long)A0);
	ASSERT_EQ(t, vm_madvise(mm, A0, len, MADV_NOHUGEPAGE), 0);
	EXPECT_EQ(t, mm->rss, 0);
	for (uintptr_t a = A0; a < A0 + len; a += 1UL << 20)
		EXPECT_EQ(t, ut_write8(mm, a + 5, (uint8_t)(a >> 20)), FAULT_OK);
	EXPECT_EQ(t, mm->rss, 64);
	EXPECT_EQ(t, mm->faults, 64);
	for (uintptr_t a = A0; a < A0 + len; a += 1UL << 20)
		EXPECT_EQ(t, ut_read8(mm, a + 5), (uint8_t)(a >> 20));
	/* A read of an untouched page: zero page, not resident in rss, one more fault. */
	EXPECT_EQ(t, ut_read8(mm, A0 + 4096), 0);
	EXPECT_EQ(t, mm->rss, 64);
	EXPECT_EQ(t, mm->zero_maps, 1);
	EXPECT_EQ(t, mm->faults, 65);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

/* A read maps the shared zero page read-only; the first write copies it (Linux do_anonymous_page + wp). */
static void test_zero_page_then_cow(struct ktest *t)
{
	struct mm *mm = mm_create();
	phys_addr_t pa;

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, map_fixed(mm, A0, 2 * PAGE_SIZE, UT_RW, UT_PA), (long)A0);
	mm->zero_page = true;
	EXPECT_EQ(t, ut_read8(mm, A0), 0);
	EXPECT_EQ(t, ut_pa(mm, A0), mm_zero_page_phys());
	EXPECT_FALSE(t, ut_state(mm, A0) & MMU_WRITE);
	EXPECT_EQ(t, mm->rss, 0);
	/* x86 Linux gives a read-faulted VMA no anon_vma (do_anonymous_page maps the zero page first). */
	EXPECT_EQ(t, ut_vma(mm, A0)->anon, NULL);
	/* A second page reading zeroes shares the same frame. */
	EXPECT_EQ(t, ut_read8(mm, A0 + PAGE_SIZE), 0);
	EXPECT_EQ(t, ut_pa(mm, A0 + PAGE_SIZE), mm_zero_page_phys());
	EXPECT_EQ(t, ut_write8(mm, A0 + 7, 0x42), FAULT_OK);
	pa = ut_pa(mm, A0);
	EXPECT_NE(t, pa, mm_zero_page_phys());
	EXPECT_NE(t, pa, 0);
	EXPECT_TRUE(t, ut_state(mm, A0) & MMU_WRITE);
	EXPECT_EQ(t, mm->rss, 1);
	EXPECT_EQ(t, mm->cow_copies, 1);
	EXPECT_EQ(t, ut_read8(mm, A0 + 7), 0x42);
	EXPECT_EQ(t, ut_read8(mm, A0 + 8), 0);
	/* The zero page itself is untouched. */
	EXPECT_EQ(t, ((uint8_t *)phys_to_virt(mm_zero_page_phys()))[7], 0);
	{
		struct page *p = phys_to_page(pa);

		EXPECT_TRUE(t, p->flags & PG_anon);
		EXPECT_EQ(t, p->refcount, 1);
		EXPECT_EQ(t, p->mapcount, 1);
		EXPECT_EQ(t, p->private, ut_vma(mm, A0)->anon);
	}
	mm_put(mm);
}

/*
 * zero_page off (Linux where mm_forbids_zeropage()): a read fault allocates
 * a zeroed page of the VMA's own, mapped writable and dirty at once because
 * the VMA is writable (do_anonymous_page's own-page path), and the VMA gets
 * its anon identity. The write that follows needs no fault at all.
 */
static void test_read_fault_without_zero_page(struct ktest *t)
{
	struct mm *mm = mm_create();
	struct vma *v;

	ASSERT_TRUE(t, mm);
	mm->zero_page = false;
	ASSERT_EQ(t, map_fixed(mm, A0, 2 * PAGE_SIZE, UT_RW, UT_PA), (long)A0);
	EXPECT_EQ(t, ut_read8(mm, A0), 0);
	EXPECT_NE(t, ut_pa(mm, A0), mm_zero_page_phys());
	EXPECT_EQ(t, ut_state(mm, A0) & (MMU_WRITE | MMU_DIRTY), MMU_WRITE | MMU_DIRTY);
	EXPECT_EQ(t, mm->rss, 1);
	EXPECT_EQ(t, mm->zero_maps, 0);
	v = ut_vma(mm, A0);
	EXPECT_NE(t, v->anon, NULL);
	EXPECT_EQ(t, ut_write8(mm, A0 + 1, 7), FAULT_OK);
	EXPECT_EQ(t, mm->faults, 1);
	EXPECT_EQ(t, mm->cow_copies, 0);
	/* A read-only VMA's page is mapped read-only and clean. */
	ASSERT_EQ(t, map_fixed(mm, A0 + 4 * PAGE_SIZE, PAGE_SIZE, PROT_READ, UT_PA), (long)(A0 + 4 * PAGE_SIZE));
	EXPECT_EQ(t, ut_read8(mm, A0 + 4 * PAGE_SIZE), 0);
	EXPECT_EQ(t, ut_state(mm, A0 + 4 * PAGE_SIZE) & (MMU_WRITE | MMU_DIRTY), 0u);
	EXPECT_EQ(t, mm->rss, 2);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

/*
 * PROT_EXEC alone on hardware with execute-only pages (x86 protection
 * keys: Linux's execute_only_pkey): fetches work, a load or a store is
 * SEGV_PKUERR whether the page is present or not, and the PTE is not
 * readable. Without such hardware the page reads (test_permissions). Once
 * PROT_READ is added the same page reads. On the host both modes run.
 */
static void exec_only_case(struct ktest *t)
{
	struct mm *mm = mm_create();
	uint8_t b;

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, map_fixed(mm, A0, PAGE_SIZE, UT_RW, UT_PA), (long)A0);
	EXPECT_EQ(t, ut_write8(mm, A0, 0xc3), FAULT_OK);
	ASSERT_EQ(t, vm_mprotect(mm, A0, PAGE_SIZE, PROT_EXEC), 0);
	ASSERT_EQ(t, map_fixed(mm, A0 + 2 * PAGE_SIZE, PAGE_SIZE, PROT_EXEC, UT_PA), (long)(A0 + 2 * PAGE_SIZE));
	if (arch_mmu_exec_only()) {
		EXPECT_EQ(t, ut_read8(mm, A0), UT_READ_FAULT(FAULT_SIGSEGV_PKUERR));
		EXPECT_EQ(t, ut_write8(mm, A0, 1), FAULT_SIGSEGV_PKUERR);
		EXPECT_EQ(t, ut_read8(mm, A0 + 2 * PAGE_SIZE), UT_READ_FAULT(FAULT_SIGSEGV_PKUERR));
		EXPECT_EQ(t, ut_state(mm, A0) & MMU_PROT_MASK, MMU_EXEC);
	} else {
		EXPECT_EQ(t, ut_read8(mm, A0), 0xc3);
		EXPECT_EQ(t, ut_write8(mm, A0, 1), FAULT_SIGSEGV_ACCERR);
		EXPECT_EQ(t, ut_read8(mm, A0 + 2 * PAGE_SIZE), 0);
		EXPECT_EQ(t, ut_state(mm, A0) & MMU_PROT_MASK, MMU_READ | MMU_EXEC);
	}
	EXPECT_EQ(t, ut_access(mm, A0, FAULT_EXEC, &b, 1), FAULT_OK);
	EXPECT_EQ(t, b, 0xc3);
	ASSERT_EQ(t, vm_mprotect(mm, A0, PAGE_SIZE, PROT_READ | PROT_EXEC), 0);
	EXPECT_EQ(t, ut_read8(mm, A0), 0xc3);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

/* Run a case with and without execute-only pages: both on the host, the
 * CPU's own mode in the kernel. */
static void in_both_exec_modes(struct ktest *t, void (*run)(struct ktest *))
{
#ifdef HOSTED
	bool saved = hosted_exec_only;

	hosted_exec_only = false;
	run(t);
	hosted_exec_only = true;
	run(t);
	hosted_exec_only = saved;
#else
	run(t);
#endif
}

static void test_exec_only(struct ktest *t)
{
	in_both_exec_modes(t, exec_only_case);
}

/*
 * x86 rules (arch/x86/mm/fault.c access_error): write needs VM_WRITE, an
 * instruction fetch VM_EXEC (NX), a read any access right (-w- and --x
 * read fine, --x not where PROT_EXEC alone is execute-only); PROT_NONE
 * refuses everything; no VMA is MAPERR. Run in both exec modes.
 */
static void permissions_case(struct ktest *t)
{
	struct mm *mm = mm_create();
	uintptr_t r = A0, w = A0 + 0x2000, x = A0 + 0x4000, n = A0 + 0x6000, rw = A0 + 0x8000;
	uint8_t b;

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, map_fixed(mm, r, PAGE_SIZE, PROT_READ, UT_PA), (long)r);
	ASSERT_EQ(t, map_fixed(mm, w, PAGE_SIZE, PROT_WRITE, UT_PA), (long)w);
	ASSERT_EQ(t, map_fixed(mm, x, PAGE_SIZE, PROT_EXEC, UT_PA), (long)x);
	ASSERT_EQ(t, map_fixed(mm, n, PAGE_SIZE, PROT_NONE, UT_PA), (long)n);
	ASSERT_EQ(t, map_fixed(mm, rw, PAGE_SIZE, UT_RW, UT_PA), (long)rw);

	EXPECT_EQ(t, ut_read8(mm, r), 0);
	EXPECT_EQ(t, ut_write8(mm, r, 1), FAULT_SIGSEGV_ACCERR);
	EXPECT_EQ(t, ut_read8(mm, w), 0);                 /* -w- reads */
	EXPECT_EQ(t, ut_write8(mm, w, 1), FAULT_OK);
	/* --x reads, unless PROT_EXEC alone is execute-only (PKU: exec_only_case) */
	EXPECT_EQ(t, ut_read8(mm, x), arch_mmu_exec_only() ? UT_READ_FAULT(FAULT_SIGSEGV_PKUERR) : 0);
	EXPECT_EQ(t, ut_access(mm, x, FAULT_EXEC, &b, 1), FAULT_OK);
	EXPECT_EQ(t, ut_read8(mm, n), UT_READ_FAULT(FAULT_SIGSEGV_ACCERR));
	EXPECT_EQ(t, ut_write8(mm, n, 1), FAULT_SIGSEGV_ACCERR);
	EXPECT_EQ(t, ut_write8(mm, rw, 1), FAULT_OK);
	EXPECT_EQ(t, ut_access(mm, rw, FAULT_EXEC, &b, 1), FAULT_SIGSEGV_ACCERR);   /* NX */
	EXPECT_EQ(t, ut_access(mm, r, FAULT_EXEC, &b, 1), FAULT_SIGSEGV_ACCERR);
	/* Unmapped: the holes between, below, and the kernel half. */
	EXPECT_EQ(t, ut_read8(mm, r + PAGE_SIZE), UT_READ_FAULT(FAULT_SIGSEGV_MAPERR));
	EXPECT_EQ(t, ut_write8(mm, A0 - 1, 1), FAULT_SIGSEGV_MAPERR);
	EXPECT_EQ(t, handle_mm_fault(mm, 0, FAULT_READ | FAULT_USER), FAULT_SIGSEGV_MAPERR);
	EXPECT_EQ(t, handle_mm_fault(mm, 0xffff800000000000UL, FAULT_READ | FAULT_USER), FAULT_SIGSEGV_MAPERR);
	EXPECT_EQ(t, handle_mm_fault(mm, TASK_SIZE, FAULT_WRITE | FAULT_USER), FAULT_SIGSEGV_MAPERR);
	/* PTE permissions: r-- read-only, --x executable, rw- writable and not executable. */
	EXPECT_EQ(t, ut_state(mm, r) & MMU_PROT_MASK, MMU_READ);
	EXPECT_TRUE(t, ut_state(mm, x) & MMU_EXEC);
	EXPECT_EQ(t, ut_state(mm, rw) & MMU_PROT_MASK, MMU_READ | MMU_WRITE);
	mm_put(mm);
}

static void test_permissions(struct ktest *t)
{
	in_both_exec_modes(t, permissions_case);
}

/*
 * Stack growth (Linux expand_downwards): a growsdown VMA grows down to the
 * faulting page while its size stays within RLIMIT_STACK (8 MiB), it
 * keeps stack_guard_gap (1 MiB) from the accessible VMA below, and it
 * stays at or above mmap_min_addr.
 *
 *   S-8M-1p   S-8M            S-2M       S-1M         S-1p   S
 *      |  X     | .....grows........|.......|...........|[stk]|
 *   second case: P ends at S-2M; growth stops 1 MiB above P's end
 */
static void test_stack_growth_limits(struct ktest *t)
{
	const uintptr_t S = 0x7ff000000000UL;
	struct mm *mm = mm_create();
	struct vma *v;

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, map_fixed(mm, S - PAGE_SIZE, PAGE_SIZE, UT_RW, UT_PA | MAP_GROWSDOWN), (long)(S - PAGE_SIZE));
	EXPECT_EQ(t, ut_write8(mm, S - 10 * PAGE_SIZE + 3, 9), FAULT_OK);
	v = ut_vma(mm, S - PAGE_SIZE);
	ASSERT_TRUE(t, v);
	EXPECT_EQ(t, v->start, S - 10 * PAGE_SIZE);
	EXPECT_EQ(t, v->pgoff, (S - 10 * PAGE_SIZE) >> PAGE_SHIFT);
	EXPECT_EQ(t, mm->stack_grows, 1);
	EXPECT_EQ(t, ut_read8(mm, S - 10 * PAGE_SIZE + 3), 9);
	/* Exactly 8 MiB is allowed, one page more is not. */
	EXPECT_EQ(t, ut_write8(mm, S - (8UL << 20), 1), FAULT_OK);
	EXPECT_EQ(t, ut_vma(mm, S - PAGE_SIZE)->start, S - (8UL << 20));
	EXPECT_EQ(t, ut_write8(mm, S - (8UL << 20) - 1, 1), FAULT_SIGSEGV_MAPERR);
	EXPECT_EQ(t, ut_vma(mm, S - PAGE_SIZE)->start, S - (8UL << 20));
	EXPECT_EQ(t, mm->map_count, 1);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);

	mm = mm_create();
	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, map_fixed(mm, S - PAGE_SIZE, PAGE_SIZE, UT_RW, UT_PA | MAP_GROWSDOWN), (long)(S - PAGE_SIZE));
	ASSERT_EQ(t, map_fixed(mm, S - (3UL << 20), 1UL << 20, PROT_READ, UT_PA), (long)(S - (3UL << 20)));
	/* 512 KiB above P's end: inside the guard gap. */
	EXPECT_EQ(t, ut_write8(mm, S - (2UL << 20) + (512UL << 10), 1), FAULT_SIGSEGV_MAPERR);
	/* Exactly 1 MiB above P's end: allowed (gap not smaller than stack_guard_gap). */
	EXPECT_EQ(t, ut_write8(mm, S - (1UL << 20), 1), FAULT_OK);
	EXPECT_EQ(t, ut_vma(mm, S - PAGE_SIZE)->start, S - (1UL << 20));
	EXPECT_EQ(t, ut_write8(mm, S - (1UL << 20) - 1, 1), FAULT_SIGSEGV_MAPERR);
	/* A PROT_NONE neighbour does not keep a gap (vma_is_accessible). */
	ASSERT_EQ(t, vm_mprotect(mm, S - (3UL << 20), 1UL << 20, PROT_NONE), 0);
	EXPECT_EQ(t, ut_write8(mm, S - (2UL << 20) + PAGE_SIZE, 1), FAULT_OK);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);

	/*
	 * Not below mmap_min_addr (64 KiB): a stack two pages above it grows
	 * to it, not one byte lower (expand_downwards' -EPERM: SIGSEGV).
	 */
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, map_fixed(mm, MMAP_MIN_ADDR + 2 * PAGE_SIZE, PAGE_SIZE, UT_RW, UT_PA | MAP_GROWSDOWN),
		  (long)(MMAP_MIN_ADDR + 2 * PAGE_SIZE));
	EXPECT_EQ(t, ut_write8(mm, MMAP_MIN_ADDR - 1, 1), FAULT_SIGSEGV_MAPERR);
	EXPECT_EQ(t, ut_vma(mm, MMAP_MIN_ADDR + 2 * PAGE_SIZE)->start, MMAP_MIN_ADDR + 2 * PAGE_SIZE);
	EXPECT_EQ(t, ut_write8(mm, MMAP_MIN_ADDR, 1), FAULT_OK);
	EXPECT_EQ(t, ut_vma(mm, MMAP_MIN_ADDR + 2 * PAGE_SIZE)->start, MMAP_MIN_ADDR);
	EXPECT_EQ(t, mm->stack_grows, 1);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
}

/* Out of memory in a fault: FAULT_OOM, nothing mapped or counted; the same fault succeeds later. */
static void test_fault_oom_body(struct ktest *t)
{
	struct mm *mm = mm_create();
	struct list_head held;
	enum fault_result r1, r2, r3;
	unsigned long rss;

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, map_fixed(mm, A0, 4 * PAGE_SIZE, UT_RW, UT_PA), (long)A0);
	ASSERT_EQ(t, ut_write8(mm, A0, 1), FAULT_OK);           /* tables and anon identity exist */
	ASSERT_EQ(t, ut_read8(mm, A0 + PAGE_SIZE), 0);          /* a zero-page mapping */
	rss = mm->rss;
	list_init(&held);
	ut_grab_all_frames(&held);
	r1 = handle_mm_fault(mm, A0 + 2 * PAGE_SIZE, FAULT_WRITE | FAULT_USER);
	r2 = handle_mm_fault(mm, A0 + PAGE_SIZE, FAULT_WRITE | FAULT_USER | FAULT_PROT);
	r3 = handle_mm_fault(mm, 0x7f0000000000UL, FAULT_WRITE | FAULT_USER);   /* no VMA: not OOM */
	ut_release_frames(&held);
	EXPECT_EQ(t, r1, FAULT_OOM);
	EXPECT_EQ(t, r2, FAULT_OOM);
	EXPECT_EQ(t, r3, FAULT_SIGSEGV_MAPERR);
	EXPECT_EQ(t, mm->rss, rss);
	EXPECT_EQ(t, ut_pa(mm, A0 + 2 * PAGE_SIZE), 0);
	EXPECT_EQ(t, ut_pa(mm, A0 + PAGE_SIZE), mm_zero_page_phys());
	EXPECT_EQ(t, ut_read8(mm, A0), 1);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	EXPECT_EQ(t, pmm_check(), 0);
	EXPECT_EQ(t, ut_write8(mm, A0 + 2 * PAGE_SIZE, 2), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, A0 + PAGE_SIZE, 3), FAULT_OK);
	EXPECT_EQ(t, ut_read8(mm, A0 + PAGE_SIZE), 3);
	EXPECT_EQ(t, mm->rss, rss + 2);
	mm_put(mm);
}

UT_CASE_WITHOUT_SWAP(test_fault_oom)

/*
 * A write to anonymous memory whose entry is empty, in a VMA that has its
 * anon identity, maps its page in pt_lock's shared mode (anon_fault_shared,
 * counted in faults_pt_shared), also when the 2 MiB block has no page
 * table yet where no huge page may go (MADV_NOHUGEPAGE): the table is
 * linked in shared mode. The VMA's first write (no identity yet), a read,
 * and the first write to a block that may get a huge page (policy
 * "always", the block inside the VMA: thp_fault decides, under the lock)
 * take pt_lock. The pages lie 64 KiB apart, beyond a lab skeleton's
 * fill-ahead of 16 pages, so that no fault here finds its page mapped by an
 * earlier one.
 */
static void test_write_fault_shared_mode(struct ktest *t)
{
	struct mm *mm = mm_create();
	const uintptr_t far = A0 + (4UL << 20), huge = A0 + (16UL << 20);
	enum thp_mode saved = thp_mode;
	unsigned long c;

	ASSERT_TRUE(t, mm);
	thp_mode = THP_ALWAYS;
	ASSERT_EQ(t, map_fixed(mm, A0, 8UL << 20, UT_RW, UT_PA), (long)A0);
	ASSERT_EQ(t, vm_madvise(mm, A0, 8UL << 20, MADV_NOHUGEPAGE), 0);
	c = mm->faults_pt_shared;
	EXPECT_EQ(t, ut_write8(mm, A0, 1), FAULT_OK);
	EXPECT_EQ(t, mm->faults_pt_shared, c);
	EXPECT_EQ(t, ut_write8(mm, A0 + 0x10000, 2), FAULT_OK);
	EXPECT_EQ(t, mm->faults_pt_shared, c + 1);
	EXPECT_EQ(t, ut_read8(mm, A0 + 0x20000), 0);
	EXPECT_EQ(t, mm->faults_pt_shared, c + 1);
	EXPECT_EQ(t, ut_write8(mm, far, 3), FAULT_OK);          /* no table there yet */
	EXPECT_EQ(t, mm->faults_pt_shared, c + 2);
	EXPECT_EQ(t, ut_write8(mm, far + 0x10000, 4), FAULT_OK);
	EXPECT_EQ(t, mm->faults_pt_shared, c + 3);
	EXPECT_EQ(t, ut_read8(mm, A0), 1);
	EXPECT_EQ(t, ut_read8(mm, A0 + 0x10000), 2);
	EXPECT_EQ(t, ut_read8(mm, far), 3);
	EXPECT_EQ(t, ut_read8(mm, far + 0x10000), 4);

	/* A block that may get a huge page: its first write is thp_fault's (locked), whatever it maps. */
	ASSERT_EQ(t, map_fixed(mm, huge, 4UL << 20, UT_RW, UT_PA), (long)huge);
	EXPECT_EQ(t, ut_write8(mm, huge, 5), FAULT_OK);
	EXPECT_EQ(t, ut_write8(mm, huge + HUGE_SIZE, 6), FAULT_OK);
	EXPECT_EQ(t, mm->faults_pt_shared, c + 3);
	EXPECT_EQ(t, ut_read8(mm, huge), 5);
	EXPECT_EQ(t, ut_read8(mm, huge + HUGE_SIZE), 6);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
	thp_mode = saved;
}

/* Everything an address space allocated comes back when it is destroyed. */
static void test_teardown_frees_everything(struct ktest *t)
{
	size_t frames, vmas, anons, objs;
	struct mm *mm, *child;

	ut_warm_up();
	frames = ut_free_frames();
	vmas = vma_objects_inuse();
	anons = anon_identity_inuse();
	objs = vm_object_inuse();

	mm = mm_create();
	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, map_fixed(mm, A0, 1UL << 20, UT_RW, UT_PA), (long)A0);
	ASSERT_EQ(t, map_fixed(mm, 0x500000000000UL, 8 * PAGE_SIZE, UT_RW, UT_SA), 0x500000000000L);
	for (uintptr_t a = A0; a < A0 + (1UL << 20); a += 3 * PAGE_SIZE)
		ut_write8(mm, a, 1);
	ut_read8(mm, A0 + PAGE_SIZE);
	ut_write8(mm, 0x500000000000UL + PAGE_SIZE, 5);
	EXPECT_EQ(t, vm_mprotect(mm, A0 + 0x10000, 0x10000, PROT_READ), 0);
	EXPECT_GT(t, arch_mmu_table_pages(mm->mmu), 1);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	ut_write8(child, A0, 2);
	ut_write8(child, A0 + 0x20000, 2);
	EXPECT_EQ(t, vm_munmap(mm, A0 + 0x40000, 0x10000), 0);
	mm_put(mm);
	EXPECT_EQ(t, ut_read8(child, 0x500000000000UL + PAGE_SIZE), 5);
	mm_put(child);

	EXPECT_EQ(t, ut_free_frames(), frames);
	EXPECT_EQ(t, vma_objects_inuse(), vmas);
	EXPECT_EQ(t, anon_identity_inuse(), anons);
	EXPECT_EQ(t, vm_object_inuse(), objs);
	EXPECT_EQ(t, pmm_check(), 0);
}

static const struct ktest_case mm_fault_cases[] = {
	KTEST_CASE(test_demand_paging_sparse),
	KTEST_CASE(test_zero_page_then_cow),
	KTEST_CASE(test_permissions),
	KTEST_CASE(test_read_fault_without_zero_page),
	KTEST_CASE(test_exec_only),
	KTEST_CASE(test_stack_growth_limits),
	KTEST_CASE(test_fault_oom),
	KTEST_CASE(test_write_fault_shared_mode),
	KTEST_CASE(test_teardown_frees_everything),
	{ 0 },
};
KTEST_SUITE(mm_fault, mm_fault_cases);
