/*
 * The frame-map audit (include/mm.h, mm_audit_maps): does every frame's
 * mapcount say how many page-table entries map it?
 *
 * A frame's counts drifting from its mappings is the bug that shows up
 * late and far away: one count too few and the frame is freed while an
 * entry still maps it, so another owner's data appears in a program's
 * memory (or the program's writes in the other owner's); one too many
 * and it is never freed (a leak check finds a frame short, and cannot
 * say whose). The audit finds the drift where it is, while the mapping
 * is still there: it walks every live address space's page tables and
 * counts, per frame, the 4 KiB entries and the 2 MiB leaves over it,
 * less the leaf's block's deferred shares (mm/thp.c: a leaf fork added
 * is counted on the block, not on the frames). Then, for each frame:
 *  - anonymous or page-cache memory: mapcount equals the count;
 *  - mapped by any entry: anonymous or page-cache memory, allocated
 *    (refcount > 0) and referenced at least once per mapping;
 * for each 2 MiB block: its deferred shares are fewer than the leaves
 * over it (none without a leaf), and the arch layer's count of leaves
 * (pmm_huge_maps) is the number found; and for each address space: its
 * rss counts the frames its entries map (a leaf 512, the zero pages
 * none), rss_file those that are not anonymous (an rss that drifts ends
 * in mm_teardown's panic, long after the operation that made it).
 *
 * The address spaces are walked one at a time, each under its pt_lock,
 * so a frame shared between two of them can change between the two
 * walks (a fork, an exit, khugepaged, reclaim on another CPU): a frame,
 * block or address space found wrong is looked at again in
 * AUDIT_PASSES - 1 more whole passes and counts only if every pass
 * finds it wrong. (Holding every
 * pt_lock at once would make one pass exact, but a fuzzer's seed has
 * more address spaces than the lock checker tracks locks.) The counts
 * go in a buffer of frames from the allocator, a window of the frames at
 * a time when memory is short.
 */
#include "internal.h"
#include "kerrno.h"
#include "printk.h"
#include "slab.h"
#include "kstring.h"

#define AUDIT_PASSES 3
#define AUDIT_TRACK 16          /* wrong frames, blocks and address spaces followed through the passes */
#define AUDIT_WHERE 4           /* mappings shown for each wrong frame */

enum audit_kind { AUDIT_FRAME, AUDIT_BLOCK, AUDIT_RSS };

struct audit_item {
	enum audit_kind kind;
	uint64_t id;            /* the frame's pfn, the 2 MiB block's first pfn, the address space's list_id */
	bool wrong;             /* in every pass so far */
	bool again;             /* in the pass now */
};

struct audit {
	int32_t *count;         /* entries mapping each frame of the window */
	pfn_t base, n;          /* the window: frames [base, base + n) */
	int32_t *leaves;        /* 2 MiB leaves over each block (counted in a pass's first window) */
	bool count_leaves;      /* the pass's first window: leaves and rss counted too */
	bool first_pass;
	unsigned long rss, rss_file;    /* the frames the address space being walked maps */
	struct audit_item item[AUDIT_TRACK];
	unsigned items;
	unsigned long found;    /* wrong ones in the first pass */
};

static bool in_window(const struct audit *a, pfn_t pfn)
{
	return pfn >= a->base && pfn - a->base < a->n;
}

static enum mmu_action count_pte(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct audit *a = arg;
	pfn_t pfn = pa >> PAGE_SHIFT;

	(void)va;
	(void)state;
	if (mm_is_zero_pa(pa))
		return MMU_KEEP;
	if (in_window(a, pfn))
		a->count[pfn - a->base]++;
	if (a->count_leaves && pfn < pmm_max_pfn) {
		a->rss++;
		a->rss_file += !(READ_ONCE(pmm_mem_map[pfn].flags) & PG_anon);
	}
	return MMU_KEEP;
}

static enum mmu_action count_leaf(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct audit *a = arg;
	pfn_t pfn = pa >> PAGE_SHIFT;

	(void)va;
	(void)state;
	if (pfn >= pmm_max_pfn)
		return MMU_KEEP;
	if (a->count_leaves)
		a->leaves[pfn >> HUGE_ORDER]++;         /* the huge zero page's too: pmm_huge_maps counts it */
	if (mm_is_zero_pa(pa))
		return MMU_KEEP;
	if (a->count_leaves)
		a->rss += 1U << HUGE_ORDER;     /* an anonymous huge page (mm/thp.c) */
	for (pfn_t i = 0; i < (1U << HUGE_ORDER); i++)
		if (in_window(a, pfn + i))
			a->count[pfn + i - a->base]++;
	return MMU_KEEP;
}

/*
 * A verdict on one frame, block or address space: in the first pass a
 * wrong one is noted (and followed, up to AUDIT_TRACK); in a later pass
 * a followed one is marked if it is wrong again (audit_pass keeps only
 * those: an address space gone since is no longer wrong).
 */
static void judge(struct audit *a, enum audit_kind kind, uint64_t id, bool wrong)
{
	if (a->first_pass) {
		if (!wrong)
			return;
		a->found++;
		if (a->items < AUDIT_TRACK)
			a->item[a->items++] = (struct audit_item){ kind, id, true, false };
		return;
	}
	for (unsigned i = 0; i < a->items; i++)
		if (a->item[i].kind == kind && a->item[i].id == id)
			a->item[i].again = wrong;
}

/* Count the entries of every live address space over the window (and each one's rss in the first). */
static void count_window(struct audit *a)
{
	struct mm *mm = NULL;

	memset(a->count, 0, a->n * sizeof(*a->count));
	if (a->count_leaves)
		memset(a->leaves, 0, ((pmm_max_pfn >> HUGE_ORDER) + 1) * sizeof(*a->leaves));
	while ((mm = mm_list_next(mm))) {
		bool rss_wrong;

		a->rss = a->rss_file = 0;
		mm_pt_lock(mm);
		if (mm->mmu)
			arch_mmu_walk_huge(mm->mmu, 0, TASK_SIZE, count_leaf, count_pte, a, NULL);
		rss_wrong = a->rss != READ_ONCE(mm->rss) || a->rss_file != READ_ONCE(mm->rss_file);
		mm_pt_unlock(mm);
		if (a->count_leaves)
			judge(a, AUDIT_RSS, mm->list_id, rss_wrong);
	}
}

/* The mapcount the frame's entries make (its block's deferred shares left out). */
static int32_t expected_maps(const struct audit *a, pfn_t pfn)
{
	int32_t n = a->count[pfn - a->base];

	if (a->leaves[pfn >> HUGE_ORDER])
		n -= READ_ONCE(*pmm_huge_shares((phys_addr_t)pfn << PAGE_SHIFT));
	return n;
}

static bool frame_wrong(const struct audit *a, pfn_t pfn)
{
	const struct page *p = &pmm_mem_map[pfn];
	int32_t want = expected_maps(a, pfn), maps = READ_ONCE(p->mapcount), refs = READ_ONCE(p->refcount);
	uint32_t flags = READ_ONCE(p->flags);
	bool user = flags & (PG_anon | PG_cache);

	if (flags & PG_reserved)
		return false;           /* never given out (the zero page is left out above) */
	if (user && maps != want)
		return true;
	return a->count[pfn - a->base] && (!user || refs <= 0 || refs < maps);
}

static bool block_wrong(const struct audit *a, pfn_t blk)
{
	phys_addr_t pa = (phys_addr_t)blk << (HUGE_ORDER + PAGE_SHIFT);
	int32_t leaves = a->leaves[blk], shares = READ_ONCE(*pmm_huge_shares(pa));

	return READ_ONCE(*pmm_huge_maps(pa)) != leaves || shares < 0 || (shares && shares >= leaves);
}


/* The first pass's verdicts on every block (in the first window) and on the window's frames. */
static void judge_window(struct audit *a)
{
	if (a->count_leaves)            /* first: a wrong block makes its 512 frames wrong too */
		for (pfn_t blk = 0; blk < (pmm_max_pfn >> HUGE_ORDER); blk++)
			judge(a, AUDIT_BLOCK, blk << HUGE_ORDER, block_wrong(a, blk));
	for (pfn_t i = 0; i < a->n && a->base + i < pmm_max_pfn; i++)
		judge(a, AUDIT_FRAME, a->base + i, frame_wrong(a, a->base + i));
}

/* A later pass: which of the followed frames and blocks are still wrong. */
static void rejudge_window(struct audit *a)
{
	for (unsigned i = 0; i < a->items; i++) {
		struct audit_item *it = &a->item[i];

		if (it->kind == AUDIT_BLOCK && a->count_leaves)
			judge(a, AUDIT_BLOCK, it->id, block_wrong(a, it->id >> HUGE_ORDER));
		else if (it->kind == AUDIT_FRAME && in_window(a, it->id))
			judge(a, AUDIT_FRAME, it->id, frame_wrong(a, it->id));
	}
}

/* One whole pass: every window counted and judged (the first), or the followed ones looked at again. */
static void audit_pass(struct audit *a, bool first)
{
	a->first_pass = first;
	for (unsigned i = 0; i < a->items; i++)
		a->item[i].again = false;
	for (a->base = 0; a->base < pmm_max_pfn; a->base += a->n) {
		a->count_leaves = a->base == 0;
		count_window(a);
		if (first)
			judge_window(a);
		else
			rejudge_window(a);
	}
	if (!first)
		for (unsigned i = 0; i < a->items; i++)
			a->item[i].wrong &= a->item[i].again;
}

struct where_ctx {
	struct mm *mm;
	pfn_t pfn;
	unsigned shown;
};

static void where_line(struct where_ctx *w, uintptr_t va, unsigned state)
{
	if (w->shown++ < AUDIT_WHERE)
		printk("mm_audit:   mapped at 0x%lx (state 0x%x) in address space %llu\n", (unsigned long)va,
		       state, (unsigned long long)w->mm->list_id);
}

static enum mmu_action where_pte(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct where_ctx *w = arg;

	if (pa >> PAGE_SHIFT == w->pfn)
		where_line(w, va, *state);
	return MMU_KEEP;
}

static enum mmu_action where_leaf(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct where_ctx *w = arg;

	if ((pa >> PAGE_SHIFT) >> HUGE_ORDER == w->pfn >> HUGE_ORDER)
		where_line(w, va + ((w->pfn << PAGE_SHIFT) & (HUGE_SIZE - 1)), *state);
	return MMU_KEEP;
}

/* Print a wrong block: its leaves as the arch layer counts them, its shares. */
static void show_block(pfn_t pfn)
{
	phys_addr_t pa = (phys_addr_t)pfn << PAGE_SHIFT;

	printk("mm_audit: block at pfn 0x%llx: %d leaves counted by the arch layer, %d deferred shares\n",
	       (unsigned long long)pfn, READ_ONCE(*pmm_huge_maps(pa)), READ_ONCE(*pmm_huge_shares(pa)));
}

/* Print a wrong frame: its counts, and the entries that map it. */
static void show_frame(pfn_t pfn)
{
	const struct page *p = &pmm_mem_map[pfn];
	struct where_ctx w = { NULL, pfn, 0 };

	printk("mm_audit: pfn 0x%llx: flags 0x%x refcount %d mapcount %d; its block: %d deferred shares\n",
	       (unsigned long long)pfn, p->flags, p->refcount, p->mapcount,
	       READ_ONCE(*pmm_huge_shares((phys_addr_t)pfn << PAGE_SHIFT)));
	while ((w.mm = mm_list_next(w.mm))) {
		mm_pt_lock(w.mm);
		if (w.mm->mmu)
			arch_mmu_walk_huge(w.mm->mmu, 0, TASK_SIZE, where_leaf, where_pte, &w, NULL);
		mm_pt_unlock(w.mm);
	}
	printk("mm_audit:   %u entries map it\n", w.shown);
}

/* Print a wrong address space: its rss counters and what its entries map. */
static void show_rss(struct audit *a, uint64_t list_id)
{
	struct mm *mm = NULL;

	while ((mm = mm_list_next(mm))) {
		if (mm->list_id != list_id)
			continue;
		a->base = a->n = 0;     /* count nothing per frame: the rss only */
		a->count_leaves = true;
		a->rss = a->rss_file = 0;
		mm_pt_lock(mm);
		arch_mmu_walk_huge(mm->mmu, 0, TASK_SIZE, count_leaf, count_pte, a, NULL);
		printk("mm_audit: address space %llu: rss %lu, rss_file %lu; its entries map %lu, %lu not anonymous\n",
		       (unsigned long long)list_id, READ_ONCE(mm->rss), READ_ONCE(mm->rss_file), a->rss, a->rss_file);
		mm_pt_unlock(mm);
	}
}

static void show(struct audit *a, const struct audit_item *it)
{
	if (it->kind == AUDIT_BLOCK)
		show_block(it->id);
	else if (it->kind == AUDIT_FRAME)
		show_frame(it->id);
	else
		show_rss(a, it->id);
}

/* A buffer for the counts: the whole of memory's if it can be had, else a smaller window. */
static struct page *count_buffer(struct audit *a, unsigned *order)
{
	unsigned o = 0;

	while (o < PMM_MAX_ORDER && ((size_t)PAGE_SIZE << o) / sizeof(int32_t) < pmm_max_pfn)
		o++;
	for (;; o--) {
		struct page *p = pmm_alloc(o, 0);

		if (p) {
			*order = o;
			a->count = page_address(p);
			a->n = ((size_t)PAGE_SIZE << o) / sizeof(int32_t);
			return p;
		}
		if (!o)
			return NULL;
	}
}

long mm_audit_maps(void)
{
	size_t leaf_bytes = ((pmm_max_pfn >> HUGE_ORDER) + 1) * sizeof(int32_t);
	unsigned corder, lorder = 0;
	struct audit *a = kmalloc(sizeof(*a));
	struct page *cbuf = NULL, *lbuf = NULL;
	long wrong = 0;

	if (!a)
		return -ENOMEM;
	memset(a, 0, sizeof(*a));
	while (((size_t)PAGE_SIZE << lorder) < leaf_bytes)
		lorder++;
	lbuf = lorder <= PMM_MAX_ORDER ? pmm_alloc(lorder, 0) : NULL;
	cbuf = lbuf ? count_buffer(a, &corder) : NULL;
	if (!cbuf) {
		if (lbuf)
			pmm_free(lbuf, lorder);
		kfree(a);
		return -ENOMEM;
	}
	a->leaves = page_address(lbuf);
	mm_put_deferred_flush();        /* a dead address space's entries are gone with it */
	audit_pass(a, true);
	for (unsigned pass = 1; pass < AUDIT_PASSES && a->items; pass++)
		audit_pass(a, false);
	for (unsigned i = 0; i < a->items; i++)
		if (a->item[i].wrong) {
			show(a, &a->item[i]);
			wrong++;
		}
	if (wrong && a->found > a->items)
		printk("mm_audit: %lu wrong in the first pass; the first %u followed\n", a->found, a->items);
	if (wrong)
		mm_list_report();       /* a frame no entry maps: whose address space went where? */
	pmm_free(cbuf, corder);
	pmm_free(lbuf, lorder);
	kfree(a);
	return wrong;
}
