/*
 * The interface between tools/vmabench and tools/bench/vmabench_maple.c, the thin
 * adapter over Linux's maple tree (built from Debian's linux-source package
 * at bench time, host only, never part of the kernel). Plain C types only:
 * this header is included on both sides, by code compiled against our
 * headers and by code compiled against Linux's user-space shims.
 *
 * Ranges are [start, end) as in struct vma; the adapter stores them in the
 * maple tree as [start, end - 1], the way Linux's mm_mt stores VMAs.
 * Entries are opaque pointers (vmabench passes its struct vma). One tree
 * at a time; single-threaded.
 */
#ifndef VMABENCH_MAPLE_H
#define VMABENCH_MAPLE_H

/* Set up the node cache and register the thread with liburcu. Call once. */
void vbm_global_init(void);
/* A fresh, empty tree (the one the other calls work on). */
void vbm_create(void);
/* Free the tree's nodes; the tree must be empty. */
void vbm_destroy(void);
/* Store entry over [start, end), which is free: 0, or -ENOMEM. */
int vbm_insert(unsigned long start, unsigned long end, void *entry);
/* The first entry whose range ends above addr, or NULL (Linux's find_vma). */
void *vbm_find(unsigned long addr);
/*
 * Remove the entry stored over [start, end). When the last vbm_find
 * returned it (and nothing changed since), the maple state that find left
 * positioned on it is reused, as Linux's vma_iter does after vma_find.
 */
void vbm_erase(unsigned long start, unsigned long end);
/*
 * Highest free range of len bytes inside [low, high), page granular
 * (mas_empty_area_rev, as Linux's unmapped_area_topdown): 0 and *out, or -1.
 */
int vbm_gap_top(unsigned long len, unsigned long low, unsigned long high, unsigned long *out);
/* The first entry (lowest address), or NULL. */
void *vbm_first(void);
/* Nodes the tree holds now (256 bytes each). */
unsigned long vbm_nodes(void);
/* Bytes of one maple node. */
unsigned long vbm_node_size(void);
/* Linux version the adapter was built from, e.g. "6.12.117". */
const char *vbm_version(void);

#endif
