/*
 * Reclaim under memory pressure (include/vmscan.h): the clock over every
 * address space's lazily freed pages and, with a swap area, its cold
 * anonymous pages (by default, reclaim=lru, the tail of the LRU lists:
 * mm/vmscan_lru.c; with reclaim=scan, swap_out_range), direct reclaim
 * for a fault that found no page, and kswapd's balancing loop (its thread is
 * kernel/mm/kswapd.c). The per-page decision is mm/madvise.c's
 * (mm_reclaim_lazyfree_range), shared with MADV_PAGEOUT. Before the swap
 * rounds, the page caches' unmapped pages (tmpfs, memfd): mm/shmem_swap.c.
 *
 * Locking: see include/vmscan.h. An mm's clock hand is [pt_lock].
 */
#include "internal.h"
#include "vmscan.h"
#include "vmstat.h"
#include "swap.h"
#include "lru.h"
#include "lockless.h"

void (*vmscan_wake_kswapd)(void);
bool vmscan_reclaim_lru = true;        /* the kernel option reclaim=lru|scan (main.c sets it) */
/* kswapd's last run freed nothing: do not wake it until some reclaim frees a page. */
static bool kswapd_failed;             /* [atomic] */

/* A scan takes the page-table lock for this much address space at a time, and stops between pieces. */
#define RECLAIM_CHUNK (2UL << 20)

/*
 * Only reclaim's own reference is left: the address space's last user has
 * gone, and reclaim's put will tear it down; stop looking at it at once,
 * so that its memory comes back without waiting for the scan.
 */
static bool mm_exiting(struct mm *mm)
{
	return smp_load_acquire(&mm->users) <= 1;
}

/*
 * The first address of [a, end) that mm's tables may map (end: none), so
 * that a scan of a huge VMA (a fuzzer's 64 TiB one) costs what is mapped
 * in it, not its size.
 */
static uintptr_t next_used(struct mm *mm, uintptr_t a, uintptr_t end)
{
	mm_pt_lock(mm);
	a = arch_mmu_next_used(mm->mmu, a, end);
	mm_pt_unlock(mm);
	return a;
}

/* ---- swap-out of cold anonymous pages (mm/swap_pte.c writes them) */

/* Pages looked at, and written, at a time: the entries are cleaned and flushed first, then written. */
#define SWAP_BATCH 64

struct swap_batch {
	bool ignore_refs;             /* MADV_PAGEOUT: a referenced page goes too, a shared one does not */
	unsigned long budget;         /* collect at most this many */
	unsigned n;
	unsigned long scanned;
	uintptr_t va[SWAP_BATCH];
	struct page *page[SWAP_BATCH];
	bool shared[SWAP_BATCH];      /* mapped by other entries too (through the swap cache) */
};

/*
 * A private anonymous page that nobody has used since its last scan
 * (accessed bit clear; a used one gets a second chance) is a candidate
 * when this entry alone maps it, or, for reclaim proper, when it is
 * shared (fork) and this entry is read-only (then so is every other: a
 * shared private page is copied on write, so its data cannot change while
 * it goes to the swap cache). Referenced for the batch and its entry
 * cleaned, so that arch_mmu_swap_out can tell whether it was written
 * meanwhile. Lazily freed pages are the other visitor's.
 */
static enum mmu_action swap_candidate_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct swap_batch *b = arg;
	struct page *p;
	bool shared;

	if (b->n == SWAP_BATCH || b->n >= b->budget || mm_is_zero_pa(pa) || !(*state & MMU_PROT_MASK))
		return MMU_KEEP;
	p = phys_to_page(pa);
	if ((p->flags & (PG_anon | PG_lazyfree)) != PG_anon)
		return MMU_KEEP;
	shared = page_total_refs(p) != 1 || page_total_mapcount(p) != 1;
	if (shared && (b->ignore_refs || (*state & MMU_WRITE)))
		return MMU_KEEP;
	b->scanned++;
	if ((*state & MMU_ACCESSED) && !b->ignore_refs) {
		*state &= ~MMU_ACCESSED;
		lru_activate(p);                /* referenced since the last pass: promoted (include/lru.h) */
		return MMU_UPDATE;
	}
	user_page_get(p);
	b->va[b->n] = va;
	b->shared[b->n] = shared;
	b->page[b->n++] = p;
	if (!(*state & (MMU_DIRTY | MMU_ACCESSED)))
		return MMU_KEEP;
	*state &= ~(MMU_DIRTY | MMU_ACCESSED);
	return MMU_UPDATE;
}

/* Swap out what [a, end) of mm offers, SWAP_BATCH pages at a time, until rs->want is met. mmap_lock (read). */
static void swap_out_range(struct mm *mm, uintptr_t a, uintptr_t end, struct reclaim_scan *rs, bool ignore_refs)
{
	while ((a = next_used(mm, a, end)) < end && rs->freed < rs->want) {
		struct swap_batch b = { .ignore_refs = ignore_refs, .budget = rs->want - rs->freed };
		uintptr_t stop = MIN(a + SWAP_BATCH * PAGE_SIZE, end);
		struct tlb_batch tlb;

		mm_tlb_init(&tlb, mm, false);
		mm_pt_lock(mm);
		arch_mmu_walk(mm->mmu, a, stop, swap_candidate_visit, &b, &tlb);
		mm_pt_unlock(mm);
		mm_tlb_finish(&tlb);    /* cleaned entries flushed: a write now sets the dirty bit again */
		rs->scanned += b.scanned;
		if (b.n) {
			unsigned out = mm_swap_out_batch(mm, b.va, b.page, b.shared, b.n);

			reclaim_freed(rs, out);
			rs->swapped += out;
		}
		for (unsigned i = 0; i < b.n; i++)
			user_page_put(b.page[i]);
		a = stop;
	}
}

void mm_pageout_swap(struct mm *mm, uintptr_t start, uintptr_t end)
{
	struct reclaim_scan rs = { .mm = mm, .want = ~0UL, .may_swap = true };

	if (swap_free_pages())
		swap_out_range(mm, start, end, &rs, true);
}

/* Scan the private anonymous VMAs in [from, to) until rs->want is met; where it stopped (to: went through). */
static uintptr_t scan_range(struct mm *mm, uintptr_t from, uintptr_t to, struct reclaim_scan *rs)
{
	for (struct vma *v = vma_find(mm, from); v && v->start < to; v = vma_next(mm, v)) {
		uintptr_t a = MAX(v->start, from), end = MIN(v->end, to);

		if (v->file)
			continue;               /* lazily freed and swappable pages are private anonymous ones */
		while ((a = next_used(mm, a, end)) < end) {
			uintptr_t stop = MIN(ALIGN_DOWN(a, RECLAIM_CHUNK) + RECLAIM_CHUNK, end);

			if (vm_stat_read(VM_NR_LAZYFREE)) {     /* none anywhere: no walk for them */
				mm_pt_lock(mm);
				mm_reclaim_lazyfree_range(rs, a, stop);
				mm_pt_unlock(mm);
			}
			if (rs->may_swap && rs->freed < rs->want)
				swap_out_range(mm, a, stop, rs, false);
			a = stop;
			if (rs->freed >= rs->want || mm_exiting(mm))
				return a;
		}
	}
	return to;
}

/* One round of mm's clock, from its hand, until rs->want is met. mmap_lock held (read). */
static void reclaim_mm(struct mm *mm, struct reclaim_scan *rs)
{
	struct tlb_batch tlb;
	uintptr_t hand = READ_ONCE(mm->reclaim_hand), stop;

	mm_tlb_init(&tlb, mm, false);
	rs->mm = mm;
	rs->tlb = &tlb;
	stop = scan_range(mm, hand, TASK_SIZE, rs);
	if (stop >= TASK_SIZE && rs->freed < rs->want)
		stop = scan_range(mm, 0, hand, rs);
	WRITE_ONCE(mm->reclaim_hand, stop >= TASK_SIZE ? 0 : stop);
	mm_tlb_finish(&tlb);
}

unsigned long mm_reclaim_lazyfree(struct mm *mm)
{
	struct reclaim_scan rs = { .want = ~0UL };

	mmap_read_lock(mm);
	for (int round = 0; round < 2; round++)
		reclaim_mm(mm, &rs);
	mmap_read_unlock(mm);
	return rs.freed;
}

/* One round over every address space; direct reclaim skips those whose mmap_lock is taken (unless may_wait). */
static void reclaim_round(struct reclaim_scan *rs, enum reclaim_who who)
{
	struct mm *mm = NULL;

	while (rs->freed < rs->want && (mm = mm_list_next(mm))) {
		if (mm_exiting(mm))
			continue;
		if (who == RECLAIM_DIRECT && !rs->may_wait) {
			if (!mmap_read_trylock(mm))
				continue;
		} else {
			mmap_read_lock(mm);
		}
		reclaim_mm(mm, rs);
		mmap_read_unlock(mm);
	}
	if (mm)
		mm_put(mm);
}

/*
 * Rounds 1 and 2 drop lazily freed pages only (they cost no I/O: Linux
 * reclaims them first, from the file list), found by the page-table
 * clock under either policy; rounds 3 and 4, when a swap area has room,
 * also write cold anonymous pages out: found by the clock (reclaim=scan),
 * or by default (reclaim=lru) taken from the inactive anonymous list's
 * tail with the unmapped shmem pages there, after what is left on the
 * file lists (lru_shrink). Two rounds each, so that a page's second
 * chance is used up. (The clock, not the file list, in rounds 1 and 2:
 * it waits for a busy mmap_lock when the reclaimer may, where the LRU's
 * reverse-map walks only try it.) Before round 3, the page
 * caches' pages nothing maps: clean ones dropped, dirty ones swapped
 * (Linux keeps shmem on the anonymous LRU, where pages written once and
 * not touched since are older than anonymous pages in use: swapping hot
 * anonymous pages first made a program reading a large file back
 * thrash its own buffer).
 */
void reclaim_freed(struct reclaim_scan *rs, unsigned long n)
{
	rs->freed += n;
	/* counted as the pages go, not at the end of a round: /proc/vmstat's pgsteal keeps up with pglazyfreed */
	if (rs->count_steal)
		count_vm_events(rs->direct ? VM_PGSTEAL_DIRECT : VM_PGSTEAL_KSWAPD, n);
}

static unsigned long reclaim(unsigned long want, enum reclaim_who who, bool may_wait)
{
	struct reclaim_scan rs = { .want = want, .may_wait = may_wait, .count_steal = true,
				   .direct = who == RECLAIM_DIRECT };

	for (int round = 0; round < 4 && rs.freed < want; round++) {
		rs.may_swap = round >= 2 && swap_free_pages() > 0;
		if (round == 2)
			shmem_reclaim(&rs);     /* unmapped tmpfs/memfd pages (mm/shmem_swap.c) before hot anon */
		if (rs.freed >= want)
			break;
		if (rs.may_swap && vmscan_reclaim_lru)
			lru_shrink(&rs, who);   /* the LRU's tail (mm/vmscan_lru.c) */
		else if (rs.may_swap || (round < 2 && vm_stat_read(VM_NR_LAZYFREE)))
			reclaim_round(&rs, who);
	}
	count_vm_events(who == RECLAIM_DIRECT ? VM_PGSCAN_DIRECT : VM_PGSCAN_KSWAPD, rs.scanned);
	if (rs.freed)
		WRITE_ONCE(kswapd_failed, false);
	mm_put_deferred_flush();        /* address spaces whose last user left during a reverse-map walk */
	return rs.freed;
}

unsigned long mm_reclaim(unsigned long want, enum reclaim_who who)
{
	return reclaim(want, who, false);
}

/* Frames short of the high watermark (at least a cluster: Linux's SWAP_CLUSTER_MAX, 32). */
static unsigned long deficit(void)
{
	size_t free = pmm_free_frames(), high = pmm_watermark(WMARK_HIGH);

	return MAX(free < high ? high - free : 0, 32UL);
}

bool mm_reclaim_direct(bool may_wait)
{
	count_vm_event(VM_ALLOCSTALL);
	return reclaim(deficit(), RECLAIM_DIRECT, may_wait) > 0;
}

unsigned long kswapd_balance(void)
{
	unsigned long total = 0, got;

	count_vm_event(VM_PAGEOUTRUN);
	while (pmm_free_frames() < pmm_watermark(WMARK_HIGH)) {
		got = mm_reclaim(deficit(), RECLAIM_KSWAPD);
		if (!got)
			break;
		total += got;
	}
	if (!total && pmm_free_frames() < pmm_watermark(WMARK_HIGH))
		WRITE_ONCE(kswapd_failed, true);
	return total;
}

void vmscan_below_low(void)
{
	void (*wake)(void) = smp_load_acquire(&vmscan_wake_kswapd);

	if (wake && !READ_ONCE(kswapd_failed))
		wake();
}

unsigned long mm_available_frames(void)
{
	long free = (long)pmm_free_frames() - (long)pmm_watermark(WMARK_HIGH);
	long lazy = (long)vm_stat_read(VM_NR_LAZYFREE);

	lazy -= MIN(lazy / 2, (long)pmm_watermark(WMARK_LOW));
	return free + lazy > 0 ? (unsigned long)(free + lazy) : 0;
}
