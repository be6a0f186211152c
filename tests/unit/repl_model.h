/*
 * A model of reclaim from the LRU lists (mm/vmscan_lru.c) for counting
 * page faults: a machine of `frames` page frames serving references to
 * virtual pages 0 .. npages-1 of one address space, demand paged. A
 * reference to a page not resident is a fault; when every frame is in
 * use, reclaim takes one victim first, as the kernel's would:
 *   - a new page goes to the inactive list's head with its accessed bit
 *     set (the fault that made it) and PG_referenced clear;
 *   - a reference to a resident page sets its accessed bit (the MMU);
 *   - reclaim: while the inactive list is low against the active one
 *     (inactive_is_low at ratio 1: below 1 GiB), a batch (32) moves from
 *     the active tail to the inactive head, accessed bits cleared
 *     (shrink_active); then a batch from the inactive tail is looked at,
 *     tail first: the accessed bit is tested and cleared (ptes: 0 or 1, one
 *     mapping) and the verdict function decides, KEEP to the inactive
 *     head, ACTIVATE to the active head, RECLAIM frees the frame, and the
 *     pages not looked at once one is freed go back to the tail. Batches
 *     repeat until a frame is free.
 * With verdict = lru_inactive_verdict (mm/lru_policy.c) this is the
 * kernel's LRU approximation; with repl_fifo_verdict no page is ever
 * kept and the lists are a FIFO queue; with repl_clock_verdict a page
 * referenced since the last look is kept once more, never promoted: one
 * list rotating past its tail, the clock (second chance) algorithm.
 * `exact` makes every hit move its page to the inactive head (with the
 * FIFO verdict: exact LRU, what the others approximate). Unlike the
 * kernel, reclaim frees one frame per fault (no watermarks, no batching
 * of victims) and nothing else runs: the counts depend on the policy
 * and the trace alone.
 *
 * No allocation: the caller owns the page array (npages entries).
 */
#ifndef REPL_MODEL_H
#define REPL_MODEL_H

#include "lru_policy.h"

typedef enum lru_verdict (*repl_verdict_fn)(unsigned ptes, bool *referenced);

/* One virtual page of the model. */
struct repl_page {
	unsigned prev, next;          /* list links (page numbers; REPL_NONE: end) */
	unsigned char list;           /* REPL_ABSENT, REPL_INACTIVE, REPL_ACTIVE */
	bool accessed;                /* the entry's accessed bit */
	bool referenced;              /* PG_referenced */
};

enum { REPL_ABSENT, REPL_INACTIVE, REPL_ACTIVE };
#define REPL_NONE  0xffffffffu
#define REPL_BATCH 32                  /* mm/vmscan_lru.c's LRU_SCAN_BATCH */

struct repl_list {
	unsigned head, tail, len;
};

struct repl_model {
	struct repl_page *pages;      /* npages entries, the caller's */
	unsigned npages, frames;
	repl_verdict_fn verdict;
	bool exact;                   /* a hit moves its page to the inactive head */
	struct repl_list lists[3];    /* [REPL_INACTIVE], [REPL_ACTIVE] */
	unsigned long refs, faults, activations, deactivations;
};

/* The FIFO verdict (the lab's skeleton): every page at the tail is a victim. */
enum lru_verdict repl_fifo_verdict(unsigned ptes, bool *referenced);
/* The clock's verdict: kept (to the head) when referenced since the last look. */
enum lru_verdict repl_clock_verdict(unsigned ptes, bool *referenced);

/* Start m empty: frames > 0 frames, pages[npages] all absent; counters zero. */
void repl_init(struct repl_model *m, struct repl_page *pages, unsigned npages, unsigned frames,
	       repl_verdict_fn verdict, bool exact);
/* Reference page (< npages). Returns true when it faulted. */
bool repl_ref(struct repl_model *m, unsigned page);
/* Is page resident (on either list)? */
bool repl_resident(const struct repl_model *m, unsigned page);

#endif
