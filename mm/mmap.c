/*
 * mmap and munmap (Linux do_mmap / __mmap_region / do_vmi_munmap) of
 * anonymous memory and of files (include/vm_object.h), over the VMA layer
 * of mm/vma.c and the zap of mm/zap.c.
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

/* An mmap request as it goes through vm_mmap_pgoff's steps. */
struct mmap_req {
	uintptr_t addr;
	size_t len;
	int prot, flags;
	struct vm_file *file;         /* NULL: anonymous */
	unsigned long vf;             /* the new VMA's flags */
	unsigned long pgoff;          /* its page offset */
};

/* The flags MAP_SHARED keeps and MAP_SHARED_VALIDATE accepts (Linux LEGACY_MAP_MASK). */
#define MAP_UNINITIALIZED_K 0x4000000
#define LEGACY_MAP_MASK (MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_DENYWRITE | \
			 MAP_EXECUTABLE | MAP_UNINITIALIZED_K | MAP_GROWSDOWN | MAP_LOCKED | \
			 MAP_NORESERVE | MAP_POPULATE | MAP_NONBLOCK | MAP_STACK | MAP_HUGETLB)
/* MAX_LFS_FILESIZE: the largest offset of a regular file. */
#define MAX_FILE_OFFSET 0x7fffffffffffffffULL

/* do_mmap's checks before the lock; rounds the hint and the length. */
static int mmap_check_args(struct mmap_req *r)
{
	if (!r->file && !(r->flags & MAP_ANONYMOUS))
		return -EBADF;                /* fd -1 names no file */
	if (!r->len)
		return -EINVAL;
	if (r->flags & MAP_FIXED_NOREPLACE)
		r->flags |= MAP_FIXED;
	if (!(r->flags & MAP_FIXED)) {
		/* round_hint_to_min */
		r->addr &= PAGE_MASK;
		if (r->addr && r->addr < MMAP_MIN_ADDR)
			r->addr = MMAP_MIN_ADDR;
	}
	if (r->len > TASK_SIZE)
		return -ENOMEM;               /* also PAGE_ALIGN(len) wrapping to 0 */
	r->len = ALIGN_UP(r->len, PAGE_SIZE);
	return 0;
}

/* __get_unmapped_area: r->addr becomes where the mapping goes; then MAP_FIXED_NOREPLACE's check. */
static int mmap_place(struct mm *mm, struct mmap_req *r)
{
	uintptr_t a;
	int err;

	if (r->flags & MAP_FIXED) {
		if (r->addr > TASK_SIZE - r->len)
			return -ENOMEM;
		if (r->addr & ~PAGE_MASK)
			return -EINVAL;
		if (r->addr < MMAP_MIN_ADDR)
			return -EPERM;
	} else {
		/* anonymous private only: files (and shmem) have their own get_unmapped_area */
		if (!r->addr && !r->file && (r->flags & MAP_TYPE) == MAP_PRIVATE &&
		    IS_ALIGNED(r->len, PMD_SIZE_2M))
			err = thp_area(mm, r->len, &a);
		else
			err = vma_get_unmapped_area(mm, r->addr, r->len, PAGE_SIZE, &a);
		if (err)
			return err;
		r->addr = a;
	}
	if ((r->flags & MAP_FIXED_NOREPLACE) && vma_find_intersection(mm, r->addr, r->addr + r->len))
		return -EEXIST;
	return 0;
}

/* file_mmap_ok: the pages fit below the largest offset (a regular file's; other files: 2^64 - 1). */
static bool file_range_ok(const struct mmap_req *r)
{
	uint64_t max = r->file->obj ? MAX_FILE_OFFSET : ~0ULL;

	return (uint64_t)r->len <= max && r->pgoff <= (max - r->len) >> PAGE_SHIFT;
}

/*
 * do_mmap's file checks: the type (MAP_SHARED drops the flags it does not
 * know, MAP_SHARED_VALIDATE refuses them), the open mode, growsdown.
 */
static int mmap_file_flags(struct mmap_req *r, unsigned long *vf)
{
	unsigned mode = r->file->mode;

	if (!file_range_ok(r))
		return -EOVERFLOW;
	switch (r->flags & MAP_TYPE) {
	case MAP_SHARED:
	case MAP_SHARED_VALIDATE:
		if ((r->flags & MAP_TYPE) == MAP_SHARED)
			r->flags &= LEGACY_MAP_MASK;
		else if (r->flags & ~LEGACY_MAP_MASK)
			return -EOPNOTSUPP;
		if ((r->prot & PROT_WRITE) && !(mode & VMF_WRITE))
			return -EACCES;
		*vf |= VM_SHARED | VM_MAYSHARE;
		if (!(mode & VMF_WRITE))
			*vf &= ~(VM_MAYWRITE | VM_SHARED);
		/* fall through */
	case MAP_PRIVATE:
		if (!(mode & VMF_READ))
			return -EACCES;
		if (!r->file->obj)
			return -ENODEV;         /* no mmap operation: not a regular file */
		if (*vf & VM_GROWSDOWN)
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

/* do_mmap's anonymous cases: shared ignores the offset, private takes addr's. */
static int mmap_anon_flags(struct mmap_req *r, unsigned long *vf)
{
	switch (r->flags & MAP_TYPE) {
	case MAP_SHARED:
		if (*vf & VM_GROWSDOWN)
			return -EINVAL;
		r->pgoff = 0;
		*vf |= VM_SHARED | VM_MAYSHARE;
		return 0;
	case MAP_PRIVATE:
		r->pgoff = r->addr >> PAGE_SHIFT;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * The VMA flags and page offset of the mapping (calc_vm_prot_bits +
 * calc_vm_flag_bits + VM_MAY*, the mapping type, accountable_mapping).
 * -EINVAL for a bad type or a shared growsdown mapping; a file's errors.
 */
static int mmap_vm_flags(struct mmap_req *r)
{
	unsigned long vf = VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
	int err;

	if (r->prot & PROT_READ)
		vf |= VM_READ;
	if (r->prot & PROT_WRITE)
		vf |= VM_WRITE;
	if (r->prot & PROT_EXEC)
		vf |= VM_EXEC;
	if (r->flags & MAP_GROWSDOWN)
		vf |= VM_GROWSDOWN;
	if (r->flags & MAP_LOCKED)
		vf |= VM_LOCKED;
	if (r->flags & MAP_STACK)
		vf |= VM_NOHUGEPAGE;
	err = r->file ? mmap_file_flags(r, &vf) : mmap_anon_flags(r, &vf);
	if (err)
		return err;
	if (r->flags & MAP_NORESERVE)
		vf |= VM_NORESERVE;
	/* accountable_mapping: private writable memory is committed. */
	if ((vf & (VM_NORESERVE | VM_SHARED | VM_WRITE)) == VM_WRITE)
		vf |= VM_ACCOUNT;
	r->vf = vf;
	return 0;
}

/*
 * __mmap_region: MAP_FIXED replaces what was there (everything allocated
 * first: a failure leaves it); shared anonymous memory gets a file of its
 * own.
 */
static int mmap_region(struct mm *mm, const struct mmap_req *r)
{
	struct vm_file *anon = NULL;
	struct tlb_batch tlb;
	struct vma *v;
	int err;

	if (!r->file && (r->vf & VM_SHARED)) {
		anon = shared_anon_file(r->len);
		if (!anon)
			return -ENOMEM;
	}
	vma_write_lock_map(mm, r->addr, r->addr + r->len, r->vf, anon ? anon : r->file);
	if (vma_find_intersection(mm, r->addr, r->addr + r->len)) {
		struct unmap_window u = { .tlb = &tlb };

		mm_tlb_init(&tlb, mm, false);
		mm_unmap_window(mm, r->addr, r->addr + r->len, &u);   /* the old mappings' tables go as in an unmap */
		err = vma_map_replace(mm, r->addr, r->addr + r->len, r->vf, anon ? anon : r->file, r->pgoff,
				      mm_zap_piece, &u, &v);
		mm_tlb_finish(&tlb);
	} else {
		err = vma_map_new_range(mm, r->addr, r->addr + r->len, r->vf, anon ? anon : r->file,
					r->pgoff, &v);
	}
	if (!err)
		v->flags |= VM_SOFTDIRTY;     /* __mmap_complete; merging ignores it */
	if (anon)
		anon->ops->put(anon);         /* the VMA holds its own reference */
	return err;
}

long vm_mmap_pgoff(struct mm *mm, uintptr_t addr, size_t len, int prot, int flags,
		   struct vm_file *file, unsigned long pgoff)
{
	struct mmap_req r = { addr, len, prot, flags, file, 0, pgoff };
	bool populate;
	int err = mmap_check_args(&r);

	if (err)
		return err;
	mmap_write_lock(mm);
	err = vma_map_count_check(mm);
	if (!err)
		err = mmap_place(mm, &r);
	if (!err)
		err = mmap_vm_flags(&r);
	if (!err)
		err = mmap_region(mm, &r);
	mmap_write_unlock(mm);
	if (err)
		return err;
	populate = (r.vf & VM_LOCKED) || (r.flags & (MAP_POPULATE | MAP_NONBLOCK)) == MAP_POPULATE;
	if (populate)
		(void)mm_populate(mm, r.addr, r.addr + r.len, (r.vf & (VM_WRITE | VM_SHARED)) == VM_WRITE);
	return (long)r.addr;
}

long vm_mmap(struct mm *mm, uintptr_t addr, size_t len, int prot, int flags)
{
	return vm_mmap_pgoff(mm, addr, len, prot, flags, NULL, 0);
}

int mm_munmap_locked(struct mm *mm, uintptr_t start, size_t len, struct tlb_batch *tlb)
{
	if ((start & ~PAGE_MASK) || start > TASK_SIZE || len > TASK_SIZE - start)
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (!len)
		return -EINVAL;
	vma_write_lock_inside(mm, start, start + len);
	return tlb ? mm_unmap_range_tlb(mm, start, start + len, tlb) : mm_unmap_range(mm, start, start + len);
}

int vm_munmap(struct mm *mm, uintptr_t addr, size_t len)
{
	int err;

	mmap_write_lock(mm);
	err = mm_munmap_locked(mm, addr, len, NULL);
	mmap_write_unlock(mm);
	return err;
}
