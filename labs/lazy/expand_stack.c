/*
 * LAB lazy: the stack VMA above addr grows down to addr's page whenever
 * its size stays within RLIMIT_STACK (STACK_RLIMIT_DEFAULT), whatever
 * lies below it. Give it Linux's other limits (docs/labs/lazy.md, Part
 * B): nothing grows below MMAP_MIN_ADDR, and a VMA below the stack that
 * is accessible and no stack itself keeps STACK_GUARD_GAP of free space
 * above it, each with the errno the contract in mm/internal.h names and
 * in Linux's order; and count each growth in mm->stack_grows.
 */
int expand_stack_locked(struct mm *mm, uintptr_t addr)
{
	struct vma *prev, *vma = vma_find_prev(mm, addr, &prev);

	/* TODO */
	(void)prev;
	if (!vma || !(vma->flags & VM_GROWSDOWN))
		return -EFAULT;
	if (vma->start <= addr)
		return 0;
	if (vma->end - ALIGN_DOWN(addr, PAGE_SIZE) > STACK_RLIMIT_DEFAULT)
		return -ENOMEM;
	return vma_expand_start(mm, vma, ALIGN_DOWN(addr, PAGE_SIZE));
}
