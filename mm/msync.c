/*
 * msync (Linux 6.18's sys_msync). Files live in memory here, so MS_SYNC
 * has nothing to write back and MS_INVALIDATE nothing to drop (as on
 * Linux's tmpfs, whose fsync does nothing); what remains are Linux's checks
 * and its walk over the range, which decides the errors: holes are
 * skipped and reported as -ENOMEM at the end, except that MS_ASYNC alone
 * stops at the first one; MS_INVALIDATE on a locked VMA is -EBUSY.
 *
 * Locking: mmap_lock for reading.
 */
#include "internal.h"
#include "kerrno.h"

/* The walk over [start, end) (end > start), under the lock. */
static int msync_walk(struct mm *mm, uintptr_t start, uintptr_t end, int flags)
{
	int unmapped_error = 0;
	struct vma *vma = vma_find(mm, start);

	for (;;) {
		if (!vma)
			return -ENOMEM;
		if (start < vma->start) {
			if (flags == MS_ASYNC)
				return -ENOMEM;
			start = vma->start;
			if (start >= end)
				return -ENOMEM;
			unmapped_error = -ENOMEM;
		}
		if ((flags & MS_INVALIDATE) && (vma->flags & VM_LOCKED))
			return -EBUSY;
		start = vma->end;
		if (start >= end)
			return unmapped_error;
		vma = vma_find(mm, vma->end);
	}
}

int vm_msync(struct mm *mm, uintptr_t start, size_t len, int flags)
{
	uintptr_t end;
	int err;

	if (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC))
		return -EINVAL;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	if ((flags & MS_ASYNC) && (flags & MS_SYNC))
		return -EINVAL;
	len = (len + ~PAGE_MASK) & PAGE_MASK;
	end = start + len;
	if (end < start)
		return -ENOMEM;
	if (end == start)
		return 0;
	mmap_read_lock(mm);
	err = msync_walk(mm, start, end, flags);
	mmap_read_unlock(mm);
	return err;
}
