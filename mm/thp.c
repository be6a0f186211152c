/*
 * Transparent huge pages, first steps (Linux mm/huge_memory.c): a private
 * anonymous fault in a 2 MiB-aligned range wholly inside a VMA that may
 * use them maps a zeroed order-9 block with one 2 MiB leaf
 * (arch_mmu_map_huge); fork copies such a page into a huge page of the
 * child's own.
 *
 * The 512 frames of a huge page are 512 ordinary private anonymous pages
 * from the start (refcount, mapcount, anon identity and offset each, as
 * anon_page_alloc makes them; the block is split in the allocator at
 * once, Linux's split_page): only the page table differs. So a split is
 * the page table's alone (arch_mmu_split_huge: 512 entries, same bits, no
 * data moved), and every 4 KiB path (zap, mprotect, COW, swap-out, ...)
 * stays right on the frames after it; the arch layer splits a leaf under
 * any 4 KiB operation (include/arch_mmu.h lists where). Frames freed one
 * by one coalesce into the block again in the buddy allocator.
 *
 * Policy (Linux's /sys/kernel/mm/transparent_hugepage/enabled, here the
 * kernel option thp=always|madvise|never, default never): always, or
 * madvise for VMAs with VM_HUGEPAGE; never a VMA with VM_NOHUGEPAGE, nor
 * an address space whose process asked PR_SET_THP_DISABLE.
 *
 * Read faults map the 4 KiB zero page as before (Linux maps its huge zero
 * page there; not done here), unless the zero page is off (zero_page=off,
 * Linux's use_zero_page=0): then they allocate a huge page like a write.
 *
 * Locking: the fault's (pt_lock held, mmap_lock or the VMA's lock read).
 */
#include "internal.h"
#include "kstring.h"
#include "kerrno.h"
#include "vmstat.h"

enum thp_mode thp_mode = THP_NEVER;

const char *const thp_mode_names[] = { "never", "madvise", "always" };

/* May vma hold huge pages (private anonymous, the thp= policy, its VM flags, prctl)? */
static bool thp_vma_allowed(const struct mm *mm, const struct vma *vma)
{
	if (vma->file || (vma->flags & (VM_SHARED | VM_NOHUGEPAGE)) || mm->thp_disabled)
		return false;
	return thp_mode == THP_ALWAYS || (thp_mode == THP_MADVISE && (vma->flags & VM_HUGEPAGE));
}

/* Does the 2 MiB-aligned range around va lie wholly inside vma? */
static bool thp_vma_fits(const struct vma *vma, uintptr_t va)
{
	uintptr_t h = ALIGN_DOWN(va, HUGE_SIZE);

	return h >= vma->start && h + HUGE_SIZE <= vma->end;
}

/* Linux's smaps check: the policy allows it, and a huge page fits below the VMA's end. */
bool thp_vma_eligible(const struct mm *mm, const struct vma *vma)
{
	return thp_vma_allowed(mm, vma) && vma->end - vma->start >= HUGE_SIZE &&
	       thp_vma_fits(vma, vma->end - HUGE_SIZE);
}

/*
 * An order-9 block as 512 private anonymous pages of vma, mapped from h
 * (refcount 1 and mapcount 1 each); copied from src when not NULL, else
 * zeroed. NULL when no order-9 block is free above the user watermark.
 */
static struct page *huge_alloc(const struct vma *vma, uintptr_t h, const void *src)
{
	struct page *head = pmm_alloc(HUGE_ORDER, GFP_USER | (src ? 0 : GFP_ZERO));

	if (!head)
		return NULL;
	if (src)
		memcpy(page_address(head), src, HUGE_SIZE);
	for (unsigned i = 0; i < (1U << HUGE_ORDER); i++) {
		struct page *p = head + i;

		p->order = 0;
		p->refcount = 1;
		anon_page_init(p, vma, h + ((uintptr_t)i << PAGE_SHIFT));
		page_mapcount_add(p, 1);
	}
	return head;
}

/* Undo huge_alloc: each frame loses its mapping and its reference (and is freed). */
static void huge_release(struct page *head)
{
	for (unsigned i = 0; i < (1U << HUGE_ORDER); i++) {
		page_mapcount_add(head + i, -1);
		user_page_put(head + i);
	}
}

/* Map head's block at h of mm with prot; account it. 0, -EEXIST or -ENOMEM (released). */
static int huge_install(struct mm *mm, struct page *head, uintptr_t h, unsigned prot)
{
	int err = arch_mmu_map_huge(mm->mmu, h, page_to_phys(head), prot);

	if (err) {
		huge_release(head);
		return err;
	}
	mm_count(&mm->rss, 1L << HUGE_ORDER);
	return 0;
}

bool thp_fault(struct mm *mm, struct vma *vma, uintptr_t va, unsigned flags, enum fault_result *r)
{
	uintptr_t h = ALIGN_DOWN(va, HUGE_SIZE);
	unsigned want = mm_vm_to_mmu(vma->flags);
	struct page *head;

	if (!thp_vma_allowed(mm, vma) || !thp_vma_fits(vma, va) || !arch_mmu_huge_free(mm->mmu, h))
		return false;
	if (!(flags & FAULT_WRITE) && mm->zero_page)
		return false;
	if (vma_anon_prepare(mm, vma)) {
		*r = FAULT_OOM;
		return true;
	}
	head = huge_alloc(vma, h, NULL);
	if (!head) {
		count_vm_event(VM_THP_FAULT_FALLBACK);
		return false;
	}
	if (huge_install(mm, head, h, want | MMU_ACCESSED | ((want & MMU_WRITE) ? MMU_DIRTY : 0)))
		return false;
	count_vm_event(VM_THP_FAULT_ALLOC);
	*r = FAULT_OK;
	return true;
}

int thp_copy(struct mm *child, const struct vma *cv, uintptr_t h, phys_addr_t pa, unsigned state)
{
	struct page *head = huge_alloc(cv, h, phys_to_virt(pa));

	if (!head)
		return -ENOMEM;
	return huge_install(child, head, h, state & ~MMU_HUGE);
}
