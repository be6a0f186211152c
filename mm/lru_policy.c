/*
 * The replacement policy of the LRU lists (include/lru_policy.h): Linux's
 * second chance on the inactive list with promotion on a second
 * reference. Every mapped page starts referenced (the fault that made it
 * set its accessed bit), so a page used once is kept once and reclaimed
 * at its next look unless used again; a page used again while inactive
 * (or through two entries at once) has shown it belongs to the working
 * set and is promoted. The active list ages pages back to the inactive
 * one (mm/vmscan_lru.c, shrink_active), where the test starts over.
 */
#include "lru_policy.h"

/* LAB replace: BEGIN verdict */
enum lru_verdict lru_inactive_verdict(unsigned ptes, bool *referenced)
{
	bool was = *referenced;

	*referenced = ptes != 0;
	if (!ptes)
		return LRU_RECLAIM;     /* not used since the last look (a spent second chance too) */
	return was || ptes > 1 ? LRU_ACTIVATE : LRU_KEEP;
}
/* LAB replace: END verdict */
