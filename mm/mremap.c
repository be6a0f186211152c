/*
 * mremap (Linux 6.18 mm/mremap.c: do_mremap, check_mremap_params,
 * check_prep_vma, remap_move, mremap_to, mremap_at, expand_vma,
 * move_vma, copy_vma_and_data, unmap_source_vma, dontunmap_complete) for
 * anonymous private and shared memory, over the VMA layer (vma_copy_range,
 * vma_expand_end, vma_unmap_range) and the page tables.
 *
 * What is mirrored, in Linux's order:
 *  - argument checks before the lock (flags, alignment, new_len 0 or above
 *    TASK_SIZE; with a new address: its range, alignment, MAYMOVE, no
 *    resize with DONTUNMAP, no overlap of old and new range);
 *  - the map-count headroom for the worst case (4 more VMAs);
 *  - a same-size MREMAP_FIXED move walks every VMA of the old range
 *    (holes kept, not a hole at addr), each moved on its own;
 *  - otherwise the VMA containing addr (-EFAULT without), the checks of
 *    check_prep_vma (private old_len 0 -EINVAL, old range beyond the VMA
 *    -EFAULT, pgoff overflow), then the move to a fixed or hinted place
 *    (MREMAP_FIXED unmaps the destination first, a shrink unmaps the tail
 *    first), or in place: no change, shrink by unmapping the tail, grow
 *    in place when the old range ends the VMA and the space above is free
 *    (merging with a compatible next VMA), else move when MREMAP_MAYMOVE;
 *  - a move creates the new VMA (copy_vma: never-faulted private VMAs take
 *    the page offset of their new place), moves the PTEs and guard markers
 *    (move_page_tables moves every non-empty entry; pages keep their
 *    anon identity: the new VMA shares it), then unmaps the old range, or
 *    with MREMAP_DONTUNMAP leaves it mapped and empty, dropping its anon
 *    identity when the whole VMA moved and clearing VM_LOCKED
 *    (dontunmap_complete; VM_ACCOUNT stays, as on Linux 6.18.y).
 *
 * Differences (results unchanged): no commit accounting, RLIMIT_AS/DATA,
 * mlock, userfaultfd, hugetlb, KSM or sealing. The PTE move is "allocate
 * first": destination page tables are filled before the source is
 * cleared, so running out of memory changes nothing (Linux moves back).
 *
 * Locking: vm_mremap takes mm's mmap_lock for writing, and pt_lock around
 * the PTE moves. Every TLB change of one mremap (the moved entries, the
 * unmapped ranges) is flushed once, before the mmap_lock is dropped.
 */
#include "internal.h"
#include "anon_vma.h"
#include "kerrno.h"
#include "slab.h"

/* A move of [addr, addr + old_len) to new_addr with new_len (Linux struct vma_remap_struct). */
struct remap {
	uintptr_t addr, old_len, new_len, new_addr;
	int flags;
	struct vma *vma;
	uintptr_t delta;
	struct tlb_batch *tlb;          /* the whole mremap's TLB changes */
};

enum { REMAP_NO_RESIZE, REMAP_SHRINK, REMAP_EXPAND };

static int remap_type(const struct remap *r)
{
	if (r->old_len == r->new_len)
		return REMAP_NO_RESIZE;
	return r->old_len > r->new_len ? REMAP_SHRINK : REMAP_EXPAND;
}

static bool implies_new_addr(const struct remap *r)
{
	return r->flags & (MREMAP_FIXED | MREMAP_DONTUNMAP);
}

/* ------------------------------------------------------------ PTE moves */

/* LAB mremap: BEGIN copy_ptes */
/* One page table's worth: the PTEs of a 2 MiB-aligned window. */
#define MOVE_WINDOW (512UL << PAGE_SHIFT)

struct pte_rec {
	uintptr_t va;
	phys_addr_t pa;
	unsigned state;
};

struct collect_ctx {
	struct pte_rec rec[512];
	unsigned n;
};

static enum mmu_action collect_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct collect_ctx *c = arg;

	BUG_ON(c->n >= 512);
	c->rec[c->n].va = va;
	c->rec[c->n].pa = pa;
	c->rec[c->n].state = *state;
	c->n++;
	return MMU_KEEP;
}

static enum mmu_action clear_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	return MMU_CLEAR;
}

/*
 * Remove the entries of [start, end), guard markers included, without
 * touching page references; the removed entries go into tlb (NULL: entries
 * no CPU can have used yet).
 */
static void clear_ptes(struct mm *mm, uintptr_t start, uintptr_t end, struct tlb_batch *tlb)
{
	/* A 2 MiB leaf wholly inside goes whole (moved whole: no split); one partly inside is split. */
	arch_mmu_walk_huge(mm->mmu, start, end, clear_visit, clear_visit, NULL, tlb);
	mm_guard_clear(mm, start, end);
	mm_swap_clear(mm, start, end, false);
}

/*
 * Copy the PTEs and guard markers of [old, old + len) to the same offsets
 * at new (whose range has no entries), without touching page references.
 * A 2 MiB leaf wholly inside that lands on a 2 MiB boundary is copied as
 * one leaf (Linux's move_huge_pmd: no split); others are split by the
 * walk (Linux splits them too). 0, or -ENOMEM after removing every entry
 * it made at new.
 */
static int copy_ptes(struct mm *mm, uintptr_t old, uintptr_t new, uintptr_t len)
{
	struct collect_ctx *c = kmalloc(sizeof(*c));
	uintptr_t va = old, end = old + len;
	int err = 0;

	if (!c)
		return -ENOMEM;
	while (va < end && !err) {
		uintptr_t wend = MIN(ALIGN_DOWN(va, MOVE_WINDOW) + MOVE_WINDOW, end);
		uintptr_t to = new + (va - old);

		if (wend - va == HUGE_SIZE && IS_ALIGNED(to, HUGE_SIZE) && thp_copy_leaf(mm, va, to, &err)) {
			va = wend;
			continue;
		}
		c->n = 0;
		arch_mmu_walk(mm->mmu, va, wend, collect_visit, c, NULL);
		for (unsigned i = 0; i < c->n && !err; i++)
			err = arch_mmu_map(mm->mmu, new + (c->rec[i].va - old), c->rec[i].pa,
					   c->rec[i].state);
		va = wend;
	}
	kfree(c);
	if (!err)
		err = mm_guard_copy(mm, new, mm, old, old + len);
	if (!err)
		err = mm_swap_copy(mm, new, mm, old, old + len, false);
	if (err)
		clear_ptes(mm, new, new + len, NULL);
	return err;
}
/* LAB mremap: END copy_ptes */

/* ------------------------------------------------------------- helpers */

/* check_prep_vma: the checks that need the VMA containing r->addr. */
static int check_prep_vma(struct mm *mm, struct remap *r)
{
	struct vma *vma = r->vma;
	uintptr_t old_len = r->old_len, new_len = r->new_len, pgoff;
	int type;

	if (!vma)
		return -EFAULT;
	r->delta = old_len > new_len ? old_len - new_len : new_len - old_len;
	type = remap_type(r);
	if (!implies_new_addr(r))
		r->new_addr = r->addr;
	/* Only growing or moving maps new address space. */
	if (type != REMAP_EXPAND && !implies_new_addr(r))
		return 0;
	/* "Duplicating" a private mapping makes no sense. */
	if (!old_len && !(vma->flags & (VM_SHARED | VM_MAYSHARE)))
		return -EINVAL;
	if ((r->flags & MREMAP_DONTUNMAP) && (vma->flags & VM_DONTEXPAND))
		return -EINVAL;
	/* A shrink may unmap past the VMA; what is kept must lie in it. */
	if (type == REMAP_SHRINK)
		old_len = new_len;
	if (old_len > vma->end - r->addr)
		return -EFAULT;
	if (new_len == old_len)
		return 0;
	pgoff = vma->pgoff + ((r->addr - vma->start) >> PAGE_SHIFT);
	if (pgoff + (new_len >> PAGE_SHIFT) < pgoff)
		return -EINVAL;
	if (vma->flags & VM_DONTEXPAND)
		return -EFAULT;
	return 0;
}

/*
 * vrm_set_new_addr: get_unmapped_area for the new range: MREMAP_FIXED
 * gives new_addr itself (checked against TASK_SIZE), DONTUNMAP alone uses
 * it as a hint, plain MAYMOVE searches anywhere.
 */
static int set_new_addr(struct mm *mm, struct remap *r)
{
	uintptr_t a;
	int err;

	if (r->flags & MREMAP_FIXED) {
		if (r->new_len > TASK_SIZE || r->new_addr > TASK_SIZE - r->new_len)
			return -ENOMEM;
		if (r->new_addr & ~PAGE_MASK)
			return -EINVAL;
		return 0;
	}
	err = vma_get_unmapped_area(mm, implies_new_addr(r) ? r->new_addr : 0, r->new_len,
				    PAGE_SIZE, &a);
	if (err)
		return err;
	r->new_addr = a;
	vma_write_lock_range(mm, a, a + r->new_len);    /* the new VMA may merge with a neighbour */
	return 0;
}

/* LAB mremap: BEGIN move_vma */
/* move_vma: copy the VMA to r->new_addr, move the PTEs, unmap (or empty) the old range. */
static long move_vma(struct mm *mm, struct remap *r)
{
	struct vma *old = r->vma, *nv, *src;
	uintptr_t old_start = old->start, old_end = old->end;
	unsigned long pgoff = old->pgoff + ((r->addr - old->start) >> PAGE_SHIFT);
	int err;

	/* prep_move_vma: room for a new VMA and a split of the old one. */
	if (mm->map_count + 2 > mm->max_map_count)
		return -ENOMEM;
	mm_pt_lock(mm);
	err = copy_ptes(mm, r->addr, r->new_addr, r->old_len);
	mm_pt_unlock(mm);
	if (err)
		return err;
	err = vma_copy_range(mm, old, r->new_addr, r->new_len, pgoff, &nv);
	mm_pt_lock(mm);
	if (err) {
		clear_ptes(mm, r->new_addr, r->new_addr + r->old_len, r->tlb);
		mm_pt_unlock(mm);
		return err;
	}
	/* Committed: the pages now live at the new place only. */
	clear_ptes(mm, r->addr, r->addr + r->old_len, r->tlb);
	mm_pt_unlock(mm);

	if (r->flags & MREMAP_DONTUNMAP) {
		/*
		 * dontunmap_complete: the VMA now holding the old range (the
		 * copy may have absorbed it) loses VM_LOCKED (not VM_ACCOUNT:
		 * Linux 6.18.y keeps it, tests/mmscript/mremap_dontunmap.mms),
		 * and its anon identity when it moved as a whole.
		 */
		src = vma_lookup(mm, r->addr);
		if (src) {
			src->flags &= ~VM_LOCKED;
			if (src != nv && r->addr == old_start && r->addr + r->old_len == old_end &&
			    src->start == old_start && src->end == old_end)
				vma_anon_unlink(src);
		}
	} else if (r->old_len) {
		/* unmap_source_vma: best effort, as Linux (an -ENOMEM leaves the old range). */
		(void)mm_unmap_range_tlb(mm, r->addr, r->addr + r->old_len, r->tlb);
	}
	return (long)r->new_addr;
}
/* LAB mremap: END move_vma */

/* mremap_to: a move to a given (FIXED) or hinted (DONTUNMAP) address. */
static long mremap_to(struct mm *mm, struct remap *r)
{
	int err;

	if (r->flags & MREMAP_FIXED) {
		err = mm_munmap_locked(mm, r->new_addr, r->new_len, r->tlb);
		if (err)
			return err;
		/* Unmapping may have split the old VMA (a move within it). */
		r->vma = vma_lookup(mm, r->addr);
		if (!r->vma)
			return -EFAULT;
	}
	if (remap_type(r) == REMAP_SHRINK) {
		err = mm_munmap_locked(mm, r->addr + r->new_len, r->delta, r->tlb);
		if (err)
			return err;
		r->vma = vma_lookup(mm, r->addr);
		if (!r->vma)
			return -EFAULT;
		r->old_len = r->new_len;
	}
	err = set_new_addr(mm, r);
	if (err)
		return err;
	return move_vma(mm, r);
}

/* LAB mremap: BEGIN mremap_at */
/* vma_expandable: [vma->end, vma->end + delta) is free and below TASK_SIZE. */
static bool expandable(struct mm *mm, struct vma *vma, uintptr_t delta)
{
	uintptr_t end = vma->end + delta;

	if (end < vma->end)
		return false;
	if (vma_find_intersection(mm, vma->end, end))
		return false;
	return end - vma->start <= TASK_SIZE && vma->start <= TASK_SIZE - (end - vma->start);
}

/* mremap_at: resize without a new address: in place, or moved when MAYMOVE allows. */
static long mremap_at(struct mm *mm, struct remap *r)
{
	int err;

	switch (remap_type(r)) {
	case REMAP_NO_RESIZE:
		return (long)r->addr;
	case REMAP_SHRINK:
		err = mm_munmap_locked(mm, r->addr + r->new_len, r->delta, r->tlb);
		return err ? err : (long)r->addr;
	default:
		break;
	}
	/* expand_vma: in place when the old range ends the VMA and the space above is free. */
	if (r->vma->end - r->addr == r->old_len && expandable(mm, r->vma, r->delta)) {
		err = vma_expand_end(mm, r->vma, r->delta, NULL);
		return err ? err : (long)r->addr;
	}
	if (!(r->flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	err = set_new_addr(mm, r);
	if (err)
		return err;
	return move_vma(mm, r);
}
/* LAB mremap: END mremap_at */

/*
 * remap_move: a same-size MREMAP_FIXED move of every VMA in [addr, addr +
 * old_len), each to the same offset from new_addr (holes kept). The first
 * address must be mapped. Moves done before an error stay done (Linux).
 */
static long remap_move(struct mm *mm, const struct remap *r0)
{
	uintptr_t start = r0->addr, end = r0->addr + r0->old_len;
	uintptr_t target = r0->new_addr, last_end = 0, pos = start;
	long res = -EFAULT;
	bool seen = false;

	for (;;) {
		struct vma *vma = vma_find(mm, pos);
		struct remap r = *r0;
		uintptr_t off;
		long one;

		if (!vma || vma->start >= end)
			break;
		if (!seen && start < vma->start)
			return -EFAULT;
		r.addr = MAX(vma->start, start);
		r.old_len = r.new_len = MIN(end, vma->end) - r.addr;
		off = seen ? vma->start - last_end : 0;
		last_end = vma->end;
		r.new_addr = target + off;
		r.vma = vma;
		one = check_prep_vma(mm, &r);
		if (!one)
			one = mremap_to(mm, &r);
		if (one < 0 && one >= -4095)
			return one;
		if (!seen)
			res = one;
		seen = true;
		target = (uintptr_t)one + r.new_len;
		pos = last_end;
		if (pos >= end)
			break;
	}
	return res;
}

/* check_mremap_params: the checks that need no VMA. 0 or -EINVAL. */
static int check_params(const struct remap *r)
{
	if ((unsigned)r->flags & ~(unsigned)(MREMAP_FIXED | MREMAP_MAYMOVE | MREMAP_DONTUNMAP))
		return -EINVAL;
	if (r->addr & ~PAGE_MASK)
		return -EINVAL;
	if (!r->new_len || r->new_len > TASK_SIZE)
		return -EINVAL;
	if (!implies_new_addr(r))
		return 0;
	if (r->new_addr > TASK_SIZE - r->new_len || (r->new_addr & ~PAGE_MASK))
		return -EINVAL;
	if (!(r->flags & MREMAP_MAYMOVE))
		return -EINVAL;
	if ((r->flags & MREMAP_DONTUNMAP) && r->old_len != r->new_len)
		return -EINVAL;
	if (r->addr + r->old_len > r->new_addr && r->new_addr + r->new_len > r->addr)
		return -EINVAL;
	return 0;
}

long vm_mremap(struct mm *mm, uintptr_t addr, size_t old_len, size_t new_len, int flags,
	       uintptr_t new_addr)
{
	struct remap r;
	struct tlb_batch tlb;
	long res;

	/* PAGE_ALIGN, wrapping to 0 as Linux's does. */
	r.old_len = (old_len + PAGE_SIZE - 1) & PAGE_MASK;
	r.new_len = (new_len + PAGE_SIZE - 1) & PAGE_MASK;
	r.addr = addr;
	r.new_addr = new_addr;
	r.flags = flags;
	r.vma = NULL;
	r.delta = 0;
	r.tlb = &tlb;

	res = check_params(&r);
	if (res)
		return res;
	mmap_write_lock(mm);
	/*
	 * Marked for lock-free faults: every VMA the old range, its growth in
	 * place or a given new range touch (neighbours included: they may
	 * merge); set_new_addr marks around the range it picks.
	 */
	vma_write_lock_range(mm, addr, addr + MAX(r.old_len, r.new_len));
	if (implies_new_addr(&r))
		vma_write_lock_range(mm, new_addr, new_addr + r.new_len);
	mm_tlb_init(&tlb, mm, false);
	/* check_map_count_against_split_early: 2 splits before, 2 VMAs more while moving. */
	if (mm->map_count + 4 > mm->max_map_count) {
		res = -ENOMEM;
		goto out;
	}
	if ((flags & MREMAP_FIXED) && r.old_len == r.new_len) {
		res = remap_move(mm, &r);
	} else {
		r.vma = vma_lookup(mm, addr);
		res = check_prep_vma(mm, &r);
		if (!res)
			res = implies_new_addr(&r) ? mremap_to(mm, &r) : mremap_at(mm, &r);
	}
out:
	mm_tlb_finish(&tlb);
	mmap_write_unlock(mm);
	return res;
}
