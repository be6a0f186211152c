/*
 * The page-replacement policy of reclaim from the LRU lists
 * (mm/vmscan_lru.c): what happens to a page that reaches the tail of the
 * inactive anonymous list, decided from its references alone. Pure (no
 * lock, no page, no list), so that the same code runs in the kernel, in
 * the host unit tests and in the fault-count simulator
 * (tools/bench/replsim.c, docs/replacement.md). Lab `replace`
 * (docs/labs/replace.md) removes it.
 */
#ifndef LRU_POLICY_H
#define LRU_POLICY_H

#include "types.h"

/* What reclaim does with a page at the inactive tail. */
enum lru_verdict {
	LRU_KEEP,               /* back to the inactive list's head (second chance) */
	LRU_ACTIVATE,           /* to the active list (promotion) */
	LRU_RECLAIM,            /* a victim: dropped or written to swap */
};

/*
 * The verdict for a page at the inactive tail (Linux folio_check_references,
 * for an anonymous page): ptes is how many page-table entries had their
 * accessed bit set since the last look (the look cleared them);
 * *referenced is the page's PG_referenced on entry and what it must be
 * on return.
 */
enum lru_verdict lru_inactive_verdict(unsigned ptes, bool *referenced);

#endif
