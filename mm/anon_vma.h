/*
 * Private to mm/vma*.c: the anon identity (struct anon_vma of vma.h) as
 * allocated by mm/anon_vma.c, with the bookkeeping vma_check() needs.
 *
 * Locking: av.refcount is atomic (pages in other address spaces hold
 * references); vma_refs and the scratch fields change under the owning
 * mm's mmap_lock (write, or read plus pt_lock: mm/anon_vma.c). (Linux also
 * has the anon_vma rwsem for rmap walks; that comes with rmap.)
 */
#ifndef MM_ANON_VMA_H
#define MM_ANON_VMA_H

#include "vma.h"

struct anon_identity {
	struct anon_vma av;           /* av.refcount = vma_refs + other references (pages, later) */
	unsigned vma_refs;            /* VMAs whose ->anon points here */
	unsigned check_count;         /* vma_check scratch: VMAs seen in this pass */
	unsigned long check_gen;      /* vma_check scratch: pass that last reset check_count */
};

static inline struct anon_identity *anon_identity(struct anon_vma *av)
{
	return container_of(av, struct anon_identity, av);
}

/* Create the identity slab cache if needed. 0 or -ENOMEM. */
int anon_identity_cache_init(void);
/* A new identity with no references (refcount 0), or NULL on -ENOMEM. */
struct anon_vma *anon_identity_alloc(void);
/* Point v (whose ->anon is NULL) at av, counting the reference. */
void vma_anon_link(struct vma *v, struct anon_vma *av);
/* Drop v's reference (v->anon may be NULL); frees the identity when none is left. */
void vma_anon_unlink(struct vma *v);

#endif
