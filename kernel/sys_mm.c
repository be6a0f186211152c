/*
 * The VM system calls: argument conversion only; the work is in mm/
 * (vm_mmap_pgoff, vm_munmap, vm_brk, vm_mprotect, vm_madvise, vm_mincore,
 * vm_mremap, vm_msync).
 */
#include "syscall_internal.h"
#include "task.h"
#include "mm.h"
#include "uaccess.h"
#include "kerrno.h"
#include "kernel.h"
#include "kstring.h"
#include "file.h"
#include "pmm.h"

/*
 * mmap(addr, len, prot, flags, fd, off): Linux's ksys_mmap_pgoff: -EINVAL
 * unaligned off; without MAP_ANONYMOUS fd must be open (-EBADF) and not
 * ask for huge pages (-EINVAL); a file that cannot be mapped (anything but
 * a regular file) gets mmap's checks of its open mode, then -ENODEV.
 */
long sys_mmap(SYSCALL_ARGS)
{
	struct vm_file none = { 0 };
	struct file *f;
	long r;
	int acc;

	if (a5 & (PAGE_SIZE - 1))
		return -EINVAL;
	if (a3 & MAP_ANONYMOUS)
		return vm_mmap(current->mm, a0, a1, (int)a2, (int)a3);
	f = fget(a4);                   /* held while mapped: another thread may close fd meanwhile */
	if (!f)
		return -EBADF;
	if (a3 & MAP_HUGETLB) {
		file_put(f);
		return -EINVAL;
	}
	acc = f->flags & O_ACCMODE;
	none.mode = (acc != O_WRONLY ? VMF_READ : 0) | (acc != O_RDONLY ? VMF_WRITE : 0);
	r = vm_mmap_pgoff(current->mm, a0, a1, (int)a2, (int)a3, f->vm.obj ? &f->vm : &none, a5 >> PAGE_SHIFT);
	file_put(f);
	return r;
}

/* msync(start, len, flags): vm_msync. */
long sys_msync(SYSCALL_ARGS)
{
	return vm_msync(current->mm, a0, a1, (int)a2);
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

/* mincore, chunk by chunk, through the kernel buffer kvec (PAGE_SIZE bytes). */
static long mincore_chunks(uint64_t addr, uint64_t len, uint64_t vec, uint64_t pages,
			   unsigned char *kvec)
{
	uint64_t done = 0;

	while (done < pages) {
		uint64_t n = MIN(pages - done, (uint64_t)PAGE_SIZE);
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

/*
 * mincore(addr, len, vec): vm_mincore through a one-page kernel buffer
 * (one per call: several CPUs run system calls at once).
 * -EINVAL unaligned addr; -ENOMEM range beyond TASK_SIZE or not mapped
 * (the entries before the hole are written, the rest left alone, as Linux);
 * -EFAULT vec not writable.
 */
long sys_mincore(SYSCALL_ARGS)
{
	uint64_t addr = a0, len = a1, vec = a2, pages;
	unsigned char *kvec;
	long r;

	if (addr & (PAGE_SIZE - 1))
		return -EINVAL;
	if (len > TASK_SIZE || addr + len > TASK_SIZE)
		return -ENOMEM;
	pages = (len + PAGE_SIZE - 1) >> PAGE_SHIFT;
	if (!access_ok(vec, pages))
		return -EFAULT;
	kvec = pmm_alloc_frame(0);      /* per call: several CPUs run system calls at once */
	if (!kvec)
		return -ENOMEM;
	r = mincore_chunks(addr, len, vec, pages, kvec);
	pmm_free_frame(kvec);
	return r;
}

