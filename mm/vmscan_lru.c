/*
 * Reclaim from the LRU lists (include/lru.h), the kernel option
 * reclaim=lru (the default; reclaim=scan: the page-table clock, mm/vmscan.c),
 * Linux's shape without the multi-generational LRU (mm/vmscan.c: shrink_inactive_list,
 * shrink_active_list, inactive_is_low, folio_check_references): the
 * victims come from the tail of an inactive list, the pages that have
 * gone longest without being promoted, whatever address space maps them:
 * first the file list's, where MADV_FREE put the lazily freed pages
 * (Linux: they need no swap), then the anonymous list's. Called in
 * reclaim's swap rounds (mm/vmscan.c); the rounds before them drop lazily
 * freed pages with the page-table clock.
 *
 * A batch (SWAP_CLUSTER_MAX, 32) is isolated under the lists' lock; then,
 * with no lock, each page's references are tested and cleared through
 * the reverse map (rmap_referenced), and the policy decides
 * (lru_inactive_verdict, mm/lru_policy.c):
 *   - referenced by two entries, or again after it was kept once: moved
 *     to the active list (promotion);
 *   - referenced by one entry for the first time: kept on the inactive
 *     list, marked PG_referenced (Linux's second chance: every mapped page
 *     starts referenced by the fault that made it);
 *   - not referenced: a victim. A clean lazily freed page is unmapped and
 *     freed (pglazyfreed); one written since MADV_FREE is data again. Any
 *     other is written to swap: mm/swap_pte.c's mm_swap_out_batch, one
 *     call per address space of the batch (one device request per run
 *     of slots), as reclaim's page-table walk did before.
 * Pages not reclaimed go back to the head of their list (a page not
 * looked at because enough was freed goes back to the tail, where it
 * was). Page-cache pages (shmem, on the same list) go to mm/shmem_swap.c's
 * shmem_reclaim_pages (Linux's shmem_writeout): dropped when clean,
 * written to swap when dirty. A mapped one is tested like an anonymous
 * page and, as a victim, first unmapped from every entry through the
 * file reverse map (try_to_unmap_file, include/rmap.h), its entries'
 * dirty bits carried into PG_dirty; a later access faults it back from
 * the cache (a major fault when it went to swap).
 *
 * When the inactive list is low against the active one (inactive_is_low:
 * ratio sqrt(10 * GiB of both), 1 below 1 GiB), a batch moves from the
 * active list's tail to the inactive list's head first, its accessed
 * bits cleared (shrink_active_list: an anonymous page is deactivated even
 * when referenced; the next reference on the inactive list brings it back).
 *
 * Locking: no lock held on entry; the reverse map try-locks each address
 * space's mmap_lock; writing a victim's address space's pages takes its
 * mmap_lock for reading (direct reclaim: try-lock only, as the
 * page-table walk does). An isolated page holds a reference of ours.
 */
#include "internal.h"
#include "vmscan.h"
#include "vmstat.h"
#include "swap.h"
#include "lru.h"
#include "rmap.h"
#include "lru_policy.h"
#include "lockless.h"

#define LRU_SCAN_BATCH 32             /* Linux's SWAP_CLUSTER_MAX */

/* The policy's verdicts (include/lru_policy.h), by short names here. */
enum verdict { KEEP = LRU_KEEP, ACTIVATE = LRU_ACTIVATE, RECLAIM = LRU_RECLAIM };

/* A page to reclaim and the one entry it is reclaimed through. */
struct victim {
	struct page *page;            /* isolated (our reference) */
	struct mm *mm;                /* referenced; NULL: not found mapped */
	uintptr_t va;
	bool shared;                  /* mapped elsewhere too or held by others (the swap cache) */
	bool writable;                /* some entry may write it */
	bool swap;                    /* prepared for swap-out */
	bool dropped;                 /* lazily freed page unmapped */
	bool activate;                /* lazily freed but written since: data again, to the active list */
};

/*
 * Test and clear p's references (its entries' accessed bits, its
 * PG_referenced) and give the policy's verdict on them (mm/lru_policy.c;
 * no VM_EXEC rule: anonymous memory, and shmem, which Linux keeps
 * swap-backed, off the file LRU where that rule applies).
 */
static enum verdict check_references(struct page *p)
{
	unsigned ptes = rmap_referenced(p, NULL, NULL);
	bool ref = __atomic_fetch_and(&p->flags, ~PG_referenced, __ATOMIC_RELAXED) & PG_referenced;
	enum lru_verdict r = lru_inactive_verdict(ptes, &ref);

	swap_ra_note(p, ptes != 0);     /* read ahead from swap: used (a hit) or not */

	if (ref)
		__atomic_fetch_or(&p->flags, PG_referenced, __ATOMIC_RELAXED);
	return (enum verdict)r;
}

static bool locate_visit(struct page *page, struct mm *mm, uintptr_t va, unsigned state, void *arg)
{
	struct victim *v = arg;

	(void)page;
	if (state & MMU_WRITE)
		v->writable = true;
	if (!v->mm && mm_get_unless_zero(mm)) {
		v->mm = mm;
		v->va = va;
	}
	return true;
}

/* Find an entry that maps v->page (and whether any may write it). False: none found. */
static bool locate(struct victim *v)
{
	struct rmap_walk_control rwc = { .visit = locate_visit, .arg = v };

	v->mm = NULL;
	v->writable = v->swap = v->dropped = v->activate = false;
	rmap_walk(v->page, &rwc);
	v->shared = page_total_refs(v->page) != 2 || page_total_mapcount(v->page) != 1;
	if (v->mm && v->shared && v->writable) {        /* a shared page is swapped only read-only everywhere */
		mm_put_deferred(v->mm);
		v->mm = NULL;
	}
	return v->mm != NULL;
}

struct prepare_ctx {
	struct victim *v;
	struct tlb_batch *tlb;
};

/*
 * The victim's entry, under pt_lock, once more: a lazily freed page still
 * clean, unused and mapped only here is dropped (a written one is data
 * again: mm/madvise.c's rule); another page, unused since the look, is
 * prepared for swap-out: an exclusive one's entry cleaned (so that
 * arch_mmu_swap_out sees a write made meanwhile), a shared one only if
 * this entry is read-only.
 */
static enum mmu_action prepare_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct prepare_ctx *c = arg;
	struct victim *v = c->v;
	struct page *p = v->page;

	(void)va;
	if (pa != page_to_phys(p) || (*state & MMU_ACCESSED))
		return MMU_KEEP;
	if (p->flags & PG_lazyfree) {
		if ((*state & MMU_DIRTY) || (p->flags & PG_dirty) || v->shared) {
			page_clear_lazyfree(p);
			v->activate = true;     /* Linux: swap-backed again, activate_locked */
			return MMU_KEEP;
		}
		mm_unmap_page(v->mm, p, false, c->tlb);
		v->dropped = true;
		count_vm_event(VM_PGLAZYFREED);         /* now, before anyone can read the page back as zero */
		return MMU_CLEAR;
	}
	if (v->shared) {
		v->swap = !(*state & MMU_WRITE);
		return MMU_KEEP;
	}
	v->swap = true;
	if (!(*state & MMU_DIRTY))
		return MMU_KEEP;
	*state &= ~MMU_DIRTY;
	return MMU_UPDATE;
}

/*
 * Put the n pages to write in address order (insertion sort: n <= 32).
 * Slots are handed out in the batch's order, and swap-in reads ahead only
 * entries at the next addresses that hold the next slots (mm/swap_pte.c).
 * The LRU's order is the address order of a sequential writer only while
 * one CPU works the list: with kswapd on another CPU, pages it keeps
 * (second chance, back to the head) and pages the program adds meanwhile
 * reach the head interleaved, and a batch in list order held two address
 * runs alternating, which left readahead one page a fault (swap_roundtrip
 * at 2 CPUs: 30545 pages in by 27014 major faults, against 14.7 pages a
 * fault with reclaim=scan).
 */
static void sort_by_address(uintptr_t *va, struct page **pages, bool *shared, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		uintptr_t v = va[i];
		struct page *p = pages[i];
		bool s = shared[i];
		unsigned j = i;

		for (; j > 0 && va[j - 1] > v; j--) {
			va[j] = va[j - 1];
			pages[j] = pages[j - 1];
			shared[j] = shared[j - 1];
		}
		va[j] = v;
		pages[j] = p;
		shared[j] = s;
	}
}

/*
 * Reclaim the victims that mm maps (its mmap_lock held for reading):
 * lazily freed ones dropped, the others written out together, in address
 * order.
 */
static void reclaim_in_mm(struct mm *mm, struct victim *vs, unsigned n, struct reclaim_scan *rs)
{
	uintptr_t va[LRU_SCAN_BATCH];
	struct page *pages[LRU_SCAN_BATCH];
	bool shared[LRU_SCAN_BATCH];
	unsigned k = 0;
	struct tlb_batch tlb;

	mm_tlb_init(&tlb, mm, false);
	for (unsigned i = 0; i < n; i++) {
		struct prepare_ctx c = { &vs[i], &tlb };

		if (vs[i].mm != mm)
			continue;
		mm_pt_lock(mm);
		arch_mmu_walk(mm->mmu, vs[i].va, vs[i].va + PAGE_SIZE, prepare_visit, &c, &tlb);
		mm_pt_unlock(mm);
		if (vs[i].dropped)
			reclaim_freed(rs, 1);
		if (vs[i].swap) {
			va[k] = vs[i].va;
			pages[k] = vs[i].page;
			shared[k++] = vs[i].shared;
		}
	}
	mm_tlb_finish(&tlb);    /* cleaned entries flushed: a write now sets the dirty bit again */
	if (k) {
		unsigned out;

		sort_by_address(va, pages, shared, k);
		out = mm_swap_out_batch(mm, va, pages, shared, k);

		reclaim_freed(rs, out);
		rs->swapped += out;
	}
}

/* Reclaim the n victims, address space by address space; each goes back to the list (freed ones leave it with our put). */
static void reclaim_victims(struct victim *vs, unsigned n, struct reclaim_scan *rs, enum reclaim_who who)
{
	for (unsigned i = 0; i < n; i++) {
		struct mm *mm = vs[i].mm;

		if (!mm)
			continue;
		if (who == RECLAIM_KSWAPD || rs->may_wait)
			mmap_read_lock(mm);
		else if (!mmap_read_trylock(mm))
			mm = NULL;
		if (mm) {
			reclaim_in_mm(mm, vs + i, n - i, rs);
			mmap_read_unlock(mm);
		}
		for (unsigned j = n; j-- > i;)          /* this address space's victims are done */
			if (vs[j].mm == vs[i].mm && j != i) {
				mm_put_deferred(vs[j].mm);
				vs[j].mm = NULL;
			}
		mm_put_deferred(vs[i].mm);
		vs[i].mm = NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		lru_putback(vs[i].page, lru_list_for(vs[i].page, vs[i].activate), false);
		user_page_put(vs[i].page);
	}
}

/* Linux inactive_is_low: the inactive list of a kind (inactive) is shorter than its active one over the ratio. */
static bool inactive_is_low(enum lru_list inactive)
{
	unsigned long in = lru_list_pages(inactive), act = lru_list_pages(inactive + 1);
	unsigned long gb = (in + act) >> (30 - PAGE_SHIFT), ratio = 1;

	while (gb && (ratio + 1) * (ratio + 1) <= 10 * gb)
		ratio++;                /* int_sqrt(10 * gb) */
	return in * ratio < act;
}

/*
 * Linux shrink_active_list for a batch: from the active tail to the
 * inactive head, accessed bits cleared. Page-cache pages too (their
 * entries found through the file reverse map): one that file I/O
 * activated (lru_mark_accessed) ages back as Linux's file pages do.
 */
static void shrink_active(enum lru_list active)
{
	struct page *pages[LRU_SCAN_BATCH];
	unsigned looked, n = lru_isolate(active, pages, LRU_SCAN_BATCH, &looked);

	for (unsigned i = 0; i < n; i++) {
		rmap_referenced(pages[i], NULL, NULL);
		lru_putback(pages[i], lru_list_for(pages[i], false), false);
		user_page_put(pages[i]);
	}
}

/*
 * A mapped page-cache page from the inactive tail (Linux
 * shrink_folio_list for a mapped shmem folio): its references tested as
 * an anonymous page's; unused, it is unmapped from every entry through
 * the file reverse map (try_to_unmap_file, dirty bits carried into the
 * page). True: no entry maps it any more, and it goes on with the
 * unmapped ones (dropped clean, written dirty); false: it goes back to
 * the list the verdict says (our reference put). A page that may be dirty
 * is left mapped when reclaim may not swap (unmapping would free nothing).
 */
static bool unmap_cache_page(struct page *p, const struct reclaim_scan *rs)
{
	enum verdict r = check_references(p);

	if (r == RECLAIM && (rs->may_swap || !(READ_ONCE(p->flags) & PG_dirty)) && try_to_unmap_file(p))
		return true;
	lru_putback(p, lru_list_for(p, r == ACTIVATE), false);
	user_page_put(p);
	return false;
}

/*
 * One batch of the inactive list's tail (Linux shrink_inactive_list):
 * each anonymous page isolated and looked at (counted in rs->scanned) is
 * kept, activated or reclaimed; the look stops once what is being
 * reclaimed would meet rs->want. Page-cache pages are reclaimed
 * (mm/shmem_swap.c), mapped ones unmapped first (unmap_cache_page).
 * *budget loses the pages passed at the tail. Returns how many (0: the
 * list is empty).
 */
static unsigned shrink_inactive(enum lru_list inactive, struct reclaim_scan *rs, enum reclaim_who who,
				unsigned long *budget)
{
	struct page *pages[LRU_SCAN_BATCH], *cache[LRU_SCAN_BATCH];
	struct victim vs[LRU_SCAN_BATCH];
	unsigned looked, nv = 0, nc = 0, i;
	unsigned n = lru_isolate(inactive, pages, (unsigned)MIN(*budget, LRU_SCAN_BATCH), &looked);

	for (i = 0; i < n && rs->freed + nv + nc < rs->want; i++) {
		struct page *p = pages[i];
		enum verdict r = KEEP;

		if (!(p->flags & PG_anon)) {
			/* shmem nothing maps: no reference to test (shmem_reclaim_pages) */
			if (!READ_ONCE(p->mapcount) || unmap_cache_page(p, rs))
				cache[nc++] = p;
			continue;
		}
		r = check_references(p);
		vs[nv].page = p;
		if (r == RECLAIM && locate(&vs[nv])) {
			nv++;
			continue;
		}
		lru_putback(p, lru_list_for(p, r == ACTIVATE), false);
		user_page_put(p);
	}
	rs->scanned += i;
	*budget -= MIN(*budget, (unsigned long)(looked - (n - i)));
	for (unsigned j = n; j-- > i;) {                /* not looked at: back where they were */
		lru_putback(pages[j], lru_list_for(pages[j], false), true);
		user_page_put(pages[j]);
	}
	reclaim_victims(vs, nv, rs, who);
	for (unsigned j = 0; j < nc; j++)               /* listed again: the write may leave them */
		lru_putback(cache[j], lru_list_for(cache[j], false), false);
	shmem_reclaim_pages(cache, nc, rs);             /* takes our references */
	return looked;
}

/* Shrink one kind's pair of lists (inactive and the active one after it) until rs->want is met or each page was passed once. */
static void shrink_kind(enum lru_list inactive, struct reclaim_scan *rs, enum reclaim_who who)
{
	unsigned long budget = lru_list_pages(inactive) + lru_list_pages(inactive + 1);

	while (rs->freed < rs->want && budget) {
		if (inactive_is_low(inactive))
			shrink_active(inactive + 1);
		if (!shrink_inactive(inactive, rs, who, &budget))
			break;
	}
}

void lru_shrink(struct reclaim_scan *rs, enum reclaim_who who)
{
	lru_drain_all();
	shrink_kind(LRU_INACTIVE_FILE, rs, who);
	shrink_kind(LRU_INACTIVE_ANON, rs, who);
}
