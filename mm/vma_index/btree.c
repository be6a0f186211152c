/*
 * The `btree` VMA index (the default): a B+tree of address ranges with free
 * gap tracking, in the spirit of Linux 6.1+'s maple tree.
 *
 * Design note
 * -----------
 * Nodes (struct btree_node, mm/vma_index/btree.h) are 256 bytes, from a kmem_cache
 * created on the first init and never destroyed. Every node has BT_SLOTS = 10
 * slots and a byte count; there are no parent pointers (every operation
 * descends from the root and keeps its path on the C stack).
 *
 *   leaf:     nr, leaf | key[10] = VMA end | start[10] = VMA start | vma[10]
 *   internal: nr, leaf | key[10] = largest end in child | gap[10] | child[10]
 *
 * Only VMAs are stored (no explicit NULL ranges); a leaf keeps both bounds of
 * each VMA so that no operation has to read a struct vma to decide anything.
 * Unused keys are UINTPTR_MAX, so a search scans all ten keys without a
 * branch per key: the slot for addr is the number of keys <= addr.
 *
 * Gaps. The free gap in front of VMA v is [end of v's predecessor (or 0),
 * v->start); it is owned by the leaf holding v, so every gap except the one
 * above the last VMA (handled by the search itself) has exactly one owner.
 * gap[i] of an internal node is the largest gap owned by the subtree of
 * child[i]. This annotation depends only on the set of VMAs, not on the tree
 * shape, so splits, merges and borrows only recompute the nodes whose slots
 * changed. The subtree's "lo" (its predecessor's end) is passed down while
 * descending: lo of child[i] is key[i-1], or the parent's lo for i == 0.
 * When the last VMA of a subtree changes its end (erase, update), the
 * leading gap of the next subtree changes: the parent re-derives it down
 * that subtree's left spine. An insert descends by start and therefore never
 * lands after the last VMA of a leaf unless it is the rightmost leaf, so it
 * never needs that repair.
 *
 * Fill. Non-root nodes hold BT_MIN (4) .. 10 slots, the root 1 (leaf) or 2
 * (internal) .. 10. An insert into a full node splits 11 slots 6/5 (7/4
 * when the new slot is the last one, 4/7 when it is the first); then, if a
 * neighbour (same parent) has room, the neighbour and the two halves are
 * spread evenly over two nodes and the new one is dropped again (B*-tree
 * style), so ascending or descending runs of inserts leave nodes ~95% full
 * and random ones ~80%. An erase that leaves a node with 3 slots merges it
 * with a sibling when both fit in one node, else borrows one slot from it.
 *
 * Memory. 256 bytes per leaf of 4..10 VMAs: 26..64 bytes per VMA in leaves.
 * Measured, internal nodes included: 28 bytes per VMA after an ordered
 * build (40000 VMAs, 4445 nodes), 34 after random inserts, 52 after then
 * erasing a random half (erase only merges below BT_MIN); nothing inside
 * struct vma. bytes() reports the tree's nodes; reserved spares are not
 * counted.
 *
 * Allocation. reserve(n) tops up a private pool of spare nodes (idx->u.bt.
 * spare, linked through ptr[0]) so that the next n insert/erase/update calls
 * find every node they need there; those calls never allocate and panic if
 * the pool runs dry (a caller that skipped reserve). An insert needs at most
 * height + 1 nodes (a split at every level and a new root); the root splits
 * at most once per 9 inserts (a fresh root has 2 children and overflows
 * after 9 more child splits), so n calls need at most
 * n * (height + 2 + n / 8) nodes. Erase frees nodes into the pool (up to
 * BT_SPARE_KEEP spares, the rest back to the cache).
 *
 * Costs, in nodes touched (idx->accesses; every node read or written counts
 * once per visit), h = height = 1 + log_(4..10)(n / 4..10):
 *   find, find_prev              h (find_prev: + up to h - 1 when the
 *                                  predecessor is in the previous leaf)
 *   next, prev                   1 when the neighbour is in the leaf cached by
 *                                  the previous lookup (ordered iteration:
 *                                  ~1 + (h + 1) / 9 per step), else h + 1
 *   first, last                  h
 *   insert                       h + the new nodes of splits + the
 *                                  neighbours examined after a split
 *   erase, update                h + siblings for merge/borrow + the left
 *                                  spine of the next subtree when the last
 *                                  end of a subtree changed
 *   gap_top, gap_bottom          h when the first candidate gap fits; gaps
 *                                  that are long enough but fail alignment or
 *                                  bounds cost extra subtrees
 * The one-leaf lookup cache (idx->u.bt.cache) is a single word written with
 * a relaxed atomic store, so concurrent lookups under the read lock race
 * benignly; every mutation (write lock) clears it.
 *
 * Locking: as for every index, the caller holds mm->mmap_lock (read for
 * lookups, write for insert/erase/update/reserve/destroy). The nodes'
 * kmem_cache has its own lock inside the slab allocator.
 */
#include "vma.h"
#include "slab.h"
#include "printk.h"
#include "kerrno.h"
#include "kstring.h"
#include "btree.h"

static struct kmem_cache *bt_cache;

/* ---------------------------------------------------------------- nodes */

static struct kmem_cache *bt_get_cache(void)
{
	struct kmem_cache *c = __atomic_load_n(&bt_cache, __ATOMIC_ACQUIRE);

	if (c)
		return c;
	c = kmem_cache_create("vma_btree_node", sizeof(struct btree_node), 64);
	if (!c)
		return NULL;
	{
		struct kmem_cache *expected = NULL;
		if (!__atomic_compare_exchange_n(&bt_cache, &expected, c, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			kmem_cache_destroy(c);       /* another CPU won the race */
			c = expected;
		}
	}
	return c;
}

static void bt_cache_set(struct vma_index *idx, struct btree_node *leaf)
{
	__atomic_store_n(&idx->u.bt.cache, leaf, __ATOMIC_RELAXED);
}

static struct btree_node *bt_cache_get(struct vma_index *idx)
{
	return __atomic_load_n(&idx->u.bt.cache, __ATOMIC_RELAXED);
}

/* Take a reserved node, empty, of the given kind. Panics without a reserve. */
static struct btree_node *bt_node_new(struct vma_index *idx, bool leaf)
{
	struct btree_node *n = idx->u.bt.spare;
	unsigned i;

	if (!n)
		panic("vma_btree: node needed but none reserved (missing reserve() before insert/erase/update)");
	idx->u.bt.spare = n->ptr[0];
	idx->u.bt.nspare--;
	idx->u.bt.nodes++;
	n->nr = 0;
	n->leaf = leaf;
	for (i = 0; i < BT_SLOTS; i++) {
		n->key[i] = UINTPTR_MAX;
		n->start[i] = 0;
		n->ptr[i] = NULL;
	}
	return n;
}

/* Give a node that left the tree back to the spare pool (or the cache). */
static void bt_node_free(struct vma_index *idx, struct btree_node *n)
{
	idx->u.bt.nodes--;
	if (idx->u.bt.nspare < BT_SPARE_KEEP) {
		n->ptr[0] = idx->u.bt.spare;
		idx->u.bt.spare = n;
		idx->u.bt.nspare++;
	} else {
		kmem_cache_free(bt_cache, n);
	}
}

/* Number of keys <= addr: the slot whose range holds addr (keys sorted, unused = max). */
static inline unsigned bt_slot(const struct btree_node *n, uintptr_t addr)
{
	unsigned i, c = 0;

	for (i = 0; i < BT_SLOTS; i++)
		c += n->key[i] <= addr;
	return c;
}

static inline uintptr_t bt_max(const struct btree_node *n)
{
	return n->key[n->nr - 1];
}

/* Largest gap owned by leaf n whose predecessor ends at lo. */
static uintptr_t bt_leaf_gap(const struct btree_node *n, uintptr_t lo)
{
	uintptr_t g = 0, prev = lo;
	unsigned j;

	for (j = 0; j < n->nr; j++) {
		uintptr_t d = n->start[j] - prev;
		if (d > g)
			g = d;
		prev = n->key[j];
	}
	return g;
}

static uintptr_t bt_node_gap(const struct btree_node *n, uintptr_t lo)
{
	uintptr_t g = 0;
	unsigned i;

	if (n->leaf)
		return bt_leaf_gap(n, lo);
	for (i = 0; i < n->nr; i++)
		if (n->gap[i] > g)
			g = n->gap[i];
	return g;
}

static inline uintptr_t bt_child_lo(const struct btree_node *p, unsigned i, uintptr_t lo)
{
	return i ? p->key[i - 1] : lo;
}

/* Recompute key[i] and gap[i] of internal p (lo: p's predecessor end) from child i. */
static void bt_refresh(struct btree_node *p, unsigned i, uintptr_t lo)
{
	struct btree_node *c = p->child[i];

	p->key[i] = bt_max(c);
	p->gap[i] = bt_node_gap(c, bt_child_lo(p, i, lo));
}

/*
 * The predecessor end of subtree n changed to lo: recompute the leading gap
 * down its left spine. Returns n's new largest gap.
 */
static uintptr_t bt_spine_fix(struct vma_index *idx, struct btree_node *n, uintptr_t lo)
{
	idx->accesses++;
	if (n->leaf)
		return bt_leaf_gap(n, lo);
	n->gap[0] = bt_spine_fix(idx, n->child[0], lo);
	return bt_node_gap(n, lo);
}

/* Slot moves. */
static inline void bt_slot_copy(struct btree_node *d, unsigned dj, const struct btree_node *s, unsigned sj)
{
	d->key[dj] = s->key[sj];
	d->start[dj] = s->start[sj];
	d->ptr[dj] = s->ptr[sj];
}

static void bt_slot_clear(struct btree_node *n, unsigned j)
{
	n->key[j] = UINTPTR_MAX;
	n->start[j] = 0;
	n->ptr[j] = NULL;
}

/* Remove slot j of n, shifting the rest left. */
static void bt_slot_remove(struct btree_node *n, unsigned j)
{
	unsigned k;

	for (k = j; k + 1 < n->nr; k++)
		bt_slot_copy(n, k, n, k + 1);
	n->nr--;
	bt_slot_clear(n, n->nr);
}

/*
 * Put (key, aux, ptr) into slot pos of n. When n is full, split it: the
 * upper part moves to a new node, which is returned (else NULL). The
 * caller refreshes annotations. Not inlined, like bt_spread3: their scratch
 * arrays then sit on the stack once, not once per level of the recursion.
 */
static __attribute__((noinline)) struct btree_node *bt_node_insert(struct vma_index *idx, struct btree_node *n, unsigned pos,
					 uintptr_t key, uintptr_t aux, void *ptr)
{
	uintptr_t tk[BT_SLOTS + 1], ta[BT_SLOTS + 1];
	void *tp[BT_SLOTS + 1];
	struct btree_node *r;
	unsigned j, k, left;

	if (n->nr < BT_SLOTS) {
		for (j = n->nr; j > pos; j--)
			bt_slot_copy(n, j, n, j - 1);
		n->key[pos] = key;
		n->start[pos] = aux;
		n->ptr[pos] = ptr;
		n->nr++;
		return NULL;
	}
	for (j = 0, k = 0; j <= BT_SLOTS; j++) {
		if (j == pos) {
			tk[j] = key;
			ta[j] = aux;
			tp[j] = ptr;
		} else {
			tk[j] = n->key[k];
			ta[j] = n->start[k];
			tp[j] = n->ptr[k];
			k++;
		}
	}
	if (pos == BT_SLOTS)
		left = BT_SLOTS + 1 - BT_MIN;
	else if (pos == 0)
		left = BT_MIN;
	else
		left = (BT_SLOTS + 2) / 2;
	r = bt_node_new(idx, n->leaf);
	idx->accesses++;
	for (j = 0; j <= BT_SLOTS; j++) {
		struct btree_node *d = j < left ? n : r;
		unsigned dj = j < left ? j : j - left;
		d->key[dj] = tk[j];
		d->start[dj] = ta[j];
		d->ptr[dj] = tp[j];
	}
	for (j = left; j < BT_SLOTS; j++)
		bt_slot_clear(n, j);
	n->nr = left;
	r->nr = BT_SLOTS + 1 - left;
	return r;
}

/* ---------------------------------------------------------------- init */

static void bt_init(struct vma_index *idx)
{
	idx->ops = &vma_btree_ops;
	idx->count = 0;
	idx->accesses = 0;
	memset(&idx->u.bt, 0, sizeof(idx->u.bt));
	bt_get_cache();         /* lazily, once; reserve retries on failure */
}

static void bt_free_tree(struct vma_index *idx, struct btree_node *n)
{
	unsigned i;

	if (!n->leaf)
		for (i = 0; i < n->nr; i++)
			bt_free_tree(idx, n->child[i]);
	kmem_cache_free(bt_cache, n);
}

static void bt_destroy(struct vma_index *idx)
{
	struct btree_node *n;

	BUG_ON(idx->count != 0);
	if (idx->u.bt.root)
		bt_free_tree(idx, idx->u.bt.root);
	while ((n = idx->u.bt.spare)) {
		idx->u.bt.spare = n->ptr[0];
		kmem_cache_free(bt_cache, n);
	}
	memset(&idx->u.bt, 0, sizeof(idx->u.bt));
}

static int bt_reserve(struct vma_index *idx, unsigned nr)
{
	uint64_t need = (uint64_t)nr * (idx->u.bt.height + 2 + nr / 8);
	struct btree_node *got = NULL, *n;
	struct kmem_cache *c;
	uint64_t have = idx->u.bt.nspare, k = 0;

	if (have >= need)
		return 0;
	c = bt_get_cache();
	if (!c)
		return -ENOMEM;
	for (; have + k < need; k++) {
		n = kmem_cache_alloc(c);
		if (!n) {
			while ((n = got)) {
				got = n->ptr[0];
				kmem_cache_free(c, n);
			}
			return -ENOMEM;
		}
		n->ptr[0] = got;
		got = n;
	}
	while ((n = got)) {
		got = n->ptr[0];
		n->ptr[0] = idx->u.bt.spare;
		idx->u.bt.spare = n;
		idx->u.bt.nspare++;
	}
	return 0;
}

/* ---------------------------------------------------------------- lookups */

static struct vma *bt_find(struct vma_index *idx, uintptr_t addr)
{
	struct btree_node *n = idx->u.bt.root;

	if (!n)
		return NULL;
	idx->accesses++;
	if (addr >= bt_max(n))
		return NULL;
	while (!n->leaf) {
		n = n->child[bt_slot(n, addr)];
		idx->accesses++;
	}
	bt_cache_set(idx, n);
	return n->vma[bt_slot(n, addr)];
}

/* Rightmost leaf below n (n already counted). */
static struct btree_node *bt_rightmost(struct vma_index *idx, struct btree_node *n)
{
	while (!n->leaf) {
		n = n->child[n->nr - 1];
		idx->accesses++;
	}
	return n;
}

static struct btree_node *bt_leftmost(struct vma_index *idx, struct btree_node *n)
{
	while (!n->leaf) {
		n = n->child[0];
		idx->accesses++;
	}
	return n;
}

static struct vma *bt_find_prev(struct vma_index *idx, uintptr_t addr, struct vma **prev)
{
	struct btree_node *n = idx->u.bt.root, *left = NULL;
	unsigned i;

	*prev = NULL;
	if (!n)
		return NULL;
	idx->accesses++;
	if (addr >= bt_max(n)) {
		n = bt_rightmost(idx, n);
		bt_cache_set(idx, n);
		*prev = n->vma[n->nr - 1];
		return NULL;
	}
	while (!n->leaf) {
		i = bt_slot(n, addr);
		if (i)
			left = n->child[i - 1];
		n = n->child[i];
		idx->accesses++;
	}
	i = bt_slot(n, addr);
	if (i) {
		*prev = n->vma[i - 1];
	} else if (left) {
		struct btree_node *l;
		idx->accesses++;
		l = bt_rightmost(idx, left);
		*prev = l->vma[l->nr - 1];
	}
	bt_cache_set(idx, n);
	return n->vma[i];
}

/* Slot of v in the cached leaf, or -1 (costs one access when a leaf is cached). */
static int bt_cache_slot(struct vma_index *idx, const struct vma *v, struct btree_node **leafp)
{
	struct btree_node *n = bt_cache_get(idx);
	unsigned j;

	*leafp = n;
	if (!n)
		return -1;
	idx->accesses++;
	for (j = 0; j < n->nr; j++)
		if (n->vma[j] == v)
			return (int)j;
	return -1;
}

static struct vma *bt_next(struct vma_index *idx, struct vma *v)
{
	struct btree_node *n;
	int j = bt_cache_slot(idx, v, &n);

	if (j >= 0 && (unsigned)j + 1 < n->nr)
		return n->vma[j + 1];
	return bt_find(idx, v->end);
}

static struct vma *bt_prev(struct vma_index *idx, struct vma *v)
{
	struct btree_node *n;
	struct vma *p;
	int j = bt_cache_slot(idx, v, &n);

	if (j > 0)
		return n->vma[j - 1];
	bt_find_prev(idx, v->start, &p);
	return p;
}

static struct vma *bt_first(struct vma_index *idx)
{
	struct btree_node *n = idx->u.bt.root;

	if (!n)
		return NULL;
	idx->accesses++;
	n = bt_leftmost(idx, n);
	bt_cache_set(idx, n);
	return n->vma[0];
}

static struct vma *bt_last(struct vma_index *idx)
{
	struct btree_node *n = idx->u.bt.root;

	if (!n)
		return NULL;
	idx->accesses++;
	n = bt_rightmost(idx, n);
	bt_cache_set(idx, n);
	return n->vma[n->nr - 1];
}

/* ---------------------------------------------------------------- insert */

/*
 * The slots of a, b, c (in address order; one of them is extra, a node just
 * split off and not linked into p) are spread evenly over p's children k and
 * k + 1; extra is freed. Keeps nodes fuller than plain splitting: ordered
 * runs of inserts leave them about 95% full instead of 70%.
 */
static __attribute__((noinline)) void bt_spread3(struct vma_index *idx, struct btree_node *p, unsigned k, uintptr_t lo,
		       struct btree_node *a, struct btree_node *b, struct btree_node *c,
		       struct btree_node *extra)
{
	uintptr_t tk[2 * BT_SLOTS], ta[2 * BT_SLOTS];
	void *tp[2 * BT_SLOTS];
	struct btree_node *src[3] = { a, b, c }, *d0 = p->child[k], *d1 = p->child[k + 1];
	unsigned total = 0, s, j, left;

	for (s = 0; s < 3; s++)
		for (j = 0; j < src[s]->nr; j++) {
			tk[total] = src[s]->key[j];
			ta[total] = src[s]->start[j];
			tp[total] = src[s]->ptr[j];
			total++;
		}
	left = (total + 1) / 2;
	for (j = 0; j < BT_SLOTS; j++) {
		if (j < left) {
			d0->key[j] = tk[j];
			d0->start[j] = ta[j];
			d0->ptr[j] = tp[j];
		} else {
			bt_slot_clear(d0, j);
		}
		if (left + j < total) {
			d1->key[j] = tk[left + j];
			d1->start[j] = ta[left + j];
			d1->ptr[j] = tp[left + j];
		} else {
			bt_slot_clear(d1, j);
		}
	}
	d0->nr = left;
	d1->nr = total - left;
	bt_node_free(idx, extra);
	bt_refresh(p, k, lo);
	bt_refresh(p, k + 1, lo);
}

/* Insert v below n (predecessor end lo). Returns n's new right sibling after a split, or NULL. */
static struct btree_node *bt_insert_rec(struct vma_index *idx, struct btree_node *n, uintptr_t lo,
					struct vma *v)
{
	struct btree_node *sib;
	unsigned i;

	idx->accesses++;
	if (n->leaf)
		return bt_node_insert(idx, n, bt_slot(n, v->start), v->end, v->start, v);
	i = bt_slot(n, v->start);
	if (i >= n->nr)
		i = n->nr - 1;          /* above everything: append in the last child */
	sib = bt_insert_rec(idx, n->child[i], bt_child_lo(n, i, lo), v);
	bt_refresh(n, i, lo);
	if (!sib)
		return NULL;
	/* Child i split into child i and sib: fold the three into two with a roomy neighbour. */
	if (i > 0) {
		idx->accesses++;
		if (n->child[i - 1]->nr + n->child[i]->nr + sib->nr <= 2 * BT_SLOTS) {
			bt_spread3(idx, n, i - 1, lo, n->child[i - 1], n->child[i], sib, sib);
			return NULL;
		}
	}
	if (i + 1 < n->nr) {
		idx->accesses++;
		if (n->child[i]->nr + sib->nr + n->child[i + 1]->nr <= 2 * BT_SLOTS) {
			bt_spread3(idx, n, i, lo, n->child[i], sib, n->child[i + 1], sib);
			return NULL;
		}
	}
	return bt_node_insert(idx, n, i + 1, bt_max(sib), bt_node_gap(sib, n->key[i]), sib);
}

static void bt_insert(struct vma_index *idx, struct vma *v)
{
	struct btree_node *root = idx->u.bt.root, *sib;

	BUG_ON(v->start >= v->end);
	bt_cache_set(idx, NULL);
	idx->count++;
	if (!root) {
		root = bt_node_new(idx, true);
		idx->accesses++;
		bt_node_insert(idx, root, 0, v->end, v->start, v);
		idx->u.bt.root = root;
		idx->u.bt.height = 1;
		return;
	}
	sib = bt_insert_rec(idx, root, 0, v);
	if (sib) {
		struct btree_node *nr = bt_node_new(idx, false);
		idx->accesses++;
		nr->child[0] = root;
		nr->child[1] = sib;
		nr->nr = 2;
		bt_refresh(nr, 0, 0);
		bt_refresh(nr, 1, 0);
		idx->u.bt.root = nr;
		idx->u.bt.height++;
	}
}

/* ---------------------------------------------------------------- erase */

/*
 * Child i of p (predecessor end lo) has fewer than BT_MIN slots: merge it
 * with a sibling or borrow one slot from it.
 */
static void bt_rebalance(struct vma_index *idx, struct btree_node *p, unsigned i, uintptr_t lo)
{
	unsigned li = i ? i - 1 : 0;
	struct btree_node *l = p->child[li], *r = p->child[li + 1];
	unsigned j;

	idx->accesses++;                /* the sibling */
	if (l->nr + r->nr <= BT_SLOTS) {
		for (j = 0; j < r->nr; j++)
			bt_slot_copy(l, l->nr + j, r, j);
		l->nr += r->nr;
		bt_slot_remove(p, li + 1);
		bt_node_free(idx, r);
		bt_refresh(p, li, lo);
		return;
	}
	if (i) {                        /* r underflowed: take l's last */
		for (j = r->nr; j > 0; j--)
			bt_slot_copy(r, j, r, j - 1);
		bt_slot_copy(r, 0, l, l->nr - 1);
		r->nr++;
		l->nr--;
		bt_slot_clear(l, l->nr);
	} else {                        /* l underflowed: take r's first */
		bt_slot_copy(l, l->nr, r, 0);
		l->nr++;
		bt_slot_remove(r, 0);
	}
	bt_refresh(p, li, lo);
	bt_refresh(p, li + 1, lo);
}

/*
 * After child i of p changed (its old largest end was old_key): refresh its
 * annotations, repair the next subtree's leading gap when that end moved,
 * and rebalance an underflowing child.
 */
static void bt_after_child(struct vma_index *idx, struct btree_node *p, unsigned i, uintptr_t lo,
			   uintptr_t old_key)
{
	bt_refresh(p, i, lo);
	if (p->key[i] != old_key && i + 1 < p->nr)
		p->gap[i + 1] = bt_spine_fix(idx, p->child[i + 1], p->key[i]);
	if (p->child[i]->nr < BT_MIN)
		bt_rebalance(idx, p, i, lo);
}

static void bt_erase_rec(struct vma_index *idx, struct btree_node *n, uintptr_t lo, struct vma *v)
{
	unsigned i;
	uintptr_t old;

	idx->accesses++;
	i = bt_slot(n, v->start);
	BUG_ON(i >= n->nr);
	if (n->leaf) {
		BUG_ON(n->vma[i] != v);
		bt_slot_remove(n, i);
		return;
	}
	old = n->key[i];
	bt_erase_rec(idx, n->child[i], bt_child_lo(n, i, lo), v);
	bt_after_child(idx, n, i, lo, old);
}

/* Shrink the root: drop an empty root leaf or an internal root with one child. */
static void bt_shrink_root(struct vma_index *idx)
{
	struct btree_node *root = idx->u.bt.root;

	if (root->leaf && root->nr == 0) {
		bt_node_free(idx, root);
		idx->u.bt.root = NULL;
		idx->u.bt.height = 0;
	} else if (!root->leaf && root->nr == 1) {
		idx->u.bt.root = root->child[0];
		idx->u.bt.height--;
		bt_node_free(idx, root);
	}
}

static void bt_erase(struct vma_index *idx, struct vma *v)
{
	BUG_ON(!idx->u.bt.root || idx->count == 0);
	bt_cache_set(idx, NULL);
	bt_erase_rec(idx, idx->u.bt.root, 0, v);
	idx->count--;
	bt_shrink_root(idx);
}

/* ---------------------------------------------------------------- update */

static void bt_update_rec(struct vma_index *idx, struct btree_node *n, uintptr_t lo, struct vma *v,
			  uintptr_t start, uintptr_t end)
{
	unsigned i;
	uintptr_t old;

	idx->accesses++;
	i = bt_slot(n, v->start);
	BUG_ON(i >= n->nr);
	if (n->leaf) {
		BUG_ON(n->vma[i] != v);
		n->start[i] = start;
		n->key[i] = end;
		return;
	}
	old = n->key[i];
	bt_update_rec(idx, n->child[i], bt_child_lo(n, i, lo), v, start, end);
	bt_refresh(n, i, lo);
	if (n->key[i] != old && i + 1 < n->nr)
		n->gap[i + 1] = bt_spine_fix(idx, n->child[i + 1], n->key[i]);
}

static void bt_update(struct vma_index *idx, struct vma *v, uintptr_t start, uintptr_t end)
{
	BUG_ON(start >= end || !idx->u.bt.root);
	bt_cache_set(idx, NULL);
	if (start < v->end && end > v->start) {
		/*
		 * Old and new ranges overlap, so no other VMA lies between them
		 * (it would overlap the new range): v keeps its place in order.
		 */
		bt_update_rec(idx, idx->u.bt.root, 0, v, start, end);
		v->start = start;
		v->end = end;
		return;
	}
	/* v moves past a gap: remove and reinsert (reserve covered the insert). */
	bt_erase_rec(idx, idx->u.bt.root, 0, v);
	idx->count--;
	bt_shrink_root(idx);
	v->start = start;
	v->end = end;
	bt_insert(idx, v);
}

/* ---------------------------------------------------------------- gaps */

struct bt_gapq {
	uintptr_t len, align, low, high, out;
};

enum { BT_GAP_MORE, BT_GAP_FOUND, BT_GAP_STOP };

/* Lowest fit in the gap [gs, ge) clipped to [low, high). */
static int bt_fit_low(struct bt_gapq *q, uintptr_t gs, uintptr_t ge)
{
	uintptr_t a;

	if (gs >= q->high)
		return BT_GAP_STOP;
	if (gs < q->low)
		gs = q->low;
	if (ge > q->high)
		ge = q->high;
	a = (gs + q->align - 1) & ~(q->align - 1);
	if (a < gs)
		return BT_GAP_STOP;         /* rounding up wrapped: nothing higher fits */
	if (a <= ge && ge - a >= q->len) {
		q->out = a;
		return BT_GAP_FOUND;
	}
	return BT_GAP_MORE;
}

/* Highest fit in the gap [gs, ge) clipped to [low, high). */
static int bt_fit_high(struct bt_gapq *q, uintptr_t gs, uintptr_t ge)
{
	uintptr_t a;

	if (ge <= q->low)
		return BT_GAP_STOP;
	if (gs < q->low)
		gs = q->low;
	if (ge > q->high)
		ge = q->high;
	if (ge > gs && ge - gs >= q->len) {
		a = (ge - q->len) & ~(q->align - 1);
		if (a >= gs) {
			q->out = a;
			return BT_GAP_FOUND;
		}
	}
	return BT_GAP_MORE;
}

static int bt_gap_bottom_rec(struct vma_index *idx, struct btree_node *n, uintptr_t lo, struct bt_gapq *q)
{
	unsigned i;
	int r;

	idx->accesses++;
	for (i = 0; i < n->nr; i++) {
		uintptr_t ilo = bt_child_lo(n, i, lo);
		if (n->leaf) {
			r = bt_fit_low(q, ilo, n->start[i]);
		} else {
			if (ilo >= q->high)
				return BT_GAP_STOP;
			if (n->key[i] <= q->low || n->gap[i] < q->len)
				continue;
			r = bt_gap_bottom_rec(idx, n->child[i], ilo, q);
		}
		if (r != BT_GAP_MORE)
			return r;
	}
	return BT_GAP_MORE;
}

static int bt_gap_top_rec(struct vma_index *idx, struct btree_node *n, uintptr_t lo, struct bt_gapq *q)
{
	unsigned i;
	int r;

	idx->accesses++;
	for (i = n->nr; i-- > 0;) {
		uintptr_t ilo = bt_child_lo(n, i, lo);
		if (n->leaf) {
			r = bt_fit_high(q, ilo, n->start[i]);
		} else {
			if (n->key[i] <= q->low)
				return BT_GAP_STOP;
			if (ilo >= q->high || n->gap[i] < q->len)
				continue;
			r = bt_gap_top_rec(idx, n->child[i], ilo, q);
		}
		if (r != BT_GAP_MORE)
			return r;
	}
	return BT_GAP_MORE;
}

static int bt_gap_bottom(struct vma_index *idx, uintptr_t len, uintptr_t align,
			 uintptr_t low, uintptr_t high, uintptr_t *out)
{
	struct bt_gapq q = { len, align, low, high, 0 };
	struct btree_node *root = idx->u.bt.root;
	uintptr_t top = 0;
	int r;

	if (len == 0 || low >= high || high - low < len)
		return -ENOMEM;
	if (root) {
		r = bt_gap_bottom_rec(idx, root, 0, &q);
		if (r == BT_GAP_STOP)
			return -ENOMEM;
		if (r == BT_GAP_FOUND)
			goto found;
		top = bt_max(root);
	}
	if (bt_fit_low(&q, top, UINTPTR_MAX) != BT_GAP_FOUND)   /* the gap above the last VMA */
		return -ENOMEM;
found:
	*out = q.out;
	return 0;
}

static int bt_gap_top(struct vma_index *idx, uintptr_t len, uintptr_t align,
		      uintptr_t low, uintptr_t high, uintptr_t *out)
{
	struct bt_gapq q = { len, align, low, high, 0 };
	struct btree_node *root = idx->u.bt.root;
	int r;

	if (len == 0 || low >= high || high - low < len)
		return -ENOMEM;
	/* First the gap above the last VMA; the root, read for its end, counts once. */
	r = bt_fit_high(&q, root ? bt_max(root) : 0, UINTPTR_MAX);
	if (root && r == BT_GAP_MORE)
		r = bt_gap_top_rec(idx, root, 0, &q);
	else if (root)
		idx->accesses++;
	if (r != BT_GAP_FOUND)
		return -ENOMEM;
	*out = q.out;
	return 0;
}

/* ---------------------------------------------------------------- check */

struct bt_ck {
	struct vma_index *idx;
	uintptr_t prev_end;
	size_t count, nodes;
};

#define BT_BAD(...) do { printk("vma_btree check: " __VA_ARGS__); printk("\n"); return -EINVAL; } while (0)

/* Verify subtree n at depth (root 0) with predecessor end lo; *gap = its largest owned gap. */
static int bt_check_rec(struct bt_ck *ck, struct btree_node *n, unsigned depth, uintptr_t lo,
			uintptr_t *gap)
{
	unsigned height = ck->idx->u.bt.height, i;
	bool root = depth == 0;
	uintptr_t g = 0;

	ck->nodes++;
	if (n->leaf != (depth + 1 == height))
		BT_BAD("node %p at depth %u of %u: leaf=%u", (void *)n, depth, height, n->leaf);
	if (n->nr > BT_SLOTS || n->nr < (root ? (n->leaf ? 1 : 2) : BT_MIN))
		BT_BAD("node %p at depth %u holds %u slots", (void *)n, depth, n->nr);
	for (i = n->nr; i < BT_SLOTS; i++)
		if (n->key[i] != UINTPTR_MAX)
			BT_BAD("node %p unused slot %u has key 0x%lx", (void *)n, i, (unsigned long)n->key[i]);
	if (lo != ck->prev_end)
		BT_BAD("node %p: lo 0x%lx but previous VMA ends at 0x%lx", (void *)n,
		       (unsigned long)lo, (unsigned long)ck->prev_end);
	for (i = 0; i < n->nr; i++) {
		if (n->leaf) {
			struct vma *v = n->vma[i];
			if (!v)
				BT_BAD("leaf %p slot %u: NULL VMA", (void *)n, i);
			if (v->start != n->start[i] || v->end != n->key[i])
				BT_BAD("leaf %p slot %u: VMA 0x%lx-0x%lx recorded as 0x%lx-0x%lx", (void *)n, i,
				       (unsigned long)v->start, (unsigned long)v->end,
				       (unsigned long)n->start[i], (unsigned long)n->key[i]);
			if (n->start[i] >= n->key[i])
				BT_BAD("leaf %p slot %u: empty range 0x%lx-0x%lx", (void *)n, i,
				       (unsigned long)n->start[i], (unsigned long)n->key[i]);
			if (ck->count && n->start[i] < ck->prev_end)
				BT_BAD("leaf %p slot %u: 0x%lx-0x%lx overlaps or precedes previous end 0x%lx",
				       (void *)n, i, (unsigned long)n->start[i], (unsigned long)n->key[i],
				       (unsigned long)ck->prev_end);
			if (n->start[i] - ck->prev_end > g)
				g = n->start[i] - ck->prev_end;
			ck->prev_end = n->key[i];
			ck->count++;
		} else {
			struct btree_node *c = n->child[i];
			uintptr_t cg;
			int err;
			if (!c)
				BT_BAD("node %p slot %u: NULL child", (void *)n, i);
			err = bt_check_rec(ck, c, depth + 1, bt_child_lo(n, i, lo), &cg);
			if (err)
				return err;
			if (n->key[i] != bt_max(c))
				BT_BAD("node %p slot %u: pivot 0x%lx but child ends at 0x%lx", (void *)n, i,
				       (unsigned long)n->key[i], (unsigned long)bt_max(c));
			if (n->gap[i] != cg)
				BT_BAD("node %p slot %u: gap 0x%lx but child's largest gap is 0x%lx", (void *)n, i,
				       (unsigned long)n->gap[i], (unsigned long)cg);
			if (cg > g)
				g = cg;
		}
	}
	*gap = g;
	return 0;
}

static int bt_check(struct vma_index *idx)
{
	struct bt_ck ck = { idx, 0, 0, 0 };
	struct btree_node *n;
	uintptr_t g;
	unsigned ns = 0;
	int err;

	for (n = idx->u.bt.spare; n && ns <= idx->u.bt.nspare; n = n->ptr[0])
		ns++;
	if (ns != idx->u.bt.nspare)
		BT_BAD("spare list holds %u nodes, nspare says %u", ns, idx->u.bt.nspare);
	if (!idx->u.bt.root) {
		if (idx->count || idx->u.bt.height || idx->u.bt.nodes)
			BT_BAD("empty tree but count %zu height %u nodes %zu", idx->count,
			       idx->u.bt.height, idx->u.bt.nodes);
		return 0;
	}
	if (idx->u.bt.height == 0 || idx->u.bt.height > BT_MAX_HEIGHT)
		BT_BAD("height %u", idx->u.bt.height);
	err = bt_check_rec(&ck, idx->u.bt.root, 0, 0, &g);
	if (err)
		return err;
	if (ck.count != idx->count)
		BT_BAD("%zu VMAs in the tree, count says %zu", ck.count, idx->count);
	if (ck.nodes != idx->u.bt.nodes)
		BT_BAD("%zu nodes in the tree, nodes says %zu", ck.nodes, idx->u.bt.nodes);
	return 0;
}

static size_t bt_bytes(struct vma_index *idx)
{
	return idx->u.bt.nodes * sizeof(struct btree_node);
}

const struct vma_index_ops vma_btree_ops = {
	.name = "btree",
	.init = bt_init,
	.destroy = bt_destroy,
	.find = bt_find,
	.find_prev = bt_find_prev,
	.reserve = bt_reserve,
	.insert = bt_insert,
	.erase = bt_erase,
	.update = bt_update,
	.next = bt_next,
	.prev = bt_prev,
	.first = bt_first,
	.last = bt_last,
	.gap_top = bt_gap_top,
	.gap_bottom = bt_gap_bottom,
	.check = bt_check,
	.bytes = bt_bytes,
};
