/*
 * Block devices: the one interface swap (mm/swapfile.c) and tests use to
 * reach a disk, whatever drives it (drivers/block/: virtio-blk in QEMU, a
 * RAM disk on the host and in tests).
 *
 * A device is a run of 512-byte sectors, [0, capacity). I/O is
 * synchronous: blockdev_read / blockdev_write return once the data is in
 * buf (or on the device), with 0 or a Linux errno. The one exception,
 * blockdev_write_behind, returns once the device has its own copy of the
 * data (swap-out: the page can be freed while the disk writes). They may sleep: the
 * caller holds no spinning lock. Concurrent callers on any CPU are fine;
 * each driver serializes its requests itself (its own lock, documented in
 * its file). Like Linux's bdev names, a device is named by its driver:
 * vda, vdb, ... for virtio disks in PCI slot order, ramN for RAM disks.
 *
 * Registration (drivers, tests) and lookup share blockdev_lock (class
 * default, taken with interrupts off: the timer's interrupt takes locks of
 * that class too); a device is never freed while registered, and a lookup's
 * result stays valid until its owner unregisters it (only tests do, for
 * their own RAM disks).
 */
#ifndef BLOCKDEV_H
#define BLOCKDEV_H

#include "types.h"
#include "list.h"

#define SECTOR_SHIFT 9
#define SECTOR_SIZE  (1U << SECTOR_SHIFT)
#define BLOCKDEV_NAME_MAX 16

struct blockdev;

struct blockdev_ops {
	/*
	 * Move nsect sectors from sector on: into buf (write false) or from it
	 * (write true). The range is checked already (non-empty, inside the
	 * device). 0 or -EIO. May sleep.
	 */
	int (*rw)(struct blockdev *dev, bool write, uint64_t sector, void *buf, uint32_t nsect);
	/*
	 * Optional: queue a write of buf and return once buf may be reused
	 * (blockdev_write_behind's contract). NULL: writes are synchronous.
	 */
	int (*write_behind)(struct blockdev *dev, uint64_t sector, const void *buf, uint32_t nsect);
};

struct blockdev {
	char name[BLOCKDEV_NAME_MAX];   /* [const] "vda", "ram0" */
	uint32_t sector_size;           /* [const] always SECTOR_SIZE */
	uint64_t capacity;              /* [const] in sectors */
	const struct blockdev_ops *ops; /* [const] */
	void *priv;                     /* [const] the driver's */
	struct list_head link;          /* [blockdev_lock] the registry's list */
};

/*
 * blockdev_register: make dev findable (dev->name, ops, capacity set, name
 * unique). 0, -EEXIST (a device of that name is registered) or -EINVAL
 * (no name, no ops, capacity 0). Sets sector_size.
 */
int blockdev_register(struct blockdev *dev);
/* blockdev_unregister: take dev out of the registry (no I/O on it may be running). */
void blockdev_unregister(struct blockdev *dev);
/* blockdev_find: the registered device named name, or NULL. */
struct blockdev *blockdev_find(const char *name);

/*
 * blockdev_read / blockdev_write: nsect sectors from sector on, into / from
 * buf (any kernel memory, nsect * 512 bytes). 0; -EINVAL when dev or buf
 * is NULL, nsect is 0, or the range [sector, sector + nsect) does not lie
 * inside the device; -EIO when the device reports an error. May sleep.
 */
int blockdev_read(struct blockdev *dev, uint64_t sector, void *buf, uint32_t nsect);
int blockdev_write(struct blockdev *dev, uint64_t sector, const void *buf, uint32_t nsect);
/*
 * blockdev_write_behind: as blockdev_write, but it may return before the
 * data is on the device, once the driver holds its own copy (buf may be
 * reused at once). Every request issued after it that overlaps its
 * sectors (a read, another write) is ordered after it, so a read returns
 * what was last written. A device error that comes after the return
 * cannot reach this caller: the driver then fails every later read of
 * the device with -EIO rather than hand back data that never reached it.
 * Devices without a write-behind path (the RAM disk) write synchronously.
 * 0, -EINVAL as blockdev_write, or -EIO (a synchronous write failed).
 */
int blockdev_write_behind(struct blockdev *dev, uint64_t sector, const void *buf, uint32_t nsect);

/*
 * RAM disks (drivers/block/ramdisk.c): a device of nsect sectors kept in
 * page frames allocated at their first write (unwritten sectors read as
 * zeros, as a sparse file). ramdisk_create registers it as "ramN" (the
 * first free N) and returns it, or NULL (no memory, nsect 0);
 * ramdisk_destroy unregisters it and frees its memory. Lock: the disk's
 * own spinlock (class default, interrupts off) around each copy.
 */
struct blockdev *ramdisk_create(uint64_t nsect);
void ramdisk_destroy(struct blockdev *dev);
/* ramdisk_fail_next: the next n requests to dev fail with -EIO (tests of error paths). */
void ramdisk_fail_next(struct blockdev *dev, unsigned n);

/* virtio_blk_init (drivers/block/virtio_blk.c, kernel only): find and register the virtio disks. */
void virtio_blk_init(void);
/*
 * virtio_blk_counts: for a virtio disk, the requests it has submitted and the
 * completion interrupts taken into *requests, *interrupts; true when its
 * completions interrupt (false: polled, or dev is no virtio disk).
 */
bool virtio_blk_counts(struct blockdev *dev, unsigned long *requests, unsigned long *interrupts);

#endif
