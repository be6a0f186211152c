/*
 * Merge and split above the VMA index (mm/vma.c), for every backend in
 * vma_backends[]: each case runs once per backend ("case/list", ...).
 *
 * Address spaces are drawn one character per page, page 0 at BASE:
 *   "AA BB"  two VMAs of two pages with a one-page hole;
 *   "AABB"   two adjacent VMAs (distinct letters = distinct VMAs);
 *   '*' in a comment marks the range an operation works on.
 * expect_layout() compares the real VMAs with such a drawing (letters are
 * renamed in order, so only the run boundaries matter; the drawing helpers
 * are tests/unit/test_mm_util.h's, with rows for permissions and pages).
 *
 * Expected values are reasoned from Linux 6.18 (mm/vma.c, mm/mmap.c,
 * mm/mprotect.c) in the comments next to them, not taken from the code under
 * test. vma_check() runs after every operation; vma_check_merged() too
 * wherever merging is on (the histories here never leave a mergeable pair).
 */
#include "test_mm_util.h"
#include "slab.h"
#include "kerrno.h"
#include "kstring.h"
#include "printk.h"
/* White-box: vma_anon_link, to give VMAs chosen identities in test_modify_anon_cases. */
#include "mm/anon_vma.h"

#define BASE 0x10000000UL
#define PG(i) (BASE + (uintptr_t)(i) * PAGE_SIZE)
#define PGOFF(i) (PG(i) >> PAGE_SHIFT)

/* mmap(PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS) flags in Linux. */
#define F  (VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC | VM_ACCOUNT)
/* The same after mprotect(PROT_READ): VM_ACCOUNT stays. */
#define RO (F & ~VM_WRITE)
/* Shared anonymous, read-write. */
#define SH (VM_READ | VM_WRITE | VM_SHARED | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC | VM_MAYSHARE)

/* ------------------------------------------------------------- fixture */

/* Files for shared mappings (no pages), counting the VMAs' references through their ops. */
struct tobj {
	struct vm_file f;
	int refs;
};

static void tobj_get(struct vm_file *f) { container_of(f, struct tobj, f)->refs++; }
static void tobj_put(struct vm_file *f) { container_of(f, struct tobj, f)->refs--; }
static const struct vm_file_ops tobj_ops = { .get = tobj_get, .put = tobj_put };
#define TOBJ_INIT { { &tobj_ops, NULL, VMF_READ | VMF_WRITE }, 0 }

struct fixture {
	struct mm mm;
	size_t vmas0, anons0;         /* cache use before the test: must be back after */
	bool live;
};

static struct fixture fx_storage;

/*
 * A fresh address space on the case's backend (t->param indexes
 * vma_backends[]), or NULL (failed). The case then works as one long
 * system call would: the fixture holds the mmap_lock for writing from here
 * to fx_done, which every VMA operation and lookup asserts.
 */
static struct mm *fx_init(struct ktest *t)
{
	struct fixture *fx = &fx_storage;

	if (fx->live) {               /* an ASSERT ended the previous case early */
		mm_vma_destroy(&fx->mm);
		mmap_write_unlock(&fx->mm);
		fx->live = false;
	}
	fx->vmas0 = vma_objects_inuse();
	fx->anons0 = anon_identity_inuse();
	if (mm_vma_init(&fx->mm, vma_backends[t->param]) != 0) {
		ktest_fail(t, __FILE__, __LINE__, "mm_vma_init failed");
		return NULL;
	}
	mmap_write_lock(&fx->mm);
	fx->mm.merge = true;
	fx->live = true;
	return &fx->mm;
}

/* Tear down; every VMA and anon identity must be freed again. */
static void fx_done(struct ktest *t)
{
	struct fixture *fx = &fx_storage;

	if (!fx->live)
		return;
	mm_vma_destroy(&fx->mm);
	mmap_write_unlock(&fx->mm);
	fx->live = false;
	EXPECT_EQ(t, vma_objects_inuse(), fx->vmas0);
	EXPECT_EQ(t, anon_identity_inuse(), fx->anons0);
}

/* vma_check after every operation; vma_check_merged where merging is on. */
#define CHECK_MM(mm) do { \
	EXPECT_EQ(t, vma_check(mm), 0); \
	EXPECT_EQ(t, vma_check_merged(mm), 0); \
} while (0)

/* The VMA row of a drawing from BASE (tests/unit/test_mm_util.h). */
#define expect_layout(mm, want) UT_EXPECT_DRAWING(mm, BASE, want, NULL, NULL)

/* Map pages [a, b) private anonymous with flags; expect success. */
static struct vma *__map(struct ktest *t, struct mm *mm, unsigned a, unsigned b, unsigned long flags, int line)
{
	struct vma *v = NULL;
	int err = vma_map_anon(mm, PG(a), PG(b), flags, &v);

	t->checks++;
	if (err)
		ktest_fail(t, __FILE__, line, "vma_map_anon(%u, %u) = %d", a, b, err);
	EXPECT_EQ(t, vma_check(mm), 0);
	return v;
}
#define map(mm, a, b, flags) __map(t, mm, a, b, flags, __LINE__)

/* Map pages [a, b) of obj at page offset pgoff. */
static struct vma *__map_obj(struct ktest *t, struct mm *mm, unsigned a, unsigned b, unsigned long flags,
			     struct tobj *obj, unsigned long pgoff, int line)
{
	struct vma *v = NULL;
	int err = vma_map_new_range(mm, PG(a), PG(b), flags, &obj->f, pgoff, &v);

	t->checks++;
	if (err)
		ktest_fail(t, __FILE__, line, "vma_map_new_range(%u, %u) = %d", a, b, err);
	EXPECT_EQ(t, vma_check(mm), 0);
	return v;
}
#define map_obj(mm, a, b, flags, obj, pgoff) __map_obj(t, mm, a, b, flags, obj, pgoff, __LINE__)

/* mprotect-style change of pages [a, b), which lie inside one VMA. Returns the result VMA. */
static struct vma *__modify(struct ktest *t, struct mm *mm, unsigned a, unsigned b, unsigned long flags,
			    int want_err, int line)
{
	struct vma *v = vma_lookup(mm, PG(a)), *prev = NULL, *res = NULL;
	int err;

	t->checks++;
	if (!v) {
		ktest_fail(t, __FILE__, line, "no VMA at page %u", a);
		return NULL;
	}
	/* What Linux's mprotect passes: the VMA itself when starting inside it. */
	prev = PG(a) > v->start ? v : vma_prev(mm, v);
	err = vma_modify_flags(mm, v, prev, PG(a), PG(b), flags, &res);
	if (err != want_err)
		ktest_fail(t, __FILE__, line, "vma_modify_flags(%u, %u) = %d, want %d", a, b, err, want_err);
	EXPECT_EQ(t, vma_check(mm), 0);
	return err ? NULL : res;
}
#define modify(mm, a, b, flags) __modify(t, mm, a, b, flags, 0, __LINE__)
#define modify_err(mm, a, b, flags, err) __modify(t, mm, a, b, flags, err, __LINE__)

static struct vma *at(struct mm *mm, unsigned page)
{
	return vma_lookup(mm, PG(page));
}

static struct anon_vma *__prepare(struct ktest *t, struct mm *mm, unsigned page, int line)
{
	struct vma *v = at(mm, page);

	t->checks++;
	if (!v || vma_anon_prepare(mm, v) != 0 || !v->anon) {
		ktest_fail(t, __FILE__, line, "vma_anon_prepare at page %u failed", page);
		return NULL;
	}
	EXPECT_EQ(t, vma_check(mm), 0);
	return v->anon;
}
#define prepare(mm, page) __prepare(t, mm, page, __LINE__)

/* Pieces reported by vma_unmap_range. */
struct pieces {
	unsigned n;
	struct { uintptr_t start, end; unsigned long flags, pgoff; struct anon_vma *anon; } p[16];
};

static void collect(struct mm *mm, const struct vma *piece, void *arg)
{
	struct pieces *ps = arg;

	if (ps->n < ARRAY_SIZE(ps->p)) {
		ps->p[ps->n].start = piece->start;
		ps->p[ps->n].end = piece->end;
		ps->p[ps->n].flags = piece->flags;
		ps->p[ps->n].pgoff = piece->pgoff;
		ps->p[ps->n].anon = piece->anon;
	}
	ps->n++;
}

static int unmap(struct ktest *t, struct mm *mm, unsigned a, unsigned b, struct pieces *ps)
{
	int err;

	if (ps)
		memset(ps, 0, sizeof(*ps));
	err = vma_unmap_range(mm, PG(a), PG(b), ps ? collect : NULL, ps);
	EXPECT_EQ(t, vma_check(mm), 0);
	return err;
}

/* ------------------------------------------------------ new range: merge */

static void test_new_no_neighbours(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *v;

	if (!mm)
		return;
	/* 0123456789
	 *   **        map [2,4) into an empty space: a new VMA, pgoff = start >> PAGE_SHIFT (do_mmap). */
	v = map(mm, 2, 4, F);
	expect_layout(mm, "  AA");
	ASSERT_TRUE(t, v != NULL);
	EXPECT_EQ(t, v->start, PG(2));
	EXPECT_EQ(t, v->end, PG(4));
	EXPECT_EQ(t, v->flags, F);
	EXPECT_EQ(t, v->pgoff, PGOFF(2));
	EXPECT_TRUE(t, v->anon == NULL);
	EXPECT_EQ(t, mm->map_count, 1);
	/*   AA *      map [5,6): a hole at 4, no neighbour touches it: a second VMA. */
	map(mm, 5, 6, F);
	expect_layout(mm, "  AA B");
	EXPECT_EQ(t, mm->map_count, 2);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_new_merge_left(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *a, *v;

	if (!mm)
		return;
	/* AA**      prev ends at 2, same flags, pgoff PGOFF(0)+2 == PGOFF(2): prev expands (vma_expand). */
	a = map(mm, 0, 2, F);
	v = map(mm, 2, 4, F);
	expect_layout(mm, "AAAA");
	EXPECT_TRUE(t, v == a);
	EXPECT_EQ(t, v->pgoff, PGOFF(0));
	EXPECT_EQ(t, mm->map_count, 1);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_new_merge_right(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *b, *v;

	if (!mm)
		return;
	/* **BB      next starts at 2, next->pgoff PGOFF(2) == PGOFF(0) + 2: next expands down,
	 *           taking pgoff PGOFF(0) (vma_merge_new_range: vmg->pgoff = next->vm_pgoff - pglen). */
	b = map(mm, 2, 4, F);
	v = map(mm, 0, 2, F);
	expect_layout(mm, "AAAA");
	EXPECT_TRUE(t, v == b);
	EXPECT_EQ(t, v->start, PG(0));
	EXPECT_EQ(t, v->pgoff, PGOFF(0));
	EXPECT_EQ(t, mm->map_count, 1);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_new_merge_both(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *a, *v;
	size_t before;

	if (!mm)
		return;
	/* AA**CC    both sides mergeable: prev expands over the range and next; next is freed. */
	a = map(mm, 0, 2, F);
	map(mm, 4, 6, F);
	expect_layout(mm, "AA  BB");
	before = vma_objects_inuse();
	v = map(mm, 2, 4, F);
	expect_layout(mm, "AAAAAA");
	EXPECT_TRUE(t, v == a);
	EXPECT_EQ(t, v->end, PG(6));
	EXPECT_EQ(t, mm->map_count, 1);
	EXPECT_EQ(t, vma_objects_inuse(), before - 1);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_new_merge_neither(struct ktest *t)
{
	struct mm *mm = fx_init(t);

	if (!mm)
		return;
	/* AA**CC    the new range is executable, the neighbours are not: flags differ, no merge. */
	map(mm, 0, 2, F);
	map(mm, 4, 6, F);
	map(mm, 2, 4, F | VM_EXEC);
	expect_layout(mm, "AABBCC");
	EXPECT_EQ(t, mm->map_count, 3);
	/* AABBCC *  not adjacent (hole at 6): a new VMA. */
	map(mm, 7, 8, F);
	expect_layout(mm, "AABBCC D");
	CHECK_MM(mm);
	fx_done(t);
}

/* Every VM_* bit that is compared (all but VM_SOFTDIRTY). */
static const unsigned long merge_bits[] = {
	VM_READ, VM_WRITE, VM_EXEC, VM_SHARED, VM_MAYREAD, VM_MAYWRITE, VM_MAYEXEC,
	VM_MAYSHARE, VM_GROWSDOWN, VM_LOCKED, VM_SEQ_READ, VM_RAND_READ, VM_DONTCOPY,
	VM_DONTEXPAND, VM_ACCOUNT, VM_NORESERVE, VM_WIPEONFORK, VM_DONTDUMP,
	VM_HUGEPAGE, VM_NOHUGEPAGE,
};

static void test_new_flags_each(struct ktest *t)
{
	for (unsigned i = 0; i < ARRAY_SIZE(merge_bits); i++) {
		struct mm *mm = fx_init(t);

		if (!mm)
			return;
		/* AA**      prev has F, the new range F ^ bit: is_mergeable_vma compares all flags
		 *           but VM_SOFTDIRTY, so every bit alone prevents the merge. */
		map(mm, 0, 2, F);
		map(mm, 2, 4, F ^ merge_bits[i]);
		expect_layout(mm, "AABB");
		EXPECT_EQ(t, mm->map_count, 2);
		CHECK_MM(mm);
		fx_done(t);
	}
}

static void test_new_softdirty_ignored(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *a, *v;

	if (!mm)
		return;
	/* AA**      prev is soft-dirty, the new range is not: VM_SOFTDIRTY is ignored, merge;
	 *           the expanded prev keeps its own flags (vma_expand does not touch them). */
	a = map(mm, 0, 2, F | VM_SOFTDIRTY);
	v = map(mm, 2, 4, F);
	expect_layout(mm, "AAAA");
	EXPECT_TRUE(t, v == a);
	EXPECT_EQ(t, v->flags, F | VM_SOFTDIRTY);
	/* AAAA**    and the other way round, merging into next. */
	map(mm, 6, 8, F);
	v = map(mm, 4, 6, F | VM_SOFTDIRTY);
	expect_layout(mm, "AAAAAAAA");
	EXPECT_EQ(t, mm->map_count, 1);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_new_special_never_merges(struct ktest *t)
{
	struct mm *mm = fx_init(t);

	if (!mm)
		return;
	/* AA**CC    all three VM_DONTEXPAND, flags equal: VM_SPECIAL mappings never merge
	 *           (vma_merge_new_range returns at once). */
	map(mm, 0, 2, F | VM_DONTEXPAND);
	map(mm, 4, 6, F | VM_DONTEXPAND);
	map(mm, 2, 4, F | VM_DONTEXPAND);
	expect_layout(mm, "AABBCC");
	EXPECT_EQ(t, mm->map_count, 3);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_new_pgoff_discontinuity(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct tobj x = TOBJ_INIT;
	struct vma *v;

	if (!mm)
		return;
	/* AA**      anonymous prev whose pgoff is not its address (as after an mremap):
	 *           PGOFF(0)+100+2 != PGOFF(2), the new range cannot continue it. */
	v = NULL;
	EXPECT_EQ(t, vma_map_new_range(mm, PG(0), PG(2), F, NULL, PGOFF(0) + 100, &v), 0);
	map(mm, 2, 4, F);
	expect_layout(mm, "AABB");

	/*     XX**  YY   object x: [4,6) at pgoff 0, [6,8) at pgoff 2 continues it: merge.
	 *                [10,12) at pgoff 10; [8,10) at pgoff 4 continues [4,8) (0 + 4 == 4)
	 *                but not [10,12) (4 + 2 != 10): merge left only. */
	map_obj(mm, 4, 6, SH, &x, 0);
	map_obj(mm, 6, 8, SH, &x, 2);
	expect_layout(mm, "AABBCCCC");
	map_obj(mm, 10, 12, SH, &x, 10);
	v = map_obj(mm, 8, 10, SH, &x, 4);
	expect_layout(mm, "AABBCCCCCCDD");
	EXPECT_EQ(t, v->start, PG(4));
	EXPECT_EQ(t, v->pgoff, 0UL);
	/* Two VMAs point at x: the merge dropped nothing, the new VMAs took one reference each. */
	EXPECT_EQ(t, x.refs, 2);
	CHECK_MM(mm);
	fx_done(t);
	EXPECT_EQ(t, x.refs, 0);
}

static void test_new_object_differs(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct tobj x = TOBJ_INIT, y = TOBJ_INIT;

	if (!mm)
		return;
	/* XXYY      shared anonymous memory is one object per mapping: two mmaps never merge
	 *           (Linux: different shmem files). Same flags, continuous pgoffs 0, 2. */
	map_obj(mm, 0, 2, SH, &x, 0);
	map_obj(mm, 2, 4, SH, &y, 2);
	expect_layout(mm, "AABB");
	/* XXYYZZ    object vs no object: never (vm_file differs). */
	EXPECT_EQ(t, vma_map_new_range(mm, PG(4), PG(6), SH, NULL, 4, NULL), 0);
	expect_layout(mm, "AABBCC");
	EXPECT_EQ(t, x.refs, 1);
	EXPECT_EQ(t, y.refs, 1);
	CHECK_MM(mm);
	fx_done(t);
	EXPECT_EQ(t, x.refs + y.refs, 0);
}

static void test_new_anon_identities(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct anon_vma *a, *b;
	struct vma *v;

	if (!mm)
		return;
	/* A*        prev has anon identity a, the new range has none: compatible, merge; a kept. */
	map(mm, 0, 2, F);
	a = prepare(mm, 0);
	v = map(mm, 2, 4, F);
	expect_layout(mm, "AAAA");
	EXPECT_TRUE(t, v->anon == a);
	EXPECT_EQ(t, a->refcount, 1U);

	/* AAAA  **BB   next has b: merge right, next keeps b. */
	map(mm, 8, 10, F);
	b = prepare(mm, 8);
	EXPECT_TRUE(t, a != b);     /* [8,10) is not adjacent to [0,4): no reuse, a new identity */
	v = map(mm, 6, 8, F);
	expect_layout(mm, "AAAA  BBBB");
	EXPECT_TRUE(t, v->anon == b);

	/* AAAA**BBBB  three-way: both sides accept the new range, but prev (a) and next (b)
	 *             are not compatible with each other: merge with prev only
	 *             (can_vma_merge_right's are_anon_vmas_compatible). */
	v = map(mm, 4, 6, F);
	expect_layout(mm, "AAAAAABBBB");
	EXPECT_TRUE(t, v->anon == a);
	EXPECT_EQ(t, v->end, PG(6));
	EXPECT_EQ(t, a->refcount, 1U);
	EXPECT_EQ(t, b->refcount, 1U);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_new_anon_three_way(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct anon_vma *a, *b;
	struct vma *v;

	if (!mm)
		return;
	/* AA**AA    both sides carry the same identity (a VMA with a hole punched in it):
	 *           compatible with each other, full merge; a is referenced once again. */
	map(mm, 0, 6, F);
	a = prepare(mm, 0);
	EXPECT_EQ(t, unmap(t, mm, 2, 4, NULL), 0);
	expect_layout(mm, "AA  BB");
	EXPECT_EQ(t, a->refcount, 2U);
	v = map(mm, 2, 4, F);
	expect_layout(mm, "AAAAAA");
	EXPECT_TRUE(t, v->anon == a);
	EXPECT_EQ(t, a->refcount, 1U);
	CHECK_MM(mm);

	/* AAAAAA  **BB   prev... no: [6,8) free, next [8,10) has b, prev [0,6) has a:
	 *                prev NULL-compatible, next NULL-compatible, a != b: left only. */
	map(mm, 8, 10, F);
	b = prepare(mm, 8);
	v = map(mm, 6, 8, F);
	expect_layout(mm, "AAAAAAAABB");
	EXPECT_TRUE(t, v->anon == a);
	EXPECT_TRUE(t, at(mm, 8)->anon == b);
	CHECK_MM(mm);
	fx_done(t);

	/* AA**BB    prev without identity, next with b: full merge, prev inherits b (dup_anon_vma). */
	mm = fx_init(t);
	map(mm, 0, 2, F);
	map(mm, 4, 6, F);
	b = prepare(mm, 4);
	v = map(mm, 2, 4, F);
	expect_layout(mm, "AAAAAA");
	EXPECT_TRUE(t, v->anon == b);
	EXPECT_EQ(t, b->refcount, 1U);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_merge_off(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *v;
	struct anon_vma *a;

	if (!mm)
		return;
	mm->merge = false;
	/* AA**CC    merge=off: mergeable neighbours stay apart (the 2.4.2 behaviour). */
	map(mm, 0, 2, F);
	map(mm, 4, 6, F);
	map(mm, 2, 4, F);
	expect_layout(mm, "AABBCC");
	EXPECT_EQ(t, mm->map_count, 3);
	/* AA*BCC    mprotect [2,3) of B and back: splits, and no re-merge. */
	modify(mm, 2, 3, RO);
	expect_layout(mm, "AABCDD");
	modify(mm, 2, 3, F);
	expect_layout(mm, "AABCDD");
	EXPECT_EQ(t, mm->map_count, 4);
	/* Merge off disables merging and nothing else: anon identity reuse still works. */
	a = prepare(mm, 0);
	EXPECT_TRUE(t, prepare(mm, 2) == a);
	/* vma_check_merged passes when merging is off; with merging on it spots the pairs. */
	EXPECT_EQ(t, vma_check_merged(mm), 0);
	EXPECT_EQ(t, vma_check(mm), 0);
	mm->merge = true;
	printk("# (a report of unmerged VMAs is expected next)\n");
	EXPECT_EQ(t, vma_check_merged(mm), -EINVAL);
	v = at(mm, 0);
	EXPECT_TRUE(t, vma_mergeable_pair(mm, v, vma_next(mm, v)));
	fx_done(t);
}

/* ------------------------------------------------------ modify (mprotect) */

static void test_modify_whole_no_merge(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *v, *r;

	if (!mm)
		return;
	/* AAAA      the whole VMA, no neighbours: flags change in place, no split. */
	v = map(mm, 0, 4, F);
	r = modify(mm, 0, 4, RO);
	expect_layout(mm, "AAAA");
	EXPECT_TRUE(t, r == v);
	EXPECT_EQ(t, v->flags, RO);
	EXPECT_EQ(t, mm->map_count, 1);
	/* Same flags again: nothing to do (mprotect_fixup's newflags == oldflags). */
	EXPECT_TRUE(t, modify(mm, 1, 2, RO) == v);
	expect_layout(mm, "AAAA");
	CHECK_MM(mm);
	fx_done(t);
}

static void test_modify_middle_split(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *v, *r;
	struct anon_vma *a;

	if (!mm)
		return;
	/* AA**AA    a range touching neither edge cannot merge: split in three (two split_vma).
	 *           Pieces share the identity (refcount 3) and keep pgoff = address >> 12. */
	v = map(mm, 0, 6, F);
	a = prepare(mm, 0);
	r = modify(mm, 2, 4, RO);
	expect_layout(mm, "AABBCC");
	EXPECT_TRUE(t, r == v);                  /* vma_modify returns the original, now the middle */
	EXPECT_EQ(t, r->start, PG(2));
	EXPECT_EQ(t, r->flags, RO);
	EXPECT_EQ(t, at(mm, 0)->flags, F);
	EXPECT_EQ(t, at(mm, 4)->flags, F);
	EXPECT_EQ(t, at(mm, 0)->pgoff, PGOFF(0));
	EXPECT_EQ(t, at(mm, 2)->pgoff, PGOFF(2));
	EXPECT_EQ(t, at(mm, 4)->pgoff, PGOFF(4));
	EXPECT_TRUE(t, at(mm, 0)->anon == a && at(mm, 2)->anon == a && at(mm, 4)->anon == a);
	EXPECT_EQ(t, a->refcount, 3U);
	EXPECT_EQ(t, mm->map_count, 3);
	CHECK_MM(mm);

	/* AA**CC    back to F: merges with both sides (same identity, continuous pgoff). */
	r = modify(mm, 2, 4, F);
	expect_layout(mm, "AAAAAA");
	EXPECT_EQ(t, r->start, PG(0));
	EXPECT_EQ(t, r->end, PG(6));
	EXPECT_EQ(t, r->pgoff, PGOFF(0));
	EXPECT_EQ(t, a->refcount, 1U);
	EXPECT_EQ(t, mm->map_count, 1);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_modify_edges_split(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *r;

	if (!mm)
		return;
	/* **AAAA    left edge, no prev: one split, the new VMA below takes [0,2). */
	map(mm, 0, 6, F);
	r = modify(mm, 0, 2, RO);
	expect_layout(mm, "AABBBB");
	EXPECT_EQ(t, r->start, PG(0));
	EXPECT_EQ(t, r->end, PG(2));
	EXPECT_EQ(t, r->flags, RO);
	EXPECT_EQ(t, at(mm, 2)->pgoff, PGOFF(2));
	/* AABB**    right edge, no next: one split. */
	r = modify(mm, 4, 6, F | VM_EXEC);
	expect_layout(mm, "AABBCC");
	EXPECT_EQ(t, r->start, PG(4));
	EXPECT_EQ(t, r->pgoff, PGOFF(4));
	EXPECT_EQ(t, at(mm, 2)->end, PG(4));
	EXPECT_EQ(t, mm->map_count, 3);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_modify_left_edge_merge(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *p, *v, *r;
	size_t before;

	if (!mm)
		return;
	/* PP**VV    prev RO, [2,4) of V becomes RO: prev grows to 4, V shrinks to [4,6) with
	 *           pgoff PGOFF(4) (merge_left, !remove_middle: adjust middle's start). */
	p = map(mm, 0, 2, RO);
	v = map(mm, 2, 6, F);
	before = vma_objects_inuse();
	r = modify(mm, 2, 4, RO);
	expect_layout(mm, "AAAABB");
	EXPECT_TRUE(t, r == p);
	EXPECT_EQ(t, p->end, PG(4));
	EXPECT_EQ(t, p->pgoff, PGOFF(0));
	EXPECT_EQ(t, v->start, PG(4));
	EXPECT_EQ(t, v->pgoff, PGOFF(4));
	EXPECT_EQ(t, v->flags, F);
	EXPECT_EQ(t, vma_objects_inuse(), before);     /* no allocation */
	EXPECT_EQ(t, mm->map_count, 2);
	CHECK_MM(mm);
	/* PPPP**    the rest of V too: whole-VMA merge into prev, V removed. */
	r = modify(mm, 4, 6, RO);
	expect_layout(mm, "AAAAAA");
	EXPECT_TRUE(t, r == p);
	EXPECT_EQ(t, mm->map_count, 1);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_modify_right_edge_merge(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *n, *v, *r;

	if (!mm)
		return;
	/* VV**NN    next RO, [2,4) of V becomes RO: V shrinks to [0,2), next grows down to 2
	 *           with pgoff PGOFF(2) (merge_right, the one case returning next). */
	v = map(mm, 0, 4, F);
	n = map(mm, 4, 6, RO);
	r = modify(mm, 2, 4, RO);
	expect_layout(mm, "AABBBB");
	EXPECT_TRUE(t, r == n);
	EXPECT_EQ(t, n->start, PG(2));
	EXPECT_EQ(t, n->pgoff, PGOFF(2));
	EXPECT_EQ(t, v->end, PG(2));
	EXPECT_EQ(t, mm->map_count, 2);
	CHECK_MM(mm);
	/* **NNNN    all of V: next absorbs it, pgoff PGOFF(0). */
	r = modify(mm, 0, 2, RO);
	expect_layout(mm, "AAAAAA");
	EXPECT_TRUE(t, r == n);
	EXPECT_EQ(t, n->pgoff, PGOFF(0));
	EXPECT_EQ(t, mm->map_count, 1);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_modify_whole_merge(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *p, *r;

	if (!mm)
		return;
	/* PP**NN    prev RO, V F, next RO: V becomes RO: prev absorbs V and next (merge_both). */
	p = map(mm, 0, 2, RO);
	map(mm, 2, 4, F);
	map(mm, 4, 6, RO);
	r = modify(mm, 2, 4, RO);
	expect_layout(mm, "AAAAAA");
	EXPECT_TRUE(t, r == p);
	EXPECT_EQ(t, p->end, PG(6));
	EXPECT_EQ(t, mm->map_count, 1);
	CHECK_MM(mm);
	fx_done(t);

	/* PP**NN    next executable: only prev matches, prev absorbs V, next stays. */
	mm = fx_init(t);
	p = map(mm, 0, 2, RO);
	map(mm, 2, 4, F);
	map(mm, 4, 6, RO | VM_EXEC);
	r = modify(mm, 2, 4, RO);
	expect_layout(mm, "AAAABB");
	EXPECT_TRUE(t, r == p);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_modify_flags_each(struct ktest *t)
{
	for (unsigned i = 0; i < ARRAY_SIZE(merge_bits); i++) {
		unsigned long bit = merge_bits[i];
		unsigned long other = bit == VM_DONTDUMP ? VM_DONTCOPY : VM_DONTDUMP;
		struct mm *mm = fx_init(t);
		struct vma *r;

		if (!mm)
			return;
		/* PP**      prev F, V starts as F ^ other (not mergeable). V becomes F ^ bit:
		 *           still one bit away from prev, no merge. Then V becomes F: merge. */
		map(mm, 0, 2, F);
		map(mm, 2, 4, F ^ other);
		r = modify(mm, 2, 4, F ^ bit);
		expect_layout(mm, "AABB");
		EXPECT_EQ(t, r->flags, F ^ bit);
		r = modify(mm, 2, 4, F);
		expect_layout(mm, "AAAA");
		CHECK_MM(mm);
		fx_done(t);
	}
}

static void test_modify_softdirty_ignored(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *p, *r;

	if (!mm)
		return;
	/* PP**      prev F, V RO becomes F|VM_SOFTDIRTY: soft-dirty is ignored, merge; the
	 *           result takes the new flags, soft-dirty included (mprotect_fixup resets them). */
	p = map(mm, 0, 2, F);
	map(mm, 2, 4, RO);
	r = modify(mm, 2, 4, F | VM_SOFTDIRTY);
	expect_layout(mm, "AAAA");
	EXPECT_TRUE(t, r == p);
	EXPECT_EQ(t, p->flags, F | VM_SOFTDIRTY);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_modify_special(struct ktest *t)
{
	struct mm *mm = fx_init(t);

	if (!mm)
		return;
	/* PP**      both VM_DONTEXPAND after the change: VM_SPECIAL never merges, V stays apart. */
	map(mm, 0, 2, F | VM_DONTEXPAND);
	map(mm, 2, 4, RO | VM_DONTEXPAND);
	modify(mm, 2, 4, F | VM_DONTEXPAND);
	expect_layout(mm, "AABB");
	CHECK_MM(mm);
	fx_done(t);
}

static void test_modify_pgoff_and_object(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct tobj x = TOBJ_INIT, y = TOBJ_INIT;
	struct vma *r;

	if (!mm)
		return;
	/* XX**      object x at pgoff 0; V: x at pgoff 7, RO. Made SH: pgoff 0 + 2 != 7, no merge. */
	map_obj(mm, 0, 2, SH, &x, 0);
	map_obj(mm, 2, 4, SH & ~VM_WRITE, &x, 7);
	modify(mm, 2, 4, SH);
	expect_layout(mm, "AABB");
	/*     YY**  y at pgoff 0, V: x at pgoff 2 (continuous offsets, different object): no merge. */
	map_obj(mm, 4, 6, SH, &y, 0);
	map_obj(mm, 6, 8, SH & ~VM_WRITE, &x, 2);
	modify(mm, 6, 8, SH);
	expect_layout(mm, "AABBCCDD");
	/* mprotect of the middle of a shared mapping and back: the pieces keep object x with
	 * continuous pgoffs, so they merge again (shmem VMAs merge like this in Linux). */
	map_obj(mm, 10, 16, SH, &x, 100);
	r = modify(mm, 12, 14, SH & ~VM_WRITE);
	EXPECT_EQ(t, r->pgoff, 102UL);
	EXPECT_EQ(t, x.refs, 6);     /* [0,2) [2,4) [6,8) and three pieces of [10,16) */
	modify(mm, 12, 14, SH);
	expect_layout(mm, "AABBCCDD  EEEEEE");
	EXPECT_EQ(t, at(mm, 10)->pgoff, 100UL);
	EXPECT_EQ(t, x.refs, 4);
	CHECK_MM(mm);
	fx_done(t);
	EXPECT_EQ(t, x.refs + y.refs, 0);
}

/*
 * Anon identities on modify (is_mergeable_anon_vma on each side, prev and
 * next compatible with each other for a three-way merge, dup_anon_vma).
 * Each row: identities of prev/V/next (0 = none, 1/2/3 = distinct ones),
 * V made RO to match RO neighbours; the expected layout and the identity
 * of the VMA at page 0 after it.
 */
static void test_modify_anon_cases(struct ktest *t)
{
	static const struct {
		int prev, mid, next;
		const char *layout;
		int anon_at0;
	} rows[] = {
		/* PP**NN  none anywhere: full merge. */
		{ 0, 0, 0, "AAAAAA", 0 },
		/* prev 1: V and next accept it: full merge, 1 kept. */
		{ 1, 0, 0, "AAAAAA", 1 },
		/* V 1: prev and next have none: full merge, prev inherits 1 (from V, next has none). */
		{ 0, 1, 0, "AAAAAA", 1 },
		/* next 1: full merge, prev inherits next's 1. */
		{ 0, 0, 1, "AAAAAA", 1 },
		/* all the same 1: full merge. */
		{ 1, 1, 1, "AAAAAA", 1 },
		/* prev 1, next 2, V none: both sides accept V but not each other: left only. */
		{ 1, 0, 2, "AAAABB", 1 },
		/* V 1, prev 2: left refused (1 != 2); right (next none) accepted: V joins next. */
		{ 2, 1, 0, "AABBBB", 2 },
		/* V 1, next 2: right refused; left (prev none) accepted, prev inherits 1. */
		{ 0, 1, 2, "AAAABB", 1 },
		/* V 1, prev 2, next 3: nothing merges, V just changes flags. */
		{ 2, 1, 3, "AABBCC", 2 },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(rows); i++) {
		struct mm *mm = fx_init(t);
		struct anon_vma *ids[4] = { NULL, NULL, NULL, NULL };
		struct vma *v[3];
		int want[3] = { rows[i].prev, rows[i].mid, rows[i].next };

		if (!mm)
			return;
		/* V differs from its neighbours in VM_LOCKED, which anon_vma_compatible does
		 * not allow: vma_anon_prepare never reuses across them, so each first use of
		 * an id is a new identity; later uses share it. */
		v[0] = map(mm, 0, 2, RO);
		v[1] = map(mm, 2, 4, F | VM_LOCKED);
		v[2] = map(mm, 4, 6, RO);
		for (int k = 0; k < 3; k++) {
			int id = want[k];

			if (!id)
				continue;
			if (ids[id]) {
				vma_anon_link(v[k], ids[id]);
			} else {
				/* A neighbour differing in VM_LOCKED is not reusable: always a new identity. */
				EXPECT_EQ(t, vma_anon_prepare(mm, v[k]), 0);
				ids[id] = v[k]->anon;
			}
		}
		EXPECT_EQ(t, vma_check(mm), 0);
		modify(mm, 2, 4, RO);
		expect_layout(mm, rows[i].layout);
		EXPECT_TRUE(t, at(mm, 0)->anon == ids[rows[i].anon_at0]);
		CHECK_MM(mm);
		fx_done(t);
	}
}

static void test_modify_partial_anon_transfer(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct anon_vma *a;
	struct vma *n, *r;

	if (!mm)
		return;
	/* VV**NN    V has identity a, next none: [2,4) of V joins next, and next inherits a so
	 *           the anon pages moving with the range stay covered (dup_anon_vma). */
	map(mm, 0, 4, F);
	a = prepare(mm, 0);
	n = map(mm, 4, 6, RO);
	r = modify(mm, 2, 4, RO);
	expect_layout(mm, "AABBBB");
	EXPECT_TRUE(t, r == n);
	EXPECT_TRUE(t, n->anon == a);
	EXPECT_EQ(t, a->refcount, 2U);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_modify_bad_args(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *v, *r = NULL;

	if (!mm)
		return;
	v = map(mm, 2, 6, F);
	/* Outside the VMA, empty, unaligned: -EINVAL, nothing changes. */
	EXPECT_EQ(t, vma_modify_flags(mm, v, NULL, PG(1), PG(3), RO, &r), -EINVAL);
	EXPECT_EQ(t, vma_modify_flags(mm, v, NULL, PG(5), PG(7), RO, &r), -EINVAL);
	EXPECT_EQ(t, vma_modify_flags(mm, v, NULL, PG(3), PG(3), RO, &r), -EINVAL);
	EXPECT_EQ(t, vma_modify_flags(mm, v, NULL, PG(3) + 1, PG(4), RO, &r), -EINVAL);
	EXPECT_EQ(t, vma_map_anon(mm, PG(5), PG(7), F, NULL), -EEXIST);
	EXPECT_EQ(t, vma_map_anon(mm, PG(7), PG(7), F, NULL), -EINVAL);
	EXPECT_EQ(t, vma_map_anon(mm, TASK_SIZE - PAGE_SIZE, TASK_SIZE + PAGE_SIZE, F, NULL), -EINVAL);
	EXPECT_EQ(t, vma_unmap_range(mm, PG(3), PG(3), NULL, NULL), -EINVAL);
	EXPECT_EQ(t, vma_split(mm, v, PG(2), true, NULL), -EINVAL);
	EXPECT_EQ(t, vma_split(mm, v, PG(6), true, NULL), -EINVAL);
	expect_layout(mm, "  AAAA");
	CHECK_MM(mm);
	fx_done(t);
}

/* ---------------------------------------------------------------- split */

static void test_split(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct tobj x = TOBJ_INIT;
	struct vma *v, *nv;
	struct anon_vma *a;

	if (!mm)
		return;
	/* XXXXXX    split_vma at 2, new below: new [0,2) pgoff 10, V [2,6) pgoff 12. */
	v = map_obj(mm, 0, 6, SH, &x, 10);
	EXPECT_EQ(t, vma_split(mm, v, PG(2), true, &nv), 0);
	expect_layout(mm, "AABBBB");
	EXPECT_EQ(t, nv->start, PG(0));
	EXPECT_EQ(t, nv->pgoff, 10UL);
	EXPECT_EQ(t, v->start, PG(2));
	EXPECT_EQ(t, v->pgoff, 12UL);
	EXPECT_EQ(t, x.refs, 2);
	/* at 4, new above: new [4,6) pgoff 14, V [2,4) pgoff 12. No merge happens in a split. */
	EXPECT_EQ(t, vma_split(mm, v, PG(4), false, &nv), 0);
	expect_layout(mm, "AABBCC");
	EXPECT_EQ(t, nv->pgoff, 14UL);
	EXPECT_EQ(t, v->end, PG(4));
	EXPECT_EQ(t, x.refs, 3);
	EXPECT_EQ(t, vma_check(mm), 0);
	fx_done(t);
	EXPECT_EQ(t, x.refs, 0);

	/* AAAA      the identity is shared by the pieces. */
	mm = fx_init(t);
	v = map(mm, 0, 4, F);
	a = prepare(mm, 0);
	EXPECT_EQ(t, vma_split(mm, v, PG(1), false, &nv), 0);
	EXPECT_TRUE(t, nv->anon == a);
	EXPECT_EQ(t, a->refcount, 2U);
	EXPECT_EQ(t, vma_check(mm), 0);
	fx_done(t);
}

/* ---------------------------------------------------------------- unmap */

static void test_unmap_middle(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct pieces ps;
	struct anon_vma *a;

	if (!mm)
		return;
	/* AA**AA    a hole in one VMA: two VMAs remain, sharing the identity; one piece reported. */
	map(mm, 0, 6, F);
	a = prepare(mm, 0);
	EXPECT_EQ(t, unmap(t, mm, 2, 4, &ps), 0);
	expect_layout(mm, "AA  BB");
	EXPECT_EQ(t, ps.n, 1U);
	EXPECT_EQ(t, ps.p[0].start, PG(2));
	EXPECT_EQ(t, ps.p[0].end, PG(4));
	EXPECT_EQ(t, ps.p[0].pgoff, PGOFF(2));
	EXPECT_TRUE(t, ps.p[0].anon == a);
	EXPECT_EQ(t, at(mm, 4)->pgoff, PGOFF(4));
	EXPECT_EQ(t, a->refcount, 2U);
	EXPECT_EQ(t, mm->map_count, 2);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_unmap_edges_and_whole(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct pieces ps;
	struct vma *v;

	if (!mm)
		return;
	/* **AAAAAA  left edge: V starts at 2 now, pgoff follows. */
	v = map(mm, 0, 8, F);
	EXPECT_EQ(t, unmap(t, mm, 0, 2, &ps), 0);
	expect_layout(mm, "  AAAAAA");
	EXPECT_EQ(t, v->start, PG(2));
	EXPECT_EQ(t, v->pgoff, PGOFF(2));
	EXPECT_EQ(t, ps.n, 1U);
	EXPECT_EQ(t, ps.p[0].pgoff, PGOFF(0));
	/*   AAAA**  right edge. */
	EXPECT_EQ(t, unmap(t, mm, 6, 8, &ps), 0);
	expect_layout(mm, "  AAAA");
	EXPECT_EQ(t, ps.p[0].start, PG(6));
	EXPECT_EQ(t, ps.p[0].pgoff, PGOFF(6));
	/* ********  a range covering the VMA and holes around it: removed, one piece. */
	EXPECT_EQ(t, unmap(t, mm, 0, 10, &ps), 0);
	expect_layout(mm, "");
	EXPECT_EQ(t, ps.n, 1U);
	EXPECT_EQ(t, ps.p[0].start, PG(2));
	EXPECT_EQ(t, ps.p[0].end, PG(6));
	EXPECT_EQ(t, mm->map_count, 0);
	/* Nothing mapped: 0, no piece. */
	EXPECT_EQ(t, unmap(t, mm, 0, 10, &ps), 0);
	EXPECT_EQ(t, ps.n, 0U);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_unmap_spanning(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct pieces ps;

	if (!mm)
		return;
	/* 0123456789012
	 * AAA BB CC DDD
	 *   *********    unmap [2,11): A trimmed to [0,2), B and C removed, D trimmed to [11,13).
	 *                Pieces in address order: [2,3) of A, B, C, [10,11) of D. */
	map(mm, 0, 3, F);
	map(mm, 4, 6, F | VM_EXEC);
	map(mm, 7, 9, RO);
	map(mm, 10, 13, F);
	expect_layout(mm, "AAA BB CC DDD");
	EXPECT_EQ(t, unmap(t, mm, 2, 11, &ps), 0);
	expect_layout(mm, "AA         DD");
	ASSERT_EQ(t, ps.n, 4U);
	EXPECT_EQ(t, ps.p[0].start, PG(2));
	EXPECT_EQ(t, ps.p[0].end, PG(3));
	EXPECT_EQ(t, ps.p[0].pgoff, PGOFF(2));
	EXPECT_EQ(t, ps.p[1].start, PG(4));
	EXPECT_EQ(t, ps.p[1].flags, F | VM_EXEC);
	EXPECT_EQ(t, ps.p[2].start, PG(7));
	EXPECT_EQ(t, ps.p[2].end, PG(9));
	EXPECT_EQ(t, ps.p[3].start, PG(10));
	EXPECT_EQ(t, ps.p[3].end, PG(11));
	EXPECT_EQ(t, ps.p[3].pgoff, PGOFF(10));
	EXPECT_EQ(t, at(mm, 11)->pgoff, PGOFF(11));
	EXPECT_EQ(t, mm->map_count, 2);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_unmap_never_merges(struct ktest *t)
{
	struct mm *mm = fx_init(t);

	if (!mm)
		return;
	/* AABBCC    B is RO between two F VMAs. Unmapping part of B merges nothing
	 *   *       (A and the rest of B stay apart), and re-mapping the hole as F joins A only. */
	map(mm, 0, 2, F);
	map(mm, 2, 4, RO);
	map(mm, 4, 6, F);
	EXPECT_EQ(t, unmap(t, mm, 2, 3, NULL), 0);
	expect_layout(mm, "AA BCC");
	map(mm, 2, 3, F);
	expect_layout(mm, "AAABCC");
	/* Remove all of B: A and C are not adjacent; mapping the hole merges all three. */
	EXPECT_EQ(t, unmap(t, mm, 3, 4, NULL), 0);
	expect_layout(mm, "AAA BB");
	map(mm, 3, 4, F);
	expect_layout(mm, "AAAAAA");
	CHECK_MM(mm);
	fx_done(t);
}

/* ---------------------------------------------------------- anon prepare */

static void test_anon_prepare_reuse(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct anon_vma *p, *n, *a;

	if (!mm)
		return;
	/* PPVVNN    prev and next both have identities and differ from V only in VM_WRITE
	 *           (allowed by anon_vma_compatible): next is tried first and wins. */
	map(mm, 0, 2, RO | VM_LOCKED);
	map(mm, 2, 4, F | VM_LOCKED | VM_EXEC);    /* keeps the three apart for the setup */
	map(mm, 4, 6, RO | VM_LOCKED);
	p = prepare(mm, 0);
	n = prepare(mm, 4);
	EXPECT_TRUE(t, p != n);       /* [4,6): next none, prev [2,4) without identity: new */
	modify(mm, 2, 4, F | VM_LOCKED);
	a = prepare(mm, 2);
	EXPECT_TRUE(t, a == n);
	EXPECT_EQ(t, n->refcount, 2U);
	CHECK_MM(mm);
	fx_done(t);

	/* PPVVNN    next differs in VM_DONTDUMP (not an access flag): prev's is taken. */
	mm = fx_init(t);
	map(mm, 0, 2, RO);
	map(mm, 2, 4, F | VM_EXEC);
	map(mm, 4, 6, RO | VM_DONTDUMP);
	p = prepare(mm, 0);
	n = prepare(mm, 4);
	EXPECT_TRUE(t, p != n);
	EXPECT_TRUE(t, prepare(mm, 2) == p);
	fx_done(t);
}

static void test_anon_prepare_new(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct anon_vma *p, *v;
	struct tobj x = TOBJ_INIT;

	if (!mm)
		return;
	/* PP VV     not adjacent: a new identity. */
	map(mm, 0, 2, F);
	map(mm, 3, 5, F);
	p = prepare(mm, 0);
	v = prepare(mm, 3);
	EXPECT_TRUE(t, p != v);
	/* Already prepared: unchanged. */
	EXPECT_TRUE(t, prepare(mm, 3) == v);
	EXPECT_EQ(t, v->refcount, 1U);
	fx_done(t);

	/* PPVV      adjacent, only access flags differ, but pgoff discontinuous: new identity. */
	mm = fx_init(t);
	map(mm, 0, 2, RO);
	EXPECT_EQ(t, vma_map_new_range(mm, PG(2), PG(4), F, NULL, PGOFF(2) + 50, NULL), 0);
	p = prepare(mm, 0);
	EXPECT_TRUE(t, prepare(mm, 2) != p);
	fx_done(t);

	/* PPVV      different objects: new identity. */
	mm = fx_init(t);
	map_obj(mm, 0, 2, RO & ~VM_ACCOUNT, &x, 0);
	EXPECT_EQ(t, vma_map_new_range(mm, PG(2), PG(4), F & ~VM_ACCOUNT, NULL, 2, NULL), 0);
	p = prepare(mm, 0);
	EXPECT_TRUE(t, prepare(mm, 2) != p);
	fx_done(t);
}

/* ------------------------------------------------------- map_count limit */

/* Map n separate one-page VMAs at pages 0, 2, 4, ... */
static void map_sparse(struct ktest *t, struct mm *mm, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		map(mm, 2 * i, 2 * i + 1, F);
}

static void test_limit_mmap(struct ktest *t)
{
	struct mm *mm = fx_init(t);

	if (!mm)
		return;
	mm->max_map_count = 4;
	/* A B C D   4 VMAs == max. do_mmap refuses only when map_count > max, so a 5th
	 *           mapping is allowed (map_count becomes 5), and then nothing more,
	 *           not even a mapping that would merge (the check comes first). */
	map_sparse(t, mm, 4);
	map(mm, 8, 9, F);
	EXPECT_EQ(t, mm->map_count, 5);
	EXPECT_EQ(t, vma_map_anon(mm, PG(10), PG(11), F, NULL), -ENOMEM);
	EXPECT_EQ(t, vma_map_anon(mm, PG(9), PG(10), F, NULL), -ENOMEM);  /* would merge with [8,9) */
	expect_layout(mm, "A B C D E");
	/* Unmapping one brings map_count back to 4 == max: allowed again. */
	EXPECT_EQ(t, unmap(t, mm, 8, 9, NULL), 0);
	map(mm, 9, 10, F);
	EXPECT_EQ(t, mm->map_count, 5);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_limit_split(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *v;

	if (!mm)
		return;
	mm->max_map_count = 4;
	/* AAAA B C  3 VMAs. mprotect of [1,2) inside A needs two split_vma: the first sees
	 *  *        map_count 3 (3 >= 4 false), the second 4 (4 >= 4): -ENOMEM. Linux leaves
	 *           the first split done; here nothing changes (allocate first, then commit). */
	map(mm, 0, 4, F);
	map(mm, 5, 6, F);
	map(mm, 7, 8, F);
	modify_err(mm, 1, 2, RO, -ENOMEM);
	expect_layout(mm, "AAAA B C");
	EXPECT_EQ(t, at(mm, 1)->flags, F);
	/* One split (left edge) sees 3 >= 4 false: allowed, map_count 4. */
	modify(mm, 0, 1, RO);
	expect_layout(mm, "ABBB C D");
	EXPECT_EQ(t, mm->map_count, 4);
	/* At 4, any split fails (4 >= 4): right edge of [1,4). */
	modify_err(mm, 3, 4, RO, -ENOMEM);
	v = at(mm, 1);
	EXPECT_EQ(t, vma_split(mm, v, PG(2), true, NULL), -ENOMEM);
	/* ...but merging needs no split: [1,2) joins the RO [0,1) (merge_left, partial). */
	modify(mm, 1, 2, RO);
	expect_layout(mm, "AABB C D");
	/* and a whole-VMA change needs none either. */
	modify(mm, 5, 6, RO);
	EXPECT_EQ(t, mm->map_count, 4);
	CHECK_MM(mm);
	fx_done(t);

	/* 3 VMAs, max 5: the middle change needs 3 < 5 and 4 < 5: allowed, 5 VMAs. */
	mm = fx_init(t);
	mm->max_map_count = 5;
	map(mm, 0, 4, F);
	map(mm, 5, 6, F);
	map(mm, 7, 8, F);
	modify(mm, 1, 2, RO);
	expect_layout(mm, "ABCC D E");
	EXPECT_EQ(t, mm->map_count, 5);
	CHECK_MM(mm);
	fx_done(t);
}

static void test_limit_unmap(struct ktest *t)
{
	struct mm *mm = fx_init(t);

	if (!mm)
		return;
	mm->max_map_count = 4;
	/* 0123456789012
	 * AAAAAA B C D   4 VMAs == max. A hole inside A would make 5: vms_gather_munmap_vmas
	 *  *             refuses it (end < vma->end && map_count >= max): -ENOMEM, no change. */
	map(mm, 0, 6, F);
	map(mm, 7, 8, F);
	map(mm, 9, 10, F);
	map(mm, 11, 12, F);
	EXPECT_EQ(t, unmap(t, mm, 1, 2, NULL), -ENOMEM);
	expect_layout(mm, "AAAAAA B C D");
	/*      ***       [5,8) trims A and removes B: the split of A is paid for by the removal,
	 *                so no check even at the limit (__split_vma). */
	EXPECT_EQ(t, unmap(t, mm, 5, 8, NULL), 0);
	expect_layout(mm, "AAAAA    B C");
	EXPECT_EQ(t, mm->map_count, 3);
	/*  *             at 3 < 4 the hole is allowed: map_count 4. */
	EXPECT_EQ(t, unmap(t, mm, 1, 2, NULL), 0);
	expect_layout(mm, "A BBB    C D");
	EXPECT_EQ(t, mm->map_count, 4);
	CHECK_MM(mm);
	fx_done(t);

	/* Above the limit (after do_mmap's lenient check) a whole VMA can still go. */
	mm = fx_init(t);
	if (!mm)
		return;
	mm->max_map_count = 2;
	map_sparse(t, mm, 3);
	EXPECT_EQ(t, mm->map_count, 3);
	EXPECT_EQ(t, unmap(t, mm, 0, 1, NULL), 0);
	EXPECT_EQ(t, mm->map_count, 2);
	fx_done(t);
}

static void test_limit_default(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	unsigned i;
	int err = 0;

	if (!mm)
		return;
	/* The default is Linux's vm.max_map_count, 65530: 65530 separate VMAs, then one more
	 * (map_count 65530 > 65530 is false), then -ENOMEM. Mapped from the top down so the
	 * list backends insert at their head. */
	EXPECT_EQ(t, mm->max_map_count, 65530);
	for (i = 0; i < 65531 && !err; i++) {
		uintptr_t a = PG(2 * (65531 - i));

		err = vma_map_anon(mm, a, a + PAGE_SIZE, F, NULL);
	}
	EXPECT_EQ(t, err, 0);
	EXPECT_EQ(t, mm->map_count, 65531);
	EXPECT_EQ(t, vma_map_anon(mm, PG(0), PG(1), F, NULL), -ENOMEM);
	EXPECT_EQ(t, vma_check(mm), 0);
	fx_done(t);
}

/* ------------------------------------------------------- failure injection */

struct snap {
	int map_count;
	unsigned n;
	struct { uintptr_t start, end; unsigned long flags, pgoff; struct anon_vma *anon; unsigned anon_refs; struct vm_file *file; } v[16];
};

static void take_snap(struct mm *mm, struct snap *s)
{
	struct vma *v;

	memset(s, 0, sizeof(*s));
	s->map_count = mm->map_count;
	for (v = vma_first(mm); v && s->n < ARRAY_SIZE(s->v); v = vma_next(mm, v), s->n++) {
		s->v[s->n].start = v->start;
		s->v[s->n].end = v->end;
		s->v[s->n].flags = v->flags;
		s->v[s->n].pgoff = v->pgoff;
		s->v[s->n].anon = v->anon;
		s->v[s->n].anon_refs = v->anon ? v->anon->refcount : 0;
		s->v[s->n].file = v->file;
	}
}

static bool same_snap(const struct snap *a, const struct snap *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

static struct tobj fi_obj = TOBJ_INIT;

/* Setups: draw the space; ops: the operation under test. */
static void fi_setup_gap(struct ktest *t, struct mm *mm)      /* AA  BB, anon on A */
{
	map(mm, 0, 2, F);
	map(mm, 4, 6, F);
	prepare(mm, 0);
}
static void fi_setup_one(struct ktest *t, struct mm *mm)      /* AAAAAA, anon */
{
	map(mm, 0, 6, F);
	prepare(mm, 0);
}
static void fi_setup_three(struct ktest *t, struct mm *mm)    /* AABBCC  RO F RO */
{
	map(mm, 0, 2, RO);
	map(mm, 2, 4, F);
	map(mm, 4, 6, RO);
	prepare(mm, 2);
}
static void fi_setup_spread(struct ktest *t, struct mm *mm)   /* AAA BB CC DDD, shared object */
{
	map_obj(mm, 0, 3, SH, &fi_obj, 0);
	map(mm, 4, 6, F | VM_EXEC);
	map(mm, 7, 9, RO);
	map(mm, 10, 13, F);
}

static int fi_map_new(struct mm *mm)     { return vma_map_anon(mm, PG(8), PG(9), F, NULL); }
static int fi_map_merge(struct mm *mm)   { return vma_map_anon(mm, PG(2), PG(4), F, NULL); }
static int fi_map_left(struct mm *mm)    { return vma_map_anon(mm, PG(2), PG(3), F, NULL); }
static int fi_split(struct mm *mm)       { return vma_split(mm, vma_lookup(mm, PG(0)), PG(3), false, NULL); }
static int fi_anon_new(struct mm *mm)    { return vma_anon_prepare(mm, vma_lookup(mm, PG(4))); }
static int fi_unmap_mid(struct mm *mm)   { return vma_unmap_range(mm, PG(2), PG(4), NULL, NULL); }
static int fi_unmap_span(struct mm *mm)  { return vma_unmap_range(mm, PG(1), PG(11), NULL, NULL); }
static int fi_unmap_all(struct mm *mm)   { return vma_unmap_range(mm, PG(0), PG(20), NULL, NULL); }
/* MAP_FIXED over mappings (vma_map_replace): a failure must leave the old ones as they were. */
static int fi_fixed(struct mm *mm, unsigned a, unsigned b, unsigned long flags)
{
	return vma_map_replace(mm, PG(a), PG(b), flags, NULL, PGOFF(a), NULL, NULL, NULL);
}
static int fi_fixed_mid(struct mm *mm)   { return fi_fixed(mm, 2, 4, RO); }
static int fi_fixed_same(struct mm *mm)  { return fi_fixed(mm, 2, 4, F); }
static int fi_fixed_span(struct mm *mm)  { return fi_fixed(mm, 1, 11, F); }
static int fi_fixed_all(struct mm *mm)   { return fi_fixed(mm, 0, 6, RO); }
/* A stack's growth (vma_expand_start, the fault path's expand_stack): AA  SS grows down to page 3. */
static void fi_setup_stack(struct ktest *t, struct mm *mm)   /* AA  SS, SS grows down */
{
	map(mm, 0, 2, F);
	map(mm, 4, 6, F | VM_GROWSDOWN);
}
static int fi_grow_stack(struct mm *mm)  { return vma_expand_start(mm, vma_lookup(mm, PG(4)), PG(3)); }

static int fi_modify(struct mm *mm, unsigned a, unsigned b, unsigned long flags)
{
	struct vma *v = vma_lookup(mm, PG(a)), *r;

	return vma_modify_flags(mm, v, PG(a) > v->start ? v : vma_prev(mm, v), PG(a), PG(b), flags, &r);
}
static int fi_mod_mid(struct mm *mm)     { return fi_modify(mm, 2, 4, RO); }
static int fi_mod_left(struct mm *mm)    { return fi_modify(mm, 0, 2, RO); }
static int fi_mod_right(struct mm *mm)   { return fi_modify(mm, 4, 6, RO); }
static int fi_mod_both(struct mm *mm)    { return fi_modify(mm, 2, 4, RO); }
static int fi_mod_lpart(struct mm *mm)   { return fi_modify(mm, 2, 3, RO); }
static int fi_mod_rpart(struct mm *mm)   { return fi_modify(mm, 3, 4, RO); }

static void test_failure_injection(struct ktest *t)
{
	static const struct {
		const char *name;
		void (*setup)(struct ktest *, struct mm *);
		int (*op)(struct mm *);
		bool raw;             /* a bare split leaves mergeable pieces: skip vma_check_merged */
		bool allocates;       /* allocates a VMA or identity on every backend: must fail at nth 1 */
	} cases[] = {
		{ "map new", fi_setup_gap, fi_map_new, false, true },
		{ "map merge both", fi_setup_gap, fi_map_merge, false, false },
		{ "map merge left", fi_setup_gap, fi_map_left, false, false },
		{ "split", fi_setup_one, fi_split, true, true },
		{ "anon prepare", fi_setup_gap, fi_anon_new, false, true },
		{ "modify middle", fi_setup_one, fi_mod_mid, false, true },
		{ "modify left edge", fi_setup_one, fi_mod_left, false, true },
		{ "modify right edge", fi_setup_one, fi_mod_right, false, true },
		{ "modify merge both", fi_setup_three, fi_mod_both, false, false },
		{ "modify merge left part", fi_setup_three, fi_mod_lpart, false, false },
		{ "modify merge right part", fi_setup_three, fi_mod_rpart, false, false },
		{ "unmap middle", fi_setup_one, fi_unmap_mid, false, true },
		{ "unmap spanning", fi_setup_spread, fi_unmap_span, false, false },
		{ "unmap all", fi_setup_spread, fi_unmap_all, false, false },
		{ "map fixed over the middle", fi_setup_one, fi_fixed_mid, false, true },
		{ "map fixed, merging back", fi_setup_one, fi_fixed_same, false, true },
		{ "map fixed over several", fi_setup_spread, fi_fixed_span, false, true },
		{ "map fixed over all", fi_setup_one, fi_fixed_all, false, true },
		{ "stack growth", fi_setup_stack, fi_grow_stack, false, false },
	};

	for (unsigned c = 0; c < ARRAY_SIZE(cases); c++) {
		bool done = false;
		unsigned failures = 0;

		/* Fail the 1st, 2nd, ... allocation of the operation until it succeeds: every
		 * failure must be -ENOMEM with the address space exactly as before. */
		for (unsigned long nth = 1; nth <= 32 && !done; nth++) {
			struct mm *mm = fx_init(t);
			struct snap before, after;
			int err;

			if (!mm)
				return;
			cases[c].setup(t, mm);
			take_snap(mm, &before);
			slab_fail_nth(nth);
			err = cases[c].op(mm);
			slab_fail_nth(0);
			if (err == 0) {
				done = true;
			} else {
				failures++;
				take_snap(mm, &after);
				if (err != -ENOMEM || !same_snap(&before, &after))
					ktest_fail(t, __FILE__, __LINE__, "%s: failure %lu: err %d, %s",
						   cases[c].name, nth, err,
						   same_snap(&before, &after) ? "unchanged" : "address space changed");
			}
			EXPECT_EQ(t, vma_check(mm), 0);
			if (!cases[c].raw)
				EXPECT_EQ(t, vma_check_merged(mm), 0);
			fx_done(t);
			EXPECT_EQ(t, fi_obj.refs, 0);
		}
		if (!done)
			ktest_fail(t, __FILE__, __LINE__, "%s: never succeeded", cases[c].name);
		if (cases[c].allocates && !failures)
			ktest_fail(t, __FILE__, __LINE__, "%s: injection never hit", cases[c].name);
	}
}

/*
 * vma_expand_start's contract: the range below must be free (-EEXIST when
 * the VMA below reaches into it), new_start below the VMA and page
 * aligned (-EINVAL), the page offset may not go below 0 (-ENOMEM); a
 * growth changes start and pgoff only, and never merges with the VMA
 * below even when it would be mergeable (Linux's expand_downwards).
 */
static void test_expand_start(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct vma *s;

	if (!mm)
		return;
	map(mm, 0, 2, F);
	map(mm, 4, 6, F | VM_GROWSDOWN);
	s = vma_lookup(mm, PG(4));
	EXPECT_EQ(t, vma_expand_start(mm, s, PG(4)), -EINVAL);
	EXPECT_EQ(t, vma_expand_start(mm, s, PG(3) + 1), -EINVAL);
	EXPECT_EQ(t, vma_expand_start(mm, s, PG(1)), -EEXIST);
	s->pgoff = 1;                           /* (as if mapped at offset 1: 2 pages lower is offset -1) */
	EXPECT_EQ(t, vma_expand_start(mm, s, PG(2)), -ENOMEM);
	EXPECT_EQ(t, s->start, PG(4));
	s->pgoff = PGOFF(4);
	EXPECT_EQ(t, vma_expand_start(mm, s, PG(2)), 0);
	EXPECT_EQ(t, s->start, PG(2));
	EXPECT_EQ(t, s->pgoff, PGOFF(2));
	EXPECT_EQ(t, mm->map_count, 2);         /* touching AA now, not merged with it */
	EXPECT_EQ(t, vma_check(mm), 0);
	fx_done(t);
}

/* -------------------------------------------------------------- free area */

static void test_free_area_topdown(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	uintptr_t a = 0, top = MMAP_BASE_DEFAULT;
	struct vma *v;

	if (!mm)
		return;
	/* Empty: the highest 4 pages below mmap_base (0x7ffff7fff000, Linux without ASLR). */
	EXPECT_EQ(t, top, 0x7ffff7fff000UL);
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0, 4 * PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, top - 4 * PAGE_SIZE);
	/* Mapped there, the next one goes right below it. */
	EXPECT_EQ(t, vma_map_anon(mm, a, a + 4 * PAGE_SIZE, F, &v), 0);
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0, PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, top - 5 * PAGE_SIZE);
	/* A hole of 2 pages below the first mapping, another VMA below the hole:
	 * a 2-page request fills the hole; a 3-page one goes below the lower VMA. */
	EXPECT_EQ(t, vma_map_anon(mm, top - 8 * PAGE_SIZE, top - 6 * PAGE_SIZE, F | VM_EXEC, NULL), 0);
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0, 2 * PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, top - 6 * PAGE_SIZE);
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0, 3 * PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, top - 11 * PAGE_SIZE);
	/* Alignment: a 2 MiB-aligned 2 MiB range below everything. */
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0, 2UL << 20, 2UL << 20, &a), 0);
	EXPECT_EQ(t, a, ALIGN_DOWN(top - 8 * PAGE_SIZE - (2UL << 20), 2UL << 20));
	EXPECT_EQ(t, vma_check(mm), 0);
	fx_done(t);
}

static void test_free_area_hint(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	uintptr_t a = 0;

	if (!mm)
		return;
	map(mm, 0, 4, F);
	/* A free hint is taken as is (rounded down to a page); alignment does not apply to it. */
	EXPECT_EQ(t, vma_get_unmapped_area(mm, PG(4) + 123, 2 * PAGE_SIZE, 2UL << 20, &a), 0);
	EXPECT_EQ(t, a, PG(4));
	/* A hint overlapping a VMA is ignored: top-down search. */
	EXPECT_EQ(t, vma_get_unmapped_area(mm, PG(3), 2 * PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, MMAP_BASE_DEFAULT - 2 * PAGE_SIZE);
	/* Below mmap_min_addr: raised to it (round_hint_to_min). */
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0x1000, PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, MMAP_MIN_ADDR);
	/* Past TASK_SIZE - len: ignored. */
	EXPECT_EQ(t, vma_get_unmapped_area(mm, TASK_SIZE - PAGE_SIZE, 2 * PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, MMAP_BASE_DEFAULT - 2 * PAGE_SIZE);
	/* Above mmap_base but free: taken (the hint is not limited to the mmap area). */
	EXPECT_EQ(t, vma_get_unmapped_area(mm, TASK_SIZE - 2 * PAGE_SIZE, 2 * PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, TASK_SIZE - 2 * PAGE_SIZE);
	/* Bad lengths. */
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0, 0, PAGE_SIZE, &a), -EINVAL);
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0, 100, PAGE_SIZE, &a), -EINVAL);
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0, TASK_SIZE + PAGE_SIZE, PAGE_SIZE, &a), -ENOMEM);
	fx_done(t);
}

static void test_free_area_guard_and_fallback(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	uintptr_t a = 0, top = MMAP_BASE_DEFAULT;

	if (!mm)
		return;
	/* A stack (VM_GROWSDOWN) right at mmap_base - 4 pages: the 256-page guard gap below it is
	 * not free space, and neither is the 4-page hole above it (too small for 8 pages). */
	EXPECT_EQ(t, vma_map_anon(mm, top - 8 * PAGE_SIZE, top - 4 * PAGE_SIZE, F | VM_GROWSDOWN, NULL), 0);
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0, 8 * PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, top - 8 * PAGE_SIZE - STACK_GUARD_GAP - 8 * PAGE_SIZE);
	/* The 4-page hole above the stack is fine for 4 pages (the guard is below the stack). */
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0, 4 * PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, top - 4 * PAGE_SIZE);
	/* A hint inside the guard gap is refused (x86: addr + len <= vm_start_gap(next)). */
	EXPECT_EQ(t, vma_get_unmapped_area(mm, top - 8 * PAGE_SIZE - PAGE_SIZE, PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, top - 4 * PAGE_SIZE + 3 * PAGE_SIZE);
	fx_done(t);

	/* Top-down room exhausted: mmap_base so low that nothing fits below it; the bottom-up
	 * fallback starts at mmap_legacy_base. */
	mm = fx_init(t);
	mm->mmap_base = MMAP_MIN_ADDR + PAGE_SIZE;
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0, 4 * PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, TASK_UNMAPPED_BASE);
	EXPECT_EQ(t, vma_map_anon(mm, a, a + 4 * PAGE_SIZE, F, NULL), 0);
	EXPECT_EQ(t, vma_get_unmapped_area(mm, 0, 4 * PAGE_SIZE, PAGE_SIZE, &a), 0);
	EXPECT_EQ(t, a, TASK_UNMAPPED_BASE + 4 * PAGE_SIZE);
	/* Lower bound: never below mmap_min_addr even when asked. */
	EXPECT_EQ(t, vma_find_free_area(mm, PAGE_SIZE, PAGE_SIZE, 0, MMAP_MIN_ADDR + PAGE_SIZE, true, &a), 0);
	EXPECT_EQ(t, a, MMAP_MIN_ADDR);
	EXPECT_EQ(t, vma_find_free_area(mm, 2 * PAGE_SIZE, PAGE_SIZE, 0, MMAP_MIN_ADDR + PAGE_SIZE, true, &a), -ENOMEM);
	fx_done(t);
}

/* ------------------------------------------------------------ random ops */

#define RND_PAGES 48
#ifdef HOSTED
#define RND_OPS 4000
#else
#define RND_OPS 600
#endif

static uint64_t rnd_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Random map / modify / unmap (and, when with_anon, anon prepare) on 48
 * pages, against a model holding each page's flags (0: unmapped). After
 * every step: vma_check, vma_check_merged, every page's presence and flags,
 * pgoff == address >> PAGE_SHIFT (private anonymous memory keeps it through
 * splits and merges). Without anon identities the merge rules reduce to
 * "equal flags and adjacent", so the VMAs must be exactly the maximal runs
 * of equal flags in the model.
 */
static void random_ops(struct ktest *t, uint64_t seed, bool with_anon)
{
	static const unsigned long choices[] = { F, RO, F | VM_EXEC };
	unsigned long model[RND_PAGES];
	struct mm *mm = fx_init(t);
	uint64_t x = seed;

	if (!mm)
		return;
	printk("# random_ops seed %llu anon %d\n", (unsigned long long)seed, with_anon);
	memset(model, 0, sizeof(model));
	for (unsigned op = 0; op < RND_OPS && !t->failures; op++) {
		unsigned kind = rnd_next(&x) % (with_anon ? 4 : 3);
		unsigned a = rnd_next(&x) % RND_PAGES;
		unsigned len = 1 + rnd_next(&x) % 6;
		unsigned b = MIN(a + len, RND_PAGES);
		unsigned long fl = choices[rnd_next(&x) % ARRAY_SIZE(choices)];
		struct vma *v;
		bool is_free = true;

		switch (kind) {
		case 0:                          /* map, if the range is free */
			for (unsigned i = a; i < b; i++)
				is_free = is_free && !model[i];
			if (!is_free)
				break;
			EXPECT_EQ(t, vma_map_anon(mm, PG(a), PG(b), fl, NULL), 0);
			for (unsigned i = a; i < b; i++)
				model[i] = fl;
			break;
		case 1:                          /* modify part of the VMA at a */
			v = at(mm, a);
			if (!v)
				break;
			b = MIN(b, (unsigned)((v->end - BASE) >> PAGE_SHIFT));
			{
				struct vma *r, *prev = PG(a) > v->start ? v : vma_prev(mm, v);

				EXPECT_EQ(t, vma_modify_flags(mm, v, prev, PG(a), PG(b), fl, &r), 0);
			}
			for (unsigned i = a; i < b; i++)
				model[i] = fl;
			break;
		case 2:                          /* unmap, holes and all */
			EXPECT_EQ(t, vma_unmap_range(mm, PG(a), PG(b), NULL, NULL), 0);
			for (unsigned i = a; i < b; i++)
				model[i] = 0;
			break;
		default:                         /* anon prepare */
			v = at(mm, a);
			if (v)
				EXPECT_EQ(t, vma_anon_prepare(mm, v), 0);
			break;
		}
		EXPECT_EQ(t, vma_check(mm), 0);
		EXPECT_EQ(t, vma_check_merged(mm), 0);
		for (unsigned i = 0; i < RND_PAGES; i++) {
			v = at(mm, i);
			EXPECT_EQ(t, v ? v->flags : 0UL, model[i]);
			if (v)
				EXPECT_EQ(t, v->pgoff + ((PG(i) - v->start) >> PAGE_SHIFT), PGOFF(i));
		}
		if (!with_anon) {
			unsigned runs = 0;

			for (unsigned i = 0; i < RND_PAGES; i++)
				if (model[i] && (i == 0 || model[i - 1] != model[i]))
					runs++;
			EXPECT_EQ(t, (unsigned)mm->map_count, runs);
		}
		if (t->failures) {
			printk("# random_ops: failed at op %u (kind %u, pages %u-%u)\n", op, kind, a, b);
			vma_dump(mm);
		}
	}
	fx_done(t);
}

static void test_random_no_anon(struct ktest *t)
{
	random_ops(t, 0x9e3779b97f4a7c15ULL, false);
}

static void test_random_with_anon(struct ktest *t)
{
	random_ops(t, 0xd1b54a32d192ed03ULL, true);
}

/* ------------------------------------------------------------ checker */

static void test_check_detects(struct ktest *t)
{
	struct mm *mm = fx_init(t);
	struct anon_vma *a;

	if (!mm)
		return;
	map(mm, 0, 2, F);
	map(mm, 3, 5, F);
	a = prepare(mm, 0);
	EXPECT_EQ(t, vma_check(mm), 0);
	printk("# (two vma_check reports are expected next)\n");
	/* A wrong map_count is found... */
	mm->map_count++;
	EXPECT_EQ(t, vma_check(mm), -EINVAL);
	mm->map_count--;
	/* ...and an identity whose count disagrees with the VMAs pointing at it. */
	at(mm, 3)->anon = a;
	EXPECT_EQ(t, vma_check(mm), -EINVAL);
	at(mm, 3)->anon = NULL;
	EXPECT_EQ(t, vma_check(mm), 0);
	fx_done(t);
}

static const struct ktest_case vma_merge_cases[] = {
	KTEST_CASE(test_new_no_neighbours),
	KTEST_CASE(test_new_merge_left),
	KTEST_CASE(test_new_merge_right),
	KTEST_CASE(test_new_merge_both),
	KTEST_CASE(test_new_merge_neither),
	KTEST_CASE(test_new_flags_each),
	KTEST_CASE(test_new_softdirty_ignored),
	KTEST_CASE(test_new_special_never_merges),
	KTEST_CASE(test_new_pgoff_discontinuity),
	KTEST_CASE(test_new_object_differs),
	KTEST_CASE(test_new_anon_identities),
	KTEST_CASE(test_new_anon_three_way),
	KTEST_CASE(test_merge_off),
	KTEST_CASE(test_modify_whole_no_merge),
	KTEST_CASE(test_modify_middle_split),
	KTEST_CASE(test_modify_edges_split),
	KTEST_CASE(test_modify_left_edge_merge),
	KTEST_CASE(test_modify_right_edge_merge),
	KTEST_CASE(test_modify_whole_merge),
	KTEST_CASE(test_modify_flags_each),
	KTEST_CASE(test_modify_softdirty_ignored),
	KTEST_CASE(test_modify_special),
	KTEST_CASE(test_modify_pgoff_and_object),
	KTEST_CASE(test_modify_anon_cases),
	KTEST_CASE(test_modify_partial_anon_transfer),
	KTEST_CASE(test_modify_bad_args),
	KTEST_CASE(test_split),
	KTEST_CASE(test_unmap_middle),
	KTEST_CASE(test_unmap_edges_and_whole),
	KTEST_CASE(test_unmap_spanning),
	KTEST_CASE(test_unmap_never_merges),
	KTEST_CASE(test_anon_prepare_reuse),
	KTEST_CASE(test_anon_prepare_new),
	KTEST_CASE(test_limit_mmap),
	KTEST_CASE(test_limit_split),
	KTEST_CASE(test_limit_unmap),
	KTEST_CASE(test_failure_injection),
	KTEST_CASE(test_expand_start),
	KTEST_CASE(test_free_area_topdown),
	KTEST_CASE(test_free_area_hint),
	KTEST_CASE(test_free_area_guard_and_fallback),
	KTEST_CASE(test_random_no_anon),
	KTEST_CASE(test_random_with_anon),
	KTEST_CASE(test_check_detects),
	{ 0 },
};

static const struct ktest_suite vma_merge_suite = {
	.name = "vma_merge",
	.cases = vma_merge_cases,
	.param_name = vma_backend_name,        /* once per registered backend */
};
KTEST_REGISTER(vma_merge_suite);

/*
 * The limit at its real default (65530 VMAs per backend) is quadratic on the
 * list-based backends: the host runs it (make test runs every host suite),
 * the kernel only when asked (ktest=all or ktest=vma_limit).
 */
static const struct ktest_case vma_limit_cases[] = {
	KTEST_CASE(test_limit_default),
	{ 0 },
};

static const struct ktest_suite vma_limit_suite = {
	.name = "vma_limit",
	.cases = vma_limit_cases,
	.param_name = vma_backend_name,        /* once per registered backend */
	.flags = KTEST_SLOW,
};
KTEST_REGISTER(vma_limit_suite);
