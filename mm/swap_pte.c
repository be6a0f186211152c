/*
 * Anonymous pages in swap (Linux: try_to_unmap + pageout for the way out,
 * do_swap_page for the way back, zap_pte_range / copy_pte_range /
 * move_ptes for the swap entries in between). A private anonymous page
 * that only one entry maps is written to a swap slot (include/swap.h) and
 * its entry becomes a swap entry holding the slot (include/arch_mmu.h);
 * the next access faults and reads it back into a new page (a major
 * fault), with the entries after it that hold the next slots (swap
 * readahead: Linux reads those into its swap cache, this kernel maps
 * them, old and clean; how many adapts, below), and the slots are freed. Reclaim writes its
 * candidates in runs of consecutive slots, one device request a run,
 * through a staging buffer. Unmapping frees the slots of the range,
 * fork gives the child a reference to each slot (the data is shared until
 * one side reads it back into a page of its own), mremap moves the entries.
 *
 * A page that only its one entry (and reclaim) holds is written before it
 * is unmapped; arch_mmu_swap_out then refuses when the page was written
 * meanwhile (its dirty bit, cleared before the write, is set again), so
 * the slot always holds the page's last contents. A page fork left mapped
 * by several entries (read-only in all) goes through the swap cache
 * (mm/swap_cache.c): written once, then every entry that maps it swapped
 * (the reverse map, mm/rmap.c), and a fault on such an entry while it is
 * cached maps the cached page again. Two
 * faults on one swap entry both read it; the second finds the entry gone
 * and drops its copy.
 *
 * Adaptive readahead (Linux: swapin_nr_pages, swap_vma_ra_win): a
 * fault's window (the most slots it reads, its own included) follows how
 * many pages read ahead were used. Each page read ahead is marked
 * PG_readahead (vmstat swap_ra). It is a hit (swap_ra_hit), its mark
 * cleared, when it is seen used: at the address space's next major fault,
 * which looks at the accessed bits of the last fault's window, or when
 * the LRU reclaimer's reference test (mm/vmscan_lru.c) finds it accessed;
 * that test finding it unused clears the mark (a miss: nothing counted;
 * reclaim=scan does not look, and a freed page loses its flags). The hits since the
 * last window was sized (one count for the whole system, as Linux's) size
 * the next: hits + 2 rounded up to a power of two, at most SWAP_READAHEAD;
 * no hit: 2 when the fault lands right after the pages the last fault
 * read (or right before the last fault), 1 otherwise; when it lands
 * right after them and every one read ahead was used, no smaller than the
 * last window (a run cut short where the next slots stopped is no reason
 * to shrink); never below half the address space's last window, so it
 * shrinks by halves. The first major fault of
 * an address space reads the full SWAP_READAHEAD. So sequential swap-in
 * keeps (or regains) 16 pages a fault, and random faults whose neighbours
 * go unused fall to one page. MADV_WILLNEED asks for its range: full
 * windows, not marked.
 *
 * Locking: swap entries change under pt_lock (a read mmap_lock held, or
 * the write lock); slot references are counted under swap_lock, which
 * nests inside pt_lock. Reads and writes of slots sleep: pt_lock is
 * dropped around them, and the fault path then holds only the mmap_lock
 * (never just a VMA lock: mm/fault.c falls back to the mmap_lock first).
 * mm->swap_ents is atomic.
 */
#include "internal.h"
#include "swap.h"
#include "vmstat.h"
#include "kerrno.h"
#include "slab.h"
#include "kstring.h"
#include "rwsem.h"
#include "lock_order.h"
#include "rmap.h"
#include "lockless.h"

static swp_entry_t entry_of(unsigned long val)
{
	swp_entry_t e = { val };

	return e;
}

struct swap_clear_ctx {
	struct mm *mm;
	bool drop;                    /* drop each slot's reference (else the caller keeps it) */
};

static enum mmu_action clear_swap_visit(void *arg, uintptr_t va, unsigned long val)
{
	struct swap_clear_ctx *c = arg;

	(void)va;
	if (c->drop)
		swap_slot_free(entry_of(val));
	mm_count(&c->mm->swap_ents, -1);
	return MMU_CLEAR;
}

unsigned long mm_swap_clear(struct mm *mm, uintptr_t start, uintptr_t end, bool drop)
{
	struct swap_clear_ctx c = { mm, drop };

	if (!READ_ONCE(mm->swap_ents))
		return 0;
	return arch_mmu_walk_swap(mm->mmu, start, end, clear_swap_visit, &c);
}

/* One page table's worth of swap entries, collected before they are set (dst may be src). */
#define SWAP_WINDOW (512UL << PAGE_SHIFT)

struct swap_window {
	uintptr_t base;
	unsigned n;
	uintptr_t va[512];
	unsigned long val[512];
};

static enum mmu_action collect_swap_visit(void *arg, uintptr_t va, unsigned long val)
{
	struct swap_window *w = arg;

	w->va[w->n] = va;
	w->val[w->n++] = val;
	return MMU_KEEP;
}

/* Set the collected entries at dst_start + (va - start); fork (dup) takes a slot reference for each. */
static int set_window(struct mm *dst, uintptr_t dst_start, uintptr_t start, const struct swap_window *w,
		      bool dup)
{
	for (unsigned i = 0; i < w->n; i++) {
		int err = dup ? swap_slot_dup(entry_of(w->val[i])) : 0;

		if (!err)
			err = arch_mmu_set_swap(dst->mmu, dst_start + (w->va[i] - start), w->val[i]);
		if (err) {
			if (dup)
				swap_slot_free(entry_of(w->val[i]));
			return -ENOMEM;
		}
		mm_count(&dst->swap_ents, 1);
	}
	return 0;
}

int mm_swap_copy(struct mm *dst, uintptr_t dst_start, struct mm *src, uintptr_t start, uintptr_t end,
		 bool dup)
{
	struct swap_window *w;
	int err = 0;

	if (!READ_ONCE(src->swap_ents))
		return 0;
	w = kmalloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (uintptr_t va = start; va < end && !err;) {
		uintptr_t wend = MIN(ALIGN_DOWN(va, SWAP_WINDOW) + SWAP_WINDOW, end);

		w->n = 0;
		arch_mmu_walk_swap(src->mmu, va, wend, collect_swap_visit, w);
		err = set_window(dst, dst_start, start, w, dup);
		va = wend;
	}
	kfree(w);
	return err;
}

/* ---- the staging buffer: runs of slots go to the device in one request */


static struct rwsem staging_lock;     /* class SWAP_IO: one user of the buffer at a time */
static char *staging;                 /* [staging_lock] SWAP_RUN pages, contiguous; NULL: none */
static int staging_ready;             /* [atomic] 0, 1 (being made), 2 (made) */

void swap_io_init(void)
{
	int none = 0;
	struct page *b;

	if (!__atomic_compare_exchange_n(&staging_ready, &none, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	rwsem_init(&staging_lock, "swap_io", LOCK_CLASS_SWAP_IO);
	b = pmm_alloc(6, 0);
	staging = b ? page_address(b) : NULL;   /* without it, one request per page */
	smp_store_release(&staging_ready, 2);
}

/* Run i..j-1 of pages <-> slots e[i]..: one request through the staging buffer (or one a page). */
static int rw_run(const swp_entry_t *e, struct page **pages, unsigned n, bool write)
{
	int err = 0;

	if (n == 1 || !staging || smp_load_acquire(&staging_ready) != 2) {
		for (unsigned i = 0; i < n && !err; i++)
			err = write ? swap_write_page(e[i], pages[i]) : swap_read_page(e[i], pages[i]);
		return err;
	}
	down_write(&staging_lock);
	if (write)
		for (unsigned i = 0; i < n; i++)
			memcpy(staging + i * PAGE_SIZE, page_address(pages[i]), PAGE_SIZE);
	err = swap_rw_run(e[0], staging, n, write);
	if (!write && !err)
		for (unsigned i = 0; i < n; i++)
			memcpy(page_address(pages[i]), staging + i * PAGE_SIZE, PAGE_SIZE);
	up_write(&staging_lock);
	return err;
}

void swap_rw_batch(const swp_entry_t *e, struct page **pages, unsigned n, bool write, bool *ok)
{
	for (unsigned i = 0, j; i < n; i = j) {
		int err;

		for (j = i + 1; j < n && e[j].val == e[j - 1].val + 1 && j - i < SWAP_RUN; j++)
			;                       /* a run of consecutive slots */
		err = rw_run(e + i, pages + i, j - i, write);
		for (unsigned k = i; k < j; k++)
			ok[k] = !err;
	}
}

/* ---- swap-out */

/*
 * p's copy is in slot e: replace its entry at va with the swap entry if p
 * is still this entry's alone (its reference and the caller's) and was
 * not written since it was cleaned. 0, -EBUSY, -ENOENT.
 */
static int swap_unmap(struct mm *mm, uintptr_t va, struct page *p, swp_entry_t e)
{
	int err;

	mm_pt_lock(mm);
	err = page_total_refs(p) == 2 && page_total_mapcount(p) == 1 ?
	      arch_mmu_swap_out(mm->mmu, va, page_to_phys(p), e.val, NULL) : -EBUSY;
	if (!err) {
		mm_unmap_page(mm, p, false, NULL);      /* the entry's reference; the caller's stays */
		mm_count(&mm->swap_ents, 1);
	}
	mm_pt_unlock(mm);
	return err;
}

int mm_swap_out_page(struct mm *mm, uintptr_t va, struct page *p)
{
	swp_entry_t e;
	int err = swap_slot_alloc(&e);

	if (err)
		return err;
	err = swap_write_page(e, p);
	if (!err)
		err = swap_unmap(mm, va, p, e);
	if (err)
		swap_slot_free(e);
	else
		count_vm_event(VM_PSWPOUT);
	return err;
}

int mm_swap_unmap_cached_locked(struct mm *mm, uintptr_t va, struct page *p)
{
	swp_entry_t e;
	int err = swap_cache_dup(p, &e);

	if (!err) {
		err = arch_mmu_swap_out(mm->mmu, va, page_to_phys(p), e.val, NULL);
		if (err)
			swap_slot_free(e);
	}
	if (!err) {
		mm_unmap_page(mm, p, false, NULL);      /* the entry's reference; the cache's and the caller's stay */
		mm_count(&mm->swap_ents, 1);
	}
	return err;
}

/*
 * The shared pages, now cached: every entry that maps one, in any address
 * space (the reverse map), becomes a swap entry of its slot. Returns how
 * many no entry maps any more (they leave memory with the caller's put).
 */
static unsigned unmap_cached(struct mm *mm, struct page **pages, const bool *take, unsigned n)
{
	unsigned done = 0;

	for (unsigned i = 0; i < n; i++)
		if (take[i] && smp_load_acquire(&pages[i]->swap) &&
		    try_to_unmap_swapcache(pages[i], mm))
			done++;
	return done;
}

unsigned mm_swap_out_batch(struct mm *mm, const uintptr_t *va, struct page **pages, const bool *shared,
			    unsigned n)
{
	swp_entry_t e[SWAP_RUN] = { { 0 } };
	struct page *io[SWAP_RUN];
	unsigned idx[SWAP_RUN];
	bool written[SWAP_RUN] = { false }, take[SWAP_RUN];
	unsigned got = 0, done = 0, wrote = 0;

	n = MIN(n, (unsigned)SWAP_RUN);
	/* A shared page another address space used since its last look keeps its place (second chance). */
	for (unsigned i = 0; i < n; i++)
		take[i] = shared[i] && !rmap_referenced(pages[i], mm, mm);
	/* Slots, in a row where there is room, for the pages not in the swap cache yet; the others need no I/O. */
	for (unsigned i = 0; i < n; i++) {
		if ((shared[i] && !take[i]) || smp_load_acquire(&pages[i]->swap))
			continue;
		io[got] = pages[i];
		idx[got++] = i;
	}
	got = swap_slots_alloc(e, got);
	swap_rw_batch(e, io, got, true, written);
	for (unsigned k = 0; k < got; k++) {
		struct page *p = io[k];

		if (!written[k]) {
			swap_slot_free(e[k]);
		} else if (!shared[idx[k]]) {
			if (swap_unmap(mm, va[idx[k]], p, e[k]) == 0) {
				done++;
				wrote++;
			} else {
				swap_slot_free(e[k]);
			}
		} else if (swap_cache_add(p, e[k]).val == e[k].val) {
			wrote++;
		} else {
			swap_slot_free(e[k]);   /* cached meanwhile with another slot */
		}
	}
	done += unmap_cached(mm, pages, take, n);
	count_vm_events(VM_PSWPOUT, wrote);
	return done;
}

/*
 * The swap entry val at va is still there: make it the present page p
 * (writable only when the VMA is, as do_swap_page maps it; never when p
 * is the swap cache's, which others may map: a write copies it), and
 * free the slot. pt_lock held.
 */
static bool swap_in_install(struct mm *mm, struct vma *vma, uintptr_t va, unsigned long val,
			    struct page *p, unsigned flags, bool accessed)
{
	phys_addr_t cur = 0;
	unsigned prot = mm_vm_to_mmu(vma->flags) | (accessed ? MMU_ACCESSED : 0);
	bool cached = smp_load_acquire(&p->swap) != 0;

	if (arch_mmu_query(mm->mmu, va, &cur, NULL) != -EAGAIN || cur != val)
		return false;           /* read back, or unmapped, meanwhile */
	if (cached)
		prot &= ~MMU_WRITE;
	else if (flags & FAULT_WRITE)
		prot |= MMU_DIRTY;
	if (arch_mmu_map(mm->mmu, va, page_to_phys(p), prot))
		return false;           /* cannot happen: the table holds the swap entry */
	page_mapcount_add(p, 1);
	mm_count(&mm->rss, 1);
	mm_count(&mm->swap_ents, -1);
	swap_slot_free(entry_of(val));
	return true;
}

/* Swap-in reads ahead the entries that follow va in the same page table and hold the next slots. */
#define SWAP_READAHEAD 16

static unsigned long ra_hits;         /* [atomic] pages read ahead found used since a window was last sized */

/* swap_ra_note's work; true when it counted a hit. */
static bool ra_note(struct page *p, bool used)
{
	if (!(READ_ONCE(p->flags) & PG_readahead) ||
	    !(__atomic_fetch_and(&p->flags, ~PG_readahead, __ATOMIC_RELAXED) & PG_readahead) || !used)
		return false;
	__atomic_add_fetch(&ra_hits, 1, __ATOMIC_RELAXED);
	count_vm_event(VM_SWAP_RA_HIT);
	return true;
}

void swap_ra_note(struct page *p, bool used)
{
	ra_note(p, used);
}

/* The pages mm's last fault read ahead, accessed since they were mapped, are hits: how many. pt_lock. */
static unsigned ra_scan_last(struct mm *mm)
{
	unsigned used = 0;

	for (unsigned i = 1; i < mm->swap_ra_read; i++) {
		phys_addr_t pa = 0;
		unsigned st = 0;
		struct page *p;

		if (arch_mmu_query(mm->mmu, mm->swap_ra_va + i * PAGE_SIZE, &pa, &st) || !(st & MMU_ACCESSED))
			continue;
		p = phys_to_page(pa);
		if (p && ra_note(p, true))
			used++;
	}
	return used;
}

/* The window of a major fault at va (the rule in the header comment); remembered in mm. pt_lock. */
static unsigned ra_window(struct mm *mm, uintptr_t va)
{
	unsigned last = mm->swap_ra_win, w = 1, used = last ? ra_scan_last(mm) : 0;
	bool next = last && va == mm->swap_ra_va + mm->swap_ra_read * PAGE_SIZE;
	unsigned long hits = __atomic_exchange_n(&ra_hits, 0, __ATOMIC_RELAXED);

	if (!last)
		w = SWAP_READAHEAD;
	else if (hits)
		while (w < MIN(hits + 2, (unsigned long)SWAP_READAHEAD))
			w <<= 1;
	else if (next || va + PAGE_SIZE == mm->swap_ra_va)
		w = 2;
	if (next && used + 1 == mm->swap_ra_read)
		w = MAX(w, last);       /* a run read ahead and used to its end: keep going */
	w = MAX(w, last / 2);
	mm->swap_ra_va = va;
	mm->swap_ra_win = w;
	return w;
}

/* How many entries from va on (at most max, below limit and inside va's page table) hold val, val + 1, ... pt_lock. */
static unsigned readahead_count(struct mm *mm, uintptr_t limit, uintptr_t va, unsigned long val, unsigned max)
{
	uintptr_t end = MIN(limit, ALIGN_DOWN(va, 512 * PAGE_SIZE) + 512 * PAGE_SIZE);
	unsigned k = 1;

	while (k < max && va + k * PAGE_SIZE < end) {
		phys_addr_t v = 0;

		if (arch_mmu_query(mm->mmu, va + k * PAGE_SIZE, &v, NULL) != -EAGAIN || v != val + k)
			break;
		k++;
	}
	return k;
}

/*
 * Read the swap entry val at va, and the entries after it below limit that
 * hold the next slots, into new pages and map them (the page at va as flags asks,
 * accessed when accessed; the others old and clean). A fault (accessed)
 * reads its adaptive window and marks the others read ahead; MADV_WILLNEED
 * (not accessed) reads up to SWAP_READAHEAD. pt_lock held,
 * dropped around the read. FAULT_OK, FAULT_OOM (not one page to be had),
 * FAULT_SIGBUS (I/O error: every entry stays).
 */
static enum fault_result swap_in_run(struct mm *mm, struct vma *vma, uintptr_t va, uintptr_t limit,
				     unsigned long val, unsigned flags, bool accessed, bool *io)
{
	struct page *p[SWAP_READAHEAD];
	swp_entry_t e[SWAP_READAHEAD];
	unsigned k, got;
	int err;

	p[0] = swap_cache_lookup(entry_of(val));
	*io = p[0] == NULL;
	if (p[0]) {                     /* still in memory: mapped again, read-only, no I/O */
		if (!swap_in_install(mm, vma, va, val, p[0], flags, accessed))
			user_page_put(p[0]);
		return FAULT_OK;
	}
	k = readahead_count(mm, limit, va, val, accessed ? ra_window(mm, va) : SWAP_READAHEAD);
	if (accessed)
		mm->swap_ra_read = k;
	/*
	 * Each slot read gets a reference of its own first: pt_lock is
	 * dropped for the read, and an entry unmapped meanwhile must not
	 * free its slot (and let it be written again) under the read.
	 */
	for (got = 0; got < k; got++) {
		e[got] = entry_of(val + got);
		if (swap_slot_dup(e[got]))
			break;
		p[got] = anon_page_alloc(vma, va + got * PAGE_SIZE, false);
		if (!p[got]) {
			swap_slot_free(e[got]);
			break;
		}
	}
	if (!got)
		return FAULT_OOM;
	mm_pt_unlock(mm);
	err = rw_run(e, p, got, false);
	mm_pt_lock(mm);
	for (unsigned i = 0; i < got; i++) {
		bool first = i == 0, ahead = !first && accessed;

		if (ahead)
			__atomic_fetch_or(&p[i]->flags, PG_readahead, __ATOMIC_RELAXED);
		if (err || !swap_in_install(mm, vma, va + i * PAGE_SIZE, e[i].val, p[i],
					    first ? flags : 0, first && accessed)) {
			user_page_put(p[i]);
		} else {
			count_vm_event(VM_PSWPIN);
			if (ahead)
				count_vm_event(VM_SWAP_RA);
		}
		swap_slot_free(e[i]);
	}
	return err ? FAULT_SIGBUS : FAULT_OK;   /* Linux: an I/O error is VM_FAULT_SIGBUS */
}

enum fault_result mm_swap_in(struct mm *mm, struct vma *vma, uintptr_t va, unsigned long val,
			     unsigned flags)
{
	enum fault_result r;
	bool io;

	if (vma_anon_prepare(mm, vma))
		return FAULT_OOM;
	r = swap_in_run(mm, vma, va, vma->end, val, flags, true, &io);
	if (r == FAULT_OK && io)
		count_vm_event(VM_PGMAJFAULT);      /* (a swap-cache hit is a minor fault) */
	return r;
}

void mm_swap_willneed(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end)
{
	if (!READ_ONCE(mm->swap_ents) || vma_anon_prepare(mm, vma))
		return;
	mm_pt_lock(mm);
	for (uintptr_t va = start; (va = arch_mmu_next_used(mm->mmu, va, end)) < end; va += PAGE_SIZE) {
		phys_addr_t val = 0;
		bool io;

		if (arch_mmu_query(mm->mmu, va, &val, NULL) != -EAGAIN)
			continue;
		if (swap_in_run(mm, vma, va, end, val, 0, false, &io) != FAULT_OK)
			break;          /* no memory to read into, or an I/O error: the rest stays in swap */
	}
	mm_pt_unlock(mm);
}
