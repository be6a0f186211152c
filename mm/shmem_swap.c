/*
 * Page-cache pages in swap (Linux mm/shmem.c's shmem_writeout and
 * shmem_swapin_folio): every page cache here is shmem (tmpfs files,
 * memfds, MAP_SHARED | MAP_ANONYMOUS), with nothing behind it but
 * memory, so under pressure a dirty page goes to a swap slot and the
 * slot of the object's tree holds the swap entry in its place
 * (include/vm_object.h); a clean page (never written: it holds zeros) is
 * just dropped, as Linux drops a clean shmem folio.
 *
 * Reclaim (shmem_reclaim, called from mm/vmscan.c's rounds) goes round
 * the list of every object (mm/filemap.c's clock), each one turn from
 * where its last scan stopped round to there, and takes the pages that
 * nothing maps and nobody holds (mapcount 0, the cache's reference
 * alone); by default (reclaim=lru) the LRU's inactive tail brings such pages
 * here too (shmem_reclaim_pages, Linux's shmem_writeout from
 * shrink_folio_list). The clock does not unmap: its mapped pages stay
 * until their mappings go (munmap, exit); the LRU unmaps a mapped victim
 * first, through the file reverse map (mm/vmscan_lru.c,
 * try_to_unmap_file), and hands it here unmapped. A candidate is referenced and its
 * PG_dirty cleared under o->lock, written to a slot with no lock held,
 * and then leaves the tree only if it is still there, unmapped, unheld
 * and not dirtied again (write() and zaps set PG_dirty after writing),
 * so the slot always holds the page's last contents; otherwise its
 * dirty bit is set back and the slot freed.
 *
 * Swap-in (vm_object_swap_in): a lookup that meets a swap entry reads it
 * into a new page, together with the entries after it that hold the
 * next slots (readahead: a file written out in order comes back in few
 * requests), and the page takes the slot's place, dirty (only it holds
 * the data now: Linux's shmem frees the swap entry on swap-in too). Each
 * slot read gets a reference of its own first, so that a truncation
 * meanwhile cannot free it under the read. Faults count a major fault
 * (mm/fault.c), read() does not (Linux: shmem_fault only).
 *
 * Locking: o->lock (spinning) around every look at the tree, never held
 * across I/O; slots counted under swap_lock inside it.
 */
#include "internal.h"
#include "lockless.h"
#include "swap.h"
#include "vmstat.h"
#include "kerrno.h"
#include "sleep.h"

/* Pages looked at, and written, at a time (and read ahead at most). */
#define SHMEM_BATCH 32
#define SHMEM_READAHEAD 16

struct shmem_batch {
	unsigned n;
	unsigned long pgoff[SHMEM_BATCH];
	struct page *page[SHMEM_BATCH];
};

/*
 * Write the batch's pages to new slots; each one still as it was then
 * leaves o's cache for its slot. Drops the batch's references. Returns
 * the pages swapped out. No lock held.
 */
static unsigned long write_batch(struct vm_object *o, struct shmem_batch *b)
{
	swp_entry_t e[SHMEM_BATCH] = { { 0 } };
	bool ok[SHMEM_BATCH] = { false }, moved[SHMEM_BATCH] = { false };
	unsigned got = swap_slots_alloc(e, b->n);
	unsigned long out = 0, fl;

	swap_rw_batch(e, b->page, got, true, ok);
	fl = spin_lock_irqsave(&o->lock);
	for (unsigned i = 0; i < b->n; i++) {
		moved[i] = i < got && ok[i] && vm_object_to_swap_locked(o, b->pgoff[i], b->page[i], 1, e[i].val);
		if (!moved[i])
			vm_object_page_dirty(b->page[i]);   /* still only in memory: never drop it as clean */
		out += moved[i];
	}
	spin_unlock_irqrestore(&o->lock, fl);
	for (unsigned i = 0; i < b->n; i++) {
		if (i < got && !moved[i])
			swap_slot_free(e[i]);
		user_page_put(b->page[i]);              /* a page swapped out: its frame is free now */
	}
	count_vm_events(VM_PSWPOUT, out);
	return out;
}

/*
 * Look at o's entries from pgoff *from on (at most SHMEM_BATCH): drop the
 * clean unmapped pages, collect the dirty ones into b (referenced, their
 * dirty bit cleared) when rs->may_swap. *from moves past what was looked
 * at, back to 0 at the end of the tree (false then). o->lock held.
 */
static bool scan_locked(struct vm_object *o, unsigned long *from, struct reclaim_scan *rs, struct shmem_batch *b)
{
	unsigned long pgoffs[SHMEM_BATCH];
	void *slots[SHMEM_BATCH];
	unsigned n = vm_object_gang_locked(o, *from, SHMEM_BATCH, pgoffs, slots);

	if (!n) {
		*from = 0;
		return false;
	}
	for (unsigned i = 0; i < n && rs->freed + b->n < rs->want; i++) {
		struct page *p = slots[i];

		*from = pgoffs[i] + 1;
		if (vmo_slot_is_swap(p) || READ_ONCE(p->mapcount) || page_refs(p) != 1)
			continue;
		rs->scanned++;
		if (!(READ_ONCE(p->flags) & PG_dirty)) {
			vm_object_remove_locked(o, pgoffs[i], pgoffs[i] + 1);   /* frees it: holes read as zeros */
			reclaim_freed(rs, 1);
			rs->shmem++;
		} else if (rs->may_swap) {
			user_page_get(p);
			__atomic_fetch_and(&p->flags, ~PG_dirty, __ATOMIC_RELAXED);
			b->pgoff[b->n] = pgoffs[i];
			b->page[b->n++] = p;
		}
	}
	return true;
}

/*
 * One turn of o's clock: from its hand to the end of the tree, then from
 * the start back to where the hand was, so that the unmapped pages behind
 * the hand are found too (a file read back in order has them all there:
 * stopping at the end made a reclaim free nothing while memory was full
 * of them, and the read that asked for room came back short).
 */
void shmem_reclaim_object(struct vm_object *o, struct reclaim_scan *rs)
{
	unsigned long start = ~0UL;
	bool wrapped = false;

	while (rs->freed < rs->want) {
		struct shmem_batch b = { 0 };
		unsigned long fl = spin_lock_irqsave(&o->lock), from = o->reclaim_pgoff;
		bool more;

		if (start == ~0UL)
			start = from;
		more = scan_locked(o, &from, rs, &b);
		o->reclaim_pgoff = from;
		spin_unlock_irqrestore(&o->lock, fl);
		if (b.n) {
			unsigned long out = write_batch(o, &b);

			reclaim_freed(rs, out);
			rs->shmem += out;
		}
		if (!more) {
			if (wrapped || !start)
				break;
			wrapped = true;         /* at the end: on from the start, up to where the hand was */
		} else if (wrapped && from >= start) {
			break;
		}
	}
}

void shmem_reclaim(struct reclaim_scan *rs)
{
	unsigned long objects = vm_object_count();

	for (unsigned long i = 0; i < objects && rs->freed < rs->want; i++) {
		struct vm_object *o = vm_object_next_to_scan();

		if (!o)
			break;
		shmem_reclaim_object(o, rs);
		vm_object_put(o);
	}
}

/*
 * Page p of o (the caller's reference) from the LRU: still o's cache page
 * at p->index, unmapped and held by nobody else, it is dropped when clean
 * (the caller's put then frees it) or, when rs->may_swap, joins b with
 * the caller's reference, its dirty bit cleared. True: it joined b (the
 * reference is the batch's now); false: the caller drops its reference.
 * o->lock held.
 */
static bool take_locked(struct vm_object *o, struct page *p, struct reclaim_scan *rs, struct shmem_batch *b)
{
	unsigned long pgoff = p->index, at;
	void *slot;

	if (vm_object_gang_locked(o, pgoff, 1, &at, &slot) != 1 || at != pgoff || slot != p ||
	    READ_ONCE(p->mapcount) || page_refs(p) != 2)
		return false;
	if (!(READ_ONCE(p->flags) & PG_dirty)) {
		vm_object_remove_locked(o, pgoff, pgoff + 1);   /* the cache's reference: ours frees it */
		reclaim_freed(rs, 1);
		rs->shmem++;
		return false;
	}
	if (!rs->may_swap)
		return false;
	__atomic_fetch_and(&p->flags, ~PG_dirty, __ATOMIC_RELAXED);
	b->pgoff[b->n] = pgoff;
	b->page[b->n++] = p;
	return true;
}

void shmem_reclaim_pages(struct page **pages, unsigned n, struct reclaim_scan *rs)
{
	for (unsigned i = 0, j; i < n; i = j) {
		struct vm_object *o = vm_object_of_page_get(pages[i]);
		struct shmem_batch b = { 0 };
		unsigned long fl;

		j = i + 1;
		if (!o) {
			user_page_put(pages[i]);
			continue;
		}
		while (j < n && j - i < SHMEM_BATCH && READ_ONCE(pages[j]->private) == o)
			j++;                    /* the run of o's pages (each checked under o->lock) */
		fl = spin_lock_irqsave(&o->lock);
		for (unsigned k = i; k < j; k++)
			if (!take_locked(o, pages[k], rs, &b))
				user_page_put(pages[k]);        /* stays, or dropped clean: ours was the last */
		spin_unlock_irqrestore(&o->lock, fl);
		if (b.n) {
			unsigned long out = write_batch(o, &b); /* drops the batch's references */

			reclaim_freed(rs, out);
			rs->shmem += out;
		}
		vm_object_put(o);
	}
}

/*
 * The entries from pgoff on that hold consecutive slots from swap_val, at
 * consecutive offsets (at most max <= SHMEM_READAHEAD), each slot with a
 * reference of its own in e. Their count. o->lock held.
 */
static unsigned readahead_locked(struct vm_object *o, unsigned long pgoff, unsigned long swap_val,
				 unsigned max, swp_entry_t *e)
{
	unsigned long pgoffs[SHMEM_READAHEAD];
	void *slots[SHMEM_READAHEAD];
	unsigned n = vm_object_gang_locked(o, pgoff, max, pgoffs, slots), k = 0;

	while (k < n && pgoffs[k] == pgoff + k && slots[k] == vmo_swap_slot(swap_val + k)) {
		e[k].val = swap_val + k;
		if (swap_slot_dup(e[k]))
			break;
		k++;
	}
	return k;
}

/* vm_object_swap_in, reading at most max (<= SHMEM_READAHEAD) pages: the one at pgoff and those after it. */
static int swap_in_run(struct vm_object *o, unsigned long pgoff, unsigned max)
{
	swp_entry_t e[SHMEM_READAHEAD];
	struct page *p[SHMEM_READAHEAD];
	bool ok[SHMEM_READAHEAD] = { false }, placed[SHMEM_READAHEAD] = { false }, read;
	unsigned long fl = spin_lock_irqsave(&o->lock), pgoffs[1];
	void *slots[1];
	unsigned k = 0, got;

	if (vm_object_gang_locked(o, pgoff, 1, pgoffs, slots) && pgoffs[0] == pgoff && vmo_slot_is_swap(slots[0]))
		k = readahead_locked(o, pgoff, vmo_slot_swap_val(slots[0]), max, e);
	spin_unlock_irqrestore(&o->lock, fl);
	if (!k)
		return 0;
	/* user pages: the min watermark stays the kernel's (a fault then reclaims and comes back) */
	for (got = 0; got < k && (p[got] = pmm_alloc(0, GFP_USER)); got++)
		;
	if (got)
		swap_rw_batch(e, p, got, false, ok);
	read = got && ok[0];
	fl = spin_lock_irqsave(&o->lock);
	for (unsigned i = 0; i < got; i++) {
		placed[i] = ok[i] && vm_object_from_swap_locked(o, pgoff + i, e[i].val, p[i]);
		if (placed[i])
			count_vm_event(VM_PSWPIN);
	}
	spin_unlock_irqrestore(&o->lock, fl);
	for (unsigned i = 0; i < k; i++) {
		swap_slot_free(e[i]);
		if (i < got && !placed[i])
			user_page_put(p[i]);
	}
	if (!got)
		return -ENOMEM;
	if (!read)
		return -EIO;            /* Linux: an I/O error reading shmem back is -EIO (a fault: SIGBUS) */
	return placed[0] ? 1 : 0;
}

int vm_object_swap_in(struct vm_object *o, unsigned long pgoff)
{
	return swap_in_run(o, pgoff, SHMEM_READAHEAD);
}

/* The offset of o's first page in swap in [first, last), or last; o->lock held 64 entries at a time. */
static unsigned long next_swapped(struct vm_object *o, unsigned long first, unsigned long last)
{
	unsigned long pgoffs[64], at = last;
	void *slots[64];
	unsigned got = 64;

	while (at == last && got == 64 && first < last && READ_ONCE(o->nrswapped)) {
		unsigned long fl = spin_lock_irqsave(&o->lock);

		got = vm_object_gang_locked(o, first, 64, pgoffs, slots);
		for (unsigned i = 0; i < got && pgoffs[i] < last && at == last; i++)
			if (vmo_slot_is_swap(slots[i]))
				at = pgoffs[i];
		spin_unlock_irqrestore(&o->lock, fl);
		if (got)
			first = pgoffs[got - 1] + 1;
	}
	return at;
}

void vm_object_willneed(struct vm_object *o, unsigned long first, unsigned long last)
{
	while ((first = next_swapped(o, first, last)) < last) {
		if (swap_in_run(o, first, (unsigned)MIN((unsigned long)SHMEM_READAHEAD, last - first)) < 0)
			return;         /* no memory to read into, or an I/O error: the rest stays in swap */
		first++;
		cond_resched();
	}
}

unsigned long vm_object_swapped(struct vm_object *o, unsigned long first, unsigned long last)
{
	unsigned long pgoffs[64], n = 0, fl = spin_lock_irqsave(&o->lock);
	void *slots[64];
	unsigned got;

	if (o->nrswapped) {
		do {
			got = vm_object_gang_locked(o, first, 64, pgoffs, slots);
			for (unsigned i = 0; i < got && pgoffs[i] < last; i++)
				n += vmo_slot_is_swap(slots[i]);
			first = got ? pgoffs[got - 1] + 1 : last;
		} while (got == 64 && first < last);
	}
	spin_unlock_irqrestore(&o->lock, fl);
	return n;
}
