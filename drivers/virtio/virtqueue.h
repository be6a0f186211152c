/*
 * Legacy virtio over PCI (virtio spec 0.9.5, "legacy interface"): the
 * device's registers in its I/O BAR, one split virtqueue (vring) per
 * queue at a page-aligned physical address given as a page number. Shared
 * by the virtio drivers (arch/x86_64/virtio_console.c,
 * drivers/block/virtio_blk.c); kernel only (port I/O, physical addresses).
 *
 * A virtqueue has no lock of its own: its driver serializes every call on
 * one queue (the console under its streams lock, the disk under its
 * request lock). Interrupts start off (VRING_AVAIL_F_NO_INTERRUPT): the
 * console polls the used ring; the disk turns them on where it can route
 * them (MSI-X) and sleeps until the device's interrupt.
 */
#ifndef DRIVERS_VIRTIO_VIRTQUEUE_H
#define DRIVERS_VIRTIO_VIRTQUEUE_H

#include "types.h"

#define VIRTIO_VENDOR          0x1af4
/* Legacy register offsets in the I/O BAR. */
#define VIO_HOST_FEATURES      0x00
#define VIO_GUEST_FEATURES     0x04
#define VIO_QUEUE_PFN          0x08
#define VIO_QUEUE_SIZE         0x0c
#define VIO_QUEUE_SEL          0x0e
#define VIO_QUEUE_NOTIFY       0x10
#define VIO_STATUS             0x12
#define VIO_ISR                0x13
#define VIO_DEVICE_CONFIG      0x14     /* device-specific registers (no MSI-X) */
/* With MSI-X enabled the legacy layout gains two vector registers, and the device's registers move. */
#define VIO_MSIX_CONFIG_VECTOR 0x14
#define VIO_MSIX_QUEUE_VECTOR  0x16     /* of the queue selected by VIO_QUEUE_SEL */
#define VIO_DEVICE_CONFIG_MSIX 0x18
#define VIO_MSIX_NO_VECTOR     0xffff
/* Device status bits. */
#define VIO_STATUS_ACK         1
#define VIO_STATUS_DRIVER      2
#define VIO_STATUS_DRIVER_OK   4
#define VIO_STATUS_FAILED      0x80
/* Descriptor flags. */
#define VRING_DESC_F_NEXT      1
#define VRING_DESC_F_WRITE     2        /* the device writes the buffer */
#define VRING_AVAIL_F_NO_INTERRUPT 1

struct vring_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags, next;
};

struct vring_avail {
	uint16_t flags, idx;
	uint16_t ring[];
};

struct vring_used_elem {
	uint32_t id, len;
};

struct vring_used {
	uint16_t flags, idx;
	struct vring_used_elem ring[];
};

struct virtqueue {
	uint16_t io;                    /* the device's I/O BAR */
	uint16_t num, index;            /* entries, queue number */
	volatile struct vring_desc *desc;
	volatile struct vring_avail *avail;
	volatile struct vring_used *used;
	uint16_t avail_idx;             /* next avail slot (shadow of avail->idx) */
	uint16_t last_used;             /* next used entry to consume */
};

/*
 * virtio_legacy_start: take the device in PCI slot (bus 0) in hand: its I/O
 * BAR into *io, I/O decoding and bus mastering on, device reset, then
 * ACKNOWLEDGE | DRIVER. 0, or -ENODEV when BAR 0 is no assigned I/O BAR.
 */
int virtio_legacy_start(unsigned slot, uint16_t *io);
/* virtio_legacy_find: the first PCI slot from slot `from` on with virtio device id `device`, or -1. */
int virtio_legacy_find(uint16_t device, unsigned from);

/*
 * virtq_init: set up queue `index` of the device at io: allocate its zeroed
 * vring (interrupts off) and give its page number to the device. 0,
 * -ENODEV (the queue has fewer than min_num entries, or none), -ENOMEM.
 */
int virtq_init(struct virtqueue *q, uint16_t io, uint16_t index, uint16_t min_num);
/* virtq_set_desc: fill descriptor i (< num): buffer at physical pa, len bytes, flags, next. */
void virtq_set_desc(struct virtqueue *q, uint16_t i, uint64_t pa, uint32_t len, uint16_t flags,
		    uint16_t next);
/* virtq_submit: put the chain starting at descriptor head into the avail ring, then notify. */
void virtq_submit(struct virtqueue *q, uint16_t head);
/* virtq_notify: tell the device to look at the queue again. */
void virtq_notify(struct virtqueue *q);
/* virtq_used_pending: the device has returned a chain not yet popped (reads the used ring). */
bool virtq_used_pending(struct virtqueue *q);
/* virtq_used_pop: the next returned chain's head in *id and written length in *len; false if none. */
bool virtq_used_pop(struct virtqueue *q, uint32_t *id, uint32_t *len);

#endif
