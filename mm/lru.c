/*
 * The LRU lists and their per-CPU insertion batches (include/lru.h).
 *
 * A page's lru_state: 0 on no list; STATE_QUEUED | l while batch
 * lru_cpu holds it in slot lru_slot, bound for list l; STATE_ON + l while
 * on list l; STATE_ISOLATED | l while reclaim holds it off list l (still
 * counted in l's gauge: Linux counts it as isolated instead). A batch is drained (its pages linked at their lists' heads,
 * the young end; reclaim takes from the tail) when it fills and by
 * lru_drain_all. A queued page freed meanwhile leaves a hole (NULL) in
 * its slot, which the drain skips.
 */
#include "internal.h"
#include "lru.h"
#include "spinlock.h"
#include "lockless.h"

#define LRU_BATCH 15                  /* Linux's PAGEVEC_SIZE */
#define STATE_ON 1
#define STATE_QUEUED 0x80
#define STATE_ISOLATED 0x40           /* | l: taken off list l by lru_isolate, back with lru_putback */

struct lru_batch {
	struct spinlock lock;
	unsigned n;                       /* slots used (holes included) */
	struct page *slot[LRU_BATCH];
} __attribute__((aligned(64)));

static struct lru_batch batches[NR_CPUS] = {
	[0 ... NR_CPUS - 1] = { .lock = SPINLOCK_INIT_CLASS("lru_add", LOCK_CLASS_LRU_ADD) },
};
static struct spinlock lru_lock = SPINLOCK_INIT_CLASS("lru", LOCK_CLASS_LRU);
static struct list_head lists[NR_LRU_LISTS] = {
	LIST_HEAD_INIT(lists[0]), LIST_HEAD_INIT(lists[1]), LIST_HEAD_INIT(lists[2]), LIST_HEAD_INIT(lists[3]),
};

/* Unlocked callers (lru_del, move) race with set_state under the locks: they re-read under them. */
static uint8_t state_of(const struct page *p)
{
	return smp_load_acquire(&p->lru_state);
}

static void set_state(struct page *p, uint8_t s)
{
	smp_store_release(&p->lru_state, s);
}

static void count(enum lru_list l, long d)
{
	mod_vm_stat((enum vm_stat)(VM_NR_INACTIVE_ANON + l), d);
}

/* A page moved from list from to list to: Linux's pgactivate / pgdeactivate. */
static void count_move(enum lru_list from, enum lru_list to)
{
	if ((from & 1) != (to & 1))
		count_vm_event((to & 1) ? VM_PGACTIVATE : VM_PGDEACTIVATE);
}

/* Link b's queued pages onto their lists and empty it. b->lock held. */
static void drain_locked(struct lru_batch *b)
{
	spin_lock(&lru_lock);
	for (unsigned i = 0; i < b->n; i++) {
		struct page *p = b->slot[i];
		enum lru_list l;

		if (!p)
			continue;
		l = (enum lru_list)(state_of(p) & ~STATE_QUEUED);
		list_add(&p->lru_link, &lists[l]);
		set_state(p, (uint8_t)(STATE_ON + l));
	}
	b->n = 0;                       /* (slots past n are never read: queue_locked writes one before use) */
	spin_unlock(&lru_lock);
}

/* Queue p in b, CPU cpu's batch, bound for list l; whether b is full now. b->lock held. */
static inline bool queue_locked(struct lru_batch *b, unsigned cpu, struct page *p, enum lru_list l)
{
	unsigned n = b->n;

	p->lru_cpu = (uint8_t)cpu;
	p->lru_slot = (uint8_t)n;
	set_state(p, (uint8_t)(STATE_QUEUED | l));
	b->slot[n] = p;
	b->n = n + 1;
	return n + 1 == LRU_BATCH;
}

/*
 * lru_add's other cases, each in a call of its own so that the common one
 * (the lock free, room in the batch) makes no call and saves no
 * registers: the batch's lock was busy (locked false: wait for it), or
 * the batch is full (drain it). Drops the lock.
 */
static __noinline void add_slow(struct lru_batch *b, unsigned cpu, struct page *p, enum lru_list l,
				bool locked)
{
	if (!locked)
		spin_lock(&b->lock);
	if (!p || queue_locked(b, cpu, p, l))
		drain_locked(b);
	spin_unlock(&b->lock);
}

void lru_add(struct page *p, enum lru_list l)
{
	unsigned cpu = arch_cpu_id();
	struct lru_batch *b = &batches[cpu];

	BUG_ON(state_of(p) != 0);
	count(l, 1);
	if (unlikely(!spin_trylock(&b->lock))) {
		add_slow(b, cpu, p, l, false);
		return;
	}
	if (unlikely(queue_locked(b, cpu, p, l))) {
		add_slow(b, cpu, NULL, l, true);
		return;
	}
	spin_unlock(&b->lock);
}

void lru_add_run(struct page *first, unsigned n, enum lru_list l)
{
	for (unsigned i = 0; i < n; i++)
		BUG_ON(state_of(first + i) != 0);
	count(l, (long)n);
	spin_lock(&lru_lock);
	for (unsigned i = 0; i < n; i++) {
		list_add(&first[i].lru_link, &lists[l]);
		set_state(first + i, (uint8_t)(STATE_ON + l));
	}
	spin_unlock(&lru_lock);
}

void lru_drain_all(void)
{
	unsigned c;

	for_each_cpu(c, arch_cpu_online_mask()) {      /* only a CPU that is up has queued pages */
		spin_lock(&batches[c].lock);
		drain_locked(&batches[c]);
		spin_unlock(&batches[c].lock);
	}
}

/*
 * Change a queued page's list to l (to == -1: take it out of its batch).
 * False when it is not queued (any more: the batch was drained).
 */
static bool requeue(struct page *p, int to, bool counted)
{
	struct lru_batch *b = &batches[p->lru_cpu];
	uint8_t s;
	bool queued;

	spin_lock(&b->lock);
	s = state_of(p);
	queued = s & STATE_QUEUED;
	if (queued && to != (int)(s & ~STATE_QUEUED)) {
		count((enum lru_list)(s & ~STATE_QUEUED), -1);
		if (to < 0) {
			b->slot[p->lru_slot] = NULL;
			set_state(p, 0);
		} else {
			count((enum lru_list)to, 1);
			if (counted)
				count_move((enum lru_list)(s & ~STATE_QUEUED), (enum lru_list)to);
			set_state(p, (uint8_t)(STATE_QUEUED | to));
		}
	}
	spin_unlock(&b->lock);
	return queued;
}

/* Take p (not queued any more, last reference gone) off its list; its gauge's -1 goes to d[l], or at once when !d. lru_lock held. */
static void del_locked(struct page *p, long *d)
{
	uint8_t s = state_of(p);
	enum lru_list l;

	BUG_ON(!s || (s & (STATE_QUEUED | STATE_ISOLATED)));
	l = (enum lru_list)(s - STATE_ON);
	list_del(&p->lru_link);
	if (d)
		d[l]--;
	else
		count(l, -1);
	set_state(p, 0);
}

void lru_del(struct page *p)
{
	uint8_t s = state_of(p);

	if (!s || ((s & STATE_QUEUED) && requeue(p, -1, false)))
		return;
	spin_lock(&lru_lock);
	del_locked(p, NULL);
	spin_unlock(&lru_lock);
}

/* Pages lru_del_list takes off their lists per lru_lock hold. */
#define DEL_HOLD 256

void lru_del_list(struct list_head *pages)
{
	long d[NR_LRU_LISTS] = { 0 };
	unsigned held = 0;
	struct list_head *pos;

	list_for_each(pos, pages) {
		struct page *p = list_entry(pos, struct page, lru);
		uint8_t s = state_of(p);

		if (s & STATE_QUEUED) {
			if (held)
				spin_unlock(&lru_lock);     /* a batch's lock comes before lru_lock */
			held = 0;
			if (requeue(p, -1, false))
				continue;
		} else if (!s) {
			continue;
		}
		if (held == DEL_HOLD) {
			spin_unlock(&lru_lock);
			held = 0;
		}
		if (!held++)
			spin_lock(&lru_lock);
		del_locked(p, d);
	}
	if (held)
		spin_unlock(&lru_lock);
	for (unsigned l = 0; l < NR_LRU_LISTS; l++)
		if (d[l])
			count((enum lru_list)l, d[l]);
}

/*
 * Move p to the head of its active (or inactive) list: of its own kind
 * when kind < 0, else of kind's (LRU_INACTIVE_ANON or LRU_INACTIVE_FILE),
 * unless it is on that list; counted: a move between active and inactive
 * counts as Linux's pgactivate / pgdeactivate.
 */
static void move(struct page *p, int kind, bool active, bool counted)
{
	uint8_t s = state_of(p);
	enum lru_list from, to;

	if (!s || (s & STATE_ISOLATED))
		return;                 /* an isolated page is reclaim's to place (Linux: !folio_test_lru) */
	from = (enum lru_list)((s & STATE_QUEUED) ? s & ~STATE_QUEUED : s - STATE_ON);
	to = (enum lru_list)((kind < 0 ? (int)(from & ~1) : kind) | (active ? 1 : 0));
	if (from == to || ((s & STATE_QUEUED) && requeue(p, to, counted)))
		return;
	spin_lock(&lru_lock);
	s = state_of(p);
	BUG_ON(!s || (s & STATE_QUEUED));
	if (s & STATE_ISOLATED) {
		spin_unlock(&lru_lock);
		return;
	}
	list_del(&p->lru_link);
	list_add(&p->lru_link, &lists[to]);
	count((enum lru_list)(s - STATE_ON), -1);
	count(to, 1);
	if (counted)
		count_move((enum lru_list)(s - STATE_ON), to);
	set_state(p, (uint8_t)(STATE_ON + to));
	spin_unlock(&lru_lock);
}

void lru_activate(struct page *p)
{
	move(p, -1, true, true);
}

void lru_deactivate(struct page *p)
{
	move(p, -1, false, true);
}

enum lru_list lru_list_for(const struct page *p, bool active)
{
	bool file = (READ_ONCE(p->flags) & (PG_anon | PG_lazyfree)) == (PG_anon | PG_lazyfree);

	return (enum lru_list)((file ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON) | (active ? 1 : 0));
}

void lru_lazyfree(struct page *p)
{
	__atomic_fetch_and(&p->flags, ~PG_referenced, __ATOMIC_RELAXED);
	move(p, LRU_INACTIVE_FILE, false, false);
}

void lru_lazyfree_cancel(struct page *p)
{
	move(p, LRU_INACTIVE_ANON, true, false);
}

void lru_mark_accessed(struct page *p)
{
	int l;

	if (!(READ_ONCE(p->flags) & PG_referenced)) {
		__atomic_fetch_or(&p->flags, PG_referenced, __ATOMIC_RELAXED);
		return;
	}
	l = lru_page_list(p);
	if (l < 0 || (l & 1))
		return;                 /* on no list, or active already */
	lru_activate(p);
	__atomic_fetch_and(&p->flags, ~PG_referenced, __ATOMIC_RELAXED);
}

int lru_page_list(const struct page *p)
{
	uint8_t s = state_of(p);

	if (!s)
		return -1;
	if (s & STATE_ISOLATED)
		return s & ~STATE_ISOLATED;
	return (s & STATE_QUEUED) ? s & ~STATE_QUEUED : s - STATE_ON;
}

unsigned long lru_list_pages(enum lru_list l)
{
	return vm_stat_read((enum vm_stat)(VM_NR_INACTIVE_ANON + l));
}

/* A reference to p unless its count is 0: its last one is gone (its lru_del waits for lru_lock), or a fault froze it. */
static bool get_unless_zero(struct page *p)
{
	int32_t r = READ_ONCE(p->refcount);

	while (r > 0)
		if (__atomic_compare_exchange_n(&p->refcount, &r, r + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
	return false;
}

unsigned lru_isolate(enum lru_list l, struct page **out, unsigned max, unsigned *looked)
{
	unsigned n = 0;

	*looked = 0;
	spin_lock(&lru_lock);
	for (; *looked < max && !list_empty(&lists[l]); (*looked)++) {
		struct page *p = container_of(lists[l].prev, struct page, lru_link);

		list_del(&p->lru_link);
		if (!get_unless_zero(p)) {
			list_add(&p->lru_link, &lists[l]);     /* being freed, or frozen: to the head */
			continue;
		}
		set_state(p, (uint8_t)(STATE_ISOLATED | l));
		out[n++] = p;
	}
	spin_unlock(&lru_lock);
	return n;
}

void lru_putback(struct page *p, enum lru_list to, bool tail)
{
	uint8_t s;

	spin_lock(&lru_lock);
	s = state_of(p);
	BUG_ON(!(s & STATE_ISOLATED));
	if (tail)
		list_add_tail(&p->lru_link, &lists[to]);
	else
		list_add(&p->lru_link, &lists[to]);
	count((enum lru_list)(s & ~STATE_ISOLATED), -1);
	count(to, 1);
	count_move((enum lru_list)(s & ~STATE_ISOLATED), to);
	set_state(p, (uint8_t)(STATE_ON + to));
	spin_unlock(&lru_lock);
}
