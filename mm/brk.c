/*
 * brk (Linux mm/mmap.c SYSCALL_DEFINE1(brk) + do_brk_flags): the heap is
 * [start_brk, brk) rounded up to pages, one VMA that only ever expands at
 * its end (it merges only with the heap VMA itself, never with a mapping
 * that happens to end at the break).
 *
 * Locking: takes mm's mmap_lock for writing.
 */
#include "internal.h"
#include "kerrno.h"

/* VM_DATA_DEFAULT_FLAGS (x86-64, no READ_IMPLIES_EXEC) | VM_ACCOUNT. */
#define BRK_VM_FLAGS (VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC | VM_ACCOUNT)

/* vm_start_gap: a growsdown VMA keeps STACK_GUARD_GAP free below it. */
static uintptr_t start_gap(const struct vma *v)
{
	if (!(v->flags & VM_GROWSDOWN))
		return v->start;
	return v->start > STACK_GUARD_GAP ? v->start - STACK_GUARD_GAP : 0;
}

/* do_brk_flags for [addr, addr + len): expand the heap VMA ending at addr, else a new VMA. */
static int brk_map(struct mm *mm, uintptr_t addr, uintptr_t len)
{
	struct vma *prev = NULL, *v;
	bool merge = mm->merge;
	int err;

	/* check_brk_limits: get_unmapped_area(MAP_FIXED) */
	if (len > TASK_SIZE || addr > TASK_SIZE - len)
		return -ENOMEM;
	vma_find_prev(mm, addr, &prev);
	/* brkvma = vma_prev_limit(start_brk): only the heap itself may be expanded. */
	if (!prev || prev->end != addr || prev->end <= mm->start_brk)
		mm->merge = false;
	err = vma_map_new_range(mm, addr, addr + len, BRK_VM_FLAGS, NULL, addr >> PAGE_SHIFT, &v);
	mm->merge = merge;
	if (!err)
		v->flags |= VM_SOFTDIRTY;
	return err;
}

long vm_brk(struct mm *mm, uintptr_t brk)
{
	uintptr_t origbrk, newbrk, oldbrk;
	struct vma *next;
	long ret;

	mmap_write_lock(mm);
	origbrk = mm->brk;
	ret = (long)origbrk;
	if (brk < mm->start_brk || brk > TASK_SIZE)
		goto out;
	newbrk = ALIGN_UP(brk, PAGE_SIZE);
	oldbrk = ALIGN_UP(mm->brk, PAGE_SIZE);
	vma_write_lock_range(mm, MIN(newbrk, oldbrk), MAX(newbrk, oldbrk));
	if (oldbrk == newbrk) {
		mm->brk = brk;
		ret = (long)brk;
		goto out;
	}
	if (brk <= mm->brk) {
		/*
		 * Shrink: unmap [newbrk, oldbrk). Linux refuses when nothing is
		 * mapped there (vma_find(newbrk, oldbrk) finds no VMA: the heap
		 * was unmapped from under the break), returning the old break.
		 */
		next = vma_find(mm, newbrk);
		if (!next || next->start >= oldbrk)
			goto out;
		mm->brk = brk;
		if (mm_unmap_range(mm, newbrk, oldbrk)) {
			mm->brk = origbrk;
			goto out;
		}
		ret = (long)brk;
		goto out;
	}
	/* Grow: the new heap end plus a page must stay below the next mapping's start gap. */
	next = vma_find(mm, oldbrk);
	if (next && next->start < newbrk + PAGE_SIZE + STACK_GUARD_GAP &&
	    newbrk + PAGE_SIZE > start_gap(next))
		goto out;
	if (brk_map(mm, oldbrk, newbrk - oldbrk))
		goto out;
	mm->brk = brk;
	ret = (long)brk;
out:
	mmap_write_unlock(mm);
	return ret;
}
