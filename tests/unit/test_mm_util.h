/*
 * Helpers for the mm tests (tests/unit/test_mm_*.c), host and kernel.
 *
 * ut_access performs a user access the way the CPU does: translate through
 * mm's page tables, call handle_mm_fault on a miss or a forbidden access,
 * retry (mm_soft_access, the same code on the host, over simulated RAM,
 * and in the kernel, over the real x86 tables through the direct map), so
 * the fault logic is the one under test on both sides.
 */
#ifndef TEST_MM_UTIL_H
#define TEST_MM_UTIL_H

#include "ktest.h"
#include "mm.h"
#include "mm/internal.h"
#include "arch_mmu.h"
#include "pmm.h"
#include "slab.h"
#include "kstring.h"
#include "arch.h"
#include "swap.h"
#include "blockdev.h"
#include "kerrno.h"
#ifdef HOSTED
#include "hosted.h"
#endif

/* A user access as the CPU makes it (mm_soft_access): FAULT_OK or the fault's result. */
static inline int ut_access(struct mm *mm, uintptr_t va, unsigned access, void *buf, size_t len)
{
	return mm_soft_access(mm, va, access, buf, len);
}

static inline int ut_write8(struct mm *mm, uintptr_t va, uint8_t v)
{
	return ut_access(mm, va, FAULT_WRITE, &v, 1);
}

/* The byte at va as a user read sees it, or -(fault result) - 1000 on a fault. */
static inline int ut_read8(struct mm *mm, uintptr_t va)
{
	uint8_t v = 0;
	int r = ut_access(mm, va, FAULT_READ, &v, 1);

	return r == FAULT_OK ? v : -1000 - r;
}
#define UT_READ_FAULT(r) (-1000 - (r))

static inline phys_addr_t ut_pa(struct mm *mm, uintptr_t va)
{
	phys_addr_t pa = 0;

	return arch_mmu_query(mm->mmu, va & PAGE_MASK, &pa, NULL) == 0 ? pa : 0;
}

static inline unsigned ut_state(struct mm *mm, uintptr_t va)
{
	unsigned st = 0;

	return arch_mmu_query(mm->mmu, va & PAGE_MASK, NULL, &st) == 0 ? st : 0xdead;
}

/* Bytes of AnonHugePages (smaps) in the VMA containing va (0 without one: a lab's skeleton may leave none). */
static inline unsigned long ut_anon_huge(struct mm *mm, uintptr_t va)
{
	struct vm_usage u = { 0 };
	struct vma *v;

	mmap_read_lock(mm);
	v = vma_lookup(mm, va);
	if (v)
		vm_usage_add(mm, v, &u);
	mmap_read_unlock(mm);
	return u.anon_huge;
}

/* Frames free once caches have given back their empty slabs. */
/* Free every empty page-table page of m below the root (as an unmap of everything would), flushed. */
static inline void ut_free_tables(struct arch_mmu *m)
{
	struct tlb_batch b;

	tlb_batch_init(&b, m, false);
	arch_mmu_free_tables(m, 0, TASK_SIZE, 0, 0, 3, &b);
	arch_tlb_flush(&b);
}

static inline size_t ut_free_frames(void)
{
	slab_shrink_all();
	return pmm_free_frames();
}

/* Hold every free frame in a list (OOM injection); returns how many. */
static inline size_t ut_grab_all_frames(struct list_head *held)
{
	size_t n = 0;
	struct page *p;

	while ((p = pmm_alloc(0, 0)) != NULL) {
		list_add(&p->lru, held);
		n++;
	}
	return n;
}

static inline void ut_release_frames(struct list_head *held)
{
	while (!list_empty(held)) {
		struct page *p = list_first_entry(held, struct page, lru);

		list_del(&p->lru);
		pmm_free(p, 0);
	}
}

/*
 * ut_swap_hold / ut_swap_release: switch off the swap area the kernel
 * booted with (vda: make test's kernel stage attaches one) for a test
 * whose expectations assume reclaim has no swap (or its own RAM-disk
 * area), and on again. hold returns the disk, or NULL when none was on
 * (the host) or its slots are in use (it then stays on).
 */
static inline struct blockdev *ut_swap_hold(void)
{
	struct blockdev *d = blockdev_find("vda");
	int type = d ? swap_type_of(d) : -1;

	return type >= 0 && swap_off((unsigned)type) == 0 ? d : NULL;
}

static inline void ut_swap_release(struct blockdev *d)
{
	if (d)
		swap_on(d);
}

/* A RAM-disk swap area of a case's own (ut_swap_area_on / ut_swap_area_off). */
struct ut_swap_area {
	struct blockdev *dev;
	int type;
};

/*
 * ut_swap_area_on: turn on a swap area of pages slots in a new RAM disk;
 * false (the case skipped) when one is on already, or failed when none
 * can be made.
 */
static inline bool ut_swap_area_on(struct ktest *t, struct ut_swap_area *a, unsigned long pages)
{
	if (swap_total_pages()) {
		ktest_skip(t, "a swap area is on already");
		return false;
	}
	a->dev = ramdisk_create((uint64_t)pages * SWAP_SECTORS_PER_SLOT);
	__KT_CMP(t, a->dev != NULL, ==, 1, return false);
	a->type = swap_on(a->dev);
	__KT_CMP(t, a->type >= 0, ==, 1, return false);
	return true;
}

static inline void ut_swap_area_off(struct ktest *t, struct ut_swap_area *a)
{
	EXPECT_EQ(t, swap_off((unsigned)a->type), 0);
	ramdisk_destroy(a->dev);
}

/* UT_CASE_WITHOUT_SWAP(name): the case name runs name_body with the kernel's swap area held off. */
#define UT_CASE_WITHOUT_SWAP(name)                                  \
	static void name(struct ktest *t)                           \
	{                                                           \
		struct blockdev *held = ut_swap_hold();             \
		name##_body(t);                                     \
		ut_swap_release(held);                              \
	}

/*
 * Create and destroy one address space so lazily made caches and the zero
 * page exist, and make swap I/O's staging buffer (64 frames, made by the
 * boot's first swap_on and kept): a case that turns a swap area on counts
 * free frames before it, and must not depend on an earlier case having
 * done so first (a lab skeleton's failed cases do not).
 */
static inline void ut_warm_up(void)
{
	struct mm *mm = mm_create();

	swap_io_init();

	if (mm) {
		long a = vm_mmap(mm, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
		long s = vm_mmap(mm, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS);

		if (a > 0)
			ut_write8(mm, (uintptr_t)a, 1);
		if (s > 0)
			ut_write8(mm, (uintptr_t)s, 1);
		mm_put(mm);
	}
}

/*
 * Looking at the VMAs from a test, as a real reader does: under the
 * mmap_lock for reading (the lookups assert it). The VMA returned stays
 * valid after the unlock because the test itself is the only one that
 * changes mm, and it does so only through calls that take the lock.
 */
static inline struct vma *ut_vma(struct mm *mm, uintptr_t addr)
{
	struct vma *v;

	mmap_read_lock(mm);
	v = vma_lookup(mm, addr);
	mmap_read_unlock(mm);
	return v;
}

/* vma_check (and with merged, vma_check_merged too) under the read lock: 0 or -EINVAL. */
static inline int ut_vma_check(struct mm *mm)
{
	int err;

	mmap_read_lock(mm);
	err = vma_check(mm);
	mmap_read_unlock(mm);
	return err;
}

static inline int ut_vma_check_merged(struct mm *mm)
{
	int err;

	mmap_read_lock(mm);
	err = vma_check_merged(mm);
	mmap_read_unlock(mm);
	return err;
}

/* VMAs of mm that intersect [start, end), counted under the read lock. */
static inline unsigned ut_vmas_in(struct mm *mm, uintptr_t start, uintptr_t end)
{
	unsigned n = 0;

	mmap_read_lock(mm);
	for (struct vma *v = vma_first(mm); v; v = vma_next(mm, v))
		if (v->start < end && v->end > start)
			n++;
	mmap_read_unlock(mm);
	return n;
}

/*
 * Drawings of an address space, one character per page from a base page,
 * at most UT_DRAW_PAGES pages (tests describe layouts with them instead of
 * prose). Three rows, each compared only when the test gives it (NULL
 * skips it); trailing spaces are cut:
 *   vmas   each VMA a run of one letter, holes spaces: "AA BB" is two VMAs
 *          of two pages with a one-page hole; letters are renamed in order
 *          on both sides, so only the run boundaries matter ("XXYY" ==
 *          "AABB").
 *   prot   each page its VMA's permissions: '-' none, 'r' read, 'w' read
 *          and write, 'x' read and exec, 'X' all three, '?' any other mix.
 *   pages  each page's page-table entry: 'w' a frame mapped writable, 'r'
 *          a frame mapped without write, 'n' a frame mapped with no access
 *          (PROT_NONE), 's' a swap entry, 'g' a guard marker, '.' no entry
 *          inside a VMA, ' ' no entry outside any.
 * Every VMA must lie in the drawn pages (one outside is a failure). The
 * drawing is made under the mmap_lock: the running task's, if it holds
 * it for writing (a fixture running a case as one long system call), else
 * taken for reading here.
 */
#define UT_DRAW_PAGES 64

enum ut_row { UT_ROW_VMAS, UT_ROW_PROT, UT_ROW_PAGES };

static inline char ut_prot_char(unsigned long flags)
{
	switch (flags & (VM_READ | VM_WRITE | VM_EXEC)) {
	case 0:                            return '-';
	case VM_READ:                      return 'r';
	case VM_READ | VM_WRITE:           return 'w';
	case VM_READ | VM_EXEC:            return 'x';
	case VM_READ | VM_WRITE | VM_EXEC: return 'X';
	default:                           return '?';
	}
}

static inline char ut_page_char(struct mm *mm, uintptr_t va, bool in_vma)
{
	unsigned st = 0;

	switch (arch_mmu_query(mm->mmu, va, NULL, &st)) {
	case 0:
		if (st & MMU_WRITE)
			return 'w';
		return st & (MMU_READ | MMU_EXEC) ? 'r' : 'n';
	case -EAGAIN:
		return 's';
	case -EFAULT:
		return 'g';
	default:
		return in_vma ? '.' : ' ';
	}
}

/*
 * ut_draw: row `row` of mm's pages [base, base + size - 1 pages) into buf
 * (size bytes, NUL-terminated, trailing spaces cut). The caller holds the
 * mmap_lock. false when a VMA lies outside the drawn pages.
 */
static inline bool ut_draw(struct mm *mm, uintptr_t base, enum ut_row row, char *buf, size_t size)
{
	uintptr_t end = base + (uintptr_t)(size - 1) * PAGE_SIZE;
	size_t i, n = 0, len = 0;
	struct vma *v;
	bool fits = true;

	memset(buf, ' ', size - 1);
	buf[size - 1] = 0;
	for (v = vma_first(mm); v; v = vma_next(mm, v), n++) {
		if (v->start < base || v->end > end) {
			fits = false;
			continue;
		}
		for (uintptr_t a = v->start; a < v->end; a += PAGE_SIZE)
			buf[(a - base) >> PAGE_SHIFT] = row == UT_ROW_VMAS ? (char)('A' + n % 26) :
							row == UT_ROW_PROT ? ut_prot_char(v->flags) : '.';
	}
	if (row == UT_ROW_PAGES)
		for (i = 0; i < size - 1; i++)
			buf[i] = ut_page_char(mm, base + i * PAGE_SIZE, buf[i] == '.');
	for (i = 0; i < size - 1; i++)
		if (buf[i] != ' ')
			len = i + 1;
	buf[len] = 0;
	return fits;
}

/* Rename the runs of a VMA drawing to A, B, C... in order (the other rows are copied). */
static inline void ut_draw_normalize(const char *in, char *buf, size_t size)
{
	size_t i, n = 0, len = 0;

	for (i = 0; in[i] && i < size - 1; i++) {
		if (in[i] == ' ') {
			buf[i] = ' ';
			continue;
		}
		if (i == 0 || in[i - 1] != in[i])
			n++;
		buf[i] = (char)('A' + (n - 1) % 26);
		len = i + 1;
	}
	buf[len] = 0;
}

static inline void ut_expect_row(struct ktest *t, struct mm *mm, uintptr_t base, enum ut_row row,
				 const char *want, const char *file, int line)
{
	static const char *const names[] = { "vmas", "prot", "pages" };
	char got[UT_DRAW_PAGES + 1], norm[UT_DRAW_PAGES + 1];
	size_t len;

	if (!want)
		return;
	t->checks++;
	if (row == UT_ROW_VMAS) {
		ut_draw_normalize(want, norm, sizeof(norm));
	} else {
		for (len = 0; want[len] && len < sizeof(norm) - 1; len++)
			norm[len] = want[len];
		while (len && norm[len - 1] == ' ')
			len--;
		norm[len] = 0;
	}
	if (!ut_draw(mm, base, row, got, sizeof(got))) {
		ktest_fail(t, file, line, "layout: a VMA lies outside the %d drawn pages", UT_DRAW_PAGES);
		vma_dump(mm);
	} else if (strcmp(got, norm) != 0) {
		ktest_fail(t, file, line, "layout %s: want \"%s\" got \"%s\"", names[row], norm, got);
		vma_dump(mm);
	}
}

static inline void ut_expect_drawing(struct ktest *t, struct mm *mm, uintptr_t base, const char *vmas,
				     const char *prot, const char *pages, const char *file, int line)
{
	bool held = mmap_is_write_locked(mm);

	if (!held)
		mmap_read_lock(mm);
	ut_expect_row(t, mm, base, UT_ROW_VMAS, vmas, file, line);
	ut_expect_row(t, mm, base, UT_ROW_PROT, prot, file, line);
	ut_expect_row(t, mm, base, UT_ROW_PAGES, pages, file, line);
	if (!held)
		mmap_read_unlock(mm);
}

/* UT_EXPECT_DRAWING(mm, base, vmas, prot, pages): the rows above (NULL: not compared). */
#define UT_EXPECT_DRAWING(mm, base, vmas, prot, pages) \
	ut_expect_drawing(t, mm, base, vmas, prot, pages, __FILE__, __LINE__)

#define UT_RW  (PROT_READ | PROT_WRITE)
#define UT_PA  (MAP_PRIVATE | MAP_ANONYMOUS)
#define UT_SA  (MAP_SHARED | MAP_ANONYMOUS)

/* ---- transparent huge pages (test_mm_thp.c, test_mm_khugepaged.c) */

#define HV 0x40000000UL                 /* a 2 MiB-aligned user address */

/*
 * A new address space with len bytes mapped at HV, under thp_mode mode
 * (the caller restores it); *frames: the free frames before it (for
 * ut_thp_done). NULL when it cannot be made.
 */
static inline struct mm *ut_thp_mm(enum thp_mode mode, unsigned long len, size_t *frames)
{
	struct mm *mm;

	ut_warm_up();
	*frames = ut_free_frames();
	thp_mode = mode;
	mm = mm_create();
	if (mm && vm_mmap(mm, HV, len, UT_RW, UT_PA | MAP_FIXED) != (long)HV) {
		mm_put(mm);
		return NULL;
	}
	return mm;
}

/* The end of a case: mm goes, thp_mode is restored, and every frame is back (frames free before). */
static inline void ut_thp_done(struct ktest *t, struct mm *mm, enum thp_mode saved, size_t frames)
{
	mm_put(mm);
	thp_mode = saved;
	EXPECT_EQ(t, ut_free_frames(), frames);
}

#endif
