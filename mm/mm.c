/*
 * Address spaces: creation, references, teardown and switching. Fork (Linux
 * dup_mmap) is mm/fork.c; the mmap_lock is mm/mmap_lock.c.
 *
 * Locking: see include/mm.h (lock order mmap_lock -> pt_lock -> object
 * lock -> pmm/slab). mm_list_lock protects the list of address spaces and
 * is taken alone (never with another lock held).
 */
#include "internal.h"
#include "anon_vma.h"
#include "slab.h"
#include "arch.h"
#include "kerrno.h"
#include "kstring.h"
#include "printk.h"

static struct kmem_cache *mm_cachep;
/* Every address space mm_create made, for truncation's walk (mm/truncate.c). */
static struct list_head mm_list = LIST_HEAD_INIT(mm_list);
static struct spinlock mm_list_lock = SPINLOCK_INIT("mm_list");

struct mm *mm_create_backend(const struct vma_index_ops *backend)
{
	unsigned long fl;
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
		mmap_write_lock(mm);
		mm_vma_destroy(mm);
		mmap_write_unlock(mm);
		kmem_cache_free(mm_cachep, mm);
		return NULL;
	}
	spin_init(&mm->pt_lock, "pt_lock");
	mm->users = 1;
	fl = spin_lock_irqsave(&mm_list_lock);
	list_add_tail(&mm->mmlist, &mm_list);
	spin_unlock_irqrestore(&mm_list_lock, fl);
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
	unsigned long fl = spin_lock_irqsave(&mm_list_lock);
	struct vma *v;

	list_del(&mm->mmlist);
	spin_unlock_irqrestore(&mm_list_lock, fl);
	mmap_write_lock(mm);
	for (v = vma_first(mm); v; v = vma_next(mm, v))
		mm_zap_piece(mm, v, NULL);
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

/* A reference to mm unless it is being torn down (users already 0). */
static bool mm_get_not_zero(struct mm *mm)
{
	int u = __atomic_load_n(&mm->users, __ATOMIC_RELAXED);

	while (u > 0)
		if (__atomic_compare_exchange_n(&mm->users, &u, u + 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

struct mm *mm_list_next(struct mm *prev)
{
	struct list_head *pos;
	struct mm *next = NULL;
	unsigned long fl = spin_lock_irqsave(&mm_list_lock);

	/* prev is referenced, so still listed: its link leads on. */
	for (pos = prev ? prev->mmlist.next : mm_list.next; pos != &mm_list; pos = pos->next) {
		struct mm *m = list_entry(pos, struct mm, mmlist);

		if (mm_get_not_zero(m)) {
			next = m;
			break;
		}
	}
	spin_unlock_irqrestore(&mm_list_lock, fl);
	if (prev)
		mm_put(prev);
	return next;
}

void mm_activate(struct mm *mm)
{
	arch_mmu_activate(mm ? mm->mmu : NULL);
}
