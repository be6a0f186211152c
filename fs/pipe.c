/*
 * Pipes (pipe, pipe2): a 64 KiB ring (Linux's default capacity) between a
 * read end and a write end, with Linux's semantics:
 *   - read blocks while the pipe is empty and a writer exists; returns 0
 *     (end of file) when empty and every write end is closed; -EAGAIN
 *     with O_NONBLOCK;
 *   - write blocks while full; writes of at most PIPE_BUF (4096) bytes are
 *     atomic (never interleaved with other writes: they wait for that much
 *     room); with no read end left, SIGPIPE is sent and -EPIPE returned;
 *     with O_NONBLOCK a write that cannot proceed gives -EAGAIN (an atomic
 *     one when it does not fit whole), a larger one writes what fits.
 *   - a blocked read or write returns -EINTR for a signal (or what it has
 *     transferred so far).
 * A pipe opened again through /proc/PID/fd/N (pipe_reopen) gets a new
 * end of the mode asked for, O_RDWR counting as both, as Linux's
 * fifo_open; unlike fifo_open it never waits for the other end.
 * Blocking goes through the wait queues of include/wait.h. The ring and
 * the end counts are changed under the pipe's lock, a sleeping lock held
 * across the user copies (which may fault): the reader and the writer may
 * run on two CPUs at once. A waiter rechecks its condition under the lock
 * and waits again when another reader or writer got there first.
 */
#include "pipe.h"
#include "file.h"
#include "wait.h"
#include "task.h"
#include "signal.h"
#include "pmm.h"
#include "slab.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"
#include "rwsem.h"
#include "printk.h"

#define PIPE_ORDER 4                    /* 64 KiB */
#define PIPE_SIZE (PAGE_SIZE << PIPE_ORDER)
#define PIPE_BUF 4096
#define S_IFIFO 0010000

struct pipe {
	struct rwsem lock;              /* taken for writing (a mutex): the four fields below */
	char *buf;                      /* PIPE_SIZE bytes */
	size_t head, len;               /* data is [head, head + len) mod PIPE_SIZE */
	int readers, writers;           /* open read / write ends (struct file count) */
	struct wait_queue rwait, wwait; /* readers waiting for data, writers for room */
	uint64_t ino;
};

static uint64_t next_pipe_ino = 1000;     /* [atomic] */

static bool pipe_readable(struct pipe *p)
{
	return p->len > 0 || p->writers == 0;
}

/* Copy up to n bytes from the ring to user ubuf; bytes copied or -EFAULT. */
static long ring_to_user(struct pipe *p, uint64_t ubuf, size_t n)
{
	size_t done = 0;

	n = MIN(n, p->len);
	while (done < n) {
		size_t chunk = MIN(n - done, PIPE_SIZE - p->head);

		if (copy_to_user((void *)(ubuf + done), p->buf + p->head, chunk))
			return done ? (long)done : -EFAULT;
		p->head = (p->head + chunk) % PIPE_SIZE;
		p->len -= chunk;
		done += chunk;
	}
	return (long)done;
}

/* Copy up to n bytes from user ubuf into the ring's free space; bytes or -EFAULT. */
static long ring_from_user(struct pipe *p, uint64_t ubuf, size_t n)
{
	size_t done = 0;

	n = MIN(n, PIPE_SIZE - p->len);
	while (done < n) {
		size_t tail = (p->head + p->len) % PIPE_SIZE;
		size_t chunk = MIN(n - done, PIPE_SIZE - tail);

		if (copy_from_user(p->buf + tail, (const void *)(ubuf + done), chunk))
			return done ? (long)done : -EFAULT;
		p->len += chunk;
		done += chunk;
	}
	return (long)done;
}

/* Wait until the pipe is readable, and return with its lock held; 0, -EAGAIN or -EINTR. */
static long pipe_lock_readable(struct file *f, struct pipe *p)
{
	for (;;) {
		long r;

		if (!pipe_readable(p) && (f->flags & O_NONBLOCK))
			return -EAGAIN;
		r = wait_event_interruptible(&p->rwait, pipe_readable(p));
		if (r)
			return r;
		down_write(&p->lock);
		if (pipe_readable(p))
			return 0;
		up_write(&p->lock);     /* another reader emptied it first */
	}
}

static long pipe_read(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	struct pipe *p = f->priv;
	long r;

	if (n == 0)
		return 0;
	if (!access_ok(ubuf, n))
		return -EFAULT;
	r = pipe_lock_readable(f, p);
	if (r)
		return r;
	r = ring_to_user(p, ubuf, n);
	up_write(&p->lock);
	if (r > 0) {
		wake_up(&p->wwait);
		file_io_event();
	}
	return r;
}

/* Room for the next piece of a write of n bytes with done written: all of it when atomic. */
static bool pipe_writable(struct pipe *p, size_t n, size_t done)
{
	size_t want = n <= PIPE_BUF ? n : 1;

	(void)done;
	return p->readers == 0 || PIPE_SIZE - p->len >= want;
}

static long pipe_write(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	struct pipe *p = f->priv;
	size_t done = 0;

	if (!access_ok(ubuf, n))
		return -EFAULT;
	while (done < n || n == 0) {
		long r;

		if (p->readers == 0) {
			send_signal(current, SIGPIPE, SI_USER, current->pid, false);
			return done ? (long)done : -EPIPE;
		}
		if (n == 0)
			return 0;
		if (!pipe_writable(p, n, done)) {
			if (f->flags & O_NONBLOCK)
				return done ? (long)done : -EAGAIN;
			r = wait_event_interruptible(&p->wwait, pipe_writable(p, n, done));
			if (r)
				return done ? (long)done : r;
			continue;
		}
		down_write(&p->lock);
		if (!p->readers || !pipe_writable(p, n, done)) {
			up_write(&p->lock);     /* the readers left, or another writer filled it first */
			continue;
		}
		r = ring_from_user(p, ubuf + done, n - done);
		up_write(&p->lock);
		if (r < 0)
			return done ? (long)done : r;
		done += r;
		wake_up(&p->rwait);
		file_io_event();
	}
	return (long)done;
}

static void pipe_stat(struct file *f, struct kstat *st)
{
	struct pipe *p = f->priv;

	st->mode = S_IFIFO | 0600;
	st->dev = 0xd;
	st->ino = p->ino;
	st->blksize = PAGE_SIZE;
}

static void pipe_release(struct file *f)
{
	struct pipe *p = f->priv;
	bool last;

	down_write(&p->lock);
	if ((f->flags & O_ACCMODE) != O_WRONLY)
		p->readers--;
	if ((f->flags & O_ACCMODE) != O_RDONLY)
		p->writers--;
	last = p->readers == 0 && p->writers == 0;
	/*
	 * Wake under the lock: once it is dropped, the other end's release
	 * (another CPU) may free the pipe; its release store is our last touch.
	 */
	wake_up(&p->rwait);
	wake_up(&p->wwait);
	up_write(&p->lock);
	file_io_event();
	if (last) {                     /* no file refers to it: nobody else is inside */
		pmm_free(virt_to_page(p->buf), PIPE_ORDER);
		kfree(p);
	}
}

/* Linux's pipe_poll: readable with data, hung up with no writer; writable with room, error with no reader. */
static unsigned pipe_poll(struct file *f)
{
	struct pipe *p = f->priv;

	unsigned r = 0;

	if ((f->flags & O_ACCMODE) != O_WRONLY)
		r |= (p->len ? POLLIN : 0) | (p->writers ? 0 : POLLHUP);
	if ((f->flags & O_ACCMODE) != O_RDONLY)
		r |= (PIPE_SIZE - p->len >= PIPE_BUF ? POLLOUT : 0) | (p->readers ? 0 : POLLERR);
	return r;
}

/* What /proc/PID/fd/N of a pipe reads as (Linux's pipefs_dname). */
static size_t pipe_dname(struct file *f, char *buf, size_t size)
{
	return (size_t)ksnprintf(buf, size, "pipe:[%llu]", (unsigned long long)((struct pipe *)f->priv)->ino);
}

static const struct file_ops pipe_ops = {
	.read = pipe_read, .write = pipe_write, .stat = pipe_stat, .release = pipe_release,
	.poll = pipe_poll, .dname = pipe_dname,
};

bool file_is_pipe(const struct file *f)
{
	return f->ops == &pipe_ops;
}

long pipe_reopen(struct file *f, int flags, struct file **out)
{
	struct pipe *p = f->priv;
	int acc = flags & O_ACCMODE;
	struct file *nf;

	if (acc == O_ACCMODE)
		return -EINVAL;
	nf = file_alloc(&pipe_ops, (unsigned)acc | (flags & O_NONBLOCK) | O_LARGEFILE);
	if (!nf)
		return -ENOMEM;
	down_write(&p->lock);
	if (acc != O_WRONLY)
		p->readers++;
	if (acc != O_RDONLY)
		p->writers++;
	up_write(&p->lock);
	nf->priv = p;
	nf->ino = p->ino;
	*out = nf;
	return 0;
}

int pipe_create(unsigned flags, struct file **rd, struct file **wr)
{
	struct pipe *p = kzalloc(sizeof(*p));
	struct page *pg = pmm_alloc(PIPE_ORDER, 0);

	*rd = file_alloc(&pipe_ops, O_RDONLY | (flags & O_NONBLOCK));
	*wr = file_alloc(&pipe_ops, O_WRONLY | (flags & O_NONBLOCK));
	if (!p || !pg || !*rd || !*wr) {
		kfree(p);
		kfree(*rd);
		kfree(*wr);
		if (pg)
			pmm_free(pg, PIPE_ORDER);
		return -ENOMEM;
	}
	rwsem_init(&p->lock, "pipe", LOCK_CLASS_PIPE);
	p->buf = page_address(pg);
	p->readers = p->writers = 1;
	p->ino = __atomic_fetch_add(&next_pipe_ino, 1, __ATOMIC_RELAXED);
	wait_queue_init(&p->rwait);
	wait_queue_init(&p->wwait);
	(*rd)->priv = (*wr)->priv = p;
	(*rd)->ino = (*wr)->ino = p->ino;
	return 0;
}
