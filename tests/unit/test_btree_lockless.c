/*
 * The B-tree's lock-free find (find_lockless, mm/vma_index/btree.c), which
 * faults use with fault_lock=vma: what it returns with no writer running,
 * how it waits out a write that is under way or gives up on one that does
 * not end, and the nodes the tree keeps from the cache while lock-free
 * readers may be looking at them. The readers racing real writers on
 * other CPUs are tests/kernel/mm_smp_test.c's
 * test_lockless_lookup_races_changes.
 *
 * Layout of the random case: slot k is pages [4k, 4k + 4); its VMA, when
 * it has one, lies in pages 4k + 1 .. 4k + 3, so page 4k is always free
 * and no two slots' VMAs can touch. The expected answer of every lookup is
 * the locked find's (ops->find): the same first VMA ending above addr.
 */
#include "ktest.h"
#include "vma.h"
#include "vma_model.h"
#include "slab.h"
#include "kstring.h"
#include "mm/vma_index/btree.h"
#ifdef HOSTED
#include "hosted.h"
#endif

#define SLOTS 600
#define OPS 5000

struct lfix {
	struct vma_index idx;
	struct vma *pool;
	bool used[SLOTS];
};

static struct vma *slot_vma(struct lfix *f, unsigned k)
{
	return vma_array_at(f->pool, &vma_btree_ops, k);
}

static bool lfix_init(struct ktest *t, struct lfix *f)
{
	memset(f, 0, sizeof(*f));
	f->pool = vma_array_alloc(&vma_btree_ops, SLOTS);
	if (!f->pool) {
		ktest_fail(t, __FILE__, __LINE__, "no memory for the VMAs");
		return false;
	}
	vma_btree_ops.init(&f->idx);
	f->idx.lockless = true;
	return true;
}

static void lfix_destroy(struct lfix *f)
{
	for (unsigned k = 0; k < SLOTS; k++)
		if (f->used[k])
			vma_btree_ops.erase(&f->idx, slot_vma(f, k));
	vma_btree_ops.destroy(&f->idx);
	kfree(f->pool);
}

/* Put slot k's VMA in the index at pages [4k + lo, 4k + hi). */
static void lfix_insert(struct ktest *t, struct lfix *f, unsigned k, unsigned lo, unsigned hi)
{
	struct vma *v = slot_vma(f, k);

	v->start = (4 * (uintptr_t)k + lo) * PAGE_SIZE;
	v->end = (4 * (uintptr_t)k + hi) * PAGE_SIZE;
	EXPECT_EQ(t, vma_btree_ops.reserve(&f->idx, 1), 0);
	vma_btree_ops.insert(&f->idx, v);
	f->used[k] = true;
}

/* find_lockless against find for n random addresses (and the page-0 and past-the-end ones). */
static void lfix_compare(struct ktest *t, struct lfix *f, struct vma_rng *r, unsigned n)
{
	uintptr_t top = 4 * (uintptr_t)SLOTS * PAGE_SIZE;

	EXPECT_EQ(t, BT(&f->idx)->seq % 2, 0u);          /* no write under way */
	EXPECT_EQ(t, vma_btree_ops.find_lockless(&f->idx, 0), vma_btree_ops.find(&f->idx, 0));
	EXPECT_EQ(t, vma_btree_ops.find_lockless(&f->idx, top), NULL);
	for (unsigned i = 0; i < n; i++) {
		uintptr_t a = vma_rng_below(r, top);

		if (vma_btree_ops.find_lockless(&f->idx, a) != vma_btree_ops.find(&f->idx, a)) {
			ktest_fail(t, __FILE__, __LINE__, "find_lockless(0x%lx) is not find's VMA",
				   (unsigned long)a);
			return;
		}
	}
}

/*
 * 5000 random inserts, erases and updates (in place, and across a gap:
 * erase then insert) over up to 600 VMAs, so nodes split, merge, borrow and
 * the root grows and shrinks: after each, the lock-free find gives the
 * locked find's answer, and the write sequence is even again.
 */
static void test_find_lockless_matches_find(struct ktest *t)
{
	struct lfix f;
	struct vma_rng r;

	if (!lfix_init(t, &f))
		return;
	vma_rng_seed(&r, 1998);
	for (unsigned i = 0; i < OPS; i++) {
		unsigned k = (unsigned)vma_rng_below(&r, SLOTS);
		unsigned lo = 1 + (unsigned)vma_rng_below(&r, 3);
		unsigned hi = lo + 1 + (unsigned)vma_rng_below(&r, 4 - lo);
		struct vma *v = slot_vma(&f, k);

		if (!f.used[k]) {
			lfix_insert(t, &f, k, lo, hi);
		} else if (vma_rng_below(&r, 3) == 0) {
			vma_btree_ops.erase(&f.idx, v);
			f.used[k] = false;
		} else {
			EXPECT_EQ(t, vma_btree_ops.reserve(&f.idx, 1), 0);
			vma_btree_ops.update(&f.idx, v, (4 * (uintptr_t)k + lo) * PAGE_SIZE,
					     (4 * (uintptr_t)k + hi) * PAGE_SIZE);
		}
		lfix_compare(t, &f, &r, 6);
		if (i % 100 == 0)
			EXPECT_EQ(t, vma_btree_ops.check(&f.idx), 0);
	}
	EXPECT_EQ(t, vma_btree_ops.check(&f.idx), 0);
	lfix_destroy(&f);
}

/*
 * Nodes that leave the tree while lock-free readers may run stay B-tree
 * nodes: erasing 600 VMAs empties some 60 leaves and their parents into
 * the spare pool, past the BT_SPARE_KEEP it keeps otherwise, and a
 * reserve does not trim it either; release_deferred (after the grace
 * period) brings it back to BT_SPARE_KEEP.
 */
static void test_nodes_wait_for_release(struct ktest *t)
{
	struct lfix f;

	if (!lfix_init(t, &f))
		return;
	for (unsigned k = 0; k < SLOTS; k++)
		lfix_insert(t, &f, k, 1, 2);
	EXPECT_EQ(t, vma_btree_ops.deferred(&f.idx), (size_t)0);
	for (unsigned k = 0; k < SLOTS - 1; k++) {
		vma_btree_ops.erase(&f.idx, slot_vma(&f, k));
		f.used[k] = false;
	}
	EXPECT_EQ(t, vma_btree_ops.reserve(&f.idx, 1), 0);
	EXPECT_EQ(t, vma_btree_ops.deferred(&f.idx) > 0, true);
	EXPECT_GT(t, BT(&f.idx)->nspare, BT_SPARE_KEEP);
	vma_btree_ops.release_deferred(&f.idx);
	EXPECT_EQ(t, vma_btree_ops.deferred(&f.idx), (size_t)0);
	EXPECT_EQ(t, BT(&f.idx)->nspare, BT_SPARE_KEEP);
	EXPECT_EQ(t, vma_btree_ops.check(&f.idx), 0);
	lfix_destroy(&f);
}

#ifdef HOSTED
static struct lfix *hook_fix;
static unsigned hook_rounds;
static bool hook_finishes;

/*
 * Runs where the reader relaxes (arch_cpu_relax), i.e. while it waits for
 * a write: the first time, if hook_finishes, the write under way ends: it
 * erases slot 5's VMA, then the sequence is even.
 */
static void writer_hook(void)
{
	hook_rounds++;
	if (hook_finishes && hook_rounds == 1) {
		BT(&hook_fix->idx)->seq++;              /* out of the write the test pretended to start */
		vma_btree_ops.erase(&hook_fix->idx, slot_vma(hook_fix, 5));
		hook_fix->used[5] = false;
	}
}

/*
 * A reader that arrives during a write waits for it, then finds the tree
 * after it: slot 5's VMA is gone, so the first VMA ending above its
 * address is slot 6's. A write that never ends (the writer's CPU stopped,
 * as far as the reader can tell) makes it give up after BT_LOCKLESS_TRIES
 * tries: NULL, and the fault takes the mmap_lock.
 */
static void test_reader_waits_out_a_write(struct ktest *t)
{
	struct lfix f;
	uintptr_t a;

	if (!lfix_init(t, &f))
		return;
	for (unsigned k = 0; k < 40; k++)
		lfix_insert(t, &f, k, 1, 3);
	a = slot_vma(&f, 5)->start;
	EXPECT_EQ(t, vma_btree_ops.find_lockless(&f.idx, a), slot_vma(&f, 5));

	hook_fix = &f;
	hook_rounds = 0;
	hook_finishes = true;
	BT(&f.idx)->seq++;                              /* a write is under way */
	hosted_relax_hook = writer_hook;
	EXPECT_EQ(t, vma_btree_ops.find_lockless(&f.idx, a), slot_vma(&f, 6));
	EXPECT_EQ(t, hook_rounds, 1u);

	hook_rounds = 0;
	hook_finishes = false;
	BT(&f.idx)->seq++;                              /* one that does not end */
	EXPECT_EQ(t, vma_btree_ops.find_lockless(&f.idx, a), NULL);
	EXPECT_EQ(t, hook_rounds, (unsigned)BT_LOCKLESS_TRIES);
	hosted_relax_hook = NULL;
	BT(&f.idx)->seq++;
	EXPECT_EQ(t, vma_btree_ops.find_lockless(&f.idx, a), slot_vma(&f, 6));
	EXPECT_EQ(t, vma_btree_ops.check(&f.idx), 0);
	lfix_destroy(&f);
}
#endif

static const struct ktest_case btree_lockless_cases[] = {
	KTEST_CASE(test_find_lockless_matches_find),
	KTEST_CASE(test_nodes_wait_for_release),
#ifdef HOSTED
	KTEST_CASE(test_reader_waits_out_a_write),
#endif
	{ 0 },
};
KTEST_SUITE(btree_lockless, btree_lockless_cases);
