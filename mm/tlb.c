/*
 * The mm/ side of TLB batches (include/arch_mmu.h): user frames whose last
 * mapping an operation removed wait in the batch until every CPU that may
 * still have a translation for them has flushed it; only then are they
 * freed. Without this, a CPU with a stale entry could read or write a frame
 * that already belongs to someone else.
 */
#include "internal.h"

void mm_tlb_finish(struct tlb_batch *b)
{
	arch_tlb_flush(b);
	while (!list_empty(&b->free_pages)) {
		struct page *p = list_first_entry(&b->free_pages, struct page, lru);

		list_del(&p->lru);
		pmm_free(p, 0);
	}
}
