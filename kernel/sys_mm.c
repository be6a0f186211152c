/*
 * The VM system calls: argument conversion only; the work is in mm/
 * (vm_mmap, vm_munmap, vm_brk, vm_mprotect, vm_madvise, vm_mincore, vm_mremap).
 */
#include "syscall_internal.h"
#include "task.h"
#include "mm.h"
#include "uaccess.h"
#include "kerrno.h"
#include "kernel.h"
#include "kstring.h"

/* mmap(addr, len, prot, flags, fd, off): anonymous memory only (vm_mmap); -EINVAL unaligned off. */
long sys_mmap(SYSCALL_ARGS)
{
	if (a5 & (PAGE_SIZE - 1))
		return -EINVAL;
	return vm_mmap(current->mm, a0, a1, (int)a2, (int)a3);
}

long sys_munmap(SYSCALL_ARGS)
{
	return vm_munmap(current->mm, a0, a1);
}

long sys_mprotect(SYSCALL_ARGS)
{
	return vm_mprotect(current->mm, a0, a1, (int)a2);
}

long sys_brk(SYSCALL_ARGS)
{
	return vm_brk(current->mm, a0);
}

long sys_madvise(SYSCALL_ARGS)
{
	return vm_madvise(current->mm, a0, a1, (int)a2);
}

/* mremap(addr, old_len, new_len, flags, new_addr): vm_mremap. */
long sys_mremap(SYSCALL_ARGS)
{
	return vm_mremap(current->mm, a0, a1, a2, (int)a3, a4);
}

/*
 * mincore(addr, len, vec): vm_mincore through a one-page kernel buffer.
 * -EINVAL unaligned addr; -ENOMEM range beyond TASK_SIZE or not mapped
 * (the entries before the hole are written, the rest left alone, as Linux);
 * -EFAULT vec not writable.
 */
long sys_mincore(SYSCALL_ARGS)
{
	static unsigned char kvec[PAGE_SIZE];   /* one CPU; the kernel is not preempted */
	uint64_t addr = a0, len = a1, vec = a2, pages, done = 0;

	if (addr & (PAGE_SIZE - 1))
		return -EINVAL;
	if (len > TASK_SIZE || addr + len > TASK_SIZE)
		return -ENOMEM;
	pages = (len + PAGE_SIZE - 1) >> PAGE_SHIFT;
	if (!access_ok(vec, pages))
		return -EFAULT;
	while (done < pages) {
		uint64_t n = MIN(pages - done, (uint64_t)sizeof(kvec));
		uint64_t clen = MIN(n << PAGE_SHIFT, len - (done << PAGE_SHIFT));
		int r;

		uint64_t filled = n;

		/* vm_mincore writes 0/1 up to a hole; only that prefix reaches the user (Linux) */
		memset(kvec, 0xff, n);
		r = vm_mincore(current->mm, addr + (done << PAGE_SHIFT), clen, kvec);
		if (r)
			for (filled = 0; filled < n && kvec[filled] != 0xff; filled++)
				;
		if (filled && copy_to_user((void *)(vec + done), kvec, filled))
			return -EFAULT;
		if (r)
			return r;
		done += n;
	}
	return 0;
}
