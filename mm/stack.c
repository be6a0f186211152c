/*
 * Stack growth (Linux's expand_downwards and acct_stack_growth): a fault
 * just below a VM_GROWSDOWN VMA (a stack: the one exec makes, or any
 * MAP_GROWSDOWN mapping) moves the VMA's start down to the faulting page
 * instead of failing, within three limits, checked in Linux's order: it
 * never reaches below mmap_min_addr, it keeps stack_guard_gap
 * (STACK_GUARD_GAP: 1 MiB, 256 pages) from an accessible VMA below that
 * is not a stack itself, and its size stays within RLIMIT_STACK
 * (STACK_RLIMIT_DEFAULT: 8 MiB, Linux's default). The fault path (mm/fault.c, lock_mm_and_find_vma) calls
 * it under the mmap_lock for writing, then faults the page in as any
 * other page of the VMA.
 *
 * Locking: mmap_lock write (the VMA's start changes in the index).
 */
#include "internal.h"
#include "kerrno.h"

/* LAB lazy: BEGIN expand_stack */
int expand_stack_locked(struct mm *mm, uintptr_t addr)
{
	uintptr_t new_start = ALIGN_DOWN(addr, PAGE_SIZE);
	struct vma *prev, *vma = vma_find_prev(mm, addr, &prev);
	int err;

	if (!vma || !(vma->flags & VM_GROWSDOWN))
		return -EFAULT;
	if (vma->start <= addr)
		return 0;
	if (new_start < MMAP_MIN_ADDR)
		return -EPERM;
	/* stack_guard_gap: an accessible, non-growsdown neighbour keeps its distance. */
	if (prev && !(prev->flags & VM_GROWSDOWN) && (prev->flags & VM_ACCESS_FLAGS) &&
	    new_start - prev->end < STACK_GUARD_GAP)
		return -ENOMEM;
	/* acct_stack_growth: the size after growing within RLIMIT_STACK */
	if (vma->end - new_start > STACK_RLIMIT_DEFAULT)
		return -ENOMEM;
	err = vma_expand_start(mm, vma, new_start);
	if (!err)
		mm_count(&mm->stack_grows, 1);
	return err;
}
/* LAB lazy: END expand_stack */
