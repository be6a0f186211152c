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
 * Completion: where the device's MSI-X table can be reached (a memory
 * BAR the firmware assigned, as SeaBIOS, qboot and OVMF do), its queue's
 * interrupt is routed to the boot CPU's local APIC (vector
 * VEC_VIRTIO_BLK + disk index) and the task that submitted the request
 * sleeps on the disk's wait queue until the interrupt handler wakes it
 * and the used ring holds the request (Linux's shape: blk_mq completion
 * from the virtqueue callback). The CPU it leaves runs other tasks or
 * halts, which under TCG gives the host's cores to QEMU's I/O thread:
 * polling here made every request cost a time slice of a loaded host.
 * Probing checks once that a completion's interrupt really arrives (the
 * boot CPU halts until it does, for at most a second after the device
 * returned the request); where it does not, or with no MSI-X, or before
 * the scheduler runs (the idle task, interrupts off), the submitter polls
 * the used ring (no count, no clock: the device's own used index says
 * when it is done), yielding its CPU to other runnable tasks meanwhile.
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
#include "wait.h"
#include "ktimer.h"
#include "lockless.h"

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
	unsigned long interrupts;       /* [atomic] completion interrupts taken */
	bool irq;                       /* [const after probe] completions interrupt: sleep on done */
	struct wait_queue done;         /* the submitter, until its request is used */
};

static struct vblk disks[VBLK_MAX_DISKS];
static unsigned ndisks;                 /* set once at boot */

/* Wait until the device returns the request (its used entry). req_lock held. */
static void wait_used(struct vblk *d)
{
	uint32_t id, len;
	struct task *me = current_task();
	struct waiter w = WAITER_INIT;

	if (d->irq && me && !me->is_idle && arch_irqs_enabled()) {
		for (;;) {              /* include/wait.h's pattern: a wake-up between the test and the sleep is kept */
			wait_prepare(&d->done, &w);
			if (virtq_used_pop(&d->q, &id, &len))
				break;
			wait_schedule(&w);
		}
		wait_finish(&d->done, &w);
		return;
	}
	while (!virtq_used_pop(&d->q, &id, &len)) {
		if (me && !me->is_idle)
			sched_yield();  /* another task may use this CPU meanwhile */
		else
			arch_cpu_relax();
	}
}

/* A completion interrupt of disk tf->vector - VEC_VIRTIO_BLK: wake its submitter. */
static void vblk_interrupt(struct trap_frame *tf)
{
	struct vblk *d = &disks[tf->vector - VEC_VIRTIO_BLK];

	__atomic_fetch_add(&d->interrupts, 1, __ATOMIC_RELAXED);
	lapic_eoi();
	wake_up(&d->done);
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

/*
 * Route queue 0's completions by MSI-X to this (the boot) CPU. False: no
 * MSI-X, or the device refused the vector. Once MSI-X is on, the device's
 * own registers are at VIO_DEVICE_CONFIG_MSIX: *config says where.
 */
static bool route_interrupt(struct vblk *d, unsigned slot, uint16_t io, unsigned *config)
{
	unsigned vector = VEC_VIRTIO_BLK + ndisks;

	if (!arch_irqs_enabled() || pci_msix_route(slot, 0, vector, lapic_id()))
		return false;
	*config = VIO_DEVICE_CONFIG_MSIX;
	outw(io + VIO_MSIX_CONFIG_VECTOR, VIO_MSIX_NO_VECTOR);
	outw(io + VIO_QUEUE_SEL, 0);
	outw(io + VIO_MSIX_QUEUE_VECTOR, 0);    /* table entry 0 */
	if (inw(io + VIO_MSIX_QUEUE_VECTOR) != 0)
		return false;
	irq_register(vector, vblk_interrupt);
	d->q.avail->flags = 0;
	return true;
}

/*
 * Whether a completion's interrupt arrives: sector 0 read (polled, the
 * disk being live and not yet shared), then this CPU halts until the
 * handler has run, for at most a second after the device returned the
 * request (a check made once per disk at boot, not a timing of I/O).
 */
static bool interrupt_arrives(struct vblk *d)
{
	char sector[SECTOR_SIZE];
	uint64_t deadline;
	bool seen;

	if (request_locked(d, false, 0, sector, 1))
		return false;
	deadline = monotonic_ns() + 1000000000ULL;
	arch_irq_disable();
	while (!(seen = READ_ONCE(d->interrupts)) && monotonic_ns() < deadline) {
		arch_idle_wait();       /* returns with interrupts on */
		arch_irq_disable();
	}
	arch_irq_enable();
	return seen;
}

/* Bring up the disk in PCI slot as disks[ndisks]: features (none), queue 0, completion interrupts, capacity. */
static int probe(unsigned slot)
{
	struct vblk *d = &disks[ndisks];
	unsigned config = VIO_DEVICE_CONFIG;
	bool routed = false;
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
	wait_queue_init(&d->done);
	routed = route_interrupt(d, slot, io, &config);
	d->dev.capacity = (uint64_t)inl(io + config) | (uint64_t)inl(io + config + 4) << 32;
	ksnprintf(d->dev.name, sizeof(d->dev.name), "vd%c", 'a' + ndisks);
	d->dev.ops = &vblk_ops;
	d->dev.priv = d;
	rwsem_init(&d->req_lock, d->dev.name, LOCK_CLASS_BLOCKDEV);
	outb(io + VIO_STATUS, VIO_STATUS_ACK | VIO_STATUS_DRIVER | VIO_STATUS_DRIVER_OK);
	d->irq = routed && interrupt_arrives(d);
	if (!d->irq)
		d->q.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;        /* polled: the device need not signal */
	return blockdev_register(&d->dev);
}

bool virtio_blk_counts(struct blockdev *dev, unsigned long *requests, unsigned long *interrupts)
{
	struct vblk *d = NULL;

	for (unsigned i = 0; i < ndisks; i++)
		if (&disks[i].dev == dev)
			d = &disks[i];
	if (!d)
		return false;
	down_write(&d->req_lock);
	*requests = d->requests;
	up_write(&d->req_lock);
	*interrupts = READ_ONCE(d->interrupts);
	return d->irq;
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
		printk("virtio-blk: %s: PCI slot %d, %llu sectors (%llu MiB), completions %s\n",
		       disks[ndisks].dev.name, slot, (unsigned long long)disks[ndisks].dev.capacity,
		       (unsigned long long)(disks[ndisks].dev.capacity >> 11),
		       disks[ndisks].irq ? "by MSI-X interrupt" : "polled");
		ndisks++;
	}
}
