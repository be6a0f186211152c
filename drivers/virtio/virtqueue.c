/*
 * Legacy virtio PCI devices and their split virtqueues
 * (drivers/virtio/virtqueue.h): the part every virtio driver shares. The
 * ring layout is the legacy one: descriptors, then the avail ring, then,
 * at the next page boundary, the used ring. The caller serializes calls
 * on one queue.
 */
#include "drivers/virtio/virtqueue.h"
#include "x86.h"
#include "pmm.h"
#include "kerrno.h"

#define barrier() __asm__ volatile("" : : : "memory")

int virtio_legacy_find(uint16_t device, unsigned from)
{
	for (unsigned slot = from; slot < 32; slot++) {
		uint32_t id = pci_read32(slot, 0);

		if ((id & 0xffff) == VIRTIO_VENDOR && (id >> 16) == device)
			return (int)slot;
	}
	return -1;
}

int virtio_legacy_start(unsigned slot, uint16_t *io)
{
	uint32_t bar = pci_read32(slot, 0x10);

	if (!(bar & 1) || !(bar & ~3U))
		return -ENODEV;         /* not an I/O BAR, or one the firmware did not assign */
	*io = (uint16_t)(bar & ~3U);
	pci_write32(slot, 0x04, pci_read32(slot, 0x04) | 0x5);     /* I/O space, bus master */
	outb(*io + VIO_STATUS, 0);
	outb(*io + VIO_STATUS, VIO_STATUS_ACK | VIO_STATUS_DRIVER);
	return 0;
}

/* Bytes of a legacy vring of num entries (the used ring page-aligned). */
static size_t vring_bytes(uint16_t num)
{
	size_t avail_end = 16UL * num + 6 + 2UL * num;

	return ALIGN_UP(avail_end, PAGE_SIZE) + 6 + 8UL * num;
}

int virtq_init(struct virtqueue *q, uint16_t io, uint16_t index, uint16_t min_num)
{
	struct page *pg;
	unsigned order = 0;
	char *mem;

	outw(io + VIO_QUEUE_SEL, index);
	q->io = io;
	q->num = inw(io + VIO_QUEUE_SIZE);
	q->index = index;
	q->avail_idx = q->last_used = 0;
	if (q->num == 0 || q->num < min_num)
		return -ENODEV;
	while ((PAGE_SIZE << order) < vring_bytes(q->num))
		order++;
	pg = pmm_alloc(order, GFP_ZERO);
	if (!pg)
		return -ENOMEM;
	mem = page_address(pg);
	q->desc = (void *)mem;
	q->avail = (void *)(mem + 16UL * q->num);
	q->used = (void *)(mem + ALIGN_UP(16UL * q->num + 6 + 2UL * q->num, PAGE_SIZE));
	q->avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	outl(io + VIO_QUEUE_PFN, (uint32_t)(virt_to_phys(mem) >> PAGE_SHIFT));
	return 0;
}

void virtq_set_desc(struct virtqueue *q, uint16_t i, uint64_t pa, uint32_t len, uint16_t flags,
		    uint16_t next)
{
	q->desc[i].addr = pa;
	q->desc[i].len = len;
	q->desc[i].flags = flags;
	q->desc[i].next = next;
}

void virtq_notify(struct virtqueue *q)
{
	outw(q->io + VIO_QUEUE_NOTIFY, q->index);
}

void virtq_submit(struct virtqueue *q, uint16_t head)
{
	q->avail->ring[q->avail_idx % q->num] = head;
	barrier();
	q->avail_idx++;
	q->avail->idx = q->avail_idx;
	barrier();
	virtq_notify(q);
}

bool virtq_used_pending(struct virtqueue *q)
{
	barrier();
	return q->last_used != q->used->idx;
}

bool virtq_used_pop(struct virtqueue *q, uint32_t *id, uint32_t *len)
{
	volatile struct vring_used_elem *e;

	if (!virtq_used_pending(q))
		return false;
	e = &q->used->ring[q->last_used % q->num];
	*id = e->id;
	*len = e->len;
	barrier();
	q->last_used++;
	return true;
}
