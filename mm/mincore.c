/*
 * mincore (Linux do_mincore): 1 for each page whose PTE is present (the
 * zero page and PROT_NONE entries included), or, in a shared anonymous
 * mapping, whose page exists in the object (mapped here or not).
 *
 * Locking: takes mm's mmap_lock for reading.
 */
#include "internal.h"
#include "kerrno.h"

int vm_mincore(struct mm *mm, uintptr_t start, size_t len, unsigned char *vec)
{
	unsigned long pages;
	int err = 0;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	/* access_ok(start, len) */
	if (start > TASK_SIZE || len > TASK_SIZE - start)
		return -ENOMEM;
	pages = (len >> PAGE_SHIFT) + ((len & ~PAGE_MASK) != 0);

	mmap_read_lock(mm);
	for (unsigned long i = 0; i < pages; i++) {
		uintptr_t va = start + (i << PAGE_SHIFT);
		struct vma *vma = vma_lookup(mm, va);
		struct page *p = NULL;

		if (!vma) {
			err = -ENOMEM;
			break;
		}
		if (arch_mmu_query(mm->mmu, va, NULL, NULL) == 0) {
			vec[i] = 1;
			continue;
		}
		if (vma->object)
			shared_anon_page(vma->object, vma->pgoff + ((va - vma->start) >> PAGE_SHIFT), false, &p);
		vec[i] = p != NULL;
	}
	mmap_read_unlock(mm);
	return err;
}
