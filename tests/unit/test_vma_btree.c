/*
 * Tests specific to the `btree` VMA index (mm/vma_index/btree.c): node access
 * counts, fill after ordered and random runs, reserve's -ENOMEM contract and
 * its linear bound, erase without any reserve, the last lookup's path
 * reused by erase and update, lengths and gaps beyond what
 * a node's 32-bit page counts hold (saturation), update that moves a VMA
 * past a gap, and check() catching corruption. The behaviour shared by all
 * backends is tested in test_vma_diff.c.
 */
#include "ktest.h"
#include "vma.h"
#include "kerrno.h"
#include "printk.h"
#include "slab.h"
#include "kstring.h"
#include "mm/vma_index/btree.h"

#ifdef HOSTED
#define BT_TEST_N 40000   /* the vma array must fit one 4 MiB buddy block */
#else
#define BT_TEST_N 5000
#endif

static uint64_t bt_rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The B-tree keeps no link in its VMAs (link_size 0), so plain struct vma arrays serve here. */
static void bt_setup(struct vma_index *idx)
{
	memset(idx, 0, sizeof(*idx));
	vma_btree_ops.init(idx);
}

static void bt_put(struct ktest *t, struct vma_index *idx, struct vma *v, uintptr_t s, uintptr_t e)
{
	memset(v, 0, sizeof(*v));
	v->start = s;
	v->end = e;
	ASSERT_EQ(t, vma_btree_ops.reserve(idx, 1), 0);
	vma_btree_ops.insert(idx, v);
}

/* Nodes needed at least: leaves hold at most BT_SLOTS VMAs, internal nodes BT_SLOTS children. */
static unsigned bt_min_height(size_t n)
{
	unsigned h = 1;
	size_t cap = BT_SLOTS;

	while (cap < n) {
		cap *= BT_SLOTS;
		h++;
	}
	return h;
}

/*
 * VMA i is [2i+1, 2i+2) pages: one-page VMAs with one-page holes
 *   .A.B.C.D ...
 * inserted in ascending order (ascending = true) or descending order. Then:
 * every find costs exactly height accesses (one node per level), the height
 * is within one level of the least possible, nodes are at least 9/10 full on
 * average, forward and backward iteration cost about
 * one access per VMA plus a descent per leaf, and erasing everything in
 * random order empties the tree.
 */
static void bt_ordered_run(struct ktest *t, bool ascending)
{
	struct vma_index *idx = kmalloc(sizeof(*idx));
	struct vma *v = kzalloc(BT_TEST_N * sizeof(*v));
	unsigned *perm = kmalloc(BT_TEST_N * sizeof(*perm));
	uint64_t seed = 7, before;
	size_t i, n = BT_TEST_N;
	struct vma *p, *got;
	unsigned h;

	ASSERT_TRUE(t, idx && v && perm);
	ASSERT_EQ(t, vma_btree_ops.link_size, 0);
	bt_setup(idx);
	for (i = 0; i < n; i++) {
		size_t k = ascending ? i : n - 1 - i;
		bt_put(t, idx, &v[k], (2 * k + 1) * PAGE_SIZE, (2 * k + 2) * PAGE_SIZE);
		if (i % 4096 == 0)
			ASSERT_EQ(t, vma_btree_ops.check(idx), 0);
	}
	ASSERT_EQ(t, vma_btree_ops.check(idx), 0);
	EXPECT_EQ(t, idx->count, n);
	h = BT(idx)->height;
	EXPECT_LE(t, h, bt_min_height(n) + 1);
	/*
	 * An ordered run splits the edge node 10/3 (BT_EDGE_KEEP), the three
	 * on the side where the run goes on, so every node but the last of
	 * each level ends with 10 slots: n / 10 leaves + n / 100 + ... internal
	 * nodes <= n / 9, plus one partial node per level.
	 */
	EXPECT_LE(t, BT(idx)->nodes * 9, n + 9 * h);
	EXPECT_GE(t, BT(idx)->nodes * 10, n);
	EXPECT_EQ(t, vma_btree_ops.bytes(idx), BT(idx)->nodes * 256);
	printk("    # %s: n %zu height %u nodes %zu, %zu bytes/VMA\n", ascending ? "ascending" : "descending",
	       n, h, BT(idx)->nodes, vma_btree_ops.bytes(idx) / n);

	for (i = 0; i < 2000; i++) {
		size_t k = bt_rng(&seed) % n;
		uintptr_t addr = (2 * k + bt_rng(&seed) % 3) * PAGE_SIZE;   /* hole, VMA, or next hole */
		struct vma *want = addr < (2 * k + 2) * PAGE_SIZE ? &v[k] : (k + 1 < n ? &v[k + 1] : NULL);
		before = idx->accesses;
		got = vma_btree_ops.find(idx, addr);
		EXPECT_EQ(t, got, want);
		EXPECT_EQ(t, idx->accesses - before, h);
	}
	/* Above everything: the root alone answers. */
	before = idx->accesses;
	EXPECT_EQ(t, vma_btree_ops.find(idx, (2 * n + 1) * PAGE_SIZE), NULL);
	EXPECT_EQ(t, idx->accesses - before, 1);

	/* Forward iteration: one access per step inside a leaf, 1 + h when leaving one. */
	before = idx->accesses;
	for (i = 0, p = vma_btree_ops.first(idx); p; p = vma_btree_ops.next(idx, p), i++)
		if (p != &v[i])
			break;
	EXPECT_EQ(t, i, n);
	EXPECT_LE(t, idx->accesses - before, h + n + BT(idx)->nodes * (h + 1));
	before = idx->accesses;
	for (i = n, p = vma_btree_ops.last(idx); p; p = vma_btree_ops.prev(idx, p))
		if (p != &v[--i])
			break;
	EXPECT_EQ(t, i, 0);
	EXPECT_LE(t, idx->accesses - before, h + n + BT(idx)->nodes * (2 * h + 1));

	/* Erase in random order. */
	for (i = 0; i < n; i++)
		perm[i] = (unsigned)i;
	for (i = n; i > 1; i--) {
		size_t j = bt_rng(&seed) % i;
		unsigned x = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = x;
	}
	for (i = 0; i < n; i++) {
		ASSERT_EQ(t, vma_btree_ops.reserve(idx, 1), 0);
		vma_btree_ops.erase(idx, &v[perm[i]]);
		if (i % 4096 == 0 || n - i < 40)
			ASSERT_EQ(t, vma_btree_ops.check(idx), 0);
	}
	EXPECT_EQ(t, idx->count, 0);
	EXPECT_EQ(t, BT(idx)->nodes, 0);
	EXPECT_EQ(t, BT(idx)->root, NULL);
	EXPECT_EQ(t, vma_btree_ops.first(idx), NULL);
	vma_btree_ops.destroy(idx);
	kfree(perm);
	kfree(v);
	kfree(idx);
}

static void test_btree_ascending(struct ktest *t)
{
	bt_ordered_run(t, true);
}

static void test_btree_descending(struct ktest *t)
{
	bt_ordered_run(t, false);
}

/*
 * update moving a VMA past a gap (old and new ranges disjoint), then back:
 *   pages 0123456789
 *         AA  B    C      B moves from [4,5) to [6,8), then to [2,3)
 * and growing/shrinking in place at a leaf edge.
 */
static void test_btree_update_moves(struct ktest *t)
{
	struct vma_index idx;
	struct vma a, b, c;
	uintptr_t out;

	bt_setup(&idx);
	bt_put(t, &idx, &a, 0, 2 * PAGE_SIZE);
	bt_put(t, &idx, &b, 4 * PAGE_SIZE, 5 * PAGE_SIZE);
	bt_put(t, &idx, &c, 9 * PAGE_SIZE, 10 * PAGE_SIZE);
	ASSERT_EQ(t, vma_btree_ops.reserve(&idx, 1), 0);
	vma_btree_ops.update(&idx, &b, 6 * PAGE_SIZE, 8 * PAGE_SIZE);
	ASSERT_EQ(t, vma_btree_ops.check(&idx), 0);
	EXPECT_EQ(t, b.start, 6 * PAGE_SIZE);
	EXPECT_EQ(t, b.end, 8 * PAGE_SIZE);
	EXPECT_EQ(t, vma_btree_ops.find(&idx, 5 * PAGE_SIZE), &b);
	/* AA....BB.C: lowest 4-page hole starts at 2, none is 5 pages long below 9 */
	EXPECT_EQ(t, vma_btree_ops.gap_bottom(&idx, 4 * PAGE_SIZE, PAGE_SIZE, 0, 9 * PAGE_SIZE, &out), 0);
	EXPECT_EQ(t, out, 2 * PAGE_SIZE);
	EXPECT_EQ(t, vma_btree_ops.gap_bottom(&idx, 5 * PAGE_SIZE, PAGE_SIZE, 0, 9 * PAGE_SIZE, &out), -ENOMEM);
	ASSERT_EQ(t, vma_btree_ops.reserve(&idx, 1), 0);
	vma_btree_ops.update(&idx, &b, 2 * PAGE_SIZE, 3 * PAGE_SIZE);
	ASSERT_EQ(t, vma_btree_ops.check(&idx), 0);
	EXPECT_EQ(t, vma_btree_ops.next(&idx, &a), &b);
	EXPECT_EQ(t, vma_btree_ops.next(&idx, &b), &c);
	EXPECT_EQ(t, vma_btree_ops.prev(&idx, &c), &b);
	/* AAB......C: the hole [3, 9) */
	EXPECT_EQ(t, vma_btree_ops.gap_top(&idx, 6 * PAGE_SIZE, PAGE_SIZE, 0, 9 * PAGE_SIZE, &out), 0);
	EXPECT_EQ(t, out, 3 * PAGE_SIZE);
	vma_btree_ops.erase(&idx, &a);
	vma_btree_ops.erase(&idx, &b);
	vma_btree_ops.erase(&idx, &c);
	ASSERT_EQ(t, vma_btree_ops.check(&idx), 0);
	vma_btree_ops.destroy(&idx);
}

/*
 * Shrinking the last VMA of a leaf widens the leading gap of the next leaf:
 * with 1-page VMAs at every other page, shrink-from-the-end is impossible, so
 * VMAs are 2 pages ([3k, 3k+2)) and each is shrunk to 1 page in turn; the gap
 * annotations are verified by check() after each step, and a gap search for
 * a 2-page hole must find the first shrunk VMA's freed page plus its hole.
 */
static void test_btree_update_gaps(struct ktest *t)
{
	enum { N = 300 };
	struct vma_index idx;
	struct vma *v = kzalloc(N * sizeof(*v));
	uintptr_t out;
	unsigned k;

	ASSERT_TRUE(t, v != NULL);
	bt_setup(&idx);
	for (k = 0; k < N; k++)
		bt_put(t, &idx, &v[k], 3 * k * PAGE_SIZE, (3 * k + 2) * PAGE_SIZE);
	EXPECT_EQ(t, vma_btree_ops.gap_bottom(&idx, 2 * PAGE_SIZE, PAGE_SIZE, 0, 3 * N * PAGE_SIZE, &out),
		  -ENOMEM);
	for (k = N; k-- > 0;) {
		ASSERT_EQ(t, vma_btree_ops.reserve(&idx, 1), 0);
		vma_btree_ops.update(&idx, &v[k], 3 * k * PAGE_SIZE, (3 * k + 1) * PAGE_SIZE);
		ASSERT_EQ(t, vma_btree_ops.check(&idx), 0);
		/* [3k+1, 3k+3) is now free: the lowest 2-page hole below the end */
		EXPECT_EQ(t, vma_btree_ops.gap_bottom(&idx, 2 * PAGE_SIZE, PAGE_SIZE, 0,
						   (3 * N - 1) * PAGE_SIZE, &out), k + 1 < N ? 0 : -ENOMEM);
		if (k + 1 < N)
			EXPECT_EQ(t, out, (3 * k + 1) * PAGE_SIZE);
	}
	for (k = 0; k < N; k++)
		vma_btree_ops.erase(&idx, &v[k]);
	vma_btree_ops.destroy(&idx);
	kfree(v);
}

/*
 * reserve that cannot be satisfied: -ENOMEM, and the spare pool is as before.
 * Two ways: a request too big for any machine, and a small one whose third
 * node allocation fails (slab fault injection), which must give back the two
 * nodes it already took.
 */
static void test_btree_reserve_nomem(struct ktest *t)
{
	struct vma_index idx;
	struct vma a;
	unsigned before;

	bt_setup(&idx);
	bt_put(t, &idx, &a, PAGE_SIZE, 2 * PAGE_SIZE);
	before = BT(&idx)->nspare;
	slab_fail_nth(3);
	EXPECT_EQ(t, vma_btree_ops.reserve(&idx, 4), -ENOMEM);
	slab_fail_nth(0);
	EXPECT_EQ(t, BT(&idx)->nspare, before);
#ifdef HOSTED
	/* 2^20 ops * (1 + 2 + 2^17) nodes of 256 bytes: 2^45 bytes, more than any test machine.
	 * Host only: it allocates until the 32 MiB of simulated RAM run out before failing. */
	EXPECT_EQ(t, vma_btree_ops.reserve(&idx, 1u << 20), -ENOMEM);
	EXPECT_EQ(t, BT(&idx)->nspare, before);
#endif
	EXPECT_EQ(t, vma_btree_ops.check(&idx), 0);
	vma_btree_ops.erase(&idx, &a);
	vma_btree_ops.destroy(&idx);
}

/* check() notices a wrong gap annotation, a wrong pivot and a wrong count. */
static void test_btree_check_catches(struct ktest *t)
{
	struct vma_index idx;
	struct vma *v = kzalloc(40 * sizeof(*v));
	struct btree_node *root;
	unsigned k;

	ASSERT_TRUE(t, v != NULL);
	bt_setup(&idx);
	for (k = 0; k < 40; k++)
		bt_put(t, &idx, &v[k], (2 * k + 1) * PAGE_SIZE, (2 * k + 2) * PAGE_SIZE);
	ASSERT_EQ(t, vma_btree_ops.check(&idx), 0);
	root = BT(&idx)->root;
	ASSERT_FALSE(t, root->leaf);
	printk("    # the three check failures below are expected\n");
	root->aux[1] += 1;
	EXPECT_EQ(t, vma_btree_ops.check(&idx), -EINVAL);
	root->aux[1] -= 1;
	root->key[0] -= PAGE_SIZE;
	EXPECT_EQ(t, vma_btree_ops.check(&idx), -EINVAL);
	root->key[0] += PAGE_SIZE;
	idx.count++;
	EXPECT_EQ(t, vma_btree_ops.check(&idx), -EINVAL);
	idx.count--;
	EXPECT_EQ(t, vma_btree_ops.check(&idx), 0);
	for (k = 0; k < 40; k++)
		vma_btree_ops.erase(&idx, &v[k]);
	vma_btree_ops.destroy(&idx);
	kfree(v);
}

#define TIB (1UL << 40)

/*
 * Lengths and gaps of 16 TiB (2^32 pages) and more do not fit a node's
 * 32-bit page counts, which saturate: the leaf then reads the VMA's start
 * from the VMA, and a saturated gap prunes only searches for less. Layout
 * (L = 4 KiB):
 *   A = [L, L + 32 TiB)         a saturated length
 *   hole [L + 32 TiB, 64 TiB)   32 TiB - L: a saturated gap
 *   B = 40 one-page VMAs from 64 TiB, one page apart (an internal level
 *       above, so the saturated gap is recorded in an internal node)
 * Expected results follow from the layout (B ends at 64 TiB + 79 pages).
 */
static void test_btree_saturated(struct ktest *t)
{
	enum { NB = 40 };
	struct vma_index idx;
	struct vma *v = kzalloc((NB + 1) * sizeof(*v));
	uintptr_t out, a_end = PAGE_SIZE + 32 * TIB, b0 = 64 * TIB, b_end = b0 + (2 * NB - 1) * PAGE_SIZE;
	unsigned k;

	ASSERT_TRUE(t, v != NULL);
	bt_setup(&idx);
	bt_put(t, &idx, &v[NB], PAGE_SIZE, a_end);
	for (k = 0; k < NB; k++)
		bt_put(t, &idx, &v[k], b0 + 2 * k * PAGE_SIZE, b0 + (2 * k + 1) * PAGE_SIZE);
	ASSERT_EQ(t, vma_btree_ops.check(&idx), 0);
	ASSERT_GE(t, BT(&idx)->height, 2);
	EXPECT_EQ(t, vma_btree_ops.find(&idx, 20 * TIB), &v[NB]);
	EXPECT_EQ(t, vma_btree_ops.find(&idx, a_end), &v[0]);
	/* 20 TiB fits only in the hole below B (highest: its top), or above B. */
	EXPECT_EQ(t, vma_btree_ops.gap_top(&idx, 20 * TIB, PAGE_SIZE, 0, b0, &out), 0);
	EXPECT_EQ(t, out, b0 - 20 * TIB);
	EXPECT_EQ(t, vma_btree_ops.gap_bottom(&idx, 20 * TIB, PAGE_SIZE, 0, 1UL << 47, &out), 0);
	EXPECT_EQ(t, out, a_end);
	/* 40 TiB fits nowhere below 2^47 except above B. */
	EXPECT_EQ(t, vma_btree_ops.gap_bottom(&idx, 40 * TIB, PAGE_SIZE, 0, 1UL << 47, &out), 0);
	EXPECT_EQ(t, out, b_end);
	EXPECT_EQ(t, vma_btree_ops.gap_top(&idx, 40 * TIB, PAGE_SIZE, 0, b0, &out), -ENOMEM);
	/* A shrinks to 4 GiB: its length and the hole (now 64 TiB - 4 GiB - L) change saturation. */
	ASSERT_EQ(t, vma_btree_ops.reserve(&idx, 1), 0);
	vma_btree_ops.update(&idx, &v[NB], PAGE_SIZE, PAGE_SIZE + (4UL << 30));
	ASSERT_EQ(t, vma_btree_ops.check(&idx), 0);
	EXPECT_EQ(t, vma_btree_ops.gap_bottom(&idx, 40 * TIB, PAGE_SIZE, 0, 1UL << 47, &out), 0);
	EXPECT_EQ(t, out, PAGE_SIZE + (4UL << 30));
	/* The first VMA of B grows down to 1 TiB: 63 TiB long, the hole in front 1 TiB - 4 GiB - L. */
	ASSERT_EQ(t, vma_btree_ops.reserve(&idx, 1), 0);
	vma_btree_ops.update(&idx, &v[0], TIB, v[0].end);
	ASSERT_EQ(t, vma_btree_ops.check(&idx), 0);
	EXPECT_EQ(t, vma_btree_ops.find(&idx, 2 * TIB), &v[0]);
	EXPECT_EQ(t, vma_btree_ops.gap_top(&idx, 2 * TIB, PAGE_SIZE, 0, b0, &out), -ENOMEM);
	EXPECT_EQ(t, vma_btree_ops.gap_top(&idx, TIB - (8UL << 30), PAGE_SIZE, 0, b0, &out), 0);
	EXPECT_EQ(t, out, (8UL << 30));
	for (k = 0; k <= NB; k++) {
		vma_btree_ops.erase(&idx, &v[k]);
		ASSERT_EQ(t, vma_btree_ops.check(&idx), 0);
	}
	vma_btree_ops.destroy(&idx);
	kfree(v);
}

/*
 * Erase needs no reserve: with the spare pool set aside (so that taking a
 * node would panic), 2000 VMAs are erased in random order, merging and
 * borrowing all the way up, and the tree stays valid.
 */
static void test_btree_erase_needs_no_reserve(struct ktest *t)
{
	enum { N = 2000 };
	struct vma_index idx;
	struct vma *v = kzalloc(N * sizeof(*v));
	unsigned *perm = kmalloc(N * sizeof(*perm)), k, saved_n;
	struct btree_node *saved, *tail;
	uint64_t seed = 11;

	ASSERT_TRUE(t, v && perm);
	bt_setup(&idx);
	for (k = 0; k < N; k++) {
		bt_put(t, &idx, &v[k], (3 * k + 1) * PAGE_SIZE, (3 * k + 2 + k % 2) * PAGE_SIZE);
		perm[k] = k;
	}
	for (k = N; k > 1; k--) {
		unsigned j = (unsigned)(bt_rng(&seed) % k), x = perm[k - 1];
		perm[k - 1] = perm[j];
		perm[j] = x;
	}
	saved = BT(&idx)->spare;
	saved_n = BT(&idx)->nspare;
	BT(&idx)->spare = NULL;
	BT(&idx)->nspare = 0;
	for (k = 0; k < N; k++) {
		vma_btree_ops.erase(&idx, &v[perm[k]]);
		if (k % 97 == 0 || N - k < 30)
			ASSERT_EQ(t, vma_btree_ops.check(&idx), 0);
	}
	EXPECT_EQ(t, idx.count, 0);
	EXPECT_EQ(t, BT(&idx)->nodes, 0);
	/* Hand the set-aside spares back so that destroy frees them. */
	for (tail = saved; tail && tail->next_spare; tail = tail->next_spare)
		;
	if (tail) {
		tail->next_spare = BT(&idx)->spare;
		BT(&idx)->spare = saved;
		BT(&idx)->nspare += saved_n;
	}
	vma_btree_ops.destroy(&idx);
	kfree(perm);
	kfree(v);
}

/*
 * reserve(n) sets aside what n inserts can need, linear in n: at most
 * hmax + 1 nodes each, hmax being the greatest height of a tree of
 * count + n VMAs (non-root nodes hold >= 3 slots, so height h needs
 * 2 * 3^(h-1) VMAs: 40000 + 4 VMAs allow height 10 at most). Asked again for
 * less, it gives the excess back (down to that bound plus BT_SPARE_KEEP).
 */
static void test_btree_reserve_linear(struct ktest *t)
{
	struct vma_index *idx = kmalloc(sizeof(*idx));
	struct vma *v = kzalloc(BT_TEST_N * sizeof(*v));
	unsigned k;

	ASSERT_TRUE(t, idx && v);
	bt_setup(idx);
	for (k = 0; k < BT_TEST_N; k++)
		bt_put(t, idx, &v[k], (2 * k + 1) * PAGE_SIZE, (2 * k + 2) * PAGE_SIZE);
	ASSERT_EQ(t, vma_btree_ops.reserve(idx, 4), 0);
	EXPECT_LE(t, BT(idx)->nspare, 4 * 11 + BT_SPARE_KEEP);
	EXPECT_GE(t, BT(idx)->nspare, 4 * (BT(idx)->height + 1));
	ASSERT_EQ(t, vma_btree_ops.reserve(idx, 200), 0);
	EXPECT_LE(t, BT(idx)->nspare, 200 * 11 + BT_SPARE_KEEP);
	ASSERT_EQ(t, vma_btree_ops.reserve(idx, 1), 0);
	EXPECT_LE(t, BT(idx)->nspare, 11 + BT_SPARE_KEEP);
	for (k = 0; k < BT_TEST_N; k++)
		vma_btree_ops.erase(idx, &v[k]);
	vma_btree_ops.destroy(idx);
	kfree(v);
	kfree(idx);
}

/*
 * Erase and update follow the slots the last lookup recorded only when they
 * lead to their VMA: with the record replaced by random words (what
 * concurrent lookups could leave), by the path of another VMA, or left by
 * find_prev (the VMA before the one found), every change still lands on
 * the right VMA and the tree stays valid.
 */
static void test_btree_last_path(struct ktest *t)
{
	enum { N = 600 };
	struct vma_index idx;
	struct vma *v = kzalloc(N * sizeof(*v)), *prev;
	uint64_t seed = 5;
	unsigned k, round;

	ASSERT_TRUE(t, v != NULL);
	bt_setup(&idx);
	for (k = 0; k < N; k++)
		bt_put(t, &idx, &v[k], (3 * k + 1) * PAGE_SIZE, (3 * k + 2) * PAGE_SIZE);
	for (round = 0; round < 3 * N; round++) {
		unsigned a = (unsigned)(bt_rng(&seed) % N), b = (unsigned)(bt_rng(&seed) % N);
		struct vma *w = &v[a];

		switch (round % 3) {
		case 0:
			BT(&idx)->last_path = bt_rng(&seed);
			break;
		case 1:
			EXPECT_EQ(t, vma_btree_ops.find(&idx, v[b].start), &v[b]);
			break;
		default:
			vma_btree_ops.find_prev(&idx, w->end, &prev);
			EXPECT_EQ(t, prev, w);
			break;
		}
		ASSERT_EQ(t, vma_btree_ops.reserve(&idx, 1), 0);
		if (w->start == (3 * a + 1) * PAGE_SIZE)
			vma_btree_ops.update(&idx, w, w->start - PAGE_SIZE, w->end);
		else
			vma_btree_ops.update(&idx, w, w->start + PAGE_SIZE, w->end);
		ASSERT_EQ(t, vma_btree_ops.check(&idx), 0);
	}
	for (k = 0; k < N; k++) {
		if (k % 2)
			BT(&idx)->last_path = bt_rng(&seed);
		else                            /* another VMA, not erased yet */
			EXPECT_EQ(t, vma_btree_ops.find(&idx, v[MIN(k + 7, N - 1)].start), &v[MIN(k + 7, N - 1)]);
		vma_btree_ops.erase(&idx, &v[k]);
		if (k % 50 == 0)
			ASSERT_EQ(t, vma_btree_ops.check(&idx), 0);
	}
	EXPECT_EQ(t, idx.count, 0);
	vma_btree_ops.destroy(&idx);
	kfree(v);
}

static const struct ktest_case vma_btree_cases[] = {
	KTEST_CASE(test_btree_ascending),
	KTEST_CASE(test_btree_descending),
	KTEST_CASE(test_btree_update_moves),
	KTEST_CASE(test_btree_update_gaps),
	KTEST_CASE(test_btree_reserve_nomem),
	KTEST_CASE(test_btree_check_catches),
	KTEST_CASE(test_btree_saturated),
	KTEST_CASE(test_btree_erase_needs_no_reserve),
	KTEST_CASE(test_btree_reserve_linear),
	KTEST_CASE(test_btree_last_path),
	{ NULL, NULL },
};
KTEST_SUITE(vma_btree, vma_btree_cases);
