/*
 * The x86-64 user page tables read from the live format with x86_pt_walk:
 * user leaves carry U, W only for writable mappings (and never on a COW or
 * zero page), NX wherever exec is not allowed; the kernel half is the
 * kernel's; activating an mm makes its user pages reachable at their
 * virtual addresses (SMAP is off); table pages are freed with the last
 * mapping. Expected bits follow the Intel SDM PTE format and include/mm.h.
 */
#include "ktest.h"
#include "mm.h"
#include "mm/internal.h"
#include "arch_mmu.h"
#include "arch.h"
#include "x86.h"
#include "x86_mmu.h"
#include "pmm.h"
#include "kerrno.h"
#include "uaccess.h"

#define U0 0x40000000UL

struct leaf { int rc, level; uint64_t pte, eff; };

static struct leaf walk(struct mm *mm, uintptr_t va)
{
	struct leaf l = { 0, 0, 0, 0 };

	l.rc = x86_pt_walk(arch_mmu_root(mm->mmu), va, &l.pte, &l.level, &l.eff);
	return l;
}

static void test_user_leaf_bits(struct ktest *t)
{
	struct mm *mm = mm_create();
	uintptr_t rw = U0, ro = U0 + 0x10000, rx = U0 + 0x20000;
	const char msg[] = "hello";
	struct leaf l;

	ASSERT_TRUE(t, mm);
	ASSERT_EQ(t, vm_mmap(mm, rw, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), (long)rw);
	ASSERT_EQ(t, vm_mmap(mm, ro, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), (long)ro);
	ASSERT_EQ(t, vm_mmap(mm, rx, PAGE_SIZE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), (long)rx);
	ASSERT_EQ(t, mm_copy_to(mm, rw + 8, msg, sizeof(msg)), 0);
	EXPECT_EQ(t, mm_copy_to(mm, ro, msg, 1), -EFAULT);
	ASSERT_EQ(t, mm_populate(mm, ro, rx + PAGE_SIZE, false), 0);

	l = walk(mm, rw);
	ASSERT_EQ(t, l.rc, 0);
	EXPECT_EQ(t, l.level, 1);
	EXPECT_TRUE(t, l.eff & PTE_U);
	EXPECT_TRUE(t, l.eff & PTE_W);
	if (x86_cpu.nx)
		EXPECT_TRUE(t, l.eff & PTE_NX);
	EXPECT_TRUE(t, l.pte & PTE_D);
	l = walk(mm, ro);                     /* the zero page, read-only, NX */
	ASSERT_EQ(t, l.rc, 0);
	EXPECT_EQ(t, l.pte & PTE_ADDR_MASK, mm_zero_page_phys());
	EXPECT_TRUE(t, l.eff & PTE_U);
	EXPECT_FALSE(t, l.eff & PTE_W);
	if (x86_cpu.nx)
		EXPECT_TRUE(t, l.eff & PTE_NX);
	l = walk(mm, rx);
	ASSERT_EQ(t, l.rc, 0);
	EXPECT_TRUE(t, l.eff & PTE_U);
	EXPECT_FALSE(t, l.eff & PTE_W);
	EXPECT_FALSE(t, l.eff & PTE_NX);
	/* Not mapped: nothing there. */
	EXPECT_EQ(t, walk(mm, U0 + 0x30000).rc, -ENOENT);

	/* The kernel half is the kernel's own. */
	{
		uint64_t kpte, keff, upte, ueff;
		int kl, ul;
		uintptr_t kva = (uintptr_t)test_user_leaf_bits;

		ASSERT_EQ(t, x86_pt_walk(kernel_cr3, kva, &kpte, &kl, &keff), 0);
		ASSERT_EQ(t, x86_pt_walk(arch_mmu_root(mm->mmu), kva, &upte, &ul, &ueff), 0);
		EXPECT_EQ(t, kpte, upte);
		EXPECT_FALSE(t, ueff & PTE_U);
	}

	/*
	 * With the mm active, the kernel reads the user page at its user
	 * address, through the copy helper (the only way in with SMAP on).
	 */
	{
		unsigned long irq = arch_irq_save();
		const char *p = (const char *)(rw + 8);
		char c0 = 0, c4 = 0;

		mm_activate(mm);
		EXPECT_EQ(t, read_cr3() & PTE_ADDR_MASK, arch_mmu_root(mm->mmu));
		EXPECT_EQ(t, copy_from_user(&c0, p, 1), 0);
		EXPECT_EQ(t, copy_from_user(&c4, p + 4, 1), 0);
		mm_activate(NULL);
		arch_irq_restore(irq);
		EXPECT_EQ(t, c0, 'h');
		EXPECT_EQ(t, c4, 'o');
		EXPECT_EQ(t, read_cr3() & PTE_ADDR_MASK, kernel_cr3 & PTE_ADDR_MASK);
	}
	mm_put(mm);
}

/* After fork the private page is write-protected in both trees; munmap frees the tables. */
static void test_cow_and_table_freeing(struct ktest *t)
{
	struct mm *mm = mm_create(), *c;
	const char v = 7;
	size_t before;

	ASSERT_TRUE(t, mm);
	before = arch_mmu_table_pages(mm->mmu);
	EXPECT_EQ(t, before, 1);
	ASSERT_EQ(t, vm_mmap(mm, U0, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), (long)U0);
	ASSERT_EQ(t, mm_copy_to(mm, U0, &v, 1), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(mm->mmu), 4);
	c = mm_dup(mm);
	ASSERT_TRUE(t, c);
	EXPECT_FALSE(t, walk(mm, U0).eff & PTE_W);
	EXPECT_FALSE(t, walk(c, U0).eff & PTE_W);
	EXPECT_EQ(t, walk(mm, U0).pte & PTE_ADDR_MASK, walk(c, U0).pte & PTE_ADDR_MASK);
	ASSERT_EQ(t, mm_copy_to(c, U0, &v, 1), 0);
	EXPECT_TRUE(t, walk(c, U0).eff & PTE_W);
	EXPECT_NE(t, walk(mm, U0).pte & PTE_ADDR_MASK, walk(c, U0).pte & PTE_ADDR_MASK);
	EXPECT_EQ(t, vm_munmap(mm, U0, 2 * PAGE_SIZE), 0);
	EXPECT_EQ(t, arch_mmu_table_pages(mm->mmu), 1);
	mm_put(c);
	mm_put(mm);
}

static const struct ktest_case x86_user_mmu_cases[] = {
	KTEST_CASE(test_user_leaf_bits),
	KTEST_CASE(test_cow_and_table_freeing),
	{ 0 },
};

static const struct ktest_suite x86_user_mmu_suite = {
	"x86_user_mmu", x86_user_mmu_cases, 0, NULL, NULL, NULL, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(x86_user_mmu_suite);
