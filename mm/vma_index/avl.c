/*
 * VMA index backend "avl": an AVL tree of VMAs keyed by start, in the spirit
 * of the Linux 2.1.119 AVL patch (and Linux 2.2-2.4's mmap_avl).
 *
 * Design:
 *   - Intrusive: each VMA is a tree node (its link, struct avl_link after
 *     the VMA: left/right/parent, 32 bytes); no memory outside the VMAs, so
 *     reserve() is a no-op and bytes() is 0.
 *   - The link's height is the height of the node's subtree (a leaf is 1, an
 *     empty subtree 0). Balance: the heights of a node's two subtrees differ
 *     by at most 1, so the height is at most ~1.44 log2(n + 2).
 *   - Insert: descend from the root, link a leaf, then retrace toward the
 *     root fixing heights; one single or double rotation restores balance and
 *     ends the retrace (the subtree is back to its old height). Erase: a node
 *     with two children is replaced by its in-order successor (relinked, not
 *     copied: VMAs are owned by the caller), then the retrace runs from the
 *     lowest changed node, rotating wherever a balance reaches 2, until a
 *     subtree keeps its height.
 *   - next/prev walk the tree through the parent pointers (O(1) amortized,
 *     O(log n) worst). The tree keeps no gap information: gap_top and
 *     gap_bottom descend to the boundary (O(log n)) and then visit the VMAs
 *     in order from there, like the list does (O(gaps looked at)).
 *   - update() changes bounds in place when the VMA keeps its place among
 *     its neighbours (always, when the new range intersects the old one);
 *     otherwise the neighbours are read and, if the order changed, the VMA
 *     is erased and re-inserted.
 *
 * Cost, in idx->accesses: a node counts once each time an operation moves
 * to it and reads or writes its fields (descent, ascent through a parent
 * pointer, a rotation partner not already on the path). Reading a child's
 * stored height while fixing its parent does not count separately; the root
 * pointer in struct vma_index is not a node. n = VMAs, h = tree height:
 *   find, find_prev   the nodes on one root-to-leaf path, <= h (find stops at
 *                     the VMA containing addr).
 *   insert            the descent (<= h) + v + the retrace (<= h): the
 *                     1998 table's 2 log2 n worst case.
 *   erase             v, the successor search, the retrace: <= ~2h.
 *   next, prev        v + the nodes walked (1 + O(1) amortized, <= h).
 *   first, last       the nodes on the leftmost / rightmost spine.
 *   gap_top/bottom    one descent + the VMAs walked in order.
 *   check             counts nothing.
 *
 * Locking: none of its own; the caller holds the mm's mmap_lock (read for
 * lookups, write for insert/erase/update).
 */
#include "vma.h"
#include "gap.h"
#include "kerrno.h"
#include "printk.h"

/* The link each VMA carries (vma_link) and the per-index state (struct vma_index.state). */
struct avl_link {
	struct vma *left, *right, *parent;
	int height;
};

struct __attribute__((may_alias)) avl_state {
	struct vma *root;
};
VMA_INDEX_STATE_FITS(struct avl_state);

#define AS(idx)     VMA_INDEX_STATE(idx, struct avl_state)
#define A_LINK(v)   ((struct avl_link *)vma_link(v))
#define A_LEFT(v)   (A_LINK(v)->left)
#define A_RIGHT(v)  (A_LINK(v)->right)
#define A_PARENT(v) (A_LINK(v)->parent)
#define A_HEIGHT(v) (A_LINK(v)->height)

/* LAB index: BEGIN avl_tree */

static inline int avl_h(const struct vma *v)
{
	return v ? A_HEIGHT(v) : 0;
}

static inline void avl_fix_height(struct vma *v)
{
	A_HEIGHT(v) = 1 + MAX(avl_h(A_LEFT(v)), avl_h(A_RIGHT(v)));
}

static void avl_init(struct vma_index *idx)
{
	idx->ops = &vma_avl_ops;
	idx->count = 0;
	idx->accesses = 0;
	idx->lockless = false;
	AS(idx)->root = NULL;
}

static void avl_destroy(struct vma_index *idx)
{
	BUG_ON(idx->count != 0 || AS(idx)->root != NULL);
}

static int avl_reserve(struct vma_index *idx, unsigned nr)
{
	return 0;
}

/* In parent (or the root when parent is NULL), replace child old by new. */
static void avl_replace_child(struct vma_index *idx, struct vma *parent, struct vma *old, struct vma *new)
{
	if (!parent)
		AS(idx)->root = new;
	else if (A_LEFT(parent) == old)
		A_LEFT(parent) = new;
	else
		A_RIGHT(parent) = new;
	if (new)
		A_PARENT(new) = parent;
}

/*
 * Rotate x down to the left: its right child y takes its place. Returns y.
 * y counts as touched (x is the node the caller is at).
 */
static struct vma *avl_rotate_left(struct vma_index *idx, struct vma *x)
{
	struct vma *y = A_RIGHT(x), *b = A_LEFT(y);

	idx->accesses++;
	avl_replace_child(idx, A_PARENT(x), x, y);
	A_RIGHT(x) = b;
	if (b)
		A_PARENT(b) = x;
	A_LEFT(y) = x;
	A_PARENT(x) = y;
	avl_fix_height(x);
	avl_fix_height(y);
	return y;
}

static struct vma *avl_rotate_right(struct vma_index *idx, struct vma *x)
{
	struct vma *y = A_LEFT(x), *b = A_RIGHT(y);

	idx->accesses++;
	avl_replace_child(idx, A_PARENT(x), x, y);
	A_LEFT(x) = b;
	if (b)
		A_PARENT(b) = x;
	A_RIGHT(y) = x;
	A_PARENT(x) = y;
	avl_fix_height(x);
	avl_fix_height(y);
	return y;
}

/*
 * Restore the balance at x (whose subtrees are balanced and differ in height
 * by at most 2) and fix its height. Returns the root of the subtree now in
 * x's place.
 */
static struct vma *avl_rebalance(struct vma_index *idx, struct vma *x)
{
	int bf = avl_h(A_LEFT(x)) - avl_h(A_RIGHT(x));

	if (bf > 1) {
		struct vma *l = A_LEFT(x);
		if (avl_h(A_LEFT(l)) < avl_h(A_RIGHT(l)))
			avl_rotate_left(idx, l);
		return avl_rotate_right(idx, x);
	}
	if (bf < -1) {
		struct vma *r = A_RIGHT(x);
		if (avl_h(A_RIGHT(r)) < avl_h(A_LEFT(r)))
			avl_rotate_right(idx, r);
		return avl_rotate_left(idx, x);
	}
	avl_fix_height(x);
	return x;
}

/*
 * Walk from x toward the root, rebalancing, until a subtree keeps the height
 * it had (its stored height before the fix). x may be NULL (nothing to do).
 */
static void avl_retrace(struct vma_index *idx, struct vma *x)
{
	while (x) {
		int old = A_HEIGHT(x);

		idx->accesses++;
		x = avl_rebalance(idx, x);
		if (A_HEIGHT(x) == old)
			break;
		x = A_PARENT(x);
	}
}

/* One descent: the first VMA with end > addr, and (if prev) the last with end <= addr. */
static struct vma *avl_descend(struct vma_index *idx, uintptr_t addr, struct vma **prev)
{
	struct vma *x = AS(idx)->root, *found = NULL, *below = NULL;

	while (x) {
		idx->accesses++;
		if (x->end > addr) {
			found = x;
			if (!prev && x->start <= addr)
				break;            /* contains addr: nothing lower can end above addr */
			x = A_LEFT(x);
		} else {
			below = x;
			x = A_RIGHT(x);
		}
	}
	if (prev)
		*prev = below;
	return found;
}

static struct vma *avl_find(struct vma_index *idx, uintptr_t addr)
{
	return avl_descend(idx, addr, NULL);
}

static struct vma *avl_find_prev(struct vma_index *idx, uintptr_t addr, struct vma **prev)
{
	return avl_descend(idx, addr, prev);
}

/* Link v as a leaf by a descent from the root, then rebalance. Does not touch count. */
static void avl_link(struct vma_index *idx, struct vma *v)
{
	struct vma **link = &AS(idx)->root, *parent = NULL;

	while (*link) {
		parent = *link;
		idx->accesses++;
		link = v->start < parent->start ? &A_LEFT(parent) : &A_RIGHT(parent);
	}
	idx->accesses++;                                 /* v */
	A_LEFT(v) = A_RIGHT(v) = NULL;
	A_PARENT(v) = parent;
	A_HEIGHT(v) = 1;
	*link = v;
	avl_retrace(idx, parent);
}

/* Unlink v and rebalance. Does not touch count. */
static void avl_unlink(struct vma_index *idx, struct vma *v)
{
	struct vma *parent = A_PARENT(v), *l = A_LEFT(v), *r = A_RIGHT(v), *fix;

	idx->accesses++;                                 /* v */
	if (!l || !r) {
		avl_replace_child(idx, parent, v, l ? l : r);
		fix = parent;
	} else {
		/* Two children: the successor s (leftmost of r) takes v's place. */
		struct vma *s = r;

		idx->accesses++;
		while (A_LEFT(s)) {
			s = A_LEFT(s);
			idx->accesses++;
		}
		if (s == r) {
			fix = s;                         /* s keeps its right subtree */
		} else {
			struct vma *sp = A_PARENT(s), *sr = A_RIGHT(s);

			A_LEFT(sp) = sr;
			if (sr)
				A_PARENT(sr) = sp;
			A_RIGHT(s) = r;
			A_PARENT(r) = s;
			fix = sp;
		}
		A_LEFT(s) = l;
		A_PARENT(l) = s;
		A_HEIGHT(s) = A_HEIGHT(v);
		avl_replace_child(idx, parent, v, s);
	}
	A_LEFT(v) = A_RIGHT(v) = A_PARENT(v) = NULL;
	avl_retrace(idx, fix);
}

static void avl_insert(struct vma_index *idx, struct vma *v)
{
	avl_link(idx, v);
	idx->count++;
}

static void avl_erase(struct vma_index *idx, struct vma *v)
{
	avl_unlink(idx, v);
	idx->count--;
}

/* In-order successor / predecessor through parent pointers; v is not counted here. */
static struct vma *avl_succ(struct vma_index *idx, struct vma *v)
{
	struct vma *x = A_RIGHT(v), *p;

	if (x) {
		idx->accesses++;
		while (A_LEFT(x)) {
			x = A_LEFT(x);
			idx->accesses++;
		}
		return x;
	}
	x = v;
	for (p = A_PARENT(x); p; x = p, p = A_PARENT(p)) {
		idx->accesses++;
		if (A_LEFT(p) == x)
			return p;
	}
	return NULL;
}

static struct vma *avl_pred(struct vma_index *idx, struct vma *v)
{
	struct vma *x = A_LEFT(v), *p;

	if (x) {
		idx->accesses++;
		while (A_RIGHT(x)) {
			x = A_RIGHT(x);
			idx->accesses++;
		}
		return x;
	}
	x = v;
	for (p = A_PARENT(x); p; x = p, p = A_PARENT(p)) {
		idx->accesses++;
		if (A_RIGHT(p) == x)
			return p;
	}
	return NULL;
}

static struct vma *avl_next(struct vma_index *idx, struct vma *v)
{
	idx->accesses++;
	return avl_succ(idx, v);
}

static struct vma *avl_prev(struct vma_index *idx, struct vma *v)
{
	idx->accesses++;
	return avl_pred(idx, v);
}

/*
 * Update v's bounds. When the new range intersects the old one v keeps its
 * place (its neighbours end below / start above both ranges, as the list
 * backend argues); otherwise its neighbours decide, and v moves by erase +
 * insert if the order changed.
 */
static void avl_update(struct vma_index *idx, struct vma *v, uintptr_t start, uintptr_t end)
{
	bool in_place = true;

	idx->accesses++;
	if (!(start < v->end && v->start < end)) {
		struct vma *p = avl_pred(idx, v), *n;

		if (p && p->end > start)
			in_place = false;
		if (in_place) {
			n = avl_succ(idx, v);
			if (n && n->start < end)
				in_place = false;
		}
	}
	if (in_place) {
		v->start = start;
		v->end = end;
		return;
	}
	avl_unlink(idx, v);
	v->start = start;
	v->end = end;
	avl_link(idx, v);
}

static struct vma *avl_first(struct vma_index *idx)
{
	struct vma *x = AS(idx)->root;

	if (!x)
		return NULL;
	idx->accesses++;
	while (A_LEFT(x)) {
		x = A_LEFT(x);
		idx->accesses++;
	}
	return x;
}

static struct vma *avl_last(struct vma_index *idx)
{
	struct vma *x = AS(idx)->root;

	if (!x)
		return NULL;
	idx->accesses++;
	while (A_RIGHT(x)) {
		x = A_RIGHT(x);
		idx->accesses++;
	}
	return x;
}

/*
 * Top-down: w = the last VMA starting below high (one descent); the free
 * range above it reaches up to its successor's start, or to high. Then walk
 * down through predecessors, each gap [w->end, hi) clipped to [low, high),
 * until what is left below hi cannot hold len.
 */
static int avl_gap_top(struct vma_index *idx, uintptr_t len, uintptr_t align,
		       uintptr_t low, uintptr_t high, uintptr_t *out)
{
	struct vma *x = AS(idx)->root, *w = NULL, *above = NULL;
	uintptr_t hi;

	if (len == 0 || high <= low || high - low < len)
		return -ENOMEM;
	while (x) {
		idx->accesses++;
		if (x->start < high) {
			w = x;
			x = A_RIGHT(x);
		} else {
			above = x;
			x = A_LEFT(x);
		}
	}
	hi = above ? MIN(above->start, high) : high;
	for (; w; w = avl_pred(idx, w)) {
		if (vma_gap_fit_top(w->end, hi, len, align, low, high, out))
			return 0;
		hi = w->start;
		if (hi <= low || hi - low < len)
			return -ENOMEM;
	}
	return vma_gap_fit_top(0, hi, len, align, low, high, out) ? 0 : -ENOMEM;
}

/*
 * Bottom-up: one descent finds the VMA w ending above low and the one before
 * it; then walk up through successors, gap [lo, w->start) each time.
 */
static int avl_gap_bottom(struct vma_index *idx, uintptr_t len, uintptr_t align,
			  uintptr_t low, uintptr_t high, uintptr_t *out)
{
	struct vma *w, *below;
	uintptr_t lo;

	if (len == 0 || high <= low || high - low < len)
		return -ENOMEM;
	w = avl_descend(idx, low, &below);
	lo = below ? MAX(below->end, low) : low;
	for (; w; w = avl_succ(idx, w)) {
		if (vma_gap_fit_bottom(lo, w->start, len, align, low, high, out))
			return 0;
		lo = w->end;
		if (lo >= high || high - lo < len)
			return -ENOMEM;
	}
	return vma_gap_fit_bottom(lo, high, len, align, low, high, out) ? 0 : -ENOMEM;
}

struct avl_check_state {
	struct vma_index *idx;
	size_t nodes;
	const struct vma *prev;       /* last node in address order so far */
	int err;
};

#define AVL_CHECK_MAX_DEPTH 128

/* Check the subtree at x (parent p); returns its height, or -1 after printing an error. */
static int avl_check_node(struct avl_check_state *st, const struct vma *x, const struct vma *p, int depth)
{
	int hl, hr;

	if (!x)
		return 0;
	if (depth > AVL_CHECK_MAX_DEPTH || ++st->nodes > st->idx->count) {
		printk("vma avl: more than count=%zu nodes or depth > %d (cycle?)\n",
		       st->idx->count, AVL_CHECK_MAX_DEPTH);
		return -1;
	}
	if (A_PARENT(x) != p) {
		printk("vma avl: node [%#lx,%#lx) parent %p, expected %p\n",
		       (unsigned long)x->start, (unsigned long)x->end, A_PARENT(x), p);
		return -1;
	}
	hl = avl_check_node(st, A_LEFT(x), x, depth + 1);
	if (hl < 0)
		return -1;
	if (x->start >= x->end || !IS_ALIGNED(x->start, PAGE_SIZE) || !IS_ALIGNED(x->end, PAGE_SIZE)) {
		printk("vma avl: bad range [%#lx,%#lx)\n", (unsigned long)x->start, (unsigned long)x->end);
		return -1;
	}
	if (st->prev && st->prev->end > x->start) {
		printk("vma avl: [%#lx,%#lx) then [%#lx,%#lx) in order: unsorted or overlapping\n",
		       (unsigned long)st->prev->start, (unsigned long)st->prev->end,
		       (unsigned long)x->start, (unsigned long)x->end);
		return -1;
	}
	st->prev = x;
	hr = avl_check_node(st, A_RIGHT(x), x, depth + 1);
	if (hr < 0)
		return -1;
	if (hl - hr > 1 || hr - hl > 1) {
		printk("vma avl: node [%#lx,%#lx) unbalanced: left height %d, right %d\n",
		       (unsigned long)x->start, (unsigned long)x->end, hl, hr);
		return -1;
	}
	if (A_HEIGHT(x) != 1 + MAX(hl, hr)) {
		printk("vma avl: node [%#lx,%#lx) stores height %d, actual %d\n",
		       (unsigned long)x->start, (unsigned long)x->end, A_HEIGHT(x), 1 + MAX(hl, hr));
		return -1;
	}
	return A_HEIGHT(x);
}

/*
 * Invariants: parent pointers (the root's NULL); in-order traversal sorted
 * and non-overlapping with page-aligned, non-empty ranges (so BST order by
 * start holds); each node's stored height is 1 + the larger child height
 * and the two differ by at most 1; as many nodes as idx->count.
 */
static int avl_check(struct vma_index *idx)
{
	struct avl_check_state st = { idx, 0, NULL, 0 };

	if (avl_check_node(&st, AS(idx)->root, NULL, 0) < 0)
		return -EINVAL;
	if (st.nodes != idx->count) {
		printk("vma avl: %zu nodes, count %zu\n", st.nodes, idx->count);
		return -EINVAL;
	}
	return 0;
}

static size_t avl_bytes(struct vma_index *idx)
{
	return 0;
}
/* LAB index: END avl_tree */

/* The "avl" backend (see the note at the top); select it with vma=avl or vma_backend_by_name("avl"). */
const struct vma_index_ops vma_avl_ops = {
	.name = "avl",
	.link_size = sizeof(struct avl_link),
	.init = avl_init,
	.destroy = avl_destroy,
	.find = avl_find,
	.find_prev = avl_find_prev,
	.reserve = avl_reserve,
	.insert = avl_insert,
	.erase = avl_erase,
	.update = avl_update,
	.next = avl_next,
	.prev = avl_prev,
	.first = avl_first,
	.last = avl_last,
	.gap_top = avl_gap_top,
	.gap_bottom = avl_gap_bottom,
	.check = avl_check,
	.bytes = avl_bytes,
};
