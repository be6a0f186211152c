/*
 * Anonymous pages in swap (mm/swap_pte.c, the swap rounds of mm/vmscan.c
 * and mm/vmscan_lru.c),
 * on a RAM-disk swap area, host and kernel: MADV_PAGEOUT writes private
 * pages out and a fault reads them back (a major fault); fork shares the
 * slots, mremap moves the entries, mprotect keeps them, munmap and
 * MADV_FREE free them; reclaim swaps cold pages out after the lazily
 * freed ones; a page written while its copy was being made is kept.
 *
 * Expected values follow Linux's rules, written beside each check
 * (do_swap_page, copy_nonpresent_pte, zap_pte_range,
 * madvise_free_pte_range, shrink_folio_list), and the slot counts the
 * contract of include/swap.h.
 */
#include "test_mm_util.h"
#include "rmap.h"
#include "swap.h"
#include "blockdev.h"
#include "vmscan.h"
#include "vmstat.h"
#include "kerrno.h"
#include "lru.h"
#include "fs.h"
#include "test_fs_util.h"

#define B  0x40000000UL
#define P(n) ((uintptr_t)(n) << PAGE_SHIFT)
#define AREA_PAGES 64

struct swap_env {
	struct blockdev *dev;
	int type;
	unsigned long free0;          /* free slots of every area before the test */
	unsigned long out0, in0, maj0;
};

static bool env_up(struct ktest *t, struct swap_env *e)
{
	if (swap_total_pages()) {
		/* An area a failed test left on (env_down): slots would come from it. */
		ktest_skip(t, "a swap area a failed test left is still on");
		return false;
	}
	e->dev = ramdisk_create((uint64_t)AREA_PAGES * SWAP_SECTORS_PER_SLOT);
	EXPECT_TRUE(t, e->dev != NULL);
	if (!e->dev)
		return false;
	e->type = swap_on(e->dev);
	if (e->type < 0) {
		ramdisk_destroy(e->dev);
		EXPECT_GE(t, e->type, 0);
		return false;
	}
	e->free0 = swap_free_pages();
	e->out0 = vm_event_sum(VM_PSWPOUT);
	e->in0 = vm_event_sum(VM_PSWPIN);
	e->maj0 = vm_event_sum(VM_PGMAJFAULT);
	return true;
}

static void env_down(struct ktest *t, struct swap_env *e)
{
	int err;

	EXPECT_EQ(t, swap_free_pages(), e->free0);      /* every slot the test used is free again */
	err = swap_off((unsigned)e->type);
	EXPECT_EQ(t, err, 0);
	/* A failed test may leave slots taken: the area (and its disk) then stays, so the next test's starts clean. */
	if (!err)
		ramdisk_destroy(e->dev);
}

/* n private pages at B, page i holding 0x20 + i at offset 0 and at offset 100. */
static struct mm *written_mm(struct ktest *t, unsigned n)
{
	struct mm *mm = mm_create();

	if (!mm)
		return NULL;
	EXPECT_EQ(t, vm_mmap(mm, B, P(n), UT_RW, UT_PA | MAP_FIXED), (long)B);
	for (unsigned i = 0; i < n; i++) {
		EXPECT_EQ(t, ut_write8(mm, B + P(i), (uint8_t)(0x20 + i)), FAULT_OK);
		EXPECT_EQ(t, ut_write8(mm, B + P(i) + 100, (uint8_t)(0x20 + i)), FAULT_OK);
	}
	return mm;
}

static bool data_ok(struct mm *mm, unsigned i)
{
	return ut_read8(mm, B + P(i)) == 0x20 + (int)i && ut_read8(mm, B + P(i) + 100) == 0x20 + (int)i;
}

/*
 * MADV_PAGEOUT with a swap area writes every page only this mapping holds
 * (references ignored), in consecutive slots; mincore says 0 (not in the
 * swap cache: only shared pages go there); reading the first page back is one major
 * fault that reads the seven after it too (readahead: their entries hold
 * the next slots), and frees every slot.
 */
static void test_pageout_and_fault_back_body(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;
	unsigned char vec[8];
	size_t frames;

	ut_warm_up();
	if (!env_up(t, &e))             /* (the first area on makes the staging buffer, for good) */
		return;
	env_down(t, &e);
	frames = ut_free_frames();
	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 8);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_madvise(mm, B, P(8), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, mm->rss, 0);
	EXPECT_EQ(t, mm->swap_ents, 8);
	UT_EXPECT_DRAWING(mm, B, "AAAAAAAA", "wwwwwwww", "ssssssss");   /* every entry a swap entry */
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 8);
	EXPECT_EQ(t, e.free0 - swap_free_pages(), 8);
	EXPECT_EQ(t, vm_mincore(mm, B, P(8), vec), 0);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_EQ(t, vec[i], 0);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_TRUE(t, data_ok(mm, i));
	EXPECT_EQ(t, mm->rss, 8);
	EXPECT_EQ(t, mm->swap_ents, 0);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPIN) - e.in0, 8);
	EXPECT_EQ(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 1);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
	env_down(t, &e);                /* (the RAM disk's own pages go with it) */
	EXPECT_EQ(t, ut_free_frames(), frames);
}

UT_CASE_WITHOUT_SWAP(test_pageout_and_fault_back)

/*
 * fork copies the swap entries (copy_nonpresent_pte: each slot gains a
 * reference); each side that reads the pages back gets copies of its own
 * and drops its references (readahead goes forward: the child's write of
 * page 1 reads pages 1..3, its read of page 0 page 0); munmap drops the
 * rest (zap_pte_range).
 */
static void test_fork_shares_slots_body(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm, *child;
	phys_addr_t val = 0;

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 4);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_madvise(mm, B, P(4), MADV_PAGEOUT), 0);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	EXPECT_EQ(t, child->swap_ents, 4);
	EXPECT_EQ(t, arch_mmu_query(child->mmu, B, &val, NULL), -EAGAIN);
	EXPECT_EQ(t, swap_slot_count((swp_entry_t){ val }), 2);
	EXPECT_EQ(t, ut_write8(child, B + P(1), 0x77), FAULT_OK);     /* a write reads it back too */
	EXPECT_EQ(t, ut_read8(child, B + P(1)), 0x77);
	EXPECT_EQ(t, child->swap_ents, 1);
	EXPECT_EQ(t, swap_slot_count((swp_entry_t){ val }), 2);
	EXPECT_TRUE(t, data_ok(child, 0));
	EXPECT_EQ(t, child->swap_ents, 0);
	EXPECT_EQ(t, swap_slot_count((swp_entry_t){ val }), 1);
	EXPECT_EQ(t, mm->swap_ents, 4);
	EXPECT_EQ(t, e.free0 - swap_free_pages(), 4);      /* the parent's still */
	EXPECT_EQ(t, vm_munmap(mm, B + P(2), P(2)), 0);
	EXPECT_EQ(t, mm->swap_ents, 2);
	EXPECT_EQ(t, e.free0 - swap_free_pages(), 2);
	EXPECT_TRUE(t, data_ok(mm, 0));
	EXPECT_TRUE(t, data_ok(mm, 1));
	EXPECT_EQ(t, swap_slot_count((swp_entry_t){ val }), 0);
	EXPECT_EQ(t, mm->swap_ents, 0);
	mm_put(child);
	mm_put(mm);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_fork_shares_slots)

/*
 * mremap moves swap entries with the range (move_ptes), mprotect leaves
 * them (the VMA's rights apply when the page comes back), MADV_FREE frees
 * them (madvise_free_pte_range: the page then reads zero), munmap too.
 */
static void test_mremap_mprotect_free_body(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;
	const uintptr_t to = B + P(100);

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 4);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_madvise(mm, B, P(4), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, vm_mremap(mm, B, P(4), P(4), MREMAP_MAYMOVE | MREMAP_FIXED, to), (long)to);
	EXPECT_EQ(t, mm->swap_ents, 4);
	EXPECT_EQ(t, e.free0 - swap_free_pages(), 4);
	EXPECT_EQ(t, vm_mprotect(mm, to, P(4), PROT_READ), 0);
	EXPECT_EQ(t, ut_read8(mm, to + P(2)), 0x22);        /* reads 2 and 3 */
	EXPECT_EQ(t, mm->swap_ents, 2);
	EXPECT_EQ(t, ut_write8(mm, to + P(3), 1), FAULT_SIGSEGV_ACCERR);
	EXPECT_EQ(t, vm_mprotect(mm, to, P(4), UT_RW), 0);
	EXPECT_EQ(t, vm_madvise(mm, to, P(2), MADV_FREE), 0);
	EXPECT_EQ(t, mm->swap_ents, 0);                     /* pages 0 and 1 freed */
	EXPECT_EQ(t, ut_read8(mm, to), 0);
	EXPECT_EQ(t, ut_read8(mm, to + P(3) + 100), 0x23);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_mremap_mprotect_free)

/*
 * Reclaim takes lazily freed pages first (no I/O), then, when a swap
 * area has room, cold anonymous pages: written pages are referenced, so
 * the first swap round only clears their accessed bits and the second
 * writes them out.
 */
static void test_reclaim_swaps_cold_pages_body(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;
	unsigned long lazy0 = vm_event_sum(VM_PGLAZYFREED), steal0 = vm_event_sum(VM_PGSTEAL_KSWAPD);

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 16);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_madvise(mm, B + P(12), P(4), MADV_FREE), 0);
	EXPECT_EQ(t, mm_reclaim(10, RECLAIM_KSWAPD), 10);
	EXPECT_EQ(t, vm_event_sum(VM_PGLAZYFREED) - lazy0, 4);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 6);
	EXPECT_EQ(t, vm_event_sum(VM_PGSTEAL_KSWAPD) - steal0, 10);
	EXPECT_EQ(t, mm->swap_ents, 6);
	EXPECT_EQ(t, mm->rss, 6);
	for (unsigned i = 0; i < 12; i++)
		EXPECT_TRUE(t, data_ok(mm, i));
	EXPECT_EQ(t, ut_read8(mm, B + P(12)), 0);           /* lazily freed: dropped */
	mm_put(mm);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_reclaim_swaps_cold_pages)

/*
 * WITH_RECLAIM(name, lru): name's body is name_run, run with reclaim
 * taking its swap victims from the LRU lists (lru: the kernel option
 * reclaim=lru, the default) or by the page-table clock
 * (reclaim=scan), whatever the boot chose: these cases check an order.
 */
#define WITH_RECLAIM(name, lru)                         \
	static void name##_body(struct ktest *t)        \
	{                                               \
		bool was = vmscan_reclaim_lru;          \
		vmscan_reclaim_lru = lru;               \
		name##_run(t);                          \
		vmscan_reclaim_lru = was;               \
	}

/*
 * The page-table clock (reclaim=scan) and the LRU lists
 * (include/lru.h): eight pages written (new pages
 * start inactive; writing sets their accessed bits). mm_reclaim(1): the
 * first swap round finds all eight referenced: each loses its accessed
 * bit and is promoted to the active list; the second round takes page 0,
 * unreferenced now, and writes it out (freed: it leaves the active list).
 * So seven pages more are active than before and none more inactive;
 * page 0, read back, is a new page and starts inactive.
 */
static void test_scan_promotes_referenced_run(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;
	unsigned long act0 = lru_list_pages(LRU_ACTIVE_ANON), inact0 = lru_list_pages(LRU_INACTIVE_ANON);

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 8);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, lru_list_pages(LRU_INACTIVE_ANON) - inact0, 8);
	EXPECT_EQ(t, mm_reclaim(1, RECLAIM_KSWAPD), 1);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 1);
	EXPECT_EQ(t, ut_pa(mm, B), 0);
	EXPECT_EQ(t, lru_list_pages(LRU_ACTIVE_ANON) - act0, 7);
	EXPECT_EQ(t, lru_list_pages(LRU_INACTIVE_ANON), inact0);
	for (unsigned i = 1; i < 8; i++)
		EXPECT_EQ(t, lru_page_list(phys_to_page(ut_pa(mm, B + P(i)))), LRU_ACTIVE_ANON);
	EXPECT_TRUE(t, data_ok(mm, 0));
	EXPECT_EQ(t, lru_page_list(phys_to_page(ut_pa(mm, B))), LRU_INACTIVE_ANON);
	mm_put(mm);
	EXPECT_EQ(t, lru_list_pages(LRU_ACTIVE_ANON), act0);
	EXPECT_EQ(t, lru_list_pages(LRU_INACTIVE_ANON), inact0);
	env_down(t, &e);
}

WITH_RECLAIM(test_scan_promotes_referenced, false)
UT_CASE_WITHOUT_SWAP(test_scan_promotes_referenced)

/* The LRU list that the page at va of mm is on (-1: none, or not present). */
static int list_of(struct mm *mm, uintptr_t va)
{
	phys_addr_t pa = ut_pa(mm, va);

	return pa ? lru_page_list(phys_to_page(pa)) : -1;
}

/*
 * Aging on the LRU lists (include/lru.h, mm/vmscan_lru.c: Linux's
 * folio_check_references). Eight pages written, 0 first: they start
 * inactive, 0 at the tail, each with its accessed bit set by its write.
 * mm_reclaim(1): the first swap round finds all eight referenced by one
 * entry for the first time: each is kept (second chance: bit cleared,
 * PG_referenced set, back to the head, so 0 is at the tail again); the
 * second round takes page 0, unreferenced now, and writes it out; 1..7
 * are not looked at (enough was freed) and stay where they were. Then
 * pages 1..3 are read again (their second reference) and mm_reclaim(1)
 * again: 1, 2, 3 at the tail are referenced after a first reference:
 * promoted to the active list (pgactivate 3); 4 is not: written out,
 * which meets the want, so 5..7 stay inactive. Page 0, read back, is a
 * new page and starts inactive.
 */
static void test_reclaim_promotes_referenced_run(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;
	unsigned long act0 = lru_list_pages(LRU_ACTIVE_ANON), inact0 = lru_list_pages(LRU_INACTIVE_ANON);
	unsigned long activate0 = vm_event_sum(VM_PGACTIVATE);

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 8);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, lru_list_pages(LRU_INACTIVE_ANON) - inact0, 8);
	EXPECT_EQ(t, mm_reclaim(1, RECLAIM_KSWAPD), 1);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 1);
	EXPECT_EQ(t, ut_pa(mm, B), 0);
	EXPECT_EQ(t, lru_list_pages(LRU_ACTIVE_ANON), act0);
	EXPECT_EQ(t, lru_list_pages(LRU_INACTIVE_ANON) - inact0, 7);
	for (unsigned i = 1; i < 8; i++)
		EXPECT_FALSE(t, ut_state(mm, B + P(i)) & MMU_ACCESSED);
	for (unsigned i = 1; i < 4; i++)
		EXPECT_EQ(t, ut_read8(mm, B + P(i)), 0x20 + (int)i);
	EXPECT_EQ(t, mm_reclaim(1, RECLAIM_KSWAPD), 1);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 2);
	EXPECT_EQ(t, vm_event_sum(VM_PGACTIVATE) - activate0, 3);
	EXPECT_EQ(t, lru_list_pages(LRU_ACTIVE_ANON) - act0, 3);
	EXPECT_EQ(t, lru_list_pages(LRU_INACTIVE_ANON) - inact0, 3);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_EQ(t, list_of(mm, B + P(i)), i == 0 || i == 4 ? -1 : i < 4 ? LRU_ACTIVE_ANON : LRU_INACTIVE_ANON);
	EXPECT_TRUE(t, data_ok(mm, 0));
	EXPECT_TRUE(t, data_ok(mm, 4));
	EXPECT_EQ(t, list_of(mm, B), LRU_INACTIVE_ANON);
	mm_put(mm);
	EXPECT_EQ(t, lru_list_pages(LRU_ACTIVE_ANON), act0);
	EXPECT_EQ(t, lru_list_pages(LRU_INACTIVE_ANON), inact0);
	env_down(t, &e);
}

WITH_RECLAIM(test_reclaim_promotes_referenced, true)
UT_CASE_WITHOUT_SWAP(test_reclaim_promotes_referenced)

/*
 * Reclaim takes the pages not used lately, wherever they sit: set A
 * (pages 0..7) is written before set B (8..15), so A is nearer the
 * inactive list's tail. MADV_COLD over both clears every accessed bit
 * (they stay inactive, in that order); then A is read. mm_reclaim(8),
 * as many pages as B holds: A's pages, at the tail, are referenced (for
 * the first time: kept, to the head); B's are not: all eight written
 * out, and nothing of A. Taking from the tail without the reference test
 * (FIFO) would take A; a scan from the lowest address without aging
 * would take A too. Every page reads back its data.
 */
static void test_reclaim_spares_touched_set_run(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;
	unsigned long scan0 = vm_event_sum(VM_PGSCAN_KSWAPD), steal0 = vm_event_sum(VM_PGSTEAL_KSWAPD);

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 16);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_madvise(mm, B, P(16), MADV_COLD), 0);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_EQ(t, ut_read8(mm, B + P(i)), 0x20 + (int)i);
	EXPECT_EQ(t, mm_reclaim(8, RECLAIM_KSWAPD), 8);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 8);
	EXPECT_EQ(t, vm_event_sum(VM_PGSTEAL_KSWAPD) - steal0, 8);
	EXPECT_GE(t, vm_event_sum(VM_PGSCAN_KSWAPD) - scan0, 16);     /* A's 8 and B's 8 looked at (and what else is older) */
	EXPECT_EQ(t, mm->swap_ents, 8);
	for (unsigned i = 0; i < 16; i++)
		EXPECT_EQ(t, ut_pa(mm, B + P(i)) != 0, i < 8);
	for (unsigned i = 0; i < 16; i++)
		EXPECT_TRUE(t, data_ok(mm, i));
	mm_put(mm);
	env_down(t, &e);
}

WITH_RECLAIM(test_reclaim_spares_touched_set, true)
UT_CASE_WITHOUT_SWAP(test_reclaim_spares_touched_set)

/*
 * Victims are written in address order, whatever their order on the list
 * (mm/vmscan_lru.c, sort_by_address). Eight pages written in the order
 * 0 4 1 5 2 6 3 7, so the inactive list holds them in that order from its
 * tail, as kswapd on another CPU leaves a sequential writer's pages
 * (the pages it kept and the new ones reach the head interleaved).
 * mm_reclaim(8): the first swap round keeps all eight (referenced once,
 * back to the head in the same order), the second writes all eight out
 * as one batch: page i's entry must hold the first slot + i, so that
 * reading page 0 back is one major fault that reads the seven after it
 * too (readahead takes the next slots at the next addresses). In list
 * order page 1 would hold the first slot + 2, and the read would bring
 * one page.
 */
static void test_reclaim_writes_in_address_order_run(struct ktest *t)
{
	static const unsigned order[8] = { 0, 4, 1, 5, 2, 6, 3, 7 };
	struct swap_env e;
	struct mm *mm = mm_create();
	phys_addr_t val0 = 0;

	ASSERT_TRUE(t, mm);
	if (!env_up(t, &e)) {
		mm_put(mm);
		return;
	}
	EXPECT_EQ(t, vm_mmap(mm, B, P(8), UT_RW, UT_PA | MAP_FIXED), (long)B);
	for (unsigned k = 0; k < 8; k++) {
		unsigned i = order[k];

		EXPECT_EQ(t, ut_write8(mm, B + P(i), (uint8_t)(0x20 + i)), FAULT_OK);
		EXPECT_EQ(t, ut_write8(mm, B + P(i) + 100, (uint8_t)(0x20 + i)), FAULT_OK);
	}
	EXPECT_EQ(t, mm_reclaim(8, RECLAIM_KSWAPD), 8);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 8);
	ASSERT_EQ(t, arch_mmu_query(mm->mmu, B, &val0, NULL), -EAGAIN);
	for (unsigned i = 1; i < 8; i++) {
		phys_addr_t val = 0;

		EXPECT_EQ(t, arch_mmu_query(mm->mmu, B + P(i), &val, NULL), -EAGAIN);
		EXPECT_EQ(t, val, val0 + i);
	}
	EXPECT_TRUE(t, data_ok(mm, 0));
	EXPECT_EQ(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 1);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPIN) - e.in0, 8);
	for (unsigned i = 1; i < 8; i++)
		EXPECT_TRUE(t, data_ok(mm, i));
	EXPECT_EQ(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 1);
	mm_put(mm);
	env_down(t, &e);
}

WITH_RECLAIM(test_reclaim_writes_in_address_order, true)
UT_CASE_WITHOUT_SWAP(test_reclaim_writes_in_address_order)

/*
 * shrink_active_list: eight pages written and moved to the active list
 * (lru_activate, as a second reference would), so the inactive list is
 * low against the active one (Linux's inactive_is_low; below 1 GiB the
 * ratio is 1: inactive < active). mm_reclaim(2) first moves a batch (32
 * at most: all eight) from the active tail to the inactive head, clearing
 * their accessed bits (pgdeactivate 8); the inactive tail is then page 0
 * (activated first, so the active tail), then 1: unreferenced, both
 * written out. The other six stay inactive.
 */
static void test_active_refills_inactive_run(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;
	unsigned long act0 = lru_list_pages(LRU_ACTIVE_ANON), inact0 = lru_list_pages(LRU_INACTIVE_ANON);
	unsigned long deact0 = vm_event_sum(VM_PGDEACTIVATE);

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 8);
	ASSERT_TRUE(t, mm);
	lru_drain_all();
	for (unsigned i = 0; i < 8; i++)
		lru_activate(phys_to_page(ut_pa(mm, B + P(i))));
	EXPECT_EQ(t, lru_list_pages(LRU_ACTIVE_ANON) - act0, 8);
	if (inact0 >= act0 + 8) {
		/* older pages (a page cache's) keep the inactive list long: the case needs it short */
		ktest_skip(t, "the inactive list holds other pages");
		mm_put(mm);
		env_down(t, &e);
		return;
	}
	EXPECT_EQ(t, mm_reclaim(2, RECLAIM_KSWAPD), 2);
	EXPECT_EQ(t, vm_event_sum(VM_PGDEACTIVATE) - deact0, 8);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 2);
	EXPECT_EQ(t, lru_list_pages(LRU_ACTIVE_ANON), act0);
	EXPECT_EQ(t, lru_list_pages(LRU_INACTIVE_ANON) - inact0, 6);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_EQ(t, list_of(mm, B + P(i)), i < 2 ? -1 : LRU_INACTIVE_ANON);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_TRUE(t, data_ok(mm, i));
	mm_put(mm);
	env_down(t, &e);
}

WITH_RECLAIM(test_active_refills_inactive, true)
UT_CASE_WITHOUT_SWAP(test_active_refills_inactive)

/* A page dirtied after its entry was cleaned is not unmapped (its copy would be stale); an I/O error keeps the page. */
static void test_swap_out_refusals_body(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;
	struct page *p;
	phys_addr_t pa;

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 2);
	ASSERT_TRUE(t, mm);
	pa = ut_pa(mm, B);
	ASSERT_NE(t, pa, 0);
	p = phys_to_page(pa);
	user_page_get(p);                       /* as reclaim holds it */
	mmap_read_lock(mm);
	EXPECT_EQ(t, mm_swap_out_page(mm, B, p), -EBUSY);   /* the entry is still dirty from the write */
	mmap_read_unlock(mm);
	user_page_put(p);
	EXPECT_EQ(t, mm->swap_ents, 0);
	EXPECT_TRUE(t, data_ok(mm, 0));
	ramdisk_fail_next(e.dev, 1);
	EXPECT_EQ(t, vm_madvise(mm, B, P(2), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, mm->swap_ents, 0);                     /* their one write failed: both stayed */
	EXPECT_EQ(t, ut_pa(mm, B), pa);
	EXPECT_EQ(t, vm_madvise(mm, B, P(2), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, mm->swap_ents, 2);
	ramdisk_fail_next(e.dev, 1);
	EXPECT_EQ(t, ut_read8(mm, B + P(1)), UT_READ_FAULT(FAULT_SIGBUS));
	EXPECT_TRUE(t, data_ok(mm, 1));                     /* the entry stays: a later read works */
	EXPECT_TRUE(t, data_ok(mm, 0));
	mm_put(mm);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_swap_out_refusals)

/* mincore of the n pages at B into vec. */
static void residency(struct ktest *t, struct mm *mm, unsigned n, unsigned char *vec)
{
	EXPECT_EQ(t, vm_mincore(mm, B, P(n), vec), 0);
}

/*
 * MADV_COLD takes the accessed bit off the pages only this mapping holds
 * (madvise_cold_or_pageout_pte_range: pte_mkold, then deactivation), so
 * reclaim's first swap pass takes them at once, while the pages used
 * before it get their second chance: asked for 4 pages, reclaim swaps
 * exactly the 4 cold ones (8..11). Without the advice, the first pass
 * would only clear the bits of all 16 and the second would take 0..3
 * (the hand starts at the mm's lowest address). The same on the LRU
 * lists (_lru): 0..7, at the inactive tail, are referenced for the first
 * time (kept: their second chance), 8..11 are not (taken), 12..15 are
 * not looked at; FIFO would take 0..3 there too.
 */
static void test_cold_loses_second_chance_run(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;
	unsigned char vec[16];

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 16);
	ASSERT_TRUE(t, mm);
	for (unsigned i = 0; i < 16; i++)
		EXPECT_TRUE(t, ut_state(mm, B + P(i)) & MMU_ACCESSED);     /* the writes used every page */
	EXPECT_EQ(t, vm_madvise(mm, B + P(8), P(4), MADV_COLD), 0);
	EXPECT_FALSE(t, ut_state(mm, B + P(8)) & MMU_ACCESSED);
	EXPECT_TRUE(t, ut_state(mm, B + P(7)) & MMU_ACCESSED);
	EXPECT_EQ(t, mm_reclaim(4, RECLAIM_KSWAPD), 4);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 4);
	residency(t, mm, 16, vec);
	for (unsigned i = 0; i < 16; i++)
		EXPECT_EQ(t, vec[i], i >= 8 && i < 12 ? 0 : 1);
	for (unsigned i = 0; i < 16; i++)
		EXPECT_TRUE(t, data_ok(mm, i));
	EXPECT_EQ(t, mm->swap_ents, 0);
	mm_put(mm);
	env_down(t, &e);
}

WITH_RECLAIM(test_cold_loses_second_chance, false)
UT_CASE_WITHOUT_SWAP(test_cold_loses_second_chance)

static void test_cold_loses_second_chance_lru_run(struct ktest *t)
{
	test_cold_loses_second_chance_run(t);
}

WITH_RECLAIM(test_cold_loses_second_chance_lru, true)
UT_CASE_WITHOUT_SWAP(test_cold_loses_second_chance_lru)

/*
 * MADV_WILLNEED on swapped pages reads them back before they are used
 * (force_swapin_readahead: each swap entry in the range, and only those),
 * without a fault: pswpin counts them, pgmajfault does not, and mincore
 * says 1 (Linux: in its swap cache; here mapped). The pages outside the
 * range stay in swap until touched (one major fault each run).
 */
static void test_willneed_reads_back_body(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;
	unsigned char vec[8];

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 8);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_madvise(mm, B, P(8), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, mm->swap_ents, 8);
	EXPECT_EQ(t, vm_madvise(mm, B + P(2), P(4), MADV_WILLNEED), 0);
	EXPECT_EQ(t, mm->swap_ents, 4);
	EXPECT_EQ(t, mm->rss, 4);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPIN) - e.in0, 4);
	EXPECT_EQ(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 0);
	residency(t, mm, 8, vec);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_EQ(t, vec[i], i >= 2 && i < 6 ? 1 : 0);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_TRUE(t, data_ok(mm, i));
	EXPECT_EQ(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 2);  /* pages 0-1 in one read, 6-7 in another */
	EXPECT_EQ(t, mm->swap_ents, 0);
	mm_put(mm);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_willneed_reads_back)

/*
 * Pages fork left in two address spaces go to swap through the swap
 * cache (mm/swap_cache.c) and the reverse map (mm/rmap.c): the first
 * reclaim rounds clear every accessed bit (second chance), then whichever
 * address space the clock reaches first offers its 8 read-only entries:
 * each page is written once (8 pswpout), cached, and every entry that maps
 * it, in both address spaces, becomes a swap entry of its slot (Linux's
 * try_to_unmap walks the anon_vma of the parent, whose family holds the
 * child's VMA). No entry maps the pages then: the cache lets them go and
 * the 8 frames are free at once (the RAM disk keeps the 8 written pages in
 * frames of its own), mincore says 0 in both. Both read their data back
 * from the slots (major faults, 16 pswpin: each reads its own copy), and
 * every slot is free at the end.
 */
static void test_shared_pages_swap_cache_body(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm, *child;
	unsigned char vec[8];
	size_t frames;

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 8);
	ASSERT_TRUE(t, mm);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	frames = ut_free_frames();
	EXPECT_EQ(t, mm_reclaim(8, RECLAIM_KSWAPD), 8);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 8);
	EXPECT_EQ(t, mm->swap_ents, 8);
	EXPECT_EQ(t, child->swap_ents, 8);
	EXPECT_EQ(t, mm->rss + child->rss, 0);
	EXPECT_EQ(t, swap_cache_pages(), 0);
	EXPECT_EQ(t, e.free0 - swap_free_pages(), 8);
	EXPECT_EQ(t, ut_free_frames(), frames);            /* the 8 shared frames back, the disk's 8 taken */
	residency(t, mm, 8, vec);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_EQ(t, vec[i], 0);
	residency(t, child, 8, vec);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_EQ(t, vec[i], 0);
	for (unsigned i = 0; i < 8; i++) {
		EXPECT_TRUE(t, data_ok(child, i));
		EXPECT_TRUE(t, data_ok(mm, i));
	}
	EXPECT_EQ(t, vm_event_sum(VM_PSWPIN) - e.in0, 16);
	EXPECT_EQ(t, mm->swap_ents + child->swap_ents, 0);
	mm_put(child);
	mm_put(mm);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_shared_pages_swap_cache)

/*
 * try_to_unmap_swapcache (mm/rmap.c) from the child's side: the parent
 * wrote its pages before fork, so its entries are read-only but still
 * dirty (fork clears the bit only in the child's copies); the page's data
 * cannot have changed since (every entry is read-only), so that stale bit
 * must not keep the parent's entry. Page 0, written to a slot and put in
 * the swap cache by hand, loses both entries at once (one swap entry in
 * each address space); page 1 is untouched. Both read page 0 back.
 */
static void test_unmap_swapcache_dirty_parent_body(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm, *child;
	struct page *p;
	swp_entry_t slot;

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 2);
	ASSERT_TRUE(t, mm);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	EXPECT_TRUE(t, ut_state(mm, B) & MMU_DIRTY);
	EXPECT_FALSE(t, ut_state(mm, B) & MMU_WRITE);
	p = phys_to_page(ut_pa(child, B));
	user_page_get(p);
	ASSERT_EQ(t, swap_slot_alloc(&slot), 0);
	EXPECT_EQ(t, swap_write_page(slot, p), 0);
	EXPECT_EQ(t, swap_cache_add(p, slot).val, slot.val);
	EXPECT_TRUE(t, try_to_unmap_swapcache(p, NULL));
	EXPECT_EQ(t, mm->swap_ents, 1);
	EXPECT_EQ(t, child->swap_ents, 1);
	EXPECT_EQ(t, mm->rss, 1);
	EXPECT_EQ(t, child->rss, 1);
	user_page_put(p);                          /* the cache lets it go with it */
	EXPECT_EQ(t, swap_cache_pages(), 0);
	for (unsigned i = 0; i < 2; i++) {
		EXPECT_TRUE(t, data_ok(mm, i));
		EXPECT_TRUE(t, data_ok(child, i));
	}
	mm_put(child);
	mm_put(mm);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_unmap_swapcache_dirty_parent)

/* Page i of the object holds 0x40 + i at offsets 0 and 4000. */
static bool object_page_ok(struct vm_object *o, unsigned long i)
{
	struct page *p = NULL;
	bool ok = vm_object_page(o, i, 0, &p) == 0 && p && ((uint8_t *)page_address(p))[0] == 0x40 + i &&
		  ((uint8_t *)page_address(p))[4000] == 0x40 + i;

	if (p)
		vm_object_page_put(p);
	return ok;
}

/*
 * An object of 8 pages nothing maps, page i holding 0x40 + i at offsets 0
 * and 4000 and dirty, except page clean (8: none), never written; pages
 * [hold, 8) stay referenced in held[] (a read() copying them).
 */
static struct vm_file *written_object(struct ktest *t, unsigned long clean, unsigned long hold, struct page **held)
{
	struct vm_file *f = shared_anon_file(P(8));
	struct page *p = NULL;

	if (!f)
		return NULL;
	for (unsigned long i = 0; i < 8; i++) {
		EXPECT_EQ(t, vm_object_page(f->obj, i, VMO_ALLOC, &p), 0);
		if (!p)
			continue;
		if (i != clean) {
			((uint8_t *)page_address(p))[0] = (uint8_t)(0x40 + i);
			((uint8_t *)page_address(p))[4000] = (uint8_t)(0x40 + i);
			vm_object_page_dirty(p);
		}
		if (i >= hold)
			held[i - hold] = p;
		else
			vm_object_page_put(p);
	}
	return f;
}

/* A new address space with written_object's 8 pages of f mapped shared at B. */
static struct mm *object_mm(struct ktest *t, struct vm_file *f)
{
	struct mm *mm = mm_create();

	if (mm)
		EXPECT_EQ(t, vm_mmap_pgoff(mm, B, P(8), UT_RW, MAP_SHARED | MAP_FIXED, f, 0), (long)B);
	return mm;
}

/*
 * Pages of a shared memory object (tmpfs, memfd, MAP_SHARED|MAP_ANONYMOUS:
 * mm/shmem_swap.c) in swap, as Linux's shmem_writeout and
 * shmem_swapin_folio do it: of 8 pages nothing maps, the 6 written ones
 * go to consecutive slots and the index keeps the entries (still counted
 * in nrpages, no longer in nr_shmem or mincore), the clean one is
 * dropped (a hole again), the one held (a read() copying it) stays. A
 * lookup without sleeping says -EAGAIN; a lookup reads the entry back
 * with the next ones (readahead: 6 slots, freed). Truncation inside the
 * swapped pages frees their slots and reads the partial last page back
 * to zero its tail; the object's end frees the rest.
 */
static void test_shmem_swap_body(struct ktest *t)
{
	struct swap_env e;
	struct vm_file *f;
	struct vm_object *o;
	struct page *held = NULL, *p = NULL;
	struct reclaim_scan rs = { .want = ~0UL, .may_swap = true };
	unsigned long shmem0;

	if (!env_up(t, &e))
		return;
	f = written_object(t, 7, 8, NULL);
	ASSERT_TRUE(t, f);
	o = f->obj;
	ASSERT_EQ(t, vm_object_page(o, 6, 0, &held), 0);
	shmem0 = vm_stat_read(VM_NR_SHMEM);
	shmem_reclaim_object(o, &rs);
	EXPECT_EQ(t, rs.freed, 7);
	EXPECT_EQ(t, rs.shmem, 7);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 6);
	EXPECT_EQ(t, o->nrswapped, 6);
	EXPECT_EQ(t, o->nrpages, 7);                            /* the dropped clean page is a hole again */
	EXPECT_EQ(t, shmem0 - vm_stat_read(VM_NR_SHMEM), 7);
	EXPECT_EQ(t, e.free0 - swap_free_pages(), 6);
	EXPECT_EQ(t, vm_object_swapped(o, 0, 8), 6);
	EXPECT_EQ(t, vm_object_swapped(o, 2, 4), 2);
	EXPECT_FALSE(t, vm_object_has_page(o, 0));
	EXPECT_TRUE(t, vm_object_has_page(o, 6));              /* held: not written out */
	vm_object_page_put(held);
	EXPECT_EQ(t, vm_object_page(o, 0, VMO_NOWAIT, &p), -EAGAIN);
	EXPECT_TRUE(t, object_page_ok(o, 0));
	EXPECT_EQ(t, vm_event_sum(VM_PSWPIN) - e.in0, 6);      /* one read, with the 5 after it */
	EXPECT_EQ(t, o->nrswapped, 0);
	EXPECT_EQ(t, swap_free_pages(), e.free0);
	for (unsigned long i = 0; i < 7; i++)
		EXPECT_TRUE(t, object_page_ok(o, i));
	EXPECT_EQ(t, vm_object_page(o, 7, 0, &p), 0);
	EXPECT_TRUE(t, p == NULL);                              /* dropped clean: reads as zeros */
	/* Out again (read back, the pages are dirty: only they hold the data), then truncated to 3 pages + 8 bytes. */
	rs.freed = 0;
	o->reclaim_pgoff = 0;
	shmem_reclaim_object(o, &rs);
	EXPECT_EQ(t, o->nrswapped, 7);
	vm_object_truncate(o, P(3) + 8);
	EXPECT_EQ(t, o->nrswapped, 3);                          /* 0-2; 3 read back for its tail; 4-6 freed */
	EXPECT_EQ(t, e.free0 - swap_free_pages(), 3);
	EXPECT_EQ(t, vm_object_page(o, 3, 0, &p), 0);
	ASSERT_TRUE(t, p != NULL);
	EXPECT_EQ(t, ((uint8_t *)page_address(p))[0], 0x43);
	EXPECT_EQ(t, ((uint8_t *)page_address(p))[4000], 0);
	vm_object_page_put(p);
	f->ops->put(f);                                         /* the object's end frees slots 0-2 */
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_shmem_swap)

/*
 * MADV_WILLNEED in a mapping of shared memory reads the file's pages of
 * the range that are in swap back, and only those (Linux's
 * shmem_swapin_range: each swap entry in the range), without a fault and
 * without mapping them: pswpin counts the range's 4 pages, pgmajfault
 * nothing, rss stays 0, and mincore says 1 for them (Linux: in its swap
 * cache) and 0 for the 4 others, which stay in swap. Reading the range
 * then takes no major fault; the other pages come back by faults. The
 * file: 8 written pages (written_object), all sent to swap, mapped shared
 * at B. Before, the advice did nothing for a file: the range's pages came
 * back by major faults.
 */
static void test_willneed_reads_back_shmem_body(struct ktest *t)
{
	struct swap_env e;
	struct reclaim_scan rs = { .want = ~0UL, .may_swap = true };
	struct vm_file *f;
	struct mm *mm;
	unsigned char vec[8];

	if (!env_up(t, &e))
		return;
	f = written_object(t, 8, 8, NULL);
	ASSERT_TRUE(t, f);
	shmem_reclaim_object(f->obj, &rs);
	EXPECT_EQ(t, f->obj->nrswapped, 8);
	mm = object_mm(t, f);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_madvise(mm, B + P(2), P(4), MADV_WILLNEED), 0);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPIN) - e.in0, 4);
	EXPECT_EQ(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 0);
	EXPECT_EQ(t, f->obj->nrswapped, 4);
	EXPECT_EQ(t, vm_object_swapped(f->obj, 2, 6), 0);
	EXPECT_EQ(t, mm->rss, 0);
	residency(t, mm, 8, vec);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_EQ(t, vec[i], i >= 2 && i < 6 ? 1 : 0);
	for (unsigned i = 2; i < 6; i++)
		EXPECT_EQ(t, ut_read8(mm, B + P(i)), 0x40 + (int)i);
	EXPECT_EQ(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 0);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_EQ(t, ut_read8(mm, B + P(i)), 0x40 + (int)i);
	EXPECT_GE(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 1);
	EXPECT_EQ(t, f->obj->nrswapped, 0);
	mm_put(mm);
	f->ops->put(f);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_willneed_reads_back_shmem)

/*
 * MADV_PAGEOUT in a shared mapping of shared memory writes the dirty
 * pages only it maps to swap (Linux: madvise_pageout isolates them,
 * shrink_folio_list hands a dirty shmem folio to shmem_writeout, which
 * with swap writes it out). The file: 8 pages mapped at B, page 3 never
 * written (clean), page 7 written through the mapping (its PTE's dirty
 * bit), page 5 mapped a second time at B + P(16). After the advice: the
 * six dirty pages only B maps are in swap (pswpout +6, six swap entries in
 * the file), page 3 is dropped (mincore 0, reads zero again), page 5
 * stays (mincore 1, no write). Reading 0-2 with read() brings them back
 * without a major fault; reading 4, 6 and 7 through the mapping takes at
 * least one (pswpin +6 in all). Before, only page 3 left: the dirty pages
 * stayed in memory whatever the swap area.
 */
static void test_pageout_writes_shmem_body(struct ktest *t)
{
	struct swap_env e;
	struct vm_file *f;
	struct mm *mm;
	unsigned char vec[8];

	if (!env_up(t, &e))
		return;
	f = written_object(t, 3, 8, NULL);
	ASSERT_TRUE(t, f);
	mm = object_mm(t, f);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, B + P(16), P(1), UT_RW, MAP_SHARED | MAP_FIXED, f, 5), (long)(B + P(16)));
	for (unsigned i = 0; i < 7; i++)
		EXPECT_EQ(t, ut_read8(mm, B + P(i)), i == 3 ? 0 : 0x40 + (int)i);
	EXPECT_EQ(t, ut_write8(mm, B + P(7), 0x99), FAULT_OK);
	EXPECT_EQ(t, ut_read8(mm, B + P(16)), 0x45);
	EXPECT_EQ(t, vm_madvise(mm, B, P(8), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 6);
	EXPECT_EQ(t, f->obj->nrswapped, 6);
	EXPECT_EQ(t, vm_object_pages(f->obj), 7);      /* in memory or in swap: all but 3 */
	residency(t, mm, 8, vec);
	EXPECT_EQ(t, vec[3], 0);
	EXPECT_EQ(t, vec[5], 1);
	for (unsigned long i = 0; i < 3; i++)
		EXPECT_TRUE(t, object_page_ok(f->obj, i));
	EXPECT_EQ(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 0);
	EXPECT_EQ(t, ut_read8(mm, B + P(4)) | ut_read8(mm, B + P(4) + 4000) << 8, 0x4444);
	EXPECT_EQ(t, ut_read8(mm, B + P(6)) | ut_read8(mm, B + P(6) + 4000) << 8, 0x4646);
	EXPECT_EQ(t, ut_read8(mm, B + P(7)), 0x99);
	EXPECT_EQ(t, ut_read8(mm, B + P(3)), 0);
	EXPECT_EQ(t, ut_read8(mm, B + P(5)), 0x45);
	EXPECT_GE(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 1);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPIN) - e.in0, 6);
	EXPECT_EQ(t, f->obj->nrswapped, 0);
	mm_put(mm);
	f->ops->put(f);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_pageout_writes_shmem)

/*
 * A reclaim of an object goes round its whole clock: with the hand at
 * page 4 of 8 and pages 4-7 held (read() copying them), the dirty pages
 * 0-3 behind the hand go to swap all the same (Linux finds them on its
 * LRU wherever they lie in the file). A scan that stopped at the end of
 * the object found nothing here, and a read() waiting for room behind
 * it came back short. The hand then lies past page 3.
 */
static void test_shmem_reclaim_wraps_body(struct ktest *t)
{
	struct swap_env e;
	struct vm_file *f;
	struct vm_object *o;
	struct page *held[4] = { NULL };
	struct reclaim_scan rs = { .want = ~0UL, .may_swap = true };

	if (!env_up(t, &e))
		return;
	f = written_object(t, 8, 4, held);
	ASSERT_TRUE(t, f);
	o = f->obj;
	o->reclaim_pgoff = 4;
	shmem_reclaim_object(o, &rs);
	EXPECT_EQ(t, rs.freed, 4);
	EXPECT_EQ(t, o->nrswapped, 4);
	EXPECT_EQ(t, vm_object_swapped(o, 0, 4), 4);
	EXPECT_GE(t, o->reclaim_pgoff, 4);
	for (unsigned i = 0; i < 4; i++)
		vm_object_page_put(held[i]);
	for (unsigned long i = 0; i < 8; i++)
		EXPECT_TRUE(t, object_page_ok(o, i));
	f->ops->put(f);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_shmem_reclaim_wraps)

/*
 * The last mapping of shared anonymous memory goes while reclaim holds
 * its object (shmem_reclaim's clock keeps a reference for a whole turn):
 * the 8 pages must leave at once, as Linux's shmem_evict_inode truncates
 * them at the last fput, not when reclaim lets go of the object (the
 * fuzzer's seeds 12 and 53: a dead object's pages were still in memory
 * after its process had been reaped, "file refs 0, nr_vmas 0, refcount 1").
 */
static void test_shared_anon_freed_under_reclaim(struct ktest *t)
{
	struct vm_file *f = written_object(t, 8, 8, NULL);
	struct vm_object *o;
	unsigned long shmem0;

	ASSERT_TRUE(t, f);
	o = f->obj;
	vm_object_get(o);                       /* reclaim's (vm_object_next_to_scan) */
	shmem0 = vm_stat_read(VM_NR_SHMEM);
	f->ops->put(f);                         /* the last mapping's file reference */
	EXPECT_EQ(t, vm_object_pages(o), 0);
	EXPECT_EQ(t, shmem0 - vm_stat_read(VM_NR_SHMEM), 8);
	vm_object_put(o);
}

/*
 * Shmem pages leave from the LRU's inactive tail, as Linux's
 * shrink_folio_list hands them to shmem_writeout: eight pages of an
 * object nothing maps go on the inactive list in order (0 at the tail),
 * 0-5 written, 6 written and held (a read() copying it), 7 never written.
 * lru_shrink(7) takes 0-5 to swap, drops 7 (clean: a hole reads zeros)
 * and keeps 6: seven freed, all of them page-cache pages. (Passing
 * page-cache pages over left a list full of them with nothing to take.)
 */
static void test_lru_reclaims_shmem_body(struct ktest *t)
{
	struct swap_env e;
	struct vm_file *f;
	struct vm_object *o;
	struct page *held[2] = { NULL }, *p = NULL;
	struct reclaim_scan rs = { .want = 7, .may_swap = true };

	if (!env_up(t, &e))
		return;
	f = written_object(t, 7, 6, held);
	ASSERT_TRUE(t, f);
	o = f->obj;
	vm_object_page_put(held[1]);            /* 7: only 6 stays held */
	lru_shrink(&rs, RECLAIM_KSWAPD);
	EXPECT_EQ(t, rs.freed, 7);
	EXPECT_EQ(t, rs.shmem, 7);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 6);
	EXPECT_EQ(t, o->nrswapped, 6);
	EXPECT_TRUE(t, vm_object_has_page(o, 6));
	EXPECT_FALSE(t, vm_object_has_page(o, 7));
	vm_object_page_put(held[0]);
	for (unsigned long i = 0; i < 7; i++)
		EXPECT_TRUE(t, object_page_ok(o, i));
	EXPECT_EQ(t, vm_object_page(o, 7, 0, &p), 0);
	EXPECT_TRUE(t, p == NULL);
	f->ops->put(f);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_lru_reclaims_shmem)

/*
 * Mapped shared memory on the LRU (Linux shrink_folio_list ->
 * try_to_unmap -> shmem_writeout): a 4-page object mapped shared in two
 * address spaces, written through the first, read through the second, so
 * every page is mapped twice. Reclaim until 4 are freed (the faults left
 * the pages referenced: the first look activates them, shrink_active
 * ages them back). Every entry goes (rss 0 on both sides), the dirty bits
 * written through the first go into the pages and the pages to swap (4
 * slots, 4 pages out); each side then reads its data back by major
 * faults. Passing mapped cache pages over (no file reverse map) freed
 * none of them.
 */
static void test_lru_reclaims_mapped_shmem_body(struct ktest *t)
{
	struct swap_env e;
	struct vm_file *f;
	struct mm *a, *b;
	unsigned long freed = 0;

	if (!env_up(t, &e))
		return;
	f = shared_anon_file(P(4));
	a = mm_create();
	b = mm_create();
	ASSERT_TRUE(t, f && a && b);
	EXPECT_EQ(t, vm_mmap_pgoff(a, B, P(4), UT_RW, MAP_SHARED | MAP_FIXED, f, 0), (long)B);
	EXPECT_EQ(t, vm_mmap_pgoff(b, B + P(64), P(4), UT_RW, MAP_SHARED | MAP_FIXED, f, 0), (long)(B + P(64)));
	for (unsigned i = 0; i < 4; i++) {
		EXPECT_EQ(t, ut_write8(a, B + P(i), (uint8_t)(0x70 + i)), FAULT_OK);
		EXPECT_EQ(t, ut_read8(b, B + P(64 + i)), 0x70 + (int)i);
	}
	for (unsigned round = 0; round < 4 && freed < 4; round++) {
		struct reclaim_scan rs = { .want = 4 - freed, .may_swap = true };

		lru_shrink(&rs, RECLAIM_KSWAPD);
		freed += rs.freed;
	}
	EXPECT_EQ(t, freed, 4);
	EXPECT_EQ(t, a->rss, 0);
	EXPECT_EQ(t, b->rss, 0);
	EXPECT_EQ(t, f->obj->nrswapped, 4);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 4);
	for (unsigned i = 0; i < 4; i++) {
		EXPECT_EQ(t, ut_read8(b, B + P(64 + i)), 0x70 + (int)i);
		EXPECT_EQ(t, ut_read8(a, B + P(i)), 0x70 + (int)i);
	}
	EXPECT_GE(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 1);
	mm_put(a);
	mm_put(b);
	f->ops->put(f);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_lru_reclaims_mapped_shmem)

/*
 * read() and write() of a memfd mark its pages accessed (Linux's
 * folio_mark_accessed): eight pages written a byte each at their start
 * (marked once: PG_referenced, still inactive); pages 2-4 read from
 * their start (marked again: moved to the active list), page 5 read from
 * its middle (shmem_file_read_iter marks only a read of the page's
 * start: still inactive). lru_shrink(5) then swaps out the five inactive
 * pages (0 at the tail) and leaves the three that file I/O used twice;
 * without the marks it would take 0-4.
 */
static void test_file_io_marks_accessed_body(struct ktest *t)
{
	struct swap_env e;
	struct dentry *d;
	struct vm_object *o;
	struct reclaim_scan rs = { .want = 5, .may_swap = true };
	uint8_t b = 0;

	if (!env_up(t, &e))
		return;
	d = fs_create_unlinked("memfd:lru", 0777);
	ASSERT_TRUE(t, d != NULL);
	o = &d->inode->data;
	for (unsigned i = 0; i < 8; i++) {
		b = (uint8_t)(0x40 + i);
		EXPECT_EQ(t, fs_write(d->inode, P(i), 1, ut_copy_from_buf, &b), 1);
	}
	for (unsigned i = 2; i < 5; i++)
		EXPECT_EQ(t, fs_read(d->inode, P(i), 1, ut_copy_to_buf, &b), 1);
	EXPECT_EQ(t, fs_read(d->inode, P(5) + 100, 1, ut_copy_to_buf, &b), 1);
	for (unsigned long i = 0; i < 8; i++) {
		struct page *p = NULL;

		ASSERT_EQ(t, vm_object_page(o, i, 0, &p), 0);
		EXPECT_EQ(t, lru_page_list(p), i >= 2 && i < 5 ? LRU_ACTIVE_ANON : LRU_INACTIVE_ANON);
		vm_object_page_put(p);
	}
	lru_shrink(&rs, RECLAIM_KSWAPD);
	EXPECT_EQ(t, rs.freed, 5);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, 5);
	for (unsigned long i = 0; i < 8; i++)
		EXPECT_EQ(t, vm_object_has_page(o, i), i >= 2 && i < 5);
	EXPECT_EQ(t, fs_read(d->inode, P(0), 1, ut_copy_to_buf, &b), 1);       /* swapped in */
	EXPECT_EQ(t, b, 0x40);
	dput(d);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_file_io_marks_accessed)

static enum mmu_action clean_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	(void)arg;
	(void)va;
	(void)pa;
	*state &= ~MMU_DIRTY;
	return MMU_UPDATE;
}

/*
 * A kernel write into a page being swapped out (mm_copy_to: ptrace,
 * process_vm_writev) goes through the direct map, not the entry; the
 * swap-out has cleaned the entry's dirty bit before copying the page
 * (reclaim's preparation, done here as mm/vmscan_lru.c does it) and
 * puts the swap entry in only if the bit is still clear after the write
 * to swap (Linux keeps a folio redirtied during writeback). So after the
 * clean, mm_copy_to must set the dirty bit: the swap-out then keeps the
 * page (0 pages out, its slot freed) and it reads the new byte. Leaving
 * the bit alone lost such a write when it landed after the copy.
 */
static void test_remote_write_keeps_page_body(struct ktest *t)
{
	struct swap_env e;
	struct tlb_batch tlb;
	struct mm *mm;
	struct page *p;
	uintptr_t va = B;
	bool shared = false;
	uint8_t v = 0x99;

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 1);
	ASSERT_TRUE(t, mm);
	p = phys_to_page(ut_pa(mm, B));
	user_page_get(p);                       /* reclaim's reference on its victim */
	mm_tlb_init(&tlb, mm, false);
	mm_pt_lock(mm);
	arch_mmu_walk(mm->mmu, B, B + PAGE_SIZE, clean_visit, NULL, &tlb);
	mm_pt_unlock(mm);
	mm_tlb_finish(&tlb);
	EXPECT_EQ(t, mm_copy_to(mm, B + 7, &v, 1), 0);
	EXPECT_TRUE(t, ut_state(mm, B) & MMU_DIRTY);
	mmap_read_lock(mm);
	EXPECT_EQ(t, mm_swap_out_batch(mm, &va, &p, &shared, 1), 0);
	mmap_read_unlock(mm);
	user_page_put(p);
	EXPECT_EQ(t, ut_pa(mm, B), page_to_phys(p));
	EXPECT_EQ(t, ut_read8(mm, B + 7), 0x99);
	EXPECT_TRUE(t, data_ok(mm, 0));
	mm_put(mm);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_remote_write_keeps_page)

/* The readahead tests' end: the 48 pages' data all back, no swap entry left. */
static void readahead_done(struct ktest *t, struct mm *mm, struct swap_env *e)
{
	for (unsigned i = 0; i < 48; i++)
		EXPECT_TRUE(t, data_ok(mm, i));
	EXPECT_EQ(t, mm->swap_ents, 0);
	mm_put(mm);
	env_down(t, e);
}

/* What one major fault at page i read: pswpin's change (mm/swap_pte.c's adaptive window). */
static unsigned long fault_reads(struct ktest *t, struct mm *mm, unsigned i)
{
	unsigned long in0 = vm_event_sum(VM_PSWPIN);

	EXPECT_EQ(t, ut_read8(mm, B + P(i)), 0x20 + (int)i);
	return vm_event_sum(VM_PSWPIN) - in0;
}

/*
 * Adaptive readahead (mm/swap_pte.c's rule, Linux's swapin_nr_pages):
 * 48 pages paged out in consecutive slots. The address space's first
 * major fault (page 0) reads the full window, 16 pages, 15 of them read
 * ahead (swap_ra). Reclaim (the LRU lists) finds those 15 unused and
 * takes them (misses: no swap_ra_hit); page 0, just used, keeps its
 * second chance. No page read ahead was used, so each fault away from
 * the last window halves it: page 24 reads 8, page 32 reads 4, page 40
 * reads 2, page 44 reads 1 (Linux's rule: hits + 2 pages, 1 when no hit
 * and the fault is not next to the last one, never below half the last
 * window). With a fixed window each would read up to 16.
 */
static void test_readahead_shrinks_unused_run(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;
	unsigned long ra0 = vm_event_sum(VM_SWAP_RA), hit0 = vm_event_sum(VM_SWAP_RA_HIT);

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 48);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_madvise(mm, B, P(48), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, mm->swap_ents, 48);
	EXPECT_EQ(t, fault_reads(t, mm, 0), 16);
	EXPECT_EQ(t, vm_event_sum(VM_SWAP_RA) - ra0, 15);
	EXPECT_EQ(t, mm_reclaim(15, RECLAIM_KSWAPD), 15);
	EXPECT_EQ(t, mm->swap_ents, 32 + 15);
	EXPECT_EQ(t, vm_event_sum(VM_SWAP_RA_HIT) - hit0, 0);
	EXPECT_EQ(t, fault_reads(t, mm, 24), 8);
	EXPECT_EQ(t, fault_reads(t, mm, 32), 4);
	EXPECT_EQ(t, fault_reads(t, mm, 40), 2);
	EXPECT_EQ(t, fault_reads(t, mm, 44), 1);
	EXPECT_EQ(t, vm_event_sum(VM_SWAP_RA_HIT) - hit0, 0);
	readahead_done(t, mm, &e);
}

WITH_RECLAIM(test_readahead_shrinks_unused, true)
UT_CASE_WITHOUT_SWAP(test_readahead_shrinks_unused)

/*
 * Sequential use grows the window back: 48 pages paged out; page 0's
 * fault (the first) reads 16, unused; page 24's, no hit, reads 8 (half).
 * Pages 25..31, read ahead, are then read in order: their accessed bits,
 * seen at the next fault, are 7 hits, so page 32's fault reads 16 (7 + 2
 * rounded up to a power of two is 16, the most). 33..47 used too: 15
 * hits at page 16's fault, whose window is 16 again (8 read: page 24 is
 * in memory). With no hits counted the window would have kept shrinking
 * (4 at page 32, 2 at page 16); with a fixed one page 24 would read 16.
 */
static void test_readahead_grows_sequential_body(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;
	unsigned long hit0 = vm_event_sum(VM_SWAP_RA_HIT);

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 48);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_madvise(mm, B, P(48), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, fault_reads(t, mm, 0), 16);
	EXPECT_EQ(t, fault_reads(t, mm, 24), 8);
	for (unsigned i = 25; i < 32; i++)
		EXPECT_EQ(t, fault_reads(t, mm, i), 0);
	EXPECT_EQ(t, fault_reads(t, mm, 32), 16);
	EXPECT_EQ(t, vm_event_sum(VM_SWAP_RA_HIT) - hit0, 7);
	for (unsigned i = 33; i < 48; i++)
		EXPECT_EQ(t, fault_reads(t, mm, i), 0);
	EXPECT_EQ(t, fault_reads(t, mm, 16), 8);
	EXPECT_EQ(t, vm_event_sum(VM_SWAP_RA_HIT) - hit0, 7 + 15);
	EXPECT_EQ(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 4);
	readahead_done(t, mm, &e);
}

UT_CASE_WITHOUT_SWAP(test_readahead_grows_sequential)

/*
 * A run cut short where the next slots stop is no reason to shrink: pages
 * 2..47 paged out first (slots in a row), then pages 0..1 (the two slots
 * after those). Page 0's fault (the first: window 16) reads only pages 0
 * and 1 (page 2's slot is not the next one). Page 1 is used, so the run
 * read ahead was used to its end, and page 2's fault, right after it,
 * keeps the window: 16 pages. By the hits alone (1 hit: 1 + 2 rounded up
 * is 4, never below half of 16) it would read 8.
 */
static void test_readahead_keeps_cut_run_body(struct ktest *t)
{
	struct swap_env e;
	struct mm *mm;

	if (!env_up(t, &e))
		return;
	mm = written_mm(t, 48);
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_madvise(mm, B + P(2), P(46), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, vm_madvise(mm, B, P(2), MADV_PAGEOUT), 0);
	EXPECT_EQ(t, fault_reads(t, mm, 0), 2);
	EXPECT_EQ(t, fault_reads(t, mm, 1), 0);
	EXPECT_EQ(t, fault_reads(t, mm, 2), 16);
	readahead_done(t, mm, &e);
}

UT_CASE_WITHOUT_SWAP(test_readahead_keeps_cut_run)

/*
 * MADV_PAGEOUT and MADV_WILLNEED over a 64 TiB VMA (a fuzzer's kind)
 * with three written pages, at its start, middle and end: every resident
 * page goes to swap (one pswpout each) and comes back (one pswpin each,
 * no major fault), and nothing else is looked at. Both walk only the
 * 2 MiB blocks that have a page table (arch_mmu_next_used): stepping 64
 * pages at a time through the VMA is a billion steps, which runs past the
 * suite's time limit. The pages are counted from rss, not taken as 3:
 * the lazy lab's skeleton fills 16 pages ahead of a first touch.
 */
#define HUGE_VMA (64UL << 40)

static void test_sparse_huge_vma_body(struct ktest *t)
{
	uintptr_t at[3] = { B, B + HUGE_VMA / 2 + P(2), B + HUGE_VMA - PAGE_SIZE };
	struct swap_env e;
	unsigned long pages;
	struct mm *mm;

	if (!env_up(t, &e))
		return;
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap(mm, B, HUGE_VMA, UT_RW, UT_PA | MAP_FIXED | MAP_NORESERVE), (long)B);
	EXPECT_EQ(t, vm_madvise(mm, B, HUGE_VMA, MADV_NOHUGEPAGE), 0);  /* 4 KiB pages */
	for (unsigned i = 0; i < 3; i++)
		EXPECT_EQ(t, ut_write8(mm, at[i], (uint8_t)(0x30 + i)), FAULT_OK);
	pages = mm->rss;
	EXPECT_GE(t, pages, 3);
	EXPECT_LE(t, pages, AREA_PAGES);
	EXPECT_EQ(t, vm_madvise(mm, B, HUGE_VMA, MADV_PAGEOUT), 0);
	EXPECT_EQ(t, mm->swap_ents, pages);
	EXPECT_EQ(t, mm->rss, 0);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPOUT) - e.out0, pages);
	EXPECT_EQ(t, vm_madvise(mm, B, HUGE_VMA, MADV_WILLNEED), 0);
	EXPECT_EQ(t, mm->swap_ents, 0);
	EXPECT_EQ(t, mm->rss, pages);
	EXPECT_EQ(t, vm_event_sum(VM_PSWPIN) - e.in0, pages);
	for (unsigned i = 0; i < 3; i++)
		EXPECT_EQ(t, ut_read8(mm, at[i]), 0x30 + (int)i);
	EXPECT_EQ(t, vm_event_sum(VM_PGMAJFAULT) - e.maj0, 0);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
	env_down(t, &e);
}

UT_CASE_WITHOUT_SWAP(test_sparse_huge_vma)

static const struct ktest_case mm_swap_cases[] = {
	KTEST_CASE(test_pageout_and_fault_back),
	KTEST_CASE(test_sparse_huge_vma),
	KTEST_CASE(test_fork_shares_slots),
	KTEST_CASE(test_mremap_mprotect_free),
	KTEST_CASE(test_reclaim_swaps_cold_pages),
	KTEST_CASE(test_scan_promotes_referenced),
	KTEST_CASE(test_reclaim_promotes_referenced),
	KTEST_CASE(test_reclaim_spares_touched_set),
	KTEST_CASE(test_reclaim_writes_in_address_order),
	KTEST_CASE(test_active_refills_inactive),
	KTEST_CASE(test_swap_out_refusals),
	KTEST_CASE(test_cold_loses_second_chance),
	KTEST_CASE(test_cold_loses_second_chance_lru),
	KTEST_CASE(test_willneed_reads_back),
	KTEST_CASE(test_shared_pages_swap_cache),
	KTEST_CASE(test_unmap_swapcache_dirty_parent),
	KTEST_CASE(test_shmem_swap),
	KTEST_CASE(test_willneed_reads_back_shmem),
	KTEST_CASE(test_pageout_writes_shmem),
	KTEST_CASE(test_shmem_reclaim_wraps),
	KTEST_CASE(test_shared_anon_freed_under_reclaim),
	KTEST_CASE(test_lru_reclaims_shmem),
	KTEST_CASE(test_lru_reclaims_mapped_shmem),
	KTEST_CASE(test_file_io_marks_accessed),
	KTEST_CASE(test_remote_write_keeps_page),
	KTEST_CASE(test_readahead_shrinks_unused),
	KTEST_CASE(test_readahead_grows_sequential),
	KTEST_CASE(test_readahead_keeps_cut_run),
	{ 0 },
};
KTEST_SUITE(mm_swap, mm_swap_cases);
