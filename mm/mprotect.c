/*
 * mprotect (Linux do_mprotect_pkey / mprotect_fixup / change_protection):
 * new flags per VMA with Linux's VM_MAY* and accounting rules, merge/split
 * by vma_modify_flags, then the PTEs rewritten in place.
 *
 * Locking: vm_mprotect takes mm's mmap_lock for writing, and pt_lock
 * around each VMA's PTE rewrite; the TLB changes of every VMA are flushed
 * once, before the mmap_lock is dropped.
 */
#include "internal.h"
#include "kerrno.h"

struct chprot_ctx {
	unsigned want;                /* MMU_* permissions of the VMA's new flags */
	bool private;                 /* private mapping: shared and file pages stay read-only (COW) */
};

static enum mmu_action chprot_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct chprot_ctx *c = arg;
	unsigned prot = c->want;

	if (c->private && (prot & MMU_WRITE)) {
		/* Writable only when this PTE is the page's sole user (as a write fault would reuse it). */
		if (mm_is_zero_pa(pa)) {
			prot &= ~MMU_WRITE;
		} else {
			struct page *p = phys_to_page(pa);

			if (!(p->flags & PG_anon) || page_refs(p) != 1 || p->mapcount != 1)
				prot &= ~MMU_WRITE;
		}
	}
	*state = prot | (*state & (MMU_ACCESSED | MMU_DIRTY));
	return MMU_UPDATE;
}

/*
 * A huge page wholly inside the range: the whole leaf gets the new rights,
 * writable only when every frame may be (Linux's change_huge_pmd never
 * splits: a huge page some of whose frames are shared after a fork stays
 * whole and read-only, and a write fault sorts it out).
 */
static enum mmu_action chprot_huge_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct chprot_ctx *c = arg;
	unsigned all = ~0U;

	/*
	 * Deferred shares (mm/thp.c): another leaf maps every frame, which
	 * the frames' fields that chprot_visit reads leave out. Read-only.
	 */
	if (c->private && READ_ONCE(*pmm_huge_shares(pa))) {
		*state = (c->want & ~MMU_WRITE) | (*state & (MMU_ACCESSED | MMU_DIRTY)) | MMU_HUGE;
		return MMU_UPDATE;
	}
	for (uintptr_t off = 0; off < HUGE_SIZE; off += PAGE_SIZE) {
		unsigned st = *state & ~MMU_HUGE;

		chprot_visit(arg, va + off, pa + off, &st);
		all &= st;
	}
	*state = all | MMU_HUGE;
	return MMU_UPDATE;
}

/*
 * Rewrite the PTEs of [start, end) in vma (whose flags are already the new
 * ones) with the permissions of vma->flags, in place, recording the changes
 * in tlb; in a private mapping, pages that are shared (COW), cache pages
 * and the zero page stay read-only; a huge page wholly inside keeps its
 * leaf when it can (chprot_huge_visit). mmap_lock write; takes pt_lock.
 * Returns the PTEs visited.
 */
static unsigned long mm_change_protection(struct mm *mm, const struct vma *vma, uintptr_t start, uintptr_t end,
					  struct tlb_batch *tlb)
{
	struct chprot_ctx c = { mm_vm_to_mmu(vma->flags), !(vma->flags & VM_SHARED) };
	unsigned long n;

	mm_pt_lock(mm);
	n = arch_mmu_walk_huge(mm->mmu, start, end, chprot_huge_visit, chprot_visit, &c, tlb);
	mm_pt_unlock(mm);
	return n;
}

/* mprotect_fixup: give [start, end) of vma newflags. *pprev = the VMA now covering it. */
static int mprotect_fixup(struct mm *mm, struct vma *vma, struct vma **pprev, uintptr_t start,
			  uintptr_t end, unsigned long newflags, struct tlb_batch *tlb)
{
	unsigned long oldflags = vma->flags;
	struct vma *out;
	int err;

	if (newflags == oldflags) {
		*pprev = vma;
		return 0;
	}
	if (newflags & VM_WRITE) {
		if (!(oldflags & (VM_ACCOUNT | VM_WRITE | VM_SHARED | VM_NORESERVE)))
			newflags |= VM_ACCOUNT;
	} else if ((oldflags & VM_ACCOUNT) && !vma->file && !vma->anon) {
		newflags &= ~VM_ACCOUNT;
	}
	err = vma_modify_flags(mm, vma, *pprev, start, end, newflags, &out);
	if (err)
		return err;
	*pprev = out;
	mm_change_protection(mm, out, start, end, tlb);
	return 0;
}

/*
 * do_mprotect_pkey's first VMA, under the lock: the one containing start,
 * or with PROT_GROWSDOWN the growsdown VMA that [start, end) reaches into
 * (*start moves down to its start). *prev as vma_modify_flags wants it.
 * 0; -ENOMEM no VMA there; -EINVAL growsdown on a VMA that is not, or
 * PROT_GROWSUP (no VM_GROWSUP on x86).
 */
static int mprotect_first_vma(struct mm *mm, uintptr_t *start, uintptr_t end, int grows,
			      struct vma **vma, struct vma **prev)
{
	struct vma *v = vma_find_prev(mm, *start, prev);

	if (!v)
		return -ENOMEM;
	if (grows & PROT_GROWSDOWN) {
		if (v->start >= end)
			return -ENOMEM;
		*start = v->start;
		if (!(v->flags & VM_GROWSDOWN))
			return -EINVAL;
	} else {
		if (v->start > *start)
			return -ENOMEM;
		if (grows & PROT_GROWSUP)
			return -EINVAL;
	}
	if (*start > v->start)
		*prev = v;
	*vma = v;
	return 0;
}

/* flags with the access bits prot asks for (calc_vm_prot_bits). */
static unsigned long prot_vm_flags(unsigned long flags, int prot)
{
	return (flags & ~VM_ACCESS_FLAGS) |
	       ((prot & PROT_READ) ? VM_READ : 0) | ((prot & PROT_WRITE) ? VM_WRITE : 0) |
	       ((prot & PROT_EXEC) ? VM_EXEC : 0);
}

/*
 * do_mprotect_pkey's walk over [start, end) from vma: each VMA's part gets
 * the new access bits (mprotect_fixup). Stops at the first error: -ENOMEM
 * at a hole (also one at the end), -EACCES asking for what a mapping may
 * not have; the VMAs before it keep their change.
 */
static int mprotect_walk(struct mm *mm, struct vma *vma, struct vma *prev, uintptr_t start,
			 uintptr_t end, int prot, struct tlb_batch *tlb)
{
	uintptr_t tmp = vma->start, nstart = start;
	int err = 0;

	while (vma && vma->start < end) {
		unsigned long newflags;

		if (vma->start != tmp)
			return -ENOMEM;
		newflags = prot_vm_flags(vma->flags, prot);
		/* newflags >> 4 shifts VM_MAY* onto VM_*: asking for what the mapping may not have. */
		if ((newflags & ~(newflags >> 4)) & VM_ACCESS_FLAGS)
			return -EACCES;
		tmp = MIN(vma->end, end);
		err = mprotect_fixup(mm, vma, &prev, nstart, tmp, newflags, tlb);
		if (err)
			return err;
		tmp = prev->end;
		nstart = tmp;
		if (nstart >= end)
			break;
		vma = vma_find(mm, nstart);
	}
	return tmp < end ? -ENOMEM : 0;
}

int vm_mprotect(struct mm *mm, uintptr_t start, size_t len, int prot)
{
	int grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP);
	struct vma *vma, *prev;
	struct tlb_batch tlb;
	uintptr_t end;
	int err;

	prot &= ~(PROT_GROWSDOWN | PROT_GROWSUP);
	if (grows == (PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (!len)
		return 0;
	len = ALIGN_UP(len, PAGE_SIZE);
	end = start + len;
	if (end <= start)
		return -ENOMEM;
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM))
		return -EINVAL;               /* arch_validate_prot */
	mmap_write_lock(mm);
	mm_tlb_init(&tlb, mm, false);
	err = mprotect_first_vma(mm, &start, end, grows, &vma, &prev);
	if (!err) {
		vma_write_lock_range(mm, start, end);
		err = mprotect_walk(mm, vma, prev, start, end, prot, &tlb);
	}
	mm_tlb_finish(&tlb);            /* one flush for every VMA changed */
	mmap_write_unlock(mm);
	return err;
}
