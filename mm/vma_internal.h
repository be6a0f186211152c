/*
 * Private to mm/ (and the unit tests): the VMA layer, Linux's mm/vma.c.
 * Everything that creates, splits, merges, moves or removes VMAs, with the
 * allocate-first-then-commit contract below. kernel/ and arch/ go through
 * the vm_* system-call cores and the lookups of include/mm.h instead.
 */
#ifndef MM_VMA_INTERNAL_H
#define MM_VMA_INTERNAL_H

#include "mm.h"

/* ------------------------------------------------------------------------
 * VMA operations on an address space (mm/vma.c, mm/anon_vma.c).
 *
 * Common contract: the caller holds mm->mmap_lock, for writing unless said
 * otherwise. Ranges are [start, end), page aligned, start < end <= TASK_SIZE
 * (else -EINVAL). Allocate first, then commit: a function that fails (with
 * -ENOMEM or anything else) has changed nothing in the address space. The
 * result VMA of a successful operation is returned in *out (out may be NULL
 * where noted).
 */

/*
 * vma_file_link / vma_file_unlink (mm/filemap.c): v (its file, bounds
 * and mm set; v->file may be NULL: nothing to do) starts / stops pointing
 * at v->file: the VMA layer's references (the file's own count and its
 * object's nr_vmas) and v's place on the object's list of mapping VMAs
 * (i_mmap, the file reverse map: include/rmap.h). Called wherever a VMA
 * gets or drops its file (new, copied, freed), under its mm's mmap_lock
 * for writing; takes the object's i_mmap_lock.
 */
void vma_file_link(struct vma *v);
void vma_file_unlink(struct vma *v);

/* mmap_lock_init (mm/mmap_lock.c): make l unlocked. */
void mmap_lock_init(struct rwsem *l);

/*
 * mm_vma_init: an empty address space using the index backend `backend`
 * (NULL: vma_default_backend),
 * max_map_count DEFAULT_MAX_MAP_COUNT, merge = vma_merge_enabled, default
 * free-area bases. Creates the VMA and anon-identity slab
 * caches on first use. 0 or -ENOMEM.
 */
int mm_vma_init(struct mm *mm, const struct vma_index_ops *backend);
/* mm_vma_remove_all: remove and free every VMA (as below); the index stays, empty. mmap_lock held for writing. */
void mm_vma_remove_all(struct mm *mm);
/* mm_vma_destroy: remove and free every VMA (dropping anon identity and file references), then the index's own memory. */
void mm_vma_destroy(struct mm *mm);

/* Lookups (mmap_lock read). vma_find: first VMA with end > addr (Linux find_vma). */
struct vma *vma_find(struct mm *mm, uintptr_t addr);
/* vma_find_prev: as vma_find; *prev = the last VMA with end <= addr, or NULL. */
struct vma *vma_find_prev(struct mm *mm, uintptr_t addr, struct vma **prev);
/* vma_find_intersection: the lowest VMA intersecting [start, end), or NULL. */
struct vma *vma_find_intersection(struct mm *mm, uintptr_t start, uintptr_t end);
struct vma *vma_prev(struct mm *mm, struct vma *v);

/*
 * vma_map_count_check: do_mmap's limit, -ENOMEM when map_count >
 * max_map_count (strictly greater: one mapping past the limit is allowed,
 * as Linux allows it for a possible merge), else 0. vma_map_new_range
 * checks it too; a MAP_FIXED caller must check it before unmapping the
 * old range, as Linux does.
 */
int vma_map_count_check(const struct mm *mm);

/*
 * vma_map_new_range: map [start, end), which must be free (MAP_FIXED's
 * unmap is the caller's job, done first), with flags, file
 * (NULL: anonymous private; shared anonymous memory: one file per
 * mapping) and page offset pgoff. Merges with the VMA ending at start
 * and/or the one starting at end when Linux would (vma_merge_new_range),
 * else inserts a new VMA with no anon identity. *out (may be NULL) = the
 * VMA now covering the range; an expanded neighbour keeps its own flags,
 * which may differ from flags in VM_SOFTDIRTY only (setting VM_SOFTDIRTY on
 * the result, as Linux's __mmap_complete does, is the caller's choice).
 * Returns 0; -EINVAL bad range; -EEXIST range not free; -ENOMEM map_count
 * limit (vma_map_count_check) or no memory.
 */
int vma_map_new_range(struct mm *mm, uintptr_t start, uintptr_t end, unsigned long flags,
		      struct vm_file *file, unsigned long pgoff, struct vma **out);

/*
 * vma_modify_flags: give [start, end) of vma (within vma) the flags
 * new_flags, as mprotect/madvise do (Linux vma_modify_flags + the flag
 * reset of mprotect_fixup). prev is the VMA before vma (NULL if none), or
 * vma itself when start > vma->start (what Linux's callers pass); a wrong
 * prev can only miss a left merge. Merges [start, end) into prev (left
 * edge) and/or next (right edge) when Linux would, else splits vma into up
 * to three; the pieces share the anon identity and file, pgoffs follow
 * the addresses. *out = the VMA now covering [start, end), whose flags are
 * new_flags. new_flags == vma->flags: nothing changes, *out = vma.
 * Returns 0; -EINVAL; -ENOMEM when a needed split would exceed the
 * map_count limit (split_vma: map_count >= max before each split) or on
 * allocation failure.
 */
int vma_modify_flags(struct mm *mm, struct vma *vma, struct vma *prev, uintptr_t start,
		     uintptr_t end, unsigned long new_flags, struct vma **out);

/*
 * vma_copy_range: Linux copy_vma for mremap: a VMA for the free range
 * [addr, addr + len) with src's flags, file and anon identity, at page
 * offset pgoff, except that a private anonymous src never faulted (no
 * anon identity) takes addr >> PAGE_SHIFT, the offset of a new mapping
 * there, so that it merges like one. Merges with the neighbours as
 * vma_map_new_range does, requiring src's anon identity to be compatible;
 * the VMA that ends up covering the range gets src's identity when it had
 * none (Linux dup_anon_vma from the copied-from VMA). src may be absorbed
 * by that merge (only when never faulted): callers look VMAs up again by
 * address afterwards. Moves no pages. The map_count limit is the caller's
 * (mremap checks it up front). 0 and *out (may be NULL); -EINVAL; -EEXIST
 * range not free; -ENOMEM.
 */
int vma_copy_range(struct mm *mm, const struct vma *src, uintptr_t addr, uintptr_t len,
		   unsigned long pgoff, struct vma **out);

/*
 * vma_expand_end: grow vma by delta bytes at its end (Linux
 * vma_merge_extend, mremap's growth in place); [vma->end, vma->end +
 * delta) must be free. When the grown VMA then touches a next VMA that
 * Linux would merge (same flags and file, continuing pgoff, compatible
 * anon identity), vma absorbs it. *out = vma. 0; -EINVAL bad delta;
 * -EEXIST range not free; -ENOMEM (VM_SPECIAL VMAs never grow this way,
 * or no memory).
 */
int vma_expand_end(struct mm *mm, struct vma *vma, uintptr_t delta, struct vma **out);

/*
 * vma_expand_start: grow vma down to new_start (page aligned, below
 * vma->start), a stack's growth (Linux expand_downwards, whose policy
 * checks, rlimit and guard gap, are the caller's); [new_start, vma->start)
 * must be free. Never merges, as Linux's stack growth does not. 0;
 * -EINVAL bad new_start; -EEXIST range not free; -ENOMEM the pgoff would
 * go below 0, or no index memory (nothing changed).
 */
int vma_expand_start(struct mm *mm, struct vma *vma, uintptr_t new_start);

/*
 * vma_split: split vma at addr (vma->start < addr < vma->end, page
 * aligned), Linux split_vma. The new VMA takes [vma->start, addr) when
 * new_below, else [addr, vma->end); *new_out (may be NULL) = the new VMA.
 * 0; -EINVAL; -ENOMEM when map_count >= max_map_count or no memory.
 */
int vma_split(struct mm *mm, struct vma *vma, uintptr_t addr, bool new_below, struct vma **new_out);

/*
 * vma_unmap_cb: called by vma_unmap_range for every piece of address space
 * removed, in address order, each once it has left the index: `piece`
 * describes exactly the removed range (its start, end, flags, pgoff, anon,
 * file) and is valid only during the call. It may zap pages and page
 * tables; it must not use the VMA index.
 */
typedef void (*vma_unmap_cb)(struct mm *mm, const struct vma *piece, void *arg);

/*
 * vma_unmap_range: unmap [start, end), which may span several VMAs and
 * holes: VMAs inside are removed, the ones crossing start or end are
 * trimmed; never merges (Linux do_vmi_align_munmap). cb (may be NULL) gets
 * each removed piece. Returns 0 (also when nothing was mapped); -EINVAL bad
 * range; -ENOMEM when the range is strictly inside one VMA and map_count >=
 * max_map_count (vms_gather_munmap_vmas), or no memory.
 */
int vma_unmap_range(struct mm *mm, uintptr_t start, uintptr_t end, vma_unmap_cb cb, void *arg);

/*
 * vma_map_replace: MAP_FIXED over whatever is in [start, end): unmap it
 * (vma_unmap_range with cb and arg), then map it as vma_map_new_range
 * does, allocating everything first, so that a failure (-ENOMEM) leaves
 * the old mappings as they were (Linux 6.12+ gets the same by restoring
 * the gathered VMAs: vms_abort_munmap_vmas). The map-count limit is the
 * caller's to check first, as do_mmap does. Returns 0, -EINVAL, -ENOMEM.
 */
int vma_map_replace(struct mm *mm, uintptr_t start, uintptr_t end, unsigned long flags,
		    struct vm_file *file, unsigned long pgoff, vma_unmap_cb cb, void *arg, struct vma **out);

/*
 * vma_anon_prepare: give vma an anon identity if it has none (Linux
 * anon_vma_prepare): the next VMA's, else the previous VMA's, when that
 * neighbour is adjacent with the same file, flags differing only in
 * VM_READ/WRITE/EXEC/SOFTDIRTY and continuous pgoff
 * (find_mergeable_anon_vma); else a new one. 0 or -ENOMEM. Not affected by
 * mm->merge. mmap_lock write, or read plus pt_lock (a fault: pt_lock
 * serializes the faults of one mm that link identities, as Linux's
 * page_table_lock does in __anon_vma_prepare).
 */
int vma_anon_prepare(struct mm *mm, struct vma *vma);
/* References to an anon identity that are not VMAs (pages, with rmap); put frees it with the last reference. */
void anon_vma_get(struct anon_vma *av);
/* anon_vma_get_many: n references at once (the frames of a huge page; inline: every new page takes one). */
static inline void anon_vma_get_many(struct anon_vma *av, unsigned n)
{
	__atomic_add_fetch(&av->refcount, n, __ATOMIC_RELAXED);
}
void anon_vma_put(struct anon_vma *av);
/* anon_vma_put_many: n references at once. */
void anon_vma_put_many(struct anon_vma *av, unsigned n);

/*
 * vma_find_free_area: the highest (topdown) or lowest address a, a multiple
 * of align (power of two >= PAGE_SIZE), with [a, a + len) free, inside
 * [max(low, MMAP_MIN_ADDR), high) and outside the STACK_GUARD_GAP below any
 * VM_GROWSDOWN VMA (Linux unmapped_area_topdown / unmapped_area with the
 * backend's gap search). mmap_lock read. 0 and *out; -EINVAL (len 0 or not
 * page aligned, bad align); -ENOMEM none.
 */
int vma_find_free_area(struct mm *mm, uintptr_t len, uintptr_t align, uintptr_t low,
		       uintptr_t high, bool topdown, uintptr_t *out);

/*
 * vma_get_unmapped_area: where mmap without MAP_FIXED puts len bytes (Linux
 * x86-64 arch_get_unmapped_area_topdown + __get_unmapped_area): a non-zero
 * hint, rounded down to a page and raised to MMAP_MIN_ADDR, is taken when
 * [hint, hint + len) fits below TASK_SIZE and is free (alignment does not
 * apply to it); else the highest free aligned range below mm->mmap_base,
 * else (fallback) the lowest one from mm->mmap_legacy_base up to TASK_SIZE.
 * mmap_lock read. 0 and *out; -EINVAL len 0 or unaligned; -ENOMEM no room.
 * align > PAGE_SIZE is an exact aligned search. Linux's THP placement of
 * large anonymous mappings (__get_unmapped_area -> __thp_get_unmapped_area:
 * search len + PMD_SIZE with no alignment, then round the result up, or add
 * PMD_SIZE when top-down found it aligned) is different: an mmap layer that
 * wants Linux's addresses byte for byte emulates it with align PAGE_SIZE.
 */
int vma_get_unmapped_area(struct mm *mm, uintptr_t hint, uintptr_t len, uintptr_t align,
			  uintptr_t *out);

/*
 * vma_check_merged: no two neighbours that Linux's merge rules would have
 * merged (0 when mm->merge is off). Not an invariant of every history
 * (merge off and later on, brk/mremap/fork cases in Linux), so tests call
 * it where they know it holds. 0 or -EINVAL after printing the pair.
 */
int vma_check_merged(struct mm *mm);
/* vma_mergeable_pair: a directly followed by b would be merged under the rules of mm. */
bool vma_mergeable_pair(const struct mm *mm, const struct vma *a, const struct vma *b);
/* vma_dump: print every VMA of mm (debugging). */
void vma_dump(struct mm *mm);

#endif
