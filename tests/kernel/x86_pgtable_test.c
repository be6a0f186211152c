/*
 * Kernel page-table permissions, read from the live tables (CR3):
 *
 *   0x0000000000000000 .. user range      not present (NULL page, old identity map)
 *   0xffff888000000000 + pa               direct map: RW, NX, 2M/1G leaves
 *   0xffffffff80000000 + pa               image: text R-X, rodata R--/NX, data+bss RW-/NX
 *
 * Expected values come from the layout in docs/guide.md and linker.ld, not from
 * what the code under test happened to build.
 */
#include "ktest.h"
#include "x86.h"
#include "x86_mmu.h"
#include "arch.h"
#include "pmm.h"
#include "kerrno.h"
#include "memblock.h"

extern const char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern const char __data_start[], __kernel_end[];
extern const char boot_stack_guard[];

static const char ro_marker[] = "a string in .rodata";
static int data_marker = 1;             /* .data */
static int bss_marker;                  /* .bss */

struct perm {
	int rc, level;
	uint64_t pte, eff;
};

static struct perm lookup(uintptr_t va)
{
	struct perm p = { 0, 0, 0, 0 };

	p.rc = x86_pt_walk(read_cr3(), va, &p.pte, &p.level, &p.eff);
	return p;
}

static bool nx_of(const struct perm *p) { return (p->eff & PTE_NX) != 0; }
static bool w_of(const struct perm *p) { return (p->eff & PTE_W) != 0; }

static void test_text_is_rx(struct ktest *t)
{
	struct perm p = lookup((uintptr_t)test_text_is_rx);

	ASSERT_EQ(t, p.rc, 0);
	EXPECT_FALSE(t, w_of(&p));
	EXPECT_FALSE(t, nx_of(&p));
	EXPECT_FALSE(t, p.eff & PTE_U);
	EXPECT_EQ(t, p.level, 1);       /* the image uses 4 KiB pages */
}

static void test_rodata_is_readonly_nx(struct ktest *t)
{
	struct perm p = lookup((uintptr_t)ro_marker);

	ASSERT_EQ(t, p.rc, 0);
	EXPECT_FALSE(t, w_of(&p));
	if (x86_cpu.nx)
		EXPECT_TRUE(t, nx_of(&p));
}

static void test_data_bss_are_rw_nx(struct ktest *t)
{
	uintptr_t addrs[] = { (uintptr_t)&data_marker, (uintptr_t)&bss_marker };

	for (unsigned i = 0; i < ARRAY_SIZE(addrs); i++) {
		struct perm p = lookup(addrs[i]);

		ASSERT_EQ(t, p.rc, 0);
		EXPECT_TRUE(t, w_of(&p));
		if (x86_cpu.nx)
			EXPECT_TRUE(t, nx_of(&p));
	}
}

/* Every page of each image section, not just one sample. */
static void check_section(struct ktest *t, const char *s, const char *e, bool w, bool nx)
{
	for (uintptr_t va = ALIGN_DOWN((uintptr_t)s, PAGE_SIZE); va < (uintptr_t)e; va += PAGE_SIZE) {
		struct perm p = lookup(va);

		if (va == (uintptr_t)boot_stack_guard) {
			ASSERT_EQ(t, p.rc, -ENOENT);    /* the boot stack's guard page */
			continue;
		}
		ASSERT_EQ(t, p.rc, 0);
		ASSERT_EQ(t, w_of(&p), w);
		ASSERT_EQ(t, nx_of(&p), nx && x86_cpu.nx);
		/* the mapping is the image's own physical page */
		ASSERT_EQ(t, p.pte & PTE_ADDR_MASK, (uint64_t)(va - KERNEL_VMA));
	}
}

static void test_every_image_page(struct ktest *t)
{
	check_section(t, __text_start, __text_end, false, false);
	check_section(t, __rodata_start, __rodata_end, false, true);
	check_section(t, __data_start, __kernel_end, true, true);
}

static void test_stack_is_rw_nx(struct ktest *t)
{
	int local = 0;
	struct perm p = lookup((uintptr_t)&local);

	ASSERT_EQ(t, p.rc, 0);
	EXPECT_TRUE(t, w_of(&p));
	if (x86_cpu.nx)
		EXPECT_TRUE(t, nx_of(&p));
}

static void test_direct_map(struct ktest *t)
{
	void *frame = pmm_alloc_frame(0);
	struct perm p;

	ASSERT_TRUE(t, frame != NULL);
	EXPECT_GE(t, (uintptr_t)frame, DIRECT_MAP_BASE);
	EXPECT_LT(t, (uintptr_t)frame, DIRECT_MAP_BASE + memblock_end_of_ram());
	p = lookup((uintptr_t)frame);
	EXPECT_EQ(t, p.rc, 0);
	EXPECT_TRUE(t, w_of(&p));
	if (x86_cpu.nx)
		EXPECT_TRUE(t, nx_of(&p));
	EXPECT_GE(t, p.level, 2);               /* large pages */
	EXPECT_TRUE(t, p.pte & PTE_PS);
	/* the leaf maps the frame's own physical address */
	EXPECT_EQ(t, (p.pte & PTE_ADDR_MASK) + ((uintptr_t)frame & ((1UL << (12 + 9 * (p.level - 1))) - 1)),
		  virt_to_phys(frame));
	pmm_free_frame(frame);
}

static void test_low_memory_unmapped(struct ktest *t)
{
	/* NULL, the first page, the old identity map of the kernel, a user address */
	uintptr_t addrs[] = { 0, 4095, 0x100000, (uintptr_t)__text_start - KERNEL_VMA,
			      0x400000, 0x7ffffffff000UL };

	for (unsigned i = 0; i < ARRAY_SIZE(addrs); i++)
		EXPECT_EQ(t, lookup(addrs[i]).rc, -ENOENT);
}

static void test_control_registers(struct ktest *t)
{
	EXPECT_TRUE(t, read_cr0() & (1UL << 16));       /* CR0.WP: the kernel obeys R/O pages */
	EXPECT_TRUE(t, read_cr0() & (1UL << 31));       /* paging */
	EXPECT_EQ(t, read_cr3() & PTE_ADDR_MASK, kernel_cr3);
	if (x86_cpu.nx)
		EXPECT_TRUE(t, rdmsr(MSR_EFER) & (1UL << 11));
}

static const struct ktest_case x86_pgtable_cases[] = {
	KTEST_CASE(test_text_is_rx),
	KTEST_CASE(test_rodata_is_readonly_nx),
	KTEST_CASE(test_data_bss_are_rw_nx),
	KTEST_CASE(test_every_image_page),
	KTEST_CASE(test_stack_is_rw_nx),
	KTEST_CASE(test_direct_map),
	KTEST_CASE(test_low_memory_unmapped),
	KTEST_CASE(test_control_registers),
	{ NULL, NULL },
};

static const struct ktest_suite x86_pgtable_suite = {
	"x86_pgtable", x86_pgtable_cases, 0, NULL, NULL, NULL, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(x86_pgtable_suite);
