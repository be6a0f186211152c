/*
 * Shrinking a memory object and punching holes in it (Linux's
 * truncate_pagecache + unmap_mapping_range, for shmem): the pages leave the
 * cache and every mapping of them, in every address space, goes.
 *
 * Linux finds the mappings through the file's i_mmap tree of VMAs. Here an
 * object only counts the VMAs mapping it (nr_vmas, so that an unmapped
 * file costs nothing); when there are some, every address space is looked
 * at (mm_list_next), under its mmap_lock for reading, and the PTEs of the
 * VMAs that map the object are zapped under its pt_lock. That is as long as
 * the VMAs of all processes, which stays small here, and needs no per-VMA
 * link.
 *
 * Ordering against faults: the size (or hole) is in place before any
 * address space is visited, and a fault looks the page up and maps it
 * under pt_lock, so a fault either comes before the zap of its address
 * space (and is zapped) or sees the new size (SIGBUS) or the hole (a new
 * zero page).
 *
 * Pages in swap (mm/shmem_swap.c) leave the same way, their slots freed;
 * a partial last page in swap is read back first, for its tail to be zeroed.
 *
 * Locking: called with no mmap_lock held (MADV_REMOVE drops its own first,
 * as Linux does); takes o->lock, then each mm's mmap_lock (read) and
 * pt_lock, never two of them at once.
 */
#include "internal.h"
#include "lockless.h"

struct unmap_ctx {
	struct mm *mm;
	bool even_cows;               /* also private copies (truncation), not only cache pages */
	struct tlb_batch *tlb;        /* the address space's batch: frames and references wait here */
};

static enum mmu_action unmap_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct unmap_ctx *c = arg;
	struct page *p;

	if (mm_is_zero_pa(pa))
		return c->even_cows ? MMU_CLEAR : MMU_KEEP;
	p = phys_to_page(pa);
	if ((p->flags & PG_anon) && !c->even_cows)
		return MMU_KEEP;
	mm_unmap_page(c->mm, p, !(p->flags & PG_anon), c->tlb);
	return MMU_CLEAR;
}

/* The pages [first, last) of o in v, as an address range; false when v maps none of them. */
static bool vma_object_range(const struct vma *v, unsigned long first, unsigned long last,
			     uintptr_t *start, uintptr_t *end)
{
	unsigned long lo = MAX(first, v->pgoff), hi = MIN(last, v->pgoff + vma_pages(v));

	if (lo >= hi)
		return false;
	*start = v->start + ((lo - v->pgoff) << PAGE_SHIFT);
	*end = v->start + ((hi - v->pgoff) << PAGE_SHIFT);
	return true;
}

/*
 * Unmap pages [first, last) of o from every VMA of mm that maps o, in one
 * TLB batch flushed before the mmap_lock goes: a frame whose last reference
 * was a PTE here is freed only after every CPU of mm has dropped it.
 */
static void unmap_object_in(struct mm *mm, struct vm_object *o, unsigned long first,
			    unsigned long last, bool even_cows)
{
	struct tlb_batch tlb;
	struct unmap_ctx c = { mm, even_cows, &tlb };
	struct vma *v;

	mmap_read_lock(mm);
	mm_tlb_init(&tlb, mm, false);
	for (v = vma_first(mm); v; v = vma_next(mm, v)) {
		uintptr_t s, e;

		if (!v->file || v->file->obj != o || !vma_object_range(v, first, last, &s, &e))
			continue;
		mm_pt_lock(mm);
		arch_mmu_walk(mm->mmu, s, e, unmap_visit, &c, &tlb);
		mm_pt_unlock(mm);
	}
	mm_tlb_finish(&tlb);
	mmap_read_unlock(mm);
}

/*
 * mm_unmap_object: Linux unmap_mapping_range(mapping, first, last - first,
 * even_cows) over every address space: the PTEs mapping pages [first,
 * last) of o go, and with even_cows also the private copies made of them.
 * No mmap_lock held.
 */
static void mm_unmap_object(struct vm_object *o, unsigned long first, unsigned long last, bool even_cows)
{
	struct mm *mm = NULL;

	if (!smp_load_acquire(&o->nr_vmas))
		return;
	while ((mm = mm_list_next(mm)) != NULL)
		unmap_object_in(mm, o, first, last, even_cows);
}

void vm_object_truncate(struct vm_object *o, uint64_t size)
{
	unsigned long keep = (unsigned long)((size + PAGE_SIZE - 1) >> PAGE_SHIFT), fl;
	struct page *tail = NULL;
	uint64_t old;

	/* A partial last page in swap is read back to have its tail zeroed, and held meanwhile. */
	if ((size & (PAGE_SIZE - 1)) && size < vm_object_size(o) &&
	    vm_object_page(o, keep - 1, VMO_RECLAIM, &tail))
		tail = NULL;            /* (not read back: its tail keeps what it had, as after an I/O error) */
	fl = spin_lock_irqsave(&o->lock);
	old = o->size;
	o->size = size;
	if (size < old) {
		vm_object_remove_locked(o, keep, ~0UL);
		if (size & (PAGE_SIZE - 1))
			vm_object_zero_tail_locked(o, keep - 1, size & (PAGE_SIZE - 1));
	}
	spin_unlock_irqrestore(&o->lock, fl);
	if (tail)
		vm_object_page_put(tail);
	if (size < old && ((old + PAGE_SIZE - 1) >> PAGE_SHIFT) > keep)
		mm_unmap_object(o, keep, ~0UL, true);
}

void vm_object_punch(struct vm_object *o, unsigned long pgoff, unsigned long n)
{
	unsigned long fl, last = pgoff + n < pgoff ? ~0UL : pgoff + n;

	fl = spin_lock_irqsave(&o->lock);
	vm_object_remove_locked(o, pgoff, last);
	spin_unlock_irqrestore(&o->lock, fl);
	mm_unmap_object(o, pgoff, last, false);
}
