/*
 * fork's copy of an address space (Linux dup_mmap + copy_page_range): every
 * VMA is copied except VM_DONTCOPY ones; private pages become copy-on-write
 * (read-only in both, fault.c's wp_fault copies or reuses them on the first
 * write; a file's pages in a private mapping are read-only already), pages
 * of shared mappings stay shared, guard markers are copied, and
 * VM_WIPEONFORK VMAs start empty (without markers either). With
 * mm/fault.c this is the whole COW story; a transparent huge page is
 * shared the same way with one 2 MiB entry (mm/thp.c, thp_share), and so
 * is the huge zero page (the child holds it too: thp_zero_dup).
 */
#include "internal.h"
#include "anon_vma.h"
#include "slab.h"
#include "arch.h"
#include "kerrno.h"
#include "kstring.h"
#include "printk.h"

struct dup_ctx {
	struct mm *parent, *child;
	const struct vma *vma;        /* the parent VMA being copied */
	int err;
};

/* LAB cow: BEGIN dup_visit */
/*
 * For each present entry of a parent VMA: map the same frame in the child.
 * Private pages (and the zero page) become read-only in both; shared pages
 * keep their permissions.
 */
static enum mmu_action dup_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct dup_ctx *c = arg;
	bool private = !(c->vma->flags & VM_SHARED);
	unsigned cst = *state & ~(MMU_ACCESSED | MMU_DIRTY);
	enum mmu_action act = MMU_KEEP;

	if (c->err)
		return MMU_KEEP;
	if (private)
		cst &= ~MMU_WRITE;
	if (arch_mmu_map(c->child->mmu, va, pa, cst)) {
		c->err = -ENOMEM;
		return MMU_KEEP;
	}
	if (!mm_is_zero_pa(pa)) {
		struct page *p = phys_to_page(pa);

		user_page_get(p);
		page_mapcount_add(p, 1);
		mm_count(&c->child->rss, 1);
		if (!(p->flags & PG_anon))
			mm_count(&c->child->rss_file, 1);
	}
	if (private && (*state & MMU_WRITE)) {
		*state &= ~MMU_WRITE;
		act = MMU_UPDATE;
	}
	return act;
}
/* LAB cow: END dup_visit */

/*
 * A huge page (or the huge zero page) of a private parent VMA: shared
 * with the child by one 2 MiB entry, write-protected in both (mm/thp.c).
 */
static enum mmu_action dup_huge_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct dup_ctx *c = arg;
	unsigned old = *state;

	if (c->err)
		return MMU_KEEP;
	c->err = thp_share(c->child, va, pa, state);
	return *state != old ? MMU_UPDATE : MMU_KEEP;
}

/*
 * Copy one parent VMA (and its pages) into child, under the parent's
 * page-table lock; the parent's write-protected entries go into tlb. 0 or
 * -ENOMEM. (The child is not visible to anyone yet: no lock, no flush.)
 */
static int dup_vma(struct mm *parent, struct mm *child, const struct vma *pv, struct tlb_batch *tlb)
{
	unsigned long flags = pv->flags & ~VM_LOCKED;
	struct dup_ctx c = { parent, child, pv, 0 };
	struct vma *cv;
	int err;

	err = vma_map_new_range(child, pv->start, pv->end, flags, pv->file, pv->pgoff, &cv);
	if (err)
		return err;
	BUG_ON(cv->start != pv->start || cv->end != pv->end);
	if (pv->flags & VM_WIPEONFORK)
		return 0;
	if (pv->anon) {
		/* anon_vma_fork: the child's VMA gets an identity of its own, in the parent's family. */
		struct anon_vma *av = anon_identity_alloc(pv->anon);

		if (!av)
			return -ENOMEM;
		vma_anon_link(cv, av);
		/*
		 * Its anon_vma_chain also links the parent's identities
		 * (anon_vma_clone before the new one): not singular, so the
		 * child's VMA is a fork child for merging (vma_is_fork_child).
		 */
		cv->anon_forked = true;
	}
	mm_pt_lock(parent);
	arch_mmu_walk_huge(parent->mmu, pv->start, pv->end, dup_huge_visit, dup_visit, &c, tlb);
	/* Guard markers too (VM_MAYBE_GUARD is in Linux's VM_COPY_ON_FORK). */
	if (!c.err)
		c.err = mm_guard_copy(child, pv->start, parent, pv->start, pv->end);
	/* copy_nonpresent_pte: swap entries are shared, each slot gains a reference. */
	if (!c.err)
		c.err = mm_swap_copy(child, pv->start, parent, pv->start, pv->end, true);
	mm_pt_unlock(parent);
	return c.err;
}

struct mm *mm_dup(struct mm *parent)
{
	struct mm *child = mm_create_backend(parent->index.ops);
	struct tlb_batch tlb;
	struct vma *pv;
	int err = 0;

	if (!child)
		return NULL;
	mmap_write_lock(parent);
	vma_write_lock_all(parent);     /* no fault may write a page while it becomes COW-shared */
	mm_tlb_init(&tlb, parent, false);
	child->max_map_count = parent->max_map_count;
	child->mmap_base = parent->mmap_base;
	child->mmap_legacy_base = parent->mmap_legacy_base;
	child->start_brk = parent->start_brk;
	child->brk = parent->brk;
	child->start_stack = parent->start_stack;
	child->arg_start = parent->arg_start;
	child->arg_end = parent->arg_end;
	memcpy(child->saved_auxv, parent->saved_auxv, sizeof(child->saved_auxv));
	child->saved_auxv_words = parent->saved_auxv_words;
	child->thp_disabled = parent->thp_disabled;
	thp_zero_dup(child, parent);
	/* An exact copy of the VMA set: no merging while copying (dup_mmap never merges). */
	child->merge = false;
	mmap_write_lock_nested(child);
	for (pv = vma_first(parent); pv && !err; pv = vma_next(parent, pv)) {
		if (pv->flags & VM_DONTCOPY)
			continue;
		err = dup_vma(parent, child, pv, &tlb);
	}
	child->merge = parent->merge;
	mmap_write_unlock(child);
	/* No CPU writes through a stale writable entry to a page now shared with the child. */
	mm_tlb_finish(&tlb);
	mmap_write_unlock(parent);
	if (err) {
		mm_put(child);
		return NULL;
	}
	return child;
}
