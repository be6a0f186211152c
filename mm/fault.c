/*
 * Page faults (Linux's handle_mm_fault with x86's access_error and
 * expand_stack): demand-zero and zero-page mapping of private anonymous
 * memory, copy-on-write with reuse of exclusively owned pages, pages of
 * files and shared anonymous memory from their page cache (shared
 * mappings map them, private ones map them read-only and copy them on
 * write; past the end of the file: SIGBUS; a read fault maps the cached
 * pages around it too: fault-around; a page of theirs in swap is read back
 * with pt_lock dropped, a major fault), and stack growth (its rules are
 * mm/stack.c's). A guard marker
 * (mm/guard.c) refuses the access with SIGSEGV (SEGV_MAPERR), after the
 * VMA's permission check as on Linux.
 *
 * Locking: mmap_lock read around the whole fault (write only for the few
 * instructions that grow a stack VMA), or with fault_lock=vma the VMA's
 * own read lock instead when it can be had without the mmap_lock
 * (mm/vma_lock.c); pt_lock around every page-table change, but for the
 * demand-zero write, which fills its one entry (and links its missing
 * page table where no huge page may go) in pt_lock's shared mode
 * (anon_fault_shared), so the threads of one mm fault at once;
 * munmap/mprotect (mmap_lock write, and the write mark of every VMA they
 * change) exclude the faults in what they change.
 */
#include "internal.h"
#include "vmscan.h"
#include "arch.h"
#include "kerrno.h"
#include "kstring.h"
#include "printk.h"

bool mm_zero_page_enabled = true;

/* An execute-only VMA (PROT_EXEC alone) on hardware that can keep it unreadable. */
static bool vma_exec_only(unsigned long vm_flags)
{
	return (vm_flags & VM_ACCESS_FLAGS) == VM_EXEC && arch_mmu_exec_only();
}

struct set_state_ctx {
	unsigned state;
	struct tlb_batch *tlb;
};

static enum mmu_action set_state_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct set_state_ctx *c = arg;

	/* Rights taken away (not expected here) need every CPU flushed after all. */
	if (*state & MMU_PROT_MASK & ~c->state)
		c->tlb->local_only = false;
	*state = c->state;
	return MMU_UPDATE;
}

/*
 * The PTE update of one page's permissions: rewrite the entry at va with
 * state, which only adds rights (no other CPU needs a flush; a stale entry
 * there only faults again). pt_lock held.
 */
static void mm_set_pte_state(struct mm *mm, uintptr_t va, unsigned state)
{
	struct tlb_batch tlb;
	struct set_state_ctx c = { state, &tlb };

	assert_spin_held(&mm->pt_lock);
	mm_tlb_init(&tlb, mm, true);
	arch_mmu_walk(mm->mmu, va, va + PAGE_SIZE, set_state_visit, &c, &tlb);
	mm_tlb_finish(&tlb);
}

/*
 * x86 access_error, plus exec needing VM_EXEC (where x86 gets there by
 * refaulting on NX). A data access to an execute-only VMA is a protection-key
 * violation, present page or not (arch_vma_access_permitted).
 */
static inline enum fault_result access_check(const struct vma *vma, unsigned flags)
{
	if (!(flags & FAULT_EXEC) && vma_exec_only(vma->flags))
		return FAULT_SIGSEGV_PKUERR;
	if (flags & FAULT_WRITE)
		return vma->flags & VM_WRITE ? FAULT_OK : FAULT_SIGSEGV_ACCERR;
	if (flags & FAULT_EXEC)
		return vma->flags & VM_EXEC ? FAULT_OK : FAULT_SIGSEGV_ACCERR;
	if (flags & FAULT_PROT)
		return FAULT_SIGSEGV_ACCERR;   /* a read of a present page never faults */
	return vma->flags & VM_ACCESS_FLAGS ? FAULT_OK : FAULT_SIGSEGV_ACCERR;
}

/*
 * Map a new private page at va, where nothing is mapped, or (replace) in
 * place of the present entry, which is cleared and flushed on every CPU
 * first (a COW break: no CPU goes on reading the old page through va).
 */
static int install_page(struct mm *mm, uintptr_t va, struct page *p, unsigned prot, bool replace)
{
	if (replace) {
		arch_mmu_replace(mm->mmu, va, page_to_phys(p), prot);
	} else {
		/* into the table fault_locked's lookup found (no second walk) */
		int err = arch_mmu_map_near(mm->mmu, va, page_to_phys(p), prot);

		if (err)
			return err;
	}
	page_mapcount_add(p, 1);
	return 0;
}

/*
 * A fault under a VMA's lock alone (FAULT_VMA_LOCKED, mm/internal.h; it
 * must not sleep) that needs to sleep (swap-in) or the mmap_lock (an anon
 * identity) answers FAULT_RETRY, and is taken again under the mmap_lock.
 * Inside this file only: FAULT_SWAPIN: the object's page is in swap (a
 * tmpfs/memfd page, mm/shmem_swap.c): fault_locked reads it back with
 * pt_lock dropped and looks again.
 */
#define FAULT_SWAPIN ((enum fault_result)0x101)

/* A cache error as the fault's result: past the end or over a limit is SIGBUS (Linux vmf_error). */
static enum fault_result object_error(int err)
{
	return err == -ENOMEM ? FAULT_OOM : FAULT_SIGBUS;
}

/* Linux's fault_around_bytes (64 KiB): a read fault of a file maps this many pages around it. */
#define FAULT_AROUND_PAGES 16
#define PTES_PER_TABLE     512

/*
 * do_fault_around + filemap_map_pages, before a read fault of va proper
 * (shared or private file mapping, shared anonymous memory): map the
 * object's pages already in its cache in a FAULT_AROUND_PAGES block
 * around va (aligned, or starting at the VMA's start when that is later;
 * clipped to the VMA, to va's page table and to the end of the file)
 * wherever nothing is mapped (no entry: a guard marker or a private copy
 * stays), clean, with the VMA's permissions (read-only in a private one).
 * That is why a page read through one mapping of an object can end up
 * mapped by its neighbours' mappings too (it matters to MADV_PAGEOUT,
 * which leaves a page mapped twice alone). pt_lock held; out of memory
 * just maps fewer.
 */
/* LAB filemap: BEGIN fault_around */
static void object_fault_around(struct mm *mm, struct vma *vma, uintptr_t va, unsigned want)
{
	uintptr_t pte_off = (va >> PAGE_SHIFT) % PTES_PER_TABLE, vma_off = (va - vma->start) >> PAGE_SHIFT;
	uintptr_t table = va - (pte_off << PAGE_SHIFT);
	uintptr_t from = MAX(ALIGN_DOWN(pte_off, FAULT_AROUND_PAGES), pte_off - MIN(pte_off, vma_off));
	uintptr_t to = MIN(MIN(from + FAULT_AROUND_PAGES, (uintptr_t)PTES_PER_TABLE),
			   pte_off + vma_pages(vma) - vma_off);

	for (uintptr_t i = from; i < to; i++) {
		uintptr_t a = table + (i << PAGE_SHIFT);
		struct page *p = NULL;

		if (a == va || arch_mmu_query_near(mm->mmu, a, NULL, NULL) != -ENOENT)
			continue;
		/* past the end (-ENXIO) or absent: nothing to map; the reference becomes the PTE's */
		if (vm_object_page(vma_object(vma), vma_pgoff_at(vma, a), VMO_NOWAIT, &p) || !p)
			continue;
		if (install_page(mm, a, p, want | MMU_ACCESSED, false)) {
			vm_object_page_put(p);
			return;
		}
		mm_count(&mm->rss, 1);
		mm_count(&mm->rss_file, 1);
	}
}
/* LAB filemap: END fault_around */

/*
 * A file-backed (or shared anonymous) page not mapped yet: the object's
 * page, in a shared VMA as the VMA allows (do_shared_fault), in a private
 * one read-only (do_read_fault; a write copies it next, wp_fault).
 */
/* LAB filemap: BEGIN object_fault */
static enum fault_result object_fault(struct mm *mm, struct vma *vma, uintptr_t va, unsigned flags)
{
	bool shared = vma->flags & VM_SHARED;
	unsigned want = mm_vm_to_mmu(vma->flags);
	struct page *p;
	int err;

	if (!shared)
		want &= ~MMU_WRITE;
	if (!(flags & FAULT_WRITE))
		object_fault_around(mm, vma, va, want);
	err = vm_object_page(vma_object(vma), vma_pgoff_at(vma, va), VMO_ALLOC | VMO_NOWAIT, &p);
	if (err == -EAGAIN)
		return FAULT_SWAPIN;
	if (err)
		return object_error(err);
	/* the cache's reference for this PTE was taken by vm_object_page */
	err = install_page(mm, va, p, want | MMU_ACCESSED | (shared && (flags & FAULT_WRITE) ? MMU_DIRTY : 0),
			   false);
	if (err) {
		user_page_put(p);
		return FAULT_OOM;
	}
	mm_count(&mm->rss, 1);
	mm_count(&mm->rss_file, 1);
	return FAULT_OK;
}
/* LAB filemap: END object_fault */

/* A fault in a shared VMA on a page that is present: only permissions can lag. */
static enum fault_result shared_present(struct mm *mm, struct vma *vma, uintptr_t va, unsigned state)
{
	unsigned want = mm_vm_to_mmu(vma->flags);

	/* Permissions lag behind the VMA (cannot happen after mprotect, which rewrites PTEs). */
	if ((state & MMU_PROT_MASK) != want)
		mm_set_pte_state(mm, va, want | (state & (MMU_ACCESSED | MMU_DIRTY)));
	return FAULT_OK;
}

/* LAB cow: BEGIN wp_fault */
/* A write to the private page (or zero page) at pa, mapped read-only at va: copy or reuse. */
static enum fault_result wp_fault(struct mm *mm, struct vma *vma, uintptr_t va, phys_addr_t pa)
{
	unsigned want = mm_vm_to_mmu(vma->flags) | MMU_ACCESSED | MMU_DIRTY;
	struct page *old = NULL, *np;

	if (vma_anon_prepare(mm, vma))
		return FAULT_OOM;
	if (!mm_is_zero_pa(pa)) {
		old = phys_to_page(pa);
		BUG_ON(!old);
		/*
		 * A file's page is never taken over: the private copy is a new
		 * page (wp_page_copy). An anonymous one that this entry alone
		 * maps and holds is reused (do_wp_page's wp_page_reuse). Reclaim
		 * takes its isolation reference without pt_lock, so the test is
		 * a freeze of the one reference: it fails when an isolation got
		 * there first (copy, as Linux's wp_can_reuse_anon_folio), and an
		 * isolation tried while the page is re-tagged backs off.
		 */
		if ((old->flags & PG_anon) && old->mapcount == 1 && page_ref_freeze(old, 1)) {
			anon_page_move(old, vma, va);
			page_clear_lazyfree(old);
			page_ref_unfreeze(old, 1);
			mm_set_pte_state(mm, va, want);
			mm_count(&mm->cow_reuses, 1);
			return FAULT_OK;
		}
	}
	np = anon_page_alloc(vma, va, old == NULL);
	if (!np)
		return FAULT_OOM;
	if (old)
		arch_copy_page(page_address(np), page_address(old));
	if (install_page(mm, va, np, want, true)) {
		user_page_put(np);
		return FAULT_OOM;
	}
	if (old)
		mm_unmap_page(mm, old, !(old->flags & PG_anon), NULL);     /* replace flushed it */
	mm_count(&mm->rss, 1);
	mm_count(&mm->cow_copies, 1);
	return FAULT_OK;
}
/* LAB cow: END wp_fault */

/*
 * do_cow_fault: a write to a page of a private file mapping that is not
 * mapped: a private copy of the file's page (which the cache gets if it
 * had none). As in Linux the VMA gets its anon identity before the file's
 * page is looked up, so even a write past the end (SIGBUS) leaves it one.
 */
/* LAB filemap: BEGIN cow_fault */
static enum fault_result cow_fault(struct mm *mm, struct vma *vma, uintptr_t va)
{
	unsigned want = mm_vm_to_mmu(vma->flags) | MMU_ACCESSED | MMU_DIRTY;
	struct page *src, *np;
	int err;

	if (vma_anon_prepare(mm, vma))
		return FAULT_OOM;
	err = vm_object_page(vma_object(vma), vma_pgoff_at(vma, va), VMO_ALLOC | VMO_NOWAIT, &src);
	if (err == -EAGAIN)
		return FAULT_SWAPIN;
	if (err)
		return object_error(err);
	np = anon_page_alloc(vma, va, false);
	if (np)
		arch_copy_page(page_address(np), page_address(src));
	user_page_put(src);
	if (!np)
		return FAULT_OOM;
	if (install_page(mm, va, np, want, false)) {
		user_page_put(np);
		return FAULT_OOM;
	}
	mm_count(&mm->rss, 1);
	mm_count(&mm->cow_copies, 1);
	return FAULT_OK;
}
/* LAB filemap: END cow_fault */

/* LAB lazy: BEGIN private_fault */
static enum fault_result private_fault(struct mm *mm, struct vma *vma, uintptr_t va,
				       unsigned flags, bool present, phys_addr_t pa, unsigned state)
{
	unsigned want = mm_vm_to_mmu(vma->flags);
	struct page *p;

	if (present) {
		if ((flags & FAULT_WRITE) && !(state & MMU_WRITE))
			return wp_fault(mm, vma, va, pa);
		/* Spurious, or exec/read rights lagging behind the VMA: add them (never W here). */
		if (want & ~state & ~MMU_WRITE)
			mm_set_pte_state(mm, va, state | (want & ~MMU_WRITE));
		return FAULT_OK;
	}
	if (vma->file)
		return (flags & FAULT_WRITE) ? cow_fault(mm, vma, va) : object_fault(mm, vma, va, flags);
	if (!(flags & FAULT_WRITE) && mm->zero_page) {
		/* do_anonymous_page, read: the zero page, read-only, no anon identity. */
		if (arch_mmu_map(mm->mmu, va, mm_zero_pa, (want & ~MMU_WRITE) | MMU_ACCESSED))
			return FAULT_OOM;
		mm_count(&mm->zero_maps, 1);
		return FAULT_OK;
	}
	/*
	 * A write, or a read without the zero page: a zeroed page of the VMA's
	 * own, writable and dirty at once when the VMA allows writing (as
	 * do_anonymous_page maps it).
	 */
	if (vma_anon_prepare(mm, vma))
		return FAULT_OOM;
	p = anon_page_alloc(vma, va, true);
	if (!p)
		return FAULT_OOM;
	if (install_page(mm, va, p, want | MMU_ACCESSED | ((want & MMU_WRITE) ? MMU_DIRTY : 0), false)) {
		user_page_put(p);
		return FAULT_OOM;
	}
	mm_count(&mm->rss, 1);
	return FAULT_OK;
}
/* LAB lazy: END private_fault */

/*
 * shmem_fault's swap-in: the object's page at va is in swap: read it back
 * (a major fault) with pt_lock dropped, under the mmap_lock (a fault
 * under the VMA lock alone retries under it first). FAULT_SWAPIN when it
 * is back (look again), or the error. pt_lock held.
 */
static enum fault_result object_swap_in(struct mm *mm, struct vma *vma, uintptr_t va, unsigned flags)
{
	int r;

	if (flags & FAULT_VMA_LOCKED)
		return FAULT_RETRY;
	mm_pt_unlock(mm);
	r = vm_object_swap_in(vma_object(vma), vma_pgoff_at(vma, va));
	mm_pt_lock(mm);
	if (r > 0)
		count_vm_event(VM_PGMAJFAULT);
	return r < 0 ? object_error(r) : FAULT_SWAPIN;
}

/*
 * Zero the page of a demand-zero fault before pt_lock, which every other
 * fault of the address space waits for (Linux's do_anonymous_page clears
 * its folio before it takes the page-table lock too): the zeroing is 512
 * of the fault's 1,600 instructions or so, and with it inside, three
 * threads faulting at once spent a third of their time waiting for
 * pt_lock (tools/bench/mixedcost). Done when the fault is one in all
 * likelihood: a write the CPU found no page for (FAULT_PROT clear) in
 * private anonymous memory; when it was none after all (another CPU
 * mapped the page first, a swap entry), the zeroed frame stays on this
 * CPU's list for the next. Only in an address space that more than one
 * task uses: the second visit to the list costs about 70 instructions,
 * and nobody else's fault waits for a single-threaded process's.
 */
static void zero_ahead_if_shared(const struct mm *mm, const struct vma *vma, unsigned flags)
{
	if (READ_ONCE(mm->tasks) > 1 && (flags & (FAULT_WRITE | FAULT_PROT)) == FAULT_WRITE && !vma->file &&
	    !(vma->flags & VM_SHARED))
		pmm_zero_ahead();
}

/*
 * va's empty entry, for anon_fault_shared: where its page table is
 * missing, the tables are linked in shared mode too, unless the block may
 * get a huge page (thp_fault decides that under the lock). False: no
 * empty entry (a mapping, swap entry or guard marker there, a 2 MiB leaf,
 * no memory for a table).
 */
static bool shared_slot(struct mm *mm, const struct vma *vma, uintptr_t va, struct mmu_empty_slot *slot)
{
	if (arch_mmu_find_empty(mm->mmu, va, slot))
		return true;
	if (thp_block_may_fault_huge(mm, vma, va) || arch_mmu_link_tables(mm->mmu, va))
		return false;
	return arch_mmu_find_empty(mm->mmu, va, slot);
}

/*
 * do_anonymous_page's write without pt_lock: a write the CPU found no
 * page for, in private anonymous memory that has its anon identity, whose
 * entry is empty, fills the entry in the lock's shared mode
 * (mm/internal.h), so the faults of several threads do not wait for each
 * other, only for an exclusive holder (munmap, mprotect, reclaim). The
 * page is zeroed in shared mode too, and a missing page table linked
 * (shared_slot). Whatever else the fault finds
 * (a 2 MiB block that may get a huge page, a swap entry, no memory) goes
 * the locked way: false. When another CPU's fault filled the entry first,
 * its page stands, ours goes back, and the access retries (FAULT_OK), as
 * in Linux.
 */
static bool anon_fault_shared(struct mm *mm, struct vma *vma, uintptr_t va, unsigned flags,
			      enum fault_result *r)
{
	struct mmu_empty_slot slot;
	struct page *p;
	bool filled;

	if ((flags & (FAULT_WRITE | FAULT_PROT)) != FAULT_WRITE || vma->file || (vma->flags & VM_SHARED) ||
	    !READ_ONCE(vma->anon) || !mm_pt_share(mm))
		return false;
	if (!shared_slot(mm, vma, va, &slot) || !(p = anon_page_alloc(vma, va, true))) {
		mm_pt_unshare(mm);
		return false;
	}
	filled = arch_mmu_fill_empty(&slot, page_to_phys(p),
				     mm_vm_to_mmu(vma->flags) | MMU_ACCESSED | MMU_DIRTY);
	if (filled)
		page_mapcount_add(p, 1);
	mm_pt_unshare(mm);
	if (filled) {
		mm_count(&mm->rss, 1);
		mm_count(&mm->faults_pt_shared, 1);
	} else {
		user_page_put(p);
	}
	*r = FAULT_OK;
	return true;
}

/* The fault proper, with mmap_lock held for reading and vma containing addr. */
static enum fault_result fault_locked(struct mm *mm, struct vma *vma, uintptr_t addr, unsigned flags)
{
	uintptr_t va = ALIGN_DOWN(addr, PAGE_SIZE);
	phys_addr_t pa = 0;
	unsigned state = 0, tries = 0;
	bool present;
	enum fault_result r;
	int q;

	if (anon_fault_shared(mm, vma, va, flags, &r))
		return r;
	zero_ahead_if_shared(mm, vma, flags);
	mm_pt_lock(mm);
again:
	q = arch_mmu_query_near(mm->mmu, va, &pa, &state);
	present = q == 0;
	if (q == -EFAULT)
		r = FAULT_SIGSEGV_MAPERR;       /* a guard marker (handle_pte_marker: VM_FAULT_SIGSEGV) */
	else if (q == -EAGAIN)            /* a swap entry (anonymous pages only: private memory, a file's private copies) */
		r = (flags & FAULT_VMA_LOCKED) ? FAULT_RETRY : mm_swap_in(mm, vma, va, pa, flags);
	else if ((vma->flags & VM_SHARED) && present)
		r = shared_present(mm, vma, va, state);
	else if (vma->flags & VM_SHARED)
		r = object_fault(mm, vma, va, flags);
	else if (!((q == -ENOENT || (state & MMU_HUGE)) && !vma->file &&
		   thp_fault(mm, vma, va, flags, pa, present ? state : 0, &r)))
		r = private_fault(mm, vma, va, flags, present, pa, state);
	if (r == FAULT_AGAIN) {           /* thp_fault dropped pt_lock and mapped nothing */
		flags |= FAULT_NO_HUGE_ALLOC;
		goto again;
	}
	if (r == FAULT_SWAPIN)
		r = object_swap_in(mm, vma, va, flags);
	if (r == FAULT_SWAPIN && ++tries < 4)
		goto again;
	if (r == FAULT_SWAPIN)
		r = FAULT_OK;           /* swapped out again each time: the access faults once more */
	mm_pt_unlock(mm);
	return r;
}

/*
 * Can the fault be handled under the VMA lock alone? Not when it would
 * prepare the anon identity of a private VMA (that reads the neighbours
 * through the index, which only the mmap_lock keeps still): a private VMA
 * without one falls back on a write. A read needs none: of a private file
 * mapping it maps the cache page, of anonymous memory the zero page (with
 * zero_page off it allocates, so it falls back; a huge zero page answers
 * FAULT_RETRY, thp_fault). Linux 6.4 fell back on every fault of an
 * anonymous VMA without one; 6.7 moved the check to where the identity is
 * needed (vmf_anon_prepare), as here. File faults otherwise run here: the
 * cache lookup takes o->lock, a spinning lock, and allocates without
 * sleeping, so nothing under the VMA lock sleeps or takes an fs lock
 * (vma_start_write spins waiting for faults).
 */
static bool vma_lock_fault_ok(const struct mm *mm, const struct vma *vma, unsigned flags)
{
	if ((vma->flags & VM_SHARED) || vma->anon)
		return true;
	return !(flags & FAULT_WRITE) && (vma->file || mm->zero_page);
}

/*
 * fault_lock=vma: the fault under the VMA's own lock, without the mmap_lock
 * (Linux lock_vma_under_rcu). True with *r when done; false when the
 * caller must take the mmap_lock (no locked VMA found, or a private VMA
 * still without an anon identity).
 */
static inline bool fault_under_vma_lock(struct mm *mm, uintptr_t addr, unsigned flags, enum fault_result *r)
{
	struct vma *vma = vma_lock_lookup(mm, addr);

	if (vma && !vma_lock_fault_ok(mm, vma, flags)) {
		vma_read_unlock(vma);
		vma = NULL;
	}
	if (!vma) {
		mm_count(&mm->faults_fallback, 1);
		return false;
	}
	*r = access_check(vma, flags);
	if (*r == FAULT_OK)
		*r = fault_locked(mm, vma, addr, flags | FAULT_VMA_LOCKED);
	vma_read_unlock(vma);
	if (*r == FAULT_RETRY) {
		mm_count(&mm->faults_fallback, 1);
		return false;
	}
	mm_count(&mm->faults_lockless, 1);
	return true;
}

/*
 * lock_mm_and_find_vma (Linux's, 6.5+): the mmap_lock for reading and the
 * VMA holding addr, growing a stack down to it first (under the write
 * lock, then back to the read lock); NULL with the lock dropped when no
 * VMA holds addr or the stack cannot grow there.
 */
static struct vma *lock_mm_and_find_vma(struct mm *mm, uintptr_t addr)
{
	struct vma *vma;
	bool stack_below;
	int err;

	mmap_read_lock(mm);
	vma = vma_find(mm, addr);
	if (vma && vma->start <= addr)
		return vma;
	/* (read before the unlock: once it is dropped, vma may be freed by an munmap) */
	stack_below = vma && (vma->flags & VM_GROWSDOWN);
	mmap_read_unlock(mm);
	if (!stack_below)
		return NULL;
	mmap_write_lock(mm);
	vma = vma_find(mm, addr);
	if (vma)
		vma_start_write(mm, vma);
	err = expand_stack_locked(mm, addr);
	mmap_write_unlock(mm);
	if (err)
		return NULL;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (!vma)
		mmap_read_unlock(mm);
	return vma;
}

/* One try at the fault: the per-VMA lock first where enabled, else under the mmap_lock. */
static __always_inline enum fault_result fault_once(struct mm *mm, uintptr_t addr, unsigned flags)
{
	struct vma *vma;
	enum fault_result r;

	if (addr >= TASK_SIZE)
		return FAULT_SIGSEGV_MAPERR;
	if (mm->vma_lockless && fault_under_vma_lock(mm, addr, flags, &r))
		return r;
	vma = lock_mm_and_find_vma(mm, addr);
	if (!vma)
		return FAULT_SIGSEGV_MAPERR;
	r = access_check(vma, flags);
	if (r == FAULT_OK)
		r = fault_locked(mm, vma, addr, flags);
	mmap_read_unlock(mm);
	return r;
}

/*
 * A fault that found no page reclaims itself (direct reclaim, waiting for
 * address spaces kswapd holds) and tries again while that frees pages.
 * A pass that freed nothing still earns another try when the free frames
 * are above the min watermark: another reclaimer (kswapd) freed them
 * meanwhile. At most this many such tries in a row (Linux's
 * MAX_RECLAIM_RETRIES); then the fault fails with FAULT_OOM.
 */
#define RECLAIM_RETRIES 16

/* The fault found no page: reclaim and try again, as the comment above says. */
static __noinline enum fault_result fault_oom_retry(struct mm *mm, uintptr_t addr, unsigned flags)
{
	enum fault_result r = FAULT_OOM;

	for (unsigned stalls = 0; r == FAULT_OOM && stalls < RECLAIM_RETRIES;) {
		if (mm_reclaim_direct(true))
			stalls = 0;
		else if (pmm_free_frames() > pmm_watermark(WMARK_MIN))
			stalls++;
		else
			break;
		r = fault_once(mm, addr, flags);
	}
	return r;
}

enum fault_result handle_mm_fault(struct mm *mm, uintptr_t addr, unsigned flags)
{
	enum fault_result r;

	mm_count(&mm->faults, 1);
	count_vm_event(VM_PGFAULT);
	r = fault_once(mm, addr, flags);
	if (unlikely(r == FAULT_OOM))
		r = fault_oom_retry(mm, addr, flags);
	vmscan_check_low();
	return r;
}
