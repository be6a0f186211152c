/*
 * mincore (Linux do_mincore): 1 for each page whose PTE is present (the
 * zero page and PROT_NONE entries included), or is a swap entry whose page
 * is still in the swap cache (mincore_swap), or, in a mapping of a file
 * (shared anonymous memory included), whose page is in the file's cache
 * (mapped here or not: Linux's mincore_page).
 *
 * Locking: takes mm's mmap_lock for reading, and pt_lock around each
 * page's look (Linux: the PTE lock): reclaim's reverse-map walks change
 * entries under pt_lock alone and may take a writable entry out for a
 * moment, which must not read as "not resident".
 */
#include "internal.h"
#include "kerrno.h"
#include "swap.h"

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

		if (!vma) {
			err = -ENOMEM;
			break;
		}
		phys_addr_t val = 0;
		int q;

		mm_pt_lock(mm);
		q = arch_mmu_query(mm->mmu, va, &val, NULL);
		if (q == 0)
			vec[i] = 1;
		else if (q == -EAGAIN)          /* swapped: resident if its page is still in the swap cache */
			vec[i] = swap_cache_has((swp_entry_t){ val });
		else
			vec[i] = vma->file && vm_object_has_page(vma_object(vma), vma_pgoff_at(vma, va));
		mm_pt_unlock(mm);
	}
	mmap_read_unlock(mm);
	return err;
}
