/*
 * The mm/ side of TLB batches (include/arch_mmu.h): user frames whose last
 * mapping an operation removed wait in the batch until every CPU that may
 * still have a translation for them has flushed it; only then are they
 * freed. Without this, a CPU with a stale entry could read or write a frame
 * that already belongs to someone else.
 *
 * A page-cache page is the harder case: its last reference need not be a
 * mapping's. Truncation on another CPU may take it out of its cache, or
 * the file's last close may free the cache, while the CPUs of an address
 * space that just unmapped it can still reach it until its flush. So the
 * reference of a cache page's PTE is itself held in the batch (puts[],
 * Linux's mmu_gather pages) and dropped after the flush; whoever drops the
 * last reference then frees a frame that no TLB can reach any more. A batch
 * that fills flushes early (tlb_flush_mmu), from inside the walk: the
 * caller may hold pt_lock, which leaves interrupts on.
 */
#include "internal.h"

void mm_tlb_finish(struct tlb_batch *b)
{
	arch_tlb_flush(b);
	if (!list_empty(&b->free_pages)) {
		user_pages_release(&b->free_pages);
		pmm_free_list(&b->free_pages);
	}
	for (unsigned i = 0; i < b->nputs; i++)
		user_page_put(b->puts[i]);
	b->nputs = 0;
}

void mm_tlb_put_page(struct tlb_batch *b, struct page *p)
{
	if (b->nputs == TLB_BATCH_PUTS)
		mm_tlb_finish(b);       /* what is recorded so far: the entry of p is not cleared yet */
	b->puts[b->nputs++] = p;
}
