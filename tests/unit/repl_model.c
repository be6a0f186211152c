/*
 * The fault-count model of LRU reclaim (tests/unit/repl_model.h): the
 * lists and their batches as mm/vmscan_lru.c moves pages, over an array
 * of virtual pages instead of frames and page tables.
 */
#include "repl_model.h"

enum lru_verdict repl_fifo_verdict(unsigned ptes, bool *referenced)
{
	(void)ptes;
	*referenced = false;
	return LRU_RECLAIM;
}

enum lru_verdict repl_clock_verdict(unsigned ptes, bool *referenced)
{
	*referenced = false;
	return ptes ? LRU_KEEP : LRU_RECLAIM;
}

static void list_unlink(struct repl_model *m, unsigned pg)
{
	struct repl_page *p = &m->pages[pg];
	struct repl_list *l = &m->lists[p->list];

	if (p->prev != REPL_NONE)
		m->pages[p->prev].next = p->next;
	else
		l->head = p->next;
	if (p->next != REPL_NONE)
		m->pages[p->next].prev = p->prev;
	else
		l->tail = p->prev;
	l->len--;
	p->list = REPL_ABSENT;
}

/* Put pg (absent or isolated) on list at its head (the young end) or its tail. */
static void list_add(struct repl_model *m, unsigned pg, unsigned list, bool tail)
{
	struct repl_page *p = &m->pages[pg];
	struct repl_list *l = &m->lists[list];

	p->list = (unsigned char)list;
	p->prev = tail ? l->tail : REPL_NONE;
	p->next = tail ? REPL_NONE : l->head;
	if (tail) {
		if (l->tail != REPL_NONE)
			m->pages[l->tail].next = pg;
		l->tail = pg;
		if (l->head == REPL_NONE)
			l->head = pg;
	} else {
		if (l->head != REPL_NONE)
			m->pages[l->head].prev = pg;
		l->head = pg;
		if (l->tail == REPL_NONE)
			l->tail = pg;
	}
	l->len++;
}

/* Take up to REPL_BATCH pages off list's tail into out (out[0]: the tail). */
static unsigned isolate(struct repl_model *m, unsigned list, unsigned *out)
{
	unsigned n = 0;

	while (n < REPL_BATCH && m->lists[list].tail != REPL_NONE) {
		out[n] = m->lists[list].tail;
		list_unlink(m, out[n++]);
	}
	return n;
}

/* shrink_active: a batch from the active tail to the inactive head, accessed bits cleared. */
static void shrink_active(struct repl_model *m)
{
	unsigned batch[REPL_BATCH], n = isolate(m, REPL_ACTIVE, batch);

	for (unsigned i = 0; i < n; i++) {
		m->pages[batch[i]].accessed = false;
		list_add(m, batch[i], REPL_INACTIVE, false);
	}
	m->deactivations += n;
}

/* One batch of the inactive tail (shrink_inactive with want 1). True: a frame was freed. */
static bool shrink_inactive(struct repl_model *m)
{
	unsigned batch[REPL_BATCH], n = isolate(m, REPL_INACTIVE, batch), i;
	bool freed = false;

	for (i = 0; i < n && !freed; i++) {
		struct repl_page *p = &m->pages[batch[i]];
		unsigned ptes = p->accessed;
		enum lru_verdict r;

		p->accessed = false;
		r = m->verdict(ptes, &p->referenced);
		if (r == LRU_RECLAIM)
			freed = true;           /* absent since isolated */
		else
			list_add(m, batch[i], r == LRU_ACTIVATE ? REPL_ACTIVE : REPL_INACTIVE, false);
		m->activations += r == LRU_ACTIVATE;
	}
	for (unsigned j = n; j-- > i;)          /* not looked at: back where they were */
		list_add(m, batch[j], REPL_INACTIVE, true);
	return freed;
}

/* Free one frame (lru_shrink with want 1, run until it succeeds). */
static void reclaim_one(struct repl_model *m)
{
	for (;;) {
		if (m->lists[REPL_INACTIVE].len < m->lists[REPL_ACTIVE].len)
			shrink_active(m);       /* inactive_is_low, ratio 1 */
		if (shrink_inactive(m))
			return;
	}
}

void repl_init(struct repl_model *m, struct repl_page *pages, unsigned npages, unsigned frames,
	       repl_verdict_fn verdict, bool exact)
{
	*m = (struct repl_model){ .pages = pages, .npages = npages, .frames = frames,
				  .verdict = verdict, .exact = exact };
	for (unsigned l = 0; l < 3; l++)
		m->lists[l] = (struct repl_list){ REPL_NONE, REPL_NONE, 0 };
	for (unsigned i = 0; i < npages; i++)
		pages[i] = (struct repl_page){ REPL_NONE, REPL_NONE, REPL_ABSENT, false, false };
}

bool repl_resident(const struct repl_model *m, unsigned page)
{
	return m->pages[page].list != REPL_ABSENT;
}

bool repl_ref(struct repl_model *m, unsigned page)
{
	struct repl_page *p = &m->pages[page];

	m->refs++;
	if (p->list != REPL_ABSENT) {
		p->accessed = true;
		if (m->exact) {
			unsigned list = p->list;

			list_unlink(m, page);
			list_add(m, page, list, false);
		}
		return false;
	}
	m->faults++;
	if (m->lists[REPL_INACTIVE].len + m->lists[REPL_ACTIVE].len >= m->frames)
		reclaim_one(m);
	p->accessed = true;
	p->referenced = false;
	list_add(m, page, REPL_INACTIVE, false);
	return true;
}
