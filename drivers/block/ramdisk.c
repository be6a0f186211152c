/*
 * RAM disks (include/blockdev.h, ramdisk_create): a block device held in
 * page frames, one per 4 KiB of the device, allocated at the first write
 * that touches them (unwritten sectors read as zeros, like a sparse file).
 * Portable: the host build uses it where the kernel has virtio-blk, so the
 * swap area's logic (mm/swapfile.c) is tested on both. Like Linux's brd.
 *
 * Lock: each disk's lock (class default, taken with interrupts off, as
 * ramdisk_names) around the frame table and the copies; it is taken with
 * no other lock held and calls only pmm_alloc under it.
 */
#include "blockdev.h"
#include "kerrno.h"
#include "kstring.h"
#include "pmm.h"
#include "slab.h"
#include "spinlock.h"
#include "printk.h"

#define SECTORS_PER_PAGE (PAGE_SIZE / SECTOR_SIZE)

struct ramdisk {
	struct blockdev dev;
	struct spinlock lock;
	unsigned long npages;           /* [const] frames covering the device */
	struct page **pages;            /* [lock] frame of each 4 KiB, NULL until written */
	unsigned fail_next;             /* [lock] requests still to fail (tests) */
};

static unsigned ramdisk_count;          /* [ramdisk_names] */
static struct spinlock ramdisk_names = SPINLOCK_INIT("ramdisk_names");

/* The frame holding sector s, allocated when alloc; NULL if none (or no memory). rd->lock held. */
static char *sector_addr(struct ramdisk *rd, uint64_t s, bool alloc)
{
	struct page **pg = &rd->pages[s / SECTORS_PER_PAGE];

	if (!*pg && alloc)
		*pg = pmm_alloc(0, GFP_ZERO);
	if (!*pg)
		return NULL;
	return (char *)page_address(*pg) + (s % SECTORS_PER_PAGE) * SECTOR_SIZE;
}

/* One request, sector by sector. rd->lock held. */
static int rw_locked(struct ramdisk *rd, bool write, uint64_t sector, char *buf, uint32_t nsect)
{
	if (rd->fail_next) {
		rd->fail_next--;
		return -EIO;
	}
	for (uint32_t i = 0; i < nsect; i++, buf += SECTOR_SIZE) {
		char *p = sector_addr(rd, sector + i, write);

		if (write && !p)
			return -EIO;            /* no frame for the data: as a failed device */
		if (write)
			memcpy(p, buf, SECTOR_SIZE);
		else if (p)
			memcpy(buf, p, SECTOR_SIZE);
		else
			memset(buf, 0, SECTOR_SIZE);
	}
	return 0;
}

static int ramdisk_rw(struct blockdev *dev, bool write, uint64_t sector, void *buf, uint32_t nsect)
{
	unsigned long f;
	struct ramdisk *rd = dev->priv;
	int r;

	f = spin_lock_irqsave(&rd->lock);
	r = rw_locked(rd, write, sector, buf, nsect);
	spin_unlock_irqrestore(&rd->lock, f);
	return r;
}

static const struct blockdev_ops ramdisk_ops = { .rw = ramdisk_rw };

/* Register rd under the first free name ramN. 0 or -EEXIST after trying 100 names. */
static int ramdisk_name_and_register(struct ramdisk *rd)
{
	unsigned long f;

	for (unsigned tries = 0; tries < 100; tries++) {
		unsigned n;

		f = spin_lock_irqsave(&ramdisk_names);
		n = ramdisk_count++ % 100;
		spin_unlock_irqrestore(&ramdisk_names, f);
		ksnprintf(rd->dev.name, sizeof(rd->dev.name), "ram%u", n);
		if (blockdev_register(&rd->dev) == 0)
			return 0;
	}
	return -EEXIST;
}

struct blockdev *ramdisk_create(uint64_t nsect)
{
	struct ramdisk *rd;

	if (nsect == 0 || nsect > (1ULL << 32))
		return NULL;
	rd = kzalloc(sizeof(*rd));
	if (!rd)
		return NULL;
	rd->npages = (unsigned long)((nsect + SECTORS_PER_PAGE - 1) / SECTORS_PER_PAGE);
	rd->pages = kzalloc(rd->npages * sizeof(*rd->pages));
	if (!rd->pages) {
		kfree(rd);
		return NULL;
	}
	spin_init(&rd->lock, "ramdisk");
	rd->dev.capacity = nsect;
	rd->dev.ops = &ramdisk_ops;
	rd->dev.priv = rd;
	if (ramdisk_name_and_register(rd)) {
		kfree(rd->pages);
		kfree(rd);
		return NULL;
	}
	return &rd->dev;
}

void ramdisk_destroy(struct blockdev *dev)
{
	struct ramdisk *rd = dev->priv;

	blockdev_unregister(dev);
	for (unsigned long i = 0; i < rd->npages; i++)
		if (rd->pages[i])
			pmm_free(rd->pages[i], 0);
	kfree(rd->pages);
	kfree(rd);
}

void ramdisk_fail_next(struct blockdev *dev, unsigned n)
{
	unsigned long f;
	struct ramdisk *rd = dev->priv;

	f = spin_lock_irqsave(&rd->lock);
	rd->fail_next = n;
	spin_unlock_irqrestore(&rd->lock, f);
}
