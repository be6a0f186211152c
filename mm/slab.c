/*
 * Slab allocator: each cache carves buddy blocks ("slabs") into fixed-size
 * slots. A slab starts with its descriptor (struct slab), followed by the
 * slots; every struct page of the slab points at the descriptor through
 * page->private, so freeing an object finds its slab in O(1).
 *
 * Debug layout of a slot (SLAB_DEBUG): [object][red zone, 8 bytes][pad].
 * The red zone holds RZ_ACTIVE while the object is allocated and RZ_FREE
 * while it is free; a free object is filled with POISON after the freelist
 * link. An overwritten red zone, broken poison (write after free) or a free
 * of a free object (double free) is reported and counted in
 * slab_debug_errors; the damaged object is then left out of circulation.
 *
 * KASAN builds (include/kasan.h) add the sanitizer's metadata after the
 * red zone ([object][red zone][struct kasan_slot_meta][pad]), tell the
 * sanitizer which bytes of a slot are allocated, and send a freed object
 * through its quarantine before the slot goes back on the freelist
 * (slab_release_object). A quarantined object no longer counts in the
 * cache's inuse but still in its slab's.
 *
 * Locking: kmem_cache.lock protects the cache's slab lists and counters and
 * each slab's freelist. Lock order: a cache lock, then pmm_lock.
 */
#include "slab.h"
#include "lockless.h"
#include "pmm.h"
#include "list.h"
#include "kerrno.h"
#include "kstring.h"
#include "printk.h"
#include "spinlock.h"
#include "kasan.h"

#if defined(KASAN) && !defined(SLAB_DEBUG)
#error "KASAN keeps its metadata after SLAB_DEBUG's red zone"
#endif
#ifdef KASAN
/* The allocator fills poisoned memory (free slots): not a bad access. */
#define memset __memset
#endif

#define POISON     0x6b
#define RZ_ACTIVE  0xa11ca7edbeefa11cULL
#define RZ_FREE    0xf4eef4eef4eef4eeULL
#define RZ_SIZE    8

struct slab {
	struct list_head list;        /* on cache->partial, ->full or ->empty */
	struct kmem_cache *cache;
	void *freelist;               /* first free slot; a free slot's first word links the next */
	unsigned inuse;               /* allocated slots */
};

struct kmem_cache {
	const char *name;
	size_t object_size;           /* what the user asked for */
	size_t stride;                /* distance between slots */
	size_t align;
	size_t first;                 /* offset of slot 0 from the slab start */
	unsigned order;               /* buddy order of one slab */
	unsigned per_slab;            /* slots per slab */
	struct spinlock lock;
	struct list_head partial, full, empty;
	size_t inuse;                 /* allocated objects */
	size_t slabs;
	size_t inuse_mark, slabs_mark;        /* at the last slab_mark_all */
	struct list_head all;         /* on all_caches (all_caches_lock) */
};

unsigned long slab_debug_errors;
static struct list_head all_caches = LIST_HEAD_INIT(all_caches);
static struct spinlock all_caches_lock = SPINLOCK_INIT_CLASS("all_caches", LOCK_CLASS_SLAB_LIST);
static unsigned long fail_countdown;

#ifdef SLAB_DEBUG
static const bool debug = true;
#else
static const bool debug = false;
#endif

void slab_fail_nth(unsigned long n) { fail_countdown = n; }

static bool injected_failure(void)
{
	if (fail_countdown == 0)
		return false;
	return --fail_countdown == 0;
}

static inline uint64_t *redzone(const struct kmem_cache *c, void *obj)
{
	return (uint64_t *)((char *)obj + ALIGN_UP(c->object_size, 8));
}

/* The object's room: its size rounded up to the red zone's alignment. */
static inline size_t room(const struct kmem_cache *c)
{
	return ALIGN_UP(c->object_size, 8);
}

#ifdef KASAN
static inline struct kasan_slot_meta *kasan_meta(const struct kmem_cache *c, void *obj)
{
	return (struct kasan_slot_meta *)((char *)redzone(c, obj) + RZ_SIZE);
}
#endif

static inline void *slot(const struct kmem_cache *c, struct slab *s, unsigned i)
{
	return (char *)s + c->first + (size_t)i * c->stride;
}

static void report(const struct kmem_cache *c, void *obj, const char *what)
{
	slab_debug_errors++;
	printk("slab: %s: %s at %p\n", c->name, what, obj);
}

/* Bytes of poison past the freelist link of a free slot. */
static inline size_t poison_len(const struct kmem_cache *c)
{
	size_t n = ALIGN_UP(c->object_size, 8);
	return n > sizeof(void *) ? n - sizeof(void *) : 0;
}

static void poison_free_slot(struct kmem_cache *c, void *obj)
{
	if (!debug)
		return;
	memset((char *)obj + sizeof(void *), POISON, poison_len(c));
	*redzone(c, obj) = RZ_FREE;
}

/* Is the poison of a free slot intact? */
static bool poison_ok(const struct kmem_cache *c, void *obj)
{
	/* A word at a time: the poison starts 8-aligned (past the link) and is a multiple of 8 long. */
	const uint64_t *p = (const uint64_t *)((char *)obj + sizeof(void *));
	const uint64_t word = POISON * 0x0101010101010101ULL;

	for (size_t i = 0; i < poison_len(c) / sizeof(uint64_t); i++)
		if (p[i] != word)
			return false;
	return *redzone(c, obj) == RZ_FREE;
}

static void cache_setup(struct kmem_cache *c, const char *name, size_t size, size_t align)
{
	if (align < 8)
		align = 8;
	c->name = name;
	c->object_size = size;
	c->align = align;
	size_t s = ALIGN_UP(size < sizeof(void *) ? sizeof(void *) : size, 8);
	if (debug)
		s += RZ_SIZE + kasan_meta_size();
	c->stride = ALIGN_UP(s, align);
	c->first = ALIGN_UP(sizeof(struct slab), align);
	/* Smallest order that holds at least 8 slots (or 1 for huge objects). */
	c->order = 0;
	while (c->order < PMM_MAX_ORDER &&
	       ((PAGE_SIZE << c->order) - c->first) / c->stride < 8)
		c->order++;
	c->per_slab = (unsigned)(((PAGE_SIZE << c->order) - c->first) / c->stride);
	spin_init_class(&c->lock, name, LOCK_CLASS_SLAB_CACHE);
	list_init(&c->partial);
	list_init(&c->full);
	list_init(&c->empty);
	c->inuse = 0;
	c->slabs = 0;
	c->inuse_mark = 0;              /* new since the mark: it had nothing then */
	c->slabs_mark = 0;
	unsigned long flags = spin_lock_irqsave(&all_caches_lock);
	list_add_tail(&c->all, &all_caches);
	spin_unlock_irqrestore(&all_caches_lock, flags);
}

/* A new slab for c, all slots free; NULL on -ENOMEM. c->lock held. */
static struct slab *slab_grow_locked(struct kmem_cache *c)
{
	struct page *pg = pmm_alloc(c->order, 0);
	if (!pg)
		return NULL;
	struct slab *s = page_address(pg);
	s->cache = c;
	s->inuse = 0;
	s->freelist = NULL;
	for (unsigned i = c->per_slab; i-- > 0;) {
		void *obj = slot(c, s, i);
		*(void **)obj = s->freelist;
		s->freelist = obj;
		poison_free_slot(c, obj);
	}
	for (unsigned i = 0; i < (1U << c->order); i++) {
		pg[i].flags |= PG_slab;
		pg[i].private = s;
	}
#ifdef KASAN
	kasan_slab_new(s, PAGE_SIZE << c->order);
#endif
	list_add(&s->list, &c->empty);
	c->slabs++;
	return s;
}

static void slab_release_locked(struct kmem_cache *c, struct slab *s)
{
	struct page *pg = virt_to_page(s);
	list_del(&s->list);
	for (unsigned i = 0; i < (1U << c->order); i++) {
		pg[i].flags &= ~PG_slab;
		pg[i].private = NULL;
	}
	c->slabs--;
	pmm_free(pg, c->order);
}

static struct kmem_cache cache_cache;   /* the cache that kmem_cache structs come from */

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align)
{
	if (size == 0 || size > (PAGE_SIZE << PMM_MAX_ORDER) / 2 || (align & (align - 1)) ||
	    align > PAGE_SIZE)
		return NULL;
	struct kmem_cache *c = kmem_cache_alloc(&cache_cache);
	if (!c)
		return NULL;
	cache_setup(c, name, size, align);
	return c;
}

void kmem_cache_destroy(struct kmem_cache *c)
{
	if (!c)
		return;
#ifdef KASAN
	kasan_quarantine_drain();
#endif
	unsigned long flags = spin_lock_irqsave(&c->lock);
	if (c->inuse) {
		printk("slab: destroying %s with %zu objects still allocated; its pages leak\n",
		       c->name, c->inuse);
		slab_debug_errors++;
		spin_unlock_irqrestore(&c->lock, flags);
		return;
	}
	while (!list_empty(&c->empty))
		slab_release_locked(c, list_first_entry(&c->empty, struct slab, list));
	spin_unlock_irqrestore(&c->lock, flags);
	flags = spin_lock_irqsave(&all_caches_lock);
	list_del(&c->all);
	spin_unlock_irqrestore(&all_caches_lock, flags);
	kmem_cache_free(&cache_cache, c);
}

/* An object of c of which size bytes are the caller's (the sanitizer's view; the rest is red zone). */
static void *cache_alloc(struct kmem_cache *c, size_t size)
{
	if (injected_failure())
		return NULL;
	unsigned long flags = spin_lock_irqsave(&c->lock);
	for (;;) {
		struct slab *s;
		if (!list_empty(&c->partial))
			s = list_first_entry(&c->partial, struct slab, list);
		else if (!list_empty(&c->empty))
			s = list_first_entry(&c->empty, struct slab, list);
		else if (!(s = slab_grow_locked(c))) {
			spin_unlock_irqrestore(&c->lock, flags);
			return NULL;
		}
		void *obj = s->freelist;
		s->freelist = *(void **)obj;
		s->inuse++;
		list_del(&s->list);
		list_add(&s->list, s->freelist ? &c->partial : &c->full);
		if (debug && !poison_ok(c, obj)) {
			/* Written after free: keep it out of circulation (counted as in use). */
			report(c, obj, *redzone(c, obj) == RZ_FREE ? "write after free" : "red zone overwritten while free");
			*redzone(c, obj) = 0;
			continue;
		}
		if (debug)
			*redzone(c, obj) = RZ_ACTIVE;
		c->inuse++;
		spin_unlock_irqrestore(&c->lock, flags);
#ifdef KASAN
		kasan_slab_alloc(obj, size, room(c), kasan_meta(c, obj));
#else
		(void)size;
#endif
		return obj;
	}
}

void *kmem_cache_alloc(struct kmem_cache *c)
{
	return cache_alloc(c, c->object_size);
}

void *kmem_cache_zalloc(struct kmem_cache *c)
{
	void *p = kmem_cache_alloc(c);
	if (p)
		memset(p, 0, c->object_size);
	return p;
}

/* Put obj back on its slab's freelist; the slab moves lists (an extra empty one is released). */
static void slab_put_locked(struct kmem_cache *c, struct slab *s, void *obj)
{
	*(void **)obj = s->freelist;
	s->freelist = obj;
	poison_free_slot(c, obj);
	s->inuse--;
	list_del(&s->list);
	if (s->inuse == 0) {
		list_add(&s->list, &c->empty);
		/* Keep one empty slab cached; give the rest back. */
		if (c->empty.next->next != &c->empty)
			slab_release_locked(c, s);
	} else {
		list_add(&s->list, &c->partial);
	}
}

void kmem_cache_free(struct kmem_cache *c, void *obj)
{
	if (!obj)
		return;
	struct page *pg = virt_to_page(obj);
	struct slab *s = pg ? pg->private : NULL;
	if (!pg || !(pg->flags & PG_slab) || s->cache != c) {
		panic("kmem_cache_free: %p is not an object of cache %s", obj, c->name);
	}
	if (((char *)obj - ((char *)s + c->first)) % c->stride != 0)
		panic("kmem_cache_free: %p is not the start of an object of %s", obj, c->name);

	unsigned long flags = spin_lock_irqsave(&c->lock);
	if (debug) {
		uint64_t rz = *redzone(c, obj);
		if (rz == RZ_FREE) {
			report(c, obj, "double free");
			spin_unlock_irqrestore(&c->lock, flags);
			return;
		}
		if (rz != RZ_ACTIVE)
			report(c, obj, "red zone overwritten (buffer overflow)");
	}
	c->inuse--;
#ifdef KASAN
	*redzone(c, obj) = RZ_FREE;             /* a second free is a double free */
	spin_unlock_irqrestore(&c->lock, flags);
	kasan_slab_free(obj, room(c), kasan_meta(c, obj));
	kasan_quarantine_put(obj);
#else
	slab_put_locked(c, s, obj);
	spin_unlock_irqrestore(&c->lock, flags);
#endif
}

#ifdef KASAN
void slab_release_object(void *obj)
{
	struct slab *s = virt_to_page(obj)->private;
	struct kmem_cache *c = s->cache;
	unsigned long flags = spin_lock_irqsave(&c->lock);

	slab_put_locked(c, s, obj);
	spin_unlock_irqrestore(&c->lock, flags);
}

size_t slab_object_room(const void *obj)
{
	const struct slab *s = virt_to_page(obj)->private;

	return room(s->cache);
}

bool slab_object_of(const void *addr, void **obj, struct kasan_slot_meta **meta)
{
	struct page *pg = virt_to_page(addr);
	struct slab *s = pg ? pg->private : NULL;
	struct kmem_cache *c;
	size_t off;

	if (!pg || !(pg->flags & PG_slab) || !s)
		return false;
	c = s->cache;
	if ((const char *)addr < (char *)s + c->first)
		return false;
	off = (size_t)((const char *)addr - ((char *)s + c->first)) / c->stride;
	if (off >= c->per_slab)
		return false;
	*obj = slot(c, s, (unsigned)off);
	*meta = kasan_meta(c, *obj);
	return true;
}
#endif


size_t kmem_cache_inuse(const struct kmem_cache *c) { return c->inuse; }

/* Give back c's empty slabs (a cache keeps one empty slab to avoid churn). */
static void kmem_cache_shrink(struct kmem_cache *c)
{
	unsigned long flags = spin_lock_irqsave(&c->lock);
	while (!list_empty(&c->empty))
		slab_release_locked(c, list_first_entry(&c->empty, struct slab, list));
	spin_unlock_irqrestore(&c->lock, flags);
}

void slab_shrink_all(void)
{
#ifdef KASAN
	kasan_quarantine_drain();               /* quarantined objects hold their slabs */
#endif
	/* Lock order: all_caches_lock, then a cache's lock, then pmm_lock. */
	unsigned long flags = spin_lock_irqsave(&all_caches_lock);
	struct list_head *pos;
	list_for_each(pos, &all_caches)
		kmem_cache_shrink(list_entry(pos, struct kmem_cache, all));
	spin_unlock_irqrestore(&all_caches_lock, flags);
}

void slab_mark_all(void)
{
	unsigned long flags = spin_lock_irqsave(&all_caches_lock);
	struct list_head *pos;

	list_for_each(pos, &all_caches) {
		struct kmem_cache *c = list_entry(pos, struct kmem_cache, all);
		unsigned long f = spin_lock_irqsave(&c->lock);

		c->inuse_mark = c->inuse;
		c->slabs_mark = c->slabs;
		spin_unlock_irqrestore(&c->lock, f);
	}
	spin_unlock_irqrestore(&all_caches_lock, flags);
}

bool kmem_cache_changed(const struct kmem_cache *c)
{
	/* Unlocked reads: a report's, at a quiet moment (a leak check) or of the caller's own cache. */
	return READ_ONCE(c->inuse) != c->inuse_mark || READ_ONCE(c->slabs) != c->slabs_mark;
}

void slab_report_changed(void)
{
	unsigned long flags = spin_lock_irqsave(&all_caches_lock);
	struct list_head *pos;

	list_for_each(pos, &all_caches) {
		struct kmem_cache *c = list_entry(pos, struct kmem_cache, all);

		if (kmem_cache_changed(c))
			printk("slab: %s: %zu objects in %zu slabs of %u frames, at the mark %zu in %zu\n", c->name,
			       c->inuse, c->slabs, 1U << c->order, c->inuse_mark, c->slabs_mark);
	}
	spin_unlock_irqrestore(&all_caches_lock, flags);
}

/* Check one slab: freelist inside the slab, on slot boundaries, no loops, count matching. */
static int check_slab_locked(struct kmem_cache *c, struct slab *s)
{
	unsigned nfree = 0;
	for (void *o = s->freelist; o; o = *(void **)o) {
		char *lo = (char *)s + c->first;
		if ((char *)o < lo || (char *)o >= lo + (size_t)c->per_slab * c->stride ||
		    ((char *)o - lo) % c->stride) {
			printk("kmem_cache_check: %s: freelist entry %p outside slab %p\n", c->name, o, (void *)s);
			return -EINVAL;
		}
		if (++nfree > c->per_slab) {
			printk("kmem_cache_check: %s: freelist loop in slab %p\n", c->name, (void *)s);
			return -EINVAL;
		}
		if (debug && !poison_ok(c, o)) {
			report(c, o, "poison broken in free object");
			return -EINVAL;
		}
	}
	if (nfree + s->inuse != c->per_slab) {
		printk("kmem_cache_check: %s: slab %p has %u free + %u used != %u\n",
		       c->name, (void *)s, nfree, s->inuse, c->per_slab);
		return -EINVAL;
	}
	return 0;
}

int kmem_cache_check(struct kmem_cache *c)
{
	struct list_head *lists[3] = { &c->partial, &c->full, &c->empty };
	size_t used = 0, slabs = 0;
	int err = 0;
	unsigned long flags = spin_lock_irqsave(&c->lock);

	for (int l = 0; l < 3 && !err; l++) {
		struct list_head *pos;
		list_for_each(pos, lists[l]) {
			struct slab *s = list_entry(pos, struct slab, list);
			slabs++;
			used += s->inuse;
			bool right_list = (l == 0 && s->inuse > 0 && s->inuse < c->per_slab) ||
					  (l == 1 && s->inuse == c->per_slab) || (l == 2 && s->inuse == 0);
			if (!right_list) {
				printk("kmem_cache_check: %s: slab %p with %u used on the wrong list\n",
				       c->name, (void *)s, s->inuse);
				err = -EINVAL;
				break;
			}
			if ((err = check_slab_locked(c, s)))
				break;
		}
	}
	/* Objects dropped for damaged poison are counted in a slab's inuse but not in c->inuse. */
	if (!err && (used < c->inuse || slabs != c->slabs)) {
		printk("kmem_cache_check: %s: slabs say %zu used in %zu slabs; cache says %zu in %zu\n",
		       c->name, used, slabs, c->inuse, c->slabs);
		err = -EINVAL;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return err;
}

int slab_check_all(unsigned *checked)
{
	/* Lock order: all_caches_lock, then a cache's lock (as slab_shrink_all). */
	unsigned long flags = spin_lock_irqsave(&all_caches_lock);
	struct list_head *pos;
	unsigned n = 0;
	int err = 0;

	list_for_each(pos, &all_caches) {
		n++;
		if (kmem_cache_check(list_entry(pos, struct kmem_cache, all)))
			err = -EINVAL;
	}
	spin_unlock_irqrestore(&all_caches_lock, flags);
	if (checked)
		*checked = n;
	return err;
}

/* kmalloc size classes: 8, 16, ..., 2048 bytes. */
#define KMALLOC_MIN_SHIFT 3
#define KMALLOC_MAX_SHIFT 11
static struct kmem_cache kmalloc_caches[KMALLOC_MAX_SHIFT - KMALLOC_MIN_SHIFT + 1];
static const char *const kmalloc_names[] = {
	"kmalloc-8", "kmalloc-16", "kmalloc-32", "kmalloc-64", "kmalloc-128",
	"kmalloc-256", "kmalloc-512", "kmalloc-1024", "kmalloc-2048",
};

void slab_init(void)
{
	cache_setup(&cache_cache, "kmem_cache", sizeof(struct kmem_cache), 0);
	for (unsigned i = 0; i < ARRAY_SIZE(kmalloc_caches); i++)
		cache_setup(&kmalloc_caches[i], kmalloc_names[i], 1UL << (i + KMALLOC_MIN_SHIFT), 0);
}

void *kmalloc(size_t size)
{
	if (size == 0)
		return NULL;
	if (size <= (1UL << KMALLOC_MAX_SHIFT)) {
		unsigned shift = KMALLOC_MIN_SHIFT;
		while ((1UL << shift) < size)
			shift++;
		return cache_alloc(&kmalloc_caches[shift - KMALLOC_MIN_SHIFT], size);
	}
	/* Big: a whole buddy block; its head page remembers the order. */
	unsigned order = 0;
	while ((PAGE_SIZE << order) < size)
		order++;
	if (order > PMM_MAX_ORDER || injected_failure())
		return NULL;
	struct page *pg = pmm_alloc(order, 0);
	return pg ? page_address(pg) : NULL;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);
	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(void *p)
{
	if (!p)
		return;
	struct page *pg = virt_to_page(p);
	if (pg->flags & PG_slab) {
		struct slab *s = pg->private;
		kmem_cache_free(s->cache, p);
		return;
	}
	if (pg->flags & (PG_reserved | PG_buddy) || !IS_ALIGNED((uintptr_t)p, PAGE_SIZE))
		panic("kfree: %p was not allocated by kmalloc", p);
	pmm_free(pg, pg->order);
}

struct kmem_cache *kmem_cache_get_or_create(struct kmem_cache **slot, const char *name, size_t size,
					    size_t align)
{
	struct kmem_cache *c = smp_load_acquire(slot), *expected = NULL;

	if (c)
		return c;
	c = kmem_cache_create(name, size, align);
	if (!c)
		return NULL;
	if (!__atomic_compare_exchange_n(slot, &expected, c, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		kmem_cache_destroy(c);          /* another CPU won */
		c = expected;
	}
	return c;
}
