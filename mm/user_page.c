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

void anon_pages_init(struct page *first, unsigned n, const struct vma *vma, uintptr_t va)
{
	BUG_ON(!vma->anon);
	anon_pages_setup(first, n, vma, va);
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


/* The anonymous identity of a page whose last reference is gone goes (the caller puts the returned identity, or NULL). */
static struct anon_vma *untag_anon(struct page *page)
{
	struct anon_vma *av = page->private;

	BUG_ON(page->mapcount != 0);
#ifdef KDEBUG
	BUG_ON(pmm_page_huge_shares(page) != 0);        /* a leaf still maps its block (mm/thp.c) */
#endif
	if (!(page->flags & PG_anon))
		return NULL;
	page->private = NULL;
	page_clear_lazyfree(page);
	page->flags &= ~(PG_anon | PG_dirty);
	return av;
}

/* What goes with the last reference: the page leaves its LRU list and loses its anonymous identity. */
static void release_page(struct page *page)
{
	struct anon_vma *av;

	lru_del(page);
	av = untag_anon(page);
	if (av) {
		mod_vm_stat(VM_NR_ANON_PAGES, -1);
		anon_vma_put(av);
	}
}

/* Drop a reference; the references left (0: the page, released, is ready to be freed). */
static int32_t put_ref(struct page *page)
{
	int32_t left = user_page_drop_ref(page);

	if (!left)
		release_page(page);
	return left;
}

void user_page_put(struct page *page)
{
	int32_t left = put_ref(page);

	if (!left)
		pmm_free_user(page);
	else if (left == 1 && smp_load_acquire(&page->swap))
		swap_cache_release(page, NULL);         /* perhaps the swap cache's alone now */
}

void user_pages_release(struct list_head *pages)
{
	struct anon_vma *run = NULL;
	unsigned n = 0, anon = 0;
	struct list_head *pos;

	if (list_is_singular(pages)) {
		release_page(list_first_entry(pages, struct page, lru));       /* a lone page: no batch set-up */
		return;
	}
	lru_del_list(pages);
	list_for_each(pos, pages) {
		struct anon_vma *av = untag_anon(list_entry(pos, struct page, lru));

		if (!av)
			continue;
		anon++;
		if (av != run && n) {
			anon_vma_put_many(run, n);
			n = 0;
		}
		run = av;
		n++;
	}
	if (n)
		anon_vma_put_many(run, n);
	if (anon)
		mod_vm_stat(VM_NR_ANON_PAGES, -(long)anon);
}
