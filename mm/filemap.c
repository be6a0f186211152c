/*
 * The page cache (include/vm_object.h): the pages of a memory object in a
 * radix tree indexed by page offset, 512 slots per node, as deep as the
 * largest offset used needs (a new level goes on top when an offset does
 * not fit); empty nodes are freed as pages leave. Pages are allocated
 * zeroed on first use (a tmpfs hole reads as zero) and charged to the
 * object's owner (tmpfs's size limit).
 *
 * Mirrors Linux's filemap/shmem lookup as far as an in-memory file system
 * needs it: no readahead, no writeback; its pages are on the anonymous
 * LRU lists (include/lru.h). Under memory pressure a page nothing maps
 * goes to swap and its slot holds the swap entry (mm/shmem_swap.c); a
 * lookup reads it back. Every object is on one list,
 * the clock reclaim goes round.
 *
 * Locking: o->lock around every tree change and lookup; a page handed out
 * carries a reference taken under the lock, so truncation cannot free it
 * while its user copies or maps it. objects_lock (class DEFAULT) around
 * the list alone, never with o->lock.
 */
#include "internal.h"
#include "slab.h"
#include "kerrno.h"
#include "kstring.h"
#include "swap.h"
#include "vmstat.h"
#include "vmscan.h"
#include "lru.h"
#include "lockless.h"
#include "printk.h"

#define VMO_SHIFT 9
#define VMO_SLOTS (1UL << VMO_SHIFT)
#define VMO_MAX_DEPTH 6                 /* 6 * 9 = 54 bits of page offset: more than files have */
#define VMO_MAX_PGOFF (1UL << (VMO_SHIFT * VMO_MAX_DEPTH))

static size_t objects_alive;                                   /* [atomic] */
static struct list_head objects = { &objects, &objects };     /* [objects_lock] */
static unsigned long objects_listed;                           /* [objects_lock] */
static struct spinlock objects_lock = SPINLOCK_INIT_CLASS("vm_objects", LOCK_CLASS_DEFAULT);

size_t vm_object_inuse(void)
{
	return READ_ONCE(objects_alive);
}

void vm_object_init(struct vm_object *o, const struct vm_object_ops *ops, uint64_t size)
{
	unsigned long fl;

	memset(o, 0, sizeof(*o));
	o->ops = ops;
	o->refcount = 1;
	o->size = size;
	spin_init_class(&o->lock, "vm_object", LOCK_CLASS_VM_OBJECT);
	spin_init_class(&o->i_mmap_lock, "i_mmap", LOCK_CLASS_I_MMAP);
	list_init(&o->i_mmap);
	__atomic_add_fetch(&objects_alive, 1, __ATOMIC_RELAXED);
	fl = spin_lock_irqsave(&objects_lock);
	list_add_tail(&o->all, &objects);
	objects_listed++;
	spin_unlock_irqrestore(&objects_lock, fl);
}

struct vm_object *vm_object_next_to_scan(void)
{
	unsigned long fl = spin_lock_irqsave(&objects_lock);
	struct vm_object *found = NULL;

	for (unsigned long i = 0; i < objects_listed && !found; i++) {
		struct vm_object *o = list_first_entry(&objects, struct vm_object, all);
		int refs = READ_ONCE(o->refcount);

		list_del(&o->all);
		list_add_tail(&o->all, &objects);
		/* a reference unless the last one is gone (the object is on its way out) */
		while (refs > 0 && !found)
			if (__atomic_compare_exchange_n(&o->refcount, &refs, refs + 1, false, __ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				found = o;
	}
	spin_unlock_irqrestore(&objects_lock, fl);
	return found;
}

struct vm_object *vm_object_of_page_get(struct page *p)
{
	unsigned long fl = spin_lock_irqsave(&objects_lock);
	struct vm_object *o = smp_load_acquire((struct vm_object **)&p->private);
	int refs;

	/* still o's page: o has not left the list yet (vm_object_put empties it first), so o is there to look at */
	if (!(READ_ONCE(p->flags) & PG_cache) || !o) {
		o = NULL;
	} else {
		refs = READ_ONCE(o->refcount);
		while (refs > 0 && !__atomic_compare_exchange_n(&o->refcount, &refs, refs + 1, false,
								 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			;
		if (refs <= 0)
			o = NULL;
	}
	spin_unlock_irqrestore(&objects_lock, fl);
	return o;
}

unsigned long vm_object_count(void)
{
	return READ_ONCE(objects_listed);       /* without objects_lock: races with adds and removals */
}

unsigned long vm_object_report(void)
{
	unsigned long fl = spin_lock_irqsave(&objects_lock), n = 0;
	struct list_head *pos;
	char what[80];

	list_for_each(pos, &objects) {
		struct vm_object *o = list_entry(pos, struct vm_object, all);
		unsigned long pages = READ_ONCE(o->nrpages);

		if (!pages)
			continue;
		n++;
		if (o->ops->describe)
			o->ops->describe(o, what, sizeof(what));
		else
			ksnprintf(what, sizeof(what), "object");
		printk("vm_object %p: %s: refcount %d, nr_vmas %ld, pages %lu (%lu in swap)\n", (void *)o, what,
		       READ_ONCE(o->refcount), READ_ONCE(o->nr_vmas), pages, READ_ONCE(o->nrswapped));
	}
	spin_unlock_irqrestore(&objects_lock, fl);
	return n;
}

void vm_object_get(struct vm_object *o)
{
	__atomic_add_fetch(&o->refcount, 1, __ATOMIC_RELAXED);
}

/* The pages a tree of depth levels can index. */
static unsigned long tree_capacity(unsigned depth)
{
	return 1UL << (VMO_SHIFT * depth);
}

/* p stops being a cache page (its slot already changed); the cache's reference is the caller's to drop. */
static void page_unset_cache(struct page *p)
{
	/* atomic: a zap in another address space may be setting PG_dirty (vm_object_page_dirty) */
	__atomic_fetch_and(&p->flags, ~PG_cache, __ATOMIC_RELAXED);
	p->private = NULL;
	mod_vm_stat(VM_NR_SHMEM, -1);
}

/* p becomes o's cache page at pgoff, dirty when dirty (its slot set by the caller, who gives the cache its reference). */
static void page_set_cache(struct vm_object *o, struct page *p, unsigned long pgoff, bool dirty)
{
	p->flags |= PG_cache | (dirty ? PG_dirty : 0);
	p->private = o;
	p->index = pgoff;                       /* where reclaim from the LRU finds its slot */
	mod_vm_stat(VM_NR_SHMEM, 1);
	lru_add(p, LRU_INACTIVE_ANON);          /* shmem is swap-backed: the anonymous lists (include/lru.h) */
}

/*
 * Take the entry of a slot out of the cache (the slot already cleared): a
 * page keeps only its mappings' references; a swap entry's slot is freed.
 */
static void entry_leave_cache(struct vm_object *o, void *entry)
{
	o->nrpages--;
	if (o->ops->charge)
		o->ops->charge(o, -1);
	if (vmo_slot_is_swap(entry)) {
		swp_entry_t e = { vmo_slot_swap_val(entry) };

		o->nrswapped--;
		swap_slot_free(e);
		return;
	}
	page_unset_cache(entry);
	user_page_put(entry);
}

/*
 * Remove the pages of [first, last) below node (level lvl, 1: slots hold
 * pages; base: the first offset it covers), freeing nodes left empty.
 * Returns true when node is empty afterwards (and was freed, unless keep).
 */
static bool tree_remove(struct vm_object *o, void **node, unsigned lvl, unsigned long base,
			unsigned long first, unsigned long last, bool keep)
{
	unsigned long span = 1UL << (VMO_SHIFT * (lvl - 1));
	bool empty = true;

	for (unsigned long i = 0; i < VMO_SLOTS; i++) {
		unsigned long lo = base + i * span, hi = lo + span;  /* depth <= 6: no overflow */

		if (!node[i])
			continue;
		if (hi <= first || lo >= last) {
			empty = false;
			continue;
		}
		if (lvl == 1) {
			void *entry = node[i];

			node[i] = NULL;
			entry_leave_cache(o, entry);
		} else if (!tree_remove(o, node[i], lvl - 1, lo, first, last, false)) {
			empty = false;
			continue;
		} else {
			node[i] = NULL;
		}
	}
	if (empty && !keep)
		kfree(node);
	return empty;
}

/* Remove the cache's pages in [first, last) under o->lock; the tree goes when empty. */
void vm_object_remove_locked(struct vm_object *o, unsigned long first, unsigned long last)
{
	assert_spin_held(&o->lock);
	if (!o->root || first >= last)
		return;
	if (tree_remove(o, o->root, o->depth, 0, first, last, true)) {
		kfree(o->root);
		o->root = NULL;
		o->depth = 0;
	}
}

void vm_object_evict(struct vm_object *o)
{
	unsigned long fl = spin_lock_irqsave(&o->lock);

	vm_object_remove_locked(o, 0, ~0UL);
	spin_unlock_irqrestore(&o->lock, fl);
}

void vm_object_put(struct vm_object *o)
{
	unsigned long fl;

	if (__atomic_sub_fetch(&o->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	/* pages first: while a page still names o, o is on the list (vm_object_of_page_get) */
	vm_object_evict(o);
	fl = spin_lock_irqsave(&objects_lock);
	list_del(&o->all);
	objects_listed--;
	spin_unlock_irqrestore(&objects_lock, fl);
	BUG_ON(o->nrpages != 0 || o->nrswapped != 0 || o->nr_vmas != 0 || !list_empty(&o->i_mmap));
	__atomic_sub_fetch(&objects_alive, 1, __ATOMIC_RELAXED);
	o->ops->release(o);
}

/* Add levels on top until pgoff fits. false on -ENOMEM (nothing changed that matters). */
static bool tree_grow(struct vm_object *o, unsigned long pgoff)
{
	while (!o->root || pgoff >= tree_capacity(o->depth)) {
		void **node = kzalloc(VMO_SLOTS * sizeof(void *));

		if (!node)
			return false;
		node[0] = o->root;
		o->root = node;
		o->depth++;
	}
	return true;
}

/* The leaf slot of pgoff, creating nodes when alloc; NULL when absent (or no memory: *nomem). */
static void **tree_slot(struct vm_object *o, unsigned long pgoff, bool alloc, bool *nomem)
{
	void **node;

	if (alloc && !tree_grow(o, pgoff)) {
		*nomem = true;
		return NULL;
	}
	if (!o->root || pgoff >= VMO_MAX_PGOFF || pgoff >= tree_capacity(o->depth))
		return NULL;
	node = o->root;
	for (unsigned lvl = o->depth; lvl > 1; lvl--) {
		unsigned long i = (pgoff >> (VMO_SHIFT * (lvl - 1))) & (VMO_SLOTS - 1);

		if (!node[i]) {
			if (!alloc)
				return NULL;
			node[i] = kzalloc(VMO_SLOTS * sizeof(void *));
			if (!node[i]) {
				*nomem = true;
				return NULL;
			}
		}
		node = node[i];
	}
	return &node[pgoff & (VMO_SLOTS - 1)];
}

/* The pages of size bytes (a page past them is past the end). */
static unsigned long size_pages(uint64_t size)
{
	return (unsigned long)((size + PAGE_SIZE - 1) >> PAGE_SHIFT);
}

/*
 * A new zeroed page for *slot (of pgoff), charged. 0, -ENOMEM, -ENOSPC.
 * A cache page is a user page (GFP_USER): it leaves the min watermark's
 * frames to the kernel, or a program filling tmpfs or shared memory would
 * make the kernel's own allocations (an open's struct file) fail.
 */
static int cache_fill(struct vm_object *o, void **slot, unsigned long pgoff)
{
	struct page *p;

	if (o->ops->charge && o->ops->charge(o, 1))
		return -ENOSPC;
	p = pmm_alloc(0, GFP_USER | GFP_ZERO);
	if (!p) {
		if (o->ops->charge)
			o->ops->charge(o, -1);
		return -ENOMEM;
	}
	page_set_cache(o, p, pgoff, false);
	*slot = p;
	o->nrpages++;
	return 0;
}

/*
 * Before a cache page is allocated where the caller may sleep (write(),
 * read() of a page in swap): below the min watermark, reclaim first
 * (direct reclaim, as Linux's allocator slow path does); below low, wake
 * kswapd. No lock held.
 */
static void vm_object_make_room(void)
{
	if (pmm_free_frames() < pmm_watermark(WMARK_MIN))
		mm_reclaim_direct(false);
	vmscan_check_low();
}

int vm_object_page(struct vm_object *o, unsigned long pgoff, unsigned flags, struct page **out)
{
	unsigned reclaims = 0;
	bool nomem = false;
	unsigned long fl;
	void **slot;
	int err = 0;

	*out = NULL;
	if (pgoff >= VMO_MAX_PGOFF)
		return -ENXIO;
	if (flags & VMO_RECLAIM)
		vm_object_make_room();
again:
	err = 0;
	fl = spin_lock_irqsave(&o->lock);
	if (!(flags & VMO_PAST_EOF) && pgoff >= size_pages(o->size)) {
		spin_unlock_irqrestore(&o->lock, fl);
		return -ENXIO;
	}
	slot = tree_slot(o, pgoff, flags & VMO_ALLOC, &nomem);
	if (!slot)
		err = nomem ? -ENOMEM : 0;
	else if (!*slot && (flags & VMO_ALLOC))
		err = cache_fill(o, slot, pgoff);
	else if (vmo_slot_is_swap(*slot) && (flags & VMO_NOWAIT))
		err = -EAGAIN;
	else if (vmo_slot_is_swap(*slot)) {
		spin_unlock_irqrestore(&o->lock, fl);
		err = vm_object_swap_in(o, pgoff);
		if (err == -ENOMEM && (flags & VMO_RECLAIM) && reclaims++ < 3 && mm_reclaim_direct(false))
			goto again;
		if (err < 0)
			return err;
		goto again;
	}
	if (!err && slot && *slot) {
		*out = *slot;
		user_page_get(*out);
	}
	spin_unlock_irqrestore(&o->lock, fl);
	if (err == -ENOMEM && (flags & VMO_RECLAIM) && reclaims++ < 3 && mm_reclaim_direct(false))
		goto again;
	return err;
}

int vm_object_add_page(struct vm_object *o, unsigned long pgoff, struct page *p)
{
	bool nomem = false;
	unsigned long fl;
	void **slot;
	int err = 0;

	if (pgoff >= VMO_MAX_PGOFF)
		return -EFBIG;
	fl = spin_lock_irqsave(&o->lock);
	slot = tree_slot(o, pgoff, true, &nomem);
	if (!slot)
		err = -ENOMEM;
	else if (*slot)
		err = -EEXIST;
	else if (o->ops->charge && o->ops->charge(o, 1))
		err = -ENOSPC;
	if (!err) {
		page_set_cache(o, p, pgoff, true);
		*slot = p;
		o->nrpages++;
	}
	spin_unlock_irqrestore(&o->lock, fl);
	return err;
}

void vm_object_page_put(struct page *p)
{
	user_page_put(p);
}

void vm_object_page_dirty(struct page *p)
{
	__atomic_fetch_or(&p->flags, PG_dirty, __ATOMIC_RELAXED);
}

bool vm_object_drop_clean(struct vm_object *o, unsigned long pgoff, struct page *p, unsigned held)
{
	bool nomem = false, drop;
	unsigned long fl = spin_lock_irqsave(&o->lock);
	void **slot = tree_slot(o, pgoff, false, &nomem);

	drop = slot && *slot == p && !(p->flags & PG_dirty) && p->mapcount == 0 &&
	       page_refs(p) == 1 + (int)held;
	if (drop)
		vm_object_remove_locked(o, pgoff, pgoff + 1);
	spin_unlock_irqrestore(&o->lock, fl);
	return drop;
}

bool vm_object_has_page(struct vm_object *o, unsigned long pgoff)
{
	bool nomem = false, there;
	unsigned long fl = spin_lock_irqsave(&o->lock);
	void **slot = tree_slot(o, pgoff, false, &nomem);

	there = slot && *slot && !vmo_slot_is_swap(*slot);
	spin_unlock_irqrestore(&o->lock, fl);
	return there;
}

uint64_t vm_object_size(struct vm_object *o)
{
	unsigned long fl = spin_lock_irqsave(&o->lock);
	uint64_t s = o->size;

	spin_unlock_irqrestore(&o->lock, fl);
	return s;
}

unsigned long vm_object_pages(struct vm_object *o)
{
	unsigned long fl = spin_lock_irqsave(&o->lock);
	unsigned long n = o->nrpages;

	spin_unlock_irqrestore(&o->lock, fl);
	return n;
}

void vm_object_set_size(struct vm_object *o, uint64_t size)
{
	unsigned long fl = spin_lock_irqsave(&o->lock);

	if (size > o->size)
		o->size = size;
	spin_unlock_irqrestore(&o->lock, fl);
}

/* Zero [off, PAGE_SIZE) of the cache page at pgoff, if there is one (o->lock held). */
void vm_object_zero_tail_locked(struct vm_object *o, unsigned long pgoff, size_t off)
{
	bool nomem = false;
	void **slot = tree_slot(o, pgoff, false, &nomem);

	assert_spin_held(&o->lock);
	if (slot && *slot && !vmo_slot_is_swap(*slot)) {
		memset((char *)page_address(*slot) + off, 0, PAGE_SIZE - off);
		vm_object_page_dirty(*slot);    /* a write: a swap-out under way must not keep the old tail */
	}
}

/* Collect the occupied slots below node (level lvl, first offset base) from first on into g. */
struct gang {
	unsigned n, max;
	unsigned long *pgoffs;
	void **slots;
};

static void gang_collect(void **node, unsigned lvl, unsigned long base, unsigned long first, struct gang *g)
{
	unsigned long span = 1UL << (VMO_SHIFT * (lvl - 1));

	for (unsigned long i = 0; i < VMO_SLOTS && g->n < g->max; i++) {
		unsigned long lo = base + i * span;

		if (!node[i] || lo + span <= first)
			continue;
		if (lvl > 1) {
			gang_collect(node[i], lvl - 1, lo, first, g);
			continue;
		}
		g->pgoffs[g->n] = lo;
		g->slots[g->n++] = node[i];
	}
}

unsigned vm_object_gang_locked(struct vm_object *o, unsigned long first, unsigned n,
			       unsigned long *pgoffs, void **slots)
{
	struct gang g = { 0, n, pgoffs, slots };

	assert_spin_held(&o->lock);
	if (o->root && first < tree_capacity(o->depth))
		gang_collect(o->root, o->depth, 0, first, &g);
	return g.n;
}

bool vm_object_to_swap_locked(struct vm_object *o, unsigned long pgoff, struct page *p, unsigned held,
			      unsigned long swap_val)
{
	bool nomem = false;
	void **slot = tree_slot(o, pgoff, false, &nomem);

	assert_spin_held(&o->lock);
	/* flags and mapcount change under other locks (page tables, atomics): read once */
	if (!slot || *slot != p || (READ_ONCE(p->flags) & PG_dirty) ||
	    READ_ONCE(p->mapcount) || page_refs(p) != 1 + (int)held)
		return false;
	*slot = vmo_swap_slot(swap_val);
	o->nrswapped++;
	page_unset_cache(p);
	user_page_put(p);               /* the cache's: the caller's keeps the frame until it lets go */
	return true;
}

bool vm_object_from_swap_locked(struct vm_object *o, unsigned long pgoff, unsigned long swap_val,
				struct page *p)
{
	bool nomem = false;
	void **slot = tree_slot(o, pgoff, false, &nomem);
	swp_entry_t e = { swap_val };

	assert_spin_held(&o->lock);
	if (!slot || *slot != vmo_swap_slot(swap_val))
		return false;
	page_set_cache(o, p, pgoff, true);     /* only the slot held its data: it must not be dropped as clean */
	*slot = p;
	o->nrswapped--;
	swap_slot_free(e);
	return true;
}

void vma_file_link(struct vma *v)
{
	struct vm_file *f = v->file;
	struct vm_object *o;

	if (!f)
		return;
	f->ops->get(f);
	o = f->obj;
	if (!o)
		return;
	__atomic_add_fetch(&o->nr_vmas, 1, __ATOMIC_RELAXED);
	spin_lock(&o->i_mmap_lock);
	list_add_tail(&vma_rmap(v)->file_node, &o->i_mmap);
	spin_unlock(&o->i_mmap_lock);
}

void vma_file_unlink(struct vma *v)
{
	struct vm_file *f = v->file;
	struct vm_object *o;

	if (!f)
		return;
	o = f->obj;
	if (o) {
		spin_lock(&o->i_mmap_lock);
		list_del(&vma_rmap(v)->file_node);
		spin_unlock(&o->i_mmap_lock);
		__atomic_sub_fetch(&o->nr_vmas, 1, __ATOMIC_RELEASE);
	}
	f->ops->put(f);                 /* may free o: after the list let go of v */
}
