/*
 * munmap, mprotect and MAP_FIXED across 60,000 VMAs, through the system-call
 * cores (vm_mmap, vm_mprotect, vm_munmap), on every index backend.
 *
 * The B-tree once reserved nodes for an operation quadratically in the
 * number of VMAs it touched, so munmap or MAP_FIXED over about 2,000 VMAs
 * or more failed with -ENOMEM. Linux does all three (user/tests/
 * test_many_vmas.c runs the same steps as a program, on Linux and on this
 * kernel). 60,000 is below Linux's default vm.max_map_count, 65530.
 *
 * Layout: VMA i is [BASE + 2i pages, BASE + 2i + 2 pages), adjacent to the
 * next, read-only for even i and read-write for odd i (so nothing merges),
 * mapped from the top down (so the list backends insert at their head: the
 * build is linear for them). Expected values follow from the layout and
 * Linux's rules; each is explained next to it.
 *
 * Quadratic on the list backends (a lookup walks the list): the host runs
 * it in make test, the kernel only when asked (ktest=vma_many).
 */
#include "test_mm_util.h"
#include "kerrno.h"

#define MANY_N    60000
#define MANY_BASE 0x10000000UL
#define MANY_PA   (MAP_PRIVATE | MAP_ANONYMOUS)
#define MANY_PG(i) (MANY_BASE + (uintptr_t)(i) * PAGE_SIZE)

/* An address space on the case's backend holding the MANY_N VMAs, or NULL (failed). */
static struct mm *many_setup(struct ktest *t)
{
	struct mm *mm = mm_create_backend(vma_backends[t->param]);
	unsigned i;

	if (!mm) {
		ktest_fail(t, __FILE__, __LINE__, "mm_create_backend failed");
		return NULL;
	}
	for (i = MANY_N; i-- > 0;) {
		long r = vm_mmap(mm, MANY_PG(2 * i), 2 * PAGE_SIZE, i % 2 ? PROT_READ | PROT_WRITE : PROT_READ,
				 MANY_PA | MAP_FIXED);
		if (r != (long)MANY_PG(2 * i)) {
			ktest_fail(t, __FILE__, __LINE__, "mmap of VMA %u returned %ld", i, r);
			mm_put(mm);
			return NULL;
		}
	}
	EXPECT_EQ(t, mm->map_count, MANY_N);
	return mm;
}

static size_t many_count(struct mm *mm)
{
	size_t n;

	mmap_read_lock(mm);
	n = mm->index.count;
	mmap_read_unlock(mm);
	return n;
}

/* munmap of the whole span: every VMA goes, nothing needs to be reserved for it. */
static void test_many_munmap(struct ktest *t)
{
	struct mm *mm = many_setup(t);

	if (!mm)
		return;
	EXPECT_EQ(t, vm_munmap(mm, MANY_BASE, 2UL * MANY_N * PAGE_SIZE), 0);
	EXPECT_EQ(t, mm->map_count, 0);
	EXPECT_EQ(t, many_count(mm), 0);
	mm_put(mm);
}

/*
 * munmap from the middle of the first VMA to the middle of the last: the
 * first keeps its lower page, the last its upper page, the rest go (2 VMAs
 * left).
 */
static void test_many_munmap_partial(struct ktest *t)
{
	struct mm *mm = many_setup(t);

	if (!mm)
		return;
	EXPECT_EQ(t, vm_munmap(mm, MANY_PG(1), MANY_PG(2 * (MANY_N - 1) + 1) - MANY_PG(1)), 0);
	EXPECT_EQ(t, mm->map_count, 2);
	mmap_read_lock(mm);
	EXPECT_EQ(t, vma_check(mm), 0);
	mmap_read_unlock(mm);
	mm_put(mm);
}

/*
 * mprotect read-write from the middle of the first VMA to the middle of the
 * last (odd, so already read-write): the first is split, its upper page
 * merges with VMA 1, and every read-only VMA that turns read-write merges
 * with both neighbours (Linux's vma_modify_flags merges as ours does): two
 * VMAs remain, [BASE, +1 page) read-only and the rest read-write.
 */
static void test_many_mprotect(struct ktest *t)
{
	struct mm *mm = many_setup(t);
	uintptr_t end = MANY_PG(2 * (MANY_N - 1) + 1);
	struct vma *v;

	if (!mm)
		return;
	EXPECT_EQ(t, vm_mprotect(mm, MANY_PG(1), end - MANY_PG(1), PROT_READ | PROT_WRITE), 0);
	EXPECT_EQ(t, mm->map_count, 2);
	mmap_read_lock(mm);
	EXPECT_EQ(t, vma_check(mm), 0);
	v = vma_first(mm);
	ASSERT_TRUE(t, v != NULL);
	EXPECT_EQ(t, v->end, MANY_PG(1));
	v = vma_next(mm, v);
	ASSERT_TRUE(t, v != NULL);
	EXPECT_EQ(t, v->start, MANY_PG(1));
	EXPECT_EQ(t, v->end, MANY_PG(2 * MANY_N));
	EXPECT_EQ(t, v->flags & VM_ACCESS_FLAGS, VM_READ | VM_WRITE);
	mmap_read_unlock(mm);
	mm_put(mm);
}

/* MAP_FIXED over the whole span replaces every VMA by one. */
static void test_many_map_fixed(struct ktest *t)
{
	struct mm *mm = many_setup(t);

	if (!mm)
		return;
	EXPECT_EQ(t, vm_mmap(mm, MANY_BASE, 2UL * MANY_N * PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MANY_PA | MAP_FIXED), (long)MANY_BASE);
	EXPECT_EQ(t, mm->map_count, 1);
	EXPECT_EQ(t, many_count(mm), 1);
	mm_put(mm);
}

static const struct ktest_case vma_many_cases[] = {
	KTEST_CASE(test_many_munmap),
	KTEST_CASE(test_many_munmap_partial),
	KTEST_CASE(test_many_mprotect),
	KTEST_CASE(test_many_map_fixed),
	{ 0 },
};

static const struct ktest_suite vma_many_suite = {
	.name = "vma_many",
	.cases = vma_many_cases,
	.param_name = vma_backend_name,        /* once per registered backend */
	.flags = KTEST_SLOW,
};
KTEST_REGISTER(vma_many_suite);
