/*
 * The swap area (mm/swapfile.c) and the block layer under it
 * (drivers/block/blockdev.c) on a RAM disk (drivers/block/ramdisk.c), on
 * the host and in the kernel. Each test makes its own disk and area and
 * takes both down again, so an area the kernel booted with (swap=vda)
 * is left alone: counts are compared as differences, and allocations
 * name the test's own area (swap_slot_alloc_type).
 *
 * Expected values come from the contract in include/swap.h: a device of
 * N pages has slots 1 .. N-1 (slot 0 is reserved, as Linux's header
 * page), each slot has a reference count, and freeing the last reference
 * frees the slot.
 */
#include "ktest.h"
#include "swap.h"
#include "blockdev.h"
#include "kerrno.h"
#include "kstring.h"
#include "pmm.h"

#define TEST_PAGES 16                   /* slots 1..15 */

struct area {
	struct blockdev *dev;
	int type;
};

/* A RAM disk of pages pages as a swap area; false (and a failed check) if not. */
static bool area_make(struct ktest *t, struct area *a, unsigned pages)
{
	a->dev = ramdisk_create((uint64_t)pages * SWAP_SECTORS_PER_SLOT);
	EXPECT_TRUE(t, a->dev != NULL);
	if (!a->dev)
		return false;
	a->type = swap_on(a->dev);
	EXPECT_GE(t, a->type, 0);
	if (a->type < 0) {
		ramdisk_destroy(a->dev);
		return false;
	}
	return true;
}

static void area_drop(struct ktest *t, struct area *a)
{
	EXPECT_EQ(t, swap_off((unsigned)a->type), 0);
	ramdisk_destroy(a->dev);
}

static void test_entry_packs_type_and_offset(struct ktest *t)
{
	swp_entry_t e = swp_entry(3, 12345);
	swp_entry_t top = swp_entry(MAX_SWAPFILES - 1, (1UL << SWP_OFFSET_BITS) - 1);

	EXPECT_EQ(t, swp_type(e), 3);
	EXPECT_EQ(t, swp_offset(e), 12345);
	EXPECT_EQ(t, swp_type(top), MAX_SWAPFILES - 1);
	EXPECT_EQ(t, swp_offset(top), (1UL << SWP_OFFSET_BITS) - 1);
	EXPECT_EQ(t, swp_entry(0, 0).val, 0);      /* slot 0 of type 0: never allocated */
	EXPECT_LE(t, SWP_TYPE_BITS + SWP_OFFSET_BITS, 58);  /* fits a not-present PTE */
}

static void test_swap_on_counts_slots(struct ktest *t)
{
	unsigned long total = swap_total_pages(), free = swap_free_pages();
	struct area a;

	if (!area_make(t, &a, TEST_PAGES))
		return;
	EXPECT_EQ(t, swap_area_pages(a.type), TEST_PAGES - 1);
	EXPECT_EQ(t, swap_area_free(a.type), TEST_PAGES - 1);
	EXPECT_EQ(t, swap_total_pages(), total + TEST_PAGES - 1);
	EXPECT_EQ(t, swap_free_pages(), free + TEST_PAGES - 1);
	EXPECT_EQ(t, swap_type_of(a.dev), a.type);
	EXPECT_EQ(t, swap_on(a.dev), -EBUSY);
	area_drop(t, &a);
	EXPECT_EQ(t, swap_total_pages(), total);
	EXPECT_EQ(t, swap_free_pages(), free);
	EXPECT_EQ(t, swap_off((unsigned)a.type), -EINVAL);
	EXPECT_EQ(t, swap_off(MAX_SWAPFILES), -EINVAL);
}

static void test_swap_on_rejects_small_and_partial(struct ktest *t)
{
	struct blockdev *one = ramdisk_create(SWAP_SECTORS_PER_SLOT + 7);   /* 1 slot and a bit */
	struct area a;

	ASSERT_TRUE(t, one != NULL);
	EXPECT_EQ(t, swap_on(one), -EINVAL);
	EXPECT_EQ(t, swap_on(NULL), -EINVAL);
	ramdisk_destroy(one);
	/* 5 pages and 3 sectors: the partial page is left out, slot 0 reserved: 4 slots */
	a.dev = ramdisk_create(5 * SWAP_SECTORS_PER_SLOT + 3);
	ASSERT_TRUE(t, a.dev != NULL);
	a.type = swap_on(a.dev);
	ASSERT_GE(t, a.type, 0);
	EXPECT_EQ(t, swap_area_pages(a.type), 4);
	area_drop(t, &a);
}

static void test_alloc_every_slot_then_enospc(struct ktest *t)
{
	bool seen[TEST_PAGES] = { false };
	swp_entry_t e[TEST_PAGES];
	struct area a;

	if (!area_make(t, &a, TEST_PAGES))
		return;
	for (unsigned i = 0; i < TEST_PAGES - 1; i++) {
		ASSERT_EQ(t, swap_slot_alloc_type(a.type, &e[i]), 0);
		EXPECT_EQ(t, swp_type(e[i]), a.type);
		ASSERT_GE(t, swp_offset(e[i]), 1);     /* never slot 0 */
		ASSERT_LT(t, swp_offset(e[i]), TEST_PAGES);
		EXPECT_FALSE(t, seen[swp_offset(e[i])]);
		seen[swp_offset(e[i])] = true;
		EXPECT_EQ(t, swap_slot_count(e[i]), 1);
	}
	EXPECT_EQ(t, swap_area_free(a.type), 0);
	EXPECT_EQ(t, swap_slot_alloc_type(a.type, &e[TEST_PAGES - 1]), -ENOSPC);
	EXPECT_EQ(t, swap_off((unsigned)a.type), -EBUSY);
	/* a slot freed in the middle is the one handed out next */
	EXPECT_EQ(t, swap_slot_free(e[6]), 0);
	EXPECT_EQ(t, swap_area_free(a.type), 1);
	ASSERT_EQ(t, swap_slot_alloc_type(a.type, &e[TEST_PAGES - 1]), 0);
	EXPECT_EQ(t, e[TEST_PAGES - 1].val, e[6].val);
	e[6] = e[TEST_PAGES - 1];
	for (unsigned i = 0; i < TEST_PAGES - 1; i++)
		EXPECT_EQ(t, swap_slot_free(e[i]), 0);
	EXPECT_EQ(t, swap_area_free(a.type), TEST_PAGES - 1);
	area_drop(t, &a);
}

static void test_refcount_dup_and_free(struct ktest *t)
{
	struct area a;
	swp_entry_t e;

	if (!area_make(t, &a, TEST_PAGES))
		return;
	ASSERT_EQ(t, swap_slot_alloc_type(a.type, &e), 0);
	EXPECT_EQ(t, swap_slot_dup(e), 0);         /* fork: parent and child PTEs */
	EXPECT_EQ(t, swap_slot_dup(e), 0);
	EXPECT_EQ(t, swap_slot_count(e), 3);
	EXPECT_EQ(t, swap_area_free(a.type), TEST_PAGES - 2);
	EXPECT_EQ(t, swap_slot_free(e), 2);
	EXPECT_EQ(t, swap_slot_free(e), 1);
	EXPECT_EQ(t, swap_off((unsigned)a.type), -EBUSY);
	EXPECT_EQ(t, swap_area_free(a.type), TEST_PAGES - 2);
	EXPECT_EQ(t, swap_slot_free(e), 0);
	EXPECT_EQ(t, swap_area_free(a.type), TEST_PAGES - 1);
	EXPECT_EQ(t, swap_slot_count(e), 0);
	EXPECT_EQ(t, swap_slot_free(e), -EINVAL);  /* a free slot has no reference to drop */
	EXPECT_EQ(t, swap_slot_dup(e), -EINVAL);
	area_drop(t, &a);
}

static void test_refcount_limit(struct ktest *t)
{
	struct area a;
	swp_entry_t e;

	if (!area_make(t, &a, TEST_PAGES))
		return;
	ASSERT_EQ(t, swap_slot_alloc_type(a.type, &e), 0);
	for (unsigned i = 1; i < SWAP_MAP_MAX; i++)
		ASSERT_EQ(t, swap_slot_dup(e), 0);
	EXPECT_EQ(t, swap_slot_count(e), SWAP_MAP_MAX);
	EXPECT_EQ(t, swap_slot_dup(e), -ENOMEM);
	EXPECT_EQ(t, swap_slot_count(e), SWAP_MAP_MAX);
	for (unsigned i = SWAP_MAP_MAX; i > 0; i--)
		ASSERT_EQ(t, swap_slot_free(e), (int)i - 1);
	area_drop(t, &a);
}

static void test_bad_entries(struct ktest *t)
{
	struct area a;

	if (!area_make(t, &a, TEST_PAGES))
		return;
	EXPECT_EQ(t, swap_slot_dup(swp_entry(a.type, 0)), -EINVAL);          /* the reserved slot */
	EXPECT_EQ(t, swap_slot_free(swp_entry(a.type, 0)), -EINVAL);
	EXPECT_EQ(t, swap_slot_count(swp_entry(a.type, 0)), -EINVAL);
	EXPECT_EQ(t, swap_slot_count(swp_entry(a.type, TEST_PAGES)), -EINVAL); /* past the end */
	EXPECT_EQ(t, swap_slot_free(swp_entry(a.type, TEST_PAGES)), -EINVAL);
	EXPECT_EQ(t, swap_slot_count(swp_entry(MAX_SWAPFILES + 1, 1)), -EINVAL);
	EXPECT_EQ(t, swap_slot_alloc_type(MAX_SWAPFILES, NULL), -EINVAL);
	area_drop(t, &a);
	EXPECT_EQ(t, swap_slot_count(swp_entry(a.type, 1)), -EINVAL);       /* area off */
	EXPECT_EQ(t, swap_slot_alloc_type(a.type, NULL), -EINVAL);
}

static void fill(struct page *pg, unsigned seed)
{
	uint32_t *w = page_address(pg);

	for (unsigned i = 0; i < PAGE_SIZE / 4; i++)
		w[i] = seed * 2654435761U + i;
}

static void test_page_round_trip(struct ktest *t)
{
	struct page *out = pmm_alloc(0, 0), *in = pmm_alloc(0, 0);
	swp_entry_t e[3];
	struct area a;

	ASSERT_TRUE(t, out && in);
	if (!area_make(t, &a, TEST_PAGES))
		goto out;
	for (unsigned i = 0; i < 3; i++) {
		ASSERT_EQ(t, swap_slot_alloc_type(a.type, &e[i]), 0);
		fill(out, i + 1);
		EXPECT_EQ(t, swap_write_page(e[i], out), 0);
	}
	for (unsigned i = 3; i-- > 0;) {       /* back in another order, into another page */
		memset(page_address(in), 0, PAGE_SIZE);
		EXPECT_EQ(t, swap_read_page(e[i], in), 0);
		fill(out, i + 1);
		EXPECT_EQ(t, memcmp(page_address(in), page_address(out), PAGE_SIZE), 0);
	}
	/* the slot's sectors on the device: offset * 8 */
	EXPECT_EQ(t, blockdev_read(a.dev, swp_offset(e[1]) * SWAP_SECTORS_PER_SLOT, page_address(in),
				   SWAP_SECTORS_PER_SLOT), 0);
	fill(out, 2);
	EXPECT_EQ(t, memcmp(page_address(in), page_address(out), PAGE_SIZE), 0);
	ramdisk_fail_next(a.dev, 1);
	EXPECT_EQ(t, swap_read_page(e[0], in), -EIO);
	for (unsigned i = 0; i < 3; i++)
		EXPECT_EQ(t, swap_slot_free(e[i]), 0);
	EXPECT_EQ(t, swap_write_page(e[0], out), -EINVAL);     /* freed: no I/O on it */
	EXPECT_EQ(t, swap_read_page(e[0], in), -EINVAL);
	EXPECT_EQ(t, swap_read_page(swp_entry(a.type, 0), in), -EINVAL);
	area_drop(t, &a);
out:
	if (out)
		pmm_free(out, 0);
	if (in)
		pmm_free(in, 0);
}

/*
 * A batch's slots come in a row (include/swap.h, swap_slots_alloc): in an
 * area of 31 slots, all taken one by one and then 2, 4, 6 and 20-31 freed,
 * the allocation point is back at 1, where one-by-one next-fit would hand
 * out 2, 4, 6, 20; a batch of 4 gets 20-23 instead, and the next batch
 * 24-27. When no run of the batch's size is free (8 asked, 7 free: 28-31
 * and the holes), single slots are taken and the count says how many; a
 * full area gives 0.
 */
static void test_batch_slots_in_a_row(struct ktest *t)
{
	struct area a;
	swp_entry_t one[31], b1[4], b2[4], b3[8];
	unsigned got;

	if (!area_make(t, &a, 32))              /* slots 1..31 */
		return;
	for (unsigned i = 0; i < 31; i++)
		ASSERT_EQ(t, swap_slot_alloc_type((unsigned)a.type, &one[i]), 0);
	for (unsigned i = 0; i < 31; i++)       /* 1..31 all taken; now free 2, 4, 6 and 20..31 */
		if (i == 1 || i == 3 || i == 5 || i >= 19)
			swap_slot_free(one[i]);
	/* next-fit now points past 31, i.e. at 1: one by one, the first four would be 2, 4, 6, 20 */
	EXPECT_EQ(t, swap_slots_alloc_type((unsigned)a.type, b1, 4), 4);
	for (unsigned k = 1; k < 4; k++)
		EXPECT_EQ(t, swp_offset(b1[k]), swp_offset(b1[0]) + k);
	EXPECT_EQ(t, swp_offset(b1[0]), 20);
	EXPECT_EQ(t, swap_slots_alloc_type((unsigned)a.type, b2, 4), 4);
	for (unsigned k = 0; k < 4; k++)
		EXPECT_EQ(t, swp_offset(b2[k]), 24 + k);
	/* free now: 2, 4, 6, 28..31; no run of 8: the 7 free slots come singly */
	got = swap_slots_alloc_type((unsigned)a.type, b3, 8);
	EXPECT_EQ(t, got, 7);
	EXPECT_EQ(t, swap_slots_alloc_type((unsigned)a.type, b1, 4), 0);   /* full */
	for (unsigned k = 0; k < got; k++)
		swap_slot_free(b3[k]);
	for (unsigned k = 0; k < 4; k++) {
		swap_slot_free(b1[k]);
		swap_slot_free(b2[k]);
	}
	for (unsigned i = 0; i < 31; i++)
		if (!(i == 1 || i == 3 || i == 5 || i >= 19))
			swap_slot_free(one[i]);
	area_drop(t, &a);
}

static void test_blockdev_checks_ranges(struct ktest *t)
{
	struct blockdev *d = ramdisk_create(20);
	char buf[2 * SECTOR_SIZE];
	struct blockdev dup;

	ASSERT_TRUE(t, d != NULL);
	EXPECT_EQ(t, d->sector_size, SECTOR_SIZE);
	EXPECT_EQ(t, d->capacity, 20);
	EXPECT_TRUE(t, blockdev_find(d->name) == d);
	EXPECT_TRUE(t, blockdev_find("no-such-disk") == NULL);
	memset(buf, 0x5a, sizeof(buf));
	EXPECT_EQ(t, blockdev_read(d, 18, buf, 2), 0);        /* never written: zeros */
	EXPECT_EQ(t, buf[0], 0);
	EXPECT_EQ(t, buf[sizeof(buf) - 1], 0);
	EXPECT_EQ(t, blockdev_read(d, 19, buf, 2), -EINVAL);  /* one sector past the end */
	EXPECT_EQ(t, blockdev_write(d, 20, buf, 1), -EINVAL);
	EXPECT_EQ(t, blockdev_read(d, 0, buf, 0), -EINVAL);
	EXPECT_EQ(t, blockdev_read(d, UINT64_MAX, buf, 2), -EINVAL);   /* sector + n wraps */
	EXPECT_EQ(t, blockdev_read(d, 0, NULL, 1), -EINVAL);
	EXPECT_EQ(t, blockdev_read(NULL, 0, buf, 1), -EINVAL);
	/* write-behind: the same checks; a disk without its own path (this one) writes at once */
	EXPECT_EQ(t, blockdev_write_behind(d, 20, buf, 1), -EINVAL);
	EXPECT_EQ(t, blockdev_write_behind(d, 0, NULL, 1), -EINVAL);
	EXPECT_EQ(t, blockdev_write_behind(d, 5, buf, 0), -EINVAL);
	memset(buf, 0x33, sizeof(buf));
	EXPECT_EQ(t, blockdev_write_behind(d, 5, buf, 2), 0);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(t, blockdev_read(d, 5, buf, 2), 0);
	EXPECT_EQ(t, buf[0], 0x33);
	EXPECT_EQ(t, buf[sizeof(buf) - 1], 0x33);
	ramdisk_fail_next(d, 1);
	EXPECT_EQ(t, blockdev_write_behind(d, 5, buf, 1), -EIO);        /* synchronous: the error comes back */
	memset(&dup, 0, sizeof(dup));
	memcpy(dup.name, d->name, sizeof(dup.name));
	dup.ops = d->ops;
	dup.capacity = 1;
	EXPECT_EQ(t, blockdev_register(&dup), -EEXIST);
	dup.capacity = 0;
	EXPECT_EQ(t, blockdev_register(&dup), -EINVAL);
	ramdisk_destroy(d);
}

static const struct ktest_case swapfile_cases[] = {
	KTEST_CASE(test_entry_packs_type_and_offset),
	KTEST_CASE(test_swap_on_counts_slots),
	KTEST_CASE(test_swap_on_rejects_small_and_partial),
	KTEST_CASE(test_alloc_every_slot_then_enospc),
	KTEST_CASE(test_refcount_dup_and_free),
	KTEST_CASE(test_refcount_limit),
	KTEST_CASE(test_bad_entries),
	KTEST_CASE(test_batch_slots_in_a_row),
	KTEST_CASE(test_page_round_trip),
	KTEST_CASE(test_blockdev_checks_ranges),
	{ 0 },
};
KTEST_SUITE(swapfile, swapfile_cases);
