/*
 * Guard regions (Linux 6.13+ MADV_GUARD_INSTALL / MADV_GUARD_REMOVE, with
 * the VM_MAYBE_GUARD rules of Linux 6.18.y): a guard marker in the page
 * table makes every access to its page fault with SIGSEGV (SEGV_MAPERR),
 * without splitting the VMA. The markers live in the page tables only
 * (arch_mmu_set_guard, arch_mmu_walk_guards, include/arch_mmu.h), so:
 *  - installing zaps what is mapped in the range first (the data of a
 *    private page is gone, a shared page stays in its object), then puts a
 *    marker on every page; a private VMA gets an anon identity (Linux
 *    anon_vma_prepare, only when vma_is_anonymous: not for shared
 *    anonymous memory, which is shmem on Linux), which shows in merges;
 *  - markers survive MADV_DONTNEED, MADV_FREE, MADV_PAGEOUT, MADV_REMOVE
 *    and mprotect (their walks see only entries with a frame);
 *  - munmap drops them (mm_zap_piece, Linux's ZAP_FLAG_DROP_MARKER), mremap
 *    moves them with the pages, fork copies them (VM_MAYBE_GUARD is in
 *    VM_COPY_ON_FORK) unless the VMA is VM_WIPEONFORK (no page table is
 *    copied there) or VM_DONTCOPY;
 *  - a fault on a marker is refused (mm/fault.c), so are populate and
 *    kernel accesses (-EFAULT); mincore reports the page as not mapped (0,
 *    or for shared memory whether the object has the page).
 *
 * Linux's VM_MAYBE_GUARD VMA flag (sticky, ignored by merging, in
 * VM_COPY_ON_FORK) is not kept: nothing here depends on it, because fork
 * copies every VMA's page tables and the markers with them.
 *
 * Locking: mmap_lock held (read is enough); install and remove take pt_lock
 * themselves, the copy and clear helpers leave locking to their callers.
 */
#include "internal.h"
#include "kerrno.h"

/* is_valid_guard_vma: not on VM_SPECIAL mappings, nor (for install) VM_LOCKED ones. */
static bool guard_vma_ok(const struct vma *vma, bool allow_locked)
{
	unsigned long bad = VM_SPECIAL | (allow_locked ? 0 : VM_LOCKED);

	return !(vma->flags & bad);
}

int mm_guard_install(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end, struct tlb_batch *tlb)
{
	int err = 0;

	if (!guard_vma_ok(vma, false))
		return -EINVAL;
	mm_pt_lock(mm);                 /* vma_anon_prepare under the read lock needs it too */
	if (!vma->file && vma_anon_prepare(mm, vma)) {
		mm_pt_unlock(mm);
		return -ENOMEM;
	}
	mm->may_have_guards = true;
	mm_zap_range(mm, vma, start, end, tlb);
	for (uintptr_t va = start; va < end && !err; va += PAGE_SIZE)
		err = arch_mmu_set_guard(mm->mmu, va);
	mm_pt_unlock(mm);
	return err;
}

static enum mmu_action clear_guard_visit(void *ctx, uintptr_t va)
{
	(void)ctx;
	(void)va;
	return MMU_CLEAR;
}

unsigned long mm_guard_clear(struct mm *mm, uintptr_t start, uintptr_t end)
{
	if (!mm->may_have_guards)
		return 0;
	return arch_mmu_walk_guards(mm->mmu, start, end, clear_guard_visit, NULL);
}

int mm_guard_remove(struct mm *mm, struct vma *vma, uintptr_t start, uintptr_t end)
{
	if (!guard_vma_ok(vma, true))
		return -EINVAL;
	mm_pt_lock(mm);
	mm_guard_clear(mm, start, end);
	mm_pt_unlock(mm);
	return 0;
}

/* One page table's worth of address space: markers are collected per window, then set. */
#define GUARD_WINDOW (512UL << PAGE_SHIFT)

struct guard_window {
	uintptr_t base;               /* window start */
	uint64_t bits[512 / 64];      /* bit i: a marker at base + i pages */
};

static enum mmu_action collect_guard_visit(void *ctx, uintptr_t va)
{
	struct guard_window *w = ctx;
	unsigned i = (unsigned)((va - w->base) >> PAGE_SHIFT);

	w->bits[i / 64] |= 1ULL << (i % 64);
	return MMU_KEEP;
}

static enum mmu_action count_guard_visit(void *ctx, uintptr_t va)
{
	(void)ctx;
	(void)va;
	return MMU_KEEP;
}

int mm_guard_copy(struct mm *dst_mm, uintptr_t dst_start, struct mm *src_mm,
		  uintptr_t start, uintptr_t end)
{
	struct arch_mmu *dst = dst_mm->mmu, *src = src_mm->mmu;

	if (!src_mm->may_have_guards)
		return 0;
	dst_mm->may_have_guards = true;
	/* Most ranges have no marker: one walk says so. */
	if (!arch_mmu_walk_guards(src, start, end, count_guard_visit, NULL))
		return 0;
	for (uintptr_t va = start; va < end;) {
		struct guard_window w = { .base = ALIGN_DOWN(va, GUARD_WINDOW) };
		uintptr_t wend = MIN(w.base + GUARD_WINDOW, end);

		/* Collect first: dst may be src (mremap), whose tables must not change under the walk. */
		arch_mmu_walk_guards(src, va, wend, collect_guard_visit, &w);
		for (unsigned i = 0; i < 512; i++) {
			uintptr_t at = w.base + ((uintptr_t)i << PAGE_SHIFT);

			if ((w.bits[i / 64] >> (i % 64)) & 1) {
				int err = arch_mmu_set_guard(dst, dst_start + (at - start));

				if (err)
					return err;
			}
		}
		va = wend;
	}
	return 0;
}
