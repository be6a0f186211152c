/*
 * Swap areas (mm/swapfile.c): where anonymous pages go when memory runs
 * short. An area is a block device (include/blockdev.h) cut into slots of
 * one page (PAGE_SIZE bytes, 8 sectors); slot 0 is never handed out (on
 * Linux it holds the swap header; here it is reserved for one, and a
 * swp_entry_t of 0 never names an allocated slot).
 *
 * A slot is named by a swp_entry_t: the area's type (its index, at most
 * MAX_SWAPFILES areas) and the slot's offset in it, packed into one word of
 * SWP_TYPE_BITS + SWP_OFFSET_BITS bits, so that a not-present page-table
 * entry can hold it later (Linux's swp_entry_t). Each slot has a reference
 * count, its swap_map entry: every page-table entry (and swap-cache page,
 * later) naming the slot holds one, so a slot shared after fork is freed
 * when its last reference goes.
 *
 * Lock: swap_lock (class swap, spinning) protects the areas and their
 * maps; it is taken inside pt_lock (slots are freed where page tables are
 * zapped) and never held across I/O. swap_read_page / swap_write_page
 * sleep (block I/O): no spinning lock held.
 */
#ifndef SWAP_H
#define SWAP_H

#include "types.h"

struct page;
struct blockdev;

#define MAX_SWAPFILES    4
#define SWP_TYPE_BITS    5
#define SWP_OFFSET_BITS  50
#define SWAP_MAP_MAX     0x7fff          /* most references one slot can hold */
#define SWAP_SECTORS_PER_SLOT (PAGE_SIZE / 512)
#define SWAP_RUN         64              /* pages one request moves at most (mm/swap_pte.c's staging buffer) */

typedef struct {
	unsigned long val;
} swp_entry_t;

static inline swp_entry_t swp_entry(unsigned type, unsigned long offset)
{
	swp_entry_t e = { ((unsigned long)type << SWP_OFFSET_BITS) | (offset & ((1UL << SWP_OFFSET_BITS) - 1)) };

	return e;
}

static inline unsigned swp_type(swp_entry_t e)
{
	return (unsigned)(e.val >> SWP_OFFSET_BITS);
}

static inline unsigned long swp_offset(swp_entry_t e)
{
	return e.val & ((1UL << SWP_OFFSET_BITS) - 1);
}

/*
 * swap_on: make dev a swap area: its slots are 1 .. capacity/8 - 1 (a
 * partial page at the end is left out; at most 2^21 slots, 8 GiB, the
 * most one map of 2-byte counts in a 4 MiB block covers: the rest of a
 * bigger device is not used). Returns the area's type (>= 0), or
 * -EINVAL (no device, fewer than 2 slots), -EBUSY (dev is a swap area
 * already), -ENOSPC (MAX_SWAPFILES areas on), -ENOMEM (no room for the map,
 * which takes 2 bytes a slot). The device's content is not read: there is
 * no header to check (a fresh sparse file is a valid area).
 */
int swap_on(struct blockdev *dev);
/* swap_off: retire area type. 0, -EINVAL (no such area), -EBUSY (some slot still referenced). */
int swap_off(unsigned type);
/* swap_type_of: the type of the area on dev, or -ENODEV when dev is no swap area (Linux's swap_type_of). */
int swap_type_of(struct blockdev *dev);
/* swap_boot_enable: at boot, swap_on the block device named name and log "swap: NAME, N KiB, M slots". */
int swap_boot_enable(const char *name);

/*
 * swap_slot_alloc: a free slot, of the first area that has one, with one
 * reference, in *entry. 0, or -ENOSPC (every area full, or none on).
 * swap_slot_alloc_type: the same from area type only (-EINVAL: no such area).
 */
int swap_slot_alloc(swp_entry_t *entry);
int swap_slot_alloc_type(unsigned type, swp_entry_t *entry);
/*
 * swap_slots_alloc: up to n (at most SWAP_RUN) free slots of one area, each
 * with one reference, into entries[]; consecutive where a run of n is free
 * near the area's allocation point, so that a batch written together is
 * read back together (swap-in reads ahead only through consecutive slots,
 * and two reclaimers taking slots one by one would interleave their
 * batches: Linux gives each CPU its own cluster for the same reason).
 * Returns how many (0: every area full, or none on).
 * swap_slots_alloc_type: the same from area type only (0: no such area, or full).
 */
unsigned swap_slots_alloc(swp_entry_t *entries, unsigned n);
unsigned swap_slots_alloc_type(unsigned type, swp_entry_t *entries, unsigned n);
/*
 * swap_slot_dup: one more reference to an allocated slot (a PTE copied by
 * fork). 0, -EINVAL (no such area, offset out of range, slot free or 0),
 * -ENOMEM (the slot has SWAP_MAP_MAX references already; Linux's
 * swap_duplicate says the same when it cannot extend the count).
 */
int swap_slot_dup(swp_entry_t entry);
/*
 * swap_slot_free: drop one reference; the slot is free again when the last
 * goes (its data is not erased). The references left (>= 0), or -EINVAL as
 * for swap_slot_dup.
 */
int swap_slot_free(swp_entry_t entry);
/* swap_slot_count: the slot's references (0: free), or -EINVAL (no such area or slot). */
int swap_slot_count(swp_entry_t entry);

/*
 * swap_write_page / swap_read_page: the page's PAGE_SIZE bytes to / from
 * the slot, which must be allocated. 0, -EINVAL (slot not allocated), or
 * the device's -EIO. Sleep; no spinning lock held. A write may return
 * before the data is on the disk (blockdev_write_behind: the device keeps
 * a copy, and a later read of the slot is ordered after it).
 */
int swap_write_page(swp_entry_t entry, struct page *page);
int swap_read_page(swp_entry_t entry, struct page *page);

/*
 * swap_rw_run: n consecutive slots of one area from first (the first and
 * last must be allocated) written from / read into buf (n pages,
 * contiguous in the kernel's address space) in one device request (a
 * write: a write-behind, as swap_write_page's). 0, -EINVAL, -EIO. Sleeps.
 */
int swap_rw_run(swp_entry_t first, void *buf, unsigned n, bool write);

/*
 * swap_rw_batch (mm/swap_pte.c): pages[i] written to / read from slot
 * e[i] for i < n (n <= 64), each run of consecutive slots in one device
 * request; ok[i] says whether page i's request succeeded. Sleeps.
 */
void swap_rw_batch(const swp_entry_t *e, struct page **pages, unsigned n, bool write, bool *ok);

/* swap_io_init (mm/swap_pte.c): the staging buffer of swap I/O, made once (swap_on calls it). */
void swap_io_init(void);

/*
 * swap_ra_note (mm/swap_pte.c): reclaim looked at p (used: some entry
 * had accessed it); a page a swap-in fault read ahead counts as a hit
 * when used, and is an ordinary page from then on either way.
 */
void swap_ra_note(struct page *p, bool used);

/*
 * swap_cache_shrink (mm/swap_cache.c): let go of every page of the swap
 * cache that no entry maps any more (a put that raced with reclaim's left
 * one there), freeing its frame and its slot reference. The frames freed.
 * No lock held. swap_off calls it first.
 */
unsigned long swap_cache_shrink(void);
/* swap_cache_pages: pages in the swap cache now (/proc/meminfo's SwapCached). */
unsigned long swap_cache_pages(void);

/* Slots of every area on (slot 0 not counted), and those free now. */
unsigned long swap_total_pages(void);
unsigned long swap_free_pages(void);
/* The same for one area (0 when type is not on). */
unsigned long swap_area_pages(unsigned type);
unsigned long swap_area_free(unsigned type);

#endif
