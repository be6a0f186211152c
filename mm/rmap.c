/*
 * The reverse map (include/rmap.h): rmap_walk over an anonymous page's
 * identity, and what reclaim does with it: test the accessed bits of
 * every mapping (rmap_referenced) and turn every mapping of a swap-cache
 * page into a swap entry (try_to_unmap_swapcache).
 *
 * Locking: include/rmap.h. The identity's lock is never held with any
 * other lock taken inside it.
 */
#include "internal.h"
#include "lockless.h"
#include "anon_vma.h"
#include "rmap.h"

/* Candidate mappings copied out of the identity's list at a time. */
#define RMAP_BATCH 16

struct rmap_target {
	struct mm *mm;                /* referenced */
	uintptr_t va;
};

/*
 * A list of candidate VMAs: an anon family's (by anon_node) or a file
 * object's i_mmap (by file_node), and the lock that keeps it.
 */
struct rmap_list {
	struct spinlock *lock;
	struct list_head *head;
	bool file;
};

static struct vma *rmap_list_vma(const struct rmap_list *rl, struct list_head *l)
{
	if (rl->file)
		return vma_of_rmap(container_of(l, struct vma_rmap_link, file_node));
	return vma_of_rmap(container_of(l, struct vma_rmap_link, anon_node));
}

/*
 * Copy the candidates of the list from position *pos on into t (at most
 * RMAP_BATCH); *pos moves past those looked at. True when the list has
 * more. With rwc->keep_mlocked, VM_LOCKED VMAs are no candidates.
 */
static bool collect(const struct rmap_list *rl, unsigned long index, const struct rmap_walk_control *rwc,
		    unsigned *pos, struct rmap_target *t, unsigned *n)
{
	struct list_head *l;
	unsigned i = 0;
	bool more = false;

	*n = 0;
	spin_lock(rl->lock);
	list_for_each(l, rl->head) {
		struct vma *v = rmap_list_vma(rl, l);

		if (i++ < *pos)
			continue;
		if (*n == RMAP_BATCH) {
			more = true;
			i--;
			break;
		}
		if (index < v->pgoff || index - v->pgoff >= vma_pages(v) ||
		    (rwc->keep_mlocked && (v->flags & VM_LOCKED)) || !mm_get_unless_zero(v->mm))
			continue;
		t[*n].mm = v->mm;
		t[(*n)++].va = v->start + ((index - v->pgoff) << PAGE_SHIFT);
	}
	spin_unlock(rl->lock);
	*pos = i;
	return more;
}

/* Visit va of t->mm if it maps page. False: the visitor ended the walk. */
static bool visit_one(struct page *page, const struct rmap_target *t, struct rmap_walk_control *rwc,
		      unsigned *visits)
{
	phys_addr_t pa;
	unsigned state;
	bool go_on = true;

	if (t->mm != rwc->locked && !mmap_read_trylock(t->mm)) {
		rwc->skipped++;
		return true;
	}
	mm_pt_lock(t->mm);
	if (arch_mmu_query(t->mm->mmu, t->va, &pa, &state) == 0 && pa == page_to_phys(page)) {
		(*visits)++;
		go_on = rwc->visit(page, t->mm, t->va, state, rwc->arg);
	}
	mm_pt_unlock(t->mm);
	if (t->mm != rwc->locked)
		mmap_read_unlock(t->mm);
	return go_on;
}

/* Visit the entries of the candidates rl offers for page (at page->index). */
static unsigned walk_list(struct page *page, const struct rmap_list *rl, struct rmap_walk_control *rwc)
{
	struct rmap_target t[RMAP_BATCH];
	unsigned pos = 0, n, visits = 0;
	bool more = true, go_on = true;

	while (more && go_on) {
		more = collect(rl, page->index, rwc, &pos, t, &n);
		for (unsigned i = 0; i < n; i++) {
			if (go_on)
				go_on = visit_one(page, &t[i], rwc, &visits);
			if (rwc->locked)
				mm_put_deferred(t[i].mm);     /* a teardown here would nest two mmap_locks */
			else
				mm_put(t[i].mm);
		}
	}
	return visits;
}

unsigned rmap_walk(struct page *page, struct rmap_walk_control *rwc)
{
	unsigned long flags = READ_ONCE(page->flags);
	struct anon_identity *ai;
	struct vm_object *o;
	unsigned visits;

	rwc->skipped = 0;
	if (flags & PG_reserved)
		return 0;
	BUG_ON(page_refs(page) < 1);
	if (flags & PG_anon) {
		if (!page->private)
			return 0;
		ai = anon_identity(page->private)->root;
		return walk_list(page, &(struct rmap_list){ &ai->lock, &ai->vmas, false }, rwc);
	}
	o = vm_object_of_page_get(page);        /* NULL: not (or no longer) a cache page */
	if (!o)
		return 0;
	visits = walk_list(page, &(struct rmap_list){ &o->i_mmap_lock, &o->i_mmap, true }, rwc);
	vm_object_put(o);               /* (a VMA's file put does so under the mmap_lock too) */
	return visits;
}

/* ---- users */

struct referenced_ctx {
	struct mm *skip;
	unsigned referenced;
};

static enum mmu_action clear_accessed(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	(void)arg;
	(void)va;
	(void)pa;
	if (!(*state & MMU_ACCESSED))
		return MMU_KEEP;
	*state &= ~MMU_ACCESSED;
	return MMU_UPDATE;
}

static bool referenced_visit(struct page *page, struct mm *mm, uintptr_t va, unsigned state, void *arg)
{
	struct referenced_ctx *c = arg;

	(void)page;
	if (mm == c->skip || !(state & MMU_ACCESSED))
		return true;
	arch_mmu_walk(mm->mmu, va, va + PAGE_SIZE, clear_accessed, NULL, NULL);  /* flushed on return */
	c->referenced++;
	return true;
}

unsigned rmap_referenced(struct page *page, struct mm *skip, struct mm *locked)
{
	struct referenced_ctx c = { skip, 0 };
	struct rmap_walk_control rwc = { .visit = referenced_visit, .arg = &c, .locked = locked };

	rmap_walk(page, &rwc);
	return c.referenced;
}

static enum mmu_action clear_dirty(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	(void)arg;
	(void)va;
	(void)pa;
	*state &= ~MMU_DIRTY;
	return MMU_UPDATE;
}

/*
 * Every entry of a page in the swap cache is read-only (fork made it so;
 * nobody takes a cached page over in place), so its data cannot have
 * changed since it was written to the slot. A dirty bit left from before
 * fork write-protected the entry is stale: cleared first (and flushed),
 * since arch_mmu_swap_out refuses a dirty entry.
 */
static bool unmap_swapcache_visit(struct page *page, struct mm *mm, uintptr_t va, unsigned state, void *arg)
{
	(void)arg;
	if (state & MMU_WRITE)
		return true;            /* cannot happen (see above); such an entry would stay */
	if (state & MMU_DIRTY)
		arch_mmu_walk(mm->mmu, va, va + PAGE_SIZE, clear_dirty, NULL, NULL);     /* flushed on return */
	mm_swap_unmap_cached_locked(mm, va, page);
	return true;
}

bool try_to_unmap_swapcache(struct page *page, struct mm *locked)
{
	struct rmap_walk_control rwc = { .visit = unmap_swapcache_visit, .locked = locked };

	BUG_ON(!smp_load_acquire(&page->swap));
	rmap_walk(page, &rwc);
	return smp_load_acquire(&page->mapcount) == 0;
}

struct unmap_file_ctx {
	struct mm *mm;
	struct page *page;
};

/*
 * The entry rmap_walk matched, out of the table: its dirty bit is final
 * (arch_mmu_walk) and goes into the page (PG_dirty: reclaim writes it
 * out). The entry's reference is put at once: the caller's and the
 * cache's keep the page until the walk's flush.
 */
static enum mmu_action unmap_file_entry(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct unmap_file_ctx *c = arg;

	(void)va;
	if (pa != page_to_phys(c->page))
		return MMU_KEEP;
	mm_unmap_pte_page(c->mm, c->page, *state, NULL);
	return MMU_CLEAR;
}

static bool unmap_file_visit(struct page *page, struct mm *mm, uintptr_t va, unsigned state, void *arg)
{
	struct unmap_file_ctx c = { mm, page };

	(void)arg;
	if (state & MMU_HUGE)
		return true;            /* a 2 MiB leaf is not split for reclaim: the page stays mapped */
	arch_mmu_walk(mm->mmu, va, va + PAGE_SIZE, unmap_file_entry, &c, NULL);   /* flushed on return */
	return true;
}

bool try_to_unmap_file(struct page *page)
{
	struct rmap_walk_control rwc = { .visit = unmap_file_visit, .keep_mlocked = true };

	BUG_ON(page->flags & PG_anon);
	rmap_walk(page, &rwc);
	return smp_load_acquire(&page->mapcount) == 0;
}
