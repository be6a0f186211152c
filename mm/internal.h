/*
 * Private to mm/: helpers shared by the address-space, fault, zap and
 * system-call files (user page accounting, the zero page, the page cache
 * of files and shared anonymous memory, counters). See include/mm.h for the page accounting rules.
 */
#ifndef MM_INTERNAL_H
#define MM_INTERNAL_H

#include "mm.h"
#include "vma_internal.h"
#include "pmm.h"
#include "arch_mmu.h"
#include "arch.h"
#include "vmstat.h"
#include "swap.h"
#include "vmscan.h"
#include "lockless.h"
#include "lru.h"
#include "lockdep.h"

/* ---- the page-table lock (mm->pt_lock): a spinning lock that leaves interrupts on */
/*
 * The lock has a shared mode too, for the one page-table change that
 * needs no more than the entry it fills: the demand fault into a table
 * that exists (mm/fault.c, anon_fault_shared). A CPU in shared mode
 * (mm_pt_share .. mm_pt_unshare) fills an empty entry with a
 * compare-and-exchange and changes nothing else in the tables; any
 * number of CPUs may share at once. mm_pt_lock is the exclusive mode: it
 * takes the spinning lock, then waits until the sharers already in have
 * left; a CPU that finds the lock held does not share (it takes the lock
 * instead), so the wait is short and the lock's holder has the tables
 * to itself as before. Linux gets the same freedom with a lock per page
 * table (split PTE locks); here faults into the same table do not wait
 * for each other either.
 */
void mm_pt_wait_sharers(struct mm *mm);

static inline void mm_pt_lock(struct mm *mm)
{
	BUG_ON(!arch_irqs_enabled());   /* a CPU waiting for it must still take shootdown IPIs */
	spin_lock(&mm->pt_lock);
	/* Orders the lock's store before the sharers' load; mm_pt_share does the converse. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(smp_load_acquire(&mm->pt_sharers) != 0, 0))
		mm_pt_wait_sharers(mm);
}

static inline void mm_pt_unlock(struct mm *mm)
{
	spin_unlock(&mm->pt_lock);
}

/*
 * mm_pt_share: enter shared mode (above): true, or false when pt_lock is
 * held (the caller takes it instead). The lock checker sees pt_lock
 * taken, so the locks taken inside are checked against it as in the
 * exclusive mode. Never sleeps, never waits; no mm_pt_lock of the same
 * mm inside.
 */
static inline bool mm_pt_share(struct mm *mm)
{
	__atomic_add_fetch(&mm->pt_sharers, 1, __ATOMIC_SEQ_CST);
	if (__builtin_expect(!spin_is_locked(&mm->pt_lock), 1)) {
		lockdep_acquire(&mm->pt_lock, mm->pt_lock.lclass, 0);
		return true;
	}
	__atomic_sub_fetch(&mm->pt_sharers, 1, __ATOMIC_RELEASE);
	return false;
}

/* mm_pt_unshare: leave shared mode; what was filled is visible to the next pt_lock holder. */
static inline void mm_pt_unshare(struct mm *mm)
{
	lockdep_release(&mm->pt_lock, mm->pt_lock.lclass);
	__atomic_sub_fetch(&mm->pt_sharers, 1, __ATOMIC_RELEASE);
}

/* ---- TLB batches (mm/mm_tlb.c) */

/* mm_tlb_init: an empty batch for mm's page tables (local_only: changes that only add rights). */
static inline void mm_tlb_init(struct tlb_batch *b, struct mm *mm, bool local_only)
{
	tlb_batch_init(b, mm->mmu, local_only);
}
/*
 * mm_tlb_finish: flush the batch wherever mm is loaded (arch_tlb_flush),
 * then free the user frames it holds and drop the page references it
 * holds. Before the caller drops the lock that keeps the changed range
 * from being reused (mmap_lock, or the VMA). The batch is empty and usable
 * again afterwards.
 */
void mm_tlb_finish(struct tlb_batch *b);
/*
 * mm_tlb_put_page: drop one reference to p after b's flush (a page-cache
 * page whose PTE was cleared, or is about to be, into b). A full batch is
 * flushed first (mm_tlb_finish), so the caller holds no lock that disables
 * interrupts; pt_lock is fine.
 */
void mm_tlb_put_page(struct tlb_batch *b, struct page *p);

/* ---- per-VMA locks for faults (mm/vma_lock.c) */

/* vma_lockless_init: mm's per-VMA lock state (fault_lock=vma when mm_fault_lock_vma). mm_create. */
void vma_lockless_init(struct mm *mm);
/*
 * vma_lockless_publish: at mmap_write_unlock: publish a new snapshot of the
 * VMAs (backends without find_lockless), drop every VMA write mark, and
 * free the old snapshot, the VMAs retired in this write section and what
 * the index kept from lock-free readers, once no lock-free fault can see them.
 */
void vma_lockless_publish(struct mm *mm);
/*
 * vma_lockless_flush: free now what mm keeps from lock-free faults (the
 * retired VMAs, old snapshots, the index's kept nodes), waiting for the
 * grace periods, so that a frame count right after does not depend on
 * when they ended. Drops the section's marks: call it first in a write
 * section, before anything is marked. mmap_lock write.
 */
void vma_lockless_flush(struct mm *mm);
/*
 * vma_lockless_set: lock-free faults in mm on or off (off at teardown, when
 * nobody can fault in it any more; tests switch it): publishes as at an
 * unlock, and on the way off waits for the faults still inside. mmap_lock write.
 */
void vma_lockless_set(struct mm *mm, bool on);
/*
 * vma_start_write: mark v as changing in this write section, after waiting
 * for the faults inside it. vma_write_lock_range: every VMA that touches
 * or intersects [start, end] (its neighbours included: merges change
 * them); vma_write_lock_inside: those that intersect [start, end) only
 * (munmap's: it changes no neighbour); vma_write_lock_map: those a new
 * mapping of [start, end) with flags and file may change: the ones inside
 * (MAP_FIXED replaces them) and a neighbour only when it has the same
 * flags but VM_SOFTDIRTY and the same file, which a merge needs (Linux
 * write-locks the VMA a merge expands, not every neighbour; a faulting
 * thread next to another's mmap and munmap then keeps its VMA lock);
 * vma_write_lock_all: every VMA. mmap_lock write; nothing to do unless
 * mm->vma_lockless.
 */
void vma_start_write(struct mm *mm, struct vma *v);
void vma_write_lock_range(struct mm *mm, uintptr_t start, uintptr_t end);
void vma_write_lock_inside(struct mm *mm, uintptr_t start, uintptr_t end);
void vma_write_lock_map(struct mm *mm, uintptr_t start, uintptr_t end, unsigned long flags,
			const struct vm_file *file);
void vma_write_lock_all(struct mm *mm);
/*
 * vma_mark_new: v, about to enter the index in this write section, comes
 * in marked: a fault that finds it before the section ends falls back to
 * the mmap_lock, so the section may still change or free it. No fault can
 * be inside it yet, so nothing to wait for. mmap_lock write.
 * vma_write_marked: v is closed to lock-free faults for the rest of this
 * write section (marked in it, or mm has no lock-free faults).
 * vma_assert_marked: BUG unless so, in debugging builds (LOCKDEP): every
 * VMA a section moves, shrinks, grows or frees.
 */
void vma_mark_new(struct mm *mm, struct vma *v);
bool vma_write_marked(const struct mm *mm, const struct vma *v);
#ifdef LOCKDEP
#define vma_assert_marked(mm, v) BUG_ON(!vma_write_marked(mm, v))
#else
#define vma_assert_marked(mm, v) ((void)(mm), (void)(v))
#endif
/*
 * vma_lock_lookup: the VMA containing addr, read-locked, found without the
 * mmap_lock; NULL when the caller must take the mmap_lock instead (no
 * snapshot, no VMA there, or a writer is changing it). vma_read_unlock
 * releases it.
 */
struct vma *vma_lock_lookup(struct mm *mm, uintptr_t addr);

static inline void vma_read_unlock(struct vma *v)
{
	lockdep_release(v, LOCK_CLASS_VMA);
	__atomic_sub_fetch(&v->vm_readers, 1, __ATOMIC_RELEASE);
}
/* vma_retired_free: free the retired VMAs of mm on chain (linked by retired_next; mm/vma.c; mm/vma_lock.c calls it). */
void vma_retired_free(struct mm *mm, struct vma *chain);

/* ---- counters ([atomic] fields of struct mm) */
static inline void mm_count(unsigned long *c, long d)
{
	__atomic_add_fetch(c, (unsigned long)d, __ATOMIC_RELAXED);
}

/* ---- user pages (mm/user_page.c) */

/* Set up the zero page once. 0 or -ENOMEM. */
int mm_zero_page_init(void);
extern phys_addr_t mm_zero_pa;
/* The huge zero page's block (mm/thp.c), 0 when there is none. */
extern phys_addr_t mm_huge_zero_pa;
/* Is pa the zero page, or a frame of the huge zero page (no reference, no RSS)? */
static inline bool mm_is_zero_pa(phys_addr_t pa)
{
	phys_addr_t hz = READ_ONCE(mm_huge_zero_pa);

	return (mm_zero_pa && pa == mm_zero_pa) || (hz && (pa & ~(phys_addr_t)(HUGE_SIZE - 1)) == hz);
}

/*
 * anon_page_alloc: a private anonymous page to be mapped at va of vma
 * (whose identity is set): PG_anon, private = vma->anon (referenced),
 * index = its page offset there (vma_pgoff_at), refcount 1, mapcount 0,
 * zeroed when zero. NULL on -ENOMEM.
 */
static inline struct page *anon_page_alloc(const struct vma *vma, uintptr_t va, bool zero);
/* anon_pages_init: make the n allocated frames from first, mapped from va on, such pages (anon_page_alloc's tagging; a huge page's at once). */
void anon_pages_init(struct page *first, unsigned n, const struct vma *vma, uintptr_t va);

/* ---- transparent huge pages (mm/thp.c) */

/* Show the 512 frames of the 2 MiB leaf at va (frames from pa, state) to a 4 KiB visitor; verdicts ignored. */
static inline void huge_visit_frames(mmu_visit_fn fn, void *arg, uintptr_t va, phys_addr_t pa,
				     unsigned state)
{
	for (uintptr_t off = 0; off < HUGE_SIZE; off += PAGE_SIZE) {
		unsigned st = state & ~MMU_HUGE;

		fn(arg, va + off, pa + off, &st);
	}
}

/*
 * thp_fault: a fault at va of private anonymous vma where nothing is
 * mapped (state 0) or a 2 MiB leaf is (pa and state: the caller's query
 * of va, MMU_HUGE set). Where policy allows huge pages: where nothing is
 * mapped, map a zeroed huge page (a write, or a read without the zero
 * page) or the huge zero page (a read); a write to a read-only leaf
 * reuses it when exclusive or replaces the huge zero page. True when
 * done (*r the result), else false: the caller goes on with 4 KiB (a
 * missing order-9 block counts thp_fault_fallback; a shared leaf written
 * is split first, so the 4 KiB fault copies one page: also where policy
 * allows no huge pages, when the leaf has deferred shares, since the
 * 4 KiB fault reads the frames' own counts). pt_lock held; it is dropped while a new huge page is zeroed,
 * and when that page cannot be mapped after all (no order-9 block, or
 * the slot was used meanwhile) *r is FAULT_AGAIN: the caller looks
 * again, with FAULT_NO_HUGE_ALLOC. flags: FAULT_*, and those two. Under
 * a VMA lock alone (FAULT_VMA_LOCKED), a read where nothing is mapped in a
 * VMA without an anon identity answers FAULT_RETRY: the huge zero page
 * takes the identity first, as Linux's do_huge_pmd_anonymous_page
 * (vmf_anon_prepare), which only the mmap_lock allows.
 */
/*
 * thp_block_may_fault_huge: could thp_fault map a huge page in va's 2 MiB
 * block of vma (the policy allows it and the block lies inside vma)? When
 * not, no fault there ever maps one: the block gets a page table.
 */
bool thp_block_may_fault_huge(const struct mm *mm, const struct vma *vma, uintptr_t va);
#define FAULT_VMA_LOCKED 0x100
#define FAULT_NO_HUGE_ALLOC 0x200
#define FAULT_AGAIN ((enum fault_result)0x102)
#define FAULT_RETRY ((enum fault_result)0x100)
bool thp_fault(struct mm *mm, struct vma *vma, uintptr_t va, unsigned flags, phys_addr_t pa, unsigned state,
	       enum fault_result *r);
/*
 * thp_share: fork's copy_huge_pmd: map the parent's huge page at pa
 * (leaf at h, its state in *state) in child too, write-protected in both
 * (*state loses MMU_WRITE), each frame one reference and one mapping
 * more as page_total_refs and page_total_mapcount read them (one deferred share of
 * the block, mm/thp.c). 0 or -ENOMEM (no page table: nothing mapped in the child).
 */
int thp_share(struct mm *child, uintptr_t h, phys_addr_t pa, unsigned *state);
/*
 * huge_share_drop: a 2 MiB leaf mapping the huge page at pa goes: take
 * back one of the block's deferred shares (mm/thp.c) and return true
 * when it had one (the frames' own counts stay: another leaf's); false
 * when it had none, and the caller drops each frame's reference and
 * mapping.
 */
bool huge_share_drop(phys_addr_t pa);
/*
 * thp_page_alloc: an order-9 block as 512 zeroed private anonymous pages
 * of vma (which has its anon identity), mapped from h (refcount 1 and
 * mapcount 1 each, not yet in any page table or RSS). NULL when no
 * order-9 block is free above the user watermark.
 */
struct page *thp_page_alloc(const struct vma *vma, uintptr_t h);
/* thp_leaf_state: a new huge page's leaf state: vma's rights, accessed, and dirty when writable. */
unsigned thp_leaf_state(const struct vma *vma);
/*
 * thp_vma_collapsible: may MADV_COLLAPSE make huge pages in vma (Linux's
 * TVA_FORCED_COLLAPSE: whatever the thp= policy; private anonymous, not
 * MADV_NOHUGEPAGE nor PR_SET_THP_DISABLE, faulted once (its anon
 * identity), and a 2 MiB-aligned huge page fits below its end)?
 */
bool thp_vma_collapsible(const struct mm *mm, const struct vma *vma);
/* thp_vma_khugepaged: may khugepaged collapse in vma: collapsible, and the thp= policy allows it? */
bool thp_vma_khugepaged(const struct mm *mm, const struct vma *vma);
/*
 * thp_collapse: MADV_COLLAPSE of [start, end) in vma (mm/collapse.c).
 * 0, -EINVAL, -EAGAIN or -ENOMEM as Linux's madvise_collapse. mmap_lock
 * held for writing (and the range's VMA locks); the old entries and
 * frames go into tlb.
 */
int thp_collapse(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end, struct tlb_batch *tlb);
/*
 * The limits of a collapse (Linux's collapse_control and the khugepaged
 * sysfs knobs): khugepaged's scan refuses a slot with more empty (or zero
 * page) entries, swap entries or pages mapped elsewhere too than these,
 * or with no referenced page (fewer than half of them when a page is in
 * swap); MADV_COLLAPSE has no such limits.
 */
struct collapse_limits {
	bool khugepaged;
	unsigned max_ptes_none, max_ptes_swap, max_ptes_shared;
};
/* A slot's verdict (Linux's scan_result: the ones this kernel can meet). */
enum collapse_scan {
	COLLAPSE_SCAN_OK,               /* may be collapsed (collapse_slot: was collapsed) */
	COLLAPSE_SCAN_PMD_MAPPED,       /* a 2 MiB leaf maps it already */
	COLLAPSE_SCAN_PMD_NULL,         /* no page table there */
	COLLAPSE_SCAN_NON_PRESENT,      /* a guard marker */
	COLLAPSE_SCAN_EXCEED_NONE,
	COLLAPSE_SCAN_EXCEED_SWAP,
	COLLAPSE_SCAN_EXCEED_SHARED,
	COLLAPSE_SCAN_LACK_REFERENCED,
	COLLAPSE_SCAN_SWAPPED,          /* may be, once its swapped pages are read back */
	COLLAPSE_SCAN_ALLOC_FAILED,     /* no order-9 block (thp_collapse_alloc_failed) */
};
/*
 * collapse_scan_slot: hpage_collapse_scan_pmd: may the 2 MiB slot at h be
 * collapsed under cc? Changes nothing. pt_lock held.
 */
enum collapse_scan collapse_scan_slot(struct mm *mm, uintptr_t h, const struct collapse_limits *cc);
/*
 * collapse_slot: scan the slot at h of vma (collapsible, h inside it), read
 * its swapped pages back when that is all it lacks, and collapse it:
 * COLLAPSE_SCAN_OK when a new huge page maps it now, else the verdict
 * that stopped it. mmap_lock held for writing with vma's lock; the old
 * entries and frames go into tlb.
 */
enum collapse_scan collapse_slot(struct mm *mm, struct vma *vma, uintptr_t h, const struct collapse_limits *cc,
				 struct tlb_batch *tlb);
/*
 * thp_copy_leaf: mremap's move_huge_pmd, its copy half: when one 2 MiB
 * leaf maps from (2 MiB-aligned), map the same frames at to (2 MiB-aligned,
 * nothing mapped there) with one leaf of the same bits and return true,
 * *err 0 or -ENOMEM (nothing mapped at to). False when there is no leaf
 * at from, or a page table at to already (then copy 4 KiB entries).
 * The old leaf stays (the caller clears it); no page reference, mapping
 * count or RSS changes. pt_lock held.
 */
bool thp_copy_leaf(struct mm *mm, uintptr_t from, uintptr_t to, int *err);
/* thp_zero_dup: fork: child holds the huge zero page when parent does (its PTEs may map it). */
void thp_zero_dup(struct mm *child, const struct mm *parent);
/* thp_zero_put: teardown, after the last flush: mm's huge zero page reference goes (the last frees it). */
void thp_zero_put(struct mm *mm);
/*
 * anon_page_move: re-tag an exclusively owned anonymous page, mapped at
 * va of vma, with vma's identity and offset (Linux page_move_anon_rmap).
 * The caller holds pt_lock and has frozen the page's one reference
 * (page_ref_freeze), so no reverse-map walk can hold it meanwhile
 * (wp_fault; thp_wp_fault for each frame of a huge page).
 */
void anon_page_move(struct page *page, const struct vma *vma, uintptr_t va);
/*
 * user_page_get/put: refcount +1 / -1; the last put frees the frame (and
 * its identity reference). Inline (with user_page_put_tlb): fork and exit
 * of a huge page call them for each of its 512 frames.
 */
static inline void user_page_get(struct page *page)
{
	BUG_ON(page->flags & PG_reserved);
	__atomic_add_fetch(&page->refcount, 1, __ATOMIC_RELAXED);
}
void user_page_put(struct page *page);
/* user_page_drop_ref: one reference fewer; the references left (0: the last is gone, release_page's turn). */
static inline int32_t user_page_drop_ref(struct page *page)
{
	int32_t left;

	BUG_ON(page->flags & PG_reserved);
	left = __atomic_sub_fetch(&page->refcount, 1, __ATOMIC_ACQ_REL);
	BUG_ON(left < 0);
	return left;
}
/*
 * swap_cache_release: p has just lost a reference and only the cache's may
 * be left: if no entry maps it, it leaves the cache and its frame is freed
 * (through tlb when given, after its flush). Called by user_page_put*.
 */
void swap_cache_release(struct page *p, struct tlb_batch *tlb);
/* user_page_put_tlb: user_page_put for a page unmapped in tlb: the frame waits in tlb for the flush. */
static inline void user_page_put_tlb(struct page *page, struct tlb_batch *tlb)
{
	int32_t left = user_page_drop_ref(page);

	if (!left)
		list_add_tail(&page->lru, &tlb->free_pages);    /* released in user_pages_release */
	else if (left == 1 && smp_load_acquire(&page->swap))
		swap_cache_release(page, tlb);
}
/*
 * user_pages_release: what user_page_put does at the last reference, for
 * the frames on pages (linked through lru: a batch's free_pages, after its
 * flush): off their LRU lists, untagged, their identities' references
 * dropped, with one lru_lock hold and one atomic per identity and run.
 */
void user_pages_release(struct list_head *pages);
static inline void page_mapcount_add(struct page *p, int d)
{
	__atomic_add_fetch(&p->mapcount, d, __ATOMIC_RELAXED);
}
static inline int32_t page_refs(const struct page *p)
{
	return READ_ONCE(p->refcount);
}
/*
 * page_total_refs / page_total_mapcount: p's references and the user
 * entries mapping it, with the deferred shares of its 2 MiB block
 * (pmm_huge_shares: fork's copies of a huge page's leaf, mm/thp.c),
 * which the fields (page_refs, p->mapcount) leave out.
 *
 * A frame found through a 4 KiB entry needs no totals to tell whether
 * that entry is its only user (one mapping, one reference, plus the
 * caller's own): a block with deferred shares is mapped by two leaves or
 * more, one of them counted in every frame's fields, so a frame a 4 KiB
 * entry maps as well reads at least 2 in each field. The 4 KiB paths
 * (wp_fault, MADV_FREE, MADV_COLD/PAGEOUT, mprotect, collapse's scan)
 * read the fields so. Whatever can meet a frame through a leaf reads the
 * totals (smaps, reclaim's isolated pages, swap-out, the swap cache), or
 * the block's shares once (a write to a leaf, mprotect of a whole leaf).
 */
static inline int32_t page_total_refs(const struct page *p)
{
	return READ_ONCE(p->refcount) + pmm_page_huge_shares(p);
}
static inline int32_t page_total_mapcount(const struct page *p)
{
	return READ_ONCE(p->mapcount) + pmm_page_huge_shares(p);
}
/*
 * page_ref_freeze: when p holds exactly count references, take them all
 * at once (the count becomes 0) and return true; else false, p untouched
 * (Linux's page_ref_freeze). While frozen, nobody can take a reference
 * the lockless way (lru_isolate's get-unless-zero backs off), so the
 * freezer knows it is p's only holder until page_ref_unfreeze(p, count)
 * gives them back. Only for a page the caller holds references to. The
 * field's count: a frame a leaf maps may hold deferred shares besides
 * (page_total_refs), which its caller checks first.
 */
static inline bool page_ref_freeze(struct page *p, int32_t count)
{
	int32_t want = count;

	return __atomic_compare_exchange_n(&p->refcount, &want, 0, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}
static inline void page_ref_unfreeze(struct page *p, int32_t count)
{
	smp_store_release(&p->refcount, count);
}
/*
 * page_set_lazyfree / page_clear_lazyfree: PG_lazyfree on or off, counted
 * (the nr_lazyfree gauge; pglazyfree for each page newly marked, as
 * Linux's folio_mark_lazyfree), the page moved to the inactive file list
 * or back to the active anonymous one (lru_lazyfree, lru_lazyfree_cancel).
 * Under the rules for a mapped page's flags.
 */
static inline void page_set_lazyfree(struct page *p)
{
	if (p->flags & PG_lazyfree)
		return;
	p->flags |= PG_lazyfree;
	mod_vm_stat(VM_NR_LAZYFREE, 1);
	count_vm_event(VM_PGLAZYFREE);
	lru_lazyfree(p);
}
static inline void page_clear_lazyfree(struct page *p)
{
	if (!(p->flags & PG_lazyfree))
		return;
	p->flags &= ~PG_lazyfree;
	mod_vm_stat(VM_NR_LAZYFREE, -1);
	lru_lazyfree_cancel(p);
}

/* ---- reclaim of lazily freed pages (mm/madvise.c; driven by mm/vmscan.c) */

/* One scan: what it may drop and what it did. */
struct reclaim_scan {
	struct mm *mm;
	struct tlb_batch *tlb;        /* dropped entries and frames wait here for the flush */
	bool pageout;                 /* MADV_PAGEOUT: references ignored, pages mapped
	                               *   elsewhere too left alone (else: reclaim proper) */
	unsigned long want;           /* stop dropping once freed reaches it */
	unsigned long freed;          /* pages dropped (or swapped out) */
	unsigned long scanned;        /* lazily freed pages looked at (and swap candidates) */
	bool may_swap;                /* mm/vmscan.c: also write cold anonymous pages to swap */
	bool may_wait;                /* mm/vmscan.c: direct reclaim waits for a taken mmap_lock */
	unsigned long swapped;        /* of freed: anonymous pages swapped out */
	unsigned long shmem;          /* of freed: page-cache pages dropped or swapped (mm/shmem_swap.c) */
	bool count_steal;             /* reclaim proper: each page freed counts in pgsteal_kswapd or */
	bool direct;                  /*   (direct) pgsteal_direct at once, as pglazyfreed does */
};
/* rs freed n more pages (reclaim_freed in mm/vmscan.c: adds them to freed, and to pgsteal_* when counted). */
void reclaim_freed(struct reclaim_scan *rs, unsigned long n);
/*
 * shmem_reclaim (mm/shmem_swap.c): reclaim from the page caches (tmpfs,
 * memfd, shared anonymous memory), object after object round the list's
 * clock, each one turn from where its last scan stopped: a page nothing maps or
 * holds leaves, dropped when clean (never written: it reads back as
 * zeros), written to swap when dirty and rs->may_swap. Mapped pages stay
 * (no reverse map yet). Until rs->freed reaches rs->want; adds to freed,
 * shmem and scanned. No lock held; sleeps (swap I/O).
 */
void shmem_reclaim(struct reclaim_scan *rs);
/*
 * shmem_reclaim_pages: reclaim the n page-cache pages of pages (the
 * inactive LRU's, mm/vmscan_lru.c; the caller's reference on each, given
 * up here): each one still in its object's cache, unmapped and held by
 * nobody else is dropped when clean or, when rs->may_swap, written to
 * swap (consecutive pages of one object in one batch). Adds to freed and
 * shmem. No lock held; sleeps (swap I/O).
 */
void shmem_reclaim_pages(struct page **pages, unsigned n, struct reclaim_scan *rs);
/* shmem_reclaim_object: shmem_reclaim for o alone, one turn of its clock: from where its last scan stopped round to there. */
void shmem_reclaim_object(struct vm_object *o, struct reclaim_scan *rs);
/*
 * mm_reclaim_lazyfree_range: the clock over the present pages of
 * [start, end), part of one private anonymous VMA of rs->mm: drop the
 * clean lazily freed pages mapped only here (unmapped into rs->tlb), give a
 * referenced one a second chance (reclaim proper), un-mark a written one;
 * until rs->freed reaches rs->want. Each page dropped is counted in
 * pglazyfreed as it goes (a reader may see it zero right after).
 * mmap_lock (read) and pt_lock held.
 */
void mm_reclaim_lazyfree_range(struct reclaim_scan *rs, uintptr_t start, uintptr_t end);
/*
 * lru_shrink (mm/vmscan_lru.c): reclaim from the tail of the inactive
 * file list (lazily freed pages, dropped when clean), then of the
 * inactive anonymous list (written to swap; rs->may_swap is assumed), each
 * kind deactivating from its active list when the inactive one is low,
 * until rs->freed reaches rs->want or about one pass over a kind's lists
 * is done. Counts rs->scanned, freed, swapped. No lock held.
 */
void lru_shrink(struct reclaim_scan *rs, enum reclaim_who who);
/*
 * mm_pageout_swap: MADV_PAGEOUT of [start, end) of a private anonymous VMA
 * of mm with a swap area on: every page only this entry maps is written to
 * swap, referenced or not (mm/vmscan.c). mmap_lock (read), no spinning lock.
 */
void mm_pageout_swap(struct mm *mm, uintptr_t start, uintptr_t end);

/* ---- anonymous pages in swap (mm/swap_pte.c) */

/*
 * mm_swap_clear: remove the swap entries of [start, end), dropping each
 * slot's reference when drop (an unmap, a zap, MADV_FREE), else keeping it
 * for whoever took the entries over (mremap). pt_lock held. Returns how
 * many were removed.
 */
unsigned long mm_swap_clear(struct mm *mm, uintptr_t start, uintptr_t end, bool drop);
/*
 * mm_swap_copy: put src's swap entries of [start, end) into dst at the
 * same offsets from dst_start (dst's range has no entries there); dup:
 * each slot gains a reference (fork), else the caller removes the source
 * entries without dropping theirs (mremap). src's pt_lock held. 0, or
 * -ENOMEM (the entries set so far stay: the caller tears them down).
 */
int mm_swap_copy(struct mm *dst, uintptr_t dst_start, struct mm *src, uintptr_t start, uintptr_t end,
		 bool dup);
/*
 * mm_swap_out_page: write page p, mapped at va of one of mm's private
 * anonymous VMAs by that one entry, to a new swap slot, then replace the
 * entry with the slot's swap entry (arch_mmu_swap_out). The caller holds
 * mmap_lock (read), a reference to p and no spinning lock, and cleaned
 * the entry (dirty bit cleared and flushed) before. 0 (the caller's
 * reference is now p's last), -ENOSPC (no slot), -EBUSY (written or
 * mapped again meanwhile), -ENOENT (va maps another page now), -EIO.
 */
int mm_swap_out_page(struct mm *mm, uintptr_t va, struct page *p);
/*
 * mm_swap_out_batch: mm_swap_out_page for n (at most 64) pages at once,
 * written in runs of consecutive slots, one device request a run. A page
 * marked shared (mapped by other entries too, read-only everywhere, when
 * the caller looked; the caller holds a reference to each) goes through
 * the swap cache instead, unless another address space's entry of it
 * was used since its last look (rmap_referenced): written once if not
 * cached yet, then every entry that maps it becomes a swap entry of its
 * slot (try_to_unmap_swapcache). Returns how many pages no entry maps
 * any more (freed with the caller's put; the others stay mapped, their
 * new slots freed).
 */
/*
 * mm_swap_unmap_cached_locked: p, which other entries may map too, is in
 * the swap cache: its entry at va becomes a swap entry of its slot, at no
 * I/O, if it still maps p (read-only: nothing can have written p). pt_lock
 * held. 0, -ENOENT, -EBUSY.
 */
int mm_swap_unmap_cached_locked(struct mm *mm, uintptr_t va, struct page *p);
unsigned mm_swap_out_batch(struct mm *mm, const uintptr_t *va, struct page **pages, const bool *shared,
			   unsigned n);
/*
 * mm_swap_in: a fault at va (page aligned) of a private anonymous vma
 * whose entry is the swap entry val (Linux do_swap_page): a new page
 * read from the slot is mapped there and the slot's reference dropped (a
 * major fault). mmap_lock (read) and pt_lock held; pt_lock is dropped
 * around the read. FAULT_OK (also when another fault read it first),
 * FAULT_OOM, FAULT_SIGBUS on an I/O error.
 */
enum fault_result mm_swap_in(struct mm *mm, struct vma *vma, uintptr_t va, unsigned long val,
			     unsigned flags);

/* ---- the swap cache (mm/swap_cache.c): shared anonymous pages written out once */

/*
 * swap_cache_add: p (a private anonymous page every entry maps read-only,
 * referenced by the caller) has its data in slot e: it enters the cache,
 * which takes a reference to p and e's reference. Returns the slot p is
 * cached with: e, or the one another reclaimer cached it with first (the
 * caller then frees e). Any lock up to pt_lock may be held.
 */
swp_entry_t swap_cache_add(struct page *p, swp_entry_t e);
/* swap_cache_dup: *e = p's cached slot, with one more reference taken (for a swap entry). 0, -ENOENT (not cached), swap_slot_dup's errors. */
int swap_cache_dup(struct page *p, swp_entry_t *e);
/* swap_cache_lookup: the page cached for slot e, with a reference for the caller, or NULL. */
struct page *swap_cache_lookup(swp_entry_t e);
/* swap_cache_has: is a page cached for slot e (mincore, smaps)? */
bool swap_cache_has(swp_entry_t e);

/*
 * mm_swap_willneed: MADV_WILLNEED of [start, end) of a private anonymous
 * vma: its swap entries are read back (with readahead) and mapped old and
 * clean, so the next access does not wait for the disk (Linux reads them
 * into its swap cache; there is none here, see mm/swap_pte.c). Stops
 * quietly when no page can be had or a read fails. Not a fault: counts
 * pswpin, not pgmajfault. mmap_lock (read), no spinning lock.
 */
void mm_swap_willneed(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end);

/* ---- page cache and files (mm/filemap.c, mm/truncate.c; include/vm_object.h) */

/* The object a VMA maps, or NULL (anonymous private). */
static inline struct vm_object *vma_object(const struct vma *v)
{
	return v->file ? v->file->obj : NULL;
}
/* The page offset in its object of the page at va of v. */
static inline unsigned long vma_pgoff_at(const struct vma *v, uintptr_t va)
{
	return v->pgoff + ((va - v->start) >> PAGE_SHIFT);
}

/*
 * anon_pages_init's work (mm/user_page.c), inline so that anon_page_alloc's
 * one page, every anonymous fault's, costs no loop and no call of its own.
 */
static __always_inline void anon_pages_setup(struct page *first, unsigned n, const struct vma *vma,
					     uintptr_t va)
{
	mod_vm_stat(VM_NR_ANON_PAGES, (long)n);
	for (unsigned i = 0; i < n; i++) {
		first[i].flags |= PG_anon;
		first[i].private = vma->anon;
		first[i].index = vma_pgoff_at(vma, va + ((uintptr_t)i << PAGE_SHIFT));
	}
	anon_vma_get_many(vma->anon, n);
	/* new anonymous pages start inactive (include/lru.h) */
	if (n == 1)
		lru_add(first, LRU_INACTIVE_ANON);
	else
		lru_add_run(first, n, LRU_INACTIVE_ANON);
}

static inline struct page *anon_page_alloc(const struct vma *vma, uintptr_t va, bool zero)
{
	struct page *p;

	BUG_ON(!vma->anon);
	p = pmm_alloc(0, GFP_USER | (zero ? GFP_ZERO : 0));
	if (p)
		anon_pages_setup(p, 1, vma, va);
	return p;
}
/* Remove the cache pages [first, last) (o->lock held): they leave the cache, mapped or not. */
void vm_object_remove_locked(struct vm_object *o, unsigned long first, unsigned long last);
/* Zero [off, PAGE_SIZE) of the cache page at pgoff if there is one (o->lock held). */
void vm_object_zero_tail_locked(struct vm_object *o, unsigned long pgoff, size_t off);
/*
 * A tree slot holds a struct page * or, for a page in swap, its swap entry
 * shifted left by one with bit 0 set (pages are aligned: bit 0 is never
 * set in a page pointer).
 */
static inline bool vmo_slot_is_swap(const void *slot)
{
	return ((uintptr_t)slot & 1) != 0;
}
static inline void *vmo_swap_slot(unsigned long swap_val)
{
	return (void *)((swap_val << 1) | 1);
}
static inline unsigned long vmo_slot_swap_val(const void *slot)
{
	return (uintptr_t)slot >> 1;
}
/*
 * vm_object_gang_locked: up to n occupied slots of o from pgoff first on,
 * in order: their offsets in pgoffs, their contents (a page or a swap
 * slot) in slots. Returns how many. o->lock held.
 */
unsigned vm_object_gang_locked(struct vm_object *o, unsigned long first, unsigned n,
			       unsigned long *pgoffs, void **slots);
/*
 * vm_object_to_swap_locked: reclaim's commit (mm/shmem_swap.c): page p,
 * still at pgoff, mapped nowhere, held by the cache and the caller's held
 * references alone and not written since the caller cleared PG_dirty,
 * leaves the cache; the slot holds swap_val (the slot reference passes to
 * the tree). false, nothing changed, when any of that is not so. o->lock.
 */
bool vm_object_to_swap_locked(struct vm_object *o, unsigned long pgoff, struct page *p, unsigned held,
			      unsigned long swap_val);
/*
 * vm_object_from_swap_locked: swap-in's commit: if pgoff still holds
 * swap_val, p (read from it, one reference for the cache) takes its
 * place, dirty, and the tree's slot reference is dropped. false
 * otherwise (p untouched). o->lock.
 */
bool vm_object_from_swap_locked(struct vm_object *o, unsigned long pgoff, unsigned long swap_val,
				struct page *p);
/*
 * vm_object_next_to_scan: reclaim's clock over every object: the one at
 * the head of the list, moved to the tail, with a reference for the
 * caller (vm_object_put), skipping objects already being freed. NULL
 * when there are none. No spinning lock held.
 */
struct vm_object *vm_object_next_to_scan(void);
/* vm_object_count: the objects on that list now. */
unsigned long vm_object_count(void);
/*
 * vm_object_of_page_get: the object whose cache page p is, with a
 * reference for the caller (vm_object_put); NULL when p is no cache page
 * (any more) or its object is being freed. The caller holds a reference
 * to p. No spinning lock held.
 */
struct vm_object *vm_object_of_page_get(struct page *p);
/*
 * mm_list_next: the address space after prev (NULL: the first) in the
 * list of all of them, with a reference (mm_get) taken, prev's dropped
 * (mm_put); NULL after the last. Address spaces being torn down are
 * skipped. No lock held by the caller.
 */
struct mm *mm_list_next(struct mm *prev);
/*
 * mm_list_from: the first address space in that list whose list_id is
 * id or more (ids grow along the list), with a reference (mm_get); NULL
 * when none. A cursor that outlives its address space (khugepaged's).
 * No lock held by the caller.
 */
struct mm *mm_list_from(uint64_t id);

/* ---- stack growth (mm/stack.c) */

/*
 * expand_stack_locked: grow the growsdown VMA above addr down to addr's
 * page (Linux expand_downwards + acct_stack_growth), counting stack_grows.
 * 0 (grown, or addr is inside it already), or -EFAULT (no growsdown VMA
 * above addr), -EPERM (below MMAP_MIN_ADDR), -ENOMEM (within
 * STACK_GUARD_GAP of an accessible VMA below that is no stack, past
 * STACK_RLIMIT_DEFAULT in size, or no memory for the index), checked in
 * that order. mmap_lock write.
 */
int expand_stack_locked(struct mm *mm, uintptr_t addr);

/* ---- page-table work on VMA ranges (mm/zap.c, mm/mprotect.c, mm/fault.c) */

/*
 * mm_unmap_page: the page accounting of one PTE of mm that stops mapping p
 * (the caller clears the PTE, recording it in tlb): mapcount and reference
 * -1 (after the last put the frame waits in tlb, freed after the flush; a
 * page-cache page's reference itself waits in tlb: mm/mm_tlb.c), rss -1, and
 * rss_file -1 when file (p is not a private anonymous page). tlb NULL: the
 * entry is already flushed everywhere (arch_mmu_replace). pt_lock.
 */
void mm_unmap_page(struct mm *mm, struct page *p, bool file, struct tlb_batch *tlb);
/*
 * mm_unmap_pte_page: mm_unmap_page for the page p a present PTE in state
 * maps, of either kind; a file's page keeps the PTE's dirty bit
 * (zap_present_ptes, try_to_unmap: folio_mark_dirty). Same locks.
 */
void mm_unmap_pte_page(struct mm *mm, struct page *p, unsigned state, struct tlb_batch *tlb);

/*
 * An unmap's context: its TLB batch, and the window its page-table pages
 * may be freed in (Linux's free_pgtables): a page-table page goes when no
 * VMA is left over any of its block and the block lies between the VMAs
 * that stay on either side of the unmapped range (floor: the end of the
 * one below, ceiling: the start of the one above, 0 when none), so a
 * table a neighbour shares stays, even empty. mm_unmap_window fills the
 * window for an unmap of [start, end), read before it (mmap_lock write).
 */
struct unmap_window {
	struct tlb_batch *tlb;
	uintptr_t floor, ceiling;
};
void mm_unmap_window(struct mm *mm, uintptr_t start, uintptr_t end, struct unmap_window *u);
/*
 * mm_zap_piece: vma_unmap_cb that removes the PTEs of piece's range and
 * releases the pages (private pages freed with their last mapping, cache
 * pages stay in their object), drops its guard markers and swap entries,
 * and frees the page tables the window lets go, under pt_lock. Use as
 * vma_unmap_range(mm, s, e, mm_zap_piece, &u) with a struct unmap_window
 * from mm_unmap_window and a batch the caller finishes (mm_tlb_finish)
 * after the unmap. Caller holds mmap_lock for writing.
 */
void mm_zap_piece(struct mm *mm, const struct vma *piece, void *window);
/*
 * mm_unmap_range: vma_unmap_range with mm_zap_piece and one TLB batch
 * flushed at the end (one shootdown for the whole range, however many VMAs
 * it covers); mm_unmap_range_tlb leaves the batch to the caller. mmap_lock
 * write. Returns vma_unmap_range's result.
 */
int mm_unmap_range(struct mm *mm, uintptr_t start, uintptr_t end);
int mm_unmap_range_tlb(struct mm *mm, uintptr_t start, uintptr_t end, struct tlb_batch *tlb);
/*
 * mm_munmap_locked: munmap(start, len) with mm's mmap_lock already held for
 * writing (Linux do_vmi_munmap / do_munmap), its TLB changes recorded in
 * tlb (the caller flushes it), or flushed before returning when tlb is
 * NULL: 0; -EINVAL unaligned start, len 0, range past TASK_SIZE; -ENOMEM
 * map_count or memory.
 */
int mm_munmap_locked(struct mm *mm, uintptr_t start, size_t len, struct tlb_batch *tlb);
/*
 * mm_zap_range: remove the PTEs of [start, end) (inside vma, page aligned)
 * and release their pages into tlb, leaving the VMA and any guard markers
 * (MADV_DONTNEED). mmap_lock held (either mode) and pt_lock. Returns the
 * PTEs removed.
 */
unsigned long mm_zap_range(struct mm *mm, const struct vma *vma, uintptr_t start, uintptr_t end,
			   struct tlb_batch *tlb);

/*
 * MMU_* permissions for a PTE in a VMA with flags (x86: W implies R; no
 * access bits: PROT_NONE; PROT_EXEC alone is execute-only where the
 * hardware can keep it unreadable, arch_mmu_exec_only). Inline: every
 * fault asks. The MMU_ and VM_ access bits are the same bits.
 */
static inline unsigned mm_vm_to_mmu(unsigned long vm_flags)
{
	unsigned prot = (unsigned)(vm_flags & VM_ACCESS_FLAGS);

	_Static_assert(MMU_READ == VM_READ && MMU_WRITE == VM_WRITE && MMU_EXEC == VM_EXEC,
		       "MMU_ and VM_ access bits differ");
	if (prot && (prot != MMU_EXEC || !arch_mmu_exec_only()))
		prot |= MMU_READ;
	return prot;
}


/*
 * mm_populate_strict: MADV_POPULATE_READ/WRITE of [start, end) (page
 * aligned): as mm_populate, but a hole ends it with -ENOMEM and a VMA
 * without the access (a read needs VM_READ, a write VM_WRITE) with
 * -EINVAL. Takes the mmap_lock for reading (caller holds none).
 */
int mm_populate_strict(struct mm *mm, uintptr_t start, uintptr_t end, bool write);

/* ---- guard regions (mm/guard.c) */

/*
 * mm_guard_install: MADV_GUARD_INSTALL on [start, end) of vma (page
 * aligned, inside vma): zap what is mapped there, then put a guard marker
 * on every page; a private VMA gets an anon identity first. mmap_lock
 * held (read is enough); takes pt_lock. 0; -EINVAL a VM_SPECIAL or
 * VM_LOCKED VMA; -ENOMEM (markers set so far stay, as on Linux).
 */
int mm_guard_install(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end, struct tlb_batch *tlb);
/*
 * mm_guard_remove: MADV_GUARD_REMOVE: remove the guard markers of
 * [start, end) of vma, leaving mapped pages alone. mmap_lock held; takes
 * pt_lock. 0; -EINVAL a VM_SPECIAL VMA (VM_LOCKED is allowed).
 */
int mm_guard_remove(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end);
/*
 * mm_guard_clear: remove every guard marker of [start, end) of mm (munmap,
 * the source of an mremap move); nothing to walk unless
 * mm->may_have_guards. The caller excludes faults (mmap_lock for writing,
 * or pt_lock). Returns the markers removed.
 */
unsigned long mm_guard_clear(struct mm *mm, uintptr_t start, uintptr_t end);
/*
 * mm_guard_copy: put a guard marker in dst at dst_start + (va - start) for
 * every marker at va in [start, end) of src (fork: dst is the child, same
 * addresses; mremap: dst == src, a range that does not overlap); dst
 * inherits src's may_have_guards. The caller excludes changes to both. 0,
 * or -ENOMEM with the markers copied so far left in dst (the caller
 * clears them).
 */
int mm_guard_copy(struct mm *dst, uintptr_t dst_start, struct mm *src, uintptr_t start, uintptr_t end);

#endif
