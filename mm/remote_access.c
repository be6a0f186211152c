/*
 * Kernel access to any address space through the direct map (ELF loading,
 * the initial stack, tests): mm_copy_to faults pages in as user writes
 * would, mm_copy_from reads what is there without allocating.
 *
 * Locking: each page's lookup and copy happen under pt_lock, as reclaim's
 * changes of an entry do (its reverse-map walks hold no mmap_lock, and a
 * walk may take a writable entry out for a moment): so the copy never
 * reads a frame freed meanwhile nor a zero for a page that is there.
 * mmap_lock for reading around the VMA lookups; faults happen with it
 * dropped (handle_mm_fault takes it itself).
 */
#include "internal.h"
#include "kerrno.h"
#include "kstring.h"
#include "arch.h"

static int fault_errno(enum fault_result r)
{
	return r == FAULT_OOM ? -ENOMEM : -EFAULT;
}

/* The entry made dirty and young, as a user write through it would make it. */
static enum mmu_action dirty_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	(void)arg;
	(void)va;
	(void)pa;
	*state |= MMU_DIRTY | MMU_ACCESSED;
	return MMU_UPDATE;
}

/*
 * Copy n bytes between buf and offset off of the page mapped at va, under
 * pt_lock: 0 when it was there (and writable, for a write), else what
 * arch_mmu_query answered (-EACCES: present but read-only). A write
 * through the direct map marks the page itself (Linux: a FOLL_WRITE
 * access dirties the folio), so that reclaim neither drops a lazily freed
 * page nor a shared page with the new data; pt_lock orders that with this
 * mm's changes of an anonymous page's flags (MADV_FREE), and it is
 * atomic, because a page-cache page's flags are also set by other address
 * spaces under their own pt_lock. It also sets the entry's dirty bit, as
 * the CPU would: a swap-out cleans that bit before it copies the page and
 * puts the swap entry in only if the bit is still clear afterwards
 * (arch_mmu_swap_out, under pt_lock), so a write made after the copy
 * keeps the page (Linux: the folio redirtied during writeback stays).
 */
static int copy_present(struct mm *mm, uintptr_t va, size_t off, void *buf, size_t n, bool write)
{
	phys_addr_t pa;
	unsigned state;
	int q;

	mm_pt_lock(mm);
	q = arch_mmu_query(mm->mmu, va, &pa, &state);
	if (q == 0 && write && !(state & MMU_WRITE))
		q = -EACCES;
	if (q == 0 && write && (state & (MMU_DIRTY | MMU_ACCESSED)) != (MMU_DIRTY | MMU_ACCESSED)) {
		struct tlb_batch tlb;

		mm_tlb_init(&tlb, mm, true);    /* rights only added: nothing to shoot down */
		arch_mmu_walk(mm->mmu, va, va + PAGE_SIZE, dirty_visit, NULL, &tlb);
		mm_tlb_finish(&tlb);
	}
	if (q == 0 && write) {
		memcpy((char *)phys_to_virt(pa) + off, buf, n);
		if (!mm_is_zero_pa(pa))
			vm_object_page_dirty(phys_to_page(pa));
	} else if (q == 0) {
		memcpy(buf, (char *)phys_to_virt(pa) + off, n);
	}
	mm_pt_unlock(mm);
	return q;
}

int mm_copy_to(struct mm *mm, uintptr_t dst, const void *src, size_t len)
{
	const char *s = src;

	if (dst >= TASK_SIZE || len > TASK_SIZE - dst)
		return -EFAULT;
	while (len) {
		uintptr_t va = ALIGN_DOWN(dst, PAGE_SIZE);
		size_t off = dst - va, n = MIN(len, PAGE_SIZE - off);
		int tries = 0;

		for (;;) {
			enum fault_result r;
			int q;

			mmap_read_lock(mm);
			q = copy_present(mm, va, off, (void *)s, n, true);
			mmap_read_unlock(mm);
			if (q == 0)
				break;
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
		struct page *p = NULL;
		int q = vma ? copy_present(mm, va, off, d, n, false) : -EFAULT;

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
		if (q != 0) {
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
