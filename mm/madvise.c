/*
 * madvise (Linux 6.18 do_madvise / madvise_walk_vmas / madvise_vma_behavior):
 * DONTNEED zaps, FREE marks private anonymous pages lazily freeable,
 * REMOVE punches holes in files (shared anonymous memory included),
 * POPULATE_* faults in, GUARD_INSTALL and GUARD_REMOVE set and clear guard
 * markers (mm/guard.c), PAGEOUT reclaims at once what reclaim can take
 * without swap (clean lazily freed private pages, file pages never
 * written), the flag advices go through vma_modify_flags, WILLNEED/COLD
 * have nothing to do without swap. mm_reclaim_lazyfree_range is the
 * reclaim side of MADV_FREE (mm/vmscan.c drives it under pressure).
 *
 * The advices Linux 6.18 knows are those of a kernel built with KSM and
 * transparent huge pages, without CONFIG_MEMORY_FAILURE (MADV_HWPOISON and
 * MADV_SOFT_OFFLINE are -EINVAL, as on the reference host).
 * MADV_HUGEPAGE/NOHUGEPAGE set their VMA flags (the fault reads them,
 * mm/thp.c), and MADV_COLLAPSE makes huge pages of each VMA's part
 * (mm/collapse.c; -EINVAL where no VMA may hold one, as the mmscript
 * runner's processes, which disable THP), after the usual hole handling.
 * MADV_MERGEABLE sets VM_MERGEABLE only where KSM could merge (ksm_madvise:
 * not on shared or special mappings, which keep their flags and answer 0).
 *
 * Locking (Linux madvise_need_mmap_write): the advices that only act on
 * pages - DONTNEED, FREE, REMOVE, WILLNEED, COLD, PAGEOUT, GUARD_* - take mm's
 * mmap_lock for reading, plus pt_lock around each page-table walk, so
 * threads freeing memory do not serialize on the address space (Nick
 * Piggin's 2007 change for MADV_DONTNEED). The flag-setting advices change
 * VMAs and take it for writing; POPULATE_* take it for reading and drop it
 * around each fault.
 */
#include "internal.h"
#include "kerrno.h"
#include "lru.h"

/*
 * What each advice Linux 6.18 knows is (madvise_behavior_valid,
 * madvise_need_mmap_write and madvise_vma_behavior's flag part): an advice
 * either acts on pages (advise_pages below, with the mmap_lock for reading)
 * or sets and clears VMA flags (vma_modify_flags, the lock for writing).
 * An advice that is not here is -EINVAL.
 */
struct advice {
	int advice;
	bool pages;                     /* acts on pages, not on VMA flags */
	bool lock_knob;                 /* pages, but for writing under madv_lock=write (2007) */
	bool pages_write;               /* pages, always for writing (collapse_huge_page) */
	unsigned long set, clear;       /* VMA flags it sets, clears */
	unsigned long keep_if;          /* a VMA with any of these keeps its flags (0, no error) */
	unsigned long einval_if;        /* a VMA with any of these: -EINVAL */
	bool einval_file;               /* a file mapping: -EINVAL */
};

static const struct advice advices[] = {
	{ .advice = MADV_NORMAL, .clear = VM_RAND_READ | VM_SEQ_READ },
	{ .advice = MADV_SEQUENTIAL, .set = VM_SEQ_READ, .clear = VM_RAND_READ },
	{ .advice = MADV_RANDOM, .set = VM_RAND_READ, .clear = VM_SEQ_READ },
	{ .advice = MADV_DONTFORK, .set = VM_DONTCOPY },
	{ .advice = MADV_DOFORK, .clear = VM_DONTCOPY },
	{ .advice = MADV_WIPEONFORK, .set = VM_WIPEONFORK, .einval_if = VM_SHARED, .einval_file = true },
	{ .advice = MADV_KEEPONFORK, .clear = VM_WIPEONFORK },
	{ .advice = MADV_DONTDUMP, .set = VM_DONTDUMP },
	{ .advice = MADV_DODUMP, .clear = VM_DONTDUMP, .einval_if = VM_SPECIAL },
	/* vma_ksm_compatible: other mappings keep their flags, and the advice succeeds. */
	{ .advice = MADV_MERGEABLE, .set = VM_MERGEABLE,
	  .keep_if = VM_SHARED | VM_MAYSHARE | VM_SPECIAL },
	{ .advice = MADV_UNMERGEABLE, .clear = VM_MERGEABLE },
	{ .advice = MADV_HUGEPAGE, .set = VM_HUGEPAGE, .clear = VM_NOHUGEPAGE },
	{ .advice = MADV_NOHUGEPAGE, .set = VM_NOHUGEPAGE, .clear = VM_HUGEPAGE },
	{ .advice = MADV_DONTNEED, .pages = true, .lock_knob = true },
	{ .advice = MADV_DONTNEED_LOCKED, .pages = true, .lock_knob = true },
	{ .advice = MADV_FREE, .pages = true, .lock_knob = true },
	{ .advice = MADV_REMOVE, .pages = true },
	{ .advice = MADV_WILLNEED, .pages = true },
	{ .advice = MADV_COLD, .pages = true },
	{ .advice = MADV_PAGEOUT, .pages = true },
	{ .advice = MADV_POPULATE_READ, .pages = true },
	{ .advice = MADV_POPULATE_WRITE, .pages = true },
	{ .advice = MADV_COLLAPSE, .pages = true, .pages_write = true },
	{ .advice = MADV_GUARD_INSTALL, .pages = true },
	{ .advice = MADV_GUARD_REMOVE, .pages = true },
};

/* The properties of advice, NULL when Linux does not know it. */
static const struct advice *advice_find(int advice)
{
	for (size_t i = 0; i < ARRAY_SIZE(advices); i++)
		if (advices[i].advice == advice)
			return &advices[i];
	return NULL;
}

/* The flags a flag advice gives vma, or -EINVAL (madvise_vma_behavior's flag part). */
static long advice_flags(const struct vma *vma, const struct advice *a)
{
	unsigned long f = vma->flags;

	if ((f & a->einval_if) || (a->einval_file && vma->file))
		return -EINVAL;
	if (f & a->keep_if)
		return f;
	return (f & ~a->clear) | a->set;
}

/* LAB madvise: BEGIN free_visit */
/* MADV_FREE: exclusively owned private pages become lazily freeable and clean. */
static enum mmu_action free_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct page *p;

	if (mm_is_zero_pa(pa))
		return MMU_KEEP;
	p = phys_to_page(pa);
	if (page_refs(p) != 1 || p->mapcount != 1)
		return MMU_KEEP;
	page_set_lazyfree(p);
	p->flags &= ~PG_dirty;
	*state &= ~(MMU_DIRTY | MMU_ACCESSED);
	return MMU_UPDATE;
}
/* LAB madvise: END free_visit */

bool mm_madv_write_lock;

/* Does the advice take the mmap_lock for writing? */
static bool advice_needs_write_lock(const struct advice *a)
{
	if (a->lock_knob)
		return mm_madv_write_lock;  /* madv_lock=write: the 2007 vanilla kernel */
	return !a->pages || a->pages_write;
}

/*
 * MADV_REMOVE: punch [start, end) out of a writable shared mapping's file
 * (Linux: fallocate PUNCH_HOLE), which takes the pages out of every
 * mapping of it, each address space with a TLB batch of its own
 * (mm/truncate.c): the mmap_lock is dropped meanwhile, as Linux drops it,
 * so the caller looks its VMAs up again afterwards. tlb is flushed first
 * (it is not used across the unlock).
 */
static int madvise_remove(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end,
			  struct tlb_batch *tlb)
{
	struct vm_file *f = vma->file;
	unsigned long pgoff = vma_pgoff_at(vma, start);

	if (vma->flags & VM_LOCKED)
		return -EINVAL;
	if (!f)
		return -EINVAL;
	if (!(vma->flags & VM_SHARED) || !(vma->flags & VM_MAYWRITE))
		return -EACCES;
	mm_tlb_finish(tlb);
	f->ops->get(f);
	mmap_read_unlock(mm);
	vm_object_punch(f->obj, pgoff, (end - start) >> PAGE_SHIFT);   /* vma may change meanwhile */
	f->ops->put(f);
	mmap_read_lock(mm);
	return 0;
}

/* ---------------------------------------------------- reclaim, pageout */

/* LAB madvise: BEGIN reclaim */
/*
 * A lazily freed page still clean (its PTE's dirty bit is clear: no write
 * since MADV_FREE) and mapped only here is dropped; one written since is
 * an ordinary page again (Linux: the dirty folio goes back to the
 * swap-backed LRU). Reclaim proper gives a page read since MADV_FREE or
 * since its last scan a second chance (the clock algorithm: the accessed
 * bit is cleared and the page kept; Linux folio_check_references keeps a
 * referenced lazyfree folio on its first pass). MADV_PAGEOUT ignores
 * references and skips a page mapped elsewhere too (after fork) without
 * touching it (madvise_cold_or_pageout_pte_range: a folio mapped more than
 * once is not isolated); reclaim proper un-marks it.
 */
static enum mmu_action reclaim_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct reclaim_scan *rs = arg;
	struct page *p;
	bool exclusive;

	if (mm_is_zero_pa(pa) || rs->freed >= rs->want)
		return MMU_KEEP;
	p = phys_to_page(pa);
	if (!(p->flags & PG_anon) || !(p->flags & PG_lazyfree))
		return MMU_KEEP;
	rs->scanned++;
	exclusive = page_refs(p) == 1 && p->mapcount == 1;
	if (rs->pageout && !exclusive)
		return MMU_KEEP;
	if ((*state & MMU_DIRTY) || (p->flags & PG_dirty) || !exclusive) {
		page_clear_lazyfree(p);
		return MMU_KEEP;
	}
	if (!rs->pageout && (*state & MMU_ACCESSED)) {
		*state &= ~MMU_ACCESSED;
		return MMU_UPDATE;
	}
	mm_unmap_page(rs->mm, p, false, rs->tlb);
	reclaim_freed(rs, 1);
	count_vm_event(VM_PGLAZYFREED);         /* now, before anyone can read the page back as zero */
	return MMU_CLEAR;
}

void mm_reclaim_lazyfree_range(struct reclaim_scan *rs, uintptr_t start, uintptr_t end)
{
	arch_mmu_walk(rs->mm->mmu, start, end, reclaim_visit, rs, rs->tlb);
}
/* LAB madvise: END reclaim */

/* File pages MADV_PAGEOUT unmaps, then writes to swap, at a time (and address space walked per piece). */
#define PAGEOUT_FILE_BATCH 32

struct pageout_file_ctx {
	struct mm *mm;
	const struct vma *vma;
	struct tlb_batch *tlb;
	bool may_swap;                          /* a swap area with free slots */
	unsigned n;
	struct page *kept[PAGEOUT_FILE_BATCH];  /* unmapped, still in the cache: a reference each */
};

/*
 * MADV_PAGEOUT of a file's page (shared anonymous memory included) mapped
 * only here, in a shared or a private mapping: reclaim unmaps it
 * (try_to_unmap, which moves the PTE's dirty bit to the page). A page
 * never written (clean: it holds what the file held) then leaves the cache
 * as well (__remove_mapping), so mincore says 0. A dirty one goes to swap
 * when there is an area with room (shmem_writeout): kept[] takes it, with
 * a reference, for pageout_file_range to write once the entries are
 * flushed; without swap it stays in the cache. A private copy (an
 * anonymous page) is left to mm_pageout_swap, as in anonymous memory.
 * The PTE's reference waits in the batch (mm_unmap_page), so a page that
 * leaves the cache here is freed only after every CPU has flushed the
 * entry.
 */
static enum mmu_action pageout_file_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct pageout_file_ctx *c = arg;
	struct page *p;

	if (mm_is_zero_pa(pa) || c->n == PAGEOUT_FILE_BATCH)
		return MMU_KEEP;
	p = phys_to_page(pa);
	if (!(p->flags & PG_cache) || p->mapcount != 1)
		return MMU_KEEP;
	mm_unmap_pte_page(c->mm, p, *state, c->tlb);
	if (!vm_object_drop_clean(vma_object(c->vma), vma_pgoff_at(c->vma, va), p, 1) && c->may_swap) {
		user_page_get(p);
		c->kept[c->n++] = p;
	}
	return MMU_CLEAR;
}

/*
 * MADV_PAGEOUT of [start, end) of a file's VMA (Linux's reclaim_pages on
 * the folios it isolated): pageout_file_visit over each used piece of
 * PAGEOUT_FILE_BATCH pages; the pages it kept go to shmem_reclaim_pages
 * after tlb's flush has put their entries' references, so that only the
 * cache's and ours are left (it writes a page held by anyone else, a
 * read() copying it, not at all). pt_lock is not held across the writes.
 */
static void pageout_file_range(struct mm *mm, const struct vma *vma, uintptr_t start, uintptr_t end,
			       struct tlb_batch *tlb)
{
	struct pageout_file_ctx c = { .mm = mm, .vma = vma, .tlb = tlb, .may_swap = swap_free_pages() > 0 };
	struct reclaim_scan rs = { .mm = mm, .want = ~0UL, .may_swap = true };
	uintptr_t a = start;

	mm_pt_lock(mm);
	while ((a = arch_mmu_next_used(mm->mmu, a, end)) < end) {
		uintptr_t stop = MIN(a + PAGEOUT_FILE_BATCH * PAGE_SIZE, end);

		c.n = 0;
		arch_mmu_walk(mm->mmu, a, stop, pageout_file_visit, &c, tlb);
		a = stop;
		if (!c.n)
			continue;
		mm_pt_unlock(mm);
		mm_tlb_finish(tlb);
		shmem_reclaim_pages(c.kept, c.n, &rs);  /* takes our references */
		mm_pt_lock(mm);
	}
	mm_pt_unlock(mm);
}

/*
 * MADV_COLD of a page (madvise_cold_or_pageout_pte_range without pageout):
 * one mapped only here loses its accessed bit and goes to the inactive
 * list (folio_deactivate; include/lru.h), so that reclaim takes it before
 * the pages in use and the clock gives it no second chance. A page mapped
 * elsewhere too is left alone.
 */
static enum mmu_action cold_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	struct page *p;

	(void)arg;
	(void)va;
	if (mm_is_zero_pa(pa))
		return MMU_KEEP;
	p = phys_to_page(pa);
	if (p->mapcount != 1)
		return MMU_KEEP;
	lru_deactivate(p);
	if (!(*state & MMU_ACCESSED))
		return MMU_KEEP;
	*state &= ~MMU_ACCESSED;
	return MMU_UPDATE;
}

/*
 * MADV_COLD and MADV_PAGEOUT (can_madv_lru_vma: not on VM_LOCKED VMAs).
 * PAGEOUT drops what needs no writing out: clean lazily freed private
 * pages, and file pages never written (see the visitors above); with a
 * swap area, the other private anonymous pages only this entry maps
 * (mm_pageout_swap: in a private mapping of a file too, its copies, as
 * Linux's madvise_pageout allows there) and the dirty file pages only it
 * maps (pageout_file_range) are written to swap. COLD ages the pages
 * (cold_visit).
 */
static int madvise_cold_pageout(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end,
				bool pageout, struct tlb_batch *tlb)
{
	if (vma->flags & VM_LOCKED)
		return -EINVAL;
	if (!pageout) {
		mm_pt_lock(mm);
		arch_mmu_walk(mm->mmu, start, end, cold_visit, NULL, tlb);
		mm_pt_unlock(mm);
	} else if (vma->file) {
		pageout_file_range(mm, vma, start, end, tlb);
		if (!(vma->flags & VM_SHARED))
			mm_pageout_swap(mm, start, end);        /* the private copies, as anonymous memory */
	} else {
		struct reclaim_scan rs = { .mm = mm, .tlb = tlb, .pageout = true, .want = ~0UL };

		mm_pt_lock(mm);
		mm_reclaim_lazyfree_range(&rs, start, end);
		mm_pt_unlock(mm);
		mm_pageout_swap(mm, start, end);        /* with a swap area: the other pages go there */
	}
	return 0;
}

/*
 * MADV_WILLNEED (madvise_willneed): in private anonymous memory, the
 * swapped pages are read back (mm/swap_pte.c); in a mapping of a file
 * (every file here is shared memory: tmpfs, memfd, MAP_SHARED anonymous
 * memory), the file's pages of the range that are in swap
 * (vm_object_willneed, Linux's shmem_swapin_range; a private mapping's
 * own copies are not read, as on Linux). Nothing is mapped. Linux returns
 * 0 whatever could be read.
 */
static int madvise_willneed(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end)
{
	if (!vma->file)
		mm_swap_willneed(mm, vma, start, end);
	else if (vma->file->obj)
		vm_object_willneed(vma->file->obj, vma->pgoff + ((start - vma->start) >> PAGE_SHIFT),
				   vma->pgoff + ((end - vma->start) >> PAGE_SHIFT));
	return 0;
}

/* LAB madvise: BEGIN advise_pages */
/* Zap [start, end) of vma under pt_lock (the mmap_lock may be held only for reading). */
static void zap_pt_locked(struct mm *mm, const struct vma *vma, uintptr_t start, uintptr_t end,
			  struct tlb_batch *tlb)
{
	mm_pt_lock(mm);
	mm_zap_range(mm, vma, start, end, tlb);
	mm_pt_unlock(mm);
}

/* MADV_FREE (madvise_free_single_vma): only private anonymous memory; the entries it cleans go into tlb. */
static int madvise_free(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end,
			struct tlb_batch *tlb)
{
	if (vma->flags & VM_LOCKED)
		return -EINVAL;
	if (vma->file)
		return -EINVAL;       /* only anonymous private memory */
	mm_pt_lock(mm);
	arch_mmu_walk(mm->mmu, start, end, free_visit, NULL, tlb);
	mm_swap_clear(mm, start, end, true);    /* madvise_free_pte_range frees swapped pages */
	mm_pt_unlock(mm);
	return 0;
}

/* The advices that act on pages only (mmap_lock read), for one VMA's part [start, end). */
static int advise_pages(struct mm *mm, struct vma *vma, struct vma **prev, uintptr_t start,
			uintptr_t end, int advice, struct tlb_batch *tlb)
{
	*prev = vma;
	switch (advice) {
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:
		if ((vma->flags & VM_LOCKED) && advice == MADV_DONTNEED)
			return -EINVAL;
		zap_pt_locked(mm, vma, start, end, tlb);
		return 0;
	case MADV_FREE:
		return madvise_free(mm, vma, start, end, tlb);
	case MADV_REMOVE:
		*prev = NULL;
		return madvise_remove(mm, vma, start, end, tlb);
	case MADV_WILLNEED:
		return madvise_willneed(mm, vma, start, end);
	case MADV_COLD:
	case MADV_PAGEOUT:
		return madvise_cold_pageout(mm, vma, start, end, advice == MADV_PAGEOUT, tlb);
	case MADV_GUARD_INSTALL:
		return mm_guard_install(mm, vma, start, end, tlb);
	case MADV_GUARD_REMOVE:
		return mm_guard_remove(mm, vma, start, end);
	default:                          /* none left (advise_vma does MADV_COLLAPSE) */
		return -EINVAL;
	}
}
/* LAB madvise: END advise_pages */

/*
 * After a DONTNEED of [start, end): the page tables whose whole 2 MiB the
 * range covers and that it left empty go (Linux 6.14's PT_RECLAIM; a guard
 * marker keeps its table). Tables above them stay, as on Linux.
 */
static void dontneed_free_tables(struct mm *mm, uintptr_t start, uintptr_t end, struct tlb_batch *tlb)
{
	mm_pt_lock(mm);
	arch_mmu_free_tables(mm->mmu, start, end, start, end, 1, tlb);
	mm_pt_unlock(mm);
}

/* One VMA's part [start, end) (madvise_vma_behavior). *prev = the VMA now covering it. */
static int advise_vma(struct mm *mm, struct vma *vma, struct vma **prev, uintptr_t start,
		      uintptr_t end, const struct advice *a, struct tlb_batch *tlb)
{
	long nf;
	struct vma *out;
	int err;

	if (a->advice == MADV_COLLAPSE) {
		*prev = vma;
		return thp_collapse(mm, vma, start, end, tlb);
	}
	if (a->pages) {
		err = advise_pages(mm, vma, prev, start, end, a->advice, tlb);
		if (!err && (a->advice == MADV_DONTNEED || a->advice == MADV_DONTNEED_LOCKED))
			dontneed_free_tables(mm, start, end, tlb);
		return err;
	}
	nf = advice_flags(vma, a);
	if (nf < 0)
		return (int)nf;
	if ((unsigned long)nf == vma->flags) {
		*prev = vma;
		return 0;
	}
	err = vma_modify_flags(mm, vma, *prev, start, end, (unsigned long)nf, &out);
	if (err)
		return err;
	*prev = out;
	return 0;
}

/*
 * madvise_walk_vmas: advise every VMA's part of [start, end), with the
 * mmap_lock held as the advice needs and TLB changes into tlb. 0, the
 * first error, or -ENOMEM when there were holes (after the rest was done).
 */
static int madvise_walk_vmas(struct mm *mm, uintptr_t start, uintptr_t end,
			     const struct advice *a, struct tlb_batch *tlb)
{
	struct vma *prev, *vma = vma_find_prev(mm, start, &prev);
	int unmapped_error = 0, err = 0;

	if (vma && start > vma->start)
		prev = vma;
	for (;;) {
		uintptr_t tmp;

		if (!vma)
			return -ENOMEM;
		if (start < vma->start) {
			unmapped_error = -ENOMEM;
			start = vma->start;
			if (start >= end)
				break;
		}
		tmp = MIN(vma->end, end);
		err = advise_vma(mm, vma, &prev, start, tmp, a, tlb);
		if (err)
			return err;
		start = tmp;
		if (prev && start < prev->end)
			start = prev->end;
		if (start >= end)
			break;
		vma = prev ? vma_find(mm, prev->end) : vma_find(mm, start);
	}
	return unmapped_error;
}

int vm_madvise(struct mm *mm, uintptr_t start, size_t len_in, int advice)
{
	const struct advice *a = advice_find(advice);
	struct tlb_batch tlb;
	uintptr_t end, len;
	bool write;
	int err;

	if (!a)
		return -EINVAL;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	len = ALIGN_UP(len_in, PAGE_SIZE);
	if (len_in && !len)
		return -EINVAL;
	end = start + len;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	if (advice == MADV_POPULATE_READ || advice == MADV_POPULATE_WRITE)
		return mm_populate_strict(mm, start, end, advice == MADV_POPULATE_WRITE);
	write = advice_needs_write_lock(a);
	if (write) {
		mmap_write_lock(mm);
		vma_write_lock_range(mm, start, end);
	} else {
		mmap_read_lock(mm);
	}
	mm_tlb_init(&tlb, mm, false);
	err = madvise_walk_vmas(mm, start, end, a, &tlb);
	mm_tlb_finish(&tlb);            /* one flush for the whole range */
	if (write)
		mmap_write_unlock(mm);
	else
		mmap_read_unlock(mm);
	return err;
}
