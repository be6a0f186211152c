/*
 * Memory objects and the files VMAs map: the interface between mm/ (faults,
 * mmap, truncation of mappings) and whatever owns the pages (the file
 * system in fs/, shared anonymous memory in mm/shared_anon.c).
 *
 * struct vm_object is a page cache (Linux's address_space together with its
 * inode's i_size): pages indexed by page offset in a radix tree of 512-slot
 * nodes that grows with the offsets used, and a size in bytes. A page at or
 * beyond ceil(size / PAGE_SIZE) is past the end: a fault there is SIGBUS.
 * A tmpfs inode embeds one (fs/tmpfs/inode.c); MAP_SHARED | MAP_ANONYMOUS gets a
 * standalone one (Linux: the shmem file "dev/zero"). The cache code is
 * mm/filemap.c; truncation and hole punching, which also unmap the pages
 * from every address space, are mm/truncate.c.
 *
 * struct vm_file is what a VMA points at (vma->file, Linux's vm_file): an
 * open file as mm sees it, naming the object and how the file was opened.
 * VMAs merge only when they map the same vm_file (Linux compares the
 * struct file pointers), so two opens of one file never merge while dup'd
 * descriptors do. It is reference counted through its ops: the kernel's
 * struct file embeds one and shares its count (Linux's f_count counts
 * descriptors and VMAs alike).
 *
 * Page accounting of a cache page (struct page of pmm.h): PG_cache,
 * private = its object; refcount = 1 (the cache's) + the PTEs mapping it
 * (mapcount) + transient holders. Removed from the cache (truncate, punch,
 * the object's end), it lives on while still mapped, as an orphan.
 *
 * Swap (Linux's shmem_writeout / shmem_swapin_folio; mm/shmem_swap.c):
 * under memory pressure a page that nothing maps or holds is written to
 * a swap slot and its tree slot then holds the swap entry instead (tagged
 * with bit 0, Linux's xa_value), until a lookup reads it back (a major
 * fault for a mapping) or the page is truncated away (the slot is freed).
 * A swapped page still counts in nrpages and against the charge, as
 * Linux's shmem keeps it in i_blocks and the size limit; nrswapped says
 * how many of nrpages are in swap.
 *
 * Locking: o->lock (a spinlock, taken with interrupts off) protects the
 * tree, size and counters. Order: mmap_lock -> pt_lock -> o->lock ->
 * pmm/slab (class VM_OBJECT of include/lock_order.h, checked by lockdep). No page is copied under it: callers take a reference
 * (vm_object_page) and copy afterwards. Reference counts are atomic.
 */
#ifndef VM_OBJECT_H
#define VM_OBJECT_H

#include "spinlock.h"
#include "list.h"

struct vm_object;
struct vm_file;
struct page;

struct vm_object_ops {
	/* The last reference went and the pages are freed: free what embeds o. Required. */
	void (*release)(struct vm_object *o);
	/*
	 * Charge (pages > 0) or uncharge (< 0) pages of the cache against a
	 * limit (tmpfs's size): 0, or -ENOSPC when over it. NULL: no limit.
	 * Called under o->lock.
	 */
	int (*charge)(struct vm_object *o, long pages);
	/* What o is, for a leak report (vm_object_report): a line into buf (n bytes). NULL: "object". */
	void (*describe)(struct vm_object *o, char *buf, size_t n);
};

struct vm_object {
	const struct vm_object_ops *ops; /* [init] */
	int refcount;                    /* [atomic] VMAs' files, open files, names, holders */
	long nr_vmas;                    /* [atomic] VMAs mapping it (through any vm_file) */
	struct spinlock i_mmap_lock;     /* class I_MMAP: the list below (Linux's i_mmap_rwsem) */
	struct list_head i_mmap;         /* [i_mmap_lock] the VMAs mapping it, in any address space,
	                                  *   by vma_rmap(v)->file_node (the file reverse map: mm/rmap.c) */
	struct spinlock lock;
	uint64_t size;                   /* [lock] bytes; pages from ceil(size) on are past the end */
	unsigned depth;                  /* [lock] tree levels (0: no tree yet) */
	void **root;                     /* [lock] top node, NULL while empty */
	unsigned long nrpages;           /* [lock] pages in the cache, in memory or in swap */
	unsigned long nrswapped;         /* [lock] of which in swap (a swap entry in the slot) */
	unsigned long reclaim_pgoff;     /* [lock] where reclaim's next scan of it starts */
	struct list_head all;            /* [objects_lock, mm/filemap.c] every object: reclaim's clock */
};

/* Flags of vm_object_page. */
#define VMO_ALLOC      0x1   /* allocate a zeroed page when there is none */
#define VMO_PAST_EOF   0x2   /* also beyond the end (a write that extends the file) */
#define VMO_NOWAIT     0x4   /* never sleep: a page in swap answers -EAGAIN (callers under pt_lock) */
#define VMO_RECLAIM    0x8   /* the caller holds no lock at all: short of memory, reclaim first */

/* vm_object_init: o empty, size bytes, one reference (the caller's). Cannot fail. */
void vm_object_init(struct vm_object *o, const struct vm_object_ops *ops, uint64_t size);
/* vm_object_get / vm_object_put: one more / one less reference; the last put frees the pages, then ops->release. */
void vm_object_get(struct vm_object *o);
void vm_object_put(struct vm_object *o);
/*
 * vm_object_evict: free every page of the cache (swap slots too) now, the
 * object staying for whoever still holds it (Linux's
 * truncate_inode_pages_final at eviction): what its owner calls when its
 * last user goes, so that the memory does not wait for a transient holder
 * (reclaim's clock, a reverse-map walk) to let go. Nothing may add pages
 * afterwards (nothing maps or opens o any more). Takes o->lock.
 */
void vm_object_evict(struct vm_object *o);
/*
 * vm_object_page: the page at pgoff with a reference for the caller
 * (vm_object_page_put when done), allocated (zeroed) when absent and VMO_ALLOC.
 * 0 and *out (NULL: absent, without VMO_ALLOC); -ENXIO pgoff past the end
 * (unless VMO_PAST_EOF); -ENOMEM no memory; -ENOSPC over the charge limit.
 * A page in swap is read back first (sleeps: no spinning lock held; -EIO
 * when the device fails), or with VMO_NOWAIT the answer is -EAGAIN: drop
 * the locks and call vm_object_swap_in. With VMO_RECLAIM (read(),
 * write()), memory short of the min watermark is reclaimed first (direct
 * reclaim, as Linux's allocator does), and a new page or a swap-in that
 * finds no frame reclaims and tries again. New pages are user pages
 * (GFP_USER): they leave the min watermark's frames to the kernel.
 */
int vm_object_page(struct vm_object *o, unsigned long pgoff, unsigned flags, struct page **out);
/*
 * vm_object_add_page: p (a page of the caller's, refcount 1, holding the
 * object's data for pgoff) becomes the cache page at pgoff, dirty (no copy
 * elsewhere: reclaim writes it to swap); the caller's reference becomes
 * the cache's. The size does not change (vm_object_set_size). 0, -EEXIST
 * (a page or swap entry is there), -ENOMEM (no tree node), -ENOSPC (over
 * the charge limit), -EFBIG (pgoff too far); on error p stays the caller's.
 */
int vm_object_add_page(struct vm_object *o, unsigned long pgoff, struct page *p);
/* vm_object_page_put: drop the reference vm_object_page gave with a page. */
void vm_object_page_put(struct page *p);
/*
 * vm_object_page_dirty: p, a cache page, was written (write(), or a dirty
 * PTE went): reclaim must keep it (Linux folio_mark_dirty). An atomic OR
 * of PG_dirty, so any user page may be marked this way from any CPU;
 * every other change of a cache page's flags is atomic too (mm/filemap.c).
 */
void vm_object_page_dirty(struct page *p);
/*
 * vm_object_drop_clean: reclaim of one clean cache page (Linux's
 * __remove_mapping of a clean shmem folio): p leaves o's cache when it is
 * still there at pgoff, never written (no PG_dirty), mapped nowhere and
 * held by the cache and the caller's held references alone (the unmapped
 * PTE's, waiting in a TLB batch). true when it went. May be called under
 * pt_lock.
 */
bool vm_object_drop_clean(struct vm_object *o, unsigned long pgoff, struct page *p, unsigned held);
/* vm_object_has_page: is pgoff in the cache, in memory (mincore; a page in swap is not)? */
bool vm_object_has_page(struct vm_object *o, unsigned long pgoff);
/* vm_object_size / vm_object_pages: the size in bytes; the pages in the cache. */
uint64_t vm_object_size(struct vm_object *o);
unsigned long vm_object_pages(struct vm_object *o);
/*
 * vm_object_set_size: grow the size to at least size (a write that
 * extended the file). Never shrinks: that is vm_object_truncate.
 */
void vm_object_set_size(struct vm_object *o, uint64_t size);
/*
 * vm_object_truncate: Linux's truncate_setsize + truncate_pagecache for a
 * shmem file: the new size; growing only sets it; shrinking unmaps every
 * page past the new end from every address space (copy-on-write copies
 * too, so such an access is SIGBUS), frees the cache's pages there, and
 * zeroes the tail of a partial last page. Called with no mmap_lock held.
 */
void vm_object_truncate(struct vm_object *o, uint64_t size);
/*
 * vm_object_punch: Linux's shmem hole punch (fallocate PUNCH_HOLE,
 * MADV_REMOVE): pages [pgoff, pgoff + n) leave every shared mapping and
 * the cache; private copies stay. The size does not change. No mmap_lock held.
 */
void vm_object_punch(struct vm_object *o, unsigned long pgoff, unsigned long n);
/*
 * vm_object_swap_in (mm/shmem_swap.c): if page pgoff of o is in swap,
 * read it back into the cache. 1 when it was read (a major fault for a
 * fault), 0 when it was not in swap (any more), -ENOMEM, -EIO. Sleeps:
 * no spinning lock held.
 */
int vm_object_swap_in(struct vm_object *o, unsigned long pgoff);
/*
 * vm_object_willneed (mm/shmem_swap.c): read o's pages in [first, last)
 * that are in swap back into its cache, and only those (MADV_WILLNEED on
 * a mapping of shared memory: Linux's shmem_swapin_range). Stops at the
 * first page that cannot be read (no memory, an I/O error). Sleeps: no
 * spinning lock held.
 */
void vm_object_willneed(struct vm_object *o, unsigned long first, unsigned long last);
/* vm_object_swapped: o's pages in [first, last) that are in swap (smaps' Swap:). */
unsigned long vm_object_swapped(struct vm_object *o, unsigned long first, unsigned long last);
/* Objects now alive (leak checks). */
size_t vm_object_inuse(void);
/*
 * vm_object_report: print to the kernel log every object that has pages
 * (in memory or in swap): its references, VMAs, pages and what it is
 * (ops->describe). A diagnostic for a leak check that failed; the numbers
 * are read without the objects' locks. How many objects had pages.
 */
unsigned long vm_object_report(void);

struct vm_file_ops {
	/* One more / one less reference to f (a VMA, or whoever holds it). Required. */
	void (*get)(struct vm_file *f);
	void (*put)(struct vm_file *f);
	/*
	 * What /proc/PID/maps shows: the path into buf (size bytes, always
	 * NUL-terminated), e.g. "/tmp/a", "/memfd:x (deleted)"; *dev and *ino
	 * the device and inode numbers.
	 */
	void (*describe)(const struct vm_file *f, char *buf, size_t size, uint64_t *dev, uint64_t *ino);
};

/* How the file was opened (Linux FMODE_READ / FMODE_WRITE): mmap's checks. */
#define VMF_READ  0x1
#define VMF_WRITE 0x2

struct vm_file {
	const struct vm_file_ops *ops;   /* [init] */
	struct vm_object *obj;           /* [init] its pages (the owner holds a reference); NULL: a
	                                  * file that cannot be mapped (mmap's checks, then -ENODEV) */
	unsigned mode;                   /* [init] VMF_READ | VMF_WRITE */
};

/*
 * shared_anon_file: the file behind a new MAP_SHARED | MAP_ANONYMOUS
 * mapping of size bytes (Linux shmem_zero_setup): a zero-filled object of
 * that size, opened read-write, shown as "/dev/zero (deleted)". One
 * reference for the caller. NULL on -ENOMEM. (mm/shared_anon.c)
 */
struct vm_file *shared_anon_file(uint64_t size);

#endif
