/*
 * Buddy allocator tests. They run on whatever memory the allocator manages
 * (32 MiB simulated on the host, all RAM in the kernel) and restore it
 * exactly: every test ends with the same free-frame count and the same
 * per-order block counts it started with.
 *
 * Why per-order counts must come back exactly: buddy merging is maximal (a
 * block merges whenever its buddy is free at the same order), so the set of
 * free frames determines the decomposition into free blocks uniquely. Same
 * free frames before and after => same counts per order.
 */
#include "ktest.h"
#include "pmm.h"
#include "prng.h"
#include "kstring.h"
#include "kasan.h"
#include "kerrno.h"
#include "lockless.h"

struct pmm_snapshot {
	size_t free;
	size_t blocks[PMM_MAX_ORDER + 1];
};

/*
 * The CPUs' lists of free frames (pmm_free_user's) are drained first: their
 * frames count as free but sit in no block. These tests allocate without
 * GFP_USER and free with pmm_free, which take and give blocks of the buddy
 * lists only, so the lists stay empty until the next snapshot.
 */
static void snapshot(struct pmm_snapshot *s)
{
	pmm_drain_pcp();
	s->free = pmm_free_frames();
	for (unsigned o = 0; o <= PMM_MAX_ORDER; o++)
		s->blocks[o] = pmm_free_blocks(o);
}

static void expect_same(struct ktest *t, const struct pmm_snapshot *a)
{
	struct pmm_snapshot b;
	snapshot(&b);
	EXPECT_EQ(t, b.free, a->free);
	for (unsigned o = 0; o <= PMM_MAX_ORDER; o++)
		EXPECT_EQ(t, b.blocks[o], a->blocks[o]);
	EXPECT_EQ(t, pmm_check(), 0);
}

/* Allocated frames are chained through their first word, so no extra memory is needed. */
static void test_alloc_every_frame(struct ktest *t)
{
	struct pmm_snapshot before;
	snapshot(&before);
	ASSERT_GT(t, before.free, 0);

	void *chain = NULL;
	size_t n = 0;
	void *f;
	while ((f = pmm_alloc_frame(0))) {
		*(void **)f = chain;
		chain = f;
		n++;
	}
	/* Every free frame was handed out once, and then the allocator said no (no panic). */
	EXPECT_EQ(t, n, before.free);
	EXPECT_EQ(t, pmm_free_frames(), 0);
	EXPECT_TRUE(t, pmm_alloc(0, 0) == NULL);
	EXPECT_TRUE(t, pmm_alloc(PMM_MAX_ORDER, 0) == NULL);
	EXPECT_EQ(t, pmm_check(), 0);

	while (chain) {
		void *next = *(void **)chain;
		pmm_free_frame(chain);
		chain = next;
	}
	expect_same(t, &before);
}

/* Split a top-order block into single frames, free them in random order: they coalesce back to one block. */
static void test_coalesce_to_top_order(struct ktest *t)
{
	struct pmm_snapshot before;
	snapshot(&before);
	ASSERT_GT(t, before.blocks[PMM_MAX_ORDER], 0);

	struct page *big = pmm_alloc(PMM_MAX_ORDER, 0);
	ASSERT_TRUE(t, big != NULL);
	/* Taken from the top-order list directly: no split was needed. */
	EXPECT_EQ(t, pmm_free_blocks(PMM_MAX_ORDER), before.blocks[PMM_MAX_ORDER] - 1);
	EXPECT_EQ(t, page_to_phys(big) % (PAGE_SIZE << PMM_MAX_ORDER), 0);

	const unsigned n = 1U << PMM_MAX_ORDER;
	unsigned perm[1U << PMM_MAX_ORDER];
	for (unsigned i = 0; i < n; i++)
		perm[i] = i;
	struct prng r;
	prng_seed(&r, 42);
	for (unsigned i = n - 1; i > 0; i--) {
		unsigned j = (unsigned)prng_below(&r, i + 1), tmp = perm[i];
		perm[i] = perm[j];
		perm[j] = tmp;
	}
	for (unsigned i = 0; i < n; i++) {
		pmm_free(big + perm[i], 0);
		if (i % 128 == 0)
			EXPECT_EQ(t, pmm_check(), 0);
	}
	expect_same(t, &before);
}

/* Splitting: an order-0 request with only top-order blocks free leaves one block on each lower order. */
static void test_split_leaves_one_per_order(struct ktest *t)
{
	struct pmm_snapshot before;
	snapshot(&before);
	ASSERT_GT(t, before.blocks[PMM_MAX_ORDER], 0);

	/* Drain every lower order (blocks chained through their first word) so the next
	 * order-0 allocation has to split a top-order block. */
	void *held[PMM_MAX_ORDER] = { 0 };
	for (unsigned o = 0; o < PMM_MAX_ORDER; o++)
		while (pmm_free_blocks(o) > 0) {
			void *b = page_address(pmm_alloc(o, 0));
			*(void **)b = held[o];
			held[o] = b;
		}
	size_t top = pmm_free_blocks(PMM_MAX_ORDER);
	struct page *p = pmm_alloc(0, 0);
	ASSERT_TRUE(t, p != NULL);
	/* 2^10 = 1 + (1 + 2 + 4 + ... + 512): one free block of every order 0..9 remains. */
	for (unsigned o = 0; o < PMM_MAX_ORDER; o++)
		EXPECT_EQ(t, pmm_free_blocks(o), 1);
	EXPECT_EQ(t, pmm_free_blocks(PMM_MAX_ORDER), top - 1);
	pmm_free(p, 0);
	EXPECT_EQ(t, pmm_free_blocks(PMM_MAX_ORDER), top);

	for (unsigned o = 0; o < PMM_MAX_ORDER; o++)
		while (held[o]) {
			void *next = *(void **)held[o];
			pmm_free(virt_to_page(held[o]), o);
			held[o] = next;
		}
	expect_same(t, &before);
}

#define NBLOCKS 256
struct held_block {
	struct page *p;
	unsigned order;
	uint64_t tag;
};

/* Random allocations and frees of random orders; invariants checked after every step, and tags written
 * at both ends of each block prove that no two live blocks overlap. */
static void test_random_patterns(struct ktest *t)
{
	struct pmm_snapshot before;
	snapshot(&before);
	static struct held_block b[NBLOCKS];
	struct prng r;
	prng_seed(&r, 0x5eed);
	memset(b, 0, sizeof(b));

	for (unsigned step = 0; step < 4000; step++) {
		unsigned i = (unsigned)prng_below(&r, NBLOCKS);
		if (!b[i].p) {
			unsigned order = (unsigned)prng_below(&r, 6);
			struct page *p = pmm_alloc(order, (step & 1) ? GFP_ZERO : 0);
			if (!p)
				continue;
			EXPECT_EQ(t, page_to_phys(p) % (PAGE_SIZE << order), 0);
			EXPECT_EQ(t, p->refcount, 1);
			if (step & 1) {
				const uint64_t *w = page_address(p);
				size_t nonzero = 0;
				for (size_t k = 0; k < (PAGE_SIZE << order) / 8; k++)
					nonzero += w[k] != 0;
				EXPECT_EQ(t, nonzero, 0);
			}
			b[i] = (struct held_block){ p, order, prng_next(&r) };
			uint64_t *first = page_address(p);
			uint64_t *last = (uint64_t *)((char *)first + (PAGE_SIZE << order)) - 1;
			*first = *last = b[i].tag;
		} else {
			uint64_t *first = page_address(b[i].p);
			uint64_t *last = (uint64_t *)((char *)first + (PAGE_SIZE << b[i].order)) - 1;
			EXPECT_EQ(t, *first, b[i].tag);
			EXPECT_EQ(t, *last, b[i].tag);
			pmm_free(b[i].p, b[i].order);
			b[i].p = NULL;
		}
		if (step % 50 == 0)
			ASSERT_EQ(t, pmm_check(), 0);
	}
	for (unsigned i = 0; i < NBLOCKS; i++)
		if (b[i].p)
			pmm_free(b[i].p, b[i].order);
	expect_same(t, &before);
}

/*
 * pmm_free_list (the TLB batch's free): 768 frames of an order-9 and an
 * order-8 block, split as a huge page's frames are, handed back in one
 * list with scattered single frames between them and the huge block's
 * frames in descending order (runs grow at both ends), more runs than one
 * batch holds and more frames than one lock hold frees. Afterwards the
 * free lists are what they were before (the file's header: the same free
 * frames give the same blocks), the list is empty, and pmm_check passes.
 */
static void test_free_list_runs(struct ktest *t)
{
	struct pmm_snapshot before;
	struct page *big, *mid, *single[40];
	struct list_head frames;
	unsigned n = 0;

	snapshot(&before);
	big = pmm_alloc(9, 0);
	mid = pmm_alloc(8, 0);
	ASSERT_TRUE(t, big && mid);
	for (; n < 40; n++) {
		single[n] = pmm_alloc(0, 0);
		if (!single[n])
			break;
	}
	EXPECT_EQ(t, n, 40);
	list_init(&frames);
	for (unsigned i = 0; i < 256; i++)
		list_add_tail(&mid[i].lru, &frames);
	for (unsigned i = 0; i < 512; i++) {
		list_add_tail(&big[511 - i].lru, &frames);
		if (i % 16 == 0 && i / 16 < n)
			list_add_tail(&single[i / 16]->lru, &frames);
	}
	for (unsigned i = 32; i < n; i++)
		list_add_tail(&single[i]->lru, &frames);
	pmm_free_list(&frames);
	EXPECT_TRUE(t, list_empty(&frames));
	expect_same(t, &before);
}

/*
 * The CPUs' lists of free frames (mm/pmm.c): a user page freed with
 * pmm_free_user still counts as free and is the next user page this CPU
 * allocates (the list's head); frames waiting on the lists are not lost to
 * a caller that needs the buddy lists: allocating every frame with plain
 * pmm_alloc still gets every free frame (it drains the lists when the
 * buddy lists run dry). pmm_check verifies the lists (counts, PG_pcp, at
 * most PCP_HIGH) after 300 frees onto one list, more than it may hold.
 */
static void test_pcp_lists(struct ktest *t)
{
	struct pmm_snapshot before;
	struct page *p, *q, *held[300];
	void *chain = NULL, *f;
	size_t n = 0, free;
	unsigned got;

	snapshot(&before);
	p = pmm_alloc(0, GFP_USER);
	ASSERT_TRUE(t, p != NULL);
	EXPECT_EQ(t, pmm_free_frames(), before.free - 1);
	pmm_free_user(p);
	EXPECT_EQ(t, pmm_free_frames(), before.free);
	q = pmm_alloc(0, GFP_USER);
	EXPECT_TRUE(t, q == p);
	pmm_free_user(q);
	for (got = 0; got < 300 && (held[got] = pmm_alloc(0, GFP_USER)) != NULL; got++)
		;
	EXPECT_EQ(t, got, 300);
	for (unsigned i = 0; i < got; i++)
		pmm_free_user(held[i]);
	EXPECT_EQ(t, pmm_check(), 0);
	free = pmm_free_frames();
	EXPECT_EQ(t, free, before.free);
	while ((f = pmm_alloc_frame(0))) {
		*(void **)f = chain;
		chain = f;
		n++;
	}
	EXPECT_EQ(t, n, free);
	while (chain) {
		void *next = *(void **)chain;

		pmm_free_frame(chain);
		chain = next;
	}
	expect_same(t, &before);
}

/*
 * Zeroing ahead (pmm_zero_ahead, which the fault path calls before it
 * takes pt_lock): the frame this CPU's next user allocation gets, the
 * list's head, is cleared now, and a GFP_ZERO allocation of it does not
 * clear it again. Expected, from its contract: the frame freed last (the
 * head) comes back from the next allocation, all zero although it was
 * filled with 0xa5 before its free, and with no flag left; pmm_check
 * finds a zeroed free frame that was written to (as a stray write through
 * a stale pointer would do) and passes once it is zero again; an
 * allocation without GFP_ZERO takes a zeroed frame as any other.
 */
static void test_zero_ahead(struct ktest *t)
{
	struct pmm_snapshot before;
	struct page *p, *q;
	uint8_t *va;
	bool zero = true;

	snapshot(&before);
	p = pmm_alloc(0, GFP_USER);
	ASSERT_TRUE(t, p != NULL);
	va = page_address(p);
	memset(va, 0xa5, PAGE_SIZE);
	pmm_free_user(p);
	pmm_zero_ahead();
	EXPECT_EQ(t, pmm_check(), 0);
	kasan_unpoison(va, PAGE_SIZE);          /* the stray write below is the test's own */
	WRITE_ONCE(va[100], 1);
	EXPECT_EQ(t, pmm_check(), -EINVAL);
	WRITE_ONCE(va[100], 0);
	EXPECT_EQ(t, pmm_check(), 0);
	q = pmm_alloc(0, GFP_USER | GFP_ZERO);
	EXPECT_TRUE(t, q == p);
	ASSERT_TRUE(t, q != NULL);
	EXPECT_EQ(t, q->flags, 0u);
	for (size_t i = 0; i < PAGE_SIZE; i++)
		zero &= va[i] == 0;
	EXPECT_TRUE(t, zero);
	memset(va, 0xa5, PAGE_SIZE);
	pmm_free_user(q);
	pmm_zero_ahead();
	q = pmm_alloc(0, GFP_USER);
	EXPECT_TRUE(t, q == p);
	ASSERT_TRUE(t, q != NULL);
	EXPECT_EQ(t, q->flags, 0u);
	pmm_free_user(q);
	expect_same(t, &before);
}

static void test_bad_requests(struct ktest *t)
{
	size_t free = pmm_free_frames();
	EXPECT_TRUE(t, pmm_alloc(PMM_MAX_ORDER + 1, 0) == NULL);
	EXPECT_TRUE(t, pmm_alloc(1000, 0) == NULL);
	EXPECT_EQ(t, pmm_free_frames(), free);
	EXPECT_TRUE(t, phys_to_page((phys_addr_t)1 << 52) == NULL);
}

static const struct ktest_case pmm_cases[] = {
	KTEST_CASE(test_alloc_every_frame),
	KTEST_CASE(test_coalesce_to_top_order),
	KTEST_CASE(test_split_leaves_one_per_order),
	KTEST_CASE(test_random_patterns),
	KTEST_CASE(test_free_list_runs),
	KTEST_CASE(test_pcp_lists),
	KTEST_CASE(test_zero_ahead),
	KTEST_CASE(test_bad_requests),
	{ 0 },
};
KTEST_SUITE(pmm, pmm_cases);
