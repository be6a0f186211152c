/*
 * What a VMA's pages use, for /proc/PID/smaps (include/mm.h struct
 * vm_usage; Linux fs/proc/task_mmu.c smaps_pte_entry, smaps_account,
 * smaps_page_accumulate). Each present entry of a normal page counts
 * in Rss, and as private when one entry maps the page (mapcount < 2),
 * else as shared with 1/mapcount of it in Pss; dirty when the entry's
 * dirty bit or the page's is set; referenced when the accessed bit is;
 * anonymous for private anonymous pages (COW copies in file mappings
 * too), lazily free when such a page is MADV_FREE'd and still clean.
 * Each swap entry counts a page of Swap, and 1/(slot references) of one
 * in SwapPss; so does each page of a file (tmpfs, memfd, shared
 * anonymous) that the VMA maps and that is in swap, in Swap only. Locked
 * is the Pss of a VM_LOCKED VMA.
 *
 * Locking: the caller holds the mmap_lock (read); the walks run under
 * pt_lock and change nothing.
 */
#include "internal.h"
#include "swap.h"
#include "kerrno.h"
#include "lockless.h"

struct usage_walk {
	struct vm_usage *u;
	bool locked;                  /* the VMA is VM_LOCKED */
};

static enum mmu_action usage_page_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct usage_walk *w = arg;
	struct vm_usage *u = w->u;
	struct page *p;
	int32_t maps;
	uint64_t pss = (uint64_t)PAGE_SIZE << VM_PSS_SHIFT;
	bool dirty, private;

	(void)va;
	if (mm_is_zero_pa(pa))
		return MMU_KEEP;
	p = phys_to_page(pa);
	if (!p)
		return MMU_KEEP;
	maps = page_total_mapcount(p);
	dirty = (*state & MMU_DIRTY) || (READ_ONCE(p->flags) & PG_dirty);
	private = maps < 2;
	if (!private)
		pss /= (uint64_t)maps;
	u->resident += PAGE_SIZE;
	if (*state & MMU_ACCESSED)
		u->referenced += PAGE_SIZE;
	if (p->flags & PG_anon) {
		u->anonymous += PAGE_SIZE;
		if ((p->flags & PG_lazyfree) && !dirty)
			u->lazyfree += PAGE_SIZE;
		u->pss_anon += pss;
	} else if (p->flags & PG_cache) {
		/* Every cached page here is memory-backed (tmpfs, memfd, shared anonymous): Linux's shmem. */
		u->pss_shmem += pss;
	} else {
		u->pss_file += pss;
	}
	u->pss += pss;
	if (w->locked)
		u->pss_locked += pss;
	if (dirty) {
		u->pss_dirty += pss;
		*(private ? &u->private_dirty : &u->shared_dirty) += PAGE_SIZE;
	} else {
		*(private ? &u->private_clean : &u->shared_clean) += PAGE_SIZE;
	}
	return MMU_KEEP;
}

/* A 2 MiB leaf: its 512 frames as 4 KiB entries would count, and AnonHugePages. */
static enum mmu_action usage_huge_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct usage_walk *w = arg;

	huge_visit_frames(usage_page_visit, arg, va, pa, *state);
	if (!mm_is_zero_pa(pa))         /* the huge zero page counts nowhere (Linux's smaps_pmd_entry) */
		w->u->anon_huge += HUGE_SIZE;
	return MMU_KEEP;
}

static enum mmu_action usage_swap_visit(void *arg, uintptr_t va, unsigned long val)
{
	struct usage_walk *w = arg;
	swp_entry_t e = { val };
	int refs = swap_slot_count(e) - (swap_cache_has(e) ? 1 : 0);   /* Linux's swp_swapcount: entries only */
	uint64_t pss = (uint64_t)PAGE_SIZE << VM_PSS_SHIFT;

	(void)va;
	w->u->swap += PAGE_SIZE;
	w->u->swap_pss += refs >= 2 ? pss / (uint64_t)refs : pss;
	return MMU_KEEP;
}

/*
 * The object's pages that v maps and that are in swap (Linux's
 * shmem_swap_usage, smaps_pte_hole): all of them in v's range when v is
 * shared or read-only; in a private writable mapping only where no entry
 * is (a private copy hides the object's page). No SwapPss: Linux adds
 * none for them. pt_lock held when private.
 */
static unsigned long object_swap_usage(struct mm *mm, const struct vma *v)
{
	struct vm_object *o = vma_object(v);
	unsigned long n = 0;

	if (!o || !READ_ONCE(o->nrswapped))     /* without o->lock: races with swap-out and swap-in */
		return 0;
	if ((v->flags & VM_SHARED) || !(v->flags & VM_WRITE))
		return vm_object_swapped(o, v->pgoff, v->pgoff + vma_pages(v));
	for (uintptr_t va = v->start; va < v->end; va += PAGE_SIZE) {
		uintptr_t used = arch_mmu_next_used(mm->mmu, va, v->end);

		if (used > va) {        /* no table over [va, used): the object's pages show through */
			unsigned long first = vma_pgoff_at(v, va);

			n += vm_object_swapped(o, first, first + ((used - va) >> PAGE_SHIFT));
			if ((va = used) >= v->end)
				break;
		}
		if (arch_mmu_query(mm->mmu, va, NULL, NULL) == -ENOENT)
			n += vm_object_swapped(o, vma_pgoff_at(v, va), vma_pgoff_at(v, va) + 1);
	}
	return n;
}

void vm_usage_add(struct mm *mm, const struct vma *v, struct vm_usage *u)
{
	struct usage_walk w = { u, (v->flags & VM_LOCKED) != 0 };

	mm_pt_lock(mm);
	arch_mmu_walk_huge(mm->mmu, v->start, v->end, usage_huge_visit, usage_page_visit, &w, NULL);
	if (READ_ONCE(mm->swap_ents))
		arch_mmu_walk_swap(mm->mmu, v->start, v->end, usage_swap_visit, &w);
	u->swap += object_swap_usage(mm, v) * PAGE_SIZE;
	mm_pt_unlock(mm);
}
