/*
 * The user page-table interface between mm/ and the architecture. mm/ never
 * sees a PTE bit: it asks for pages to be mapped with arch-independent
 * permissions and walks present entries through one visitor primitive that
 * can keep, change or clear each entry (unmap, mprotect, fork's
 * write-protect, mincore and lookups are all walks).
 *
 * Implemented by arch/x86_64 (real 4-level tables; the kernel half is shared
 * by every address space) and arch/hosted (the same radix format walked in
 * software over simulated RAM, so mm/ fault and fork logic runs in host tests).
 *
 * Locking: callers serialize changes to one address space's tables (mm/
 * holds the mm's page-table lock around every change). The functions take
 * no lock themselves.
 *
 * TLBs: an address space knows the CPUs it is loaded on (active, or lazily
 * kept by a kernel thread or idle CPU that ran it last). Changes that take
 * rights away are flushed on all of them: the changed pages are collected
 * in a struct tlb_batch during one operation (a munmap over several VMAs,
 * an mprotect, a madvise) and flushed once at its end, page by page up to
 * TLB_BATCH_PAGES pages, else as a whole-TLB flush; other CPUs get one IPI
 * each and the caller waits until all have flushed (arch_tlb_flush). What
 * must not be reused while a stale entry may still point at it waits in the
 * batch and is freed after the flush: page-table pages the walk emptied
 * (freed by arch_tlb_flush) and user frames whose last mapping went (freed
 * by mm/, mm_tlb_finish). docs/guide.md describes the protocol.
 *
 * This header is the porting contract, what mm/ needs to run; the
 * statistics and debugging views of the same tables (TLB counters, the
 * CPUs an address space is loaded on, table and 2 MiB leaf counts, text
 * dumps) are in include/arch_mmu_debug.h. arch_tlb_flush_reaches_all, at
 * the end, is here for the smp lab, whose skeleton answers false.
 */
#ifndef ARCH_MMU_H
#define ARCH_MMU_H

#include "types.h"
#include "list.h"

/* Permissions of a user mapping. On x86 every present user page is readable:
 * MMU_WRITE implies readable and MMU_EXEC without NX support is readable too. */
#define MMU_READ     0x01
#define MMU_WRITE    0x02
#define MMU_EXEC     0x04
#define MMU_PROT_MASK (MMU_READ | MMU_WRITE | MMU_EXEC)
/*
 * No permission bit at all (PROT_NONE) is a valid prot for map and UPDATE:
 * the entry keeps its frame but the hardware treats it as not present
 * (Linux's PROT_NONE PTEs); walks and queries still report it, with no
 * MMU_READ/WRITE/EXEC in its state.
 */
/*
 * Whether MMU_EXEC without MMU_READ/MMU_WRITE gives an execute-only page
 * (x86: with protection keys, as Linux's PROT_EXEC-only mappings; without
 * them every present user page is readable). mm/ asks so that faults on
 * such pages follow the hardware's rule.
 */
bool arch_mmu_exec_only(void);

/* Hardware state, reported by walks (and clearable through them). */
#define MMU_ACCESSED 0x10
#define MMU_DIRTY    0x20

struct arch_mmu;                  /* one address space's page tables; opaque */
struct page;

/* A new address space: empty user half, shared kernel half. NULL on -ENOMEM. */
struct arch_mmu *arch_mmu_create(void);

/*
 * Free the page-table pages of m. Every user mapping must already have been
 * cleared (mm/ unmaps and releases the frames first); a leftover mapping is
 * a kernel bug and panics. CPUs that keep m lazily switch away first; m
 * must not be active on any CPU.
 */
void arch_mmu_destroy(struct arch_mmu *m);

/* Make m the address space of the running CPU (NULL: kernel tables only; not lazy). */
void arch_mmu_activate(struct arch_mmu *m);

/*
 * Map the 4 KiB page at user address va, which has no entry, to frame pa
 * with prot (MMU_* bits). Allocates page-table pages as needed: 0, or
 * -ENOMEM with nothing changed. (A present entry is changed with
 * arch_mmu_replace or a walk, which flush it.)
 */
int arch_mmu_map(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned prot);

/*
 * Replace the present entry at va with frame pa and prot (Linux's
 * ptep_clear_flush + set_pte: a COW break): the old entry is cleared and
 * flushed on every CPU where m is loaded before the new one is written, so
 * no CPU uses the old frame through va once this returns. Never fails (the
 * page table stays).
 */
void arch_mmu_replace(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned prot);

/*
 * Look up va: 0 with *pa and *state (MMU_* permission and state bits) if
 * an entry with a frame is there (PROT_NONE ones included); -EFAULT when
 * the entry is a guard marker (see below; *pa and *state untouched);
 * -EAGAIN when it is a swap entry (below), with its value in *pa;
 * -ENOENT when there is none.
 */
int arch_mmu_query(struct arch_mmu *m, uintptr_t va, phys_addr_t *pa, unsigned *state);

/*
 * Where the next entries of [va, end) can be: va itself when a page table
 * or a 2 MiB leaf covers va's 2 MiB block, else the start of the next
 * block that has one (end when none does). Nothing below an empty
 * PML4/PDPT/PD entry is looked at, so a loop that steps through a huge,
 * mostly empty range goes at the speed of what is mapped. Callers hold
 * m's table lock (pt_lock) for the answer to stay true.
 */
uintptr_t arch_mmu_next_used(struct arch_mmu *m, uintptr_t va, uintptr_t end);

/*
 * The fault path's pair, which walks the tables once (as Linux's fault
 * keeps vmf->pte from the lookup to the install): arch_mmu_query_near is
 * arch_mmu_query and remembers, in m, the page table of va's 2 MiB block;
 * arch_mmu_map_near is arch_mmu_map, and fills the remembered table
 * without a walk when va lies in its block (else it walks, and remembers
 * the table it filled). m forgets the table whenever a page-table page
 * leaves its tree, so it is never a stale one. Callers hold the lock that
 * serializes m's table changes (mm's pt_lock) from the query to the map.
 */
int arch_mmu_query_near(struct arch_mmu *m, uintptr_t va, phys_addr_t *pa, unsigned *state);
int arch_mmu_map_near(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned prot);

/*
 * The shared-mode pair (mm_pt_share, mm/internal.h): a fault that fills
 * an empty entry of a table that exists, while other CPUs may fill other
 * entries (or the same one) of the same tables, and nobody changes
 * anything else. arch_mmu_find_empty: true with *s when a 4 KiB page
 * table holds va and va's entry is empty (no mapping, swap entry or guard
 * marker); false otherwise (no table, a 2 MiB leaf, an entry). It reads
 * the tables only and does not use or change what the _near pair
 * remembers. arch_mmu_fill_empty: map pa there with prot, if the entry is
 * still empty (a compare-and-exchange): true; false when another CPU
 * filled it first (nothing changed). arch_mmu_link_tables: the tables
 * missing above va's 4 KiB entry, each zeroed and linked with a
 * compare-and-exchange (a table another CPU linked first stands, ours is
 * freed), counted in its parent as the exclusive mode counts them: 0;
 * -ENOMEM; -EEXIST when a 2 MiB leaf holds va's block (or va is not a
 * user address). Never used where a huge page may go (mm/ decides).
 */
struct mmu_empty_slot {
	uint64_t *pte;
	struct page *table;           /* the page table's page (its entry count) */
};
bool arch_mmu_find_empty(struct arch_mmu *m, uintptr_t va, struct mmu_empty_slot *s);
bool arch_mmu_fill_empty(const struct mmu_empty_slot *s, phys_addr_t pa, unsigned prot);
int arch_mmu_link_tables(struct arch_mmu *m, uintptr_t va);

/*
 * Guard markers (Linux's PTE_MARKER_GUARD, MADV_GUARD_INSTALL): an entry
 * without a frame that the hardware treats as not present, so that every
 * access faults; mm/ then refuses the fault. Walks (arch_mmu_walk) never
 * show them and never clear them: they survive zaps, mprotect and
 * MADV_FREE until removed with arch_mmu_walk_guards. Their page-table
 * pages count as in use (arch_mmu_destroy panics on a leftover marker, as
 * on a leftover mapping).
 *
 * arch_mmu_set_guard: put a marker at va, whose entry must be empty or a
 * marker already (a mapped page there is a kernel bug and panics).
 * Allocates page-table pages as needed: 0, or -ENOMEM with nothing changed.
 */
int arch_mmu_set_guard(struct arch_mmu *m, uintptr_t va);

/* Called for each guard marker in address order: MMU_KEEP or MMU_CLEAR (MMU_UPDATE is a bug). */
typedef enum mmu_action (*mmu_guard_fn)(void *ctx, uintptr_t va);

/*
 * Walk the guard markers of [start, end) (page aligned, user half) in
 * address order, removing those the visitor clears (page-table pages left
 * empty stay). Returns the number of markers visited. Never
 * allocates, never fails; no TLB work (a not-present entry is never cached).
 */
unsigned long arch_mmu_walk_guards(struct arch_mmu *m, uintptr_t start, uintptr_t end,
				   mmu_guard_fn visit, void *ctx);

/*
 * Swap entries (Linux's swap PTEs): an entry without a frame that holds
 * the value of a swap slot (mm/: a swp_entry_t, include/swap.h; at most
 * 52 bits), which the hardware treats as not present. Walks of mappings
 * never show them; arch_mmu_walk_swap visits them (keep or clear) and
 * frees page-table pages left empty. They count as in use like mappings
 * (arch_mmu_destroy panics on a leftover one).
 *
 * arch_mmu_set_swap: put the entry val at va, whose entry must be empty or
 * a swap entry (anything else is a kernel bug and panics). Allocates
 * page-table pages as needed: 0, or -ENOMEM with nothing changed.
 *
 * arch_mmu_swap_out: replace the present entry at va, which must map
 * frame pa, with the swap entry val, flushing it on every CPU first; when
 * the entry was dirty (written since its dirty bit was last cleared) it is
 * put back as it was and -EBUSY returned (the page's copy in the slot is
 * stale). 0 with the old entry's state in *state (may be NULL), -EBUSY,
 * or -ENOENT when va does not map pa (anymore). Never allocates.
 */
int arch_mmu_set_swap(struct arch_mmu *m, uintptr_t va, unsigned long val);
int arch_mmu_swap_out(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned long val,
		      unsigned *state);
/* Called for each swap entry in address order with its value: MMU_KEEP or MMU_CLEAR. */
typedef enum mmu_action (*mmu_swap_fn)(void *ctx, uintptr_t va, unsigned long val);
/* Walk the swap entries of [start, end) as arch_mmu_walk_guards walks markers. */
unsigned long arch_mmu_walk_swap(struct arch_mmu *m, uintptr_t start, uintptr_t end,
				 mmu_swap_fn visit, void *ctx);

/* What a visitor wants done with the entry it was shown. */
enum mmu_action {
	MMU_KEEP,                 /* leave the entry as it is */
	MMU_UPDATE,               /* rewrite it with *state (permission bits; ACCESSED/DIRTY as given) */
	MMU_CLEAR,                /* remove it */
	MMU_SPLIT,                /* a 2 MiB leaf only (arch_mmu_walk_huge): make it 512 4 KiB entries */
};

/* Called for each present entry in address order with its frame and current state. */
typedef enum mmu_action (*mmu_visit_fn)(void *ctx, uintptr_t va, phys_addr_t pa, unsigned *state);

/* ------------------------------------------------------------ TLB batches */

/* Up to this many changed pages are flushed one by one; more flush the whole TLB (Linux: 33). */
#define TLB_BATCH_PAGES 32
/* Page references a batch can hold for after its flush (mm/mm_tlb.c; more flush early). */
#define TLB_BATCH_PUTS 64

struct tlb_batch {
	struct arch_mmu *m;
	unsigned n;                       /* pages recorded in va[] */
	bool full;                        /* more than TLB_BATCH_PAGES: flush m's whole TLB */
	bool local_only;                  /* only rights were added: no other CPU needs flushing */
	uintptr_t va[TLB_BATCH_PAGES];
	unsigned long changed;            /* entries changed (statistics) */
	struct list_head free_tables;     /* page-table pages emptied by walks (struct page lru) */
	struct list_head free_pages;      /* user frames to free after the flush (mm/, lru) */
	unsigned nputs;                   /* references in puts[] */
	struct page *puts[TLB_BATCH_PUTS]; /* page-cache pages whose PTE reference is dropped
	                                   *   after the flush (mm/, mm_tlb_put_page) */
};

/* tlb_batch_init: an empty batch for m. local_only: for changes that only add rights. */
void tlb_batch_init(struct tlb_batch *b, struct arch_mmu *m, bool local_only);

/* tlb_batch_add: the entry of va changed. */
static inline void tlb_batch_add(struct tlb_batch *b, uintptr_t va)
{
	b->changed++;
	if (b->full)
		return;
	if (b->n < TLB_BATCH_PAGES)
		b->va[b->n++] = va;
	else
		b->full = true;
}

/*
 * arch_tlb_flush: invalidate the batch's pages (or m's whole TLB) on this
 * CPU and on every other CPU where m is loaded, waiting until they have
 * (a lazy CPU switches to the kernel tables instead); then free the
 * page-table pages the batch holds. Leaves free_pages to the caller. The
 * caller may hold the page-table lock (a spinning lock that leaves
 * interrupts on) but no lock that disables interrupts. Empties the batch.
 */
void arch_tlb_flush(struct tlb_batch *b);

/*
 * Walk the present 4 KiB entries of [start, end) (page aligned, user half)
 * in address order (splitting 2 MiB leaves there first), applying each
 * visitor's verdict. Changed and cleared
 * entries are recorded in tlb (page-table pages left empty stay: see
 * arch_mmu_free_tables); the caller flushes the batch before it drops the
 * page-table lock's protection of what the entries mapped. With tlb NULL
 * the walk flushes before returning. A visitor is shown the entry's final
 * dirty bit: an entry another CPU could still dirty is out of the table
 * while it looks (that CPU's write faults and waits for pt_lock), and a
 * kept entry goes back as it was. Returns the number of present entries
 * visited. Never allocates, never fails.
 */
unsigned long arch_mmu_walk(struct arch_mmu *m, uintptr_t start, uintptr_t end,
			    mmu_visit_fn visit, void *ctx, struct tlb_batch *tlb);

/*
 * arch_mmu_free_tables: Linux's free_pgtables. Free the page-table pages
 * over [start, end) that are empty and whose whole block (2 MiB for a page
 * table, 1 GiB for a page directory, 512 GiB for a PDPT) lies in
 * [floor, ceiling) (floor <= start, end <= ceiling; ceiling 0: the end of
 * the user half, Linux's USER_PGTABLES_CEILING), at level top or below
 * (1: page tables only; 3: every level below the root). They go into tlb
 * (not local_only), with an address under each to invalidate, and are
 * freed at its flush. Other walks never free tables: a table shared with
 * a VMA that stays is kept, even empty, as on Linux.
 *
 * arch_mmu_unmap_walk: arch_mmu_walk_huge over [start, end) that also
 * frees, on the way, the tables it leaves (or finds) empty that
 * arch_mmu_free_tables(floor, ceiling, top 3) would: an unmap's zap and
 * free_pgtables in one pass, floor and ceiling at the VMAs that stay.
 */
void arch_mmu_free_tables(struct arch_mmu *m, uintptr_t start, uintptr_t end, uintptr_t floor,
			  uintptr_t ceiling, int top, struct tlb_batch *tlb);
unsigned long arch_mmu_unmap_walk(struct arch_mmu *m, uintptr_t start, uintptr_t end,
				  mmu_visit_fn huge, mmu_visit_fn visit, void *ctx,
				  uintptr_t floor, uintptr_t ceiling, struct tlb_batch *tlb);
/*
 * arch_mmu_unmap_has_work: would arch_mmu_unmap_walk(start, end, floor,
 * ceiling) find anything: an entry in [start, end) (a mapping, a 2 MiB
 * leaf over part of it, a swap entry, a guard marker), or a table whose
 * whole block lies in the window (which it might free)? False means the
 * walk would change nothing. It reads the tables without pt_lock: the
 * caller holds the mmap_lock for writing and the write lock of the VMAs
 * over [start, end), so no table is freed and nothing is mapped in the
 * range meanwhile; a table or an entry that appears meanwhile is a
 * fault's in a VMA outside [floor, ceiling), which the walk would keep.
 */
bool arch_mmu_unmap_has_work(struct arch_mmu *m, uintptr_t start, uintptr_t end, uintptr_t floor,
			     uintptr_t ceiling);

/*
 * 2 MiB leaves (transparent huge pages): one entry one level above the
 * page tables (x86: a PS entry in a page directory) maps HUGE_SIZE bytes
 * of physically contiguous, HUGE_SIZE-aligned frames with one prot and one
 * ACCESSED/DIRTY state. What a 4 KiB entry can do a 2 MiB leaf cannot is
 * done after a split: the leaf becomes a page table of 512 entries mapping
 * the same frames with the same permission and state bits, without moving
 * data. Splitting never allocates: arch_mmu_map_huge sets a page-table page
 * aside for it (Linux's deposited page table), counted in
 * arch_mmu_table_pages while it waits.
 *
 * Where splits happen by themselves (so that every 4 KiB user of the
 * interface stays right): arch_mmu_walk splits each 2 MiB leaf in its
 * range before visiting; arch_mmu_map, set_guard, set_swap, swap_out and
 * replace split the leaf covering their address. Guard and swap walks skip
 * 2 MiB leaves (they hold neither). arch_mmu_query reports the 4 KiB frame
 * of va inside a leaf, with MMU_HUGE in *state, and never splits.
 */
#define HUGE_SHIFT   21
#define HUGE_SIZE    (1UL << HUGE_SHIFT)
#define HUGE_ORDER   (HUGE_SHIFT - PAGE_SHIFT)
#define MMU_HUGE     0x40             /* state: the entry is a 2 MiB leaf */

/*
 * arch_mmu_map_huge: map [va, va + HUGE_SIZE) (both va and pa
 * HUGE_SIZE-aligned) with one 2 MiB leaf to the frames from pa, with prot.
 * 0; -EEXIST when anything is there already (a leaf, or a page table,
 * even an empty one), nothing changed; -ENOMEM, nothing changed.
 */
int arch_mmu_map_huge(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned prot);

/*
 * arch_mmu_split_huge: split the 2 MiB leaf covering va, if there is one,
 * into 512 4 KiB entries with its permission and state bits (flushed on
 * every CPU where m is loaded first). True when there was one. Never fails.
 */
bool arch_mmu_split_huge(struct arch_mmu *m, uintptr_t va);
/*
 * thp_leaf_split (mm/thp.c provides it): every split of a leaf mapping
 * the block at pa calls it once, under the address space's page-table
 * lock, before the 512 entries can be used: the frames then count that
 * mapping one by one (a deferred share becomes per-frame counts).
 */
void thp_leaf_split(phys_addr_t pa);

/*
 * arch_mmu_collapse_huge: the page-table half of a collapse (Linux's
 * collapse_huge_page): the page table under va's 2 MiB slot (va 2 MiB
 * aligned; the table must be there, holding only present entries or
 * none: no guard marker, no swap entry) is replaced by one 2 MiB leaf to
 * pa (2 MiB aligned) with prot, and becomes that leaf's set-aside table;
 * its entries' frames are the caller's to release (it has accounted for
 * them), and tlb gets their addresses, to flush before those frames are
 * freed. Never allocates, never fails.
 */
void arch_mmu_collapse_huge(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned prot,
			    struct tlb_batch *tlb);

/* arch_mmu_huge_free: nothing (no leaf, no page table) lies in the 2 MiB slot of va. */
bool arch_mmu_huge_free(struct arch_mmu *m, uintptr_t va);

/*
 * arch_mmu_walk_huge: arch_mmu_walk, except that each 2 MiB leaf lying
 * wholly inside [start, end) is shown to huge once, with the va and pa of
 * its start and MMU_HUGE in *state: MMU_KEEP, MMU_UPDATE (the whole leaf,
 * MMU_HUGE kept), MMU_CLEAR (the whole leaf; its set-aside table is freed
 * with the batch) or MMU_SPLIT (then its 512 entries are shown to visit).
 * Leaves only partly inside are split first. Counts a leaf as one entry.
 */
unsigned long arch_mmu_walk_huge(struct arch_mmu *m, uintptr_t start, uintptr_t end,
				 mmu_visit_fn huge, mmu_visit_fn visit, void *ctx,
				 struct tlb_batch *tlb);

/*
 * The 2 MiB blocks of frames that at least one leaf maps, in every address
 * space (each block once however many leaves map it: /proc/meminfo's
 * AnonHugePages, Linux's NR_ANON_THPS; pmm_huge_maps holds each block's
 * count of leaves). mm/thp.c's thp_anon_blocks reads it.
 */
size_t arch_mmu_huge_blocks_all(void);

/*
 * arch_mmu_enter_lazy: the running CPU goes on with no user address space
 * of its own (a kernel thread or idle) but keeps the last one loaded (lazy
 * TLB: no CR3 switch, no flush if the same one comes back); the first
 * shootdown for it makes the CPU switch to the kernel tables instead.
 */
void arch_mmu_enter_lazy(void);
/*
 * arch_tlb_flush_reaches_all: true when arch_tlb_flush reaches every CPU
 * where the address space is loaded (the TLB shootdown). False in the smp
 * lab's skeleton, whose flushes stay on their own CPU: the scheduler then
 * runs every user task on CPU 0 (kernel/sched/sched.c, cpu_may_run), with
 * the kernel threads that change user address spaces, so that user
 * programs stay correct there.
 */
bool arch_tlb_flush_reaches_all(void);

#endif
