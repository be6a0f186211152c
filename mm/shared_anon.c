/*
 * Shared anonymous memory objects (Linux's shmem file behind MAP_SHARED |
 * MAP_ANONYMOUS): one object per mmap, pages indexed by page offset in a
 * radix tree of 512-slot nodes, allocated zeroed on first fault. VMAs point
 * at the object (vma->object) and reference it through
 * shared_anon_object_ops (splits and fork take references, freed VMAs drop
 * them); the object owns one reference on each of its pages, every PTE
 * mapping a page one more. The object, and its pages, live until the last
 * VMA is gone: that is how the memory survives fork and munmap of a part.
 *
 * Locking: o->lock (a spinlock, innermost before pmm/slab) protects the
 * tree and the counters; the refcount changes atomically.
 */
#include "internal.h"
#include "slab.h"
#include "spinlock.h"
#include "kerrno.h"
#include "kstring.h"

#define SA_SHIFT 9
#define SA_SLOTS (1UL << SA_SHIFT)

struct shared_anon {
	int refcount;                 /* [atomic] VMAs + transient holders */
	unsigned long npages;         /* [init] size in pages; beyond: SIGBUS */
	unsigned depth;               /* [init] tree levels (1: root is a leaf node) */
	void **root;                  /* [lock] top node */
	unsigned long resident;       /* [lock] pages held */
	struct spinlock lock;
};

static size_t sa_inuse;

size_t shared_anon_inuse(void)
{
	return __atomic_load_n(&sa_inuse, __ATOMIC_RELAXED);
}

struct shared_anon *shared_anon_create(unsigned long npages)
{
	struct shared_anon *o = kzalloc(sizeof(*o));
	unsigned long cap = SA_SLOTS;

	if (!o)
		return NULL;
	o->depth = 1;
	while (cap < npages) {
		cap <<= SA_SHIFT;
		o->depth++;
	}
	o->root = kzalloc(SA_SLOTS * sizeof(void *));
	if (!o->root) {
		kfree(o);
		return NULL;
	}
	o->refcount = 1;
	o->npages = npages;
	spin_init_class(&o->lock, "shared_anon", LOCK_CLASS_SHARED_ANON);
	__atomic_add_fetch(&sa_inuse, 1, __ATOMIC_RELAXED);
	return o;
}

unsigned long shared_anon_size(const struct shared_anon *o)
{
	return o->npages;
}

unsigned long shared_anon_resident(const struct shared_anon *o)
{
	return o->resident;
}

void shared_anon_get(struct shared_anon *o)
{
	__atomic_add_fetch(&o->refcount, 1, __ATOMIC_RELAXED);
}

/* Free the subtree of node at level lvl (1: slots hold pages). */
static void sa_free_node(struct shared_anon *o, void **node, unsigned lvl)
{
	for (unsigned long i = 0; i < SA_SLOTS; i++) {
		if (!node[i])
			continue;
		if (lvl == 1) {
			struct page *p = node[i];

			p->private = NULL;
			user_page_put(p);
			o->resident--;
		} else {
			sa_free_node(o, node[i], lvl - 1);
		}
	}
	kfree(node);
}

void shared_anon_put(struct shared_anon *o)
{
	if (__atomic_sub_fetch(&o->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	sa_free_node(o, o->root, o->depth);
	BUG_ON(o->resident != 0);
	kfree(o);
	__atomic_sub_fetch(&sa_inuse, 1, __ATOMIC_RELAXED);
}

/* The leaf slot of pgoff, creating nodes when alloc; NULL when absent (or no memory, *nomem set). */
static void **sa_slot(struct shared_anon *o, unsigned long pgoff, bool alloc, bool *nomem)
{
	void **node = o->root;

	for (unsigned lvl = o->depth; lvl > 1; lvl--) {
		unsigned long i = (pgoff >> (SA_SHIFT * (lvl - 1))) & (SA_SLOTS - 1);

		if (!node[i]) {
			if (!alloc)
				return NULL;
			node[i] = kzalloc(SA_SLOTS * sizeof(void *));
			if (!node[i]) {
				*nomem = true;
				return NULL;
			}
		}
		node = node[i];
	}
	return &node[pgoff & (SA_SLOTS - 1)];
}

int shared_anon_page(struct shared_anon *o, unsigned long pgoff, bool alloc, struct page **out)
{
	unsigned long fl;
	bool nomem = false;
	void **slot;
	int err = 0;

	*out = NULL;
	if (pgoff >= o->npages)
		return -ENXIO;
	fl = spin_lock_irqsave(&o->lock);
	slot = sa_slot(o, pgoff, alloc, &nomem);
	if (!slot) {
		err = nomem ? -ENOMEM : 0;
	} else if (*slot) {
		*out = *slot;
	} else if (alloc) {
		struct page *p = pmm_alloc(0, GFP_ZERO);

		if (!p) {
			err = -ENOMEM;
		} else {
			p->private = o;
			*slot = p;
			o->resident++;
			*out = p;
		}
	}
	spin_unlock_irqrestore(&o->lock, fl);
	return err;
}

void shared_anon_punch(struct shared_anon *o, unsigned long pgoff, unsigned long n)
{
	unsigned long fl = spin_lock_irqsave(&o->lock);

	for (unsigned long i = pgoff; i < pgoff + n && i < o->npages; i++) {
		bool nomem = false;
		void **slot = sa_slot(o, i, false, &nomem);
		struct page *p;

		if (!slot || !*slot)
			continue;
		p = *slot;
		*slot = NULL;
		o->resident--;
		p->private = NULL;
		user_page_put(p);
	}
	spin_unlock_irqrestore(&o->lock, fl);
}

static void sa_ops_get(void *obj) { shared_anon_get(obj); }
static void sa_ops_put(void *obj) { shared_anon_put(obj); }

const struct vma_object_ops shared_anon_object_ops = { sa_ops_get, sa_ops_put };
