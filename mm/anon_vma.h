/*
 * Private to mm/vma*.c: the anon identity (struct anon_vma of vma.h) as
 * allocated by mm/anon_vma.c, with the bookkeeping vma_check() needs.
 *
 * Locking: av.refcount is atomic (pages in other address spaces hold
 * references); vma_refs and the scratch fields change under the owning
 * mm's mmap_lock (write, or read plus pt_lock: mm/anon_vma.c). The list
 * of VMAs (the reverse map's, mm/rmap.c) changes with vma_refs and under
 * lock too (Linux's anon_vma rwsem), so that rmap_walk can read it from
 * any address space.
 */
#ifndef MM_ANON_VMA_H
#define MM_ANON_VMA_H

#include "vma.h"
#include "spinlock.h"

struct anon_identity {
	struct anon_vma av;           /* av.refcount = vma_refs + other references (pages, later) */
	unsigned vma_refs;            /* VMAs whose ->anon points here */
	struct anon_identity *root;   /* [init] the fork family's first identity (itself for a new one;
	                               *   a fork child's refers to it: Linux's anon_vma->root) */
	struct spinlock lock;         /* in the root, class ANON_VMA: the family's vmas */
	struct list_head vmas;        /* in the root, [lock]: the VMAs of every identity of the family,
	                               *   in any address space, by vma_rmap(v)->anon_node */
	unsigned check_count;         /* vma_check scratch: VMAs seen in this pass */
	unsigned long check_gen;      /* vma_check scratch: pass that last reset check_count */
};

static inline struct anon_identity *anon_identity(struct anon_vma *av)
{
	return container_of(av, struct anon_identity, av);
}

/* Create the identity slab cache if needed. 0 or -ENOMEM. */
int anon_identity_cache_init(void);
/*
 * A new identity with no references (refcount 0), or NULL on -ENOMEM. With
 * parent (a fork: Linux's anon_vma_fork), it joins parent's family (same
 * root, referenced), else it starts one.
 */
struct anon_vma *anon_identity_alloc(struct anon_vma *parent);
/* Point v (whose ->anon is NULL) at av, counting the reference. */
void vma_anon_link(struct vma *v, struct anon_vma *av);
/* Drop v's reference (v->anon may be NULL); frees the identity when none is left. */
void vma_anon_unlink(struct vma *v);

#endif
