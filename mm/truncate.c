/*
 * Shrinking a memory object and punching holes in it (Linux's
 * truncate_pagecache + unmap_mapping_range, for shmem): the pages leave the
 * cache and every mapping of them, in every address space, goes.
 *
 * The mappings are found through the object's i_mmap list of VMAs (as on
 * Linux), one address space at a time: under its mmap_lock for reading,
 * the PTEs of its VMAs that map the object are zapped under its pt_lock.
 * mm_unmap_object below says how a fork racing with the walk is caught.
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
 * as Linux does); takes o->lock, then o->i_mmap_lock (to list the address
 * spaces), then each mm's mmap_lock (read) and pt_lock, never two of them
 * at once.
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

static bool mm_in(struct mm *const *set, unsigned n, const struct mm *mm)
{
	for (unsigned i = 0; i < n; i++)
		if (set[i] == mm)
			return true;
	return false;
}

/*
 * Append to set[*n..cap) (referenced) each address space with a VMA on
 * o's i_mmap list that set does not hold yet. False when some did not fit.
 * Every VMA of the list counts, whatever pages it maps: a VMA's bounds and
 * offset change in place under its mmap_lock alone, so only the address
 * space (v->mm, fixed for a VMA's life) can be trusted here; the pages are
 * looked at under that mmap_lock.
 */
static bool collect_mms(struct vm_object *o, struct mm **set, unsigned *n, unsigned cap)
{
	struct list_head *l;
	bool fits = true;

	spin_lock(&o->i_mmap_lock);
	list_for_each(l, &o->i_mmap) {
		struct mm *mm = vma_of_rmap(container_of(l, struct vma_rmap_link, file_node))->mm;

		if (mm_in(set, *n, mm))
			continue;
		if (*n == cap) {
			fits = false;
			break;
		}
		if (mm_get_unless_zero(mm))     /* (one whose last user is gone is being emptied anyway) */
			set[(*n)++] = mm;
	}
	spin_unlock(&o->i_mmap_lock);
	return fits;
}

/*
 * mm_unmap_object: Linux unmap_mapping_range(mapping, first, last - first,
 * even_cows): the PTEs mapping pages [first, last) of o go, in every
 * address space, and with even_cows also the private copies made of them.
 * No mmap_lock held.
 *
 * The address spaces come from o's i_mmap list, in rounds: each round
 * visits those the list names that no earlier round did, and the walk
 * ends with a round that finds none. That is what makes fork safe: a
 * fork copies its parent's PTEs, stale ones too, into a child whose VMAs
 * it links to the list before it copies, all under the parent's mmap_lock
 * for writing. If the fork ends before the visit of the parent (which
 * takes that lock for reading), the child is on the list by then, and the
 * round after the parent's finds it; if it starts after, the parent's
 * stale PTEs are gone and the child gets none. (Linux gets the same from
 * linking the child's VMA after the parent's in i_mmap and walking it in
 * order under i_mmap_rwsem.) Past UNMAP_MMS_MAX address spaces, every
 * address space on the system is visited instead (mm_list_next, which
 * lists a fork child after its parent): as slow as it sounds, and always
 * right.
 */
#define UNMAP_MMS_MAX 32

static void mm_unmap_object(struct vm_object *o, unsigned long first, unsigned long last, bool even_cows)
{
	struct mm *seen[UNMAP_MMS_MAX], *mm = NULL;
	unsigned done = 0, n = 0;
	bool fits = true;

	if (!smp_load_acquire(&o->nr_vmas))
		return;
	for (;;) {
		fits = collect_mms(o, seen, &n, UNMAP_MMS_MAX);
		if (!fits || done == n)
			break;          /* (too many: the walk below visits them all) */
		for (; done < n; done++)
			unmap_object_in(seen[done], o, first, last, even_cows);
	}
	if (!fits)
		while ((mm = mm_list_next(mm)) != NULL)
			unmap_object_in(mm, o, first, last, even_cows);
	while (n)
		mm_put(seen[--n]);
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
