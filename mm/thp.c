/*
 * Transparent huge pages (Linux mm/huge_memory.c): a private anonymous
 * fault in a 2 MiB-aligned range wholly inside a VMA that may use them
 * maps a zeroed order-9 block with one 2 MiB leaf (arch_mmu_map_huge);
 * a read fault maps the huge zero page instead; fork shares a huge page
 * write-protected in both address spaces (copy_huge_pmd).
 *
 * The 512 frames of a huge page are 512 ordinary private anonymous pages
 * from the start (refcount, mapcount, anon identity and offset each, as
 * anon_page_alloc makes them; the block is split in the allocator at
 * once, Linux's split_page): only the page table differs. So a split is
 * the page table's alone (arch_mmu_split_huge: 512 entries, same bits, no
 * data moved), and every 4 KiB path (zap, mprotect, COW, swap-out, ...)
 * stays right on the frames after it; the arch layer splits a leaf under
 * any 4 KiB operation (include/arch_mmu.h lists where). Frames freed
 * together go back as one block (pmm_free_list), one by one they coalesce
 * into it again in the buddy allocator; a new huge page's frames join the
 * LRU at once (lru_add_run).
 *
 * Deferred shares (Linux counts a PMD mapping once per folio, its
 * _entire_mapcount): fork shares a huge page by adding one to its
 * block's deferred shares (pmm_huge_shares) instead of a reference and
 * a mapping to each of 512 frames, and a leaf that goes takes one share
 * back when there is one (huge_share_drop) before it touches the frames.
 * So the frames always hold at least one leaf's counts while any leaf
 * maps the block (shares <= leaves - 1), and reach zero only with the
 * last mapping. A leaf split into 512 entries turns a share into
 * per-frame counts first (thp_leaf_split), since 4 KiB entries are
 * counted per frame. What can meet a frame through a leaf adds the
 * shares in (page_total_refs, page_total_mapcount: smaps, reclaim,
 * swap-out) or reads the block's once (a write to a leaf, mprotect of a
 * whole leaf, a write the 4 KiB path takes on a leaf, which is split
 * first when the block has shares), so every count reads as if fork had
 * gone frame by frame. The 4 KiB paths read the fields: exact there
 * (mm/internal.h says why).
 *
 * A write fault on a write-protected leaf (do_huge_pmd_wp_page): when
 * every frame is the leaf's alone (exclusive) the leaf becomes writable
 * whole; else the leaf is split (still read-only) and the 4 KiB fault
 * (mm/fault.c, wp_fault) copies only the page written.
 *
 * The huge zero page: one zeroed order-9 block, allocated at its first
 * use (thp_zero_page_alloc; thp_zero_page_alloc_failed when no block is
 * free: then the fault falls back to 4 KiB and counts
 * thp_fault_fallback), mapped read-only by read faults with one leaf.
 * Each address space that mapped it holds one reference until its
 * teardown (Linux's MMF_HUGE_ZERO_PAGE), and fork passes it on; the block
 * is freed with the last reference (Linux keeps it until its shrinker
 * runs). Its frames count as the zero page (mm_is_zero_pa): no reference,
 * no RSS, not in smaps' Rss nor AnonHugePages. A leaf split by a 4 KiB
 * operation maps its 4 KiB parts, which act as the zero page (Linux maps
 * the 4 KiB zero page there; user space sees no difference). A write to
 * it allocates a huge page of the VMA's own (Linux 6.15+'s
 * do_huge_zero_wp_pmd, the host's and our uname's 6.18; Linux 6.1 split
 * and copied 4 KiB instead); without an order-9 block it splits and the
 * 4 KiB fault maps a zeroed page.
 *
 * Policy (Linux's /sys/kernel/mm/transparent_hugepage/enabled, here the
 * kernel option thp=always|madvise|never, default always: Linux's
 * Kconfig default, which Debian's kernel keeps): always, or
 * madvise for VMAs with VM_HUGEPAGE; never a VMA with VM_NOHUGEPAGE, nor
 * an address space whose process asked PR_SET_THP_DISABLE. With the zero
 * page off (zero_page=off, Linux's use_zero_page=0 and
 * mm_forbids_zeropage) read faults allocate a huge page like a write.
 *
 * Locking: the fault's (pt_lock held, mmap_lock or the VMA's lock read);
 * the huge zero page's reference count under huge_zero_lock (DEFAULT
 * class, interrupts off: the timer's DEFAULT lock cannot nest in it).
 */
#include "internal.h"
#include "kstring.h"
#include "kerrno.h"
#include "vmstat.h"
#include "lockless.h"

enum thp_mode thp_mode = THP_ALWAYS;

const char *const thp_mode_names[] = { "never", "madvise", "always" };

/* Whatever the thp= policy: is vma private anonymous, without MADV_NOHUGEPAGE and PR_SET_THP_DISABLE? */
static bool thp_vma_permitted(const struct mm *mm, const struct vma *vma)
{
	return !vma->file && !(vma->flags & (VM_SHARED | VM_NOHUGEPAGE)) && !mm->thp_disabled;
}

/* May vma hold huge pages (private anonymous, the thp= policy, its VM flags, prctl)? */
static bool thp_vma_allowed(const struct mm *mm, const struct vma *vma)
{
	if (!thp_vma_permitted(mm, vma))
		return false;
	return thp_mode == THP_ALWAYS || (thp_mode == THP_MADVISE && (vma->flags & VM_HUGEPAGE));
}

/* Does the 2 MiB-aligned range around va lie wholly inside vma? */
static bool thp_vma_fits(const struct vma *vma, uintptr_t va)
{
	uintptr_t h = ALIGN_DOWN(va, HUGE_SIZE);

	return h >= vma->start && h + HUGE_SIZE <= vma->end;
}

bool thp_block_may_fault_huge(const struct mm *mm, const struct vma *vma, uintptr_t va)
{
	return thp_vma_allowed(mm, vma) && thp_vma_fits(vma, va);
}

/* Linux's smaps check: the policy allows it, and a huge page fits below the VMA's end. */
bool thp_vma_eligible(const struct mm *mm, const struct vma *vma)
{
	return thp_vma_allowed(mm, vma) && vma->end - vma->start >= HUGE_SIZE &&
	       thp_vma_fits(vma, vma->end - HUGE_SIZE);
}

bool thp_vma_collapsible(const struct mm *mm, const struct vma *vma)
{
	return thp_vma_permitted(mm, vma) && vma->anon && vma->end - vma->start >= HUGE_SIZE &&
	       thp_vma_fits(vma, vma->end - HUGE_SIZE);
}

bool thp_vma_khugepaged(const struct mm *mm, const struct vma *vma)
{
	return thp_vma_allowed(mm, vma) && thp_vma_collapsible(mm, vma);
}

struct page *thp_page_alloc(const struct vma *vma, uintptr_t h)
{
	struct page *head = pmm_alloc(HUGE_ORDER, GFP_USER | GFP_ZERO);

	if (!head)
		return NULL;
	for (unsigned i = 0; i < (1U << HUGE_ORDER); i++) {
		struct page *p = head + i;

		p->order = 0;
		p->refcount = 1;
		page_mapcount_add(p, 1);
	}
	anon_pages_init(head, 1U << HUGE_ORDER, vma, h);
	return head;
}

/* Undo thp_page_alloc: each frame loses its mapping and its reference (and is freed). */
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

unsigned thp_leaf_state(const struct vma *vma)
{
	unsigned want = mm_vm_to_mmu(vma->flags);

	return want | MMU_ACCESSED | ((want & MMU_WRITE) ? MMU_DIRTY : 0);
}

/* ---- the huge zero page */

phys_addr_t mm_huge_zero_pa;                       /* [huge_zero_lock; read racily] 0: none now */
static unsigned long huge_zero_refs;               /* [huge_zero_lock] address spaces holding it */
static struct spinlock huge_zero_lock = SPINLOCK_INIT("huge_zero");

/*
 * mm's reference to the huge zero page (mm_get_huge_zero_page), the page
 * allocated zeroed at its first use: its physical address, or 0 when no
 * order-9 block is free (counted).
 */
static phys_addr_t huge_zero_get(struct mm *mm)
{
	unsigned long f = spin_lock_irqsave(&huge_zero_lock);
	phys_addr_t pa;

	if (!mm_huge_zero_pa) {
		struct page *p = pmm_alloc(HUGE_ORDER, GFP_USER | GFP_ZERO);

		count_vm_event(p ? VM_THP_ZERO_PAGE_ALLOC : VM_THP_ZERO_PAGE_ALLOC_FAILED);
		if (p)
			smp_store_release(&mm_huge_zero_pa, page_to_phys(p));
	}
	pa = mm_huge_zero_pa;
	if (pa && !mm->huge_zero) {
		mm->huge_zero = true;
		huge_zero_refs++;
	}
	spin_unlock_irqrestore(&huge_zero_lock, f);
	return pa;
}

void thp_zero_dup(struct mm *child, const struct mm *parent)
{
	unsigned long f;

	if (!parent->huge_zero)
		return;
	f = spin_lock_irqsave(&huge_zero_lock);
	child->huge_zero = true;
	huge_zero_refs++;
	spin_unlock_irqrestore(&huge_zero_lock, f);
}

void thp_zero_put(struct mm *mm)
{
	phys_addr_t pa = 0;
	unsigned long f;

	if (!mm->huge_zero)
		return;
	f = spin_lock_irqsave(&huge_zero_lock);
	mm->huge_zero = false;
	BUG_ON(!huge_zero_refs);
	if (--huge_zero_refs == 0) {
		pa = mm_huge_zero_pa;
		smp_store_release(&mm_huge_zero_pa, 0);
	}
	spin_unlock_irqrestore(&huge_zero_lock, f);
	if (pa)
		pmm_free(phys_to_page(pa), HUGE_ORDER);
}

/* do_huge_pmd_anonymous_page's read: the huge zero page at h, read-only. False: fall back to 4 KiB. */
static bool huge_zero_map(struct mm *mm, const struct vma *vma, uintptr_t h)
{
	phys_addr_t pa = huge_zero_get(mm);

	if (!pa) {
		count_vm_event(VM_THP_FAULT_FALLBACK);
		return false;
	}
	if (arch_mmu_map_huge(mm->mmu, h, pa, (mm_vm_to_mmu(vma->flags) & ~MMU_WRITE) | MMU_ACCESSED))
		return false;
	mm_count(&mm->zero_maps, 1);
	return true;
}

/* ---- faults */

static enum mmu_action huge_set_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	unsigned want = *(unsigned *)arg;

	if (!want)
		return MMU_CLEAR;
	*state = want | MMU_HUGE;
	return MMU_UPDATE;
}

static enum mmu_action huge_keep_visit(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	return MMU_KEEP;
}

/* The 2 MiB leaf at h gets state (rights and ACCESSED/DIRTY), or goes when state is 0; flushed. */
static void huge_leaf_set(struct mm *mm, uintptr_t h, unsigned state)
{
	arch_mmu_walk_huge(mm->mmu, h, h + HUGE_SIZE, huge_set_visit, huge_keep_visit, &state, NULL);
}

/* Give back the one reference of each frame in [pa, pa + len) that huge_freeze_exclusive froze. */
static void huge_unfreeze(phys_addr_t pa, uintptr_t len)
{
	for (uintptr_t off = 0; off < len; off += PAGE_SIZE)
		page_ref_unfreeze(phys_to_page(pa + off), 1);
}

/*
 * Freeze every frame of the huge page from pa when this leaf alone maps
 * and holds each (anonymous, one mapping, one reference): true, and no
 * reclaim isolation can take a reference until huge_unfreeze. Else
 * false with nothing frozen. Reclaim isolates frames without pt_lock, so
 * reading the counts and then re-tagging would race it (wp_fault's
 * freeze, for 512 frames).
 */
static bool huge_freeze_exclusive(phys_addr_t pa)
{
	/* A deferred share: another leaf maps it. Only a fork of this space (excluded here) adds one. */
	if (READ_ONCE(*pmm_huge_shares(pa)))
		return false;
	for (uintptr_t off = 0; off < HUGE_SIZE; off += PAGE_SIZE) {
		struct page *p = phys_to_page(pa + off);

		if (!(p->flags & PG_anon) || p->mapcount != 1 || !page_ref_freeze(p, 1)) {
			huge_unfreeze(pa, off);
			return false;
		}
	}
	return true;
}
/*
 * A write to the huge zero page's leaf at h (do_huge_zero_wp_pmd): a
 * zeroed huge page of vma's own replaces it. Without an order-9 block:
 * split, false (the 4 KiB fault maps a page for the one written).
 */
static bool huge_zero_wp(struct mm *mm, struct vma *vma, uintptr_t h, enum fault_result *r)
{
	struct page *head = thp_page_alloc(vma, h);

	if (!head) {
		count_vm_event(VM_THP_FAULT_FALLBACK);
		arch_mmu_split_huge(mm->mmu, h);
		return false;
	}
	huge_leaf_set(mm, h, 0);
	/* A page table it needs can be missing now: the access faults again and maps 4 KiB. */
	if (!huge_install(mm, head, h, thp_leaf_state(vma)))
		count_vm_event(VM_THP_FAULT_ALLOC);
	*r = FAULT_OK;
	return true;
}

/*
 * do_huge_pmd_wp_page: a write to the read-only leaf at va (its 4 KiB
 * frame pa). The huge zero page: huge_zero_wp. Every frame exclusive
 * (and frozen while re-tagged): reuse the leaf writable (true). Else split it, read-only still, and
 * let the 4 KiB fault copy the page written (false).
 */
static bool thp_wp_fault(struct mm *mm, struct vma *vma, uintptr_t va, phys_addr_t pa,
			 enum fault_result *r)
{
	uintptr_t h = ALIGN_DOWN(va, HUGE_SIZE);
	phys_addr_t base = pa - (va - h);

	if (vma_anon_prepare(mm, vma)) {
		*r = FAULT_OOM;
		return true;
	}
	if (mm_is_zero_pa(base))
		return huge_zero_wp(mm, vma, h, r);
	if (!huge_freeze_exclusive(base)) {
		arch_mmu_split_huge(mm->mmu, va);
		return false;
	}
	for (uintptr_t off = 0; off < HUGE_SIZE; off += PAGE_SIZE)
		anon_page_move(phys_to_page(base + off), vma, h + off);
	huge_unfreeze(base, HUGE_SIZE);
	huge_leaf_set(mm, h, mm_vm_to_mmu(vma->flags) | MMU_ACCESSED | MMU_DIRTY);
	mm_count(&mm->cow_reuses, 1);
	*r = FAULT_OK;
	return true;
}

/* do_huge_pmd_anonymous_page: nothing mapped at va (h its 2 MiB slot). */
static bool thp_none_fault(struct mm *mm, struct vma *vma, uintptr_t h, unsigned flags,
			   enum fault_result *r)
{
	struct page *head;

	if (!arch_mmu_huge_free(mm->mmu, h))
		return false;
	if (!vma->anon && (flags & FAULT_VMA_LOCKED)) {
		*r = FAULT_RETRY;       /* the identity needs the mmap_lock (mm/internal.h) */
		return true;
	}
	if (vma_anon_prepare(mm, vma)) {
		*r = FAULT_OOM;
		return true;
	}
	if (!(flags & FAULT_WRITE) && mm->zero_page) {
		if (!huge_zero_map(mm, vma, h))
			return false;
		*r = FAULT_OK;
		return true;
	}
	if (flags & FAULT_NO_HUGE_ALLOC)
		return false;
	/*
	 * Zeroed without pt_lock, as Linux allocates before it takes the PMD
	 * lock: 2 MiB of zeroing (about 262k instructions) would hold up
	 * every other fault and unmap of the address space. The VMA stays
	 * (mmap_lock or VMA lock); the slot may not, and is checked again.
	 */
	mm_pt_unlock(mm);
	head = thp_page_alloc(vma, h);
	mm_pt_lock(mm);
	if (!head)
		count_vm_event(VM_THP_FAULT_FALLBACK);
	if (!head || huge_install(mm, head, h, thp_leaf_state(vma))) {
		*r = FAULT_AGAIN;               /* no block, or the slot was used meanwhile (released) */
		return true;
	}
	count_vm_event(VM_THP_FAULT_ALLOC);
	*r = FAULT_OK;
	return true;
}

bool thp_fault(struct mm *mm, struct vma *vma, uintptr_t va, unsigned flags, phys_addr_t pa, unsigned state,
	       enum fault_result *r)
{
	bool wp = (state & MMU_HUGE) && (flags & FAULT_WRITE) && !(state & MMU_WRITE);

	BUG_ON(state && !(state & MMU_HUGE));
	if (!vma->file && thp_vma_allowed(mm, vma) && thp_vma_fits(vma, va)) {
		if (!state)
			return thp_none_fault(mm, vma, ALIGN_DOWN(va, HUGE_SIZE), flags, r);
		if (wp && (vma->flags & VM_WRITE))
			return thp_wp_fault(mm, vma, va, pa, r);
	}
	/* The 4 KiB fault reads a frame's own counts (wp_fault): no deferred shares left out ("Deferred shares"). */
	if (wp && READ_ONCE(*pmm_huge_shares(pa)))
		arch_mmu_split_huge(mm->mmu, va);
	return false;
}

bool thp_copy_leaf(struct mm *mm, uintptr_t from, uintptr_t to, int *err)
{
	phys_addr_t pa;
	unsigned st;
	int e;

	if (arch_mmu_query(mm->mmu, from, &pa, &st) || !(st & MMU_HUGE))
		return false;
	e = arch_mmu_map_huge(mm->mmu, to, pa, st & ~MMU_HUGE);
	if (e == -EEXIST)
		return false;           /* an (empty) page table at to: the 4 KiB way */
	*err = e;
	return true;
}

unsigned long thp_anon_blocks(void)
{
	phys_addr_t zero = smp_load_acquire(&mm_huge_zero_pa);
	unsigned long n = arch_mmu_huge_blocks_all();
	int32_t *zmaps = zero ? pmm_huge_maps(zero) : NULL;

	/* The huge zero page is no anonymous page (Linux maps it without rmap). */
	if (zmaps && READ_ONCE(*zmaps) > 0 && n)
		n--;
	return n;
}

int thp_share(struct mm *child, uintptr_t h, phys_addr_t pa, unsigned *state)
{
	bool zero = mm_is_zero_pa(pa);
	struct page *head;

	/* copy_huge_pmd: write-protected and old in both, dirty kept. */
	*state &= ~MMU_WRITE;
	if (arch_mmu_map_huge(child->mmu, h, pa, *state & ~(MMU_HUGE | MMU_ACCESSED)))
		return -ENOMEM;
	if (zero)
		return 0;               /* the child holds the huge zero page already (thp_zero_dup) */
	head = phys_to_page(pa);
	BUG_ON(!(head->flags & PG_anon));
	__atomic_add_fetch(pmm_huge_shares(pa), 1, __ATOMIC_RELAXED);  /* "Deferred shares" */
	mm_count(&child->rss, 1L << HUGE_ORDER);
	return 0;
}

bool huge_share_drop(phys_addr_t pa)
{
	int32_t *shares = pmm_huge_shares(pa);
	int32_t n = READ_ONCE(*shares);

	while (n > 0)
		if (__atomic_compare_exchange_n(shares, &n, n - 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return true;
	return false;
}

void thp_leaf_split(phys_addr_t pa)
{
	struct page *head;

	if (!READ_ONCE(*pmm_huge_shares(pa)))
		return;
	/*
	 * The frames get this leaf's counts before a share goes: dropped
	 * first, another leaf's zap (another address space, another
	 * pt_lock) could find no share and take the frames to zero meanwhile.
	 */
	head = phys_to_page(pa);        /* the block's frames are consecutive struct pages */
	for (unsigned i = 0; i < (1U << HUGE_ORDER); i++) {
		user_page_get(&head[i]);
		page_mapcount_add(&head[i], 1);
	}
	if (huge_share_drop(pa))
		return;
	/* That zap took the last share: this leaf's counts were the frames' already. Never the last. */
	for (unsigned i = 0; i < (1U << HUGE_ORDER); i++) {
		page_mapcount_add(&head[i], -1);
		user_page_put(&head[i]);
	}
}
