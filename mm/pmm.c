/*
 * Buddy allocator over the frames described by struct page.
 *
 * A free block of 2^k frames is naturally aligned (its first pfn is a
 * multiple of 2^k); its head page carries PG_buddy and order k and sits on
 * free_area[k]. Freeing a block merges it with its buddy (pfn ^ 2^k) for as
 * long as the buddy is a free block of the same order.
 *
 * Locking: pmm_lock protects free_area[], the counters and the PG_buddy and
 * order fields of free blocks. Allocated pages belong to their owner.
 */
#include "pmm.h"
#include "arch.h"
#include "kerrno.h"
#include "kstring.h"
#include "printk.h"
#include "spinlock.h"
#include "kasan.h"
#include "lockless.h"
#include "arch_mmu.h"
#include "uapi/vmk.h"

struct free_area {
	struct list_head blocks;     /* head pages of free blocks of this order */
	size_t count;
};

struct page *pmm_mem_map;            /* include/pmm.h */
pfn_t pmm_max_pfn;
static struct free_area free_area[PMM_MAX_ORDER + 1];
static int32_t *huge_maps;           /* per 2 MiB block of [0, pmm_max_pfn): pmm_huge_maps */
static int32_t *huge_shares;         /* per 2 MiB block of [0, pmm_max_pfn): pmm_huge_shares */
size_t pmm_nr_free;                  /* free frames in the buddy lists (include/pmm.h) */
size_t pmm_pcp_frames;               /* [atomic] free frames on the per-CPU lists (pcp_alloc) */
static size_t nr_total;              /* frames released to the allocator at init */
size_t pmm_wmarks[NR_WMARK];         /* [atomic] include/pmm.h: from nr_total (set_watermarks) */
static struct spinlock pmm_lock = SPINLOCK_INIT_CLASS("pmm", LOCK_CLASS_PMM);

/* Junk written over freed frames in debug builds, so stale users see garbage. */
#define FREE_JUNK 0x6b

static inline pfn_t page_pfn(const struct page *p) { return (pfn_t)(p - pmm_mem_map); }

int32_t *pmm_huge_maps(phys_addr_t pa)
{
	pfn_t pfn = pa >> PAGE_SHIFT;

	return pfn < pmm_max_pfn ? &huge_maps[pfn >> HUGE_ORDER] : NULL;
}

int32_t *pmm_huge_shares(phys_addr_t pa)
{
	pfn_t pfn = pa >> PAGE_SHIFT;

	return pfn < pmm_max_pfn ? &huge_shares[pfn >> HUGE_ORDER] : NULL;
}

int32_t pmm_page_huge_shares(const struct page *p)
{
	return READ_ONCE(huge_shares[page_pfn(p) >> HUGE_ORDER]);
}

void *page_address(const struct page *page) { return phys_to_virt(page_to_phys(page)); }
struct page *virt_to_page(const void *va) { return phys_to_page(virt_to_phys(va)); }

/* Snapshots without pmm_lock: they race with allocations and frees on other CPUs. */
size_t pmm_total_frames(void) { return nr_total; }
size_t pmm_free_blocks(unsigned order) { return order <= PMM_MAX_ORDER ? READ_ONCE(free_area[order].count) : 0; }

static unsigned long isqrt(unsigned long x)
{
	unsigned long r = 0;

	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/* Linux's init_per_zone_wmark_min: sqrt(16 x KiB of RAM), clamped to [128 KiB, 256 MiB]. */
static unsigned long default_min_kib(void)
{
	unsigned long kib = nr_total * (PAGE_SIZE >> 10);

	return MIN(MAX(isqrt(kib * 16), 128UL), 262144UL);
}

/* min_free_kbytes: as written to /proc/sys/vm once user_min_set, else Linux's default from RAM. */
static unsigned long min_free_kib;      /* [pmm_lock, atomic] */
static bool user_min_set;               /* [pmm_lock] */

/* Linux's __setup_per_zone_wmarks for one zone of nr_total frames; call with pmm_lock held. */
static void set_watermarks(void)
{
	size_t min, step;

	if (!user_min_set)
		WRITE_ONCE(min_free_kib, default_min_kib());
	min = min_free_kib / (PAGE_SIZE >> 10);
	step = MAX(min / 4, nr_total * 10 / 10000);
	WRITE_ONCE(pmm_wmarks[WMARK_MIN], min);
	WRITE_ONCE(pmm_wmarks[WMARK_LOW], min + step);
	WRITE_ONCE(pmm_wmarks[WMARK_HIGH], min + 2 * step);
}

unsigned long pmm_min_free_kbytes(void)
{
	return READ_ONCE(min_free_kib);
}

long pmm_set_min_free_kbytes(long kib)
{
	unsigned long flags;

	if (kib < 0 || kib > 0x7fffffffL)     /* an int, as Linux's sysctl */
		return -EINVAL;
	flags = spin_lock_irqsave(&pmm_lock);
	WRITE_ONCE(min_free_kib, (unsigned long)kib);
	user_min_set = true;
	set_watermarks();
	spin_unlock_irqrestore(&pmm_lock, flags);
	return 0;
}

static void add_block_locked(struct page *head, unsigned order)
{
	head->flags |= PG_buddy;
	head->order = (uint8_t)order;
	list_add(&head->lru, &free_area[order].blocks);
	free_area[order].count++;
}

static void del_block_locked(struct page *head, unsigned order)
{
	list_del(&head->lru);
	head->flags &= ~PG_buddy;
	free_area[order].count--;
}

/* Put a block back, merging with free buddies. pmm_lock held. */
static void free_block_locked(pfn_t pfn, unsigned order)
{
	assert_spin_held(&pmm_lock);
#ifdef KASAN
	kasan_poison(phys_to_virt((phys_addr_t)pfn << PAGE_SHIFT), PAGE_SIZE << order, KASAN_PAGE_FREE);
#endif
	while (order < PMM_MAX_ORDER) {
		pfn_t buddy = pfn ^ (1UL << order);
		if (buddy + (1UL << order) > pmm_max_pfn)
			break;
		struct page *b = &pmm_mem_map[buddy];
		if (!(b->flags & PG_buddy) || b->order != order)
			break;
		del_block_locked(b, order);
		pfn &= ~(1UL << order);
		order++;
	}
	add_block_locked(&pmm_mem_map[pfn], order);
}

/* Take a block of exactly order off the free lists, splitting a larger one (NULL: none). pmm_lock held. */
static struct page *take_block_locked(unsigned order)
{
	unsigned o = order;
	struct page *head;

	while (o <= PMM_MAX_ORDER && free_area[o].count == 0)
		o++;
	if (o > PMM_MAX_ORDER)
		return NULL;
	head = list_first_entry(&free_area[o].blocks, struct page, lru);
	del_block_locked(head, o);
	/* Split: the upper half of each level goes back on the list below. */
	while (o > order) {
		o--;
		add_block_locked(head + (1UL << o), o);
	}
	pmm_nr_free -= 1UL << order;
	return head;
}

/* The buddy lists' half of pmm_alloc: NULL when no block of order is free. */
static struct page *buddy_alloc(unsigned order)
{
	unsigned long flags = spin_lock_irqsave(&pmm_lock);
	struct page *head = take_block_locked(order);

	spin_unlock_irqrestore(&pmm_lock, flags);
	return head;
}

/* pmm_free's checks of a block about to be freed (panics on a bad one) and the reset of its head. */
static void free_prepare(struct page *page, unsigned order)
{
	pfn_t pfn = page_pfn(page);

	if (pfn >= pmm_max_pfn || order > PMM_MAX_ORDER || (pfn & ((1UL << order) - 1)))
		panic("pmm_free: bad block pfn 0x%llx order %u", (unsigned long long)pfn, order);
	if (page->flags & (PG_reserved | PG_buddy | PG_pcp))
		panic("pmm_free: pfn 0x%llx is %s", (unsigned long long)pfn,
		      page->flags & PG_reserved ? "reserved" : "already free (double free)");
	if (page->lru_state)            /* a freed frame must have left its LRU list (lru_del) */
		panic("pmm_free: pfn 0x%llx is still on an LRU list", (unsigned long long)pfn);
#ifdef KDEBUG
	memset(page_address(page), FREE_JUNK, PAGE_SIZE << order);
#endif
	page->flags = 0;
	page->refcount = 0;
	page->mapcount = 0;
	page->private = NULL;
}

/*
 * Per-CPU lists of free frames (Linux's per-cpu pagesets, order 0 only):
 * a user page comes from this CPU's list, refilled from the buddy lists
 * PCP_BATCH frames at a time under one pmm_lock hold (one order-5 block
 * when there is one); a freed user page goes back to it
 * (pmm_free_user), and past PCP_HIGH frames the oldest PCP_BATCH go back
 * to the buddy lists. The frames on the lists count as free
 * (pmm_free_frames) but are in no free block, so an allocation the buddy
 * lists cannot serve drains every list first (pmm_drain_pcp). Each list
 * has its own lock (class PCP, taken before pmm_lock, interrupts off):
 * its CPU takes it uncontended, a drain from another CPU takes it too.
 */
#define PCP_BATCH 32
#define PCP_HIGH (4 * PCP_BATCH)

struct pcp_list {
	struct spinlock lock;
	unsigned count;
	struct list_head frames;              /* [lock] PG_pcp frames, linked through lru: oldest at the tail */
} __attribute__((aligned(64)));

static struct pcp_list pcp[NR_CPUS];

static void pcp_init(void)
{
	for (unsigned c = 0; c < NR_CPUS; c++) {
		spin_init_class(&pcp[c].lock, "pcp", LOCK_CLASS_PCP);
		pcp[c].count = 0;
		list_init(&pcp[c].frames);
	}
}

/* Put the n frames from first on l (they were free in the buddy lists or just freed). l's lock held. */
static void pcp_add_locked(struct pcp_list *l, struct page *first, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		first[i].flags = PG_pcp;
		list_add(&first[i].lru, &l->frames);
	}
	l->count += n;
	__atomic_add_fetch(&pmm_pcp_frames, n, __ATOMIC_RELAXED);
}

/* Move PCP_BATCH frames (an order-5 block if there is one) from the buddy lists to l. l's lock held. */
static void pcp_refill_locked(struct pcp_list *l)
{
	unsigned order = __builtin_ctz(PCP_BATCH);
	unsigned long flags = spin_lock_irqsave(&pmm_lock);
	struct page *b = take_block_locked(order);

	if (b) {
		b->flags &= ~PG_buddy;
		pcp_add_locked(l, b, PCP_BATCH);
	}
	while (!b && l->count < PCP_BATCH && (b = take_block_locked(0)) != NULL) {
		pcp_add_locked(l, b, 1);
		b = NULL;
	}
	spin_unlock_irqrestore(&pmm_lock, flags);
}

/* Return the n oldest frames of l to the buddy lists. l's lock held. */
static void pcp_drain_locked(struct pcp_list *l, unsigned n)
{
	unsigned long flags = spin_lock_irqsave(&pmm_lock);

	for (unsigned i = 0; i < n && l->count; i++) {
		struct page *p = list_entry(l->frames.prev, struct page, lru);

		list_del(&p->lru);
		p->flags = 0;
		l->count--;
		free_block_locked(page_pfn(p), 0);
		pmm_nr_free++;
		__atomic_sub_fetch(&pmm_pcp_frames, 1, __ATOMIC_RELAXED);
	}
	spin_unlock_irqrestore(&pmm_lock, flags);
}

/* Take the newest frame of l, which has one; *zeroed: it was zeroed ahead. l's lock held. */
static inline struct page *pcp_pop_locked(struct pcp_list *l, bool *zeroed)
{
	struct page *p = list_first_entry(&l->frames, struct page, lru);

	list_del(&p->lru);
	*zeroed = p->flags & PG_zeroed;
	p->flags = 0;
	l->count--;
	__atomic_sub_fetch(&pmm_pcp_frames, 1, __ATOMIC_RELAXED);
	return p;
}

/*
 * pcp_alloc when l's lock was busy (locked false: take it, waiting) or l
 * is empty (refill it). Interrupts off (flags: as they were before).
 */
static __noinline struct page *pcp_alloc_slow(struct pcp_list *l, unsigned long flags, bool locked,
					       bool *zeroed)
{
	struct page *p = NULL;

	if (!locked)
		spin_lock(&l->lock);
	if (!l->count)
		pcp_refill_locked(l);
	if (l->count)
		p = pcp_pop_locked(l, zeroed);
	spin_unlock_irqrestore(&l->lock, flags);
	return p;
}

/*
 * A frame from this CPU's list (refilled when empty), or NULL: none left
 * in the buddy lists to refill it with. *zeroed: it was zeroed ahead.
 * The common case (the lock free, a frame there) makes no call.
 */
static inline struct page *pcp_alloc(bool *zeroed)
{
	struct pcp_list *l = &pcp[arch_cpu_id()];
	unsigned long flags = arch_irq_save();
	struct page *p;

	if (unlikely(!spin_trylock(&l->lock)))
		return pcp_alloc_slow(l, flags, false, zeroed);
	if (unlikely(!l->count))
		return pcp_alloc_slow(l, flags, true, zeroed);
	p = pcp_pop_locked(l, zeroed);
	spin_unlock_irqrestore(&l->lock, flags);
	return p;
}

void pmm_zero_ahead(void)
{
	struct pcp_list *l = &pcp[arch_cpu_id()];
	unsigned long flags = spin_lock_irqsave(&l->lock);

	if (!l->count)
		pcp_refill_locked(l);
	if (l->count) {
		struct page *p = list_first_entry(&l->frames, struct page, lru);

		/* (interrupts stay off while it is cleared: the list is this CPU's, a remote drain waits) */
		if (!(p->flags & PG_zeroed)) {
			arch_clear_page(page_address(p));
			p->flags |= PG_zeroed;
		}
	}
	spin_unlock_irqrestore(&l->lock, flags);
}

void pmm_free_user(struct page *page)
{
	struct pcp_list *l;
	unsigned long flags;

	free_prepare(page, 0);
#ifdef KASAN
	kasan_poison(page_address(page), PAGE_SIZE, KASAN_PAGE_FREE);
#endif
	l = &pcp[arch_cpu_id()];
	flags = spin_lock_irqsave(&l->lock);
	pcp_add_locked(l, page, 1);
	if (l->count > PCP_HIGH)
		pcp_drain_locked(l, PCP_BATCH);
	spin_unlock_irqrestore(&l->lock, flags);
}

void pmm_drain_pcp(void)
{
	unsigned cpu;

	for_each_cpu(cpu, arch_cpu_online_mask()) {
		unsigned long flags = spin_lock_irqsave(&pcp[cpu].lock);

		pcp_drain_locked(&pcp[cpu], pcp[cpu].count);
		spin_unlock_irqrestore(&pcp[cpu].lock, flags);
	}
}

static void release_range(phys_addr_t start, phys_addr_t end, bool rest);

/* One int32_t per 2 MiB of [0, pmm_max_pfn), zeroed, in the smallest block that holds them. */
static int32_t *huge_counters_alloc(const char *what)
{
	size_t bytes = ((pmm_max_pfn >> HUGE_ORDER) + 1) * sizeof(int32_t);
	unsigned order = 0;
	struct page *p;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	p = pmm_alloc(order, GFP_ZERO);
	if (!p)
		panic("pmm: no %zu bytes for the %s", bytes, what);
	return page_address(p);
}

void pmm_init(struct page *pages, pfn_t npfn, const struct mem_range *free, size_t nfree)
{
	pmm_mem_map = pages;
	pmm_max_pfn = npfn;
	pmm_nr_free = nr_total = pmm_pcp_frames = 0;
	pcp_init();
	for (unsigned o = 0; o <= PMM_MAX_ORDER; o++) {
		list_init(&free_area[o].blocks);
		free_area[o].count = 0;
	}
	for (pfn_t i = 0; i < npfn; i++) {
		pages[i] = (struct page){ .flags = PG_reserved, .refcount = 1 };
		list_init(&pages[i].lru);
	}

	for (size_t r = 0; r < nfree; r++)
		release_range(free[r].start, free[r].end, false);
	huge_maps = huge_counters_alloc("2 MiB leaf counters");
	huge_shares = huge_counters_alloc("2 MiB blocks' deferred shares");
}

/* The largest order of a naturally aligned block that starts at pfn and ends at or below end. */
static unsigned largest_block(pfn_t pfn, pfn_t end)
{
	unsigned order = 0;

	while (order < PMM_MAX_ORDER && !(pfn & ((2UL << order) - 1)) && pfn + (2UL << order) <= end)
		order++;
	return order;
}

/* Put the frames [pfn, end) back in the largest aligned blocks they hold (each merged with its buddies). pmm_lock held. */
static void free_run_locked(pfn_t pfn, pfn_t end)
{
	while (pfn < end) {
		unsigned order = largest_block(pfn, end);

		free_block_locked(pfn, order);
		pfn += 1UL << order;
	}
}

/* Release the reserved frames [pfn, end) to the allocator. pmm_lock held. */
static void release_locked(pfn_t pfn, pfn_t end)
{
	for (pfn_t i = pfn; i < end; i++) {
		if (!(pmm_mem_map[i].flags & PG_reserved))
			panic("pmm: frame 0x%llx released twice (or in use)", (unsigned long long)i);
		pmm_mem_map[i].flags = 0;
		pmm_mem_map[i].refcount = 0;
	}
	free_run_locked(pfn, end);
	pmm_nr_free += end - pfn;
	nr_total += end - pfn;
}

/* The frames of [start, end): all of them (each must be reserved), or when rest only those still reserved. */
static void release_range(phys_addr_t start, phys_addr_t end, bool rest)
{
	pfn_t pfn = ALIGN_UP(start, PAGE_SIZE) >> PAGE_SHIFT, last = end >> PAGE_SHIFT;
	unsigned long flags;

	if (last > pmm_max_pfn)
		last = pmm_max_pfn;
	flags = spin_lock_irqsave(&pmm_lock);
	while (pfn < last) {
		pfn_t run = pfn;

		while (run < last && (!rest || (pmm_mem_map[run].flags & PG_reserved)))
			run++;
		release_locked(pfn, run);
		pfn = run + 1;          /* past the claimed frame that ended the run */
	}
	set_watermarks();
	spin_unlock_irqrestore(&pmm_lock, flags);
}

struct page *pmm_claim_reserved(phys_addr_t pa)
{
	struct page *p = phys_to_page(pa);
	unsigned long flags;

	if (!p || (pa & (PAGE_SIZE - 1)))
		return NULL;
	flags = spin_lock_irqsave(&pmm_lock);
	if (!(p->flags & PG_reserved)) {
		spin_unlock_irqrestore(&pmm_lock, flags);
		return NULL;
	}
	*p = (struct page){ .refcount = 1 };
	list_init(&p->lru);
	nr_total++;                     /* the watermarks follow at pmm_release_reserved_rest */
	spin_unlock_irqrestore(&pmm_lock, flags);
#ifdef KASAN
	kasan_unpoison(page_address(p), PAGE_SIZE);
#endif
	return p;
}

void pmm_release_reserved_rest(phys_addr_t start, phys_addr_t end)
{
	release_range(start, end, true);
}

/*
 * pmm_alloc's cases other than a frame from this CPU's list, each a call
 * of its own (so pmm_alloc's common case saves few registers): a block
 * from the buddy lists, after draining the CPUs' lists if they may hold
 * the frames to make it; and the zeroing of a block.
 */
static __noinline struct page *buddy_alloc_drained(unsigned order)
{
	struct page *head = buddy_alloc(order);

	if (!head && READ_ONCE(pmm_pcp_frames)) {
		pmm_drain_pcp();        /* frames held in the CPUs' lists may make the block */
		head = buddy_alloc(order);
	}
	return head;
}

static __noinline void clear_block(struct page *head, unsigned order)
{
	for (size_t i = 0; i < (1UL << order); i++)
		arch_clear_page((char *)page_address(head) + i * PAGE_SIZE);
}

struct page *pmm_alloc(unsigned order, unsigned gfp)
{
	struct page *head = NULL;
	bool zeroed = false;

	if (order > PMM_MAX_ORDER)
		return NULL;
	/* GFP_USER leaves the min watermark's frames to the kernel (a snapshot: racing CPUs may cross it by a few). */
	if ((gfp & GFP_USER) && pmm_free_frames() < (1UL << order) + READ_ONCE(pmm_wmarks[WMARK_MIN]))
		return NULL;
	if (order == 0 && (gfp & GFP_USER))
		head = pcp_alloc(&zeroed);
	if (!head)
		head = buddy_alloc_drained(order);
	if (!head)
		return NULL;
	head->order = (uint8_t)order;
	head->refcount = 1;
	head->mapcount = 0;
	head->private = NULL;
#ifdef KASAN
	kasan_unpoison(page_address(head), PAGE_SIZE << order);
#endif

	if ((gfp & GFP_ZERO) && !zeroed) {
		if (order)
			clear_block(head, order);
		else
			arch_clear_page(page_address(head));
	}
	return head;
}

void pmm_free(struct page *page, unsigned order)
{
	unsigned long flags;

	free_prepare(page, order);
	flags = spin_lock_irqsave(&pmm_lock);
	free_block_locked(page_pfn(page), order);
	pmm_nr_free += 1UL << order;
	spin_unlock_irqrestore(&pmm_lock, flags);
}

/*
 * pmm_free_list's batch: at most FREE_RUNS runs of consecutive frames and
 * FREE_FRAMES frames in all per pmm_lock hold (interrupts are off while
 * it is held). A huge page's 512 frames, zapped in address order, are one
 * run: one order-9 block instead of 512 frees and 511 merges.
 */
#define FREE_RUNS 16
#define FREE_FRAMES 512

void pmm_free_list(struct list_head *frames)
{
	struct { pfn_t lo, hi; } run[FREE_RUNS];

	if (list_is_singular(frames)) {
		struct page *p = list_first_entry(frames, struct page, lru);

		list_del(&p->lru);
		pmm_free_user(p);       /* a lone frame: this CPU's list */
		return;
	}
	while (!list_empty(frames)) {
		unsigned nr = 0, n = 0;
		unsigned long flags;

		while (n < FREE_FRAMES && !list_empty(frames)) {
			struct page *p = list_first_entry(frames, struct page, lru);
			pfn_t pfn = page_pfn(p);

			if (nr && pfn == run[nr - 1].hi)
				run[nr - 1].hi++;
			else if (nr && pfn + 1 == run[nr - 1].lo)
				run[nr - 1].lo--;
			else if (nr == FREE_RUNS)
				break;
			else
				run[nr].lo = pfn, run[nr].hi = pfn + 1, nr++;
			free_prepare(p, 0);
			list_del(&p->lru);
			n++;
		}
		flags = spin_lock_irqsave(&pmm_lock);
		for (unsigned i = 0; i < nr; i++)
			free_run_locked(run[i].lo, run[i].hi);
		pmm_nr_free += n;
		spin_unlock_irqrestore(&pmm_lock, flags);
	}
}

void *pmm_alloc_frame(unsigned gfp)
{
	struct page *p = pmm_alloc(0, gfp);
	return p ? page_address(p) : NULL;
}

void pmm_free_frame(void *va)
{
	pmm_free(virt_to_page(va), 0);
}

/* One block p on the order-o free list: inside memory, aligned, marked free, no free buddy. pmm_lock held. */
static int check_free_block(struct page *p, unsigned o)
{
	pfn_t pfn = page_pfn(p);

	if (pfn >= pmm_max_pfn || pfn + (1UL << o) > pmm_max_pfn) {
		printk("pmm_check: block 0x%llx order %u outside memory\n", (unsigned long long)pfn, o);
		return -EINVAL;
	}
	if (pfn & ((1UL << o) - 1)) {
		printk("pmm_check: block 0x%llx order %u misaligned\n", (unsigned long long)pfn, o);
		return -EINVAL;
	}
	if (!(p->flags & PG_buddy) || p->order != o || (p->flags & PG_reserved)) {
		printk("pmm_check: block 0x%llx on order %u list has flags 0x%x order %u\n",
		       (unsigned long long)pfn, o, p->flags, p->order);
		return -EINVAL;
	}
	if (p->refcount != 0) {
		printk("pmm_check: free block 0x%llx has refcount %d\n", (unsigned long long)pfn, p->refcount);
		return -EINVAL;
	}
	if (o < PMM_MAX_ORDER) {
		pfn_t buddy = pfn ^ (1UL << o);

		if (buddy + (1UL << o) <= pmm_max_pfn && (pmm_mem_map[buddy].flags & PG_buddy) &&
		    pmm_mem_map[buddy].order == o) {
			printk("pmm_check: buddies 0x%llx and 0x%llx both free at order %u\n",
			       (unsigned long long)pfn, (unsigned long long)buddy, o);
			return -EINVAL;
		}
	}
	return 0;
}

/* Every free list: its blocks (check_free_block) and its counter; *frames += the frames they hold. */
static int check_free_lists(size_t *frames)
{
	for (unsigned o = 0; o <= PMM_MAX_ORDER; o++) {
		size_t n = 0;
		struct list_head *pos;

		list_for_each(pos, &free_area[o].blocks) {
			int err = check_free_block(list_entry(pos, struct page, lru), o);

			if (err)
				return err;
			n++;
			*frames += 1UL << o;
		}
		if (n != free_area[o].count) {
			printk("pmm_check: order %u list has %zu blocks, counter says %zu\n", o, n, free_area[o].count);
			return -EINVAL;
		}
	}
	return 0;
}

/* No free block may start inside another free block (or a reserved frame lie inside one). */
static int check_no_overlap(void)
{
	for (pfn_t pfn = 0; pfn < pmm_max_pfn;) {
		struct page *p = &pmm_mem_map[pfn];

		if (!(p->flags & PG_buddy)) {
			pfn++;
			continue;
		}
		for (pfn_t i = pfn + 1; i < pfn + (1UL << p->order); i++) {
			if (pmm_mem_map[i].flags & (PG_buddy | PG_reserved)) {
				printk("pmm_check: frame 0x%llx inside free block 0x%llx order %u has flags 0x%x\n",
				       (unsigned long long)i, (unsigned long long)pfn, p->order, pmm_mem_map[i].flags);
				return -EINVAL;
			}
		}
		pfn += 1UL << p->order;
	}
	return 0;
}

/* A frame of 4 KiB zeroes (a frame marked PG_zeroed: nothing wrote to it since, free as it is). */
static bool frame_is_zero(const struct page *p)
{
	const uint64_t *w = page_address(p);

	for (size_t i = 0; i < PAGE_SIZE / sizeof(*w); i++)
		if (w[i])
			return false;
	return true;
}

/*
 * Every CPU's list of free frames: its count, its frames marked PG_pcp
 * and nothing else but PG_zeroed (then all zero), at most PCP_HIGH.
 */
static int check_pcp_lists(void)
{
	unsigned cpu;

	for_each_cpu(cpu, arch_cpu_online_mask()) {
		struct pcp_list *l = &pcp[cpu];
		unsigned long flags = spin_lock_irqsave(&l->lock);
		struct list_head *pos;
		unsigned n = 0;
		int err = 0;

		list_for_each(pos, &l->frames) {
			struct page *p = list_entry(pos, struct page, lru);

			if ((p->flags & ~PG_zeroed) != PG_pcp || page_pfn(p) >= pmm_max_pfn ||
			    ((p->flags & PG_zeroed) && !frame_is_zero(p)))
				err = -EINVAL;
			n++;
		}
		if (n != l->count || n > PCP_HIGH)
			err = -EINVAL;
		spin_unlock_irqrestore(&l->lock, flags);
		if (err) {
			printk("pmm_check: CPU %u's free-frame list (%u frames, counter %u) is bad\n", cpu, n, l->count);
			return err;
		}
	}
	return 0;
}

int pmm_check(void)
{
	size_t frames = 0;
	int err = check_pcp_lists();
	unsigned long flags;

	if (err)
		return err;
	flags = spin_lock_irqsave(&pmm_lock);
	err = check_free_lists(&frames);

	if (!err)
		err = check_no_overlap();
	if (!err && frames != pmm_nr_free) {
		printk("pmm_check: free lists hold %zu frames, counter says %zu\n", frames, pmm_nr_free);
		err = -EINVAL;
	}
	spin_unlock_irqrestore(&pmm_lock, flags);
	return err;
}

/* pmm_census's kinds of frame, by the first flag that names one, in this order (vmk.h's kinds after FREE). */
static const struct { uint32_t flag; const char *name; } census_kinds[] = {
	{ PG_reserved, "reserved" }, { PG_pcp, "per-CPU free" }, { PG_slab, "slab" },
	{ PG_pgtable, "page table" }, { PG_anon, "anonymous" }, { PG_cache, "page cache" },
};
#define CENSUS_OTHER ARRAY_SIZE(census_kinds)  /* allocated with no kind: kernel stacks, buffers, huge tails */
#define CENSUS_EXAMPLES 8

/*
 * Count every frame by kind: count[0] the free blocks' frames, count[1 +
 * k] those of census_kinds[k], count[1 + CENSUS_OTHER] the rest; the first
 * n frames of the rest that are referenced go to example. Returns how many.
 */
static unsigned census_scan(uint64_t *count, pfn_t *example, unsigned n)
{
	unsigned held = 0;
	unsigned long flags = spin_lock_irqsave(&pmm_lock);

	for (pfn_t pfn = 0; pfn < pmm_max_pfn; pfn++) {
		struct page *p = &pmm_mem_map[pfn];
		unsigned k = 0;

		if (p->flags & PG_buddy) {
			count[0] += 1UL << p->order;
			pfn += (1UL << p->order) - 1;
			continue;
		}
		while (k < CENSUS_OTHER && !(p->flags & census_kinds[k].flag))
			k++;
		count[1 + k]++;
		if (k == CENSUS_OTHER && p->refcount > 0 && held < n)
			example[held++] = pfn;
	}
	spin_unlock_irqrestore(&pmm_lock, flags);
	return held;
}

_Static_assert(VMK_CENSUS_KINDS == CENSUS_OTHER + 2, "vmk.h's census kinds: free, census_kinds, other");

void pmm_census_count(uint64_t *count)
{
	memset(count, 0, VMK_CENSUS_KINDS * sizeof(*count));
	census_scan(count, NULL, 0);
}

size_t pmm_frames_with(uint32_t flag)
{
	size_t n = 0;
	unsigned long flags = spin_lock_irqsave(&pmm_lock);

	for (pfn_t pfn = 0; pfn < pmm_max_pfn; pfn++) {
		const struct page *p = &pmm_mem_map[pfn];

		if (p->flags & PG_buddy)
			pfn += (1UL << p->order) - 1;
		else if (p->flags & flag)
			n++;
	}
	spin_unlock_irqrestore(&pmm_lock, flags);
	return n;
}

void pmm_census(void)
{
	uint64_t count[CENSUS_OTHER + 2] = { 0 };
	pfn_t example[CENSUS_EXAMPLES];
	unsigned held = census_scan(count, example, CENSUS_EXAMPLES);

	printk("pmm_census: %llu frames in free blocks", (unsigned long long)count[0]);
	for (unsigned k = 0; k < CENSUS_OTHER; k++)
		printk(", %llu %s", (unsigned long long)count[1 + k], census_kinds[k].name);
	printk(", %llu other\n", (unsigned long long)count[1 + CENSUS_OTHER]);
	for (unsigned i = 0; i < held; i++) {
		struct page *p = &pmm_mem_map[example[i]];

		printk("pmm_census: other pfn 0x%llx: flags 0x%x refcount %d mapcount %d order %u lru %u private %p\n",
		       (unsigned long long)example[i], p->flags, p->refcount, p->mapcount, p->order, p->lru_state,
		       p->private);
	}
}
