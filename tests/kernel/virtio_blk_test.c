/*
 * The virtio disk (drivers/block/virtio_blk.c) through include/blockdev.h:
 * patterns written to sectors read back, single and multi-sector (one
 * request larger than the driver's 128 KiB bounce buffer, so it is cut into
 * pieces), the range checks, writers on several CPUs at once whose
 * data all ends up where each wrote it, completions by interrupt, and
 * write-behinds (swap-out's writes): the caller's buffer free at once,
 * and every later request over the same sectors ordered after them.
 *
 * The disk is vda, attached by `make test-kernel SWAP=SIZE` (tools/qemu-run
 * --swap, which also passes swap=vda). Without a disk the cases are
 * skipped; with swap=vda on the command line and no disk they fail (the
 * driver did not find the disk make test attached). While the suite runs
 * it takes vda out of the swap area (swap_off, which refuses while slots
 * are in use: then the cases are skipped) and puts it back afterwards.
 */
#include "ktest.h"
#include "blockdev.h"
#include "swap.h"
#include "cmdline.h"
#include "kerrno.h"
#include "kstring.h"
#include "pmm.h"
#include "task.h"
#include "arch.h"

#define WRITERS       4
#define WRITER_ROUNDS 24
#define WRITER_SECTS  8                 /* each writer's own run of sectors */
#define BIG_SECTS     300               /* > 256 sectors of bounce buffer */

static struct blockdev *disk;
static bool was_swap;

/* The disk to test, or NULL after a skip or a failure. */
static struct blockdev *get_disk(struct ktest *t)
{
	if (disk)
		return disk;
	if (strcmp(kparams.swap, "vda") == 0)
		ktest_fail(t, __FILE__, __LINE__, "swap=vda given but no virtio disk vda was found");
	else
		ktest_skip(t, "no virtio disk (make test-kernel SWAP=64M attaches one)");
	return NULL;
}

static int vblk_suite_init(void)
{
	int type;

	disk = blockdev_find("vda");
	type = swap_type_of(disk);
	was_swap = false;
	if (disk && type >= 0) {
		if (swap_off((unsigned)type) != 0)
			disk = NULL;    /* slots in use: leave it alone */
		else
			was_swap = true;
	}
	return 0;
}

static void vblk_suite_exit(void)
{
	if (was_swap)
		swap_on(disk);
}

/* A word pattern that differs by tag, sector and position. */
static void pattern(uint32_t *w, size_t words, uint32_t tag, uint64_t sector)
{
	for (size_t i = 0; i < words; i++)
		w[i] = tag * 0x9e3779b9U ^ (uint32_t)(sector + i / (SECTOR_SIZE / 4)) * 0x85ebca6bU ^ (uint32_t)i;
}

static void test_sector_round_trip(struct ktest *t)
{
	struct blockdev *d = get_disk(t);
	uint32_t out[SECTOR_SIZE / 4], in[SECTOR_SIZE / 4];
	const uint64_t sectors[] = { 0, 1, 7, 1000 };

	if (!d)
		return;
	EXPECT_EQ(t, d->sector_size, 512);
	ASSERT_GT(t, d->capacity, 2000);
	for (unsigned k = 0; k < ARRAY_SIZE(sectors); k++) {
		pattern(out, ARRAY_SIZE(out), 1, sectors[k]);
		EXPECT_EQ(t, blockdev_write(d, sectors[k], out, 1), 0);
	}
	for (unsigned k = 0; k < ARRAY_SIZE(sectors); k++) {
		memset(in, 0, sizeof(in));
		EXPECT_EQ(t, blockdev_read(d, sectors[k], in, 1), 0);
		pattern(out, ARRAY_SIZE(out), 1, sectors[k]);
		EXPECT_EQ(t, memcmp(in, out, sizeof(in)), 0);
	}
	/* the last sector */
	pattern(out, ARRAY_SIZE(out), 2, d->capacity - 1);
	EXPECT_EQ(t, blockdev_write(d, d->capacity - 1, out, 1), 0);
	memset(in, 0, sizeof(in));
	EXPECT_EQ(t, blockdev_read(d, d->capacity - 1, in, 1), 0);
	EXPECT_EQ(t, memcmp(in, out, sizeof(in)), 0);
}

static void test_multi_sector(struct ktest *t)
{
	struct blockdev *d = get_disk(t);
	size_t bytes = (size_t)BIG_SECTS * SECTOR_SIZE;
	unsigned order = 0;
	struct page *po, *pi;
	char *out, *in;

	if (!d)
		return;
	while ((PAGE_SIZE << order) < bytes)
		order++;
	po = pmm_alloc(order, 0);
	pi = pmm_alloc(order, 0);
	ASSERT_TRUE(t, po && pi);
	out = page_address(po);
	in = page_address(pi);
	pattern((uint32_t *)out, bytes / 4, 3, 4096);
	EXPECT_EQ(t, blockdev_write(d, 4096, out, BIG_SECTS), 0);
	memset(in, 0, bytes);
	EXPECT_EQ(t, blockdev_read(d, 4096, in, BIG_SECTS), 0);
	EXPECT_EQ(t, memcmp(in, out, bytes), 0);
	/* a piece from the middle, read alone, starts with the right sector */
	memset(in, 0, SECTOR_SIZE * 3);
	EXPECT_EQ(t, blockdev_read(d, 4096 + 129, in, 3), 0);
	EXPECT_EQ(t, memcmp(in, out + 129 * SECTOR_SIZE, SECTOR_SIZE * 3), 0);
	pmm_free(po, order);
	pmm_free(pi, order);
}

static void test_out_of_range(struct ktest *t)
{
	struct blockdev *d = get_disk(t);
	char buf[2 * SECTOR_SIZE];

	if (!d)
		return;
	EXPECT_EQ(t, blockdev_read(d, d->capacity, buf, 1), -EINVAL);
	EXPECT_EQ(t, blockdev_write(d, d->capacity - 1, buf, 2), -EINVAL);
	EXPECT_EQ(t, blockdev_read(d, UINT64_MAX, buf, 2), -EINVAL);
	EXPECT_EQ(t, blockdev_read(d, 0, buf, 0), -EINVAL);
	EXPECT_EQ(t, blockdev_write(d, 0, NULL, 1), -EINVAL);
}

struct writer {
	struct blockdev *d;
	unsigned id;
	unsigned errors;                /* failed requests or mismatches */
	uint32_t buf[WRITER_SECTS * SECTOR_SIZE / 4], back[WRITER_SECTS * SECTOR_SIZE / 4];
};

/* The i-th online CPU, cyclically: the writers go to different CPUs. */
static int cpu_for(unsigned i)
{
	unsigned long m = arch_cpu_online_mask();
	unsigned k = i % arch_nr_cpus();

	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++)
		if ((m & (1UL << cpu)) && k-- == 0)
			return (int)cpu;
	return 0;
}

/* The buddy order that holds WRITERS struct writer (each has two 4 KiB buffers). */
static unsigned order_for_writers(void)
{
	unsigned order = 0;

	while ((PAGE_SIZE << order) < WRITERS * sizeof(struct writer))
		order++;
	return order;
}

/* Write this writer's sectors round after round, each time reading them back. */
static void writer_fn(void *arg)
{
	struct writer *w = arg;
	uint64_t base = 8192 + (uint64_t)w->id * WRITER_SECTS;

	for (unsigned r = 0; r < WRITER_ROUNDS; r++) {
		pattern(w->buf, ARRAY_SIZE(w->buf), w->id * 1000 + r, base);
		if (blockdev_write(w->d, base, w->buf, WRITER_SECTS) ||
		    blockdev_read(w->d, base, w->back, WRITER_SECTS) ||
		    memcmp(w->buf, w->back, sizeof(w->buf)) != 0)
			w->errors++;
	}
}

static void test_concurrent_writers(struct ktest *t)
{
	struct blockdev *d = get_disk(t);
	struct task *th[WRITERS];
	struct writer *w;
	struct page *pg;

	if (!d)
		return;
	pg = pmm_alloc(order_for_writers(), GFP_ZERO);
	ASSERT_TRUE(t, pg != NULL);
	w = page_address(pg);
	for (unsigned i = 0; i < WRITERS; i++) {
		w[i].d = d;
		w[i].id = i;
		th[i] = kthread_create(writer_fn, &w[i], cpu_for(i), "vblk_writer");
		ASSERT_TRUE(t, th[i] != NULL);
	}
	for (unsigned i = 0; i < WRITERS; i++)
		kthread_start(th[i]);
	for (unsigned i = 0; i < WRITERS; i++)
		kthread_join(th[i]);
	for (unsigned i = 0; i < WRITERS; i++) {
		uint64_t base = 8192 + (uint64_t)i * WRITER_SECTS;

		EXPECT_EQ(t, w[i].errors, 0);
		/* what each wrote last is on the disk, untouched by the others */
		pattern(w[i].buf, ARRAY_SIZE(w[i].buf), i * 1000 + WRITER_ROUNDS - 1, base);
		EXPECT_EQ(t, blockdev_read(d, base, w[i].back, WRITER_SECTS), 0);
		EXPECT_EQ(t, memcmp(w[i].buf, w[i].back, sizeof(w[i].buf)), 0);
	}
	pmm_free(pg, order_for_writers());
}

/* Yield until the disk's interrupt count moves past seen; returns the new count. */
static unsigned long interrupt_after(struct blockdev *d, unsigned long seen)
{
	unsigned long req, irq;

	while (virtio_blk_counts(d, &req, &irq), irq == seen)
		sched_yield();
	return irq;
}

/*
 * Completions interrupt (MSI-X, which QEMU's virtio-blk-pci has and every
 * firmware make test boots with maps): each of 8 reads, one request each,
 * is ended by an interrupt of its own (no EVENT_IDX: the device signals
 * every used entry while interrupts are on). The submitter may find its
 * request used before the interrupt is taken and go on; two interrupts of
 * one vector pending together are one in the local APIC (a single IRR
 * bit), so the test waits for each read's interrupt before the next read:
 * then the count grows by exactly the requests. A polled disk fails the
 * first assertion (its device is told not to signal, so waiting would not
 * end); a routed disk whose interrupt never came would hang the driver
 * itself, not only this test.
 */
static void test_completions_interrupt(struct ktest *t)
{
	struct blockdev *d = get_disk(t);
	unsigned long req0, irq0, req1, irq1, irq;
	char buf[SECTOR_SIZE];

	if (!d)
		return;
	ASSERT_TRUE(t, virtio_blk_counts(d, &req0, &irq0));
	irq = irq0;
	for (uint64_t s = 0; s < 8; s++) {
		ASSERT_EQ(t, blockdev_read(d, s * 64, buf, 1), 0);
		irq = interrupt_after(d, irq);
	}
	ASSERT_TRUE(t, virtio_blk_counts(d, &req1, &irq1));
	EXPECT_EQ(t, req1 - req0, 8);
	EXPECT_EQ(t, irq1 - irq0, 8);
}

/*
 * blockdev_write_behind returns with the data copied (the buffer is
 * overwritten at once), and what is read or written after it over the
 * same sectors comes after it, though the device may finish requests in
 * any order (include/blockdev.h): BEHIND_WRITES runs in flight (more than
 * the driver's slots, so some wait for a slot), each written twice, then
 * read back, whole and in part, the second pattern expected everywhere.
 */
#define BEHIND_WRITES 40
#define BEHIND_SECTS  8
static void test_write_behind_ordered(struct ktest *t)
{
	struct blockdev *d = get_disk(t);
	uint32_t buf[BEHIND_SECTS * SECTOR_SIZE / 4], want[BEHIND_SECTS * SECTOR_SIZE / 4];
	const uint64_t base = 8192;
	unsigned long req0, irq0, req1, irq1;

	if (!d)
		return;
	virtio_blk_counts(d, &req0, &irq0);
	for (unsigned round = 0; round < 2; round++)
		for (unsigned k = 0; k < BEHIND_WRITES; k++) {
			uint64_t s = base + (uint64_t)k * BEHIND_SECTS;

			pattern(buf, ARRAY_SIZE(buf), 10 + round, s);
			ASSERT_EQ(t, blockdev_write_behind(d, s, buf, BEHIND_SECTS), 0);
			memset(buf, 0xee, sizeof(buf));         /* the driver copied it already */
		}
	virtio_blk_counts(d, &req1, &irq1);
	EXPECT_EQ(t, req1 - req0, 2 * BEHIND_WRITES);   /* one request each, none merged or dropped */
	/* a part of the last run, read while its writes may still be in flight */
	uint64_t last = base + (uint64_t)(BEHIND_WRITES - 1) * BEHIND_SECTS;
	pattern(want, ARRAY_SIZE(want), 11, last);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(t, blockdev_read(d, last + 2, buf, 3), 0);
	EXPECT_EQ(t, memcmp(buf, (char *)want + 2 * SECTOR_SIZE, 3 * SECTOR_SIZE), 0);
	for (unsigned k = 0; k < BEHIND_WRITES; k++) {
		uint64_t s = base + (uint64_t)k * BEHIND_SECTS;

		pattern(want, ARRAY_SIZE(want), 11, s);
		memset(buf, 0, sizeof(buf));
		EXPECT_EQ(t, blockdev_read(d, s, buf, BEHIND_SECTS), 0);
		EXPECT_EQ(t, memcmp(buf, want, sizeof(buf)), 0);
	}
	/* the range checks hold as for blockdev_write */
	EXPECT_EQ(t, blockdev_write_behind(d, d->capacity, buf, 1), -EINVAL);
	EXPECT_EQ(t, blockdev_write_behind(d, 0, NULL, 1), -EINVAL);
}

static const struct ktest_case virtio_blk_cases[] = {
	KTEST_CASE(test_sector_round_trip),
	KTEST_CASE(test_multi_sector),
	KTEST_CASE(test_out_of_range),
	KTEST_CASE(test_concurrent_writers),
	KTEST_CASE(test_completions_interrupt),
	KTEST_CASE(test_write_behind_ordered),
	{ 0 },
};
static const struct ktest_suite virtio_blk_suite = {
	"virtio_blk", virtio_blk_cases, 0, NULL, vblk_suite_init, vblk_suite_exit, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(virtio_blk_suite);
