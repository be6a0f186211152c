/*
 * User page accounting: the shared zero page and private anonymous pages
 * (PG_anon, tagged with the anon identity that first owned them).
 *
 * Locking: refcount and mapcount change with __atomic builtins (pages are
 * shared between address spaces after fork). The anon identity reference
 * of a page is taken and dropped under the faulting mm's mmap_lock (read)
 * plus pt_lock, or its mmap_lock (write); identities are not yet SMP-safe
 * across address spaces (their refcount is a plain counter, see anon_vma.c).
 */
#include "internal.h"
#include "kstring.h"
#include "kerrno.h"

phys_addr_t mm_zero_pa;

/*
 * mm_zero_page_init: allocate the zero page on first use (by mm_create).
 * It is PG_reserved so that nothing ever frees it. 0 or -ENOMEM.
 */
int mm_zero_page_init(void)
{
	struct page *p;

	if (mm_zero_pa)
		return 0;
	p = pmm_alloc(0, GFP_ZERO);
	if (!p)
		return -ENOMEM;
	p->flags |= PG_reserved;
	mm_zero_pa = page_to_phys(p);
	return 0;
}

phys_addr_t mm_zero_page_phys(void)
{
	return mm_zero_pa;
}

struct page *anon_page_alloc(struct anon_vma *av, bool zero)
{
	struct page *p = pmm_alloc(0, zero ? GFP_ZERO : 0);

	BUG_ON(!av);
	if (!p)
		return NULL;
	p->flags |= PG_anon;
	p->private = av;
	anon_vma_get(av);
	return p;
}

void anon_page_move(struct page *page, struct anon_vma *av)
{
	struct anon_vma *old = page->private;

	BUG_ON(!(page->flags & PG_anon) || !av);
	if (old == av)
		return;
	anon_vma_get(av);
	page->private = av;
	anon_vma_put(old);
}

void user_page_get(struct page *page)
{
	BUG_ON(page->flags & PG_reserved);
	__atomic_add_fetch(&page->refcount, 1, __ATOMIC_RELAXED);
}

void user_page_put(struct page *page)
{
	int32_t left;

	BUG_ON(page->flags & PG_reserved);
	left = __atomic_sub_fetch(&page->refcount, 1, __ATOMIC_ACQ_REL);
	BUG_ON(left < 0);
	if (left)
		return;
	BUG_ON(page->mapcount != 0);
	if (page->flags & PG_anon) {
		struct anon_vma *av = page->private;

		page->private = NULL;
		page->flags &= ~(PG_anon | PG_dirty | PG_lazyfree);
		anon_vma_put(av);
	}
	pmm_free(page, 0);
}
