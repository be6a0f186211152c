/*
 * VMA index backend "list": one address-sorted, doubly linked list of VMAs,
 * as Linux 2.1.119 kept them ("plain" in the 1998 measurements), with the
 * one-entry last-lookup cache of Linux 2.2 (mm->mmap_cache) as an option.
 *
 * Two ops tables share this code:
 *   vma_list_ops        "list"        no cache;
 *   vma_list_cache_ops  "list+cache"  the cache on.
 * The only difference is init(), which sets LS(idx)->use_cache; every
 * operation reads that flag, so a test may also flip it on an empty index.
 *
 * Layout: the state's head/tail (struct list_state, LS(idx)) are the
 * lowest/highest VMA; each VMA's link (struct list_link, after the VMA:
 * vma_link) has next/prev pointing to its neighbours in address order
 * (NULL at the ends). The state's cache is NULL or a VMA in the list (never
 * a stale one).
 *
 * Cost, in idx->accesses (every VMA whose fields an operation reads or
 * writes counts once per visit; the root pointers in struct vma_index are
 * not nodes and do not count). n = VMAs, r = VMAs with end <= addr:
 *   find, find_prev   r + 1 (walk from the head; n when nothing is found),
 *                     as 2.1.119's find_vma: n/2 on average, n worst.
 *                     With the cache: 1 on a hit (the cached VMA contains
 *                     addr, Linux 2.2's test), else 1 + r + 1; the result of
 *                     a walk (when not NULL) becomes the cache.
 *   insert            walk from the head over the VMAs starting below v,
 *                     plus the stopping one, plus v: about n/2 + 2, as
 *                     2.1.119's insert_vm_struct.
 *   erase             v and its two neighbours: <= 3. (2.1.119's list was
 *                     singly linked, so its delete walked n/2 to find the
 *                     predecessor; callers here find v first, which is where
 *                     the n/2 of the 1998 table shows up.) Drops the cache if
 *                     it pointed at v.
 *   update            1 (v) when the new range intersects the old one (the
 *                     order cannot change: see list_update); otherwise v and
 *                     its neighbours are read and, if the order changed, v is
 *                     unlinked and re-inserted by a walk. The cache needs no
 *                     fix: it holds a VMA of the index, and a hit is decided
 *                     from the cached VMA's current bounds.
 *   next, prev        1 (v). first, last: 0 (root pointers only).
 *   gap_top           walk from the tail down to the gap found (or to low);
 *   gap_bottom        walk from the head up. Both linear.
 *   reserve 0, bytes 0: the list lives in the VMAs' links (16 bytes each).
 *   check             counts nothing (a debugging aid, not a measured op).
 *
 * Locking: none of its own; the caller holds the mm's mmap_lock (read for
 * find/next/prev/first/last/gap, write otherwise). With the cache on, find
 * and find_prev write the state's cache, so concurrent readers would race on
 * that one word (harmless for correctness: any VMA of the index is a valid
 * cache value, and Linux 2.2 did the same).
 */
#include "vma.h"
#include "gap.h"
#include "kerrno.h"
#include "printk.h"

extern const struct vma_index_ops vma_list_cache_ops;

/* The link each VMA carries (vma_link) and the per-index state (struct vma_index.state). */
struct list_link {
	struct vma *next, *prev;
};

struct __attribute__((may_alias)) list_state {
	struct vma *head, *tail, *cache;
	bool use_cache;
};
VMA_INDEX_STATE_FITS(struct list_state);

#define LS(idx)   VMA_INDEX_STATE(idx, struct list_state)
#define L_NEXT(v) (((struct list_link *)vma_link(v))->next)
#define L_PREV(v) (((struct list_link *)vma_link(v))->prev)

static void list_init_common(struct vma_index *idx, bool use_cache)
{
	idx->count = 0;
	idx->accesses = 0;
	idx->lockless = false;
	LS(idx)->head = NULL;
	LS(idx)->tail = NULL;
	LS(idx)->cache = NULL;
	LS(idx)->use_cache = use_cache;
}

static void list_index_init(struct vma_index *idx)
{
	idx->ops = &vma_list_ops;
	list_init_common(idx, false);
}

static void list_cache_init(struct vma_index *idx)
{
	idx->ops = &vma_list_cache_ops;
	list_init_common(idx, true);
}

static void list_destroy(struct vma_index *idx)
{
	BUG_ON(idx->count != 0 || LS(idx)->head != NULL);
	LS(idx)->cache = NULL;
}

static int list_reserve(struct vma_index *idx, unsigned nr)
{
	return 0;
}

/*
 * The one-entry cache: the cached VMA if it contains addr (1 access), else
 * NULL. Always NULL when the cache is off or empty (0 accesses).
 */
static struct vma *list_cache_hit(struct vma_index *idx, uintptr_t addr)
{
	struct vma *c = LS(idx)->cache;

	if (!LS(idx)->use_cache || !c)
		return NULL;
	idx->accesses++;
	if (c->start <= addr && addr < c->end)
		return c;
	return NULL;
}

/* Walk from the head: the first VMA with end > addr, *prev = the one before it. */
static struct vma *list_walk(struct vma_index *idx, uintptr_t addr, struct vma **prev)
{
	struct vma *v, *below = NULL;

	for (v = LS(idx)->head; v; v = L_NEXT(v)) {
		idx->accesses++;
		if (v->end > addr)
			break;
		below = v;
	}
	*prev = below;
	if (v && LS(idx)->use_cache)
		LS(idx)->cache = v;
	return v;
}

static struct vma *list_find(struct vma_index *idx, uintptr_t addr)
{
	struct vma *v, *prev;

	v = list_cache_hit(idx, addr);
	if (v)
		return v;
	return list_walk(idx, addr, &prev);
}

static struct vma *list_find_prev(struct vma_index *idx, uintptr_t addr, struct vma **prev)
{
	struct vma *v;

	v = list_cache_hit(idx, addr);
	if (v) {
		/* v contains addr, so its list predecessor ends at or below addr.
		 * The pointer is read from v (already counted). */
		*prev = L_PREV(v);
		return v;
	}
	return list_walk(idx, addr, prev);
}

/* Link v between prev and next (either may be NULL). Touches v only; the caller counted the neighbours. */
static void list_link(struct vma_index *idx, struct vma *v, struct vma *prev, struct vma *next)
{
	L_PREV(v) = prev;
	L_NEXT(v) = next;
	if (prev)
		L_NEXT(prev) = v;
	else
		LS(idx)->head = v;
	if (next)
		L_PREV(next) = v;
	else
		LS(idx)->tail = v;
}

/* Insert by a walk from the head (2.1.119's insert_vm_struct). Does not touch count. */
static void list_link_sorted(struct vma_index *idx, struct vma *v)
{
	struct vma *w, *prev = NULL;

	idx->accesses++;                        /* v: bounds read, links written */
	for (w = LS(idx)->head; w; w = L_NEXT(w)) {
		idx->accesses++;
		if (w->start > v->start)
			break;
		prev = w;
	}
	list_link(idx, v, prev, w);
}

/* Unlink v: v and its two neighbours are touched. Does not touch count or cache. */
static void list_unlink(struct vma_index *idx, struct vma *v)
{
	struct vma *prev = L_PREV(v), *next = L_NEXT(v);

	idx->accesses++;
	if (prev) {
		idx->accesses++;
		L_NEXT(prev) = next;
	} else {
		LS(idx)->head = next;
	}
	if (next) {
		idx->accesses++;
		L_PREV(next) = prev;
	} else {
		LS(idx)->tail = prev;
	}
	L_NEXT(v) = L_PREV(v) = NULL;
}

static void list_insert(struct vma_index *idx, struct vma *v)
{
	list_link_sorted(idx, v);
	idx->count++;
}

static void list_erase(struct vma_index *idx, struct vma *v)
{
	list_unlink(idx, v);
	if (LS(idx)->cache == v)
		LS(idx)->cache = NULL;
	idx->count--;
}

/*
 * Update v's bounds. If the new range intersects the old one, v keeps its
 * place: its predecessor P ends at or below the old start, and the new range
 * reaches above it (it intersects the old range) without overlapping P, so
 * it starts at or above P's end; symmetrically for the successor. Otherwise
 * the neighbours are read to see whether the order still holds, and if not v
 * moves by unlink + walk.
 */
static void list_update(struct vma_index *idx, struct vma *v, uintptr_t start, uintptr_t end)
{
	struct vma *prev, *next;
	bool in_place;

	idx->accesses++;
	if (start < v->end && v->start < end) {
		in_place = true;
	} else {
		prev = L_PREV(v);
		next = L_NEXT(v);
		in_place = true;
		if (prev) {
			idx->accesses++;
			in_place = prev->end <= start;
		}
		if (in_place && next) {
			idx->accesses++;
			in_place = end <= next->start;
		}
	}
	v->start = start;
	v->end = end;
	if (!in_place) {
		list_unlink(idx, v);
		list_link_sorted(idx, v);
	}
}

static struct vma *list_next(struct vma_index *idx, struct vma *v)
{
	idx->accesses++;
	return L_NEXT(v);
}

static struct vma *list_prev(struct vma_index *idx, struct vma *v)
{
	idx->accesses++;
	return L_PREV(v);
}

static struct vma *list_first(struct vma_index *idx)
{
	return LS(idx)->head;
}

static struct vma *list_last(struct vma_index *idx)
{
	return LS(idx)->tail;
}

/* Top-down and bottom-up: the shared list walks of gap.h, from the tail / the head. */
static int list_gap_top(struct vma_index *idx, uintptr_t len, uintptr_t align,
			uintptr_t low, uintptr_t high, uintptr_t *out)
{
	return vma_list_gap_top(idx, LS(idx)->tail, offsetof(struct list_link, prev),
				len, align, low, high, out);
}

static int list_gap_bottom(struct vma_index *idx, uintptr_t len, uintptr_t align,
			   uintptr_t low, uintptr_t high, uintptr_t *out)
{
	return vma_list_gap_bottom(idx, LS(idx)->head, offsetof(struct list_link, next),
				   len, align, low, high, out);
}

/*
 * Invariants: head has no prev, tail has no next and is the last node
 * reached from head; next/prev symmetric; every VMA page aligned with
 * start < end; sorted and non-overlapping (prev->end <= start); as many
 * nodes as idx->count (the walk is bounded by it, so a cycle is caught);
 * the cache NULL when off, else NULL or a VMA of the list.
 */
static int list_check(struct vma_index *idx)
{
	struct vma *v, *prev = NULL;
	size_t n = 0;
	bool cache_seen = false;

	if (LS(idx)->head && L_PREV(LS(idx)->head)) {
		printk("vma list: head %p has prev %p\n", LS(idx)->head, L_PREV(LS(idx)->head));
		return -EINVAL;
	}
	for (v = LS(idx)->head; v; prev = v, v = L_NEXT(v)) {
		if (++n > idx->count) {
			printk("vma list: more than count=%zu nodes (cycle?)\n", idx->count);
			return -EINVAL;
		}
		if (L_PREV(v) != prev) {
			printk("vma list: node %zu [%#lx,%#lx) prev %p, expected %p\n", n - 1,
			       (unsigned long)v->start, (unsigned long)v->end, L_PREV(v), prev);
			return -EINVAL;
		}
		if (v->start >= v->end || !IS_ALIGNED(v->start, PAGE_SIZE) || !IS_ALIGNED(v->end, PAGE_SIZE)) {
			printk("vma list: bad range [%#lx,%#lx)\n", (unsigned long)v->start, (unsigned long)v->end);
			return -EINVAL;
		}
		if (prev && prev->end > v->start) {
			printk("vma list: [%#lx,%#lx) then [%#lx,%#lx): unsorted or overlapping\n",
			       (unsigned long)prev->start, (unsigned long)prev->end,
			       (unsigned long)v->start, (unsigned long)v->end);
			return -EINVAL;
		}
		if (v == LS(idx)->cache)
			cache_seen = true;
	}
	if (n != idx->count) {
		printk("vma list: %zu nodes, count %zu\n", n, idx->count);
		return -EINVAL;
	}
	if (LS(idx)->tail != prev) {
		printk("vma list: tail %p, last node %p\n", LS(idx)->tail, prev);
		return -EINVAL;
	}
	if (LS(idx)->cache && (!LS(idx)->use_cache || !cache_seen)) {
		printk("vma list: cache %p %s\n", LS(idx)->cache,
		       LS(idx)->use_cache ? "is not in the list" : "set while the cache is off");
		return -EINVAL;
	}
	return 0;
}

static size_t list_bytes(struct vma_index *idx)
{
	return 0;
}

/* "list": the sorted list alone (Linux 2.1.119). */
const struct vma_index_ops vma_list_ops = {
	.name = "list",
	.link_size = sizeof(struct list_link),
	.init = list_index_init,
	.destroy = list_destroy,
	.find = list_find,
	.find_prev = list_find_prev,
	.reserve = list_reserve,
	.insert = list_insert,
	.erase = list_erase,
	.update = list_update,
	.next = list_next,
	.prev = list_prev,
	.first = list_first,
	.last = list_last,
	.gap_top = list_gap_top,
	.gap_bottom = list_gap_bottom,
	.check = list_check,
	.bytes = list_bytes,
};

/* "list+cache": the same list with Linux 2.2's one-entry find cache. */
const struct vma_index_ops vma_list_cache_ops = {
	.name = "list+cache",
	.link_size = sizeof(struct list_link),
	.init = list_cache_init,
	.destroy = list_destroy,
	.find = list_find,
	.find_prev = list_find_prev,
	.reserve = list_reserve,
	.insert = list_insert,
	.erase = list_erase,
	.update = list_update,
	.next = list_next,
	.prev = list_prev,
	.first = list_first,
	.last = list_last,
	.gap_top = list_gap_top,
	.gap_bottom = list_gap_bottom,
	.check = list_check,
	.bytes = list_bytes,
};
