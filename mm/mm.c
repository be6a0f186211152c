/*
 * Address spaces: creation, references, teardown and switching. Fork (Linux
 * dup_mmap) is mm/fork.c; the mmap_lock is mm/mmap_lock.c.
 *
 * Locking: see include/mm.h (lock order mmap_lock -> pt_lock -> shared
 * object lock -> pmm/slab).
 */
#include "internal.h"
#include "anon_vma.h"
#include "slab.h"
#include "arch.h"
#include "kerrno.h"
#include "kstring.h"
#include "printk.h"

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
		mmap_write_lock(mm);
		mm_vma_destroy(mm);
		mmap_write_unlock(mm);
		kmem_cache_free(mm_cachep, mm);
		return NULL;
	}
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

void mm_activate(struct mm *mm)
{
	arch_mmu_activate(mm ? mm->mmu : NULL);
}
