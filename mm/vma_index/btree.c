/*
 * The `btree` VMA index (the default): a B+tree of address ranges with free
 * gap tracking, in the spirit of Linux 6.1+'s maple tree.
 *
 * Design note
 * -----------
 * Nodes (struct btree_node, mm/vma_index/btree.h) are 256 bytes, from a
 * kmem_cache created on the first init and never destroyed. Every node has
 * BT_SLOTS = 12 slots of (key, aux, ptr) and a count; there are no parent
 * pointers (every operation descends from the root and keeps its path,
 * struct bt_path, on the C stack). The keys fill the first cache line and a
 * half, the pointers follow, aux and the counts come last: a step of a find
 * reads two lines (three for slots 8..11), and find goes by the height
 * rather than reading each node's leaf flag.
 *
 *   leaf:     key = VMA end          aux = VMA length       ptr = the VMA
 *   internal: key = largest end      aux = largest gap      ptr = the child
 *                   below the child        the child owns
 *
 * aux counts pages in 32 bits and saturates at BT_AUX_SAT (2^32 - 1 pages,
 * 16 TiB): the start of a VMA that long is read from the VMA (bt_start), and
 * a saturated gap means "16 TiB or more", which prunes only searches for
 * less. A leaf thus knows both bounds of its VMAs without reading a struct
 * vma. Unused slots have key UINTPTR_MAX and aux 0, so the slot search is a
 * branch-free binary search over all 12 keys (bt_slot: five compare-and-add
 * steps) and the largest gap of an internal node a branch-free maximum.
 *
 * Gaps. The free gap in front of VMA v is [end of v's predecessor (or 0),
 * v->start); it is owned by the leaf holding v, so every gap except the one
 * above the last VMA (handled by the searches themselves) has exactly one
 * owner. The annotation depends only on the set of VMAs, not on the tree
 * shape. The "lo" of a subtree (its predecessor's end) is the key left of
 * it in the nearest ancestor where the path does not take slot 0
 * (bt_path_lo). Annotations are repaired bottom-up along the path and only
 * as far as they change: an insert into a gap that was not its leaf's
 * largest, or an erase whose merged gap is no larger than what the parent
 * records, touches no ancestor at all. When the last VMA of a leaf changes
 * its end (erase, update), the leading gap of the next leaf changes too
 * (bt_succ_fix). An insert descends by start and so never lands after the
 * last VMA of a leaf except on the rightmost path.
 *
 * Fill. Non-root nodes hold BT_MIN (3) .. 12 slots, the root 1 (leaf) or 2
 * (internal) .. 12. A full node that gets one more slot splits 7/6; at its
 * edge (appending after the last slot, or in front of the first, or of the
 * first child's sibling in an internal node) it splits 10/3 with the small
 * part where the run continues. Ascending and descending runs of inserts
 * thus leave nodes 10/12 full: room for two random inserts per leaf before
 * a split, and splits that do not cascade. An erase that leaves a node with
 * two slots merges it with a sibling when both fit in one node, else
 * borrows one slot from it.
 *
 * Memory. 256 bytes per leaf of 3..12 VMAs. An ordered build: about 28
 * bytes per VMA, internal nodes included (10 VMAs per leaf, 10 children per
 * internal node: 25.6 * (1 + 1/10 + 1/100 ...)); nothing inside struct
 * vma. bytes() reports the tree's nodes; spare nodes are not counted.
 *
 * Allocation. Only inserts (and updates that move a VMA past a gap, which
 * erase and reinsert it) take nodes: one per split and one for a new root,
 * so at most height + 1 each. Erases and updates in place never take one.
 * reserve(n) tops up a private pool of spare nodes (BT(idx)->spare, linked
 * through next_spare) to what n inserts can need: insert k of the run meets
 * a tree of height at most min(h + k, hmax), hmax being the greatest height
 * a tree of count + n VMAs can have (2 * 3^(h-1) VMAs at least), so n * (hmax
 * + 1) bounds it, linear in n. It also gives back spares beyond that plus
 * BT_SPARE_KEEP. insert and update panic if the pool runs dry (a caller that
 * skipped reserve). Erase returns nodes to the pool (up to BT_SPARE_KEEP
 * beyond what it holds, the rest to the cache).
 *
 * Costs, in nodes touched (idx->accesses; every node read or written counts
 * once per visit), h = height = 1 + log_(3..12)(n / 3..12):
 *   find, find_prev              h (find_prev: + up to h - 1 when the
 *                                  predecessor is in the previous leaf)
 *   next, prev                   1 when the neighbour is in the leaf cached by
 *                                  the previous lookup, else 1 + h
 *   first, last                  h
 *   insert                       h + the new nodes of splits
 *   erase, update                h + siblings for merge/borrow + a descent to
 *                                  the next leaf when the last end of a leaf
 *                                  changed
 *   gap_top, gap_bottom          h when the first candidate gap fits; gaps
 *                                  that are long enough but fail alignment or
 *                                  bounds cost extra subtrees
 * Lookups leave two single words behind, written with relaxed atomic
 * stores so that concurrent lookups under the read lock race benignly, and
 * cleared by every mutation (write lock): the leaf they ended in
 * (BT(idx)->cache, for next and prev) and the slots of their path
 * (BT(idx)->last_path): erase and update of the VMA just looked up (or of
 * the one before it in the same leaf) follow those slots from the root
 * instead of searching each node again (bt_locate), as Linux's VMA code
 * reuses the maple state of the lookup.
 *
 * Locking: as for every index, the caller holds mm->mmap_lock (read for
 * lookups, write for insert/erase/update/reserve/destroy). The nodes'
 * kmem_cache has its own lock inside the slab allocator.
 *
 * Lock-free lookups (find_lockless, for fault_lock=vma's faults). While
 * idx->lockless is set, insert, erase and update run between two steps of
 * a write sequence, BT(idx)->seq (odd while the tree changes: a seqcount
 * over the whole tree, as the writers are one at a time anyway under the
 * mmap_lock). bt_find_lockless reads the sequence, descends, and before it
 * follows any pointer it read from a node (a child or the VMA) reads the
 * sequence again: unchanged, no write began since the descent did, so the
 * pointer was in the tree then; changed or odd, it starts over (and after
 * BT_LOCKLESS_TRIES gives up: the fault takes the mmap_lock). So a node it
 * visits may be one a writer has just taken out of the tree, and the
 * contents it reads from it garbage, but it never acts on them. What keeps
 * such a node readable is that a node taken out goes to the spare pool
 * (still a B-tree node, reused only as one), never to the cache, while
 * readers may run: the pool is trimmed back to the cache by
 * release_deferred, which mm/vma_lock.c calls after a grace period (every
 * lock-free section running at the write has ended). VMAs wait in the same
 * way (mm/vma.c's vma_free). A reader that meets a write starts over
 * rather than finishing on the old version: the writes are a few hundred
 * instructions, and the cost of a per-node scheme (Linux's maple tree marks
 * each replaced node dead and readers finish on old copies) is copying or
 * ordering every node change so that each intermediate tree stays
 * searchable, which this tree's in-place shifts do not.
 */
#include "vma.h"
#include "lockless.h"
#include "slab.h"
#include "printk.h"
#include "kerrno.h"
#include "kstring.h"
#include "btree.h"
#include "arch.h"

static struct kmem_cache *bt_cache;

/* A root-to-leaf path: node[0] is the root, node[leaf] the leaf, slot[d] the slot taken in node[d]. */
struct bt_path {
	struct btree_node *node[BT_MAX_HEIGHT];
	uint8_t slot[BT_MAX_HEIGHT];
	unsigned leaf;
};

/* ---------------------------------------------------------------- nodes */

static struct kmem_cache *bt_get_cache(void)
{
	struct kmem_cache *c = smp_load_acquire(&bt_cache);
	struct kmem_cache *expected = NULL;

	if (c)
		return c;
	c = kmem_cache_create("vma_btree_node", sizeof(struct btree_node), 64);
	if (!c)
		return NULL;
	if (!__atomic_compare_exchange_n(&bt_cache, &expected, c, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		kmem_cache_destroy(c);       /* another CPU won the race */
		c = expected;
	}
	return c;
}

static void bt_cache_set(struct vma_index *idx, struct btree_node *leaf)
{
	WRITE_ONCE(BT(idx)->cache, leaf);
}

/* Every change: the cached leaf and the last find's path may no longer be in the tree. */
static void bt_forget(struct vma_index *idx)
{
	bt_cache_set(idx, NULL);
	WRITE_ONCE(BT(idx)->last_path, 0);
}

static struct btree_node *bt_cache_get(struct vma_index *idx)
{
	return READ_ONCE(BT(idx)->cache);
}

/* Take a reserved node, empty, of the given kind. Panics without a reserve. */
static struct btree_node *bt_node_new(struct vma_index *idx, bool leaf)
{
	struct btree_node *n = BT(idx)->spare;
	unsigned i;

	if (!n)
		panic("vma_btree: node needed but none reserved (missing reserve() before insert/update)");
	BT(idx)->spare = n->next_spare;
	BT(idx)->nspare--;
	BT(idx)->nodes++;
	idx->accesses++;
	n->nr = 0;
	n->leaf = leaf;
	for (i = 0; i < BT_SLOTS; i++) {
		n->key[i] = UINTPTR_MAX;
		n->aux[i] = 0;
	}
	return n;
}

/*
 * Give a node that left the tree back to the spare pool (or the cache:
 * never while lock-free readers may still be in it, see the design note).
 */
static void bt_node_free(struct vma_index *idx, struct btree_node *n)
{
	BT(idx)->nodes--;
	if (BT(idx)->nspare < BT_SPARE_KEEP || idx->lockless) {
		n->next_spare = BT(idx)->spare;
		BT(idx)->spare = n;
		BT(idx)->nspare++;
	} else {
		kmem_cache_free(bt_cache, n);
	}
}

/* With lock-free readers: the tree is changing from now until bt_write_end (design note). */
static inline void bt_write_begin(struct vma_index *idx)
{
	if (unlikely(idx->lockless)) {
		WRITE_ONCE(BT(idx)->seq, BT(idx)->seq + 1);
		/* The odd sequence is seen before any node change (bt_find_lockless's fence). */
		__atomic_thread_fence(__ATOMIC_RELEASE);
	}
}

static inline void bt_write_end(struct vma_index *idx)
{
	if (unlikely(idx->lockless))
		smp_store_release(&BT(idx)->seq, BT(idx)->seq + 1);
}

_Static_assert(BT_SLOTS == 12, "bt_slot is unrolled for 12 keys");

/*
 * Number of keys <= addr (keys sorted, unused = UINTPTR_MAX): the slot whose
 * range holds addr. Branch-free in two rounds of independent compares:
 * key[3] and key[7] pick the group of four keys that holds the answer, then
 * the four keys of that group are counted (a key beyond the answer adds 0).
 * Six compares; two loads deep rather than a binary search's five. Each
 * key is read once, whole (READ_ONCE: plain loads on x86), so that
 * bt_find_lockless can use it while a writer changes the node.
 */
static inline unsigned bt_slot(const struct btree_node *n, uintptr_t addr)
{
	const uintptr_t *k = n->key;
	unsigned g = 4 * ((READ_ONCE(k[3]) <= addr) + (READ_ONCE(k[7]) <= addr));

	k += g;
	return g + (READ_ONCE(k[0]) <= addr) + (READ_ONCE(k[1]) <= addr) + (READ_ONCE(k[2]) <= addr) +
	       (READ_ONCE(k[3]) <= addr);
}

static inline uintptr_t bt_max(const struct btree_node *n)
{
	return n->key[n->nr - 1];
}

/* Pages in bytes (a multiple of PAGE_SIZE), saturated to fit aux. */
static inline uint32_t bt_pages(uintptr_t bytes)
{
	uintptr_t p = bytes >> PAGE_SHIFT;

	return p < BT_AUX_SAT ? (uint32_t)p : BT_AUX_SAT;
}

/* Start of the VMA in slot j of leaf n. */
static inline uintptr_t bt_start(const struct btree_node *n, unsigned j)
{
	uint32_t a = n->aux[j];

	if (likely(a != BT_AUX_SAT))
		return n->key[j] - ((uintptr_t)a << PAGE_SHIFT);
	return n->vma[j]->start;
}

/* Largest gap owned by leaf n whose predecessor ends at lo, in pages. */
static uint32_t bt_leaf_gap(const struct btree_node *n, uintptr_t lo)
{
	uintptr_t g = 0, prev = lo;
	unsigned j;

	for (j = 0; j < n->nr; j++) {
		uintptr_t d = bt_start(n, j) - prev;
		g = d > g ? d : g;
		prev = n->key[j];
	}
	return bt_pages(g);
}

/* Largest gap below internal node n (unused slots hold 0). */
static uint32_t bt_inner_gap(const struct btree_node *n)
{
	uint32_t g = 0;
	unsigned i;

	for (i = 0; i < BT_SLOTS; i++)
		g = n->aux[i] > g ? n->aux[i] : g;
	return g;
}

static uint32_t bt_node_gap(const struct btree_node *n, uintptr_t lo)
{
	return n->leaf ? bt_leaf_gap(n, lo) : bt_inner_gap(n);
}

/* Predecessor end of the subtree at level d of path p (0 if it starts the tree). */
static uintptr_t bt_path_lo(const struct bt_path *p, unsigned d)
{
	while (d-- > 0)
		if (p->slot[d])
			return p->node[d]->key[p->slot[d] - 1];
	return 0;
}

/* Copy cnt slots of src from sj to dst from dj (different nodes, or moving left). */
static void bt_copy(struct btree_node *dst, unsigned dj, const struct btree_node *src, unsigned sj,
		    unsigned cnt)
{
	unsigned k;

	for (k = 0; k < cnt; k++) {
		dst->key[dj + k] = src->key[sj + k];
		dst->aux[dj + k] = src->aux[sj + k];
		dst->ptr[dj + k] = src->ptr[sj + k];
	}
}

/* Mark slots from..BT_SLOTS-1 of n unused. */
static void bt_clear_from(struct btree_node *n, unsigned from)
{
	for (; from < BT_SLOTS; from++) {
		n->key[from] = UINTPTR_MAX;
		n->aux[from] = 0;
	}
}

/* Put (key, aux, ptr) into slot pos of n (n->nr < BT_SLOTS), shifting the rest right. */
static void bt_put(struct btree_node *n, unsigned pos, uintptr_t key, uint32_t aux, void *ptr)
{
	unsigned k;

	for (k = n->nr; k > pos; k--) {
		n->key[k] = n->key[k - 1];
		n->aux[k] = n->aux[k - 1];
		n->ptr[k] = n->ptr[k - 1];
	}
	n->key[pos] = key;
	n->aux[pos] = aux;
	n->ptr[pos] = ptr;
	n->nr++;
}

/* Remove slot j of n, shifting the rest left. */
static void bt_cut(struct btree_node *n, unsigned j)
{
	bt_copy(n, j, n, j + 1, n->nr - 1 - j);
	n->nr--;
	n->key[n->nr] = UINTPTR_MAX;
	n->aux[n->nr] = 0;
}

/* Recompute key[i] and aux[i] of internal p (lo: p's predecessor end) from child i. */
static void bt_refresh(struct btree_node *p, unsigned i, uintptr_t lo)
{
	struct btree_node *c = p->child[i];

	p->key[i] = bt_max(c);
	p->aux[i] = bt_node_gap(c, i ? p->key[i - 1] : lo);
}

/* ---------------------------------------------------------------- paths */

/*
 * Descend from the root by addr, recording the path; an address above
 * everything takes the last child (insert appends there). Returns the leaf;
 * p->slot[p->leaf] is left for the caller.
 */
static struct btree_node *bt_descend(struct vma_index *idx, uintptr_t addr, struct bt_path *p)
{
	struct btree_node *n = BT(idx)->root;
	unsigned d = 0, i;

	while (!n->leaf) {
		i = bt_slot(n, addr);
		i -= i == n->nr;
		p->node[d] = n;
		p->slot[d++] = (uint8_t)i;
		n = n->child[i];
	}
	p->node[d] = n;
	p->leaf = d;
	idx->accesses += d + 1;
	return n;
}

/* A gap of g pages appeared below node d of p: raise the ancestors' records that are smaller. */
static void bt_raise_gap(struct bt_path *p, unsigned d, uint32_t g)
{
	while (d-- > 0) {
		uint32_t *a = &p->node[d]->aux[p->slot[d]];
		if (*a >= g)
			return;
		*a = g;
	}
}

/*
 * Node d of p changed (slots, keys or gaps): recompute what each ancestor
 * records about the child on the path, up to the first that comes out
 * unchanged.
 */
static void bt_fix_up(struct bt_path *p, unsigned d)
{
	struct btree_node *n = p->node[d];
	uint32_t g = bt_node_gap(n, n->leaf ? bt_path_lo(p, d) : 0);

	while (d-- > 0) {
		struct btree_node *par = p->node[d];
		unsigned s = p->slot[d];

		if (par->key[s] == bt_max(n) && par->aux[s] == g)
			return;
		par->key[s] = bt_max(n);
		par->aux[s] = g;
		n = par;
		g = bt_inner_gap(n);
	}
}

/*
 * The VMA ending at `end` was the last of its leaf and the end moved or the
 * VMA went: the first VMA at or above `end` may head the next leaf, whose
 * leading gap then changed. Recompute that leaf's gaps.
 */
static void bt_succ_fix(struct vma_index *idx, uintptr_t end)
{
	struct btree_node *root = BT(idx)->root, *leaf;
	struct bt_path p;

	if (!root || root->leaf || bt_slot(root, end) >= root->nr)
		return;
	leaf = bt_descend(idx, end, &p);
	if (bt_slot(leaf, end) == 0)
		bt_fix_up(&p, p.leaf);
}

/*
 * The path to v, in p: the last lookup's when it leads to v or to the VMA
 * after v in the same leaf (followed from the root, every slot checked),
 * else a descent by v->start. Both count the nodes on the path.
 */
static void bt_locate(struct vma_index *idx, const struct vma *v, struct bt_path *p)
{
	uint64_t path = READ_ONCE(BT(idx)->last_path);
	unsigned depth = path & 15, d, s = 0;
	struct btree_node *n = BT(idx)->root, *leaf;

	if (depth && depth == BT(idx)->height) {
		for (d = 0; d < depth; d++) {
			s = (path >> (4 * (depth - d))) & 15;
			if (s >= n->nr)
				break;
			p->node[d] = n;
			p->slot[d] = (uint8_t)s;
			if (d + 1 < depth)
				n = n->child[s];
		}
		if (d == depth && n->vma[s] != v && s && n->vma[s - 1] == v)
			p->slot[depth - 1] = (uint8_t)--s;      /* find_prev's prev, in the same leaf */
		if (d == depth && n->vma[s] == v) {
			p->leaf = depth - 1;
			idx->accesses += depth;
			return;
		}
	}
	leaf = bt_descend(idx, v->start, p);
	s = bt_slot(leaf, v->start);
	BUG_ON(s >= leaf->nr || leaf->vma[s] != v);
	p->slot[p->leaf] = (uint8_t)s;
}

/* ---------------------------------------------------------------- init */

static void bt_init(struct vma_index *idx)
{
	idx->ops = &vma_btree_ops;
	idx->count = 0;
	idx->accesses = 0;
	idx->lockless = false;
	memset(BT(idx), 0, sizeof(struct bt_state));
	bt_get_cache();         /* lazily, once; reserve retries on failure */
}

static void bt_free_tree(struct btree_node *n)
{
	unsigned i;

	if (!n->leaf)
		for (i = 0; i < n->nr; i++)
			bt_free_tree(n->child[i]);
	kmem_cache_free(bt_cache, n);
}

/* Return spare nodes to the cache until keep are left. */
static void bt_trim_spares(struct vma_index *idx, uint64_t keep)
{
	struct btree_node *n;

	while (BT(idx)->nspare > keep) {
		n = BT(idx)->spare;
		BT(idx)->spare = n->next_spare;
		BT(idx)->nspare--;
		kmem_cache_free(bt_cache, n);
	}
}

static void bt_destroy(struct vma_index *idx)
{
	BUG_ON(idx->count != 0);
	if (BT(idx)->root)
		bt_free_tree(BT(idx)->root);
	bt_trim_spares(idx, 0);
	memset(BT(idx), 0, sizeof(struct bt_state));
}

/* Greatest height of a tree of n VMAs: height h >= 2 needs 2 * 3^(h-1) of them. */
static uint64_t bt_height_bound(uint64_t n)
{
	uint64_t h = 1, least = 6;

	while (least <= n) {
		h++;
		least *= BT_MIN;
	}
	return h;
}

/* Nodes that nr inserts can take (see the design note). */
static uint64_t bt_need(struct vma_index *idx, unsigned nr)
{
	uint64_t h = BT(idx)->height, hmax = bt_height_bound(idx->count + nr), need = 0, k;

	for (k = 0; k < nr && h + k < hmax; k++)
		need += h + k + 1;
	return need + (nr - k) * (hmax + 1);
}

static int bt_reserve(struct vma_index *idx, unsigned nr)
{
	uint64_t need = bt_need(idx, nr), have = BT(idx)->nspare, k;
	struct btree_node *got = NULL, *n;
	struct kmem_cache *c = bt_get_cache();

	if (!c)
		return -ENOMEM;
	if (have >= need) {
		if (!idx->lockless)     /* else release_deferred trims, after a grace period */
			bt_trim_spares(idx, need + BT_SPARE_KEEP);
		return 0;
	}
	for (k = 0; have + k < need; k++) {
		n = kmem_cache_alloc(c);
		if (!n) {
			while ((n = got)) {
				got = n->next_spare;
				kmem_cache_free(c, n);
			}
			return -ENOMEM;
		}
		n->next_spare = got;
		got = n;
	}
	while ((n = got)) {
		got = n->next_spare;
		n->next_spare = BT(idx)->spare;
		BT(idx)->spare = n;
		BT(idx)->nspare++;
	}
	return 0;
}

/* ---------------------------------------------------------------- lookups */

/*
 * The lookups record the path to the leaf they end in for a following
 * erase or update (bt_locate) in one word, BT(idx)->last_path: the depth in
 * bits 0-3 and above them the slot taken at each level, four bits each,
 * the leaf's lowest (BT_PATH_LEVELS levels at most). Only slots are kept,
 * no pointers: bt_locate follows them from the root and accepts the path
 * only if it ends at the VMA, so a word written by a concurrent lookup
 * (under the read lock) can only be refused, never misread.
 */
static void bt_record(struct vma_index *idx, uint64_t path, unsigned depth)
{
	WRITE_ONCE(BT(idx)->last_path, depth <= BT_PATH_LEVELS ? path << 4 | depth : 0);
}

/* From n (counted) down the last children (right) or the first ones to a leaf, extending the path. */
static struct btree_node *bt_edge(struct vma_index *idx, struct btree_node *n, bool right,
				  uint64_t *path, unsigned *depth)
{
	for (;;) {
		unsigned i = right ? n->nr - 1u : 0;

		*path = *path << 4 | i;
		++*depth;
		if (n->leaf)
			return n;
		n = n->child[i];
		idx->accesses++;
	}
}

static struct vma *bt_find(struct vma_index *idx, uintptr_t addr)
{
	struct btree_node *n = BT(idx)->root;
	uint64_t path;
	unsigned i, d = 1;

	if (!n)
		return NULL;
	i = bt_slot(n, addr);
	if (i >= n->nr) {
		idx->accesses++;
		return NULL;
	}
	path = i;
	for (; d < BT(idx)->height; d++) {             /* by height: n->leaf is on another line */
		n = n->child[i];
		i = bt_slot(n, addr);
		path = path << 4 | i;
	}
	idx->accesses += d;
	bt_record(idx, path, d);
	bt_cache_set(idx, n);
	return n->vma[i];
}

static struct vma *bt_find_prev(struct vma_index *idx, uintptr_t addr, struct vma **prev)
{
	struct btree_node *n = BT(idx)->root, *left = NULL;
	uint64_t path = 0, lpath = 0;
	unsigned i, d = 0, ld = 0;

	*prev = NULL;
	if (!n)
		return NULL;
	idx->accesses++;
	if (addr >= bt_max(n)) {
		n = bt_edge(idx, n, true, &path, &d);
		bt_record(idx, path, d);
		bt_cache_set(idx, n);
		*prev = n->vma[n->nr - 1];
		return NULL;
	}
	for (;;) {
		i = bt_slot(n, addr);
		path = path << 4 | i;
		d++;
		if (n->leaf)
			break;
		if (i)
			left = n->child[i - 1];
		n = n->child[i];
		idx->accesses++;
	}
	if (i) {
		*prev = n->vma[i - 1];
	} else if (left) {
		struct btree_node *l;
		idx->accesses++;
		l = bt_edge(idx, left, true, &lpath, &ld);
		*prev = l->vma[l->nr - 1];
	}
	bt_record(idx, path, d);
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
	j = bt_slot(n, v->start);
	return j < n->nr && n->vma[j] == v ? (int)j : -1;
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
	struct btree_node *n = BT(idx)->root;
	uint64_t path = 0;
	unsigned d = 0;

	if (!n)
		return NULL;
	idx->accesses++;
	n = bt_edge(idx, n, false, &path, &d);
	bt_record(idx, path, d);
	bt_cache_set(idx, n);
	return n->vma[0];
}

static struct vma *bt_last(struct vma_index *idx)
{
	struct btree_node *n = BT(idx)->root;
	uint64_t path = 0;
	unsigned d = 0;

	if (!n)
		return NULL;
	idx->accesses++;
	n = bt_edge(idx, n, true, &path, &d);
	bt_record(idx, path, d);
	bt_cache_set(idx, n);
	return n->vma[n->nr - 1];
}

/* ---------------------------------------------------------------- insert */

/* Slots the left node keeps when full n splits with a new slot at pos (see the design note). */
static unsigned bt_split_point(const struct btree_node *n, unsigned pos)
{
	if (pos == BT_SLOTS)
		return BT_EDGE_KEEP;
	if (pos <= (n->leaf ? 0u : 1u))
		return BT_SLOTS + 1 - BT_EDGE_KEEP;
	return (BT_SLOTS + 2) / 2;
}

/*
 * Put (key, aux, ptr) at slot pos of full node n by splitting it: the upper
 * part moves to a new node, which is returned. Annotations are the caller's.
 */
static struct btree_node *bt_split(struct vma_index *idx, struct btree_node *n, unsigned pos,
				   uintptr_t key, uint32_t aux, void *ptr)
{
	unsigned left = bt_split_point(n, pos);
	struct btree_node *r = bt_node_new(idx, n->leaf);

	if (pos < left) {
		bt_copy(r, 0, n, left - 1, BT_SLOTS + 1 - left);
		r->nr = (uint8_t)(BT_SLOTS + 1 - left);
		n->nr = (uint8_t)(left - 1);
		bt_clear_from(n, left - 1);
		bt_put(n, pos, key, aux, ptr);
	} else {
		bt_copy(r, 0, n, left, BT_SLOTS - left);
		r->nr = (uint8_t)(BT_SLOTS - left);
		n->nr = (uint8_t)left;
		bt_clear_from(n, left);
		bt_put(r, pos - left, key, aux, ptr);
	}
	return r;
}

/* The root n split into n and r: a new root above them. */
static void bt_grow_root(struct vma_index *idx, struct btree_node *n, uint32_t gn,
			 struct btree_node *r, uint32_t gr)
{
	struct btree_node *root = bt_node_new(idx, false);

	bt_put(root, 0, bt_max(n), gn, n);
	bt_put(root, 1, bt_max(r), gr, r);
	BT(idx)->root = root;
	BT(idx)->height++;
}

/* Put (key, aux, ptr) at slot pos of node d of p, splitting upwards as needed; then fix annotations. */
static void bt_put_split(struct vma_index *idx, struct bt_path *p, unsigned d, unsigned pos,
			 uintptr_t key, uint32_t aux, void *ptr)
{
	for (;;) {
		struct btree_node *n = p->node[d], *r, *par;
		uint32_t gn, gr;

		if (n->nr < BT_SLOTS) {
			bt_put(n, pos, key, aux, ptr);
			bt_fix_up(p, d);
			return;
		}
		r = bt_split(idx, n, pos, key, aux, ptr);
		gn = bt_node_gap(n, n->leaf ? bt_path_lo(p, d) : 0);
		gr = bt_node_gap(r, bt_max(n));
		if (d == 0) {
			bt_grow_root(idx, n, gn, r, gr);
			return;
		}
		par = p->node[--d];
		par->key[p->slot[d]] = bt_max(n);
		par->aux[p->slot[d]] = gn;
		pos = p->slot[d] + 1u;
		key = bt_max(r);
		aux = gr;
		ptr = r;
	}
}

/* v went into slot j of its leaf without a split: bring the ancestors' records up to date. */
static void bt_insert_fix(struct bt_path *p, unsigned j, const struct vma *v)
{
	unsigned d = p->leaf;
	struct btree_node *leaf = p->node[d], *par;
	uintptr_t prev_end;

	if (d == 0)
		return;                 /* a root leaf has nobody above it */
	prev_end = j ? leaf->key[j - 1] : bt_path_lo(p, d);
	if (j + 1u == leaf->nr) {
		/* Appended after everything (rightmost path): a new largest end on every level. */
		unsigned l;
		for (l = 0; l < d; l++)
			p->node[l]->key[p->slot[l]] = v->end;
		bt_raise_gap(p, d, bt_pages(v->start - prev_end));
		return;
	}
	/* v split the gap in front of the VMA now at j + 1; only if that was the largest can it matter. */
	par = p->node[d - 1];
	if (bt_pages(bt_start(leaf, j + 1) - prev_end) >= par->aux[p->slot[d - 1]])
		bt_fix_up(p, d);
}

static void bt_insert(struct vma_index *idx, struct vma *v)
{
	struct btree_node *leaf;
	struct bt_path p;
	unsigned j;

	BUG_ON(v->start >= v->end);
	bt_forget(idx);
	idx->count++;
	bt_write_begin(idx);
	if (!BT(idx)->root) {
		leaf = bt_node_new(idx, true);
		bt_put(leaf, 0, v->end, bt_pages(v->end - v->start), v);
		BT(idx)->root = leaf;
		BT(idx)->height = 1;
	} else {
		leaf = bt_descend(idx, v->start, &p);
		j = bt_slot(leaf, v->start);
		p.slot[p.leaf] = (uint8_t)j;
		if (leaf->nr < BT_SLOTS) {
			bt_put(leaf, j, v->end, bt_pages(v->end - v->start), v);
			bt_insert_fix(&p, j, v);
		} else {
			bt_put_split(idx, &p, p.leaf, j, v->end, bt_pages(v->end - v->start), v);
		}
	}
	bt_write_end(idx);
}

/* ---------------------------------------------------------------- erase */

/* Drop a root that is an empty leaf or an internal node with one child. */
static void bt_shrink_root(struct vma_index *idx)
{
	struct btree_node *root = BT(idx)->root;

	if (root->leaf && root->nr == 0) {
		bt_node_free(idx, root);
		BT(idx)->root = NULL;
		BT(idx)->height = 0;
	} else if (!root->leaf && root->nr == 1) {
		BT(idx)->root = root->child[0];
		BT(idx)->height--;
		bt_node_free(idx, root);
	}
}

/*
 * Node d of p (d > 0) has fewer than BT_MIN slots: merge it with a sibling
 * or borrow one slot from it, moving up while parents underflow; then fix
 * the annotations above.
 */
static void bt_rebalance(struct vma_index *idx, struct bt_path *p, unsigned d)
{
	for (;;) {
		struct btree_node *par = p->node[d - 1], *l, *r;
		unsigned s = p->slot[d - 1], ls = s ? s - 1 : 0;
		uintptr_t lo = bt_path_lo(p, d - 1);

		l = par->child[ls];
		r = par->child[ls + 1];
		idx->accesses++;                        /* the sibling */
		if (l->nr + r->nr > BT_SLOTS) {
			if (s) {                        /* r underflowed: take l's last */
				bt_put(r, 0, l->key[l->nr - 1], l->aux[l->nr - 1], l->ptr[l->nr - 1]);
				bt_cut(l, l->nr - 1u);
			} else {                        /* l underflowed: take r's first */
				bt_put(l, l->nr, r->key[0], r->aux[0], r->ptr[0]);
				bt_cut(r, 0);
			}
			bt_refresh(par, ls, lo);
			bt_refresh(par, ls + 1, lo);
			bt_fix_up(p, d - 1);
			return;
		}
		bt_copy(l, l->nr, r, 0, r->nr);
		l->nr = (uint8_t)(l->nr + r->nr);
		bt_cut(par, ls + 1);
		bt_node_free(idx, r);
		bt_refresh(par, ls, lo);
		if (--d == 0) {
			bt_shrink_root(idx);
			return;
		}
		if (par->nr >= BT_MIN) {
			bt_fix_up(p, d);
			return;
		}
	}
}

/* Remove the VMA at the end of path p (slot p->slot[p->leaf] of the leaf). */
static void bt_remove(struct vma_index *idx, struct bt_path *p)
{
	unsigned d = p->leaf, j = p->slot[d];
	struct btree_node *leaf = p->node[d];
	uintptr_t end = leaf->key[j], prev_end;
	bool last = j + 1u == leaf->nr;

	bt_cut(leaf, j);
	if (d == 0) {
		bt_shrink_root(idx);
		return;
	}
	if (leaf->nr < BT_MIN) {
		bt_rebalance(idx, p, d);
	} else if (!last) {
		/* The gaps in front of the VMA and of its successor merged into one. */
		prev_end = j ? leaf->key[j - 1] : bt_path_lo(p, d);
		bt_raise_gap(p, d, bt_pages(bt_start(leaf, j) - prev_end));
		return;
	} else {
		bt_fix_up(p, d);                /* a new largest end; the VMA's gap is gone */
	}
	if (last)
		bt_succ_fix(idx, end);
}

static void bt_erase(struct vma_index *idx, struct vma *v)
{
	struct bt_path p;

	BUG_ON(!BT(idx)->root || idx->count == 0);
	bt_locate(idx, v, &p);
	bt_forget(idx);
	idx->count--;
	bt_write_begin(idx);
	bt_remove(idx, &p);
	bt_write_end(idx);
}

/* ---------------------------------------------------------------- update */

static void bt_update(struct vma_index *idx, struct vma *v, uintptr_t start, uintptr_t end)
{
	struct btree_node *leaf;
	struct bt_path p;
	uintptr_t old_end = v->end;
	unsigned j;

	BUG_ON(start >= end || !BT(idx)->root);
	if (start >= v->end || end <= v->start) {
		/* v moves past a gap: remove and reinsert (reserve covered the insert). */
		bt_erase(idx, v);
		v->start = start;
		v->end = end;
		bt_insert(idx, v);
		return;
	}
	/*
	 * Old and new ranges overlap, so no other VMA lies between them (it
	 * would overlap the new range): v keeps its slot.
	 */
	bt_locate(idx, v, &p);
	bt_forget(idx);
	leaf = p.node[p.leaf];
	j = p.slot[p.leaf];
	bt_write_begin(idx);
	v->start = start;
	v->end = end;
	leaf->key[j] = end;
	leaf->aux[j] = bt_pages(end - start);
	if (p.leaf > 0) {
		bt_fix_up(&p, p.leaf);
		if (j + 1u == leaf->nr && end != old_end)
			bt_succ_fix(idx, end);
	}
	bt_write_end(idx);
}

/* ---------------------------------------------------------------- lock-free find */

/*
 * find_lockless (see the design note): every value read from a node is used
 * only after the write sequence is found unchanged since the descent began.
 * Counts no accesses (idx->accesses is the locked operations' count).
 */
static struct vma *bt_find_lockless(struct vma_index *idx, uintptr_t addr)
{
	struct bt_state *bt = BT(idx);

	for (unsigned tries = 0; tries < BT_LOCKLESS_TRIES; tries++) {
		uint32_t seq = smp_load_acquire(&bt->seq);
		struct btree_node *n;

		if (seq & 1) {
			arch_cpu_relax();       /* a write is under way: a few hundred instructions */
			continue;
		}
		n = READ_ONCE(bt->root);
		for (;;) {
			void *p = NULL;
			bool leaf = false;

			if (n) {
				unsigned i = bt_slot(n, addr);

				leaf = READ_ONCE(n->leaf);
				if (i < READ_ONCE(n->nr))       /* also keeps i inside the node */
					p = READ_ONCE(n->ptr[i]);
			}
			/* What was read above comes before the check below (pairs with bt_write_begin). */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (READ_ONCE(bt->seq) != seq)
				break;                  /* a write began: start over */
			if (!p || leaf)
				return p;
			n = p;
		}
	}
	return NULL;
}

static size_t bt_deferred(struct vma_index *idx)
{
	return BT(idx)->nspare > BT_SPARE_KEEP ? BT(idx)->nspare - BT_SPARE_KEEP : 0;
}

/* The nodes kept from the cache while lock-free readers could see them go back now. */
static void bt_release_deferred(struct vma_index *idx)
{
	bt_trim_spares(idx, BT_SPARE_KEEP);
}

/* ---------------------------------------------------------------- gaps */

struct bt_gapq {
	uintptr_t len, align, low, high, out;
	uint32_t need;          /* len in pages, saturated: subtrees recording less cannot hold it */
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

/*
 * The scans below start at the slot that holds low (bottom) or high (top),
 * found by binary search: the slots beyond lie wholly outside [low, high).
 * They skip gaps and subtrees too small for len before any clipping.
 */

/* Lowest fit in leaf n (predecessor end lo). */
static int bt_gap_bottom_leaf(const struct btree_node *n, uintptr_t lo, struct bt_gapq *q)
{
	unsigned j;
	int r;

	for (j = bt_slot(n, q->low); j < n->nr; j++) {
		uintptr_t prev = j ? n->key[j - 1] : lo, s = bt_start(n, j);

		if (prev >= q->high)
			return BT_GAP_STOP;
		if (s - prev >= q->len && (r = bt_fit_low(q, prev, s)) != BT_GAP_MORE)
			return r;
	}
	return BT_GAP_MORE;
}

/* Lowest fit below n (predecessor end lo). */
static int bt_gap_bottom_rec(struct vma_index *idx, const struct btree_node *n, uintptr_t lo,
			     struct bt_gapq *q)
{
	unsigned i;
	int r;

	idx->accesses++;
	if (n->leaf)
		return bt_gap_bottom_leaf(n, lo, q);
	for (i = bt_slot(n, q->low); i < n->nr; i++) {
		uintptr_t ilo = i ? n->key[i - 1] : lo;

		if (ilo >= q->high)
			return BT_GAP_STOP;
		if (n->aux[i] >= q->need && (r = bt_gap_bottom_rec(idx, n->child[i], ilo, q)) != BT_GAP_MORE)
			return r;
	}
	return BT_GAP_MORE;
}

/* Highest fit in leaf n (predecessor end lo). */
static int bt_gap_top_leaf(const struct btree_node *n, uintptr_t lo, struct bt_gapq *q)
{
	unsigned j = bt_slot(n, q->high);
	int r;

	for (j = j < n->nr ? j + 1 : n->nr; j-- > 0;) {
		uintptr_t prev = j ? n->key[j - 1] : lo, s = bt_start(n, j);

		if (s <= q->low)
			return BT_GAP_STOP;
		if (s - prev >= q->len && (r = bt_fit_high(q, prev, s)) != BT_GAP_MORE)
			return r;
	}
	return BT_GAP_MORE;
}

/* Highest fit below n (predecessor end lo). */
static int bt_gap_top_rec(struct vma_index *idx, const struct btree_node *n, uintptr_t lo,
			  struct bt_gapq *q)
{
	unsigned i;
	int r;

	idx->accesses++;
	if (n->leaf)
		return bt_gap_top_leaf(n, lo, q);
	i = bt_slot(n, q->high);
	for (i = i < n->nr ? i + 1 : n->nr; i-- > 0;) {
		if (n->key[i] <= q->low)
			return BT_GAP_STOP;
		if (n->aux[i] >= q->need &&
		    (r = bt_gap_top_rec(idx, n->child[i], i ? n->key[i - 1] : lo, q)) != BT_GAP_MORE)
			return r;
	}
	return BT_GAP_MORE;
}

/* Validate a gap query and fill q; false when no range can satisfy it. */
static bool bt_gap_query(struct bt_gapq *q, uintptr_t len, uintptr_t align, uintptr_t low, uintptr_t high)
{
	if (len == 0 || low >= high || high - low < len)
		return false;
	q->len = len;
	q->align = align;
	q->low = low;
	q->high = high;
	q->out = 0;
	q->need = bt_pages(len + PAGE_SIZE - 1 < len ? len : len + PAGE_SIZE - 1);
	return true;
}

static int bt_gap_bottom(struct vma_index *idx, uintptr_t len, uintptr_t align,
			 uintptr_t low, uintptr_t high, uintptr_t *out)
{
	struct btree_node *root = BT(idx)->root;
	struct bt_gapq q;
	uintptr_t top = 0;
	int r = BT_GAP_MORE;

	if (!bt_gap_query(&q, len, align, low, high))
		return -ENOMEM;
	if (root) {
		r = bt_gap_bottom_rec(idx, root, 0, &q);
		top = bt_max(root);
	}
	if (r == BT_GAP_MORE)                   /* the gap above the last VMA */
		r = bt_fit_low(&q, top, UINTPTR_MAX);
	if (r != BT_GAP_FOUND)
		return -ENOMEM;
	*out = q.out;
	return 0;
}

static int bt_gap_top(struct vma_index *idx, uintptr_t len, uintptr_t align,
		      uintptr_t low, uintptr_t high, uintptr_t *out)
{
	struct btree_node *root = BT(idx)->root;
	struct bt_gapq q;
	int r;

	if (!bt_gap_query(&q, len, align, low, high))
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

/* The shape of node n at depth (root 0): kind, fill, sorted keys, clean unused slots. */
static int bt_check_node(struct bt_ck *ck, const struct btree_node *n, unsigned depth)
{
	unsigned height = BT(ck->idx)->height, i;
	bool root = depth == 0;

	ck->nodes++;
	if (n->leaf != (depth + 1 == height))
		BT_BAD("node %p at depth %u of %u: leaf=%u", (const void *)n, depth, height, n->leaf);
	if (n->nr > BT_SLOTS || n->nr < (root ? (n->leaf ? 1 : 2) : BT_MIN))
		BT_BAD("node %p at depth %u holds %u slots", (const void *)n, depth, n->nr);
	for (i = n->nr; i < BT_SLOTS; i++)
		if (n->key[i] != UINTPTR_MAX || n->aux[i] != 0)
			BT_BAD("node %p unused slot %u has key 0x%lx aux %u", (const void *)n, i,
			       (unsigned long)n->key[i], n->aux[i]);
	for (i = 1; i < n->nr; i++)
		if (n->key[i] <= n->key[i - 1])
			BT_BAD("node %p keys %u and %u out of order", (const void *)n, i - 1, i);
	return 0;
}

/* Slot j of leaf n against its VMA and the previous VMA's end. */
static int bt_check_leaf_slot(struct bt_ck *ck, const struct btree_node *n, unsigned j, uintptr_t *gap)
{
	const struct vma *v = n->vma[j];

	if (!v)
		BT_BAD("leaf %p slot %u: NULL VMA", (const void *)n, j);
	if (v->start >= v->end || v->end != n->key[j] || n->aux[j] != bt_pages(v->end - v->start))
		BT_BAD("leaf %p slot %u: VMA 0x%lx-0x%lx recorded as end 0x%lx, %u pages", (const void *)n, j,
		       (unsigned long)v->start, (unsigned long)v->end, (unsigned long)n->key[j], n->aux[j]);
	if (bt_start(n, j) != v->start)
		BT_BAD("leaf %p slot %u: start 0x%lx, VMA says 0x%lx", (const void *)n, j,
		       (unsigned long)bt_start(n, j), (unsigned long)v->start);
	if (ck->count && v->start < ck->prev_end)
		BT_BAD("leaf %p slot %u: 0x%lx-0x%lx overlaps or precedes previous end 0x%lx",
		       (const void *)n, j, (unsigned long)v->start, (unsigned long)v->end,
		       (unsigned long)ck->prev_end);
	if (v->start - ck->prev_end > *gap)
		*gap = v->start - ck->prev_end;
	ck->prev_end = v->end;
	ck->count++;
	return 0;
}

/* Verify subtree n at depth (root 0) with predecessor end lo; *gap = its largest owned gap, in pages. */
static int bt_check_rec(struct bt_ck *ck, const struct btree_node *n, unsigned depth, uintptr_t lo,
			uint32_t *gap)
{
	uintptr_t g = 0;
	uint32_t cg, gmax = 0;
	unsigned i;
	int err = bt_check_node(ck, n, depth);

	if (err)
		return err;
	if (lo != ck->prev_end)
		BT_BAD("node %p: lo 0x%lx but previous VMA ends at 0x%lx", (const void *)n,
		       (unsigned long)lo, (unsigned long)ck->prev_end);
	for (i = 0; i < n->nr; i++) {
		const struct btree_node *c = n->child[i];

		if (n->leaf) {
			err = bt_check_leaf_slot(ck, n, i, &g);
			if (err)
				return err;
			continue;
		}
		if (!c)
			BT_BAD("node %p slot %u: NULL child", (const void *)n, i);
		err = bt_check_rec(ck, c, depth + 1, i ? n->key[i - 1] : lo, &cg);
		if (err)
			return err;
		if (n->key[i] != bt_max(c) || n->aux[i] != cg)
			BT_BAD("node %p slot %u: key 0x%lx gap %u, child ends at 0x%lx, largest gap %u",
			       (const void *)n, i, (unsigned long)n->key[i], n->aux[i],
			       (unsigned long)bt_max(c), cg);
		gmax = cg > gmax ? cg : gmax;
	}
	*gap = n->leaf ? bt_pages(g) : gmax;
	return 0;
}

static int bt_check(struct vma_index *idx)
{
	struct bt_ck ck = { idx, 0, 0, 0 };
	struct btree_node *n;
	uint32_t g;
	unsigned ns = 0;
	int err;

	for (n = BT(idx)->spare; n && ns <= BT(idx)->nspare; n = n->next_spare)
		ns++;
	if (ns != BT(idx)->nspare)
		BT_BAD("spare list holds %u nodes, nspare says %u", ns, BT(idx)->nspare);
	if (BT(idx)->seq & 1)
		BT_BAD("write sequence %u is odd: a write never ended", BT(idx)->seq);
	if (!BT(idx)->root) {
		if (idx->count || BT(idx)->height || BT(idx)->nodes)
			BT_BAD("empty tree but count %zu height %u nodes %zu", idx->count,
			       BT(idx)->height, BT(idx)->nodes);
		return 0;
	}
	if (BT(idx)->height == 0 || BT(idx)->height > BT_MAX_HEIGHT)
		BT_BAD("height %u", BT(idx)->height);
	err = bt_check_rec(&ck, BT(idx)->root, 0, 0, &g);
	if (err)
		return err;
	if (ck.count != idx->count)
		BT_BAD("%zu VMAs in the tree, count says %zu", ck.count, idx->count);
	if (ck.nodes != BT(idx)->nodes)
		BT_BAD("%zu nodes in the tree, nodes says %zu", ck.nodes, BT(idx)->nodes);
	return 0;
}

static size_t bt_bytes(struct vma_index *idx)
{
	return BT(idx)->nodes * sizeof(struct btree_node);
}

const struct vma_index_ops vma_btree_ops = {
	.name = "btree",
	.link_size = 0,
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
	.find_lockless = bt_find_lockless,
	.deferred = bt_deferred,
	.release_deferred = bt_release_deferred,
};
