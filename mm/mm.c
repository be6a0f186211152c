/*
 * Address spaces: creation, references, teardown, fork (Linux dup_mmap),
 * switching, and the mmap_lock.
 *
 * Locking: see include/mm.h (lock order mmap_lock -> pt_lock -> shared
 * object lock -> pmm/slab).
 */
#include "mm_internal.h"
#include "vma_anon.h"
#include "slab.h"
#include "arch.h"
#include "kerrno.h"
#include "kstring.h"
#include "printk.h"

/* ------------------------------------------------------------ mmap_lock */

static void mmap_lock_init(struct mmap_lock *l)
{
	spin_init(&l->lock, "mmap_lock");
	l->readers = 0;
	l->writer = false;
	l->writers_waiting = 0;
	l->writer_cpu = -1;
}

void mmap_read_lock(struct mm *mm)
{
	struct mmap_lock *l = &mm->mmap_lock;

	for (;;) {
		unsigned long fl = spin_lock_irqsave(&l->lock);

		if (!l->writer && !l->writers_waiting) {
			l->readers++;
			l->read_acquired++;
			spin_unlock_irqrestore(&l->lock, fl);
			return;
		}
		BUG_ON(l->writer && l->writer_cpu == (int)arch_cpu_id());
		spin_unlock_irqrestore(&l->lock, fl);
		arch_cpu_relax();
	}
}

void mmap_read_unlock(struct mm *mm)
{
	struct mmap_lock *l = &mm->mmap_lock;
	unsigned long fl = spin_lock_irqsave(&l->lock);

	BUG_ON(l->readers <= 0);
	l->readers--;
	spin_unlock_irqrestore(&l->lock, fl);
}

void mmap_write_lock(struct mm *mm)
{
	struct mmap_lock *l = &mm->mmap_lock;
	bool waiting = false;

	for (;;) {
		unsigned long fl = spin_lock_irqsave(&l->lock);

		if (!l->writer && l->readers == 0) {
			if (waiting)
				l->writers_waiting--;
			l->writer = true;
			l->writer_cpu = (int)arch_cpu_id();
			l->write_acquired++;
			spin_unlock_irqrestore(&l->lock, fl);
			return;
		}
		BUG_ON(l->writer && l->writer_cpu == (int)arch_cpu_id());
		if (!waiting) {
			l->writers_waiting++;
			waiting = true;
		}
		spin_unlock_irqrestore(&l->lock, fl);
		arch_cpu_relax();
	}
}

void mmap_write_unlock(struct mm *mm)
{
	struct mmap_lock *l = &mm->mmap_lock;
	unsigned long fl = spin_lock_irqsave(&l->lock);

	BUG_ON(!l->writer || l->writer_cpu != (int)arch_cpu_id());
	l->writer = false;
	l->writer_cpu = -1;
	spin_unlock_irqrestore(&l->lock, fl);
}

bool mmap_is_locked(struct mm *mm)
{
	return mm->mmap_lock.writer || mm->mmap_lock.readers > 0;
}

bool mmap_is_write_locked(struct mm *mm)
{
	return mm->mmap_lock.writer && mm->mmap_lock.writer_cpu == (int)arch_cpu_id();
}

/* ------------------------------------------------------- create / put */

static struct kmem_cache *mm_cachep;

struct mm *mm_create_backend(const struct vma_index_ops *backend)
{
	struct mm *mm;

	if (!mm_cachep)
		mm_cachep = kmem_cache_create("mm", sizeof(struct mm), 0);
	if (!mm_cachep || mm_zero_page_init())
		return NULL;
	mm = kmem_cache_alloc(mm_cachep);
	if (!mm)
		return NULL;
	if (mm_vma_init(mm, backend)) {
		kmem_cache_free(mm_cachep, mm);
		return NULL;
	}
	mm->mmu = arch_mmu_create();
	if (!mm->mmu) {
		mm_vma_destroy(mm);
		kmem_cache_free(mm_cachep, mm);
		return NULL;
	}
	mmap_lock_init(&mm->mmap_lock);
	spin_init(&mm->pt_lock, "pt_lock");
	mm->object_ops = &shared_anon_object_ops;
	mm->users = 1;
	return mm;
}

struct mm *mm_create(void)
{
	return mm_create_backend(NULL);
}

struct mm *mm_get(struct mm *mm)
{
	__atomic_add_fetch(&mm->users, 1, __ATOMIC_RELAXED);
	return mm;
}

/* Unmap every VMA's pages, free the VMAs, the tables and mm. */
static void mm_teardown(struct mm *mm)
{
	struct vma *v;

	mmap_write_lock(mm);
	for (v = vma_first(mm); v; v = vma_next(mm, v))
		mm_zap_range(mm, v, v->start, v->end);
	if (mm->rss)
		panic("mm_put: rss %lu after unmapping everything", mm->rss);
	mm_vma_destroy(mm);
	mmap_write_unlock(mm);
	arch_mmu_destroy(mm->mmu);
	mm->mmu = NULL;
	kmem_cache_free(mm_cachep, mm);
}

void mm_put(struct mm *mm)
{
	int left;

	if (!mm)
		return;
	left = __atomic_sub_fetch(&mm->users, 1, __ATOMIC_ACQ_REL);
	BUG_ON(left < 0);
	if (left == 0)
		mm_teardown(mm);
}

void mm_activate(struct mm *mm)
{
	arch_mmu_activate(mm ? mm->mmu : NULL);
}

/* ---------------------------------------------------------------- fork */

struct dup_ctx {
	struct mm *parent, *child;
	const struct vma *vma;        /* the parent VMA being copied */
	int err;
};

/*
 * For each present entry of a parent VMA: map the same frame in the child.
 * Private pages (and the zero page) become read-only in both; shared pages
 * keep their permissions.
 */
static enum mmu_action dup_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct dup_ctx *c = arg;
	bool private = !c->vma->object;
	unsigned cst = *state & ~(MMU_ACCESSED | MMU_DIRTY);
	enum mmu_action act = MMU_KEEP;

	if (c->err)
		return MMU_KEEP;
	if (private)
		cst &= ~MMU_WRITE;
	if (arch_mmu_map(c->child->mmu, va, pa, cst)) {
		c->err = -ENOMEM;
		return MMU_KEEP;
	}
	if (!mm_is_zero_pa(pa)) {
		struct page *p = phys_to_page(pa);

		user_page_get(p);
		page_mapcount_add(p, 1);
		mm_count(&c->child->rss, 1);
		if (!private)
			mm_count(&c->child->rss_shared, 1);
	}
	if (private && (*state & MMU_WRITE)) {
		*state &= ~MMU_WRITE;
		act = MMU_UPDATE;
	}
	return act;
}

/* Copy one parent VMA (and its pages) into child. 0 or -ENOMEM. */
static int dup_vma(struct mm *parent, struct mm *child, const struct vma *pv)
{
	unsigned long flags = pv->flags & ~VM_LOCKED;
	struct dup_ctx c = { parent, child, pv, 0 };
	struct vma *cv;
	int err;

	err = vma_map_new_range(child, pv->start, pv->end, flags, pv->object, pv->pgoff, &cv);
	if (err)
		return err;
	BUG_ON(cv->start != pv->start || cv->end != pv->end);
	if (pv->flags & VM_WIPEONFORK)
		return 0;
	if (pv->anon) {
		/* anon_vma_fork: the child's VMA gets an identity of its own. */
		struct anon_vma *av = anon_identity_alloc();

		if (!av)
			return -ENOMEM;
		vma_anon_link(cv, av);
		/*
		 * Its anon_vma_chain also links the parent's identities
		 * (anon_vma_clone before the new one): not singular, so the
		 * child's VMA is a fork child for merging (vma_is_fork_child).
		 */
		cv->anon_forked = true;
	}
	arch_mmu_walk(parent->mmu, pv->start, pv->end, dup_visit, &c);
	return c.err;
}

struct mm *mm_dup(struct mm *parent)
{
	struct mm *child = mm_create_backend(parent->index.ops);
	struct vma *pv;
	int err = 0;

	if (!child)
		return NULL;
	mmap_write_lock(parent);
	child->max_map_count = parent->max_map_count;
	child->mmap_base = parent->mmap_base;
	child->mmap_legacy_base = parent->mmap_legacy_base;
	child->start_brk = parent->start_brk;
	child->brk = parent->brk;
	child->start_stack = parent->start_stack;
	/* An exact copy of the VMA set: no merging while copying (dup_mmap never merges). */
	child->merge = false;
	mmap_write_lock(child);
	for (pv = vma_first(parent); pv && !err; pv = vma_next(parent, pv)) {
		if (pv->flags & VM_DONTCOPY)
			continue;
		err = dup_vma(parent, child, pv);
	}
	child->merge = parent->merge;
	mmap_write_unlock(child);
	mmap_write_unlock(parent);
	if (err) {
		mm_put(child);
		return NULL;
	}
	return child;
}
