/*
 * User page accounting: the shared zero page and private anonymous pages
 * (PG_anon, tagged with the anon identity that first owned them).
 *
 * Locking: refcount and mapcount change with __atomic builtins (pages are
 * shared between address spaces after fork, and lose their last mapping
 * wherever that happens). A page's anon identity reference is taken and
 * dropped atomically too (mm/anon_vma.c), so the page of a parent's
 * identity can be freed by a child on another CPU. page->private and the
 * PG_* flags of a mapped page change only while one mm maps it (refcount
 * and mapcount 1), under that mm's pt_lock.
 */
#include "internal.h"
#include "kstring.h"
#include "kerrno.h"
#include "lru.h"
#include "lockless.h"

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

void anon_page_init(struct page *p, const struct vma *vma, uintptr_t va)
{
	BUG_ON(!vma->anon);
	mod_vm_stat(VM_NR_ANON_PAGES, 1);
	p->flags |= PG_anon;
	p->private = vma->anon;
	p->index = vma_pgoff_at(vma, va);
	anon_vma_get(vma->anon);
	lru_add(p, LRU_INACTIVE_ANON);          /* new anonymous pages start inactive (include/lru.h) */
}

struct page *anon_page_alloc(const struct vma *vma, uintptr_t va, bool zero)
{
	struct page *p = pmm_alloc(0, GFP_USER | (zero ? GFP_ZERO : 0));

	BUG_ON(!vma->anon);
	if (!p)
		return NULL;
	anon_page_init(p, vma, va);
	return p;
}

void anon_page_move(struct page *page, const struct vma *vma, uintptr_t va)
{
	struct anon_vma *old = page->private, *av = vma->anon;

	BUG_ON(!(page->flags & PG_anon) || !av);
	page->index = vma_pgoff_at(vma, va);
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

/* Drop a reference; the references left (0: the page is then ready to be freed). */
static int32_t put_ref(struct page *page)
{
	int32_t left;

	BUG_ON(page->flags & PG_reserved);
	left = __atomic_sub_fetch(&page->refcount, 1, __ATOMIC_ACQ_REL);
	BUG_ON(left < 0);
	if (left)
		return left;
	BUG_ON(page->mapcount != 0);
	lru_del(page);
	if (page->flags & PG_anon) {
		struct anon_vma *av = page->private;

		page->private = NULL;
		page_clear_lazyfree(page);
		page->flags &= ~(PG_anon | PG_dirty);
		mod_vm_stat(VM_NR_ANON_PAGES, -1);
		anon_vma_put(av);
	}
	return 0;
}

void user_page_put(struct page *page)
{
	int32_t left = put_ref(page);

	if (!left)
		pmm_free(page, 0);
	else if (left == 1 && smp_load_acquire(&page->swap))
		swap_cache_release(page, NULL);         /* perhaps the swap cache's alone now */
}

void user_page_put_tlb(struct page *page, struct tlb_batch *tlb)
{
	int32_t left = put_ref(page);

	if (!left)
		list_add_tail(&page->lru, &tlb->free_pages);
	else if (left == 1 && smp_load_acquire(&page->swap))
		swap_cache_release(page, tlb);
}
