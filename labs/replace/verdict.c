/*
 * LAB replace: the verdict on a page at the inactive list's tail
 * (include/lru_policy.h): ptes is how many page-table entries had their
 * accessed bit set since the last look (the look cleared them),
 * *referenced is the page's PG_referenced on entry and what it must be
 * on return. Give a page used for the first time since it came to the
 * list a second chance (LRU_KEEP), promote one that shows it is used
 * again and again (LRU_ACTIVATE), reclaim the others (LRU_RECLAIM).
 * docs/labs/replace.md.
 *
 * The skeleton is FIFO: every page that reaches the tail is reclaimed,
 * however recently it was used.
 */
enum lru_verdict lru_inactive_verdict(unsigned ptes, bool *referenced)
{
	(void)ptes;
	*referenced = false;
	return LRU_RECLAIM;             /* TODO */
}
