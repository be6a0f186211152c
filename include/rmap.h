/*
 * The reverse map (Linux mm/rmap.c): from a private anonymous page, or a
 * page-cache page, to every page-table entry that maps it, in any address
 * space.
 *
 * A page records its anon identity (page->private, struct anon_vma) and
 * its offset there (page->index: vma->pgoff + (va - vma->start) /
 * PAGE_SIZE at the VMA that created it; an anonymous VMA's pgoff is its
 * start's page number when created and moves with it, so mremap, split
 * and merge keep the relation, as in Linux). Identities come in fork
 * families: fork gives a child's VMA an identity of its own (as Linux's
 * anon_vma_fork) that joins its parent's family, whose first identity
 * (the root, Linux's anon_vma->root) keeps one list of the VMAs of every
 * identity of the family, in every address space (mm/anon_vma.c). Linux
 * instead links each VMA into the tree of every ancestor identity
 * (anon_vma_chain entries, one per VMA per generation) so that a walk
 * visits only VMAs that can map the page; here a walk visits every VMA of
 * the family whose offset range holds page->index (a sibling's too: the
 * page-table check below skips it), and a VMA gains an identity without
 * allocating a chain entry, so without a failure path. The address in a
 * candidate VMA is vma->start + (index - vma->pgoff) * PAGE_SIZE.
 *
 * A page-cache page (PG_cache; page->private its object, page->index its
 * page offset there) is found through its object's list of the VMAs that
 * map it (vm_object->i_mmap, kept by mm/filemap.c's vma_file_link and
 * vma_file_unlink wherever a VMA gets or drops its file: mmap, split,
 * merge, mremap's copy, fork, munmap, exit), Linux's address_space
 * i_mmap. Linux keeps an interval tree there, so that a walk looks only
 * at the VMAs whose offset range holds the page: O(log n + hits). Here it
 * is a plain list, so a walk looks at every VMA mapping the file (O(n)
 * per page; linking and unlinking are O(1) and allocate nothing); files
 * here are mapped by few VMAs. A candidate is the VMA's address for the
 * index when vma->pgoff <= index < vma->pgoff + pages, and the entry
 * there is visited only when it maps this very page: a private file
 * mapping's copy-on-write copy (an anonymous page) is not the cache
 * page's, and is left to the anon reverse map.
 *
 * Locking: the caller holds a reference to the page (so page->private
 * and page->index stay as they are: anon_page_move re-tags only a page
 * whose one reference the fault has frozen, page_ref_freeze) and no spinning lock. rmap_walk takes the
 * identity's lock (class ANON_VMA), or for a cache page the object's
 * i_mmap_lock (class I_MMAP; the object held by a reference of the walk's,
 * vm_object_of_page_get), alone, copies up to RMAP_BATCH
 * (address space, address) pairs with a reference to each address space
 * (mm_get_unless_zero; dropped with mm_put_deferred when rwc->locked is
 * set), and drops it; then, for each pair, takes that
 * mm's mmap_lock for reading with a trylock (never waits: the caller may
 * hold another address space's; unless it is rwc->locked, whose lock the
 * caller holds) and its pt_lock, and calls the visitor only when the
 * entry there maps the page. A mapping whose mmap_lock is busy is
 * skipped and counted (rwc->skipped); a walk racing a change of a VMA's
 * bounds may miss the moved mapping. Callers that need every mapping gone
 * check page->mapcount afterwards, as Linux's callers of try_to_unmap
 * check folio_mapped.
 */
#ifndef RMAP_H
#define RMAP_H

#include "types.h"

struct page;
struct mm;

/*
 * rmap_visit_fn: one entry at va of mm that maps page, in state (MMU_*
 * bits). mm's mmap_lock is held for reading and its pt_lock is held.
 * Returns false to end the walk.
 */
typedef bool (*rmap_visit_fn)(struct page *page, struct mm *mm, uintptr_t va, unsigned state, void *arg);

struct rmap_walk_control {
	rmap_visit_fn visit;
	void *arg;
	struct mm *locked;            /* an mm whose mmap_lock the caller holds (not taken again), or NULL */
	bool keep_mlocked;            /* VM_LOCKED VMAs are not visited (Linux's try_to_unmap leaves them) */
	unsigned skipped;             /* out: candidate mappings not looked at (mmap_lock busy) */
};

/*
 * rmap_walk: call rwc->visit for every entry that maps page (a private
 * anonymous page or a page-cache page, the caller holding a reference to
 * it). Returns the number of entries visited. No spinning lock held;
 * sleeps only to free an address space or object whose last reference
 * the walk held.
 */
unsigned rmap_walk(struct page *page, struct rmap_walk_control *rwc);

/*
 * rmap_referenced: test and clear the accessed bit of every entry that
 * maps page (Linux folio_referenced), except those of skip (NULL: none),
 * flushing each cleared entry. Returns how many were set. Locks as
 * rmap_walk; rwc's locked is skip's caller-held lock, if any.
 */
unsigned rmap_referenced(struct page *page, struct mm *skip, struct mm *locked);

/*
 * try_to_unmap_swapcache: page is in the swap cache (page->swap set):
 * every entry that maps it becomes a swap entry of its slot (Linux
 * try_to_unmap of an anonymous folio in the swap cache). locked as in
 * rmap_walk. True when no entry maps the page any more (the caller's
 * reference and the cache's are what is left).
 */
bool try_to_unmap_swapcache(struct page *page, struct mm *locked);

/*
 * try_to_unmap_file: page is a page-cache page (shmem, memfd, tmpfs; not
 * anonymous) the caller holds a reference to: every entry that maps it
 * (shared mappings, and private file mappings that still map the cache
 * page rather than a copy) is removed and flushed, its dirty bit carried
 * into the page (PG_dirty), as Linux's try_to_unmap of a file folio; a
 * later access faults it back from the cache. Entries of VM_LOCKED VMAs
 * and 2 MiB leaves stay. Locks as rmap_walk (no mm's mmap_lock held by
 * the caller). True when no entry maps the page any more.
 */
bool try_to_unmap_file(struct page *page);

#endif
