/*
 * VMA index backend "hash": the 1998 "fuzzy hash" (Andrey's patch against
 * Linux 2.1.119, measured by Bruno Haible; see the seed text in
 * shared/seeds/): the VMAs are spread over 16 address-ordered lists.
 *
 * ---- Scheme ----
 *
 * List of a VMA: b(v) = (v->start >> PAGE_SHIFT) & 15, the low four bits of
 * its first page number. Each list is sorted by address and doubly linked
 * through the VMAs' links (struct hash_link: next/prev, after each VMA);
 * the state's head[b]/tail[b] (struct hash_state, HS(idx)) are its lowest
 * and highest VMA. There is no global list: address order exists only as
 * the merge of the 16 lists. Every VMA whose start is 64 KiB aligned has
 * page bits 0..3 equal to zero, so a program mapping only 64 KiB-aligned
 * segments puts all of them in list 0 - the seed's stated worst case, where
 * this backend degenerates into the plain list.
 *
 * insert(v): walk list b(v) from its head to v's place and link it there.
 * erase(v):  unlink v from list b(v) (doubly linked: no walk).
 * update:    in place when the list does not change and the order in it
 *            holds (always when the new range intersects the old one);
 *            otherwise unlink and re-insert into the new start's list.
 *
 * find(addr) - the first VMA with end > addr - is the hard part: the answer
 * may start on any page at or below addr, so its list is not known from
 * addr. Searching every list from its head costs one access per VMA below
 * addr in total, the same n/2 as the plain list. What a fuzzy hash can do
 * instead (and what we do) is probe lists in the order most likely to hit,
 * and stop as soon as no unprobed list can hold a better answer:
 *
 *   probe(b): walk list b from its head up to its first VMA with end > addr
 *     (a candidate answer) and remember the VMA before it (a candidate
 *     predecessor: last with end <= addr). Keep ANS = the lowest-starting
 *     candidate answer so far, PRED = the highest-ending candidate
 *     predecessor.
 *   window: any VMA W not seen yet that would improve either must start in
 *     [PRED->end, ANS->start) (0 and the top of memory when unknown): W
 *     cannot start below PRED->end (it would overlap PRED or lie wholly
 *     below it), and if it started at or above ANS->start, ANS would be the
 *     better answer and W would end above addr. So only the lists of the
 *     pages in that window are still needed; when it spans 16 pages or
 *     more, that is every list.
 *   order: lists of pages p, p-1, ..., p-15 (p = addr's page, mod 16),
 *     skipping lists outside the current window (which only shrinks).
 *   stop: when the window holds no unprobed list, or - for find, which
 *     needs no predecessor - as soon as ANS contains addr.
 *
 * The first probe, list b(addr), finds a VMA that starts exactly at addr's
 * page, or contains addr and starts 16, 32, ... pages below it, after one
 * list walk; the k-th probe covers VMAs starting k-1 pages lower. A VMA of k
 * <= 16 pages containing addr is therefore found after at most k probes.
 *
 * find_prev(addr): the same search, without the containment stop: it ends
 * when the window is empty.
 * next(v): the candidate from v's own list is v->next, and PRED = v (window
 * [v->end, v->next->start)); then the search as above for addr = v->end,
 * probing pages v->end, v->end+1, ... upward. It stops at once when the
 * successor starts at v->end (found in v's list or in the first probe).
 * prev(v): ANS = v, PRED = v->prev (window [v->prev->end, v->start)); the
 * search for addr = v->start with the predecessor needed.
 * first/last: the lowest head / highest tail among the 16 lists.
 * gap_top: a 16-way merge from the tails (each list's cursor first skips the
 * VMAs starting at or above high), visiting VMAs in descending address
 * order and testing each free range as the list backend does; gap_bottom:
 * the mirror image from the heads.
 *
 * ---- Cost, in idx->accesses ----
 *
 * Every VMA whose fields are read or written counts once per visit; the
 * head/tail arrays in struct vma_index are not nodes. n VMAs, assumed spread
 * evenly over the lists (n/16 each) and lookups at random positions:
 *
 *   insert      one list walk: n/32 + 2 on average (the walked VMAs, the one
 *               it stops at, v). Reaches the seed's n/32; worst case (all in
 *               one list) n/2 average, n + 1 worst.
 *   erase       v and its two list neighbours: <= 3. Better than the seed's
 *               n/32, which came from singly linked lists; a caller that
 *               must find v by address first pays find below.
 *   find(addr)  each probe costs about n/32 (+1).
 *               - addr in the first page of a VMA (munmap/mprotect/erase at a
 *                 VMA's start, faults on single-page VMAs): 1 probe, n/32.
 *                 This is the seed's n/32, and it is the only find case
 *                 that reaches it.
 *               - addr inside a VMA of k pages: about (min(k,16)+1)/2 probes
 *                 on average, i.e. n/32 (k = 1) up to about n/4 (k >= 16).
 *               - addr in a hole: every list whose pages meet the window, so
 *                 ~n/2 + 16 when the hole and its neighbours span 16 pages
 *                 or more - no better than the plain list.
 *               Worst case n (every VMA in one list, answer at its end).
 *               So the honest answer to "does it reach n/32?" is: insert
 *               yes, erase better, lookup only for addresses in a VMA's
 *               first page (or in single-page VMAs); a random lookup lands
 *               between n/32 and n/2 depending on VMA sizes. The 1998
 *               profile agrees that lookup was not cheap: find_vma took 67
 *               ticks with the fuzzy hash against 27 for the plain list.
 *               The probing is never worse than the obvious alternative
 *               (walk all 16 lists from their heads, n/2 + 16): each list
 *               is walked at most once and stops at the same VMA; probing
 *               only skips lists.
 *   find_prev   the predecessor can start on any page, so usually all 16
 *               lists: ~n/2 + 16 (fewer when the hole below addr and the
 *               VMAs around it span fewer than 16 pages).
 *   next(v)     2 when the successor is v->next in v's own list and starts
 *               at v->end, or, for an adjacent successor in another list,
 *               2 + one probe (~n/32); otherwise up to all lists, ~rank(v).
 *               Ordered iteration is therefore up to quadratic.
 *   prev(v)     as find_prev(v->start) plus 2.
 *   first, last up to 16 (one per non-empty list).
 *   gap_top/bottom  up to 16 to place the cursors, plus every VMA the merge
 *               passes (those above/below the gap found).
 *   reserve 0, bytes 0 (no memory outside the VMAs' links, 16 bytes each);
 *               check counts nothing.
 *
 * Measured (scratch harness, n = 2000 VMAs placed at random in 4n pages,
 * averages): find at a random page of a VMA 63 / 176 / 446 for VMAs of 1 /
 * 1-8 / 1-64 pages; find at a VMA's start 63; find_prev 308 / 894 / 994;
 * insert 64; erase 3; with every VMA 64 KiB aligned, find, find_prev and
 * insert ~998 (the plain list's n/2), next 2. n/32 = 62.5, n/2 = 1000.
 *
 * ---- "hash+list" (vma_hash_list_ops) ----
 *
 * The same 16 lists plus the address-sorted doubly linked list of all VMAs
 * beside them (lnext/lprev in the link, lhead/ltail in the state), which is
 * what Andrey Savochkin's patch of 30 Aug 1998 kept (mmap_neighbours via
 * vm_next; docs/results/README.md, 1998, cites it). next/prev cost 1,
 * first/last 0, gap_top/gap_bottom walk the sorted list as the list backend
 * does. find is the patch's climb (hashl_search): from the lowest VMA of
 * the first list, among those of addr's page, the page below, ..., that
 * starts at or below addr, step to the next VMA of the same list or, when
 * that starts above addr, to the sorted list's successor, while they start
 * at or below addr: about n/32 steps along the list of addr's page plus the
 * sorted-list steps between its last member below addr and addr, at any
 * address in a VMA (no probing of other lists). find_prev adds the answer's
 * lprev; insert = find (its place in the sorted list) + the walk of its own
 * list as above; erase <= 5. Link 32 bytes a VMA.
 * The patch also kept a one-entry cache and hashed 8 KiB (addr >> 13); this
 * backend has no cache and hashes 4 KiB pages as "hash" does.
 *
 * Locking: none of its own; the caller holds the mm's mmap_lock (read for
 * lookups, write for insert/erase/update). Lookups write nothing.
 */
#include "vma.h"
#include "gap.h"
#include "kerrno.h"
#include "printk.h"

#define H_NLISTS 16

/*
 * The link each VMA carries (vma_link) and the per-index state (struct
 * vma_index.state). "hash" keeps only next/prev (its link_size ends before
 * lnext); "hash+list" also the sorted list's lnext/lprev and lhead/ltail.
 */
struct hash_link {
	struct vma *next, *prev;      /* the VMA's own list (bucket) */
	struct vma *lnext, *lprev;    /* hash+list: the address-sorted list of all VMAs */
};

struct __attribute__((may_alias)) hash_state {
	struct vma *head[H_NLISTS], *tail[H_NLISTS];
	struct vma *lhead, *ltail;    /* hash+list only */
	bool with_list;
};
VMA_INDEX_STATE_FITS(struct hash_state);

#define HS(idx)   VMA_INDEX_STATE(idx, struct hash_state)
#define H_NEXT(v) (((struct hash_link *)vma_link(v))->next)
#define H_PREV(v) (((struct hash_link *)vma_link(v))->prev)
#define H_LNEXT(v) (((struct hash_link *)vma_link(v))->lnext)
#define H_LPREV(v) (((struct hash_link *)vma_link(v))->lprev)

_Static_assert(H_NLISTS >= 2 && H_NLISTS <= 32 && (H_NLISTS & (H_NLISTS - 1)) == 0,
	       "list masks are 32-bit and buckets are low page bits");

#define H_ALL_LISTS ((unsigned)(((uint64_t)1 << H_NLISTS) - 1))

/* The list of a VMA starting at start. */
static unsigned hash_bucket(uintptr_t start)
{
	return (unsigned)(start >> PAGE_SHIFT) & (H_NLISTS - 1);
}

static void hash_init_common(struct vma_index *idx, const struct vma_index_ops *ops, bool with_list)
{
	unsigned b;

	idx->ops = ops;
	idx->count = 0;
	idx->accesses = 0;
	idx->lockless = false;
	for (b = 0; b < H_NLISTS; b++)
		HS(idx)->head[b] = HS(idx)->tail[b] = NULL;
	HS(idx)->lhead = HS(idx)->ltail = NULL;
	HS(idx)->with_list = with_list;
}

static void hash_init(struct vma_index *idx)
{
	hash_init_common(idx, &vma_hash_ops, false);
}

static void hash_destroy(struct vma_index *idx)
{
	BUG_ON(idx->count != 0);
}

static int hash_reserve(struct vma_index *idx, unsigned nr)
{
	return 0;
}

/* ---- the probing search behind find, find_prev, next and prev ---- */

struct hash_search {
	uintptr_t addr;
	struct vma *ans;              /* lowest-starting VMA seen with end > addr */
	uintptr_t ans_start;
	struct vma *pred;             /* highest-ending VMA seen with end <= addr */
	uintptr_t pred_end;
	unsigned probed;              /* lists already searched */
};

/* Lists that may hold a VMA starting in [lo, hi) (page aligned bounds). */
static unsigned hash_window(uintptr_t lo, uintptr_t hi)
{
	uintptr_t p, lp, hp;
	unsigned mask = 0;

	if (hi <= lo)
		return 0;
	lp = lo >> PAGE_SHIFT;
	hp = (hi - 1) >> PAGE_SHIFT;            /* last page, inclusive */
	if (hp - lp >= H_NLISTS - 1)
		return H_ALL_LISTS;
	for (p = lp; p <= hp; p++)
		mask |= 1u << hash_bucket(p << PAGE_SHIFT);
	return mask;
}

static unsigned hash_search_window(const struct hash_search *s)
{
	return hash_window(s->pred ? s->pred_end : 0, s->ans ? s->ans_start : UINTPTR_MAX);
}

/* Walk list b from its head to its first VMA with end > addr; fold into s. */
static void hash_probe(struct vma_index *idx, unsigned b, struct hash_search *s)
{
	struct vma *w, *below = NULL;

	for (w = HS(idx)->head[b]; w; w = H_NEXT(w)) {
		idx->accesses++;
		if (w->end > s->addr) {
			if (!s->ans || w->start < s->ans_start) {
				s->ans = w;
				s->ans_start = w->start;
			}
			break;
		}
		below = w;
	}
	if (below && (!s->pred || below->end > s->pred_end)) {
		s->pred = below;
		s->pred_end = below->end;
	}
	s->probed |= 1u << b;
}

/*
 * Probe lists of pages p, p+step, p+2*step, ... (p = addr's page) while the
 * window still holds an unprobed list; with !need_pred, stop once the
 * answer contains addr. The window only shrinks, so a list skipped once
 * never becomes needed later.
 */
static void hash_search_run(struct vma_index *idx, struct hash_search *s, int step, bool need_pred)
{
	uintptr_t p = s->addr >> PAGE_SHIFT;
	unsigned i, b, mask;

	for (i = 0; i < H_NLISTS; i++) {
		if (!need_pred && s->ans && s->ans_start <= s->addr)
			return;
		mask = hash_search_window(s) & ~s->probed;
		if (!mask)
			return;
		b = (unsigned)((step > 0 ? p + i : p - i) & (H_NLISTS - 1));
		if (mask & (1u << b))
			hash_probe(idx, b, s);
	}
}

static struct vma *hash_find(struct vma_index *idx, uintptr_t addr)
{
	struct hash_search s = { .addr = addr };

	hash_search_run(idx, &s, -1, false);
	return s.ans;
}

static struct vma *hash_find_prev(struct vma_index *idx, uintptr_t addr, struct vma **prev)
{
	struct hash_search s = { .addr = addr };

	hash_search_run(idx, &s, -1, true);
	*prev = s.pred;
	return s.ans;
}

static struct vma *hash_next(struct vma_index *idx, struct vma *v)
{
	struct hash_search s = { .addr = v->end, .pred = v, .pred_end = v->end };
	struct vma *n;

	idx->accesses++;                        /* v */
	n = H_NEXT(v);
	if (n) {
		idx->accesses++;
		s.ans = n;
		s.ans_start = n->start;
	}
	s.probed = 1u << hash_bucket(v->start);
	hash_search_run(idx, &s, +1, false);
	return s.ans;
}

static struct vma *hash_prev(struct vma_index *idx, struct vma *v)
{
	struct hash_search s = { .addr = v->start, .ans = v, .ans_start = v->start };
	struct vma *p;

	idx->accesses++;                        /* v */
	p = H_PREV(v);
	if (p) {
		idx->accesses++;
		s.pred = p;
		s.pred_end = p->end;
	}
	s.probed = 1u << hash_bucket(v->start);
	hash_search_run(idx, &s, -1, true);
	return s.pred;
}

static struct vma *hash_first(struct vma_index *idx)
{
	struct vma *best = NULL, *w;
	unsigned b;

	for (b = 0; b < H_NLISTS; b++) {
		w = HS(idx)->head[b];
		if (!w)
			continue;
		idx->accesses++;
		if (!best || w->start < best->start)
			best = w;
	}
	return best;
}

static struct vma *hash_last(struct vma_index *idx)
{
	struct vma *best = NULL, *w;
	unsigned b;

	for (b = 0; b < H_NLISTS; b++) {
		w = HS(idx)->tail[b];
		if (!w)
			continue;
		idx->accesses++;
		if (!best || w->start > best->start)
			best = w;
	}
	return best;
}

/* ---- insert, erase, update ---- */

/* Link v into list b at its place, walking from the head. v itself is counted. */
static void hash_link(struct vma_index *idx, unsigned b, struct vma *v)
{
	struct vma *w, *prev = NULL;

	idx->accesses++;
	for (w = HS(idx)->head[b]; w; w = H_NEXT(w)) {
		idx->accesses++;
		if (w->start > v->start)
			break;
		prev = w;
	}
	H_PREV(v) = prev;
	H_NEXT(v) = w;
	if (prev)
		H_NEXT(prev) = v;
	else
		HS(idx)->head[b] = v;
	if (w)
		H_PREV(w) = v;
	else
		HS(idx)->tail[b] = v;
}

/*
 * Unlink v from a doubly linked list kept in the links (its next pointer at
 * byte offset off of struct hash_link, prev right after it; head and tail its
 * ends): v's two neighbours are touched and counted, v itself is not.
 */
static void hash_unlink_at(struct vma_index *idx, struct vma *v, size_t off,
			   struct vma **head, struct vma **tail)
{
	struct vma **vl = (struct vma **)((char *)vma_link(v) + off);
	struct vma *next = vl[0], *prev = vl[1];

	if (prev) {
		idx->accesses++;
		((struct vma **)((char *)vma_link(prev) + off))[0] = next;
	} else {
		*head = next;
	}
	if (next) {
		idx->accesses++;
		((struct vma **)((char *)vma_link(next) + off))[1] = prev;
	} else {
		*tail = prev;
	}
	vl[0] = vl[1] = NULL;
}

_Static_assert(offsetof(struct hash_link, prev) == offsetof(struct hash_link, next) + sizeof(struct vma *) &&
	       offsetof(struct hash_link, lprev) == offsetof(struct hash_link, lnext) + sizeof(struct vma *),
	       "hash_unlink_at: prev right after next");

/* Unlink v from list b: v and its two neighbours are touched. */
static void hash_unlink(struct vma_index *idx, unsigned b, struct vma *v)
{
	idx->accesses++;
	hash_unlink_at(idx, v, offsetof(struct hash_link, next), &HS(idx)->head[b], &HS(idx)->tail[b]);
}

static void hash_insert(struct vma_index *idx, struct vma *v)
{
	hash_link(idx, hash_bucket(v->start), v);
	idx->count++;
}

static void hash_erase(struct vma_index *idx, struct vma *v)
{
	hash_unlink(idx, hash_bucket(v->start), v);
	idx->count--;
}

/*
 * Same list and intersecting ranges: in place (the list neighbours end at or
 * below the old start / start at or above the old end and the new range
 * overlaps neither, so it stays between them). Same list, disjoint ranges:
 * read the neighbours to see whether the order holds. Different list: move.
 */
/*
 * Whether v, given the range [start, end), still lies between prev and next
 * (its neighbours in some address-ordered list; either may be NULL): at
 * once when the new range intersects the old one (neither neighbour can
 * then lie between), else by reading them (counted).
 */
static bool hash_stays_between(struct vma_index *idx, struct vma *v, struct vma *prev,
			       struct vma *next, uintptr_t start, uintptr_t end)
{
	if (start < v->end && v->start < end)
		return true;
	if (prev) {
		idx->accesses++;
		if (prev->end > start)
			return false;
	}
	if (next) {
		idx->accesses++;
		if (end > next->start)
			return false;
	}
	return true;
}

static void hash_update(struct vma_index *idx, struct vma *v, uintptr_t start, uintptr_t end)
{
	unsigned ob = hash_bucket(v->start), nb = hash_bucket(start);
	bool in_place;

	idx->accesses++;
	in_place = ob == nb && hash_stays_between(idx, v, H_PREV(v), H_NEXT(v), start, end);
	if (in_place) {
		v->start = start;
		v->end = end;
		return;
	}
	hash_unlink(idx, ob, v);
	v->start = start;
	v->end = end;
	hash_link(idx, nb, v);
}

/* ---- free-gap search ---- */

/*
 * The gap searches and the invariant check walk all lists at once, one
 * cursor per list (NULL: that list is used up). These pick the cursor whose
 * VMA starts highest / lowest, or return H_NLISTS when every list is used up.
 * They read only VMAs the cursors already stand on, so they count no access.
 */
static unsigned hash_cursor_highest(struct vma *const cur[H_NLISTS])
{
	unsigned b, best = H_NLISTS;

	for (b = 0; b < H_NLISTS; b++)
		if (cur[b] && (best == H_NLISTS || cur[b]->start > cur[best]->start))
			best = b;
	return best;
}

static unsigned hash_cursor_lowest(struct vma *const cur[H_NLISTS])
{
	unsigned b, best = H_NLISTS;

	for (b = 0; b < H_NLISTS; b++)
		if (cur[b] && (best == H_NLISTS || cur[b]->start < cur[best]->start))
			best = b;
	return best;
}

/*
 * Top-down: a cursor per list, each first moved down from its tail past the
 * VMAs starting at or above high; then repeatedly take the cursor with the
 * highest start (its fields were read when the cursor arrived on it), test
 * the free range above it, and move that cursor down one.
 */
static int hash_gap_top(struct vma_index *idx, uintptr_t len, uintptr_t align,
			uintptr_t low, uintptr_t high, uintptr_t *out)
{
	struct vma *cur[H_NLISTS], *w;
	uintptr_t hi = high;
	unsigned b, best;

	if (len == 0 || high <= low || high - low < len)
		return -ENOMEM;
	for (b = 0; b < H_NLISTS; b++) {
		for (w = HS(idx)->tail[b]; w; w = H_PREV(w)) {
			idx->accesses++;
			if (w->start < high)
				break;
		}
		cur[b] = w;
	}
	while ((best = hash_cursor_highest(cur)) != H_NLISTS) {
		w = cur[best];
		if (vma_gap_fit_top(w->end, hi, len, align, low, high, out))
			return 0;
		hi = w->start;
		if (hi <= low || hi - low < len)
			return -ENOMEM;
		cur[best] = H_PREV(w);
		if (cur[best])
			idx->accesses++;
	}
	return vma_gap_fit_top(low, hi, len, align, low, high, out) ? 0 : -ENOMEM;
}

/* Bottom-up: the mirror image, from the heads, skipping VMAs ending at or below low. */
static int hash_gap_bottom(struct vma_index *idx, uintptr_t len, uintptr_t align,
			   uintptr_t low, uintptr_t high, uintptr_t *out)
{
	struct vma *cur[H_NLISTS], *w;
	uintptr_t lo = low;
	unsigned b, best;

	if (len == 0 || high <= low || high - low < len)
		return -ENOMEM;
	for (b = 0; b < H_NLISTS; b++) {
		for (w = HS(idx)->head[b]; w; w = H_NEXT(w)) {
			idx->accesses++;
			if (w->end > low)
				break;
		}
		cur[b] = w;
	}
	while ((best = hash_cursor_lowest(cur)) != H_NLISTS) {
		w = cur[best];
		if (vma_gap_fit_bottom(lo, w->start, len, align, low, high, out))
			return 0;
		lo = w->end;
		if (lo >= high || high - lo < len)
			return -ENOMEM;
		cur[best] = H_NEXT(w);
		if (cur[best])
			idx->accesses++;
	}
	return vma_gap_fit_bottom(lo, high, len, align, low, high, out) ? 0 : -ENOMEM;
}

/* ---- invariants ---- */

/*
 * One list: head has no prev, tail is the last node reached, next/prev
 * symmetric, every VMA page aligned with start < end and in the list its
 * start selects, sorted and non-overlapping. *n counts the nodes seen over
 * all lists; the walk stops past idx->count, so a cycle is caught.
 */
static int hash_check_list(struct vma_index *idx, unsigned b, size_t *n)
{
	struct vma *v, *prev = NULL;

	for (v = HS(idx)->head[b]; v; prev = v, v = H_NEXT(v)) {
		if (++*n > idx->count) {
			printk("vma hash: more than count=%zu nodes (cycle?)\n", idx->count);
			return -EINVAL;
		}
		if (H_PREV(v) != prev) {
			printk("vma hash: list %u [%#lx,%#lx) prev %p, expected %p\n", b,
			       (unsigned long)v->start, (unsigned long)v->end, H_PREV(v), prev);
			return -EINVAL;
		}
		if (v->start >= v->end || !IS_ALIGNED(v->start, PAGE_SIZE) ||
		    !IS_ALIGNED(v->end, PAGE_SIZE)) {
			printk("vma hash: bad range [%#lx,%#lx)\n",
			       (unsigned long)v->start, (unsigned long)v->end);
			return -EINVAL;
		}
		if (hash_bucket(v->start) != b) {
			printk("vma hash: [%#lx,%#lx) in list %u, belongs in %u\n",
			       (unsigned long)v->start, (unsigned long)v->end, b, hash_bucket(v->start));
			return -EINVAL;
		}
		if (prev && prev->end > v->start) {
			printk("vma hash: list %u: [%#lx,%#lx) then [%#lx,%#lx): unsorted or overlapping\n",
			       b, (unsigned long)prev->start, (unsigned long)prev->end,
			       (unsigned long)v->start, (unsigned long)v->end);
			return -EINVAL;
		}
	}
	if (HS(idx)->tail[b] != prev) {
		printk("vma hash: list %u tail %p, last node %p\n", b, HS(idx)->tail[b], prev);
		return -EINVAL;
	}
	return 0;
}

/*
 * Every list as hash_check_list says; over all lists, as many nodes as
 * idx->count, and the 16-way merge sorted and non-overlapping.
 */
/*
 * hash+list: v, the next VMA of the lists' merge (last before it), must be
 * *l, the sorted list's next, with lprev = last; *l moves on. Plain hash:
 * the sorted list must be empty.
 */
static int hash_check_sorted(struct vma_index *idx, struct vma *v, struct vma *last, struct vma **l)
{
	if (!HS(idx)->with_list)
		return HS(idx)->lhead || HS(idx)->ltail ? -EINVAL : 0;
	if (*l != v || H_LPREV(v) != last) {
		printk("vma hash+list: sorted list has %p (lprev %p) where the merge has %p after %p\n",
		       *l, *l ? H_LPREV(*l) : NULL, v, last);
		return -EINVAL;
	}
	*l = H_LNEXT(v);
	return 0;
}

static int hash_check(struct vma_index *idx)
{
	struct vma *cur[H_NLISTS], *v, *last = NULL, *l = HS(idx)->lhead;
	size_t n = 0;
	unsigned b, best;
	int err;

	for (b = 0; b < H_NLISTS; b++)
		if ((err = hash_check_list(idx, b, &n)))
			return err;
	if (n != idx->count) {
		printk("vma hash: %zu nodes, count %zu\n", n, idx->count);
		return -EINVAL;
	}
	for (b = 0; b < H_NLISTS; b++)
		cur[b] = HS(idx)->head[b];
	while ((best = hash_cursor_lowest(cur)) != H_NLISTS) {
		v = cur[best];
		if (last && last->end > v->start) {
			printk("vma hash: [%#lx,%#lx) (list %u) overlaps [%#lx,%#lx) (list %u)\n",
			       (unsigned long)last->start, (unsigned long)last->end, hash_bucket(last->start),
			       (unsigned long)v->start, (unsigned long)v->end, best);
			return -EINVAL;
		}
		if ((err = hash_check_sorted(idx, v, last, &l)))
			return err;
		last = v;
		cur[best] = H_NEXT(v);
	}
	if (HS(idx)->with_list && (l || HS(idx)->ltail != last)) {
		printk("vma hash+list: sorted list goes on at %p / tail %p, merge ends at %p\n",
		       l, HS(idx)->ltail, last);
		return -EINVAL;
	}
	return 0;
}

/* ---- hash+list: the sorted list beside the 16 lists ---- */

static void hashl_init(struct vma_index *idx)
{
	hash_init_common(idx, &vma_hash_list_ops, true);
}

/*
 * Lookup as Andrey's 1998 patch did it: start from the lowest VMA of the
 * first list, among those of addr's page, the page below, ..., whose lowest
 * VMA starts at or below addr (none: every VMA starts above addr, and the
 * sorted list's head is the answer). Then climb: to the VMA's next in its
 * own list if that starts at or below addr (a long step), else to its
 * successor in the sorted list if that does (a short one). The climb ends
 * on the last VMA starting at or below addr: the answer if it ends above
 * addr, else its successor. Every VMA whose start is read counts.
 */
static inline __attribute__((always_inline)) struct vma *hashl_search(struct vma_index *idx,
									uintptr_t addr)
{
	uintptr_t p = addr >> PAGE_SHIFT;
	struct vma *v = NULL, *t;
	unsigned i;

	for (i = 0; i < H_NLISTS && !v; i++) {
		t = HS(idx)->head[(p - i) & (H_NLISTS - 1)];
		if (t) {
			idx->accesses++;
			if (t->start <= addr)
				v = t;
		}
	}
	if (!v)
		return HS(idx)->lhead;
	for (;;) {
		if ((t = H_NEXT(v)) && (idx->accesses++, t->start <= addr)) {
			v = t;
			continue;
		}
		if ((t = H_LNEXT(v)) && (idx->accesses++, t->start <= addr)) {
			v = t;
			continue;
		}
		return v->end > addr ? v : H_LNEXT(v);
	}
}

/*
 * The search is inlined into its callers, so that the profile puts an
 * insert's search under insert (as the patch's vma_insert_neighbour had its
 * own copy) and the functions keep the PREFIX_OP names the profile suite
 * groups by (hashl_: one word).
 */
static struct vma *hashl_find(struct vma_index *idx, uintptr_t addr)
{
	return hashl_search(idx, addr);
}

/* find, and the predecessor from the sorted list (the answer's lprev, or the tail). */
static struct vma *hashl_find_prev(struct vma_index *idx, uintptr_t addr, struct vma **prev)
{
	struct vma *v = hashl_search(idx, addr);

	*prev = v ? H_LPREV(v) : HS(idx)->ltail;
	return v;
}

/* Link v into the sorted list before its successor, found by the search. */
static void hashl_link_sorted(struct vma_index *idx, struct vma *v)
{
	struct vma *next = hashl_search(idx, v->start);
	struct vma *prev = next ? H_LPREV(next) : HS(idx)->ltail;

	H_LPREV(v) = prev;
	H_LNEXT(v) = next;
	if (prev) {
		idx->accesses++;
		H_LNEXT(prev) = v;
	} else {
		HS(idx)->lhead = v;
	}
	if (next)
		H_LPREV(next) = v;                /* read by the find: counted */
	else
		HS(idx)->ltail = v;
}

/* Unlink v from the sorted list: its two neighbours are touched (v was counted by the caller). */
static void hashl_unlink_sorted(struct vma_index *idx, struct vma *v)
{
	hash_unlink_at(idx, v, offsetof(struct hash_link, lnext), &HS(idx)->lhead, &HS(idx)->ltail);
}

/* Into the sorted list (a find), then into its own list (a walk from the head, as hash). */
static void hashl_insert(struct vma_index *idx, struct vma *v)
{
	hashl_link_sorted(idx, v);
	hash_insert(idx, v);
}

static void hashl_erase(struct vma_index *idx, struct vma *v)
{
	hash_erase(idx, v);
	hashl_unlink_sorted(idx, v);
}

/*
 * If v keeps its place in address order (its range intersects the old one,
 * or its sorted-list neighbours still end below / start above it), it keeps
 * its place in its own list too when that list does not change (the list is
 * the address order restricted to one bucket), else it moves to the new
 * list only. Otherwise it leaves both and is inserted again.
 */
static void hashl_update(struct vma_index *idx, struct vma *v, uintptr_t start, uintptr_t end)
{
	unsigned ob = hash_bucket(v->start), nb = hash_bucket(start);
	bool in_order;

	idx->accesses++;
	in_order = hash_stays_between(idx, v, H_LPREV(v), H_LNEXT(v), start, end);
	if (in_order && ob == nb) {
		v->start = start;
		v->end = end;
		return;
	}
	hash_unlink(idx, ob, v);
	if (!in_order)
		hashl_unlink_sorted(idx, v);
	v->start = start;
	v->end = end;
	if (!in_order)
		hashl_link_sorted(idx, v);
	hash_link(idx, nb, v);
}

static struct vma *hashl_next(struct vma_index *idx, struct vma *v)
{
	idx->accesses++;
	return H_LNEXT(v);
}

static struct vma *hashl_prev(struct vma_index *idx, struct vma *v)
{
	idx->accesses++;
	return H_LPREV(v);
}

static struct vma *hashl_first(struct vma_index *idx)
{
	return HS(idx)->lhead;
}

static struct vma *hashl_last(struct vma_index *idx)
{
	return HS(idx)->ltail;
}

/* Free-gap search: the sorted list walked as the list backend walks its own (gap.h). */
static int hashl_gap_top(struct vma_index *idx, uintptr_t len, uintptr_t align,
			     uintptr_t low, uintptr_t high, uintptr_t *out)
{
	return vma_list_gap_top(idx, HS(idx)->ltail, offsetof(struct hash_link, lprev),
				len, align, low, high, out);
}

static int hashl_gap_bottom(struct vma_index *idx, uintptr_t len, uintptr_t align,
				uintptr_t low, uintptr_t high, uintptr_t *out)
{
	return vma_list_gap_bottom(idx, HS(idx)->lhead, offsetof(struct hash_link, lnext),
				   len, align, low, high, out);
}

static size_t hash_bytes(struct vma_index *idx)
{
	return 0;
}

const struct vma_index_ops vma_hash_ops = {
	.name = "hash",
	.link_size = offsetof(struct hash_link, lnext),
	.init = hash_init,
	.destroy = hash_destroy,
	.find = hash_find,
	.find_prev = hash_find_prev,
	.reserve = hash_reserve,
	.insert = hash_insert,
	.erase = hash_erase,
	.update = hash_update,
	.next = hash_next,
	.prev = hash_prev,
	.first = hash_first,
	.last = hash_last,
	.gap_top = hash_gap_top,
	.gap_bottom = hash_gap_bottom,
	.check = hash_check,
	.bytes = hash_bytes,
};

/* "hash+list": the same 16 lists with the sorted list beside them, as Andrey's patch kept it. */
const struct vma_index_ops vma_hash_list_ops = {
	.name = "hash+list",
	.link_size = sizeof(struct hash_link),
	.init = hashl_init,
	.destroy = hash_destroy,
	.find = hashl_find,
	.find_prev = hashl_find_prev,
	.reserve = hash_reserve,
	.insert = hashl_insert,
	.erase = hashl_erase,
	.update = hashl_update,
	.next = hashl_next,
	.prev = hashl_prev,
	.first = hashl_first,
	.last = hashl_last,
	.gap_top = hashl_gap_top,
	.gap_bottom = hashl_gap_bottom,
	.check = hash_check,
	.bytes = hash_bytes,
};
