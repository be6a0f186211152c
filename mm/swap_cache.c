/*
 * The swap cache (Linux mm/swap_state.c, in small): the private anonymous
 * pages that fork left mapped by more than one entry, written once to a
 * swap slot and kept in memory while any entry still maps them.
 *
 * Reclaim meets such a page in one address space's page tables: the page
 * is written to a new slot and enters the cache (mm/swap_pte.c), then
 * every entry that maps it, found through the reverse map (mm/rmap.c),
 * becomes a swap entry of the slot, at no I/O. The page cannot
 * change meanwhile: every entry maps it read-only (fork made them so), and
 * a write fault never takes a cached page over in place (the cache's
 * reference makes it look shared: do_wp_page copies). When the last entry
 * stops mapping it, the cache lets it go (its put, swap_cache_release)
 * and the frame is free; the slot keeps the data for the swap entries.
 * A fault on a swap entry whose slot has a cached page maps that page
 * (read-only: a minor fault, no I/O) instead of reading the slot.
 *
 * The cache holds one reference to each page in it and one to its slot.
 * A page leaves only once no entry maps it: one still mapped keeps its
 * slot even after every swap entry of it is gone (it is copied, not
 * reused, on a write), since dropping the cache's reference while an
 * entry may be going away elsewhere could free the frame before that
 * entry's TLB flush.
 *
 * Locking: cache_lock (class SWAP_CACHE: inside pt_lock, outside
 * swap_lock) protects the hash and page->swap of cached pages; page->swap
 * is also read without it (set only while the caller holds a reference).
 */
#include "internal.h"
#include "lockless.h"
#include "swap.h"
#include "spinlock.h"
#include "lock_order.h"
#include "kerrno.h"

#define CACHE_BUCKETS 512             /* hash chains, linked through page->lru */

static struct list_head buckets[CACHE_BUCKETS];        /* [cache_lock] */
static bool buckets_ready;                              /* [cache_lock] */
static unsigned long nr_cached;                         /* [cache_lock] */
static struct spinlock cache_lock = SPINLOCK_INIT_CLASS("swap_cache", LOCK_CLASS_SWAP_CACHE);

/* The chain of slot val. cache_lock held. */
static struct list_head *chain(unsigned long val)
{
	if (!buckets_ready) {
		for (unsigned i = 0; i < CACHE_BUCKETS; i++)
			list_init(&buckets[i]);
		buckets_ready = true;
	}
	return &buckets[(val * 0x9E3779B97F4A7C15UL) >> 55];
}

/* The page cached for slot val, or NULL. cache_lock held. */
static struct page *find_locked(unsigned long val)
{
	struct list_head *h = chain(val), *pos;

	list_for_each(pos, h) {
		struct page *p = list_entry(pos, struct page, lru);

		if (p->swap == val)
			return p;
	}
	return NULL;
}

swp_entry_t swap_cache_add(struct page *p, swp_entry_t e)
{
	swp_entry_t got = e;

	spin_lock(&cache_lock);
	if (p->swap) {
		got.val = p->swap;              /* another reclaimer cached it first */
	} else {
		list_add(&p->lru, chain(e.val));
		smp_store_release(&p->swap, e.val);
		user_page_get(p);
		nr_cached++;
	}
	spin_unlock(&cache_lock);
	return got;
}

int swap_cache_dup(struct page *p, swp_entry_t *e)
{
	int err = -ENOENT;

	spin_lock(&cache_lock);
	if (p->swap) {
		e->val = p->swap;
		err = swap_slot_dup(*e);
	}
	spin_unlock(&cache_lock);
	return err;
}

struct page *swap_cache_lookup(swp_entry_t e)
{
	struct page *p;

	spin_lock(&cache_lock);
	p = find_locked(e.val);
	if (p)
		user_page_get(p);
	spin_unlock(&cache_lock);
	return p;
}

bool swap_cache_has(swp_entry_t e)
{
	bool has;

	spin_lock(&cache_lock);
	has = find_locked(e.val) != NULL;
	spin_unlock(&cache_lock);
	return has;
}

unsigned long swap_cache_pages(void)
{
	return READ_ONCE(nr_cached);
}

/* Take p out if only the cache holds it: its slot reference back to e; true if so. cache_lock held. */
static bool detach_unmapped_locked(struct page *p, swp_entry_t *e)
{
	if (!p->swap || page_total_refs(p) != 1 || page_total_mapcount(p))
		return false;
	e->val = p->swap;
	list_del(&p->lru);
	smp_store_release(&p->swap, 0);
	nr_cached--;
	return true;
}

void swap_cache_release(struct page *p, struct tlb_batch *tlb)
{
	swp_entry_t e;
	bool out;

	spin_lock(&cache_lock);
	out = detach_unmapped_locked(p, &e);
	spin_unlock(&cache_lock);
	if (!out)
		return;
	swap_slot_free(e);
	if (tlb)
		user_page_put_tlb(p, tlb);
	else
		user_page_put(p);
}

unsigned long swap_cache_shrink(void)
{
	struct list_head gone;
	unsigned long freed = 0;

	list_init(&gone);
	spin_lock(&cache_lock);
	(void)chain(0);                         /* (the chains made) */
	for (unsigned i = 0; i < CACHE_BUCKETS && nr_cached; i++) {
		struct list_head *pos, *tmp, *h = &buckets[i];

		list_for_each_safe(pos, tmp, h) {
			struct page *p = list_entry(pos, struct page, lru);
			swp_entry_t e;

			if (detach_unmapped_locked(p, &e)) {
				p->swap = e.val;        /* (kept for the slot's release below; not in the hash) */
				list_add(&p->lru, &gone);
			}
		}
	}
	spin_unlock(&cache_lock);
	while (!list_empty(&gone)) {
		struct page *p = list_first_entry(&gone, struct page, lru);
		swp_entry_t e = { p->swap };

		list_del(&p->lru);
		p->swap = 0;
		swap_slot_free(e);
		user_page_put(p);
		freed++;
	}
	return freed;
}
