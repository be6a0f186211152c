/*
 * Anonymous pages in swap (Linux: try_to_unmap + pageout for the way out,
 * do_swap_page for the way back, zap_pte_range / copy_pte_range /
 * move_ptes for the swap entries in between). A private anonymous page
 * that only one entry maps is written to a swap slot (include/swap.h) and
 * its entry becomes a swap entry holding the slot (include/arch_mmu.h);
 * the next access faults and reads it back into a new page (a major
 * fault), and the slot is freed. Unmapping frees the slots of the range,
 * fork gives the child a reference to each slot (the data is shared until
 * one side reads it back into a page of its own), mremap moves the entries.
 *
 * There is no swap cache yet: a page is swapped out only while nothing
 * but its one entry (and reclaim) holds it, and written before it is
 * unmapped; arch_mmu_swap_out then refuses when the page was written
 * meanwhile (its dirty bit, cleared before the write, is set again), so
 * the slot always holds the page's last contents. Two faults on one swap
 * entry both read it; the second finds the entry gone and drops its copy.
 *
 * Locking: swap entries change under pt_lock (a read mmap_lock held, or
 * the write lock); slot references are counted under swap_lock, which
 * nests inside pt_lock. Reads and writes of slots sleep: pt_lock is
 * dropped around them, and the fault path then holds only the mmap_lock
 * (never just a VMA lock: mm/fault.c falls back to the mmap_lock first).
 * mm->swap_ents is atomic.
 */
#include "internal.h"
#include "swap.h"
#include "vmstat.h"
#include "kerrno.h"
#include "slab.h"

static swp_entry_t entry_of(unsigned long val)
{
	swp_entry_t e = { val };

	return e;
}

struct swap_clear_ctx {
	struct mm *mm;
	bool drop;                    /* drop each slot's reference (else the caller keeps it) */
};

static enum mmu_action clear_swap_visit(void *arg, uintptr_t va, unsigned long val)
{
	struct swap_clear_ctx *c = arg;

	(void)va;
	if (c->drop)
		swap_slot_free(entry_of(val));
	mm_count(&c->mm->swap_ents, -1);
	return MMU_CLEAR;
}

unsigned long mm_swap_clear(struct mm *mm, uintptr_t start, uintptr_t end, bool drop)
{
	struct swap_clear_ctx c = { mm, drop };

	if (!__atomic_load_n(&mm->swap_ents, __ATOMIC_RELAXED))
		return 0;
	return arch_mmu_walk_swap(mm->mmu, start, end, clear_swap_visit, &c);
}

/* One page table's worth of swap entries, collected before they are set (dst may be src). */
#define SWAP_WINDOW (512UL << PAGE_SHIFT)

struct swap_window {
	uintptr_t base;
	unsigned n;
	uintptr_t va[512];
	unsigned long val[512];
};

static enum mmu_action collect_swap_visit(void *arg, uintptr_t va, unsigned long val)
{
	struct swap_window *w = arg;

	w->va[w->n] = va;
	w->val[w->n++] = val;
	return MMU_KEEP;
}

/* Set the collected entries at dst_start + (va - start); fork (dup) takes a slot reference for each. */
static int set_window(struct mm *dst, uintptr_t dst_start, uintptr_t start, const struct swap_window *w,
		      bool dup)
{
	for (unsigned i = 0; i < w->n; i++) {
		int err = dup ? swap_slot_dup(entry_of(w->val[i])) : 0;

		if (!err)
			err = arch_mmu_set_swap(dst->mmu, dst_start + (w->va[i] - start), w->val[i]);
		if (err) {
			if (dup)
				swap_slot_free(entry_of(w->val[i]));
			return -ENOMEM;
		}
		mm_count(&dst->swap_ents, 1);
	}
	return 0;
}

int mm_swap_copy(struct mm *dst, uintptr_t dst_start, struct mm *src, uintptr_t start, uintptr_t end,
		 bool dup)
{
	struct swap_window *w;
	int err = 0;

	if (!__atomic_load_n(&src->swap_ents, __ATOMIC_RELAXED))
		return 0;
	w = kmalloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (uintptr_t va = start; va < end && !err;) {
		uintptr_t wend = MIN(ALIGN_DOWN(va, SWAP_WINDOW) + SWAP_WINDOW, end);

		w->n = 0;
		arch_mmu_walk_swap(src->mmu, va, wend, collect_swap_visit, w);
		err = set_window(dst, dst_start, start, w, dup);
		va = wend;
	}
	kfree(w);
	return err;
}

int mm_swap_out_page(struct mm *mm, uintptr_t va, struct page *p)
{
	swp_entry_t e;
	int err = swap_slot_alloc(&e);

	if (err)
		return err;
	err = swap_write_page(e, p);
	if (!err) {
		mm_pt_lock(mm);
		/* Still this entry's alone (its reference and the caller's), not written since it was cleaned. */
		err = page_refs(p) == 2 && p->mapcount == 1 ?
		      arch_mmu_swap_out(mm->mmu, va, page_to_phys(p), e.val, NULL) : -EBUSY;
		if (!err) {
			mm_unmap_page(mm, p, false, NULL);      /* the entry's reference; the caller's stays */
			mm_count(&mm->swap_ents, 1);
		}
		mm_pt_unlock(mm);
	}
	if (err)
		swap_slot_free(e);
	else
		count_vm_event(VM_PSWPOUT);
	return err;
}

/*
 * The swap entry val at va is still there: make it the present page p
 * (writable only when the VMA is, as do_swap_page maps it), and free the
 * slot. pt_lock held.
 */
static bool swap_in_install(struct mm *mm, struct vma *vma, uintptr_t va, unsigned long val,
			    struct page *p, unsigned flags)
{
	phys_addr_t cur = 0;
	unsigned prot = mm_vm_to_mmu(vma->flags) | MMU_ACCESSED;

	if (arch_mmu_query(mm->mmu, va, &cur, NULL) != -EAGAIN || cur != val)
		return false;           /* read back, or unmapped, meanwhile */
	if (flags & FAULT_WRITE)
		prot |= MMU_DIRTY;
	if (arch_mmu_map(mm->mmu, va, page_to_phys(p), prot))
		return false;           /* cannot happen: the table holds the swap entry */
	page_mapcount_add(p, 1);
	mm_count(&mm->rss, 1);
	mm_count(&mm->swap_ents, -1);
	swap_slot_free(entry_of(val));
	return true;
}

enum fault_result mm_swap_in(struct mm *mm, struct vma *vma, uintptr_t va, unsigned long val,
			     unsigned flags)
{
	struct page *p;
	int err;

	if (vma_anon_prepare(mm, vma))
		return FAULT_OOM;
	p = anon_page_alloc(vma->anon, false);
	if (!p)
		return FAULT_OOM;
	mm_pt_unlock(mm);
	err = swap_read_page(entry_of(val), p);
	mm_pt_lock(mm);
	if (err || !swap_in_install(mm, vma, va, val, p, flags)) {
		user_page_put(p);
		return err ? FAULT_SIGBUS : FAULT_OK;   /* Linux: an I/O error is VM_FAULT_SIGBUS */
	}
	count_vm_event(VM_PGMAJFAULT);
	count_vm_event(VM_PSWPIN);
	return FAULT_OK;
}
