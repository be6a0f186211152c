/*
 * The programs' console streams (include/arch.h, arch_stream_*) on a legacy
 * virtio console device with multiple ports (QEMU virtio-serial-pci, PCI
 * vendor 0x1af4 device 0x1003, I/O BAR 0, feature MULTIPORT): tools/run
 * gives it three serial ports, 1 stdout, 2 stderr, 3 stdin (ports, not
 * consoles: QEMU throttles a port whose host side is slow, but drops a
 * console's bytes). The device is driven without interrupts: the guest
 * posts buffers and QEMU moves the bytes when notified (output) or when
 * they arrive (input); the timer tick polls the used rings
 * (arch_stream_poll). The control queues carry the multiport handshake:
 * DEVICE_READY, then PORT_READY and PORT_OPEN for each port QEMU adds.
 *
 * Output is lossless: a buffer is reused only once QEMU has handed its
 * bytes to the host side, which blocks (back-pressure) while tools/run's
 * reader is slow. Bytes of any value pass unchanged.
 *
 * Input: the stdin console's receive queue. Its end is not visible on the
 * virtio device (the host side stays open), so tools/run sends a control
 * line on the serial port, "stdin-eof N\n", once its stdin ended after N
 * bytes; reads return 0 once those N bytes have been read.
 *
 * Legacy virtio (virtio spec 0.9.5): registers in the I/O BAR, one vring
 * per queue at a page-aligned physical address given as a page number;
 * the device start-up and the queues are drivers/virtio/virtqueue.c's,
 * shared with the virtio disk (drivers/block/virtio_blk.c).
 */
#include "arch.h"
#include "x86.h"
#include "pmm.h"
#include "kstring.h"
#include "printk.h"
#include "spinlock.h"
#include "drivers/virtio/virtqueue.h"

#define VIRTIO_CONSOLE_LEGACY 0x1003
#define F_MULTIPORT          (1U << 1)
#define CTRL_RX 2
#define CTRL_TX 3
#define EV_DEVICE_READY 0
#define EV_DEVICE_ADD   1
#define EV_PORT_READY   3
#define EV_PORT_OPEN    6
#define NBUF 8                          /* buffers per queue, one page each */
#define NSTREAMS 3

/* A queue of the console: the shared virtqueue, and NBUF page buffers (buffer i is descriptor i). */
struct vq {
	struct virtqueue vq;
	char *buf[NBUF];
	bool busy[NBUF];                /* owned by the device */
};

struct vcons {
	bool present;
	struct vq q;                    /* TX for stdout/stderr, RX for stdin */
};

struct virtio_console_control {
	uint32_t id;
	uint16_t event, value;
};

/* streams[0] stdin (port 3), [1] stdout (port 1), [2] stderr (port 2); ctrl_rx/ctrl_tx the control queues */
static struct vcons streams[NSTREAMS], ctrl_rx, ctrl_tx;
/* stdin state */
static uint64_t rx_bytes;               /* bytes received so far */
static uint64_t eof_at = UINT64_MAX;    /* total length announced by "stdin-eof N" */
static int rx_cur = -1;                 /* descriptor being consumed, or -1 */
static uint32_t rx_len, rx_off;
static char ctl_line[48];
static unsigned ctl_len;

/*
 * One lock for the queues and the stdin state: writers on any CPU and the
 * tick's poll on CPU 0 would otherwise consume one used entry twice and
 * reuse a buffer the device still reads (lost and repeated output).
 */
static struct spinlock vcons_lock = SPINLOCK_INIT_CLASS("streams", LOCK_CLASS_STREAMS);

/* Set up queue index of the device at io: its vring (drivers/virtio/virtqueue.c) and NBUF page buffers. */
static bool vq_init(struct vq *q, uint16_t io, uint16_t index)
{
	if (virtq_init(&q->vq, io, index, NBUF))
		return false;
	for (int i = 0; i < NBUF; i++) {
		struct page *b = pmm_alloc(0, 0);

		if (!b)
			return false;
		q->buf[i] = page_address(b);
	}
	return true;
}

/* Hand descriptor i (len bytes, device-writable for RX) to the device and notify it. */
static void vq_post(struct vcons *c, int i, uint32_t len, bool device_writes)
{
	struct vq *q = &c->q;

	virtq_set_desc(&q->vq, (uint16_t)i, virt_to_phys(q->buf[i]), len,
		       device_writes ? VRING_DESC_F_WRITE : 0, 0);
	q->busy[i] = true;
	virtq_submit(&q->vq, (uint16_t)i);
}

/* TX: take back the buffers the device is done with. True if any came back. */
static bool tx_reclaim(struct vq *q)
{
	uint32_t id, len;
	bool any = false;

	while (virtq_used_pop(&q->vq, &id, &len)) {
		if (id < NBUF)
			q->busy[id] = false;
		any = true;
	}
	return any;
}

/*
 * Notify the stdin receive queue: QEMU then asks its input for bytes. It
 * does so by itself when they arrive, but not for bytes that came while
 * the port could take none (before the guest was ready, or all buffers
 * full) until something wakes it: a reader that finds nothing kicks.
 */
static void kick_stdin(void)
{
	virtq_notify(&streams[0].q.vq);
}

/* Send one control message (the control transmit queue has NBUF buffers; QEMU takes them at once). */
static void ctrl_send(uint32_t id, uint16_t event, uint16_t value)
{
	struct virtio_console_control m = { .id = id, .event = event, .value = value };

	tx_reclaim(&ctrl_tx.q);
	for (int i = 0; i < NBUF; i++)
		if (!ctrl_tx.q.busy[i]) {
			memcpy(ctrl_tx.q.buf[i], &m, sizeof(m));
			vq_post(&ctrl_tx, i, sizeof(m), false);
			return;
		}
}

/* The port's stream index for a port number (1 stdout, 2 stderr, 3 stdin), or -1. */
static int port_stream(uint32_t port)
{
	return port == 1 ? 1 : port == 2 ? 2 : port == 3 ? 0 : -1;
}

/* Answer the control messages QEMU sent (DEVICE_ADD: PORT_READY then PORT_OPEN for our ports). */
static void ctrl_poll(void)
{
	struct vq *q = &ctrl_rx.q;
	uint32_t id, len;

	while (virtq_used_pop(&q->vq, &id, &len)) {
		struct virtio_console_control m;

		if (id >= NBUF)
			continue;
		memcpy(&m, q->buf[id], sizeof(m));
		vq_post(&ctrl_rx, (int)id, PAGE_SIZE, true);
		if (m.event == EV_PORT_OPEN && m.value && port_stream(m.id) == 0 && streams[0].present)
			kick_stdin();    /* the host side opened: have QEMU look at its input now */
		if (m.event == EV_DEVICE_ADD) {
			int s = port_stream(m.id);

			ctrl_send(m.id, EV_PORT_READY, s >= 0);
			if (s >= 0 && streams[s].present)
				ctrl_send(m.id, EV_PORT_OPEN, 1);
		}
	}
}

/* Queue index of the device at io for c: its vring and NBUF buffers. */
static bool setup_queue(struct vcons *c, uint16_t io, uint16_t index)
{
	c->present = vq_init(&c->q, io, index);
	return c->present;
}

static void post_all(struct vcons *c)
{
	for (int i = 0; i < NBUF; i++)
		vq_post(c, i, PAGE_SIZE, true);
}

static void init_device(unsigned slot)
{
	uint16_t io;

	if (virtio_legacy_start(slot, &io))
		return;
	if (!(inl(io + VIO_HOST_FEATURES) & F_MULTIPORT))
		return;
	outl(io + VIO_GUEST_FEATURES, F_MULTIPORT);
	/* queues: port p receives on 2 + 2p and transmits on 3 + 2p (p >= 1) */
	if (!setup_queue(&ctrl_rx, io, CTRL_RX) || !setup_queue(&ctrl_tx, io, CTRL_TX) ||
	    !setup_queue(&streams[1], io, 3 + 2 * 1) || !setup_queue(&streams[2], io, 3 + 2 * 2) ||
	    !setup_queue(&streams[0], io, 2 + 2 * 3)) {
		outb(io + VIO_STATUS, VIO_STATUS_FAILED);
		streams[0].present = streams[1].present = streams[2].present = false;
		return;
	}
	outb(io + VIO_STATUS, VIO_STATUS_ACK | VIO_STATUS_DRIVER | VIO_STATUS_DRIVER_OK);
	post_all(&ctrl_rx);
	ctrl_send(0, EV_DEVICE_READY, 1);
	ctrl_poll();            /* QEMU answers synchronously: DEVICE_ADD for each port */
	ctrl_poll();
	/* stdin buffers only now that the port is open: each post's notify makes QEMU read its input */
	post_all(&streams[0]);
}

void arch_streams_init(void)
{
	int slot = virtio_legacy_find(VIRTIO_CONSOLE_LEGACY, 0);

	if (slot >= 0)
		init_device((unsigned)slot);
	if (streams[0].present || streams[1].present)
		printk("console: virtio console ports: stdout %s, stderr %s, stdin %s\n",
		       streams[1].present ? "yes" : "no", streams[2].present ? "yes" : "no",
		       streams[0].present ? "yes" : "no");
}

bool arch_stream_present(unsigned s)
{
	return s < NSTREAMS && streams[s].present;
}

/* Copy up to a page of buf into a free buffer of c and post it. vcons_lock held. */
static size_t tx_put(struct vcons *c, const char *buf, size_t n)
{
	struct vq *q = &c->q;

	tx_reclaim(q);
	for (int i = 0; i < NBUF; i++) {
		if (q->busy[i])
			continue;
		n = MIN(n, (size_t)PAGE_SIZE);
		memcpy(q->buf[i], buf, n);
		vq_post(c, i, (uint32_t)n, false);
		return n;
	}
	return 0;
}

size_t arch_stream_write(unsigned s, const char *buf, size_t n)
{
	unsigned long f;

	if (!arch_stream_present(s) || s == 0 || n == 0)
		return 0;
	f = spin_lock_irqsave(&vcons_lock);
	n = tx_put(&streams[s], buf, n);
	spin_unlock_irqrestore(&vcons_lock, f);
	return n;
}

/* A buffer of q free? vcons_lock held. */
static bool tx_free(struct vq *q)
{
	tx_reclaim(q);
	for (int i = 0; i < NBUF; i++)
		if (!q->busy[i])
			return true;
	return false;
}

bool arch_stream_writable(unsigned s)
{
	unsigned long f = spin_lock_irqsave(&vcons_lock);
	bool r = tx_free(&streams[s].q);

	spin_unlock_irqrestore(&vcons_lock, f);
	return r;
}

/* All output handed to the host side (before QEMU exits). */
bool arch_streams_drained(void)
{
	unsigned long f = spin_lock_irqsave(&vcons_lock);
	bool drained = true;

	for (unsigned s = 1; s < NSTREAMS; s++) {
		if (!streams[s].present)
			continue;
		tx_reclaim(&streams[s].q);
		for (int i = 0; i < NBUF; i++)
			if (streams[s].q.busy[i])
				drained = false;
	}
	spin_unlock_irqrestore(&vcons_lock, f);
	return drained;
}

/* Take the next filled RX buffer, if any (empty ones go straight back). */
static bool rx_next(void)
{
	struct vq *q = &streams[0].q;
	uint32_t id, len;

	while (rx_cur < 0) {
		if (!virtq_used_pop(&q->vq, &id, &len))
			return false;
		rx_cur = (int)id;
		rx_len = MIN(len, (uint32_t)PAGE_SIZE);
		rx_off = 0;
		rx_bytes += rx_len;
		if (rx_cur >= NBUF)
			rx_cur = -1;    /* not ours: ignore */
		else if (rx_len == 0) {
			vq_post(&streams[0], rx_cur, PAGE_SIZE, true);
			rx_cur = -1;
		}
	}
	return true;
}

/* Up to n bytes of stdin into buf; 0 (and a kick) when none are there. vcons_lock held. */
static size_t rx_take(char *buf, size_t n)
{
	struct vcons *c = &streams[0];
	size_t got;

	if (!rx_next()) {
		kick_stdin();
		return 0;
	}
	got = MIN(n, (size_t)(rx_len - rx_off));
	memcpy(buf, c->q.buf[rx_cur] + rx_off, got);
	rx_off += got;
	if (rx_off >= rx_len) {
		vq_post(c, rx_cur, PAGE_SIZE, true);    /* give it back */
		rx_cur = -1;
	}
	return got;
}

size_t arch_stream_read(char *buf, size_t n)
{
	unsigned long f;

	if (!streams[0].present)
		return 0;
	f = spin_lock_irqsave(&vcons_lock);
	n = rx_take(buf, n);
	spin_unlock_irqrestore(&vcons_lock, f);
	return n;
}

/* The control line from tools/run on the serial port: "stdin-eof N". */
static bool poll_control(void)
{
	bool changed = false;
	int ch;

	while ((ch = uart_getc()) >= 0) {
		if (ch != '\n') {
			if (ctl_len < sizeof(ctl_line) - 1)
				ctl_line[ctl_len++] = (char)ch;
			continue;
		}
		ctl_line[ctl_len] = 0;
		for (unsigned at = 0; at + 10 <= ctl_len; at++) {
			uint64_t v = 0;

			if (strncmp(ctl_line + at, "stdin-eof ", 10) != 0)
				continue;       /* (a byte sent before uart_init may be lost: skip it) */
			for (const char *p = ctl_line + at + 10; *p >= '0' && *p <= '9'; p++)
				v = v * 10 + (uint64_t)(*p - '0');
			eof_at = v;
			changed = true;
			break;
		}
		ctl_len = 0;
	}
	return changed;
}

bool arch_stream_ended(void)
{
	unsigned long f = spin_lock_irqsave(&vcons_lock);
	bool r = !rx_next() && rx_bytes >= eof_at;

	spin_unlock_irqrestore(&vcons_lock, f);
	return r;
}

bool arch_stream_readable(void)
{
	unsigned long f = spin_lock_irqsave(&vcons_lock);
	bool r = rx_next() || rx_bytes >= eof_at;

	spin_unlock_irqrestore(&vcons_lock, f);
	return r;
}

/* Control messages, finished output, arrived input: true when something changed. vcons_lock held. */
static bool stream_poll_locked(void)
{
	bool changed = poll_control();

	if (ctrl_rx.present)
		ctrl_poll();

	for (unsigned s = 1; s < NSTREAMS; s++)
		if (streams[s].present && tx_reclaim(&streams[s].q))
			changed = true;
	if (streams[0].present && rx_cur < 0 && virtq_used_pending(&streams[0].q.vq))
		changed = true;
	return changed;
}

bool arch_stream_poll(void)
{
	unsigned long f = spin_lock_irqsave(&vcons_lock);
	bool changed = stream_poll_locked();

	spin_unlock_irqrestore(&vcons_lock, f);
	return changed;
}
