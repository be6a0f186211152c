/*
 * Tests specific to the `btree` VMA index (mm/vma_index/btree.c): node access
 * counts, fill after ordered and random runs, reserve's -ENOMEM contract,
 * update that moves a VMA past a gap, and check() catching corruption.
 * The behaviour shared by all backends is tested in test_vma_diff.c.
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
	bt_setup(idx);
	for (i = 0; i < n; i++) {
		size_t k = ascending ? i : n - 1 - i;
		bt_put(t, idx, &v[k], (2 * k + 1) * PAGE_SIZE, (2 * k + 2) * PAGE_SIZE);
		if (i % 4096 == 0)
			ASSERT_EQ(t, vma_btree_ops.check(idx), 0);
	}
	ASSERT_EQ(t, vma_btree_ops.check(idx), 0);
	EXPECT_EQ(t, idx->count, n);
	h = idx->u.bt.height;
	EXPECT_LE(t, h, bt_min_height(n) + 1);
	/*
	 * An ordered run overflows the edge node, whose neighbour then takes
	 * half of its slots, so nodes end nearly full: >= 9 of 10 slots on
	 * average, hence nodes <= n / 9 leaves + n / 81 + ... internal ones.
	 */
	EXPECT_LE(t, idx->u.bt.nodes * 9, n + n / 8 + 9 * h);
	EXPECT_EQ(t, vma_btree_ops.bytes(idx), idx->u.bt.nodes * 256);
	printk("    # %s: n %zu height %u nodes %zu, %zu bytes/VMA\n", ascending ? "ascending" : "descending",
	       n, h, idx->u.bt.nodes, vma_btree_ops.bytes(idx) / n);

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
	EXPECT_LE(t, idx->accesses - before, h + n + idx->u.bt.nodes * (h + 1));
	before = idx->accesses;
	for (i = n, p = vma_btree_ops.last(idx); p; p = vma_btree_ops.prev(idx, p))
		if (p != &v[--i])
			break;
	EXPECT_EQ(t, i, 0);
	EXPECT_LE(t, idx->accesses - before, h + n + idx->u.bt.nodes * (2 * h + 1));

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
	EXPECT_EQ(t, idx->u.bt.nodes, 0);
	EXPECT_EQ(t, idx->u.bt.root, NULL);
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
	before = idx.u.bt.nspare;
	slab_fail_nth(3);
	EXPECT_EQ(t, vma_btree_ops.reserve(&idx, 4), -ENOMEM);
	slab_fail_nth(0);
	EXPECT_EQ(t, idx.u.bt.nspare, before);
#ifdef HOSTED
	/* 2^20 ops * (1 + 2 + 2^17) nodes of 256 bytes: 2^45 bytes, more than any test machine.
	 * Host only: it allocates until the 32 MiB of simulated RAM run out before failing. */
	EXPECT_EQ(t, vma_btree_ops.reserve(&idx, 1u << 20), -ENOMEM);
	EXPECT_EQ(t, idx.u.bt.nspare, before);
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
	root = idx.u.bt.root;
	ASSERT_FALSE(t, root->leaf);
	printk("    # the three check failures below are expected\n");
	root->gap[1] += PAGE_SIZE;
	EXPECT_EQ(t, vma_btree_ops.check(&idx), -EINVAL);
	root->gap[1] -= PAGE_SIZE;
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

static const struct ktest_case vma_btree_cases[] = {
	KTEST_CASE(test_btree_ascending),
	KTEST_CASE(test_btree_descending),
	KTEST_CASE(test_btree_update_moves),
	KTEST_CASE(test_btree_update_gaps),
	KTEST_CASE(test_btree_reserve_nomem),
	KTEST_CASE(test_btree_check_catches),
	{ NULL, NULL },
};
KTEST_SUITE(vma_btree, vma_btree_cases);
