/*
 * The block-device registry and the checked entry points of
 * include/blockdev.h: every request is range-checked here once, so the
 * drivers see only requests that fit. Portable (kernel and host).
 *
 * Lock: blockdev_lock (class default, interrupts off while held: the
 * timer interrupt takes other locks of that class) protects the list of devices; I/O
 * runs without it (each driver has its own).
 */
#include "blockdev.h"
#include "kerrno.h"
#include "kstring.h"
#include "spinlock.h"

static struct list_head blockdevs = LIST_HEAD_INIT(blockdevs);  /* [blockdev_lock] blockdev.link */
static struct spinlock blockdev_lock = SPINLOCK_INIT("blockdev");

/* The device named name; blockdev_lock held. */
static struct blockdev *find_locked(const char *name)
{
	struct list_head *p;

	list_for_each(p, &blockdevs) {
		struct blockdev *d = list_entry(p, struct blockdev, link);

		if (strcmp(d->name, name) == 0)
			return d;
	}
	return NULL;
}

int blockdev_register(struct blockdev *dev)
{
	unsigned long f;
	int r = 0;

	if (!dev || !dev->name[0] || !dev->ops || !dev->ops->rw || dev->capacity == 0)
		return -EINVAL;
	dev->sector_size = SECTOR_SIZE;
	f = spin_lock_irqsave(&blockdev_lock);
	if (find_locked(dev->name))
		r = -EEXIST;
	else
		list_add_tail(&dev->link, &blockdevs);
	spin_unlock_irqrestore(&blockdev_lock, f);
	return r;
}

void blockdev_unregister(struct blockdev *dev)
{
	unsigned long f;

	f = spin_lock_irqsave(&blockdev_lock);
	list_del(&dev->link);
	spin_unlock_irqrestore(&blockdev_lock, f);
}

struct blockdev *blockdev_find(const char *name)
{
	unsigned long f;
	struct blockdev *d;

	if (!name || strlen(name) >= BLOCKDEV_NAME_MAX)
		return NULL;
	f = spin_lock_irqsave(&blockdev_lock);
	d = find_locked(name);
	spin_unlock_irqrestore(&blockdev_lock, f);
	return d;
}

/* The request fits the device (sector + nsect cannot wrap: both are checked against capacity). */
static bool range_ok(const struct blockdev *dev, uint64_t sector, const void *buf, uint32_t nsect)
{
	return dev && buf && nsect > 0 && sector < dev->capacity && nsect <= dev->capacity - sector;
}

int blockdev_read(struct blockdev *dev, uint64_t sector, void *buf, uint32_t nsect)
{
	if (!range_ok(dev, sector, buf, nsect))
		return -EINVAL;
	return dev->ops->rw(dev, false, sector, buf, nsect);
}

int blockdev_write(struct blockdev *dev, uint64_t sector, const void *buf, uint32_t nsect)
{
	if (!range_ok(dev, sector, buf, nsect))
		return -EINVAL;
	return dev->ops->rw(dev, true, sector, (void *)buf, nsect);
}

int blockdev_write_behind(struct blockdev *dev, uint64_t sector, const void *buf, uint32_t nsect)
{
	if (!range_ok(dev, sector, buf, nsect))
		return -EINVAL;
	if (!dev->ops->write_behind)
		return dev->ops->rw(dev, true, sector, (void *)buf, nsect);
	return dev->ops->write_behind(dev, sector, buf, nsect);
}
