/*
 * mmap and munmap of anonymous memory (Linux do_mmap / __mmap_region /
 * do_vmi_munmap), over the VMA layer of mm/vma.c and the zap of mm/zap.c.
 *
 * Locking: vm_mmap and vm_munmap take mm's mmap_lock for writing;
 * MAP_POPULATE faults pages in after dropping it (as Linux does).
 */
#include "internal.h"
#include "kerrno.h"

#define PMD_SIZE_2M (1UL << 21)

/*
 * Linux x86-64 places anonymous mappings without a hint whose length is a
 * multiple of 2 MiB on a 2 MiB boundary (__thp_get_unmapped_area): search
 * len + 2 MiB, round the result up, and when a top-down search found it
 * already aligned, skip 2 MiB. Falls back to the plain search when the
 * padded length does not fit.
 */
static int thp_area(struct mm *mm, uintptr_t len, uintptr_t *out)
{
	uintptr_t ret, off_sub;

	if (vma_get_unmapped_area(mm, 0, len + PMD_SIZE_2M, PAGE_SIZE, &ret))
		return vma_get_unmapped_area(mm, 0, len, PAGE_SIZE, out);
	off_sub = (0 - ret) & (PMD_SIZE_2M - 1);
	if (!off_sub)
		*out = ret + PMD_SIZE_2M;    /* the free-area search is top-down (MMF_TOPDOWN) */
	else
		*out = ret + off_sub;
	return 0;
}

/* The VMA flags of an anonymous mapping (calc_vm_prot_bits + calc_vm_flag_bits + VM_MAY*). */
static unsigned long mmap_vm_flags(int prot, int flags)
{
	unsigned long vf = VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;

	if (prot & PROT_READ)
		vf |= VM_READ;
	if (prot & PROT_WRITE)
		vf |= VM_WRITE;
	if (prot & PROT_EXEC)
		vf |= VM_EXEC;
	if (flags & MAP_GROWSDOWN)
		vf |= VM_GROWSDOWN;
	if (flags & MAP_LOCKED)
		vf |= VM_LOCKED;
	if (flags & MAP_STACK)
		vf |= VM_NOHUGEPAGE;
	return vf;
}

long vm_mmap(struct mm *mm, uintptr_t addr, size_t len, int prot, int flags)
{
	unsigned long vf = 0;
	struct shared_anon *obj = NULL;
	unsigned long pgoff;
	int type = flags & MAP_TYPE;
	bool populate;
	struct vma *v;
	int err;

	if (!(flags & MAP_ANONYMOUS))
		return -EBADF;                /* fd -1: no files in this kernel */
	if (!len)
		return -EINVAL;
	if (flags & MAP_FIXED_NOREPLACE)
		flags |= MAP_FIXED;
	if (!(flags & MAP_FIXED)) {
		/* round_hint_to_min */
		addr &= PAGE_MASK;
		if (addr && addr < MMAP_MIN_ADDR)
			addr = MMAP_MIN_ADDR;
	}
	if (len > TASK_SIZE)
		return -ENOMEM;               /* also PAGE_ALIGN(len) wrapping to 0 */
	len = ALIGN_UP(len, PAGE_SIZE);

	mmap_write_lock(mm);
	err = vma_map_count_check(mm);
	if (err)
		goto out;
	vf = mmap_vm_flags(prot, flags);

	/* __get_unmapped_area */
	if (flags & MAP_FIXED) {
		err = -ENOMEM;
		if (addr > TASK_SIZE - len)
			goto out;
		err = -EINVAL;
		if (addr & ~PAGE_MASK)
			goto out;
		err = -EPERM;
		if (addr < MMAP_MIN_ADDR)
			goto out;
	} else {
		uintptr_t a;

		if (!addr && type == MAP_PRIVATE && IS_ALIGNED(len, PMD_SIZE_2M))
			err = thp_area(mm, len, &a);
		else
			err = vma_get_unmapped_area(mm, addr, len, PAGE_SIZE, &a);
		if (err)
			goto out;
		addr = a;
	}
	vma_write_lock_range(mm, addr, addr + len);
	if ((flags & MAP_FIXED_NOREPLACE) && vma_find_intersection(mm, addr, addr + len)) {
		err = -EEXIST;
		goto out;
	}
	switch (type) {
	case MAP_SHARED:
		err = -EINVAL;
		if (vf & VM_GROWSDOWN)
			goto out;
		pgoff = 0;
		vf |= VM_SHARED | VM_MAYSHARE;
		break;
	case MAP_PRIVATE:
		pgoff = addr >> PAGE_SHIFT;
		break;
	default:
		err = -EINVAL;
		goto out;
	}
	if (flags & MAP_NORESERVE)
		vf |= VM_NORESERVE;
	/* accountable_mapping: private writable memory is committed. */
	if ((vf & (VM_NORESERVE | VM_SHARED | VM_WRITE)) == VM_WRITE)
		vf |= VM_ACCOUNT;
	if (vf & VM_SHARED) {
		obj = shared_anon_create(len >> PAGE_SHIFT);
		err = -ENOMEM;
		if (!obj)
			goto out;
	}
	/* __mmap_region: MAP_FIXED replaces what was there. */
	err = mm_unmap_range(mm, addr, addr + len);
	if (err)
		goto out;
	err = vma_map_new_range(mm, addr, addr + len, vf, obj, pgoff, &v);
	if (err)
		goto out;
	v->flags |= VM_SOFTDIRTY;         /* __mmap_complete; merging ignores it */
out:
	if (obj)
		shared_anon_put(obj);         /* the VMA holds its own reference */
	mmap_write_unlock(mm);
	if (err)
		return err;
	populate = (vf & VM_LOCKED) || (flags & (MAP_POPULATE | MAP_NONBLOCK)) == MAP_POPULATE;
	if (populate)
		(void)mm_populate(mm, addr, addr + len, (vf & (VM_WRITE | VM_SHARED)) == VM_WRITE);
	return (long)addr;
}

int vm_munmap(struct mm *mm, uintptr_t addr, size_t len)
{
	int err;

	if (addr & ~PAGE_MASK)
		return -EINVAL;
	if (len > TASK_SIZE)
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (!len || addr > TASK_SIZE || len > TASK_SIZE - addr)
		return -EINVAL;
	mmap_write_lock(mm);
	vma_write_lock_range(mm, addr, addr + len);
	err = mm_unmap_range(mm, addr, addr + len);
	mmap_write_unlock(mm);
	return err;
}
