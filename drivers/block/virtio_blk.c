/*
 * virtio-blk disks (QEMU virtio-blk-pci, legacy interface: PCI vendor
 * 0x1af4, device 0x1001, I/O BAR 0), registered as block devices vda,
 * vdb, ... in PCI slot order (include/blockdev.h). Linux's
 * drivers/block/virtio_blk.c is the model; the queue code is shared with
 * the console (drivers/virtio/virtqueue.c).
 *
 * Up to VBLK_SLOTS requests per disk in flight, each of three
 * descriptors: the request header (type, sector; device-readable), the
 * data (its slot's bounce buffer, BOUNCE_SECTORS at most: a larger
 * request is cut into pieces) and the status byte (device-writable). The
 * caller's buffer may be any kernel memory (a stack, a slab object): it is
 * copied to or from the bounce buffer, which is physically contiguous.
 * A read or write waits until it is done; a write-behind
 * (blockdev_write_behind: swap-out) returns once its data is in the
 * bounce buffer, and the next request to need its slot reaps it. The
 * device may complete requests in any order, so a request first waits for
 * every request in flight that overlaps its sectors: a read returns what
 * was written last. A write-behind that fails marks the disk lost, and
 * every later read fails (-EIO): which sectors hold stale data is not
 * kept. Linux keeps the page itself under writeback instead, and frees it
 * when the write completes; here the bounce buffer is that copy.
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
 * writing around a whole request, its wait included: concurrent callers
 * on any CPU queue up on it and sleep, and the queue and the slots
 * (headers, status bytes, bounce buffers) are touched only under it.
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
#define VBLK_SLOTS         16                           /* requests in flight at once, at most */
#define BOUNCE_ORDER       5                            /* 128 KiB: a reclaim batch of 32 pages */
#define BOUNCE_SECTORS     ((PAGE_SIZE << BOUNCE_ORDER) / SECTOR_SIZE)

struct virtio_blk_outhdr {
	uint32_t type;
	uint32_t ioprio;
	uint64_t sector;
};

/* A slot's part of the request page: header, then the status byte. */
struct vblk_req {
	struct virtio_blk_outhdr hdr;
	volatile uint8_t status;
};

_Static_assert(sizeof(struct vblk_req) <= 64 && VBLK_SLOTS * 64 <= PAGE_SIZE, "slots' headers share a page");

/* One request the device may hold: descriptors 3i..3i+2 of the queue (head 3i). */
struct vblk_slot {
	struct vblk_req *req;           /* in the disk's request page */
	char *bounce;                   /* BOUNCE_SECTORS, physically contiguous */
	uint64_t sector;                /* what it moves: [sector, sector + nsect) */
	uint32_t nsect;
	bool busy;                      /* submitted and not reaped yet */
	bool behind;                    /* a write-behind: nobody waits for it */
	bool failed;                    /* reaped with an error status (a waited-for request) */
};

struct vblk {
	struct blockdev dev;
	struct virtqueue q;             /* [req_lock] */
	struct vblk_slot slots[VBLK_SLOTS];     /* [req_lock] */
	unsigned nslots;                /* [const after probe] slots with a bounce buffer (1..VBLK_SLOTS) */
	bool lost;                      /* [req_lock] a write-behind failed: reads fail from then on */
	struct rwsem req_lock;          /* the queue and the slots (sleeping, class blockdev) */
	unsigned long requests;         /* [req_lock] requests submitted (statistics) */
	unsigned long interrupts;       /* [atomic] completion interrupts taken */
	bool irq;                       /* [const after probe] completions interrupt: sleep on done */
	struct wait_queue done;         /* submitters waiting for a request to come back */
};

static struct vblk disks[VBLK_MAX_DISKS];
static unsigned ndisks;                 /* set once at boot */

/* A completion interrupt of disk tf->vector - VEC_VIRTIO_BLK: wake its submitters (they reap). */
static void vblk_interrupt(struct trap_frame *tf)
{
	struct vblk *d = &disks[tf->vector - VEC_VIRTIO_BLK];

	__atomic_fetch_add(&d->interrupts, 1, __ATOMIC_RELAXED);
	lapic_eoi();
	wake_up(&d->done);
}

/* Take every request the device returned off the used ring. req_lock held. */
static void reap_locked(struct vblk *d)
{
	uint32_t id, len;

	while (virtq_used_pop(&d->q, &id, &len)) {
		struct vblk_slot *s = &d->slots[id / 3];

		if (id % 3 || id / 3 >= d->nslots || !s->busy)
			continue;       /* not a head we submitted: a broken device; nothing to free */
		s->busy = false;
		s->failed = s->req->status != VIRTIO_BLK_S_OK;
		if (s->failed && s->behind)
			d->lost = true;
	}
}

/* What a submitter waits for (wait_for's test): true when it may go on. req_lock held. */
typedef bool (*vblk_cond)(struct vblk *d, const void *arg);

/* Reap until cond holds, sleeping on the completion interrupt (or polling without one). req_lock held. */
static void wait_for(struct vblk *d, vblk_cond cond, const void *arg)
{
	struct task *me = current_task();
	struct waiter w = WAITER_INIT;

	reap_locked(d);
	if (cond(d, arg))
		return;
	if (d->irq && me && !me->is_idle && arch_irqs_enabled()) {
		for (;;) {              /* include/wait.h's pattern: a wake-up between the test and the sleep is kept */
			wait_prepare(&d->done, &w);
			reap_locked(d);
			if (cond(d, arg))
				break;
			wait_schedule(&w);
		}
		wait_finish(&d->done, &w);
		return;
	}
	for (;;) {
		reap_locked(d);
		if (cond(d, arg))
			return;
		if (me && !me->is_idle)
			sched_yield();  /* another task may use this CPU meanwhile */
		else
			arch_cpu_relax();
	}
}

static bool slot_done(struct vblk *d, const void *arg)
{
	(void)d;
	return !((const struct vblk_slot *)arg)->busy;
}

/* A slot that is not busy, or NULL. */
static struct vblk_slot *idle_slot(struct vblk *d)
{
	for (unsigned i = 0; i < d->nslots; i++)
		if (!d->slots[i].busy)
			return &d->slots[i];
	return NULL;
}

static bool slot_free(struct vblk *d, const void *arg)
{
	(void)arg;
	return idle_slot(d) != NULL;
}

/* No request in flight overlaps the range arg (two uint64_t: first sector, count). */
static bool range_quiet(struct vblk *d, const void *arg)
{
	const uint64_t *r = arg;

	for (unsigned i = 0; i < d->nslots; i++) {
		const struct vblk_slot *s = &d->slots[i];

		if (s->busy && s->sector < r[0] + r[1] && r[0] < s->sector + s->nsect)
			return false;
	}
	return true;
}

/*
 * One request of nsect <= BOUNCE_SECTORS sectors through a slot's bounce
 * buffer, after every request in flight that overlaps it (the device may
 * complete requests in any order). behind (a write): return once it is
 * submitted. req_lock held. 0 or -EIO.
 */
static int request_locked(struct vblk *d, bool write, uint64_t sector, char *buf, uint32_t nsect, bool behind)
{
	uint32_t bytes = nsect * SECTOR_SIZE;
	uint64_t range[2] = { sector, nsect };
	struct vblk_slot *s;
	uint16_t head;

	wait_for(d, range_quiet, range);
	wait_for(d, slot_free, NULL);
	s = idle_slot(d);
	head = (uint16_t)(3 * (s - d->slots));
	s->req->hdr.type = write ? VIRTIO_BLK_T_OUT : VIRTIO_BLK_T_IN;
	s->req->hdr.ioprio = 0;
	s->req->hdr.sector = sector;
	s->req->status = 0xff;
	s->sector = sector;
	s->nsect = nsect;
	s->behind = behind;
	s->failed = false;
	if (write)
		memcpy(s->bounce, buf, bytes);
	virtq_set_desc(&d->q, head, virt_to_phys(&s->req->hdr), sizeof(s->req->hdr), VRING_DESC_F_NEXT, head + 1);
	virtq_set_desc(&d->q, head + 1, virt_to_phys(s->bounce), bytes,
		       VRING_DESC_F_NEXT | (write ? 0 : VRING_DESC_F_WRITE), head + 2);
	virtq_set_desc(&d->q, head + 2, virt_to_phys((void *)&s->req->status), 1, VRING_DESC_F_WRITE, 0);
	s->busy = true;
	d->requests++;
	virtq_submit(&d->q, head);
	if (behind)
		return 0;
	wait_for(d, slot_done, s);
	if (s->failed || (!write && d->lost))
		return -EIO;
	if (!write)
		memcpy(buf, s->bounce, bytes);
	return 0;
}

/* The request cut into pieces of BOUNCE_SECTORS at most, under req_lock. */
static int vblk_request(struct blockdev *dev, bool write, uint64_t sector, char *p, uint32_t nsect, bool behind)
{
	struct vblk *d = dev->priv;
	int r = 0;

	down_write(&d->req_lock);
	while (nsect > 0 && r == 0) {
		uint32_t n = MIN(nsect, (uint32_t)BOUNCE_SECTORS);

		r = request_locked(d, write, sector, p, n, behind);
		sector += n;
		p += (size_t)n * SECTOR_SIZE;
		nsect -= n;
	}
	up_write(&d->req_lock);
	return r;
}

static int vblk_rw(struct blockdev *dev, bool write, uint64_t sector, void *buf, uint32_t nsect)
{
	return vblk_request(dev, write, sector, buf, nsect, false);
}

static int vblk_write_behind(struct blockdev *dev, uint64_t sector, const void *buf, uint32_t nsect)
{
	return vblk_request(dev, true, sector, (char *)buf, nsect, true);
}

static const struct blockdev_ops vblk_ops = { .rw = vblk_rw, .write_behind = vblk_write_behind };

/*
 * The device's buffers: the request page (every slot's header and status)
 * and a bounce buffer a slot; slots past the first go without one when
 * memory is short (fewer requests in flight). 0 or -ENOMEM.
 */
static int alloc_buffers(struct vblk *d)
{
	struct page *req = pmm_alloc(0, GFP_ZERO);

	d->nslots = 0;
	if (!req)
		return -ENOMEM;
	for (unsigned i = 0; i < VBLK_SLOTS; i++) {
		struct page *bounce = pmm_alloc(BOUNCE_ORDER, 0);

		if (!bounce)
			break;
		d->slots[i].req = (struct vblk_req *)((char *)page_address(req) + i * 64);
		d->slots[i].bounce = page_address(bounce);
		d->nslots++;
	}
	if (d->nslots)
		return 0;
	pmm_free(req, 0);
	return -ENOMEM;
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

	if (request_locked(d, false, 0, sector, 1, false))
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
	r = virtq_init(&d->q, io, 0, 3 * VBLK_SLOTS);
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
