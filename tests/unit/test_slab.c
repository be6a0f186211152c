/*
 * Slab allocator tests: caches of many sizes and alignments, reuse, kmalloc
 * classes, exhaustion, and the debug checks (red zone, poison, double free).
 * Each test gives back every page it took: the free-frame count at the end
 * equals the count at the start.
 */
#include "ktest.h"
#include "slab.h"
#include "pmm.h"
#include "prng.h"
#include "kstring.h"

/*
 * Frame accounting: a cache keeps one empty slab cached, so tests that compare
 * free-frame counts call slab_shrink_all() first, at the start and at the end.
 */
static void test_many_caches(struct ktest *t)
{
	static const size_t sizes[] = { 1, 8, 24, 40, 64, 100, 128, 200, 256, 500, 1000, 2048, 3000, 5000 };
	static const size_t aligns[] = { 0, 8, 16, 64, 256, 4096 };
	slab_shrink_all();
	size_t free_before = pmm_free_frames();

	for (size_t a = 0; a < ARRAY_SIZE(aligns); a++) {
		struct kmem_cache *caches[ARRAY_SIZE(sizes)];
		void *objs[ARRAY_SIZE(sizes)][20];
		for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
			caches[i] = kmem_cache_create("test", sizes[i], aligns[a]);
			ASSERT_TRUE(t, caches[i] != NULL);
			for (int k = 0; k < 20; k++) {
				objs[i][k] = kmem_cache_alloc(caches[i]);
				ASSERT_TRUE(t, objs[i][k] != NULL);
				size_t align = aligns[a] ? aligns[a] : 8;
				EXPECT_EQ(t, (uintptr_t)objs[i][k] % align, 0);
				/* Fill the whole object: the red zone right after it must stay intact. */
				memset(objs[i][k], (int)(i + k), sizes[i]);
			}
			EXPECT_EQ(t, kmem_cache_inuse(caches[i]), 20);
			EXPECT_EQ(t, kmem_cache_check(caches[i]), 0);
		}
		/* Contents survive other allocations: no two objects overlap. */
		for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
			for (int k = 0; k < 20; k++) {
				const unsigned char *p = objs[i][k];
				size_t bad = 0;
				for (size_t b = 0; b < sizes[i]; b++)
					bad += p[b] != (unsigned char)(i + k);
				EXPECT_EQ(t, bad, 0);
			}
		for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
			for (int k = 0; k < 20; k++)
				kmem_cache_free(caches[i], objs[i][k]);
			EXPECT_EQ(t, kmem_cache_check(caches[i]), 0);
			kmem_cache_destroy(caches[i]);
		}
	}
	slab_shrink_all();
	EXPECT_EQ(t, pmm_free_frames(), free_before);
}

/* A freed object is handed out again before the cache grows (LIFO freelist). */
static void test_reuse(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("reuse", 48, 0);
	ASSERT_TRUE(t, c != NULL);
	void *a = kmem_cache_alloc(c);
	void *b = kmem_cache_alloc(c);
	ASSERT_TRUE(t, a && b && a != b);
	kmem_cache_free(c, a);
	void *again = kmem_cache_alloc(c);
#ifdef KASAN
	EXPECT_TRUE(t, again != a);     /* the sanitizer's quarantine holds the freed slot back */
#else
	EXPECT_TRUE(t, again == a);     /* the freelist is last in, first out */
#endif
	kmem_cache_free(c, again);
	kmem_cache_free(c, b);
	EXPECT_EQ(t, kmem_cache_inuse(c), 0);
	kmem_cache_destroy(c);
}

static void test_kmalloc_classes(struct ktest *t)
{
	slab_shrink_all();
	size_t free_before = pmm_free_frames();
	struct prng r;
	prng_seed(&r, 7);
	static void *p[300];
	static size_t sz[300];
	for (int i = 0; i < 300; i++) {
		/* Sizes up to 20000 bytes: small ones from size classes, big ones from whole buddy blocks. */
		sz[i] = 1 + (size_t)prng_below(&r, i % 10 == 0 ? 20000 : 2048);
		p[i] = kmalloc(sz[i]);
		ASSERT_TRUE(t, p[i] != NULL);
		memset(p[i], i & 0xff, sz[i]);
	}
	for (int i = 0; i < 300; i++) {
		const unsigned char *q = p[i];
		EXPECT_EQ(t, q[0], (unsigned char)i);
		EXPECT_EQ(t, q[sz[i] - 1], (unsigned char)i);
		kfree(p[i]);
	}
	void *z = kzalloc(777);
	ASSERT_TRUE(t, z != NULL);
	size_t nonzero = 0;
	for (int i = 0; i < 777; i++)
		nonzero += ((unsigned char *)z)[i] != 0;
	EXPECT_EQ(t, nonzero, 0);
	kfree(z);
	EXPECT_TRUE(t, kmalloc(0) == NULL);
	kfree(NULL);
	/* More than the largest buddy block cannot be had. */
	EXPECT_TRUE(t, kmalloc((PAGE_SIZE << PMM_MAX_ORDER) + 1) == NULL);
	slab_shrink_all();
	EXPECT_EQ(t, pmm_free_frames(), free_before);
}

/* Exhausting memory gives NULL, never a panic; everything comes back afterwards. */
static void test_exhaustion(struct ktest *t)
{
	slab_shrink_all();
	size_t free_before = pmm_free_frames();
	/*
	 * 300-byte objects: stride 312 with the red zone (448 with KASAN's
	 * metadata too), 13 (9) per order-0 slab: at least the 8 that keep
	 * the cache at order 0, so it can grow until the very last frame is
	 * gone (an order-1 cache would leave an odd frame behind).
	 */
	struct kmem_cache *c = kmem_cache_create("hog", 300, 0);
	ASSERT_TRUE(t, c != NULL);
	void *chain = NULL, *o;
	size_t n = 0;
	while ((o = kmem_cache_alloc(c))) {
		*(void **)o = chain;
		chain = o;
		n++;
	}
	EXPECT_GT(t, n, 0);
	EXPECT_EQ(t, pmm_free_frames(), 0);
	while (chain) {
		void *next = *(void **)chain;
		kmem_cache_free(c, chain);
		chain = next;
	}
	kmem_cache_destroy(c);
	slab_shrink_all();
	EXPECT_EQ(t, pmm_free_frames(), free_before);
	EXPECT_EQ(t, pmm_check(), 0);
}

static void test_fail_injection(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("inject", 32, 0);
	ASSERT_TRUE(t, c != NULL);
	slab_fail_nth(2);
	void *a = kmem_cache_alloc(c);      /* 1st: succeeds */
	void *b = kmem_cache_alloc(c);      /* 2nd: injected failure */
	void *d = kmem_cache_alloc(c);      /* injection is over */
	EXPECT_TRUE(t, a != NULL);
	EXPECT_TRUE(t, b == NULL);
	EXPECT_TRUE(t, d != NULL);
	kmem_cache_free(c, a);
	kmem_cache_free(c, d);
	kmem_cache_destroy(c);
}

#if defined(SLAB_DEBUG) && !defined(KASAN)
/* Deliberate corruption is detected and counted, and the allocator goes on. */
static void test_debug_detection(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("victim", 40, 0);
	ASSERT_TRUE(t, c != NULL);
	unsigned long errs = slab_debug_errors;

	/* Write after free: caught when the slot is handed out again. */
	unsigned char *a = kmem_cache_alloc(c);
	ASSERT_TRUE(t, a != NULL);
	kmem_cache_free(c, a);
	a[20] = 0x00;
	EXPECT_NE(t, kmem_cache_check(c), 0);
	void *b = kmem_cache_alloc(c);
	EXPECT_TRUE(t, b != (void *)a);        /* the damaged slot was kept out */
	EXPECT_GE(t, slab_debug_errors, errs + 1);

	/* Overflow into the red zone: caught at free. */
	errs = slab_debug_errors;
	unsigned char *o = kmem_cache_alloc(c);
	ASSERT_TRUE(t, o != NULL);
	o[40] = 0xff;                          /* first byte past a 40-byte object */
	kmem_cache_free(c, o);
	EXPECT_EQ(t, slab_debug_errors, errs + 1);

	/* Double free: reported, ignored. */
	errs = slab_debug_errors;
	kmem_cache_free(c, b);
	kmem_cache_free(c, b);
	EXPECT_EQ(t, slab_debug_errors, errs + 1);
	EXPECT_EQ(t, kmem_cache_inuse(c), 0);
	/* The cache is not destroyed: its quarantined slot stays allocated forever. */
}
#endif

/*
 * The leak report's marks (slab_mark_all, kmem_cache_changed): a cache
 * created after the mark had nothing then; an object taken from it is a
 * change, and once it is freed and the empty slab given back, the cache
 * is as it was at the mark again.
 */
static void test_mark_changed(struct ktest *t)
{
	struct kmem_cache *c;
	void *o;

	slab_mark_all();
	c = kmem_cache_create("test_mark", 100, 0);
	ASSERT_TRUE(t, c != NULL);
	EXPECT_FALSE(t, kmem_cache_changed(c));
	o = kmem_cache_alloc(c);
	ASSERT_TRUE(t, o != NULL);
	EXPECT_TRUE(t, kmem_cache_changed(c));
	kmem_cache_free(c, o);
	slab_shrink_all();
	EXPECT_FALSE(t, kmem_cache_changed(c));
	o = kmem_cache_alloc(c);
	ASSERT_TRUE(t, o != NULL);
	slab_mark_all();
	EXPECT_FALSE(t, kmem_cache_changed(c));         /* marked with its object */
	kmem_cache_free(c, o);
	slab_shrink_all();                              /* (under KASAN the free ends the quarantine here) */
	EXPECT_TRUE(t, kmem_cache_changed(c));
	kmem_cache_destroy(c);
}

static const struct ktest_case slab_cases[] = {
	KTEST_CASE(test_many_caches),
	KTEST_CASE(test_reuse),
	KTEST_CASE(test_kmalloc_classes),
	KTEST_CASE(test_exhaustion),
	KTEST_CASE(test_fail_injection),
	KTEST_CASE(test_mark_changed),
#if defined(SLAB_DEBUG) && !defined(KASAN)
	/* (under KASAN the sanitizer catches these at the access: tests/kernel/kasan_test.c) */
	KTEST_CASE(test_debug_detection),
#endif
	{ 0 },
};
KTEST_SUITE(slab, slab_cases);
