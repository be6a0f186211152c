/*
 * Kernel access to any address space through the direct map (ELF loading,
 * the initial stack, tests): mm_copy_to faults pages in as user writes
 * would, mm_copy_from reads what is there without allocating.
 *
 * Locking: both take mmap_lock for reading around each page's lookup and
 * copy (mm_copy_from also a reference to the page it reads: reclaim frees
 * pages under the read lock too); faults happen with the lock dropped
 * (handle_mm_fault takes it itself).
 */
#include "internal.h"
#include "kerrno.h"
#include "kstring.h"
#include "arch.h"

static int fault_errno(enum fault_result r)
{
	return r == FAULT_OOM ? -ENOMEM : -EFAULT;
}

/*
 * A write through the direct map leaves the PTE's dirty bit alone: mark the
 * page itself (Linux: a FOLL_WRITE access dirties the folio), so that
 * reclaim neither drops a lazily freed page nor a shared page with the new
 * data. Under pt_lock, which orders it with this mm's changes of an
 * anonymous page's flags (MADV_FREE); atomic, because a page-cache page's
 * flags are also set by other address spaces under their own pt_lock.
 */
static void page_mark_dirty(struct mm *mm, phys_addr_t pa)
{
	if (mm_is_zero_pa(pa))
		return;
	mm_pt_lock(mm);
	vm_object_page_dirty(phys_to_page(pa));
	mm_pt_unlock(mm);
}

int mm_copy_to(struct mm *mm, uintptr_t dst, const void *src, size_t len)
{
	const char *s = src;

	if (dst >= TASK_SIZE || len > TASK_SIZE - dst)
		return -EFAULT;
	while (len) {
		uintptr_t va = ALIGN_DOWN(dst, PAGE_SIZE);
		size_t off = dst - va, n = MIN(len, PAGE_SIZE - off);
		phys_addr_t pa;
		unsigned state;
		int tries = 0;

		for (;;) {
			enum fault_result r;

			mmap_read_lock(mm);
			if (arch_mmu_query(mm->mmu, va, &pa, &state) == 0 && (state & MMU_WRITE)) {
				memcpy((char *)phys_to_virt(pa) + off, s, n);
				page_mark_dirty(mm, pa);
				mmap_read_unlock(mm);
				break;
			}
			mmap_read_unlock(mm);
			r = handle_mm_fault(mm, dst, FAULT_WRITE);
			if (r != FAULT_OK)
				return fault_errno(r);
			if (++tries > 3)
				return -EFAULT;   /* the fault did not make the page writable: a bug */
		}
		dst += n;
		s += n;
		len -= n;
	}
	return 0;
}

/*
 * Look va up under pt_lock; a present user page gets a reference (*held),
 * so that reclaim, which unmaps and frees pages under the mmap_lock taken
 * for reading too, cannot free the frame while it is copied (Linux: GUP's
 * reference). *held NULL for the zero page and reserved frames.
 */
static int query_held(struct mm *mm, uintptr_t va, phys_addr_t *pa, struct page **held)
{
	int q;

	*held = NULL;
	mm_pt_lock(mm);
	q = arch_mmu_query(mm->mmu, va, pa, NULL);
	if (q == 0 && !mm_is_zero_pa(*pa)) {
		struct page *p = phys_to_page(*pa);

		if (p && !(p->flags & PG_reserved)) {
			user_page_get(p);
			*held = p;
		}
	}
	mm_pt_unlock(mm);
	return q;
}

int mm_copy_from(struct mm *mm, void *dst, uintptr_t src, size_t len)
{
	char *d = dst;
	int err = 0;

	if (src >= TASK_SIZE || len > TASK_SIZE - src)
		return -EFAULT;
	mmap_read_lock(mm);
	while (len) {
		uintptr_t va = ALIGN_DOWN(src, PAGE_SIZE);
		size_t off = src - va, n = MIN(len, PAGE_SIZE - off);
		struct vma *vma = vma_lookup(mm, src);
		phys_addr_t pa;
		struct page *p = NULL;
		int q = vma ? query_held(mm, va, &pa, &p) : -EFAULT;

		if (q == -EFAULT) {           /* no VMA, or a guard marker */
			err = -EFAULT;
			break;
		}
		if (q == -EAGAIN) {           /* swapped out: read it back in (a fault) and look again */
			enum fault_result r;

			mmap_read_unlock(mm);
			r = handle_mm_fault(mm, va, FAULT_READ);
			mmap_read_lock(mm);
			if (r != FAULT_OK) {
				err = fault_errno(r);
				break;
			}
			continue;
		}
		if (q == 0) {
			memcpy(d, (char *)phys_to_virt(pa) + off, n);
			if (p)
				user_page_put(p);
		} else {
			if (vma->file && vm_object_page(vma_object(vma), vma_pgoff_at(vma, va), 0, &p))
				p = NULL;
			if (p) {
				memcpy(d, (char *)page_address(p) + off, n);
				user_page_put(p);
			} else {
				memset(d, 0, n);
			}
		}
		src += n;
		d += n;
		len -= n;
	}
	mmap_read_unlock(mm);
	return err;
}
