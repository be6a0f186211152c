/*
 * Physical memory: one struct page per frame, and a buddy allocator over
 * blocks of 2^order frames (order 0 .. PMM_MAX_ORDER).
 *
 * Locking: pmm_lock (a spinlock, taken with interrupts off) protects the free
 * lists, the counters and the PG_buddy/order fields of free blocks. The
 * refcount/mapcount of an allocated page belong to its owner.
 */
#ifndef PMM_H
#define PMM_H

#include "list.h"
#include "lockless.h"                 /* READ_ONCE: pmm_free_frames, pmm_watermark */

#define PMM_MAX_ORDER 10              /* largest block: 2^10 frames = 4 MiB */

/* struct page flags */
#define PG_reserved 0x01              /* never given out: firmware, kernel image, holes */
#define PG_buddy    0x02              /* head of a free block; order is valid */
#define PG_slab     0x04              /* owned by the slab allocator; private = its cache */
#define PG_pgtable  0x08              /* a page-table page */
#define PG_anon     0x10              /* anonymous user memory */
#define PG_dirty    0x20              /* written since it was last clean: since MADV_FREE (private), ever (shared) */
#define PG_lazyfree 0x40              /* MADV_FREE'd: reclaim may drop it while clean */
#define PG_cache    0x80              /* in a page cache (include/vm_object.h); private = its object */
#define PG_referenced 0x100           /* reclaim found it referenced on the inactive list once (mm/vmscan_lru.c);
                                       *   set and cleared atomically, by the page's isolator only */
#define PG_pcp      0x400             /* free, on a CPU's list of free frames (mm/pmm.c, pmm_free_user) */
#define PG_readahead 0x200            /* read from swap ahead of a fault, not yet seen used (mm/swap_pte.c);
                                       *   set before it is mapped, cleared atomically by whoever sees it */
#define PG_zeroed   0x800             /* with PG_pcp: zeroed already (pmm_zero_ahead) */

/*
 * Read without a lock: refcount and mapcount (changed with atomics,
 * mm/user_page.c), swap (mm/swap_cache.c), lru_state (include/lru.h), the
 * PG_* flags a shared page's holders set atomically (PG_dirty,
 * PG_referenced, PG_cache).
 */
struct page {
	struct list_head lru;         /* free-list link (PG_buddy) or the owner's list */
	uint32_t flags;               /* PG_* */
	int32_t refcount;             /* references; 0 when free */
	int32_t mapcount;             /* user page-table entries mapping it */
	uint8_t order;                /* block order while PG_buddy, or while allocated as a head */
	uint8_t lru_state;            /* include/lru.h: on no LRU list (0), queued for one, or on one */
	uint8_t lru_cpu, lru_slot;    /* while queued: the CPU whose batch holds it, and where */
	void *private;                /* owner's data (slab cache, anon identity, page-cache object) */
	unsigned long index;          /* PG_anon: page offset in its identity (Linux's folio->index:
	                               *   at va of a VMA v of that identity, v->pgoff + (va - v->start) /
	                               *   PAGE_SIZE), the reverse map's key (mm/rmap.c) */
	unsigned long swap;           /* in the swap cache: the slot holding its data (a swp_entry_t; 0: not) */
	struct list_head lru_link;    /* on an LRU list (include/lru.h; lru is the owner's) */
};

struct mem_range {
	phys_addr_t start, end;       /* [start, end) */
};

/* GFP flags */
#define GFP_ZERO 0x1                  /* fill the block with zeroes */
#define GFP_USER 0x2                  /* a user page: fail rather than take the free frames
                                       *   below the min watermark, which is kept for the
                                       *   kernel (page tables, slab, the exit path) */

/*
 * Watermarks (Linux's zone watermarks, one zone here): min is Linux's
 * min_free_kbytes, sqrt(16 x KiB of RAM) clamped to [128 KiB, 256 MiB];
 * low and high lie above it by max(min/4, 0.1% of RAM) and twice that
 * (watermark_scale_factor 10). Below low the background reclaim thread is
 * woken and works until high; below min a user page is refused (GFP_USER)
 * and the faulting task reclaims itself (include/vmscan.h). In frames;
 * recomputed whenever frames are released to the allocator.
 */
enum pmm_wmark { WMARK_MIN, WMARK_LOW, WMARK_HIGH, NR_WMARK };
extern size_t pmm_wmarks[NR_WMARK];     /* mm/pmm.c's; read through pmm_watermark */

static inline size_t pmm_watermark(enum pmm_wmark w)
{
	return READ_ONCE(pmm_wmarks[w]);
}
/* /proc/sys/vm/min_free_kbytes: the KiB the min watermark was made from (KiB / 4 frames). */
unsigned long pmm_min_free_kbytes(void);
/*
 * Set min_free_kbytes as a write to /proc/sys/vm does (Linux's
 * min_free_kbytes_sysctl_handler): 0 .. INT_MAX KiB, the three watermarks
 * recomputed from it at once (and kept through later releases of
 * frames); -EINVAL outside. As on Linux, a value near the RAM's size
 * leaves user programs no memory: the OOM killer's business.
 */
long pmm_set_min_free_kbytes(long kib);

/*
 * pmm_init: set up the allocator for frames [0, max_pfn). pages is storage for
 * max_pfn struct pages (reachable by the kernel). Every frame starts reserved;
 * the free ranges (page-aligned inward) are released into the buddy lists.
 * Call once, before any other pmm function.
 */
void pmm_init(struct page *pages, pfn_t max_pfn, const struct mem_range *free, size_t nfree);

/*
 * pmm_claim_reserved: the reserved frame at pa becomes an allocated one
 * (refcount 1, as from pmm_alloc(0, 0), its contents kept) and counts
 * among the allocator's frames from then on: a boot module's page handed
 * to a new owner in place (fs/tmpfs/cpio.c gives an initramfs file its
 * archive pages). NULL when pa is not a reserved frame. The watermarks
 * are set again by the pmm_release_reserved_rest that follows.
 */
struct page *pmm_claim_reserved(phys_addr_t pa);
/*
 * pmm_release_reserved_rest: hand the frames wholly inside [start, end)
 * that are still reserved to the allocator (pmm_init does this for the
 * free ranges; a boot module's memory is released so once copied, the
 * frames pmm_claim_reserved gave away left out).
 */
void pmm_release_reserved_rest(phys_addr_t start, phys_addr_t end);

/*
 * pmm_alloc: allocate 2^order contiguous, naturally aligned frames. Returns
 * the head page (refcount 1) or NULL when no block is free. Never panics.
 */
struct page *pmm_alloc(unsigned order, unsigned gfp);

/* pmm_free: return a block from pmm_alloc with the same order. Coalesces with free buddies. */
void pmm_free(struct page *page, unsigned order);

/*
 * pmm_free_user: pmm_free(page, 0) for a user page: the frame goes onto
 * this CPU's list of free frames, where the next order-0 GFP_USER
 * allocation on this CPU takes it (mm/pmm.c, "Per-CPU lists"); it still
 * counts as free (pmm_free_frames).
 */
void pmm_free_user(struct page *page);

/*
 * pmm_zero_ahead: zero now the frame that this CPU's next order-0
 * GFP_USER allocation gets, so that the allocation, if it asks for
 * GFP_ZERO, need not: for a caller about to allocate a zeroed user page
 * under a lock others wait for (the page fault path, before pt_lock). The
 * frame stays free and zeroed until it is allocated or its list drained.
 */
void pmm_zero_ahead(void);

/*
 * pmm_drain_pcp: give every CPU's free frames back to the buddy lists, so
 * that the blocks they complete are whole again (pmm_alloc does it before
 * it fails; tests that compare the buddy lists' blocks do it first).
 */
void pmm_drain_pcp(void);

/*
 * pmm_free_list: free the order-0 frames on frames (linked through lru;
 * the list is left empty), each as pmm_free(p, 0) would (a list of one:
 * pmm_free_user), with one
 * pmm_lock hold per batch: frames with consecutive pfns go back as the
 * largest aligned blocks they make up. The free lists end as they would
 * after single frees (the buddy layout of a set of free frames is unique).
 */
void pmm_free_list(struct list_head *frames);

/* One-frame conveniences: kernel virtual address of a zeroed/unzeroed frame, or NULL. */
void *pmm_alloc_frame(unsigned gfp);
void pmm_free_frame(void *va);

/* Set by pmm_init, never changed after: one struct page per frame of [0, pmm_max_pfn). */
extern struct page *pmm_mem_map;
extern pfn_t pmm_max_pfn;

static inline phys_addr_t page_to_phys(const struct page *page)
{
	return (phys_addr_t)(page - pmm_mem_map) << PAGE_SHIFT;
}

/* NULL if pa is beyond pmm_max_pfn. */
static inline struct page *phys_to_page(phys_addr_t pa)
{
	pfn_t pfn = pa >> PAGE_SHIFT;

	return pfn < pmm_max_pfn ? &pmm_mem_map[pfn] : NULL;
}
/*
 * pmm_huge_maps: the counter of 2 MiB leaves (include/arch_mmu.h) mapping
 * the 2 MiB-aligned block of frames that holds pa, in every address space
 * (Linux's folio _entire_mapcount); NULL if pa is beyond max_pfn. The arch
 * layer changes it atomically as it makes and removes leaves; pmm_init
 * sets its storage aside (zeroed).
 */
int32_t *pmm_huge_maps(phys_addr_t pa);
/*
 * pmm_huge_shares: the deferred shares of the 2 MiB-aligned block of
 * frames that holds pa: 2 MiB leaves mapping it (fork's copies) whose
 * reference and mapping its 512 frames do not hold one by one. Each adds
 * one to every frame's refcount and mapcount as mm reads them
 * (page_total_refs, page_total_mapcount in mm/internal.h; mm/thp.c, "Deferred
 * shares", keeps it). NULL if pa is beyond max_pfn; pmm_init sets its
 * storage aside (zeroed).
 */
int32_t *pmm_huge_shares(phys_addr_t pa);
/* pmm_page_huge_shares: *pmm_huge_shares of the block holding p, read once. */
int32_t pmm_page_huge_shares(const struct page *p);
void *page_address(const struct page *page);     /* direct-map address */
struct page *virt_to_page(const void *va);

/* mm/pmm.c's counts; read through pmm_free_frames (inline: every fault checks the low watermark). */
extern size_t pmm_nr_free, pmm_pcp_frames;

/* Frames now free: a snapshot without pmm_lock, racing with other CPUs' allocations and frees. */
static inline size_t pmm_free_frames(void)
{
	return READ_ONCE(pmm_nr_free) + READ_ONCE(pmm_pcp_frames);
}
size_t pmm_total_frames(void);                   /* frames ever released to the allocator */
size_t pmm_free_blocks(unsigned order);          /* free blocks on the order list */

/*
 * pmm_check: verify allocator invariants (every free block aligned, inside
 * memory, not reserved, not overlapping another, buddies of the same order
 * never both free, list counts equal the counters). Returns 0, or -EINVAL
 * after printing the first violation.
 */
int pmm_check(void);
/*
 * pmm_census: print to the kernel log how many frames are free (in buddy
 * blocks), on the per-CPU lists, slab, page tables, anonymous, page cache,
 * reserved and allocated with none of these flags (with the first few of
 * those: flags, counts, owner), for a leak report. A snapshot: owners
 * change flags meanwhile. pmm_census_count: the same counts into
 * count[VMK_CENSUS_KINDS] (include/uapi/vmk.h's kinds), printing nothing.
 */
void pmm_census(void);
void pmm_census_count(uint64_t *count);
/* pmm_frames_with: how many allocated frames carry flag (PG_anon, PG_cache, PG_pgtable...) now; a snapshot. */
size_t pmm_frames_with(uint32_t flag);


#endif
