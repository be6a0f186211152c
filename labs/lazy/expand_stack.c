/*
 * LAB lazy: the stack VMA above addr grows down to addr's page, with no
 * limit: a program can take as much stack as the address space below it
 * holds. Give it Linux's limits (docs/labs/lazy.md, Part B): the stack's
 * size stays within STACK_RLIMIT_DEFAULT, a VMA below it that is
 * accessible and no stack itself keeps STACK_GUARD_GAP of free space
 * above it, nothing grows below MMAP_MIN_ADDR (each with the errno the
 * contract in mm/internal.h names), and each growth is counted in
 * mm->stack_grows.
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
	return vma_expand_start(mm, vma, ALIGN_DOWN(addr, PAGE_SIZE));
}
