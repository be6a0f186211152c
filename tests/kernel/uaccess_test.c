/*
 * copy_from_user / copy_to_user / strncpy_from_user / clear_user on good and
 * bad pointers: kernel addresses, non-canonical addresses, ranges that wrap
 * or end above TASK_SIZE, unmapped pages, read-only pages. A bad pointer
 * must give -EFAULT, never a panic; a good one demand-faults its pages.
 *
 * The boot context (idle task) borrows a fresh address space for the test:
 *
 *   0x10000000  [ RW page ][ RW page ][ R page ][ hole ... ]
 *               A          A+4K       A+8K      A+12K
 */
#include "ktest.h"
#include "uaccess.h"
#include "task.h"
#include "mm.h"
#include "pmm.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "x86.h"

#define A 0x10000000UL

static struct mm *saved_mm;

static struct mm *borrow_mm(struct ktest *t)
{
	struct mm *mm = mm_create();

	if (!mm)
		return NULL;
	if (vm_mmap(mm, A, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) != (long)A ||
	    vm_mmap(mm, A + 2 * PAGE_SIZE, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) !=
		    (long)(A + 2 * PAGE_SIZE)) {
		mm_put(mm);
		return NULL;
	}
	saved_mm = current->mm;
	current->mm = mm;
	mm_activate(mm);
	return mm;
}

static void return_mm(struct mm *mm)
{
	current->mm = saved_mm;
	mm_activate(saved_mm);
	mm_put(mm);
}

static void test_bad_addresses(struct ktest *t)
{
	char buf[16] = "abc";
	static char kernel_data[16];

	/* kernel half, non-canonical, wrap-around, ending past TASK_SIZE: rejected before any access */
	EXPECT_EQ(t, copy_from_user(buf, kernel_data, 4), -EFAULT);
	EXPECT_EQ(t, copy_to_user(kernel_data, buf, 4), -EFAULT);
	EXPECT_EQ(t, copy_from_user(buf, (void *)0x0000800000000000UL, 4), -EFAULT);
	EXPECT_EQ(t, copy_from_user(buf, (void *)0xdead000000000000UL, 1), -EFAULT);
	EXPECT_EQ(t, copy_from_user(buf, (void *)(TASK_SIZE - 2), 4), -EFAULT);
	EXPECT_EQ(t, copy_to_user((void *)~0UL, buf, 2), -EFAULT);
	EXPECT_EQ(t, clear_user((void *)(TASK_SIZE - 1), 2), -EFAULT);
	EXPECT_EQ(t, strncpy_from_user(buf, (const char *)kernel_data, sizeof(buf)), -EFAULT);
	EXPECT_FALSE(t, access_ok(TASK_SIZE, 1));
	EXPECT_TRUE(t, access_ok(TASK_SIZE - 1, 1));
	EXPECT_TRUE(t, access_ok(0, 0));
	/* NULL and an unmapped user page with no address space at all: the fault is fixed up */
	EXPECT_EQ(t, copy_from_user(buf, NULL, 1), -EFAULT);
	EXPECT_EQ(t, copy_to_user((void *)0x1000, buf, 1), -EFAULT);
	EXPECT_STREQ(t, buf, "abc");
}

static void test_mapped_and_unmapped(struct ktest *t)
{
	size_t free0;
	struct mm *mm;
	char buf[64];

	mm_put(mm_create());            /* first-use allocations (zero page, caches) before measuring */
	slab_shrink_all();
	free0 = pmm_free_frames();
	mm = borrow_mm(t);
	ASSERT_TRUE(t, mm != NULL);

	/* demand paging through copy_to_user, then read back */
	EXPECT_EQ(t, copy_to_user((void *)(A + 100), "hello", 6), 0);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(t, copy_from_user(buf, (const void *)(A + 100), 6), 0);
	EXPECT_STREQ(t, buf, "hello");
	EXPECT_EQ(t, strncpy_from_user(buf, (const char *)(A + 100), sizeof(buf)), 5);
	/* too long: max returned, nothing overflows */
	EXPECT_EQ(t, strncpy_from_user(buf, (const char *)(A + 100), 3), 3);
	/* a copy spanning two pages, the second never touched before */
	EXPECT_EQ(t, copy_to_user((void *)(A + PAGE_SIZE - 3), "xyzw", 4), 0);
	EXPECT_EQ(t, copy_from_user(buf, (const void *)(A + PAGE_SIZE - 3), 4), 0);
	EXPECT_EQ(t, memcmp(buf, "xyzw", 4), 0);
	/* the read-only page reads (zero page) but cannot be written */
	EXPECT_EQ(t, copy_from_user(buf, (const void *)(A + 2 * PAGE_SIZE), 8), 0);
	EXPECT_EQ(t, buf[0], 0);
	EXPECT_EQ(t, copy_to_user((void *)(A + 2 * PAGE_SIZE), "no", 2), -EFAULT);
	EXPECT_EQ(t, clear_user((void *)(A + 2 * PAGE_SIZE - 1), 2), -EFAULT);
	/* running into the hole after the read-only page */
	EXPECT_EQ(t, copy_from_user(buf, (const void *)(A + 3 * PAGE_SIZE - 4), 8), -EFAULT);
	EXPECT_EQ(t, copy_from_user(buf, (const void *)(A + 3 * PAGE_SIZE), 1), -EFAULT);
	/* a string that runs into the hole without a NUL: fill the read-only page first */
	ASSERT_EQ(t, vm_mprotect(mm, A + 2 * PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(t, copy_to_user((void *)(A + 3 * PAGE_SIZE - 4), "xxxx", 4), 0);
	ASSERT_EQ(t, vm_mprotect(mm, A + 2 * PAGE_SIZE, PAGE_SIZE, PROT_READ), 0);
	EXPECT_EQ(t, copy_to_user((void *)(A + 3 * PAGE_SIZE - 4), "yy", 2), -EFAULT);
	EXPECT_EQ(t, strncpy_from_user(buf, (const char *)(A + 3 * PAGE_SIZE - 2), sizeof(buf)), -EFAULT);
	/* below the first mapping */
	EXPECT_EQ(t, copy_to_user((void *)(A - 8), "x", 1), -EFAULT);

	return_mm(mm);
	slab_shrink_all();
	EXPECT_EQ(t, pmm_free_frames(), free0);
}

/* volatile: an access that must happen (and fault); tools/lockless-check allows these two. */
static void read_at(void *arg) { (void)*(volatile char *)arg; }
static void write_at(void *arg) { *(volatile char *)arg = 1; }

/*
 * With SMAP on (arch/x86_64/smap.c), a kernel read or write of a present
 * user page outside the copy helpers faults (a protection violation in
 * kernel mode: error P set, U clear, CR2 the user address) and is reported
 * as an SMAP violation with a backtrace, while the copy helpers still reach
 * the same page. Skipped on a CPU without SMAP (QEMU's default qemu64; make
 * test's user-smap stage boots -cpu max).
 */
static void test_smap_stray_access(struct ktest *t)
{
	struct arch_fault_info fi;
	struct mm *mm;
	char c = 0;

	if (!x86_smap_enabled) {
		ktest_skip(t, "the CPU has no SMAP (QEMU -cpu max has it)");
		return;
	}
	mm = borrow_mm(t);
	ASSERT_TRUE(t, mm != NULL);
	/* make the page present first, so only SMAP can refuse the access */
	EXPECT_EQ(t, copy_to_user((void *)A, "s", 1), 0);
	EXPECT_EQ(t, arch_fault_catch(read_at, (void *)A, &fi), 1);
	EXPECT_EQ(t, fi.vector, (unsigned)VEC_PF);
	EXPECT_EQ(t, fi.cr2, A);
	EXPECT_EQ(t, fi.error & (PF_P | PF_W | PF_U | PF_I), PF_P);   /* protection, read, kernel */
	EXPECT_TRUE(t, fi.violation != NULL && strcmp(fi.violation, "SMAP violation") == 0);
	EXPECT_EQ(t, arch_fault_catch(write_at, (void *)(A + 1), &fi), 1);
	EXPECT_EQ(t, fi.error & (PF_P | PF_W | PF_U | PF_I), PF_P | PF_W);
	EXPECT_TRUE(t, fi.violation != NULL && strcmp(fi.violation, "SMAP violation") == 0);
	/* the helpers still reach it, and the stray write changed nothing */
	EXPECT_EQ(t, copy_from_user(&c, (const void *)A, 1), 0);
	EXPECT_EQ(t, c, 's');
	EXPECT_EQ(t, copy_from_user(&c, (const void *)(A + 1), 1), 0);
	EXPECT_EQ(t, c, 0);
	return_mm(mm);
}

static const struct ktest_case uaccess_cases[] = {
	KTEST_CASE(test_bad_addresses),
	KTEST_CASE(test_mapped_and_unmapped),
	KTEST_CASE(test_smap_stray_access),
	{ 0 },
};

static const struct ktest_suite uaccess_suite = {
	"uaccess", uaccess_cases, 0, NULL, NULL, NULL, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(uaccess_suite);
