/*
 * VMA index backend "rbtree": a red-black tree of VMAs keyed by start,
 * augmented with the largest free gap in each subtree, as Linux 2.4.10-6.0
 * kept mm->mm_rb with rb_subtree_gap, so that free-area search is O(log n).
 *
 * Design:
 *   - Intrusive: each VMA is a node (its link, struct rb_link after the
 *     VMA: left/right/parent, color 0 red 1 black, subtree_gap; 40 bytes);
 *     nothing outside the VMAs, so reserve() is a no-op and bytes() is 0.
 *   - The gap annotation. For a subtree T with VMAs v1 < ... < vk in address
 *     order, let P = the end of the VMA just below v1 (0 if there is none)
 *     and S = the start of the VMA just above vk (if there is none, S = the
 *     end of vk: the space above the last VMA is not part of any annotation;
 *     the searches handle it separately, as Linux did with highest_vm_end).
 *     subtree_gap of T's root = the largest of the free gaps
 *     v1.start - P, v2.start - v1.end, ..., S - vk.end.
 *     Equivalently every free gap between address-consecutive VMAs (and the
 *     one below the first VMA) is owned by exactly one node: of the two VMAs
 *     bounding it, the one lower in the tree (the other is its ancestor),
 *     which has no child on that side. So
 *         gap(x) = max(left ? gap(left) : x.start - P_x,
 *                       right ? gap(right) : S_x - x.end)
 *     where P_x / S_x, needed only beside a missing child, are the end of x's
 *     in-order predecessor / the start of its successor, both ancestors.
 *     Why not Linux's "gap between a VMA and its predecessor"? Linux read the
 *     predecessor through vm_prev in O(1); rb_link has no such pointer, and
 *     finding a predecessor costs O(log n) for any node with a left child.
 *     With this definition the neighbours are only needed beside a missing
 *     child, i.e. at nodes of black height <= 1 (a constant number on any
 *     root path; found by a walk up the parent pointers, counted), and in a
 *     search they come for free on the way down (the subtree's bounds).
 *   - A rotation keeps the set of VMAs under the rotated pair and its
 *     bounds P and S, so the node rising takes the old top's annotation and
 *     only the node going down is recomputed.
 *   - Insert: descend, link a red leaf, recompute its parent and propagate
 *     up until a value stops changing, then the usual red-black fix-up with
 *     rotations. Erase: a node with two children is replaced by its in-order
 *     successor (relinked); the subtree whose bound moved (the right spine of
 *     the left subtree, or the left spine of the replacing child) is
 *     recomputed bottom-up, then the path to the root; then the red-black
 *     delete fix-up. Update: bounds change in place when the order holds
 *     (same spines + path), else erase + insert.
 *   - gap_top/gap_bottom: a depth-first search from the root, high side
 *     (low side) first, carrying each subtree's bounds P and S; a subtree is
 *     skipped when its annotation is below len or its span cannot hold
 *     [a, a+len) inside [low, high). With page alignment a subtree inside
 *     the bounds whose annotation reaches len always holds an answer, so the
 *     search is O(log n). With a larger alignment a gap >= len may still not
 *     fit; such subtrees are searched further (in address order), which stays
 *     correct and degrades gracefully. The search recurses into the
 *     preferred child and loops into the other: one small stack frame
 *     (~64 bytes on x86-64) per tree level at most.
 *
 * Cost, in idx->accesses: a node counts once each time an operation moves
 * to it (descent, ascent through a parent pointer, a walk to a neighbour, a
 * rotation partner); reading a child's stored annotation while recomputing
 * its parent does not count separately. Roughly, h = height <= 2 log2(n+1):
 *   find, find_prev   one root-to-leaf path, <= h.
 *   insert            descent + v + propagation (stops early) + fix-up.
 *   erase             v + successor search + spine + path to the root.
 *   update            v + its neighbours + spines + propagation.
 *   next, prev        v + the nodes walked. first, last: the spine.
 *   gap_top/bottom    the nodes the search enters: O(h) with page alignment.
 *   check             counts nothing.
 *
 * Locking: none of its own; the caller holds the mm's mmap_lock.
 */
#include "vma.h"
#include "kerrno.h"
#include "printk.h"

/* The link each VMA carries (vma_link) and the per-index state (struct vma_index.state). */
struct rb_link {
	struct vma *left, *right, *parent;
	int color;                    /* RB_RED or RB_BLACK */
	uintptr_t subtree_gap;        /* largest free gap below this node (see above) */
};

struct __attribute__((may_alias)) rb_state {
	struct vma *root;
};
VMA_INDEX_STATE_FITS(struct rb_state);

#define RS(idx)     VMA_INDEX_STATE(idx, struct rb_state)
#define R_LINK(v)   ((struct rb_link *)vma_link(v))
#define R_LEFT(v)   (R_LINK(v)->left)
#define R_RIGHT(v)  (R_LINK(v)->right)
#define R_PARENT(v) (R_LINK(v)->parent)
#define R_COLOR(v)  (R_LINK(v)->color)
#define R_GAP(v)    (R_LINK(v)->subtree_gap)

#define RB_RED   0
#define RB_BLACK 1

static inline bool rb_is_red(const struct vma *v)
{
	return v && R_COLOR(v) == RB_RED;
}

static inline bool rb_is_black(const struct vma *v)
{
	return !rb_is_red(v);
}

static void rb_init(struct vma_index *idx)
{
	idx->ops = &vma_rbtree_ops;
	idx->count = 0;
	idx->accesses = 0;
	idx->lockless = false;
	RS(idx)->root = NULL;
}

static void rb_destroy(struct vma_index *idx)
{
	BUG_ON(idx->count != 0 || RS(idx)->root != NULL);
}

static int rb_reserve(struct vma_index *idx, unsigned nr)
{
	return 0;
}

/*
 * P_x: the end of x's in-order predecessor when x has no left child (the
 * nearest ancestor whose right subtree holds x), or 0 when x is the first.
 * Counts the ancestors walked.
 */
static uintptr_t rb_lower_bound(struct vma_index *idx, const struct vma *x)
{
	const struct vma *c = x, *p;

	for (p = R_PARENT(c); p; c = p, p = R_PARENT(p)) {
		idx->accesses++;
		if (R_RIGHT(p) == c)
			return p->end;
	}
	return 0;
}

/* S_x - x.end when x has no right child: the gap up to the successor, 0 if x is the last. */
static uintptr_t rb_upper_gap(struct vma_index *idx, const struct vma *x)
{
	const struct vma *c = x, *p;

	for (p = R_PARENT(c); p; c = p, p = R_PARENT(p)) {
		idx->accesses++;
		if (R_LEFT(p) == c)
			return p->start - x->end;
	}
	return 0;
}

/* The annotation x should have, from its children's (see the design note). */
static uintptr_t rb_compute_gap(struct vma_index *idx, const struct vma *x)
{
	uintptr_t l, r;

	l = R_LEFT(x) ? R_GAP(R_LEFT(x)) : x->start - rb_lower_bound(idx, x);
	r = R_RIGHT(x) ? R_GAP(R_RIGHT(x)) : rb_upper_gap(idx, x);
	return MAX(l, r);
}

/*
 * Recompute the annotations from x up to the root. Stops at the first node
 * whose value does not change, but only once `until` (a node whose children
 * changed, or NULL) has been recomputed. x is counted.
 */
static void rb_propagate(struct vma_index *idx, struct vma *x, const struct vma *until)
{
	while (x) {
		uintptr_t g;

		idx->accesses++;
		g = rb_compute_gap(idx, x);
		if (x == until)
			until = NULL;
		if (g == R_GAP(x) && !until)
			break;
		R_GAP(x) = g;
		x = R_PARENT(x);
	}
}

/*
 * Recompute the spine of top going left (or right) bottom-up: every node on
 * it has a bound that just moved. Counts the way down and the way back up.
 */
static void rb_fix_spine(struct vma_index *idx, struct vma *top, bool left)
{
	struct vma *x = top;

	idx->accesses++;
	while (left ? R_LEFT(x) : R_RIGHT(x)) {
		x = left ? R_LEFT(x) : R_RIGHT(x);
		idx->accesses++;
	}
	for (;;) {
		R_GAP(x) = rb_compute_gap(idx, x);
		if (x == top)
			break;
		x = R_PARENT(x);
		idx->accesses++;
	}
}

static void rb_replace_child(struct vma_index *idx, struct vma *parent, struct vma *old, struct vma *new)
{
	if (!parent)
		RS(idx)->root = new;
	else if (R_LEFT(parent) == old)
		R_LEFT(parent) = new;
	else
		R_RIGHT(parent) = new;
	if (new)
		R_PARENT(new) = parent;
}

/*
 * Rotate x down to the left (its right child y rises). The pair's VMAs and
 * bounds are unchanged, so y takes x's annotation and x is recomputed.
 */
static void rb_rotate_left(struct vma_index *idx, struct vma *x)
{
	struct vma *y = R_RIGHT(x), *b = R_LEFT(y);

	idx->accesses++;
	rb_replace_child(idx, R_PARENT(x), x, y);
	R_RIGHT(x) = b;
	if (b)
		R_PARENT(b) = x;
	R_LEFT(y) = x;
	R_PARENT(x) = y;
	R_GAP(y) = R_GAP(x);
	R_GAP(x) = rb_compute_gap(idx, x);
}

static void rb_rotate_right(struct vma_index *idx, struct vma *x)
{
	struct vma *y = R_LEFT(x), *b = R_RIGHT(y);

	idx->accesses++;
	rb_replace_child(idx, R_PARENT(x), x, y);
	R_LEFT(x) = b;
	if (b)
		R_PARENT(b) = x;
	R_RIGHT(y) = x;
	R_PARENT(x) = y;
	R_GAP(y) = R_GAP(x);
	R_GAP(x) = rb_compute_gap(idx, x);
}

/* One descent: the first VMA with end > addr, and (if prev) the last with end <= addr. */
static struct vma *rb_descend(struct vma_index *idx, uintptr_t addr, struct vma **prev)
{
	struct vma *x = RS(idx)->root, *found = NULL, *below = NULL;

	while (x) {
		idx->accesses++;
		if (x->end > addr) {
			found = x;
			if (!prev && x->start <= addr)
				break;
			x = R_LEFT(x);
		} else {
			below = x;
			x = R_RIGHT(x);
		}
	}
	if (prev)
		*prev = below;
	return found;
}

static struct vma *rb_find(struct vma_index *idx, uintptr_t addr)
{
	return rb_descend(idx, addr, NULL);
}

static struct vma *rb_find_prev(struct vma_index *idx, uintptr_t addr, struct vma **prev)
{
	return rb_descend(idx, addr, prev);
}

/* Red-black insert fix-up from the red node v. */
static void rb_insert_fixup(struct vma_index *idx, struct vma *v)
{
	struct vma *p, *g, *u;

	while ((p = R_PARENT(v)) && rb_is_red(p)) {
		g = R_PARENT(p);                 /* exists: a red node is not the root */
		if (p == R_LEFT(g)) {
			u = R_RIGHT(g);
			if (u)
				idx->accesses++;
			if (rb_is_red(u)) {
				R_COLOR(p) = RB_BLACK;
				R_COLOR(u) = RB_BLACK;
				R_COLOR(g) = RB_RED;
				v = g;
				continue;
			}
			if (v == R_RIGHT(p)) {
				rb_rotate_left(idx, p);
				v = p;
				p = R_PARENT(v);
			}
			R_COLOR(p) = RB_BLACK;
			R_COLOR(g) = RB_RED;
			rb_rotate_right(idx, g);
		} else {
			u = R_LEFT(g);
			if (u)
				idx->accesses++;
			if (rb_is_red(u)) {
				R_COLOR(p) = RB_BLACK;
				R_COLOR(u) = RB_BLACK;
				R_COLOR(g) = RB_RED;
				v = g;
				continue;
			}
			if (v == R_LEFT(p)) {
				rb_rotate_right(idx, p);
				v = p;
				p = R_PARENT(v);
			}
			R_COLOR(p) = RB_BLACK;
			R_COLOR(g) = RB_RED;
			rb_rotate_left(idx, g);
		}
	}
	R_COLOR(RS(idx)->root) = RB_BLACK;
}

/* Link v by a descent from the root, fix annotations and colours. Does not touch count. */
static void rb_link(struct vma_index *idx, struct vma *v)
{
	struct vma **link = &RS(idx)->root, *parent = NULL, *pred = NULL, *succ = NULL;

	while (*link) {
		parent = *link;
		idx->accesses++;
		if (v->start < parent->start) {
			succ = parent;
			link = &R_LEFT(parent);
		} else {
			pred = parent;
			link = &R_RIGHT(parent);
		}
	}
	idx->accesses++;                                 /* v */
	R_LEFT(v) = R_RIGHT(v) = NULL;
	R_PARENT(v) = parent;
	R_COLOR(v) = RB_RED;
	*link = v;
	/* A leaf owns the gaps on both sides; its neighbours are known from the descent. */
	R_GAP(v) = MAX(v->start - (pred ? pred->end : 0), succ ? succ->start - v->end : 0);
	/* The parent gave up the gap on v's side: recompute it and upward. */
	rb_propagate(idx, parent, parent);
	rb_insert_fixup(idx, v);
}

/* v's child on side right (true) or left (false). */
static inline struct vma *rb_child(const struct vma *v, bool right)
{
	return right ? R_RIGHT(v) : R_LEFT(v);
}

/* Rotate x down to the left (its right child rises) or down to the right. */
static void rb_rotate(struct vma_index *idx, struct vma *x, bool left)
{
	if (left)
		rb_rotate_left(idx, x);
	else
		rb_rotate_right(idx, x);
}

/*
 * One step of the delete fix-up for x, the child of *xp on side x_right,
 * carrying an extra black; the two sides are mirror images, so "near" is
 * x's side and "far" the other. Either moves the extra black one level up
 * (*x, *xp become *xp and its parent) or ends the fix-up (*x = the root).
 */
static void rb_erase_fixup_step(struct vma_index *idx, struct vma **x, struct vma **xp, bool x_right)
{
	bool near = x_right, far = !x_right;
	struct vma *p = *xp;
	struct vma *w = rb_child(p, far);               /* not NULL: x's side is a black short */

	idx->accesses++;
	if (rb_is_red(w)) {
		R_COLOR(w) = RB_BLACK;
		R_COLOR(p) = RB_RED;
		rb_rotate(idx, p, !x_right);
		w = rb_child(p, far);
		idx->accesses++;
	}
	if (rb_is_black(R_LEFT(w)) && rb_is_black(R_RIGHT(w))) {
		R_COLOR(w) = RB_RED;
		*x = p;
		*xp = R_PARENT(p);
		return;
	}
	if (rb_is_black(rb_child(w, far))) {
		R_COLOR(rb_child(w, near)) = RB_BLACK;
		R_COLOR(w) = RB_RED;
		rb_rotate(idx, w, x_right);
		w = rb_child(p, far);
	}
	R_COLOR(w) = R_COLOR(p);
	R_COLOR(p) = RB_BLACK;
	R_COLOR(rb_child(w, far)) = RB_BLACK;
	rb_rotate(idx, p, !x_right);
	*x = RS(idx)->root;
}

/* Red-black delete fix-up: x (maybe NULL) under xp carries an extra black. */
static void rb_erase_fixup(struct vma_index *idx, struct vma *x, struct vma *xp)
{
	while (x != RS(idx)->root && rb_is_black(x))
		rb_erase_fixup_step(idx, &x, &xp, x != R_LEFT(xp));
	if (x)
		R_COLOR(x) = RB_BLACK;
}

/* Unlink v, fix annotations and colours. Does not touch count. */
static void rb_unlink(struct vma_index *idx, struct vma *v)
{
	struct vma *parent = R_PARENT(v), *l = R_LEFT(v), *r = R_RIGHT(v), *x, *xp;
	int color;

	idx->accesses++;                                 /* v */
	if (!l || !r) {
		x = l ? l : r;
		xp = parent;
		color = R_COLOR(v);
		rb_replace_child(idx, parent, v, x);
		/*
		 * The gap below v and the one above it merge. If v had a child,
		 * that subtree's bound on v's side moved: recompute its spine
		 * facing v. Then the path from v's parent up.
		 */
		if (x)
			rb_fix_spine(idx, x, x == r);
		rb_propagate(idx, parent, parent);
	} else {
		/* Two children: the successor s (leftmost of r) takes v's place and colour. */
		struct vma *s = r;

		idx->accesses++;
		while (R_LEFT(s)) {
			s = R_LEFT(s);
			idx->accesses++;
		}
		color = R_COLOR(s);
		x = R_RIGHT(s);
		if (s == r) {
			xp = s;
		} else {
			xp = R_PARENT(s);
			R_LEFT(xp) = x;
			if (x)
				R_PARENT(x) = xp;
			R_RIGHT(s) = r;
			R_PARENT(r) = s;
		}
		R_LEFT(s) = l;
		R_PARENT(l) = s;
		R_COLOR(s) = R_COLOR(v);
		rb_replace_child(idx, parent, v, s);
		/*
		 * l's upper bound moved from v.start to s.start: its right spine.
		 * Below s's old place nothing else moved (s.right keeps s as its
		 * lower bound); recompute from there up through s to the root.
		 */
		rb_fix_spine(idx, l, false);
		rb_propagate(idx, xp, s);
	}
	R_LEFT(v) = R_RIGHT(v) = R_PARENT(v) = NULL;
	if (color == RB_BLACK)
		rb_erase_fixup(idx, x, xp);
}

static void rb_insert(struct vma_index *idx, struct vma *v)
{
	rb_link(idx, v);
	idx->count++;
}

static void rb_erase(struct vma_index *idx, struct vma *v)
{
	rb_unlink(idx, v);
	idx->count--;
}

/*
 * v's in-order neighbour on side right (true: the successor) or left, through
 * parent pointers; v is not counted here. The two directions mirror each
 * other, so one walk serves both.
 */
static struct vma *rb_neighbour(struct vma_index *idx, struct vma *v, bool right)
{
	struct vma *x = rb_child(v, right), *p;

	if (x) {
		idx->accesses++;
		while (rb_child(x, !right)) {
			x = rb_child(x, !right);
			idx->accesses++;
		}
		return x;
	}
	x = v;
	for (p = R_PARENT(x); p; x = p, p = R_PARENT(p)) {
		idx->accesses++;
		if (rb_child(p, !right) == x)
			return p;
	}
	return NULL;
}

static struct vma *rb_succ(struct vma_index *idx, struct vma *v)
{
	return rb_neighbour(idx, v, true);
}

static struct vma *rb_pred(struct vma_index *idx, struct vma *v)
{
	return rb_neighbour(idx, v, false);
}

static struct vma *rb_next(struct vma_index *idx, struct vma *v)
{
	idx->accesses++;
	return rb_succ(idx, v);
}

static struct vma *rb_prev(struct vma_index *idx, struct vma *v)
{
	idx->accesses++;
	return rb_pred(idx, v);
}

/*
 * Update v's bounds. If the order among the neighbours still holds, change
 * them in place: the gap below v lives at v (no left child) or at the
 * bottom of the left subtree's right spine, whose upper bound is v.start;
 * the gap above v symmetrically; recompute those spines, then v and up.
 * Otherwise erase and insert again.
 */
static void rb_update(struct vma_index *idx, struct vma *v, uintptr_t start, uintptr_t end)
{
	bool in_place = true;

	idx->accesses++;
	if (!(start < v->end && v->start < end)) {
		struct vma *p = rb_pred(idx, v), *n;

		if (p && p->end > start)
			in_place = false;
		if (in_place) {
			n = rb_succ(idx, v);
			if (n && n->start < end)
				in_place = false;
		}
	}
	if (!in_place) {
		rb_unlink(idx, v);
		v->start = start;
		v->end = end;
		rb_link(idx, v);
		return;
	}
	if (start != v->start && R_LEFT(v)) {
		v->start = start;
		rb_fix_spine(idx, R_LEFT(v), false);
	}
	v->start = start;
	if (end != v->end && R_RIGHT(v)) {
		v->end = end;
		rb_fix_spine(idx, R_RIGHT(v), true);
	}
	v->end = end;
	rb_propagate(idx, v, v);
}

static struct vma *rb_first(struct vma_index *idx)
{
	struct vma *x = RS(idx)->root;

	if (!x)
		return NULL;
	idx->accesses++;
	while (R_LEFT(x)) {
		x = R_LEFT(x);
		idx->accesses++;
	}
	return x;
}

static struct vma *rb_last(struct vma_index *idx)
{
	struct vma *x = RS(idx)->root;

	if (!x)
		return NULL;
	idx->accesses++;
	while (R_RIGHT(x)) {
		x = R_RIGHT(x);
		idx->accesses++;
	}
	return x;
}

/* What a gap search looks for. */
struct rb_gap_req {
	struct vma_index *idx;
	uintptr_t len, align, low, high;
	bool top;                     /* highest (gap_top) or lowest (gap_bottom) */
	uintptr_t *out;
};

/*
 * The free range [gs, ge) (ge_inf: up to the top of the address space)
 * clipped to [low, high): can it hold [a, a + len), and where (highest or
 * lowest aligned a)?
 */
static bool rb_fit(const struct rb_gap_req *q, uintptr_t gs, uintptr_t ge, bool ge_inf)
{
	uintptr_t lo = MAX(gs, q->low), hi = ge_inf ? q->high : MIN(ge, q->high), a;

	if (hi <= lo || hi - lo < q->len)
		return false;
	if (q->top) {
		a = ALIGN_DOWN(hi - q->len, q->align);
		if (a < lo)
			return false;
	} else {
		a = ALIGN_UP(lo, q->align);
		if (a < lo || a > hi - q->len)   /* a < lo: the round-up wrapped */
			return false;
	}
	*q->out = a;
	return true;
}

/*
 * Search the subtree x whose free gaps lie in [P, S) (S_none: x holds the
 * last VMA, and [its end, top) belongs to the search too, not to the
 * annotation). High side first for gap_top, low side first for gap_bottom:
 * the preferred child is searched by recursion, the other one by looping,
 * so the recursion is at most one level per tree level.
 */
static bool rb_gap_search(const struct rb_gap_req *q, const struct vma *x,
			  uintptr_t P, uintptr_t S, bool S_none)
{
	uintptr_t lo, hi;

	for (;;) {
		if (!x)
			return rb_fit(q, P, S, S_none);
		/* [P, S) clipped to [low, high) cannot hold len: nothing here can. */
		lo = MAX(P, q->low);
		hi = S_none ? q->high : MIN(S, q->high);
		if (hi <= lo || hi - lo < q->len)
			return false;
		q->idx->accesses++;
		if (R_GAP(x) < q->len) {
			if (!S_none)
				return false;    /* no gap of the subtree is long enough */
			/* Only the space above the last VMA can help: go straight to it. */
			P = x->end;
			x = R_RIGHT(x);
			continue;
		}
		if (q->top) {
			if (rb_gap_search(q, R_RIGHT(x), x->end, S, S_none))
				return true;
			S = x->start;
			S_none = false;
			x = R_LEFT(x);
		} else {
			if (rb_gap_search(q, R_LEFT(x), P, x->start, false))
				return true;
			P = x->end;
			x = R_RIGHT(x);
		}
	}
}

static int rb_gap(struct vma_index *idx, bool top, uintptr_t len, uintptr_t align,
		  uintptr_t low, uintptr_t high, uintptr_t *out)
{
	struct rb_gap_req q = { idx, len, align, low, high, top, out };

	if (len == 0 || high <= low || high - low < len)
		return -ENOMEM;
	return rb_gap_search(&q, RS(idx)->root, 0, 0, true) ? 0 : -ENOMEM;
}

static int rb_gap_top(struct vma_index *idx, uintptr_t len, uintptr_t align,
		      uintptr_t low, uintptr_t high, uintptr_t *out)
{
	return rb_gap(idx, true, len, align, low, high, out);
}

static int rb_gap_bottom(struct vma_index *idx, uintptr_t len, uintptr_t align,
			 uintptr_t low, uintptr_t high, uintptr_t *out)
{
	return rb_gap(idx, false, len, align, low, high, out);
}

struct rb_check_state {
	struct vma_index *idx;
	size_t nodes;
	const struct vma *prev;       /* last node in address order so far */
};

#define RB_CHECK_MAX_DEPTH 160

/* x's own links: parent pointer p, a valid colour, no red child under a red x. */
static int rb_check_links(const struct vma *x, const struct vma *p)
{
	if (R_PARENT(x) != p) {
		printk("vma rbtree: node [%#lx,%#lx) parent %p, expected %p\n",
		       (unsigned long)x->start, (unsigned long)x->end, R_PARENT(x), p);
		return -1;
	}
	if (R_COLOR(x) != RB_RED && R_COLOR(x) != RB_BLACK) {
		printk("vma rbtree: node [%#lx,%#lx) colour %d\n",
		       (unsigned long)x->start, (unsigned long)x->end, R_COLOR(x));
		return -1;
	}
	if (rb_is_red(x) && (rb_is_red(R_LEFT(x)) || rb_is_red(R_RIGHT(x)))) {
		printk("vma rbtree: red node [%#lx,%#lx) has a red child\n",
		       (unsigned long)x->start, (unsigned long)x->end);
		return -1;
	}
	return 0;
}

/* x, reached in address order: a page-aligned non-empty range above st->prev. */
static int rb_check_in_order(const struct rb_check_state *st, const struct vma *x)
{
	if (x->start >= x->end || !IS_ALIGNED(x->start, PAGE_SIZE) || !IS_ALIGNED(x->end, PAGE_SIZE)) {
		printk("vma rbtree: bad range [%#lx,%#lx)\n", (unsigned long)x->start, (unsigned long)x->end);
		return -1;
	}
	if (st->prev && st->prev->end > x->start) {
		printk("vma rbtree: [%#lx,%#lx) then [%#lx,%#lx) in order: unsorted or overlapping\n",
		       (unsigned long)st->prev->start, (unsigned long)st->prev->end,
		       (unsigned long)x->start, (unsigned long)x->end);
		return -1;
	}
	return 0;
}

/*
 * Check the subtree x under p, whose successor starts at S (S_none: x holds
 * the last VMA). Returns its black height (NULL: 0), or -1 after printing;
 * *gap = its annotation recomputed from scratch.
 */
static int rb_check_node(struct rb_check_state *st, const struct vma *x, const struct vma *p,
			 uintptr_t S, bool S_none, int depth, uintptr_t *gap)
{
	uintptr_t gl, gr, want;
	int bl, br;

	if (!x)
		return 0;
	if (depth > RB_CHECK_MAX_DEPTH || ++st->nodes > st->idx->count) {
		printk("vma rbtree: more than count=%zu nodes or depth > %d (cycle?)\n",
		       st->idx->count, RB_CHECK_MAX_DEPTH);
		return -1;
	}
	if (rb_check_links(x, p) < 0)
		return -1;
	bl = rb_check_node(st, R_LEFT(x), x, x->start, false, depth + 1, &gl);
	if (bl < 0)
		return -1;
	if (rb_check_in_order(st, x) < 0)
		return -1;
	if (!R_LEFT(x))
		gl = x->start - (st->prev ? st->prev->end : 0);   /* prev is x's predecessor */
	st->prev = x;
	br = rb_check_node(st, R_RIGHT(x), x, S, S_none, depth + 1, &gr);
	if (br < 0)
		return -1;
	if (!R_RIGHT(x))
		gr = S_none ? 0 : S - x->end;
	if (bl != br) {
		printk("vma rbtree: node [%#lx,%#lx) black heights differ: left %d, right %d\n",
		       (unsigned long)x->start, (unsigned long)x->end, bl, br);
		return -1;
	}
	want = MAX(gl, gr);
	if (R_GAP(x) != want) {
		printk("vma rbtree: node [%#lx,%#lx) subtree_gap %#lx, recomputed %#lx\n",
		       (unsigned long)x->start, (unsigned long)x->end,
		       (unsigned long)R_GAP(x), (unsigned long)want);
		return -1;
	}
	*gap = want;
	return bl + (R_COLOR(x) == RB_BLACK);
}

/*
 * Invariants: parent pointers (the root's NULL); in-order traversal sorted
 * and non-overlapping with page-aligned, non-empty ranges (so BST order by
 * start holds); colours 0/1, a black root, no red node with a red child,
 * the same number of black nodes on every root-to-NULL path; every
 * subtree_gap equal to the value recomputed from scratch (design note); as
 * many nodes as idx->count.
 */
static int rb_check(struct vma_index *idx)
{
	struct rb_check_state st = { idx, 0, NULL };
	struct vma *root = RS(idx)->root;
	uintptr_t gap;

	if (root && R_COLOR(root) != RB_BLACK) {
		printk("vma rbtree: red root [%#lx,%#lx)\n", (unsigned long)root->start, (unsigned long)root->end);
		return -EINVAL;
	}
	if (rb_check_node(&st, root, NULL, 0, true, 0, &gap) < 0)
		return -EINVAL;
	if (st.nodes != idx->count) {
		printk("vma rbtree: %zu nodes, count %zu\n", st.nodes, idx->count);
		return -EINVAL;
	}
	return 0;
}

static size_t rb_bytes(struct vma_index *idx)
{
	return 0;
}

/* The "rbtree" backend (see the note at the top); select it with vma=rbtree or vma_backend_by_name("rbtree"). */
const struct vma_index_ops vma_rbtree_ops = {
	.name = "rbtree",
	.link_size = sizeof(struct rb_link),
	.init = rb_init,
	.destroy = rb_destroy,
	.find = rb_find,
	.find_prev = rb_find_prev,
	.reserve = rb_reserve,
	.insert = rb_insert,
	.erase = rb_erase,
	.update = rb_update,
	.next = rb_next,
	.prev = rb_prev,
	.first = rb_first,
	.last = rb_last,
	.gap_top = rb_gap_top,
	.gap_bottom = rb_gap_bottom,
	.check = rb_check,
	.bytes = rb_bytes,
};
