/*
 * VMA merge and split above the index: the rules of Linux 6.18's mm/vma.c
 * for anonymous private and shared memory, written once for every index
 * backend (struct vma_index_ops).
 *
 * What is mirrored, and from where (Linux function names in parentheses):
 *  - merge compatibility (is_mergeable_vma, is_mergeable_anon_vma,
 *    can_vma_merge_before/after/left/right): flags equal ignoring
 *    VM_SOFTDIRTY, the same file (vm_file), page-offset continuity, anon
 *    identities NULL or equal, and for a three-way merge prev and next
 *    compatible with each other; nothing with VM_SPECIAL flags merges.
 *    Fork children (vma_is_fork_child: Linux's non-singular
 *    anon_vma_chain, modelled by struct vma's anon_forked) follow
 *    is_mergeable_anon_vma's three cases: target unfaulted, source faulted
 *    (the target would dup the source's identity): refused when the source
 *    (the VMA being changed, or mremap's copied-from VMA) is a fork child;
 *    target faulted, source unfaulted: refused when the target is one;
 *    both faulted: the identities must be the same.
 *  - a new range (vma_merge_new_range, vma_expand, __mmap_region): expand
 *    prev, or next, or prev over next, else a new VMA.
 *  - changing the flags of part of a VMA (vma_modify,
 *    vma_merge_existing_range, split_vma): merge at the left edge into prev,
 *    at the right edge into next, the whole VMA into both; else split into
 *    up to three. The expanded neighbour inherits the anon identity of what
 *    it absorbs when it has none (dup_anon_vma).
 *  - munmap (do_vmi_align_munmap, vms_gather_munmap_vmas): split at the
 *    edges, remove, never merge.
 *  - anon identity reuse (anon_vma_prepare, find_mergeable_anon_vma,
 *    reusable_anon_vma, anon_vma_compatible).
 *  - map_count limit (do_mmap, split_vma, vms_gather_munmap_vmas).
 *  - free-area search (x86-64 arch_get_unmapped_area_topdown,
 *    unmapped_area_topdown/unmapped_area, __get_unmapped_area).
 *
 * Deliberate differences, each keeping Linux's results:
 *  - Allocate first, then commit. Every VMA and index node an operation
 *    needs is allocated (ops->reserve) before anything changes, so -ENOMEM
 *    leaves the address space exactly as it was. Linux can fail half-way:
 *    vma_modify may do the first of two splits and then fail the second on
 *    the map_count limit, leaving the VMA split. Here the limit is checked
 *    up front with the same comparisons, so -ENOMEM is returned in exactly
 *    the same situations but nothing is split.
 *    MAP_FIXED over mappings (vma_map_replace) allocates the new VMA and
 *    the index operations of both steps before it unmaps, so running out
 *    leaves the old mappings and their pages (Linux 6.12+ restores the
 *    VMAs it gathered: vms_abort_munmap_vmas).
 *  - munmap of the middle of one VMA shrinks it and allocates one VMA for
 *    the tail (Linux splits twice and frees the middle); the VMAs that
 *    remain are the same.
 *
 * Locking: every function here needs the mm's mmap_lock, written for
 * changes, read for lookups; each entry point asserts the mode it needs
 * (mmap_assert_locked / mmap_assert_write_locked, a BUG when it is not held).
 */
#include "internal.h"
#include "vma_internal.h"
#include "lockless.h"
#include "anon_vma.h"
#include "slab.h"
#include "kerrno.h"
#include "kstring.h"
#include "printk.h"

bool vma_merge_enabled = true;

/*
 * VMA objects: struct vma followed by the index backend's link
 * (vma_alloc_size), from one cache per object size, created by the first
 * mm_vma_init that needs it (under vma_caches_lock; entries, once
 * published, never change, so lookups take no lock).
 */
#define VMA_CACHES 8

static struct {
	size_t size;
	struct kmem_cache *cache;
} vma_caches[VMA_CACHES];
static struct spinlock vma_caches_lock = SPINLOCK_INIT("vma_caches");

static struct kmem_cache *vma_cache_find(size_t size)
{
	for (unsigned i = 0; i < VMA_CACHES; i++) {
		struct kmem_cache *c = smp_load_acquire(&vma_caches[i].cache);

		if (!c || vma_caches[i].size == size)
			return c;
	}
	return NULL;
}

/* The cache of VMAs of mm's backend (created by mm_vma_init). */
static struct kmem_cache *vma_cache(const struct mm *mm)
{
	return vma_cache_find(vma_alloc_size(mm->index.ops));
}

/* Make sure the cache for VMA objects of size exists. 0 or -ENOMEM. */
static int vma_cache_create(size_t size)
{
	unsigned long irq;
	unsigned i;

	if (vma_cache_find(size))
		return 0;
	irq = spin_lock_irqsave(&vma_caches_lock);
	for (i = 0; i < VMA_CACHES && vma_caches[i].cache && vma_caches[i].size != size; i++)
		;
	if (i < VMA_CACHES && !vma_caches[i].cache) {
		struct kmem_cache *c = kmem_cache_create("vma", size, 0);

		vma_caches[i].size = size;
		smp_store_release(&vma_caches[i].cache, c);
	}
	spin_unlock_irqrestore(&vma_caches_lock, irq);
	return vma_cache_find(size) ? 0 : -ENOMEM;
}


/* ---------------------------------------------------------------- setup */

const struct vma_index_ops *vma_default_backend = &vma_btree_ops;

int mm_vma_init(struct mm *mm, const struct vma_index_ops *backend)
{
	if (!backend)
		backend = vma_default_backend;
	if (vma_cache_create(vma_alloc_size(backend)) || anon_identity_cache_init())
		return -ENOMEM;
	memset(mm, 0, sizeof(*mm));
	backend->init(&mm->index);
	mm->index.ops = backend;
	mm->map_count = 0;
	mm->max_map_count = DEFAULT_MAX_MAP_COUNT;
	mm->merge = vma_merge_enabled;
	mm->zero_page = mm_zero_page_enabled;
	mm->mmap_base = MMAP_BASE_DEFAULT;
	mm->mmap_legacy_base = TASK_UNMAPPED_BASE;
	mmap_lock_init(&mm->mmap_lock);
	return 0;
}

size_t vma_objects_inuse(void)
{
	size_t n = 0;

	for (unsigned i = 0; i < VMA_CACHES; i++) {
		struct kmem_cache *c = smp_load_acquire(&vma_caches[i].cache);

		if (c)
			n += kmem_cache_inuse(c);
	}
	return n;
}

/* A zeroed VMA object for mm (its backend's link included), or NULL. */
static struct vma *vma_alloc(struct mm *mm)
{
	struct vma *v = kmem_cache_alloc(vma_cache(mm));

	if (v)
		memset(v, 0, vma_alloc_size(mm->index.ops));
	return v;
}

/* Give back a VMA object that holds no references. */
static void vma_release(struct mm *mm, struct vma *v)
{
	kmem_cache_free(vma_cache(mm), v);
}

/*
 * Free a VMA that is not (or no longer) in the index, dropping its
 * references. With lock-free faults (fault_lock=vma) its memory waits on
 * mm->vma_retired until no fault can still see it (mm/vma_lock.c).
 */
static void vma_free(struct mm *mm, struct vma *v)
{
	vma_anon_unlink(v);
	vma_file_unlink(v);
	mm->vma_freed = true;           /* the task caches' check (vma_lock_lookup) */
	if (mm->vma_lockless) {
		smp_store_release(&v->detached, true);
		v->retired_next = mm->vma_retired;      /* file was put above: the field is free */
		mm->vma_retired = v;
		return;
	}
	vma_release(mm, v);
}

void vma_retired_free(struct mm *mm, struct vma *chain)
{
	while (chain) {
		struct vma *v = chain;

		chain = v->retired_next;
		vma_release(mm, v);
	}
}

/*
 * A new VMA with src's attributes (Linux vm_area_dup + anon_vma_clone +
 * get_file), bounds left for the caller. Not in the index.
 */
static void vma_copy_attrs(struct mm *mm, struct vma *dst, const struct vma *src)
{
	dst->start = src->start;
	dst->end = src->end;
	dst->flags = src->flags;
	dst->pgoff = src->pgoff;
	dst->file = src->file;
	dst->mm = mm;
	dst->anon = NULL;
	dst->anon_forked = false;
	dst->vm_lock_seq = 0;
	dst->vm_readers = 0;
	dst->detached = false;
	if (src->anon) {
		/* anon_vma_clone copies the whole chain: a fork child's pieces stay fork children. */
		vma_anon_link(dst, src->anon);
		dst->anon_forked = src->anon_forked;
	}
	vma_file_link(dst);
}

/*
 * The index's changes, checked against the per-VMA locks (mm/vma_lock.c):
 * a VMA the write section moves, resizes or takes out must be marked, so
 * that no fault is inside it; one it puts in comes in marked.
 */
static void index_insert(struct mm *mm, struct vma *v)
{
	vma_mark_new(mm, v);
	mm->index.ops->insert(&mm->index, v);
}

static void index_update(struct mm *mm, struct vma *v, uintptr_t start, uintptr_t end)
{
	vma_assert_marked(mm, v);
	mm->index.ops->update(&mm->index, v, start, end);
}

static void index_erase(struct mm *mm, struct vma *v)
{
	vma_assert_marked(mm, v);
	mm->index.ops->erase(&mm->index, v);
}

void mm_vma_remove_all(struct mm *mm)
{
	struct vma_index *idx = &mm->index;
	struct vma *v;

	mmap_assert_write_locked(mm);
	while ((v = idx->ops->first(idx)) != NULL) {
		index_erase(mm, v);
		vma_free(mm, v);
	}
	mm->map_count = 0;
}

void mm_vma_destroy(struct mm *mm)
{
	mm_vma_remove_all(mm);
	mm->index.ops->destroy(&mm->index);
}

/* -------------------------------------------------------------- lookups */

struct vma *vma_find(struct mm *mm, uintptr_t addr)
{
	mmap_assert_locked(mm);
	return mm->index.ops->find(&mm->index, addr);
}

struct vma *vma_find_prev(struct mm *mm, uintptr_t addr, struct vma **prev)
{
	mmap_assert_locked(mm);
	return mm->index.ops->find_prev(&mm->index, addr, prev);
}

struct vma *vma_lookup(struct mm *mm, uintptr_t addr)
{
	struct vma *v = vma_find(mm, addr);

	return v && v->start <= addr ? v : NULL;
}

struct vma *vma_find_intersection(struct mm *mm, uintptr_t start, uintptr_t end)
{
	struct vma *v = vma_find(mm, start);

	return v && v->start < end ? v : NULL;
}

struct vma *vma_next(struct mm *mm, struct vma *v)
{
	mmap_assert_locked(mm);
	return mm->index.ops->next(&mm->index, v);
}

struct vma *vma_prev(struct mm *mm, struct vma *v)
{
	mmap_assert_locked(mm);
	return mm->index.ops->prev(&mm->index, v);
}

struct vma *vma_first(struct mm *mm)
{
	mmap_assert_locked(mm);
	return mm->index.ops->first(&mm->index);
}

/* ------------------------------------------------------ merge predicates */

/* The proposed range and attributes of a merge (Linux struct vma_merge_struct). */
struct merge_desc {
	uintptr_t start, end;
	unsigned long flags;
	unsigned long pgoff;          /* page offset of start */
	struct vm_file *file;
	struct anon_vma *anon;
	/*
	 * Linux's vmg->middle / vmg->copied_from is a fork child: the VMA the
	 * range's identity (anon) comes from, when there is one (a modified
	 * VMA, mremap's source). false for a new mapping and for vma_expand_end
	 * (vma_merge_extend clears vmg->middle).
	 */
	bool src_forked;
};

static bool merge_allowed(const struct mm *mm, unsigned long flags)
{
	return mm->merge && !(flags & VM_SPECIAL);
}

/* LAB merge: BEGIN merge_rules */
/* is_mergeable_vma: flags equal but for VM_SOFTDIRTY, the same file (the same open file, not just inode). */
static bool attrs_mergeable(const struct vma *v, const struct merge_desc *d)
{
	return ((v->flags ^ d->flags) & ~VM_SOFTDIRTY) == 0 && v->file == d->file;
}

/* The prev/next cross-check of can_vma_merge_right: NULL on either side, or the same identity. */
static bool anon_compatible(const struct anon_vma *a, const struct anon_vma *b)
{
	return !a || !b || a == b;
}

/* is_mergeable_anon_vma: may d's range be merged into tgt (prev or next) as far as identities go? */
static bool anon_mergeable(const struct vma *tgt, const struct merge_desc *d)
{
	/* Case 1: tgt would dup the source's identity (and chain): not from a fork child. */
	if (!tgt->anon && d->anon)
		return !d->src_forked;
	/* Case 2: the merged VMA keeps tgt's identity: tgt must not be a fork child. */
	if (tgt->anon && !d->anon)
		return !vma_is_fork_child(tgt);
	/* Case 3: both unfaulted, or both faulted with the same identity. */
	return tgt->anon == d->anon;
}

/* can_vma_merge_before: d can sit directly below next, next's pgoff continuing d's. */
static bool can_merge_before(const struct vma *next, const struct merge_desc *d)
{
	return attrs_mergeable(next, d) && anon_mergeable(next, d) &&
	       next->pgoff == d->pgoff + ((d->end - d->start) >> PAGE_SHIFT);
}

/* can_vma_merge_after: d can sit directly above prev, d's pgoff continuing prev's. */
static bool can_merge_after(const struct vma *prev, const struct merge_desc *d)
{
	return attrs_mergeable(prev, d) && anon_mergeable(prev, d) &&
	       prev->pgoff + vma_pages(prev) == d->pgoff;
}

/* can_vma_merge_left */
static bool can_merge_left(const struct vma *prev, const struct merge_desc *d)
{
	return prev && prev->end == d->start && can_merge_after(prev, d);
}

/* can_vma_merge_right: with a left merge too, prev and next must be compatible with each other. */
static bool can_merge_right(const struct vma *prev, const struct vma *next,
			    const struct merge_desc *d, bool left)
{
	if (!next || next->start != d->end || !can_merge_before(next, d))
		return false;
	return !left || anon_compatible(prev->anon, next->anon);
}
/* LAB merge: END merge_rules */

/*
 * vma_mergeable_pair: would Linux merge a directly followed by b, were b's
 * range proposed next to a? (The static form of the rules above.)
 */
bool vma_mergeable_pair(const struct mm *mm, const struct vma *a, const struct vma *b)
{
	/* b plays the modified VMA (vmg->middle), a the merge target. */
	struct merge_desc d = { b->start, b->end, b->flags, b->pgoff, b->file, b->anon,
				vma_is_fork_child(b) };

	return merge_allowed(mm, b->flags) && can_merge_left(a, &d);
}

/* dup_anon_vma: the VMA that grows over src inherits src's identity (and chain) if it has none. */
static void anon_dup(struct vma *dst, const struct vma *src)
{
	if (src->anon && !dst->anon) {
		vma_anon_link(dst, src->anon);
		dst->anon_forked = src->anon_forked;
	}
}

static int index_reserve(struct mm *mm, unsigned nr)
{
	return mm->index.ops->reserve(&mm->index, nr);
}

/*
 * The allocation step of "allocate first, then commit" for operations that
 * add one VMA: a zeroed VMA in *out and nr index operations reserved.
 * 0, or -ENOMEM with nothing allocated.
 */
static int vma_alloc_reserved(struct mm *mm, unsigned nr, struct vma **out)
{
	struct vma *v = vma_alloc(mm);
	int err;

	if (!v)
		return -ENOMEM;
	err = index_reserve(mm, nr);
	if (err) {
		vma_release(mm, v);
		return err;
	}
	*out = v;
	return 0;
}

static bool range_ok(uintptr_t start, uintptr_t end)
{
	return start < end && IS_ALIGNED(start, PAGE_SIZE) && IS_ALIGNED(end, PAGE_SIZE) &&
	       end <= TASK_SIZE;
}

/* ------------------------------------------------------------ new range */

int vma_map_count_check(const struct mm *mm)
{
	/* do_mmap: "Too many mappings?" is map_count > max, not >=: lenient by one on purpose. */
	return mm->map_count > mm->max_map_count ? -ENOMEM : 0;
}

/*
 * v grows over next, which directly follows it after v's growth, and next
 * goes (vma_expand's removal of next); v inherits next's identity if it has
 * none. Index reserved for 2 operations.
 */
static void absorb_next(struct mm *mm, struct vma *v, struct vma *next)
{
	uintptr_t new_end = next->end;

	anon_dup(v, next);
	index_erase(mm, next);
	mm->map_count--;
	index_update(mm, v, v->start, new_end);
	vma_free(mm, next);
}

/* vma_merge_new_range's merge: d's range joins prev (left), next (right) or both. */
static int new_range_merge(struct mm *mm, struct vma *prev, struct vma *next,
			   const struct merge_desc *d, bool left, bool right, struct vma **out)
{
	int err = index_reserve(mm, left && right ? 2 : 1);

	if (err)
		return err;
	if (left && right) {
		/* prev expands over the new range and next; next is removed (vma_expand). */
		absorb_next(mm, prev, next);
		*out = prev;
	} else if (left) {
		index_update(mm, prev, prev->start, d->end);
		*out = prev;
	} else {
		index_update(mm, next, d->start, next->end);
		next->pgoff = d->pgoff;
		*out = next;
	}
	return 0;
}

/* __mmap_region's new VMA for d's range, with no anon identity yet. */
/* Insert d's range as a new VMA: *spare when given (taken: set to NULL), else a new one. */
static int new_range_insert(struct mm *mm, const struct merge_desc *d, struct vma **spare, struct vma **out)
{
	struct vma *v = spare ? *spare : NULL;
	int err = v ? index_reserve(mm, 1) : vma_alloc_reserved(mm, 1, &v);

	if (err)
		return err;
	if (spare)
		*spare = NULL;
	v->start = d->start;
	v->end = d->end;
	v->flags = d->flags;
	v->pgoff = d->pgoff;
	v->file = d->file;
	v->anon = NULL;
	v->mm = mm;
	vma_file_link(v);
	index_insert(mm, v);
	mm->map_count++;
	*out = v;
	return 0;
}

/*
 * vma_merge_new_range + vma_expand (+ __mmap_region's new VMA): map the
 * free range of d, merging with prev and/or next. d->anon is the identity
 * the range brings along (NULL for a new mapping; the source's for
 * mremap's copy_vma): merges require it to be compatible, and the VMA
 * that ends up covering the range inherits it when it has none (Linux's
 * dup_anon_vma from vmg->copied_from). Map-count limit checked by callers.
 */
static int map_new_range(struct mm *mm, const struct merge_desc *d, struct vma **spare, struct vma **out)
{
	struct vma_index *idx = &mm->index;
	struct vma *prev, *next, *v;
	bool left = false, right = false;
	int err;

	next = idx->ops->find_prev(idx, d->start, &prev);
	if (next && next->start < d->end)
		return -EEXIST;
	if (merge_allowed(mm, d->flags)) {
		left = can_merge_left(prev, d);
		right = can_merge_right(prev, next, d, left);
	}
	if (left || right)
		err = new_range_merge(mm, prev, next, d, left, right, &v);
	else
		err = new_range_insert(mm, d, spare, &v);
	if (err)
		return err;
	if (d->anon && !v->anon) {
		/* dup_anon_vma / anon_vma_clone from the copied-from VMA: its chain comes along. */
		vma_anon_link(v, d->anon);
		v->anon_forked = d->src_forked;
	}
	if (out)
		*out = v;
	return 0;
}

int vma_map_new_range(struct mm *mm, uintptr_t start, uintptr_t end, unsigned long flags,
		      struct vm_file *file, unsigned long pgoff, struct vma **out)
{
	struct merge_desc d = { start, end, flags, pgoff, file, NULL, false };
	int err;

	mmap_assert_write_locked(mm);
	if (!range_ok(start, end))
		return -EINVAL;
	err = vma_map_count_check(mm);
	if (err)
		return err;
	return map_new_range(mm, &d, NULL, out);
}

int vma_map_replace(struct mm *mm, uintptr_t start, uintptr_t end, unsigned long flags,
		    struct vm_file *file, unsigned long pgoff, vma_unmap_cb cb, void *arg, struct vma **out)
{
	struct merge_desc d = { start, end, flags, pgoff, file, NULL, false };
	struct vma *spare;
	int err;

	mmap_assert_write_locked(mm);
	if (!range_ok(start, end))
		return -EINVAL;
	/*
	 * Allocate first: the new VMA, and index operations for the unmap's
	 * split and trims (2) and for the map (2). Nothing after the unmap
	 * allocates then: a reserve only tops the pool up, and what this one
	 * set aside covers what the later, smaller ones ask for (the B-tree
	 * keeps BT_SPARE_KEEP nodes beyond any request).
	 */
	err = vma_alloc_reserved(mm, 4, &spare);
	if (err)
		return err;
	err = vma_unmap_range(mm, start, end, cb, arg);
	if (!err)
		err = map_new_range(mm, &d, &spare, out);
	if (spare)
		vma_release(mm, spare);
	return err;
}

int vma_copy_range(struct mm *mm, const struct vma *src, uintptr_t addr, uintptr_t len,
		   unsigned long pgoff, struct vma **out)
{
	struct merge_desc d = { addr, addr + len, src->flags, pgoff, src->file, src->anon,
				vma_is_fork_child(src) };

	mmap_assert_write_locked(mm);
	if (!range_ok(addr, addr + len))
		return -EINVAL;
	/* copy_vma: an anonymous private VMA never faulted takes the pgoff of its new place. */
	if (!src->file && !src->anon)
		d.pgoff = addr >> PAGE_SHIFT;
	return map_new_range(mm, &d, NULL, out);
}

int vma_expand_end(struct mm *mm, struct vma *vma, uintptr_t delta, struct vma **out)
{
	struct vma_index *idx = &mm->index;
	uintptr_t new_end = vma->end + delta;
	struct merge_desc d = { vma->end, new_end, vma->flags,
				vma->pgoff + vma_pages(vma), vma->file, vma->anon, false };
	struct vma *next;
	bool right;
	int err;

	mmap_assert_write_locked(mm);
	if (!delta || !IS_ALIGNED(delta, PAGE_SIZE) || new_end < vma->end || new_end > TASK_SIZE)
		return -EINVAL;
	next = idx->ops->next(idx, vma);
	if (next && next->start < new_end)
		return -EEXIST;
	/* vma_merge_extend: vma_merge_new_range with prev = vma, which never fails the left side. */
	if (vma->flags & VM_SPECIAL)
		return -ENOMEM;
	right = merge_allowed(mm, vma->flags) && can_merge_right(vma, next, &d, true);
	err = index_reserve(mm, right ? 2 : 1);
	if (err)
		return err;
	if (right)
		absorb_next(mm, vma, next);
	else
		index_update(mm, vma, vma->start, new_end);
	if (out)
		*out = vma;
	return 0;
}

int vma_map_anon(struct mm *mm, uintptr_t start, uintptr_t end, unsigned long flags, struct vma **out)
{
	/* do_mmap, MAP_PRIVATE anonymous: pgoff = addr >> PAGE_SHIFT. */
	return vma_map_new_range(mm, start, end, flags, NULL, start >> PAGE_SHIFT, out);
}

int vma_expand_start(struct mm *mm, struct vma *vma, uintptr_t new_start)
{
	struct vma_index *idx = &mm->index;
	struct vma *prev;
	unsigned long grow;
	int err;

	mmap_assert_write_locked(mm);
	if (new_start >= vma->start || !IS_ALIGNED(new_start, PAGE_SIZE) || new_start > TASK_SIZE)
		return -EINVAL;
	prev = idx->ops->prev(idx, vma);
	if (prev && prev->end > new_start)
		return -EEXIST;
	grow = (vma->start - new_start) >> PAGE_SHIFT;
	if (grow > vma->pgoff)
		return -ENOMEM;
	err = index_reserve(mm, 1);
	if (err)
		return err;
	index_update(mm, vma, new_start, vma->end);
	vma->pgoff -= grow;
	return 0;
}

/* ---------------------------------------------------------------- split */

/*
 * Commit a split of vma at addr with the preallocated nv (index reserved
 * for 2 operations): nv takes [vma->start, addr) when new_below, else
 * [addr, vma->end); vma keeps the rest (__split_vma).
 */
static void split_commit(struct mm *mm, struct vma *vma, uintptr_t addr, bool new_below,
			 struct vma *nv)
{
	unsigned long delta = (addr - vma->start) >> PAGE_SHIFT;

	vma_copy_attrs(mm, nv, vma);
	if (new_below) {
		nv->end = addr;
		vma->pgoff += delta;
		index_update(mm, vma, addr, vma->end);
	} else {
		nv->start = addr;
		nv->pgoff += delta;
		index_update(mm, vma, vma->start, addr);
	}
	index_insert(mm, nv);
	mm->map_count++;
}

int vma_split(struct mm *mm, struct vma *vma, uintptr_t addr, bool new_below, struct vma **new_out)
{
	struct vma *nv;
	int err;

	mmap_assert_write_locked(mm);
	if (addr <= vma->start || addr >= vma->end || !IS_ALIGNED(addr, PAGE_SIZE))
		return -EINVAL;
	/* split_vma: map_count >= max */
	if (mm->map_count >= mm->max_map_count)
		return -ENOMEM;
	err = vma_alloc_reserved(mm, 2, &nv);
	if (err)
		return err;
	split_commit(mm, vma, addr, new_below, nv);
	if (new_out)
		*new_out = nv;
	return 0;
}

/* --------------------------------------------------------------- modify */

/* LAB merge: BEGIN modify_merge */
/*
 * |<-prev->|<-vma->|<-next->|  ->  |<--------prev-------->|
 * prev inherits next's identity, else vma's.
 */
static struct vma *modify_merge_both(struct mm *mm, struct vma *vma, struct vma *prev,
				     struct vma *next)
{
	uintptr_t new_end = next->end;

	anon_dup(prev, next->anon ? next : vma);
	index_erase(mm, vma);
	index_erase(mm, next);
	mm->map_count -= 2;
	index_update(mm, prev, prev->start, new_end);
	vma_free(mm, vma);
	vma_free(mm, next);
	return prev;
}

/* |<-prev->|<-[start,end) of vma->|rest of vma|: prev grows to end. */
static struct vma *modify_merge_left(struct mm *mm, struct vma *vma, struct vma *prev,
				     const struct merge_desc *d)
{
	bool remove_middle = d->start == vma->start && d->end == vma->end;

	anon_dup(prev, vma);
	if (remove_middle) {
		index_erase(mm, vma);
		mm->map_count--;
	} else {
		vma->pgoff += (d->end - vma->start) >> PAGE_SHIFT;
		index_update(mm, vma, d->end, vma->end);
	}
	index_update(mm, prev, prev->start, d->end);
	if (remove_middle)
		vma_free(mm, vma);
	return prev;
}

/* |rest of vma|<-[start,end) of vma->|<-next->|: next grows down to start. */
static struct vma *modify_merge_right(struct mm *mm, struct vma *vma, struct vma *next,
				      const struct merge_desc *d)
{
	bool remove_middle = d->start == vma->start && d->end == vma->end;
	uintptr_t next_end = next->end;

	anon_dup(next, vma);
	if (remove_middle) {
		index_erase(mm, vma);
		mm->map_count--;
	} else {
		index_update(mm, vma, vma->start, d->start);
	}
	index_update(mm, next, d->start, next_end);
	next->pgoff = d->pgoff;
	if (remove_middle)
		vma_free(mm, vma);
	return next;
}

/* vma_merge_existing_range, once it decided to merge: reserve, then commit. */
static int modify_merge(struct mm *mm, struct vma *vma, struct vma *prev, struct vma *next,
			const struct merge_desc *d, bool merge_left, bool merge_right,
			struct vma **out)
{
	struct vma *res;
	int err = index_reserve(mm, merge_left && merge_right ? 3 : 2);

	if (err)
		return err;
	if (merge_left && merge_right)
		res = modify_merge_both(mm, vma, prev, next);
	else if (merge_left)
		res = modify_merge_left(mm, vma, prev, d);
	else
		res = modify_merge_right(mm, vma, next, d);
	/* mprotect_fixup / madvise_update_vma reset the result's flags to the new ones. */
	res->flags = d->flags;
	*out = res;
	return 0;
}
/* LAB merge: END modify_merge */

/*
 * vma_modify: no merge, so split off what lies outside [start, end) and
 * give vma the new flags. Each split_vma fails when map_count >= max at
 * that moment: the first split sees map_count, the second map_count + 1.
 */
static int modify_split(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end,
			unsigned long new_flags, struct vma **out)
{
	struct vma *nv[2] = { NULL, NULL };
	unsigned nsplit = (start > vma->start) + (end < vma->end), i;
	int err = -ENOMEM;

	if (nsplit && mm->map_count + (int)nsplit - 1 >= mm->max_map_count)
		return -ENOMEM;
	for (i = 0; i < nsplit; i++) {
		nv[i] = vma_alloc(mm);
		if (!nv[i])
			goto fail;
	}
	if (nsplit) {
		err = index_reserve(mm, 2 * nsplit);
		if (err)
			goto fail;
	}
	i = 0;
	if (start > vma->start)
		split_commit(mm, vma, start, true, nv[i++]);
	if (end < vma->end)
		split_commit(mm, vma, end, false, nv[i++]);
	vma->flags = new_flags;
	*out = vma;
	return 0;
fail:
	for (i = 0; i < 2; i++)
		if (nv[i])
			vma_release(mm, nv[i]);
	return err;
}

/* LAB merge: BEGIN vma_modify_flags */
int vma_modify_flags(struct mm *mm, struct vma *vma, struct vma *prev, uintptr_t start,
		     uintptr_t end, unsigned long new_flags, struct vma **out)
{
	bool left_side = start == vma->start, right_side = end == vma->end;
	struct merge_desc d = { start, end, new_flags,
				vma->pgoff + ((start - vma->start) >> PAGE_SHIFT),
				vma->file, vma->anon, vma_is_fork_child(vma) };

	mmap_assert_write_locked(mm);
	if (!range_ok(start, end) || start < vma->start || end > vma->end)
		return -EINVAL;
	if (prev && prev != vma && prev->end > vma->start)
		return -EINVAL;
	/* mprotect_fixup / madvise_update_vma: nothing to do when the flags do not change. */
	if (new_flags == vma->flags) {
		*out = vma;
		return 0;
	}
	/* vma_merge_existing_range: only a range touching an edge can merge. */
	if (merge_allowed(mm, new_flags) && (left_side || right_side)) {
		struct vma *next = NULL;
		bool merge_left, merge_right = false;

		merge_left = left_side && prev != vma && can_merge_left(prev, &d);
		if (right_side) {
			next = vma_next(mm, vma);
			merge_right = can_merge_right(prev, next, &d, merge_left);
		}
		if (merge_left || merge_right)
			return modify_merge(mm, vma, prev, next, &d, merge_left, merge_right, out);
	}
	return modify_split(mm, vma, start, end, new_flags, out);
}
/* LAB merge: END vma_modify_flags */

/* ---------------------------------------------------------------- unmap */

static void piece_of(struct vma *piece, const struct vma *v, uintptr_t start, uintptr_t end)
{
	*piece = *v;
	piece->pgoff = v->pgoff + ((start - v->start) >> PAGE_SHIFT);
	piece->start = start;
	piece->end = end;
}

/*
 * [start, end) strictly inside first: the only munmap that adds a VMA.
 * vms_gather_munmap_vmas refuses it when map_count >= max ("map_count may
 * go just above its limit temporarily" covers only the splits that a
 * removal then compensates).
 */
static int unmap_hole(struct mm *mm, struct vma *first, uintptr_t start, uintptr_t end,
		      vma_unmap_cb cb, void *arg)
{
	struct vma head, *nv;
	int err;

	if (mm->map_count >= mm->max_map_count)
		return -ENOMEM;
	err = vma_alloc_reserved(mm, 2, &nv);
	if (err)
		return err;
	piece_of(&head, first, start, end);
	vma_copy_attrs(mm, nv, first);
	nv->start = end;
	nv->pgoff += (end - first->start) >> PAGE_SHIFT;
	index_update(mm, first, first->start, start);
	index_insert(mm, nv);
	mm->map_count++;
	if (cb)
		cb(mm, &head, arg);
	return 0;
}

/*
 * Take [start, end) out of the index, from first (the lowest VMA it
 * intersects) up: trim the VMAs crossing start and end, erase the ones
 * inside. Each piece goes to cb once it has left the index (address
 * order), and a VMA erased whole is freed after its callback.
 */
static void unmap_detach(struct mm *mm, struct vma *first, uintptr_t start, uintptr_t end,
			 vma_unmap_cb cb, void *arg)
{
	struct vma_index *idx = &mm->index;
	const struct vma_index_ops *ops = idx->ops;
	struct vma *v = first, *nv, piece;

	if (start > v->start) {
		/* Trim the first VMA's tail (__split_vma, then removal of the upper part). */
		piece_of(&piece, v, start, v->end);
		nv = v->end >= end ? NULL : ops->next(idx, v);
		index_update(mm, v, v->start, start);
		if (cb)
			cb(mm, &piece, arg);
		v = nv;
	}
	while (v && v->start < end) {
		if (v->end > end) {
			/* Trim the last VMA's head. */
			piece_of(&piece, v, v->start, end);
			v->pgoff += (end - v->start) >> PAGE_SHIFT;
			index_update(mm, v, end, v->end);
			if (cb)
				cb(mm, &piece, arg);
			break;
		}
		nv = v->end >= end ? NULL : ops->next(idx, v);
		index_erase(mm, v);
		mm->map_count--;
		if (cb)
			cb(mm, v, arg);
		vma_free(mm, v);
		v = nv;
	}
}

int vma_unmap_range(struct mm *mm, uintptr_t start, uintptr_t end, vma_unmap_cb cb, void *arg)
{
	struct vma_index *idx = &mm->index;
	struct vma *first;
	int err;

	mmap_assert_write_locked(mm);
	if (!range_ok(start, end))
		return -EINVAL;
	first = idx->ops->find(idx, start);
	if (!first || first->start >= end)
		return 0;
	if (start > first->start && end < first->end)
		return unmap_hole(mm, first, start, end, cb, arg);
	/* At most two updates (the trimmed first and last VMAs); erases need no reserve. */
	err = index_reserve(mm, 2);
	if (err)
		return err;
	unmap_detach(mm, first, start, end, cb, arg);
	return 0;
}

/* ----------------------------------------------------------- anon_prepare */

/* anon_vma_compatible: a directly below b, flags differing only in what mprotect changes. */
static bool anon_reuse_compatible(const struct vma *a, const struct vma *b)
{
	return a->end == b->start && a->file == b->file &&
	       !((a->flags ^ b->flags) & ~(VM_ACCESS_FLAGS | VM_SOFTDIRTY)) &&
	       b->pgoff == a->pgoff + ((b->start - a->start) >> PAGE_SHIFT);
}

int vma_anon_prepare(struct mm *mm, struct vma *vma)
{
	struct vma_index *idx = &mm->index;
	struct anon_vma *av = NULL;
	struct vma *n;

	if (vma->anon)
		return 0;       /* nothing to do (a fault under the VMA lock alone gets here) */
	mmap_assert_locked(mm);
	/* A fault holds the lock only for reading: the page-table lock serializes the faults that link. */
	BUG_ON(!mmap_is_write_locked(mm) && !spin_is_held(&mm->pt_lock));
	/*
	 * find_mergeable_anon_vma: next first, then prev; reusable_anon_vma
	 * takes a neighbour's identity only when its chain is singular (not a
	 * fork child).
	 */
	n = idx->ops->next(idx, vma);
	if (n && n->anon && !n->anon_forked && anon_reuse_compatible(vma, n))
		av = n->anon;
	if (!av) {
		n = idx->ops->prev(idx, vma);
		if (n && n->anon && !n->anon_forked && anon_reuse_compatible(n, vma))
			av = n->anon;
	}
	if (!av) {
		av = anon_identity_alloc(NULL);
		if (!av)
			return -ENOMEM;
	}
	vma_anon_link(vma, av);
	/* __anon_vma_prepare links one chain entry: singular. */
	vma->anon_forked = false;
	return 0;
}

/* ------------------------------------------------------------- free area */

/* vm_start_gap: a VM_GROWSDOWN VMA keeps STACK_GUARD_GAP free below it. */
static uintptr_t vma_start_gap(const struct vma *v)
{
	uintptr_t s = v->start;

	if (v->flags & VM_GROWSDOWN) {
		s -= STACK_GUARD_GAP;
		if (s > v->start)
			s = 0;
	}
	return s;
}

int vma_find_free_area(struct mm *mm, uintptr_t len, uintptr_t align, uintptr_t low,
		       uintptr_t high, bool topdown, uintptr_t *out)
{
	struct vma_index *idx = &mm->index;
	uintptr_t a;
	struct vma *next;

	mmap_assert_locked(mm);
	if (!len || !IS_ALIGNED(len, PAGE_SIZE) || align < PAGE_SIZE || (align & (align - 1)))
		return -EINVAL;
	if (low < MMAP_MIN_ADDR)
		low = MMAP_MIN_ADDR;           /* unmapped_area*: low_limit >= mmap_min_addr */
	for (;;) {
		if (low >= high || high - low < len)
			return -ENOMEM;
		if (topdown) {
			if (idx->ops->gap_top(idx, len, align, low, high, &a))
				return -ENOMEM;
		} else if (idx->ops->gap_bottom(idx, len, align, low, high, &a)) {
			return -ENOMEM;
		}
		/* The stack guard gap below a VM_GROWSDOWN VMA is not free space. */
		next = idx->ops->find(idx, a);
		if (!next || a + len <= vma_start_gap(next))
			break;
		if (topdown)
			high = vma_start_gap(next);    /* unmapped_area_topdown: retry below the gap */
		else
			low = next->end;               /* unmapped_area: retry above next */
	}
	*out = a;
	return 0;
}

int vma_get_unmapped_area(struct mm *mm, uintptr_t hint, uintptr_t len, uintptr_t align,
			  uintptr_t *out)
{
	uintptr_t a;
	int err;

	mmap_assert_locked(mm);
	if (!len || !IS_ALIGNED(len, PAGE_SIZE))
		return -EINVAL;
	if (len > TASK_SIZE)
		return -ENOMEM;                       /* "requested length too big" */
	/* do_mmap's round_hint_to_min. */
	hint &= PAGE_MASK;
	if (hint && hint < MMAP_MIN_ADDR)
		hint = ALIGN_UP(MMAP_MIN_ADDR, PAGE_SIZE);
	/* x86-64 arch_get_unmapped_area_topdown: a hint that fits is taken as is. */
	if (hint && hint <= TASK_SIZE - len) {
		struct vma *next = vma_find(mm, hint);

		if (!next || hint + len <= vma_start_gap(next)) {
			*out = hint;
			return 0;
		}
	}
	err = vma_find_free_area(mm, len, align, PAGE_SIZE, mm->mmap_base, true, &a);
	if (err)          /* fall back to bottom-up, as Linux does when top-down fails */
		err = vma_find_free_area(mm, len, align, mm->mmap_legacy_base, TASK_SIZE, false, &a);
	if (err)
		return err;
	if (a > TASK_SIZE - len)                      /* __get_unmapped_area */
		return -ENOMEM;
	*out = a;
	return 0;
}

/* ---------------------------------------------------------------- checks */

static unsigned long check_gen;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		printk("vma_check: " __VA_ARGS__); \
		printk("\n"); \
		err = -EINVAL; \
		goto out; \
	} \
} while (0)

/*
 * The walks: forward sorted, non-overlapping, page aligned, non-empty,
 * below TASK_SIZE, owned by mm, as many VMAs as the count (each anon
 * identity's VMAs counted on the way); backward the same VMAs in reverse.
 * *count = the VMAs seen.
 */
static int check_walks(struct mm *mm, size_t *count)
{
	struct vma_index *idx = &mm->index;
	const struct vma_index_ops *ops = idx->ops;
	struct vma *v, *p = NULL;
	uintptr_t prev_end = 0;
	size_t n = 0, nback = 0;
	int err = 0;

	check_gen++;
	for (v = ops->first(idx); v; v = ops->next(idx, v)) {
		CHECK(v->start < v->end, "VMA %#lx-%#lx empty or inverted", v->start, v->end);
		CHECK(IS_ALIGNED(v->start, PAGE_SIZE) && IS_ALIGNED(v->end, PAGE_SIZE),
		      "VMA %#lx-%#lx not page aligned", v->start, v->end);
		CHECK(v->end <= TASK_SIZE, "VMA %#lx-%#lx above TASK_SIZE", v->start, v->end);
		CHECK(v->start >= prev_end, "VMA %#lx-%#lx overlaps or precedes the one ending at %#lx",
		      v->start, v->end, prev_end);
		CHECK(v->mm == mm, "VMA %#lx-%#lx belongs to another mm", v->start, v->end);
		if (v->anon) {
			struct anon_identity *ai = anon_identity(v->anon);

			if (ai->check_gen != check_gen) {
				ai->check_gen = check_gen;
				ai->check_count = 0;
			}
			ai->check_count++;
		}
		prev_end = v->end;
		CHECK(++n <= idx->count, "more VMAs reachable than the count %zu", idx->count);
	}
	CHECK(n == idx->count, "%zu VMAs reachable, count %zu", n, idx->count);
	for (v = ops->last(idx); v; v = ops->prev(idx, v)) {
		CHECK(!p || v->end <= p->start, "backward walk out of order at %#lx", v->start);
		p = v;
		CHECK(++nback <= n, "backward walk longer than forward");
	}
	CHECK(nback == n, "backward walk %zu VMAs, forward %zu", nback, n);
	*count = n;
out:
	return err;
}

/*
 * Every anon identity pointed at by as many VMAs as it counts (check_walks
 * counted them); lookups agree with the walk (sampled when n is large, to
 * stay fast on the list).
 */
static int check_identities_and_lookups(struct mm *mm, size_t n)
{
	struct vma_index *idx = &mm->index;
	const struct vma_index_ops *ops = idx->ops;
	size_t stride = n <= 512 ? 1 : n / 256, i = 0;
	struct vma *v;
	int err = 0;

	for (v = ops->first(idx); v; v = ops->next(idx, v), i++) {
		struct vma *q, *f;

		CHECK(v->anon || !v->anon_forked, "VMA %#lx: anon_forked without an identity", v->start);
		if (v->anon) {
			struct anon_identity *ai = anon_identity(v->anon);

			CHECK(ai->check_count == ai->vma_refs,
			      "anon %lu: %u VMAs point at it, vma_refs %u", v->anon->id,
			      ai->check_count, ai->vma_refs);
			CHECK(v->anon->refcount >= ai->vma_refs, "anon %lu: refcount %u < vma_refs %u",
			      v->anon->id, v->anon->refcount, ai->vma_refs);
		}
		if (i % stride)
			continue;
		CHECK(ops->find(idx, v->start) == v, "find(%#lx) misses its VMA", v->start);
		CHECK(ops->find(idx, v->end - 1) == v, "find(%#lx) misses its VMA", v->end - 1);
		f = ops->find_prev(idx, v->start, &q);
		CHECK(f == v && q == ops->prev(idx, v), "find_prev(%#lx) wrong", v->start);
	}
out:
	return err;
}

int vma_check(struct mm *mm)
{
	struct vma_index *idx = &mm->index;
	uint64_t saved_accesses = idx->accesses;
	bool write_locked = mmap_is_write_locked(mm);
	size_t n = 0;
	int err = 0;

	mmap_assert_locked(mm);
	/*
	 * A fault holding the mmap_lock for reading links its VMA to an anon
	 * identity (vma_anon_prepare) under pt_lock: held here, the identity
	 * counts cannot move between the walk that counts and the check. A
	 * write-locked mm has no such fault (nor, in the index tests, tables).
	 */
	if (!write_locked)
		mm_pt_lock(mm);
	CHECK(idx->ops->check(idx) == 0, "backend %s check failed", idx->ops->name);
	CHECK(idx->count == (size_t)mm->map_count, "index count %zu != map_count %d",
	      idx->count, mm->map_count);
	err = check_walks(mm, &n);
	if (!err)
		err = check_identities_and_lookups(mm, n);
out:
	if (!write_locked)
		mm_pt_unlock(mm);
	idx->accesses = saved_accesses;
	return err;
}

int vma_check_merged(struct mm *mm)
{
	struct vma_index *idx = &mm->index;
	uint64_t saved_accesses = idx->accesses;
	struct vma *v, *p = NULL;
	int err = 0;

	mmap_assert_locked(mm);
	if (mm->merge) {
		for (v = idx->ops->first(idx); v; p = v, v = idx->ops->next(idx, v)) {
			CHECK(!p || !vma_mergeable_pair(mm, p, v),
			      "VMAs %#lx-%#lx and %#lx-%#lx should have been merged",
			      p->start, p->end, v->start, v->end);
		}
	}
out:
	idx->accesses = saved_accesses;
	return err;
}

void vma_dump(struct mm *mm)
{
	struct vma_index *idx = &mm->index;
	uint64_t saved_accesses = idx->accesses;
	struct vma *v;

	printk("mm %p (%s): %d VMAs\n", (void *)mm, idx->ops->name, mm->map_count);
	for (v = idx->ops->first(idx); v; v = idx->ops->next(idx, v))
		printk("  %012lx-%012lx flags %#lx pgoff %#lx anon %lu file %p\n",
		       v->start, v->end, v->flags, v->pgoff, v->anon ? v->anon->id : 0UL, (void *)v->file);
	idx->accesses = saved_accesses;
}
