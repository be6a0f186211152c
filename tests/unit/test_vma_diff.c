/*
 * Randomized differential test of the VMA index backends: the same random
 * operation stream goes to every backend in vma_backends[] and to the sorted
 * array model (tests/unit/vma_model.c); results, counts, full iteration and
 * check() are compared after every step.
 *
 * Seeds are fixed per case so `make test` is reproducible; each case prints
 * its seed. Host: VMA_DIFF_SEED=<n> replays one seed in every case,
 * VMA_DIFF_OPS=<n> sets the number of operations, VMA_DIFF_VERBOSE=1 prints
 * every operation. The kernel runs fewer operations. Millions of operations
 * per backend: `make soak-vma SEED=<n> OPS=<n>` (tests/fuzz/vma_soak.c).
 */
#include "ktest.h"
#include "vma_model.h"
#include "kerrno.h"
#include "printk.h"
#include "slab.h"
#include "kstring.h"
#ifdef HOSTED
#include <stdlib.h>
#endif

#ifdef HOSTED
#define DIFF_OPS_DEFAULT 30000
#else
#define DIFF_OPS_DEFAULT 1500
#endif

static uint64_t env_u64(const char *name, uint64_t def)
{
#ifdef HOSTED
	const char *s = getenv(name);
	if (s && *s)
		return strtoull(s, NULL, 0);
#else
	(void)name;
#endif
	return def;
}

/* Run one differential case: nops random ops in space s from seed. */
static void run_case(struct ktest *t, const char *name, uint64_t seed,
		     const struct vma_diff_space *s, unsigned full_every)
{
	struct vma_diff *d;
	struct vma_rng r;
	uint64_t nops = env_u64("VMA_DIFF_OPS", DIFF_OPS_DEFAULT);
	int err;

	seed = env_u64("VMA_DIFF_SEED", seed);
	d = kmalloc(sizeof(*d));
	ASSERT_TRUE(t, d != NULL);
	err = vma_diff_init(d, s->max_vmas, NULL);
	if (err) {
		kfree(d);
		ASSERT_EQ(t, err, 0);
	}
	d->full_every = full_every;
	d->verbose = env_u64("VMA_DIFF_VERBOSE", 0) != 0;
	printk("    # vma_diff %s: seed %llu, %llu ops, %u backends (replay: VMA_DIFF_SEED=%llu)\n",
	       name, (unsigned long long)seed, (unsigned long long)nops, d->nb,
	       (unsigned long long)seed);
	vma_rng_seed(&r, seed);
	err = vma_diff_run(d, &r, s, nops);
	if (err)
		ktest_fail(t, __FILE__, __LINE__, "%s: backends disagree with the model at step %llu (seed %llu)",
			   name, (unsigned long long)d->steps, (unsigned long long)seed);
	printk("    # vma_diff %s: %llu steps, %llu skipped, peak %lu VMAs, gap searches %llu found / %llu none\n",
	       name, (unsigned long long)d->steps, (unsigned long long)d->skipped,
	       (unsigned long)d->peak, (unsigned long long)d->gap_found,
	       (unsigned long long)d->gap_none);
	EXPECT_LT(t, d->skipped, d->steps / 2 + 1);   /* the generator mostly makes valid ops */
	vma_diff_destroy(d);
	kfree(d);
}

/* Dense: short VMAs packed in 2 MiB, many adjacent, page granular. */
static void test_diff_dense(struct ktest *t)
{
	const struct vma_diff_space s = { 0x400000, 512, 0, 8, 128 };
	run_case(t, "dense", 1, &s, 1);
}

/* All VMAs 64 KiB sized and aligned (the fuzzy hash's worst case). */
static void test_diff_aligned64k(struct ktest *t)
{
	const struct vma_diff_space s = { 0x10000000, 4096, 4, 4, 200 };
	run_case(t, "aligned64k", 2, &s, 4);
}

/* Sparse: 4 GiB of mmap-area addresses, VMAs up to 1 MiB. */
static void test_diff_sparse(struct ktest *t)
{
	const struct vma_diff_space s = { 0x7f0000000000UL, 1UL << 20, 0, 256, 300 };
	run_case(t, "sparse", 3, &s, 16);
}

/* From address 0: gaps that start at 0, gap searches bounded by 0. */
static void test_diff_from_zero(struct ktest *t)
{
	const struct vma_diff_space s = { 0, 256, 0, 4, 64 };
	run_case(t, "from_zero", 4, &s, 1);
}

/* The last pages below 2^64: end arithmetic near overflow. */
static void test_diff_top(struct ktest *t)
{
	const struct vma_diff_space s = { (UINTPTR_MAX & PAGE_MASK) - 256 * PAGE_SIZE, 256, 0, 4, 64 };
	run_case(t, "top", 5, &s, 1);
}

/*
 * Huge: 256 TiB in 1 TiB units, VMAs up to 24 TiB, so lengths and gaps of
 * 16 TiB and more (beyond the B-tree's 32-bit page counts) mix with small
 * ones (some addresses are not unit aligned).
 */
static void test_diff_huge(struct ktest *t)
{
	const struct vma_diff_space s = { 0, 1UL << 36, 28, 24, 128 };
	run_case(t, "huge", 6, &s, 4);
}

/* Brute-force reference for the model's own gap search over a tiny universe. */
static int brute_gap(const struct vma_model *m, bool top, uintptr_t len, uintptr_t align,
		     uintptr_t low, uintptr_t high, uintptr_t *out)
{
	uintptr_t a;
	int found = -ENOMEM;

	for (a = 0; a + len <= 80 * PAGE_SIZE; a += PAGE_SIZE) {
		if (a % align || a < low || a + len > high || !vma_model_is_free(m, a, a + len))
			continue;
		*out = a;
		found = 0;
		if (!top)
			break;
	}
	return found;
}

/*
 * The model is the oracle, so it is checked against an even simpler one:
 * find by linear scan, and gap search by trying every page of a 64-page
 * universe (80 pages of room so searches above the last range are covered).
 */
static void test_model_selftest(struct ktest *t)
{
	struct vma_model m;
	struct vma_rng r;
	unsigned round;

	ASSERT_EQ(t, vma_model_init(&m, 64), 0);
	vma_rng_seed(&r, 42);
	for (round = 0; round < 300; round++) {
		uintptr_t a, len, align, low, high, got = 1, want = 2;
		size_t i, lin;
		unsigned k;

		/* A fresh random layout in pages 0..63. */
		m.n = 0;
		for (k = 0; k < 12; k++) {
			uintptr_t s = vma_rng_below(&r, 64) * PAGE_SIZE;
			uintptr_t e = s + (1 + vma_rng_below(&r, 4)) * PAGE_SIZE;
			if (vma_model_is_free(&m, s, e))
				vma_model_insert(&m, s, e, k);
		}
		for (i = 1; i < m.n; i++)
			EXPECT_LE(t, m.e[i - 1].end, m.e[i].start);
		for (a = 0; a < 70 * PAGE_SIZE; a += PAGE_SIZE / 2) {
			for (lin = 0; lin < m.n && m.e[lin].end <= a; lin++)
				;
			EXPECT_EQ(t, vma_model_find(&m, a), lin);
		}
		for (k = 0; k < 20; k++) {
			len = (1 + vma_rng_below(&r, 6)) * PAGE_SIZE;
			align = PAGE_SIZE << vma_rng_below(&r, 4);
			low = vma_rng_below(&r, 72) * PAGE_SIZE;
			high = vma_rng_below(&r, 80) * PAGE_SIZE;
			int wr = brute_gap(&m, true, len, align, low, high, &want);
			int gr = vma_model_gap_top(&m, len, align, low, high, &got);
			EXPECT_EQ(t, gr, wr);
			if (!wr && !gr)
				EXPECT_EQ(t, got, want);
			wr = brute_gap(&m, false, len, align, low, high, &want);
			gr = vma_model_gap_bottom(&m, len, align, low, high, &got);
			EXPECT_EQ(t, gr, wr);
			if (!wr && !gr)
				EXPECT_EQ(t, got, want);
		}
	}
	vma_model_destroy(&m);
}

static const struct ktest_case vma_diff_cases[] = {
	KTEST_CASE(test_model_selftest),
	KTEST_CASE(test_diff_dense),
	KTEST_CASE(test_diff_aligned64k),
	KTEST_CASE(test_diff_sparse),
	KTEST_CASE(test_diff_from_zero),
	KTEST_CASE(test_diff_top),
	KTEST_CASE(test_diff_huge),
	{ NULL, NULL },
};
KTEST_SUITE(vma_diff, vma_diff_cases);
