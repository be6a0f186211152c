/*
 * TLB batching, counted (host and kernel): each VM operation that takes
 * rights away asks for exactly one flush, however many VMAs and pages it
 * covers (a munmap over three VMAs, an mprotect merging five, a
 * MADV_DONTNEED over two), none when it changes no entry; and the frames it
 * unmapped are free once it returns (they wait in the batch until the
 * flush, then go back exactly). Who gets flushed where is the kernel's tlb
 * suite; this one is about the batching in mm/.
 *
 *   A: [0 RW][1 R ][2 RW][3 RW][4 RW][5 RW]   six written pages, three VMAs
 */
#include "ktest.h"
#include "arch_mmu.h"
#include "test_mm_util.h"

#define A 0x30000000UL

static unsigned long flushes(void)
{
	struct tlb_stats s;

	arch_tlb_stats(&s);
	return s.flushes;
}

static struct mm *six_pages(struct ktest *t)
{
	struct mm *mm = mm_create();

	if (!mm)
		return NULL;
	if (vm_mmap(mm, A, 6 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) != (long)A) {
		mm_put(mm);
		return NULL;
	}
	for (unsigned i = 0; i < 6; i++)
		ut_write8(mm, A + i * PAGE_SIZE, (uint8_t)(i + 1));
	vm_mprotect(mm, A + PAGE_SIZE, PAGE_SIZE, PROT_READ);
	return mm;
}

static void test_munmap_flushes_once(struct ktest *t)
{
	struct mm *mm;
	unsigned long f0;
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	mm = six_pages(t);
	ASSERT_TRUE(t, mm != NULL);
	EXPECT_EQ(t, mm->map_count, 3);
	f0 = flushes();
	EXPECT_EQ(t, vm_munmap(mm, A, 6 * PAGE_SIZE), 0);
	EXPECT_EQ(t, flushes() - f0, 1);
	EXPECT_EQ(t, mm->rss, 0);
	f0 = flushes();
	EXPECT_EQ(t, vm_munmap(mm, A, 6 * PAGE_SIZE), 0);      /* nothing mapped: nothing to flush */
	EXPECT_EQ(t, flushes() - f0, 0);
	mm_put(mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

static void test_mprotect_flushes_once(struct ktest *t)
{
	struct mm *mm = six_pages(t);
	unsigned long f0;

	ASSERT_TRUE(t, mm != NULL);
	EXPECT_EQ(t, vm_mprotect(mm, A + 3 * PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_EXEC), 0);
	EXPECT_EQ(t, mm->map_count, 5);
	f0 = flushes();
	EXPECT_EQ(t, vm_mprotect(mm, A, 6 * PAGE_SIZE, PROT_READ), 0);
	EXPECT_EQ(t, flushes() - f0, 1);        /* (one VMA again: the merge suites check that) */
	f0 = flushes();
	EXPECT_EQ(t, vm_mprotect(mm, A, 6 * PAGE_SIZE, PROT_READ), 0);   /* no entry changes */
	EXPECT_EQ(t, flushes() - f0, 0);
	mmap_read_lock(mm);
	EXPECT_EQ(t, vma_check(mm), 0);
	mmap_read_unlock(mm);
	mm_put(mm);
}

static void test_dontneed_flushes_once(struct ktest *t)
{
	struct mm *mm = six_pages(t);
	unsigned long f0;
	size_t before;

	ASSERT_TRUE(t, mm != NULL);
	before = ut_free_frames();
	f0 = flushes();
	EXPECT_EQ(t, vm_madvise(mm, A, 3 * PAGE_SIZE, MADV_DONTNEED), 0);    /* two VMAs */
	EXPECT_EQ(t, flushes() - f0, 1);
	EXPECT_EQ(t, ut_free_frames(), before + 3);     /* the frames are back once it returns */
	EXPECT_EQ(t, ut_read8(mm, A), 0);
	EXPECT_EQ(t, ut_read8(mm, A + 3 * PAGE_SIZE), 4);
	mm_put(mm);
}

static const struct ktest_case tlb_batch_cases[] = {
	KTEST_CASE(test_munmap_flushes_once),
	KTEST_CASE(test_mprotect_flushes_once),
	KTEST_CASE(test_dontneed_flushes_once),
	{ 0 },
};
KTEST_SUITE(tlb_batch, tlb_batch_cases);
