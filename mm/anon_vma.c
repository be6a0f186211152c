/*
 * Anon identities (Linux's anon_vma, without the anon_vma_chain of fork:
 * the one fact merging needs from the chain, "more than one entry", is
 * struct vma's anon_forked; the reverse map's from it, "which VMAs may map
 * a page of this identity", is the fork family's list of VMAs, kept by
 * its root identity: include/rmap.h):
 * allocation from a slab cache, reference counting by the VMAs that point
 * at one (by the anonymous pages it maps, and by the other identities of its family for a root), a unique
 * id for test output. Which VMA gets which identity is decided in mm/vma.c
 * (vma_anon_prepare, splits, merges).
 *
 * Locking: the reference count is atomic: pages hold references too, and
 * a page can lose its last mapping in another address space (a fork
 * child) on another CPU, under that address space's locks. The VMA links
 * (vma_refs, v->anon) change under the owning mm's mmap_lock for writing,
 * or for reading plus the page-table lock (vma_anon_prepare in a fault),
 * which serializes the faults of one mm that create or share an identity;
 * the family's list changes under its root's lock too (class ANON_VMA,
 * inside pt_lock), which the reverse map takes alone.
 * Whoever drops the count to zero frees the identity; no VMA can point at
 * it then. The cache is created on first use, safely from any CPU
 * (kmem_cache_get_or_create).
 */
#include "anon_vma.h"
#include "slab.h"
#include "vma_internal.h"
#include "kerrno.h"
#include "lock_order.h"

static struct kmem_cache *anon_cachep;
static unsigned long anon_next_id = 1;

/*
 * anon_identity_cache_init: create the slab cache of anon identities if it
 * does not exist yet. 0 or -ENOMEM. Called by mm_vma_init.
 */
int anon_identity_cache_init(void)
{
	return kmem_cache_get_or_create(&anon_cachep, "anon_vma", sizeof(struct anon_identity), 0) ?
	       0 : -ENOMEM;
}

/* anon_identity_inuse: identities now allocated (for leak checks in tests). */
size_t anon_identity_inuse(void)
{
	return anon_cachep ? kmem_cache_inuse(anon_cachep) : 0;
}

struct anon_vma *anon_identity_alloc(struct anon_vma *parent)
{
	struct anon_identity *ai;

	if (anon_identity_cache_init())
		return NULL;
	ai = kmem_cache_zalloc(anon_cachep);
	if (!ai)
		return NULL;
	ai->av.id = __atomic_fetch_add(&anon_next_id, 1, __ATOMIC_RELAXED);
	spin_init_class(&ai->lock, "anon_vma", LOCK_CLASS_ANON_VMA);
	list_init(&ai->vmas);
	ai->root = ai;
	if (parent) {
		ai->root = anon_identity(parent)->root;
		anon_vma_get(&ai->root->av);
	}
	return &ai->av;
}

void vma_anon_link(struct vma *v, struct anon_vma *av)
{
	BUG_ON(v->anon);
	struct anon_identity *ai = anon_identity(av), *root = ai->root;

	__atomic_add_fetch(&av->refcount, 1, __ATOMIC_RELAXED);
	spin_lock(&root->lock);
	ai->vma_refs++;
	list_add_tail(&vma_rmap(v)->anon_node, &root->vmas);
	v->anon = av;
	spin_unlock(&root->lock);
}

/* Drop n references of any kind; the last frees the identity. */
static void anon_identity_put(struct anon_vma *av, unsigned n)
{
	unsigned left = __atomic_sub_fetch(&av->refcount, n, __ATOMIC_ACQ_REL);

	BUG_ON(left > ~0u - n);
	if (left == 0) {
		struct anon_identity *ai = anon_identity(av), *root = ai->root;

		BUG_ON(ai->vma_refs != 0);
		kmem_cache_free(anon_cachep, ai);
		if (root != ai)
			anon_identity_put(&root->av, 1);   /* the family's first goes with its last member */
	}
}

void vma_anon_unlink(struct vma *v)
{
	struct anon_vma *av = v->anon;
	struct anon_identity *ai;

	if (!av)
		return;
	ai = anon_identity(av);
	spin_lock(&ai->root->lock);
	BUG_ON(ai->vma_refs == 0);
	list_del(&vma_rmap(v)->anon_node);
	v->anon = NULL;
	v->anon_forked = false;
	ai->vma_refs--;
	spin_unlock(&ai->root->lock);
	anon_identity_put(av, 1);
}

/*
 * anon_vma_get / anon_vma_put: references that are not VMAs (the anonymous
 * pages tagged with the identity). put frees the identity when the last
 * reference of any kind is gone. Any CPU, any lock (atomic).
 */
void anon_vma_get(struct anon_vma *av)
{
	anon_vma_get_many(av, 1);
}

void anon_vma_put(struct anon_vma *av)
{
	anon_identity_put(av, 1);
}

void anon_vma_put_many(struct anon_vma *av, unsigned n)
{
	anon_identity_put(av, n);
}
