/*
 * The VMA index backends, one op at a time: every case runs once per backend
 * in vma_backends[] (the suite is parameterized), calls struct
 * vma_index_ops directly and runs check() after every change.
 *
 * Pictures: one character per page, counting from address 0; letters are
 * VMAs (a run of the same letter is one VMA), '.' is free. For example
 *
 *     0         1
 *     0123456789012345
 *     ..AA.B...CC....      A = [2, 4)  B = [5, 6)  C = [9, 11)  (pages)
 *
 * Expected values are worked out from the picture in the comments.
 */
#include "ktest.h"
#include "vma.h"
#include "vma_model.h"
#include "kerrno.h"
#include "kstring.h"
#include "slab.h"

#define PG(n) ((uintptr_t)(n) * PAGE_SIZE)

struct fix {
	const struct vma_index_ops *ops;
	struct vma_index idx;
	struct vma *v;                /* 26 VMAs laid out for ops (vma_array_alloc): FV(f, 0) is 'A' */
	bool in[26];
	struct ktest *t;
};

/*
 * VMA objects carry the backend's link after struct vma, so arrays of them
 * are laid out for the backend under test (vma_array_alloc). Every fixture
 * of a case uses that backend: cur_ops.
 */
static const struct vma_index_ops *cur_ops;
#define VA(a, i) vma_array_at((a), cur_ops, (i))
#define FV(f, i) VA((f)->v, (i))

/* Set up an empty index of the case's backend (t->param indexes vma_backends[]). False: no memory. */
static bool fix_init(struct ktest *t, struct fix *f)
{
	memset(f, 0, sizeof(*f));
	f->t = t;
	f->ops = cur_ops = vma_backends[t->param];
	f->v = vma_array_alloc(f->ops, 26);
	if (!f->v) {
		ktest_fail(t, __FILE__, __LINE__, "no memory for the fixture's VMAs");
		return false;
	}
	f->ops->init(&f->idx);
	f->idx.ops = f->ops;
	return true;
}

#define CHECK(t, f) EXPECT_EQ(t, (f)->ops->check(&(f)->idx), 0)

static void fix_insert(struct fix *f, struct vma *v)
{
	struct ktest *t = f->t;

	EXPECT_EQ(t, f->ops->reserve(&f->idx, 1), 0);
	f->ops->insert(&f->idx, v);
	CHECK(t, f);
}

static void fix_erase(struct fix *f, struct vma *v)
{
	struct ktest *t = f->t;

	EXPECT_EQ(t, f->ops->reserve(&f->idx, 1), 0);
	f->ops->erase(&f->idx, v);
	CHECK(t, f);
}

static void fix_update(struct fix *f, struct vma *v, uintptr_t start, uintptr_t end)
{
	struct ktest *t = f->t;

	EXPECT_EQ(t, f->ops->reserve(&f->idx, 1), 0);
	f->ops->update(&f->idx, v, start, end);
	EXPECT_EQ(t, v->start, start);
	EXPECT_EQ(t, v->end, end);
	CHECK(t, f);
}

/*
 * Insert the VMAs of a picture (see the top of the file), in the order of
 * the letters in `order` (NULL: alphabetical).
 */
static void fix_draw(struct fix *f, const char *pic, const char *order)
{
	const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	const char *p;
	size_t i;

	for (i = 0; pic[i]; i++) {
		int l = pic[i] - 'A';
		if (l < 0 || l >= 26)
			continue;
		if (!FV(f, l)->end) {
			FV(f, l)->start = PG(i);
			FV(f, l)->pgoff = i;
		}
		FV(f, l)->end = PG(i + 1);
	}
	for (p = order ? order : abc; *p; p++) {
		int l = *p - 'A';
		if (FV(f, l)->end && !f->in[l]) {
			fix_insert(f, FV(f, l));
			f->in[l] = true;
		}
	}
}

/* Erase whatever is left, then destroy. */
static void fix_fini(struct fix *f)
{
	struct vma *v;

	while ((v = f->ops->first(&f->idx)) != NULL)
		fix_erase(f, v);
	EXPECT_EQ(f->t, f->idx.count, 0);
	f->ops->destroy(&f->idx);
	kfree(f->v);
}

#define A (FV(&f, 0))
#define B (FV(&f, 1))
#define C (FV(&f, 2))
#define D (FV(&f, 3))

/* ------------------------------------------------------------------ cases */

static void test_empty(struct ktest *t)
{
	struct fix f;
	struct vma *prev;
	uintptr_t a = 1;

	if (!fix_init(t, &f))
		return;
	prev = A;                     /* any non-NULL value: find_prev must clear it */
	CHECK(t, &f);
	EXPECT_EQ(t, f.idx.count, 0);
	EXPECT_TRUE(t, f.ops->find(&f.idx, 0) == NULL);
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(5)) == NULL);
	EXPECT_TRUE(t, f.ops->find_prev(&f.idx, PG(5), &prev) == NULL);
	EXPECT_TRUE(t, prev == NULL);
	EXPECT_TRUE(t, f.ops->first(&f.idx) == NULL);
	EXPECT_TRUE(t, f.ops->last(&f.idx) == NULL);
	EXPECT_EQ(t, f.ops->reserve(&f.idx, 1), 0);
	/* Nothing mapped: the top of [3, 10) minus one page is 9; the bottom is 3. */
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(1), PAGE_SIZE, PG(3), PG(10), &a), 0);
	EXPECT_EQ(t, a, PG(9));
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(1), PAGE_SIZE, PG(3), PG(10), &a), 0);
	EXPECT_EQ(t, a, PG(3));
	/* 8 pages do not fit in 7. */
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(8), PAGE_SIZE, PG(3), PG(10), &a), -ENOMEM);
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(8), PAGE_SIZE, PG(3), PG(10), &a), -ENOMEM);
	fix_fini(&f);
}

/*
 *     0         1
 *     0123456789012345
 *     ..AA.B...CC....      A = [2, 4)  B = [5, 6)  C = [9, 11)
 */
static void test_find(struct ktest *t)
{
	struct fix f;
	struct vma *prev;

	if (!fix_init(t, &f))
		return;
	fix_draw(&f, "..AA.B...CC....", "CAB");
	EXPECT_EQ(t, f.idx.count, 3);
	/* below the first: the first */
	EXPECT_TRUE(t, f.ops->find(&f.idx, 0) == A);
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(2) - 1) == A);
	/* inside A, first and last byte */
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(2)) == A);
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(4) - 1) == A);
	/* A's end is not in A: the hole [4, 5) belongs to B's search */
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(4)) == B);
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(5)) == B);
	/* between B and C */
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(6)) == C);
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(8) + 123) == C);
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(11) - 1) == C);
	/* above the last */
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(11)) == NULL);
	EXPECT_TRUE(t, f.ops->find(&f.idx, UINTPTR_MAX) == NULL);

	/* find_prev: prev is the last VMA with end <= addr */
	prev = C;
	EXPECT_TRUE(t, f.ops->find_prev(&f.idx, PG(1), &prev) == A);
	EXPECT_TRUE(t, prev == NULL);
	EXPECT_TRUE(t, f.ops->find_prev(&f.idx, PG(3), &prev) == A);     /* inside A */
	EXPECT_TRUE(t, prev == NULL);
	EXPECT_TRUE(t, f.ops->find_prev(&f.idx, PG(4), &prev) == B);     /* at A's end */
	EXPECT_TRUE(t, prev == A);
	EXPECT_TRUE(t, f.ops->find_prev(&f.idx, PG(5), &prev) == B);     /* at B's start */
	EXPECT_TRUE(t, prev == A);
	EXPECT_TRUE(t, f.ops->find_prev(&f.idx, PG(7), &prev) == C);
	EXPECT_TRUE(t, prev == B);
	EXPECT_TRUE(t, f.ops->find_prev(&f.idx, PG(10), &prev) == C);    /* inside C */
	EXPECT_TRUE(t, prev == B);
	EXPECT_TRUE(t, f.ops->find_prev(&f.idx, PG(11), &prev) == NULL); /* above all */
	EXPECT_TRUE(t, prev == C);
	EXPECT_TRUE(t, f.ops->find_prev(&f.idx, UINTPTR_MAX, &prev) == NULL);
	EXPECT_TRUE(t, prev == C);
	fix_fini(&f);
}

/*
 * Adjacent VMAs: an address at a boundary belongs to the upper one.
 *     0123456789
 *     .AABBBC...      A = [1, 3)  B = [3, 6)  C = [6, 7)
 */
static void test_adjacent(struct ktest *t)
{
	struct fix f;
	struct vma *prev = NULL;
	uintptr_t a = 0;

	if (!fix_init(t, &f))
		return;
	fix_draw(&f, ".AABBBC...", "BCA");
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(3) - 1) == A);
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(3)) == B);
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(6)) == C);
	EXPECT_TRUE(t, f.ops->find_prev(&f.idx, PG(6), &prev) == C);
	EXPECT_TRUE(t, prev == B);
	EXPECT_TRUE(t, f.ops->next(&f.idx, A) == B);
	EXPECT_TRUE(t, f.ops->prev(&f.idx, C) == B);
	/* The only gaps are [0, 1) and [7, ...): 2 pages below 10 go at 8, or bottom-up at 7. */
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(2), PAGE_SIZE, 0, PG(10), &a), 0);
	EXPECT_EQ(t, a, PG(8));
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(2), PAGE_SIZE, 0, PG(10), &a), 0);
	EXPECT_EQ(t, a, PG(7));
	/* One page bottom-up: page 0. Within [1, 7) nothing is free. */
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(1), PAGE_SIZE, 0, PG(10), &a), 0);
	EXPECT_EQ(t, a, 0);
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(1), PAGE_SIZE, PG(1), PG(7), &a), -ENOMEM);
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(1), PAGE_SIZE, PG(1), PG(7), &a), -ENOMEM);
	fix_fini(&f);
}

/*
 *     0123456789
 *     ..AA.B...CC      A = [2, 4)  B = [5, 6)  C = [9, 11)
 */
static void test_iterate(struct ktest *t)
{
	struct fix f;

	if (!fix_init(t, &f))
		return;
	fix_draw(&f, "..AA.B...CC", "BCA");
	EXPECT_TRUE(t, f.ops->first(&f.idx) == A);
	EXPECT_TRUE(t, f.ops->last(&f.idx) == C);
	EXPECT_TRUE(t, f.ops->next(&f.idx, A) == B);
	EXPECT_TRUE(t, f.ops->next(&f.idx, B) == C);
	EXPECT_TRUE(t, f.ops->next(&f.idx, C) == NULL);
	EXPECT_TRUE(t, f.ops->prev(&f.idx, C) == B);
	EXPECT_TRUE(t, f.ops->prev(&f.idx, B) == A);
	EXPECT_TRUE(t, f.ops->prev(&f.idx, A) == NULL);
	/* Erase the middle: A and C become neighbours. */
	fix_erase(&f, B);
	EXPECT_TRUE(t, f.ops->next(&f.idx, A) == C);
	EXPECT_TRUE(t, f.ops->prev(&f.idx, C) == A);
	/* Erase the first: C is first and last. */
	fix_erase(&f, A);
	EXPECT_TRUE(t, f.ops->first(&f.idx) == C);
	EXPECT_TRUE(t, f.ops->last(&f.idx) == C);
	EXPECT_TRUE(t, f.ops->next(&f.idx, C) == NULL);
	EXPECT_TRUE(t, f.ops->prev(&f.idx, C) == NULL);
	fix_fini(&f);
}

/* ------------------------------------------------ many VMAs, many orders */

#define MANY 300

/* VMA i of the big layouts is [3i+1, 3i+3) pages: two pages, then one free. */
static void many_init(struct vma *v, unsigned n)
{
	unsigned i;

	memset(v, 0, n * vma_alloc_size(cur_ops));
	for (i = 0; i < n; i++) {
		VA(v, i)->start = PG(3 * i + 1);
		VA(v, i)->end = PG(3 * i + 3);
		VA(v, i)->pgoff = 3 * i + 1;
	}
}

/* Permutation of 0..n-1 number `kind`: ascending, descending, evens then odds, middle-out, random. */
static void permute(unsigned *p, unsigned n, unsigned kind, uint64_t seed)
{
	struct vma_rng r;
	unsigned i, k = 0;

	switch (kind) {
	case 0:
		for (i = 0; i < n; i++) p[i] = i;
		break;
	case 1:
		for (i = 0; i < n; i++) p[i] = n - 1 - i;
		break;
	case 2:
		for (i = 0; i < n; i += 2) p[k++] = i;
		for (i = 1; i < n; i += 2) p[k++] = i;
		break;
	case 3:
		for (i = 0; i < n; i++)      /* n/2, n/2-1, n/2+1, n/2-2, ... */
			p[i] = i % 2 ? n / 2 - 1 - i / 2 : n / 2 + i / 2;
		break;
	default:
		for (i = 0; i < n; i++) p[i] = i;
		vma_rng_seed(&r, seed);
		for (i = n - 1; i > 0; i--) {
			unsigned j = (unsigned)vma_rng_below(&r, i + 1), x = p[i];
			p[i] = p[j];
			p[j] = x;
		}
		break;
	}
}

/* Every VMA present is found by an address inside it, in order, both ways. */
static void expect_in_order(struct ktest *t, struct fix *f, struct vma *v, const bool *in, unsigned n)
{
	struct vma *it = f->ops->first(&f->idx), *prev = NULL;
	unsigned i, seen = 0;

	for (i = 0; i < n; i++) {
		if (!in[i])
			continue;
		EXPECT_TRUE(t, it == VA(v, i));
		if (it != VA(v, i))
			return;
		/* An address inside the VMA finds it. */
		EXPECT_TRUE(t, f->ops->find(&f->idx, VA(v, i)->start + 5) == VA(v, i));
		EXPECT_TRUE(t, f->ops->prev(&f->idx, it) == prev);
		prev = it;
		it = f->ops->next(&f->idx, it);
		seen++;
	}
	EXPECT_TRUE(t, it == NULL);
	EXPECT_TRUE(t, f->ops->last(&f->idx) == prev);
	EXPECT_EQ(t, f->idx.count, seen);
}

static void test_insert_erase_orders(struct ktest *t)
{
	struct fix f;
	struct vma *v;
	unsigned *p;
	bool *in;
	unsigned ins, era, i;
	size_t bytes_empty = (size_t)-1;

	if (!fix_init(t, &f))
		return;
	v = vma_array_alloc(cur_ops, MANY);
	p = kzalloc(MANY * sizeof(*p));
	in = kzalloc(MANY * sizeof(*in));
	ASSERT_TRUE(t, v && p && in);
	for (ins = 0; ins < 5; ins++) {
		for (era = 0; era < 5; era++) {
			many_init(v, MANY);
			memset(in, 0, MANY * sizeof(*in));
			permute(p, MANY, ins, 100 + ins);
			for (i = 0; i < MANY; i++) {
				fix_insert(&f, VA(v, p[i]));
				in[p[i]] = true;
				ASSERT_EQ(t, f.idx.count, i + 1);
			}
			expect_in_order(t, &f, v, in, MANY);
			permute(p, MANY, era, 200 + era);
			for (i = 0; i < MANY; i++) {
				unsigned k = p[i], j;
				fix_erase(&f, VA(v, k));
				in[k] = false;
				ASSERT_EQ(t, f.idx.count, MANY - 1 - i);
				/* find at the erased start: the next VMA still present, or none */
				for (j = k + 1; j < MANY && !in[j]; j++)
					;
				EXPECT_TRUE(t, f.ops->find(&f.idx, PG(3 * k + 1)) == (j < MANY ? VA(v, j) : NULL));
				if (i % 37 == 0)
					expect_in_order(t, &f, v, in, MANY);
			}
			/* Emptied again, the index uses what it used when emptied the first time. */
			if (bytes_empty == (size_t)-1)
				bytes_empty = f.ops->bytes(&f.idx);
			EXPECT_EQ(t, f.ops->bytes(&f.idx), bytes_empty);
			if (t->failures)
				goto out;
		}
	}
out:
	fix_fini(&f);
	kfree(v);
	kfree(p);
	kfree(in);
}

/*
 *     0123456789
 *     .AA...BB..      A = [1, 3)  B = [6, 8)
 */
static void test_update(struct ktest *t)
{
	struct fix f;
	uintptr_t a = 0;

	if (!fix_init(t, &f))
		return;
	fix_draw(&f, ".AA...BB..", NULL);
	/* Grow A both ways:  AAAAA.BB.. */
	fix_update(&f, A, 0, PG(5));
	EXPECT_TRUE(t, f.ops->find(&f.idx, 0) == A);
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(4)) == A);
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(5)) == B);
	/* The only free page below B is 5. */
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(1), PAGE_SIZE, 0, PG(10), &a), 0);
	EXPECT_EQ(t, a, PG(5));
	/* Shrink B from below:  AAAAA..B.. ; two pages fit at 5 now. */
	fix_update(&f, B, PG(7), PG(8));
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(6)) == B);
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(2), PAGE_SIZE, 0, PG(10), &a), 0);
	EXPECT_EQ(t, a, PG(5));
	/* Grow B down to touch A:  AAAAABBB.. ; two pages only at 8. */
	fix_update(&f, B, PG(5), PG(8));
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(5)) == B);
	EXPECT_TRUE(t, f.ops->next(&f.idx, A) == B);
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(2), PAGE_SIZE, 0, PG(10), &a), 0);
	EXPECT_EQ(t, a, PG(8));
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(2), PAGE_SIZE, 0, PG(10), &a), 0);
	EXPECT_EQ(t, a, PG(8));
	/* Shrink A to one page at its top:  ....ABBB.. ; 4 pages fit at 0. */
	fix_update(&f, A, PG(4), PG(5));
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(4), PAGE_SIZE, 0, PG(8), &a), 0);
	EXPECT_EQ(t, a, 0);
	EXPECT_TRUE(t, f.ops->find(&f.idx, PG(3)) == A);
	fix_fini(&f);
}

/*
 * Gap bookkeeping inside a big index: VMA i = [3i+1, 3i+3), so every gap is
 * one page ([0, 1), [3, 4), [6, 7), ...) and no 2-page range is free below
 * the last VMA's end 3*MANY. Holes made by erase and update must be found.
 */
static void test_gap_many(struct ktest *t)
{
	struct fix f;
	struct vma *v;
	uintptr_t a = 0, top = PG(3 * MANY);
	unsigned i;

	if (!fix_init(t, &f))
		return;
	v = vma_array_alloc(cur_ops, MANY);
	ASSERT_TRUE(t, v != NULL);
	many_init(v, MANY);
	for (i = 0; i < MANY; i++)
		fix_insert(&f, VA(v, (i * 7) % MANY));       /* 7 is coprime with 300: all once */
	EXPECT_EQ(t, f.idx.count, MANY);
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(2), PAGE_SIZE, 0, top, &a), -ENOMEM);
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(2), PAGE_SIZE, 0, top, &a), -ENOMEM);
	/* One page: the highest hole below 3*MANY is 3*MANY-3 (VMA MANY-1 is [3*MANY-2, 3*MANY)). */
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(1), PAGE_SIZE, 0, top, &a), 0);
	EXPECT_EQ(t, a, PG(3 * MANY - 3));
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(1), PAGE_SIZE, PG(1), top, &a), 0);
	EXPECT_EQ(t, a, PG(3));
	/* Erase VMA 137 = [412, 414): hole [411, 415), 4 pages. */
	fix_erase(&f, VA(v, 137));
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(2), PAGE_SIZE, 0, top, &a), 0);
	EXPECT_EQ(t, a, PG(413));
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(2), PAGE_SIZE, 0, top, &a), 0);
	EXPECT_EQ(t, a, PG(411));
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(4), PAGE_SIZE, 0, top, &a), 0);
	EXPECT_EQ(t, a, PG(411));
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(5), PAGE_SIZE, 0, top, &a), -ENOMEM);
	/* Erase VMA 20 = [61, 63): hole [60, 64); bottom-up now finds it first. */
	fix_erase(&f, VA(v, 20));
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(2), PAGE_SIZE, 0, top, &a), 0);
	EXPECT_EQ(t, a, PG(60));
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(2), PAGE_SIZE, 0, top, &a), 0);
	EXPECT_EQ(t, a, PG(413));
	/* Bounds: below 200 pages only the [60, 64) hole; above 100, only [411, 415). */
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(2), PAGE_SIZE, 0, PG(200), &a), 0);
	EXPECT_EQ(t, a, PG(62));
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(2), PAGE_SIZE, PG(100), top, &a), 0);
	EXPECT_EQ(t, a, PG(411));
	/*
	 * Alignment 8 pages: [411, 415) has no 8-aligned 2-page range (408 is
	 * below it, 416 above), nor has [60, 64) (56 below, 64 + 2 > 64).
	 */
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(2), PG(8), 0, top, &a), -ENOMEM);
	/* ... alignment 4 pages: 412 in [411, 415) (412+2 <= 415), 60 in [60, 64). */
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(2), PG(4), 0, top, &a), 0);
	EXPECT_EQ(t, a, PG(412));
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(2), PG(4), 0, top, &a), 0);
	EXPECT_EQ(t, a, PG(60));
	/* Shrink VMA 138 = [415, 417) to [416, 417): the hole grows to [411, 416). */
	fix_update(&f, VA(v, 138), PG(416), PG(417));
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(5), PAGE_SIZE, 0, top, &a), 0);
	EXPECT_EQ(t, a, PG(411));
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(2), PAGE_SIZE, 0, top, &a), 0);
	EXPECT_EQ(t, a, PG(414));
	/* Grow VMA 136 = [409, 411) up to [409, 414): the hole shrinks to [414, 416). */
	fix_update(&f, VA(v, 136), PG(409), PG(414));
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(3), PAGE_SIZE, PG(100), top, &a), -ENOMEM);
	EXPECT_EQ(t, f.ops->gap_top(&f.idx, PG(2), PAGE_SIZE, PG(100), top, &a), 0);
	EXPECT_EQ(t, a, PG(414));
	/* Above the last VMA everything is free. */
	EXPECT_EQ(t, f.ops->gap_bottom(&f.idx, PG(10), PAGE_SIZE, 0, top + PG(20), &a), 0);
	EXPECT_EQ(t, a, top);
	fix_fini(&f);
	kfree(v);
}

/*
 *     0         1         2
 *     0123456789012345678901234
 *     ..AA....BB.C.......DD....     A = [2, 4)  B = [8, 10)  C = [11, 12)  D = [19, 21)
 *
 * Gaps: [0, 2)  [4, 8)  [10, 11)  [12, 19)  [21, ...)
 */
static void test_gap_bounds_align(struct ktest *t)
{
	struct fix f;
	uintptr_t a = 0;

	if (!fix_init(t, &f))
		return;
	fix_draw(&f, "..AA....BB.C.......DD....", "DBCA");
#define TOP(len, al, lo, hi) f.ops->gap_top(&f.idx, PG(len), PG(al), PG(lo), PG(hi), &a)
#define BOT(len, al, lo, hi) f.ops->gap_bottom(&f.idx, PG(len), PG(al), PG(lo), PG(hi), &a)
	/* top-down, page aligned */
	EXPECT_EQ(t, TOP(1, 1, 0, 25), 0);  EXPECT_EQ(t, a, PG(24));   /* [21, 25) */
	EXPECT_EQ(t, TOP(4, 1, 0, 21), 0);  EXPECT_EQ(t, a, PG(15));   /* [12, 19): 19 - 4 */
	EXPECT_EQ(t, TOP(7, 1, 0, 21), 0);  EXPECT_EQ(t, a, PG(12));   /* exact fit */
	EXPECT_EQ(t, TOP(8, 1, 0, 21), -ENOMEM);                        /* nothing has 8 */
	EXPECT_EQ(t, TOP(8, 1, 0, 30), 0);  EXPECT_EQ(t, a, PG(22));   /* [21, 30) */
	EXPECT_EQ(t, TOP(2, 1, 0, 7), 0);   EXPECT_EQ(t, a, PG(5));    /* high inside [4, 8) */
	EXPECT_EQ(t, TOP(1, 1, 0, 9), 0);   EXPECT_EQ(t, a, PG(7));    /* high inside B */
	EXPECT_EQ(t, TOP(3, 1, 13, 19), 0); EXPECT_EQ(t, a, PG(16));   /* low inside [12, 19) */
	EXPECT_EQ(t, TOP(3, 1, 17, 19), -ENOMEM);                       /* only [17, 19) above low */
	EXPECT_EQ(t, TOP(1, 1, 10, 11), 0); EXPECT_EQ(t, a, PG(10));   /* the one-page gap */
	EXPECT_EQ(t, TOP(1, 1, 2, 4), -ENOMEM);                         /* exactly A */
	EXPECT_EQ(t, TOP(1, 1, 5, 5), -ENOMEM);                         /* empty bounds */
	EXPECT_EQ(t, TOP(1, 1, 6, 5), -ENOMEM);                         /* crossed bounds */
	/* top-down, aligned to 8 pages: candidates 0, 8, 16, 24 */
	EXPECT_EQ(t, TOP(2, 8, 0, 21), 0);  EXPECT_EQ(t, a, PG(16));   /* [16, 18) in [12, 19) */
	EXPECT_EQ(t, TOP(4, 8, 0, 21), -ENOMEM);                        /* 16+4 > 19, 8 in B, 0+4 > 2 */
	EXPECT_EQ(t, TOP(2, 8, 0, 16), 0);  EXPECT_EQ(t, a, 0);        /* [0, 2) */
	EXPECT_EQ(t, TOP(4, 4, 0, 21), 0);  EXPECT_EQ(t, a, PG(12));   /* 12 is 4-aligned: [12, 16) */
	EXPECT_EQ(t, TOP(4, 4, 0, 12), 0);  EXPECT_EQ(t, a, PG(4));    /* [4, 8) */
	/* bottom-up, page aligned */
	EXPECT_EQ(t, BOT(1, 1, 0, 25), 0);  EXPECT_EQ(t, a, 0);
	EXPECT_EQ(t, BOT(3, 1, 0, 25), 0);  EXPECT_EQ(t, a, PG(4));
	EXPECT_EQ(t, BOT(5, 1, 0, 25), 0);  EXPECT_EQ(t, a, PG(12));
	EXPECT_EQ(t, BOT(8, 1, 0, 30), 0);  EXPECT_EQ(t, a, PG(21));
	EXPECT_EQ(t, BOT(8, 1, 0, 28), -ENOMEM);                        /* [21, 28) is 7 */
	EXPECT_EQ(t, BOT(1, 1, 9, 25), 0);  EXPECT_EQ(t, a, PG(10));   /* low inside B */
	EXPECT_EQ(t, BOT(2, 1, 5, 25), 0);  EXPECT_EQ(t, a, PG(5));    /* low inside [4, 8) */
	EXPECT_EQ(t, BOT(5, 1, 0, 12), -ENOMEM);                        /* high limits to [4, 8) */
	EXPECT_EQ(t, BOT(1, 1, 19, 21), -ENOMEM);                       /* exactly D */
	/* bottom-up, aligned to 8 pages */
	EXPECT_EQ(t, BOT(2, 8, 0, 30), 0);  EXPECT_EQ(t, a, 0);        /* [0, 2) exact */
	EXPECT_EQ(t, BOT(3, 8, 0, 30), 0);  EXPECT_EQ(t, a, PG(16));   /* [16, 19) */
	EXPECT_EQ(t, BOT(4, 8, 0, 30), 0);  EXPECT_EQ(t, a, PG(24));   /* 16+4 > 19 */
	EXPECT_EQ(t, BOT(4, 8, 0, 27), -ENOMEM);                        /* 24+4 > 27 */
	EXPECT_EQ(t, BOT(1, 8, 1, 30), 0);  EXPECT_EQ(t, a, PG(16));   /* low 1 rules out 0, 8 is B */
#undef TOP
#undef BOT
	fix_fini(&f);
}

/*
 * Every operation that reads a node counts it: after each of these the
 * counter must have grown (the VMA returned, or the root, was read) and it
 * never goes down.
 */
static void test_accesses(struct ktest *t)
{
	struct fix f;
	struct vma *prev;
	uintptr_t a;
	uint64_t before;

	if (!fix_init(t, &f))
		return;
	fix_draw(&f, "..AA.B...CC....", NULL);
#define GROWS(expr) do { before = f.idx.accesses; (void)(expr); EXPECT_GT(t, f.idx.accesses, before); } while (0)
	GROWS(f.ops->find(&f.idx, PG(2)));
	GROWS(f.ops->find(&f.idx, PG(10)));
	GROWS(f.ops->find(&f.idx, PG(10)));                /* again (a cache hit is still a read) */
	GROWS(f.ops->find_prev(&f.idx, PG(7), &prev));
	GROWS(f.ops->gap_top(&f.idx, PG(1), PAGE_SIZE, 0, PG(20), &a));
	GROWS(f.ops->gap_bottom(&f.idx, PG(1), PAGE_SIZE, PG(3), PG(20), &a));
	before = f.idx.accesses;
	FV(&f, 3)->start = PG(13);
	FV(&f, 3)->end = PG(14);
	fix_insert(&f, D);                                  /* a search for the place reads nodes */
	EXPECT_GT(t, f.idx.accesses, before);
	before = f.idx.accesses;
	fix_erase(&f, B);
	EXPECT_GE(t, f.idx.accesses, before);
#undef GROWS
	fix_fini(&f);
}

/*
 * reserve(n) covers the next n inserts or updates: 64 inserts on one
 * reservation; erase needs none (include/vma.h): 64 erases without any.
 */
static void test_reserve(struct ktest *t)
{
	struct fix f;
	struct vma *v;
	unsigned i;

	if (!fix_init(t, &f))
		return;
	v = vma_array_alloc(cur_ops, 64);
	ASSERT_TRUE(t, v != NULL);
	many_init(v, 64);
	EXPECT_EQ(t, f.ops->reserve(&f.idx, 64), 0);
	for (i = 0; i < 64; i++) {
		f.ops->insert(&f.idx, VA(v, (i * 5) % 64));     /* 5 coprime with 64 */
		CHECK(t, &f);
	}
	EXPECT_EQ(t, f.idx.count, 64);
	for (i = 0; i < 64; i++) {
		f.ops->erase(&f.idx, VA(v, (i * 13) % 64));
		CHECK(t, &f);
	}
	EXPECT_EQ(t, f.idx.count, 0);
	/* Reserving again and again without using it is harmless. */
	for (i = 0; i < 10; i++)
		EXPECT_EQ(t, f.ops->reserve(&f.idx, 3), 0);
	EXPECT_EQ(t, f.ops->reserve(&f.idx, 0), 0);
	fix_fini(&f);
	kfree(v);
}

/* Two indexes of the same backend are independent. */
static void test_two_indexes(struct ktest *t)
{
	struct fix f, g;

	if (!fix_init(t, &f))
		return;
	if (!fix_init(t, &g))
		return;
	fix_draw(&f, "..AA....", NULL);
	fix_draw(&g, "......BB", NULL);
	EXPECT_TRUE(t, f.ops->find(&f.idx, 0) == FV(&f, 0));
	EXPECT_TRUE(t, g.ops->find(&g.idx, 0) == FV(&g, 1));
	EXPECT_EQ(t, f.idx.count, 1);
	EXPECT_EQ(t, g.idx.count, 1);
	fix_fini(&f);
	fix_fini(&g);
}

/* The registry: by name, in its fixed order, NULL-terminated. */
static void test_registry(struct ktest *t)
{
	static const char *const order[] = { "list", "avl", "hash", "rbtree", "btree" };
	const struct vma_index_ops *const *p;
	unsigned i, last = 0;

	EXPECT_TRUE(t, vma_backend_by_name("no-such-index") == NULL);
	EXPECT_TRUE(t, vma_backend_by_name(NULL) == NULL);
	for (p = vma_backends; *p; p++) {
		EXPECT_TRUE(t, vma_backend_by_name((*p)->name) == *p);
		/* The five classic structures keep the relative order list, avl, hash, rbtree, btree. */
		for (i = 0; i < 5; i++)
			if (strcmp((*p)->name, order[i]) == 0) {
				EXPECT_GE(t, i, last);
				last = i;
			}
		EXPECT_TRUE(t, (*p)->init && (*p)->find && (*p)->find_prev && (*p)->insert &&
			    (*p)->erase && (*p)->update && (*p)->next && (*p)->prev &&
			    (*p)->first && (*p)->last && (*p)->gap_top && (*p)->gap_bottom &&
			    (*p)->check && (*p)->bytes && (*p)->reserve && (*p)->destroy);
	}
}

/*
 * Adding a backend is one file plus one line in vma_backends[]: every
 * per-backend suite must then run once per registered backend, by asking
 * the registry at run time. A suite given a fixed parameter count instead
 * (or the differential test's fixed-size arrays, when too small) would
 * silently leave a backend out; this fails instead.
 */
static void test_every_backend_covered(struct ktest *t)
{
	static const char *const per_backend[] = { "vma_index", "vma_merge", "vma_limit" };
	unsigned n = vma_backend_count(), i, k;

	EXPECT_GE(t, n, 1);
	for (i = 0; i < ARRAY_SIZE(per_backend); i++) {
		const struct ktest_suite *s = ktest_find_suite(per_backend[i]);

		ASSERT_TRUE(t, s != NULL);
		EXPECT_EQ(t, s->nparams, 0);
		EXPECT_TRUE(t, s->param_name == vma_backend_name);
		EXPECT_EQ(t, ktest_nparams(s), n);
		for (k = 0; k < n && s->param_name; k++)
			EXPECT_STREQ(t, s->param_name(k), vma_backends[k]->name);
	}
	/* test_vma_diff runs every backend side by side in arrays of this size. */
	EXPECT_LE(t, n, VMA_DIFF_MAX_BACKENDS);
	EXPECT_TRUE(t, vma_backend_name(n) == NULL);
}

static const struct ktest_case vma_index_cases[] = {
	KTEST_CASE(test_empty),
	KTEST_CASE(test_find),
	KTEST_CASE(test_adjacent),
	KTEST_CASE(test_iterate),
	KTEST_CASE(test_insert_erase_orders),
	KTEST_CASE(test_update),
	KTEST_CASE(test_gap_many),
	KTEST_CASE(test_gap_bounds_align),
	KTEST_CASE(test_accesses),
	KTEST_CASE(test_reserve),
	KTEST_CASE(test_two_indexes),
	{ NULL, NULL },
};

static const struct ktest_suite vma_index_suite = {
	.name = "vma_index",
	.cases = vma_index_cases,
	.param_name = vma_backend_name,        /* once per registered backend */
};
KTEST_REGISTER(vma_index_suite);

/* Backend-independent: the registry itself. */
static const struct ktest_case vma_registry_cases[] = {
	KTEST_CASE(test_registry),
	KTEST_CASE(test_every_backend_covered),
	{ NULL, NULL },
};
KTEST_SUITE(vma_registry, vma_registry_cases);
