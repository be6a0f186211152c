/*
 * Anon identities (Linux's anon_vma, without the anon_vma_chain of fork:
 * the one fact merging needs from the chain, "more than one entry", is
 * struct vma's anon_forked):
 * allocation from a slab cache, reference counting by the VMAs that point
 * at one (and, once rmap exists, by the anonymous pages it maps), a unique
 * id for test output. Which VMA gets which identity is decided in mm/vma.c
 * (vma_anon_prepare, splits, merges).
 *
 * Locking: callers hold the owning mm's mmap_lock for writing. The cache
 * pointer is set on first use, which happens during single-threaded boot
 * or in a test (mm_vma_init calls anon_identity_cache_init).
 */
#include "anon_vma.h"
#include "slab.h"
#include "vma_internal.h"
#include "kerrno.h"

static struct kmem_cache *anon_cachep;
static unsigned long anon_next_id = 1;

/*
 * anon_identity_cache_init: create the slab cache of anon identities if it
 * does not exist yet. 0 or -ENOMEM. Called by mm_vma_init.
 */
int anon_identity_cache_init(void)
{
	if (!anon_cachep)
		anon_cachep = kmem_cache_create("anon_vma", sizeof(struct anon_identity), 0);
	return anon_cachep ? 0 : -ENOMEM;
}

/* anon_identity_inuse: identities now allocated (for leak checks in tests). */
size_t anon_identity_inuse(void)
{
	return anon_cachep ? kmem_cache_inuse(anon_cachep) : 0;
}

struct anon_vma *anon_identity_alloc(void)
{
	struct anon_identity *ai;

	if (anon_identity_cache_init())
		return NULL;
	ai = kmem_cache_zalloc(anon_cachep);
	if (!ai)
		return NULL;
	ai->av.id = anon_next_id++;
	return &ai->av;
}

void vma_anon_link(struct vma *v, struct anon_vma *av)
{
	BUG_ON(v->anon);
	v->anon = av;
	av->refcount++;
	anon_identity(av)->vma_refs++;
}

static void anon_identity_free_if_unused(struct anon_vma *av)
{
	if (av->refcount == 0)
		kmem_cache_free(anon_cachep, anon_identity(av));
}

void vma_anon_unlink(struct vma *v)
{
	struct anon_vma *av = v->anon;

	if (!av)
		return;
	BUG_ON(av->refcount == 0 || anon_identity(av)->vma_refs == 0);
	v->anon = NULL;
	v->anon_forked = false;
	av->refcount--;
	anon_identity(av)->vma_refs--;
	anon_identity_free_if_unused(av);
}

/*
 * anon_vma_get / anon_vma_put: references that are not VMAs (anonymous
 * pages, once rmap exists). put frees the identity when the last reference
 * of any kind is gone. Caller holds the mmap_lock (write) for now.
 */
void anon_vma_get(struct anon_vma *av)
{
	av->refcount++;
}

void anon_vma_put(struct anon_vma *av)
{
	BUG_ON(av->refcount <= anon_identity(av)->vma_refs);
	av->refcount--;
	anon_identity_free_if_unused(av);
}
