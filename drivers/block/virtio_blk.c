/*
 * virtio-blk disks (QEMU virtio-blk-pci, legacy interface: PCI vendor
 * 0x1af4, device 0x1001, I/O BAR 0), registered as block devices vda,
 * vdb, ... in PCI slot order (include/blockdev.h). Linux's
 * drivers/block/virtio_blk.c is the model; the queue code is shared with
 * the console (drivers/virtio/virtqueue.c).
 *
 * One request at a time per disk, of three descriptors: the request
 * header (type, sector; device-readable), the data (the disk's bounce
 * buffer, BOUNCE_SECTORS at most: a larger request is cut into pieces)
 * and the status byte (device-writable). The caller's buffer may be any
 * kernel memory (a stack, a slab object): it is copied to or from the
 * bounce buffer, which is physically contiguous.
 *
 * Completion: the machine has no I/O APIC or MSI-X support here, so the
 * device's interrupts stay off (VRING_AVAIL_F_NO_INTERRUPT) and the task
 * that submitted the request polls the used ring until the device has
 * returned it (no count, no clock: the device's own used index says when
 * it is done), yielding its CPU to other runnable tasks meanwhile.
 *
 * Lock: each disk's req_lock, a sleeping lock (class blockdev) taken for
 * writing around a whole request: concurrent callers on any CPU queue up
 * on it and sleep, and the queue, header, status and bounce buffer are
 * touched only under it.
 */
#include "blockdev.h"
#include "drivers/virtio/virtqueue.h"
#include "x86.h"
#include "arch.h"
#include "kerrno.h"
#include "kstring.h"
#include "pmm.h"
#include "printk.h"
#include "rwsem.h"
#include "task.h"

#define VIRTIO_BLK_LEGACY  0x1001
#define VIRTIO_BLK_T_IN    0
#define VIRTIO_BLK_T_OUT   1
#define VIRTIO_BLK_S_OK    0
#define VBLK_MAX_DISKS     4
#define BOUNCE_ORDER       6                            /* 256 KiB: a swap run of 64 pages */
#define BOUNCE_SECTORS     ((PAGE_SIZE << BOUNCE_ORDER) / SECTOR_SIZE)

struct virtio_blk_outhdr {
	uint32_t type;
	uint32_t ioprio;
	uint64_t sector;
};

/* The request page: header, then the status byte. */
struct vblk_req {
	struct virtio_blk_outhdr hdr;
	volatile uint8_t status;
};

struct vblk {
	struct blockdev dev;
	struct virtqueue q;             /* [req_lock] */
	struct vblk_req *req;           /* [req_lock] a page of its own */
	char *bounce;                   /* [req_lock] BOUNCE_SECTORS, physically contiguous */
	struct rwsem req_lock;          /* one request at a time (sleeping, class blockdev) */
	unsigned long requests;         /* [req_lock] requests done (statistics) */
};

static struct vblk disks[VBLK_MAX_DISKS];
static unsigned ndisks;                 /* set once at boot */

/* Wait until the device returns the request (its used entry). req_lock held. */
static void wait_used(struct vblk *d)
{
	uint32_t id, len;
	struct task *me = current_task();

	while (!virtq_used_pop(&d->q, &id, &len)) {
		if (me && !me->is_idle)
			sched_yield();  /* another task may use this CPU meanwhile */
		else
			arch_cpu_relax();
	}
}

/* One request of nsect <= BOUNCE_SECTORS sectors through the bounce buffer. req_lock held. */
static int request_locked(struct vblk *d, bool write, uint64_t sector, char *buf, uint32_t nsect)
{
	uint32_t bytes = nsect * SECTOR_SIZE;

	d->req->hdr.type = write ? VIRTIO_BLK_T_OUT : VIRTIO_BLK_T_IN;
	d->req->hdr.ioprio = 0;
	d->req->hdr.sector = sector;
	d->req->status = 0xff;
	if (write)
		memcpy(d->bounce, buf, bytes);
	virtq_set_desc(&d->q, 0, virt_to_phys(&d->req->hdr), sizeof(d->req->hdr), VRING_DESC_F_NEXT, 1);
	virtq_set_desc(&d->q, 1, virt_to_phys(d->bounce), bytes,
		       VRING_DESC_F_NEXT | (write ? 0 : VRING_DESC_F_WRITE), 2);
	virtq_set_desc(&d->q, 2, virt_to_phys((void *)&d->req->status), 1, VRING_DESC_F_WRITE, 0);
	virtq_submit(&d->q, 0);
	wait_used(d);
	d->requests++;
	if (d->req->status != VIRTIO_BLK_S_OK)
		return -EIO;
	if (!write)
		memcpy(buf, d->bounce, bytes);
	return 0;
}

static int vblk_rw(struct blockdev *dev, bool write, uint64_t sector, void *buf, uint32_t nsect)
{
	struct vblk *d = dev->priv;
	char *p = buf;
	int r = 0;

	down_write(&d->req_lock);
	while (nsect > 0 && r == 0) {
		uint32_t n = MIN(nsect, (uint32_t)BOUNCE_SECTORS);

		r = request_locked(d, write, sector, p, n);
		sector += n;
		p += (size_t)n * SECTOR_SIZE;
		nsect -= n;
	}
	up_write(&d->req_lock);
	return r;
}

static const struct blockdev_ops vblk_ops = { .rw = vblk_rw };

/* The device's buffers: the request page and the bounce buffer. 0 or -ENOMEM. */
static int alloc_buffers(struct vblk *d)
{
	struct page *req = pmm_alloc(0, GFP_ZERO);
	struct page *bounce = pmm_alloc(BOUNCE_ORDER, 0);

	if (!req || !bounce) {
		if (req)
			pmm_free(req, 0);
		if (bounce)
			pmm_free(bounce, BOUNCE_ORDER);
		return -ENOMEM;
	}
	d->req = page_address(req);
	d->bounce = page_address(bounce);
	return 0;
}

/* Bring up the disk in PCI slot as disks[ndisks]: features (none), queue 0, capacity. */
static int probe(unsigned slot)
{
	struct vblk *d = &disks[ndisks];
	uint16_t io;
	int r = virtio_legacy_start(slot, &io);

	if (r)
		return r;
	outl(io + VIO_GUEST_FEATURES, 0);       /* none needed: 512-byte sectors, one segment */
	r = virtq_init(&d->q, io, 0, 3);
	if (r == 0)
		r = alloc_buffers(d);
	if (r) {
		outb(io + VIO_STATUS, VIO_STATUS_FAILED);
		return r;
	}
	d->dev.capacity = (uint64_t)inl(io + VIO_DEVICE_CONFIG) |
			  (uint64_t)inl(io + VIO_DEVICE_CONFIG + 4) << 32;
	ksnprintf(d->dev.name, sizeof(d->dev.name), "vd%c", 'a' + ndisks);
	d->dev.ops = &vblk_ops;
	d->dev.priv = d;
	rwsem_init(&d->req_lock, d->dev.name, LOCK_CLASS_BLOCKDEV);
	outb(io + VIO_STATUS, VIO_STATUS_ACK | VIO_STATUS_DRIVER | VIO_STATUS_DRIVER_OK);
	return blockdev_register(&d->dev);
}

void virtio_blk_init(void)
{
	int slot = -1;

	while (ndisks < VBLK_MAX_DISKS && (slot = virtio_legacy_find(VIRTIO_BLK_LEGACY, (unsigned)(slot + 1))) >= 0) {
		int r = probe((unsigned)slot);

		if (r) {
			printk("virtio-blk: PCI slot %d: not usable (%s)\n", slot, errno_name(r));
			continue;
		}
		printk("virtio-blk: %s: PCI slot %d, %llu sectors (%llu MiB)\n", disks[ndisks].dev.name, slot,
		       (unsigned long long)disks[ndisks].dev.capacity,
		       (unsigned long long)(disks[ndisks].dev.capacity >> 11));
		ndisks++;
	}
}
