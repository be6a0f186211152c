/*
 * epoll: epoll_create/epoll_create1, epoll_ctl, epoll_wait/epoll_pwait, as
 * Linux's for the files this kernel has (readiness from file_ops.poll, the
 * waiting on file_io_wait as poll does: fs/sys_poll.c).
 *
 * An epoll file holds its interest list: (fd, file, events, data). As on
 * Linux an entry does not keep its file open: it is matched by the fd and
 * the file it named at EPOLL_CTL_ADD (its address and serial number), and
 * one whose fd no longer holds that file is dropped when seen (Linux drops
 * it when the file's last reference goes). An epoll file cannot be added
 * to an epoll file here (-EINVAL; Linux allows nesting): so no cycle can
 * make a wait lock itself.
 *
 * Level-triggered entries are reported while ready. EPOLLONESHOT entries
 * are disabled after one report until EPOLL_CTL_MOD. EPOLLET entries are
 * reported when ready and some file event (file_io_event: data arrived,
 * room freed, a peer closed) happened since their last report: an edge is
 * never missed, and at most a spurious report is given after an unrelated
 * file's event, which edge-triggered users tolerate (they read until
 * EAGAIN).
 */
#include "syscall_internal.h"
#include "file.h"
#include "task.h"
#include "signal.h"
#include "ktimer.h"
#include "slab.h"
#include "spinlock.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"
#include "uapi/linux_fcntl.h"
#include "lockless.h"

#define EPOLL_CTL_ADD 1
#define EPOLL_CTL_DEL 2
#define EPOLL_CTL_MOD 3
#define EPOLLIN        0x001U
#define EPOLLERR       0x008U
#define EPOLLHUP       0x010U
#define EPOLLEXCLUSIVE (1U << 28)
#define EPOLLWAKEUP    (1U << 29)
#define EPOLLONESHOT   (1U << 30)
#define EPOLLET        (1U << 31)
#define EPOLL_CLOEXEC  O_CLOEXEC
#define EPOLL_MAX_ENTRIES 4096          /* per epoll file (Linux's max_user_watches is far larger) */
#define EP_MAX_EVENTS (0x7fffffff / 12) /* Linux: INT_MAX / sizeof(struct epoll_event) */

/* struct epoll_event of x86-64: packed, 12 bytes. */
struct epoll_event_k {
	uint32_t events;
	uint64_t data;
} __attribute__((packed));

struct ep_item {
	struct list_head link;
	int fd;
	struct file *file;              /* not a reference: compared with fd's file, with serial */
	uint64_t serial;
	uint32_t events;                /* asked for, with EPOLLET/EPOLLONESHOT; 0: a disarmed one-shot */
	uint64_t data;
	unsigned long reported_gen;     /* EPOLLET: file_io_events at its last report */
};

struct eventpoll {
	struct spinlock lock;           /* items */
	struct list_head items;
	int nitems;
};

static void ep_release(struct file *f)
{
	struct eventpoll *ep = f->priv;
	struct list_head *p, *tmp;

	list_for_each_safe(p, tmp, &ep->items)
		kfree(list_entry(p, struct ep_item, link));
	kfree(ep);
}

/*
 * fd_peek's callback for entry arg: -ENOENT when the fd holds another file
 * than the entry's, else (poll true) its readiness or 0. The entry holds no
 * reference: its file is only touched while the fd table lock shows it open.
 */
static long ep_peek(struct file *f, void *arg, bool poll)
{
	const struct ep_item *it = arg;

	if (f != it->file || f->serial != it->serial)
		return -ENOENT;
	return poll ? (long)file_poll(f) : 0;
}

static long ep_peek_live(struct file *f, void *arg)
{
	return ep_peek(f, arg, false);
}

static long ep_peek_poll(struct file *f, void *arg)
{
	return ep_peek(f, arg, true);
}

/* The entry's fd still holds the file it was added with (in the caller's fd table). */
static bool ep_item_live(struct ep_item *it)
{
	return fd_peek((uint64_t)it->fd, ep_peek_live, it) == 0;
}

/* What an entry reports now: its file's readiness within what it asks for (0: no longer live). */
static uint32_t ep_item_ready(struct ep_item *it)
{
	uint32_t want = (it->events & ~(EPOLLET | EPOLLONESHOT | EPOLLEXCLUSIVE | EPOLLWAKEUP)) |
			EPOLLERR | EPOLLHUP;
	long r;

	if (!(it->events & ~(EPOLLET | EPOLLONESHOT)))
		return 0;               /* a disarmed one-shot entry */
	r = fd_peek((uint64_t)it->fd, ep_peek_poll, it);
	return r < 0 ? 0 : (uint32_t)r & want;  /* EPOLLRDHUP: sockets only, of which there are none */
}

/* Drop the entries whose fd no longer holds their file. ep->lock held. */
static void ep_drop_stale_locked(struct eventpoll *ep)
{
	struct list_head *p, *tmp;

	list_for_each_safe(p, tmp, &ep->items) {
		struct ep_item *it = list_entry(p, struct ep_item, link);

		if (!ep_item_live(it)) {
			list_del(p);
			ep->nitems--;
			kfree(it);
		}
	}
}

static unsigned ep_poll_file(struct file *f);

static void ep_stat(struct file *f, struct kstat *st)
{
	st->mode = 0600;                /* Linux's anonymous inode: no file type bits */
	st->ino = f->ino;
	st->blksize = 4096;
}

static const struct file_ops epoll_ops = { .release = ep_release, .poll = ep_poll_file, .stat = ep_stat };

static struct eventpoll *ep_of(struct file *f)
{
	return f && f->ops == &epoll_ops ? f->priv : NULL;
}

/* An epoll file is readable while one of its entries would be reported (level view). */
static unsigned ep_poll_file(struct file *f)
{
	struct eventpoll *ep = f->priv;
	unsigned long fl = spin_lock_irqsave(&ep->lock);
	struct list_head *p;
	unsigned r = 0;

	list_for_each(p, &ep->items) {
		struct ep_item *it = list_entry(p, struct ep_item, link);

		if (ep_item_ready(it))
			r = POLLIN;
	}
	spin_unlock_irqrestore(&ep->lock, fl);
	return r;
}

/* epoll_create1(flags): a new epoll fd. -EINVAL flags other than EPOLL_CLOEXEC; -EMFILE; -ENOMEM. */
long sys_epoll_create1(SYSCALL_ARGS)
{
	struct eventpoll *ep;
	struct file *f;
	int fd;

	if (a0 & ~(uint64_t)EPOLL_CLOEXEC)
		return -EINVAL;
	ep = kzalloc(sizeof(*ep));
	f = ep ? file_alloc(&epoll_ops, O_RDWR) : NULL;
	if (!f) {
		kfree(ep);
		return -ENOMEM;
	}
	spin_init_class(&ep->lock, "epoll", LOCK_CLASS_EPOLL);
	list_init(&ep->items);
	f->priv = ep;
	f->ino = (uint64_t)(uintptr_t)ep >> 4;
	fd = fd_install_lowest(f, 0, a0 & EPOLL_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

/* epoll_create(size): epoll_create1(0); -EINVAL size <= 0. */
long sys_epoll_create(SYSCALL_ARGS)
{
	if ((int)a0 <= 0)
		return -EINVAL;
	return sys_epoll_create1(tf, 0, 0, 0, 0, 0, 0);
}

static struct ep_item *ep_find_locked(struct eventpoll *ep, int fd, struct file *f)
{
	struct list_head *p;

	list_for_each(p, &ep->items) {
		struct ep_item *it = list_entry(p, struct ep_item, link);

		if (it->fd == fd && it->file == f && it->serial == f->serial)
			return it;
	}
	return NULL;
}

/* Apply op to ep under its lock; new: a zeroed item for ADD (taken: set to NULL). */
static long ep_ctl_locked(struct eventpoll *ep, int op, int fd, struct file *f,
			  const struct epoll_event_k *ev, struct ep_item **new)
{
	struct ep_item *it;

	ep_drop_stale_locked(ep);
	it = ep_find_locked(ep, fd, f);
	if (op == EPOLL_CTL_ADD) {
		if (it)
			return -EEXIST;
		if (ep->nitems >= EPOLL_MAX_ENTRIES)
			return -ENOSPC;
		it = *new;
		*new = NULL;
		it->fd = fd;
		it->file = f;
		it->serial = f->serial;
		list_add_tail(&it->link, &ep->items);
		ep->nitems++;
	} else if (!it) {
		return -ENOENT;
	} else if (op == EPOLL_CTL_DEL) {
		list_del(&it->link);
		ep->nitems--;
		*new = it;              /* freed by the caller, outside the lock */
		return 0;
	}
	it->events = ev->events;
	it->data = ev->data;
	it->reported_gen = smp_load_acquire(&file_io_events) - 1;
	return 0;
}

/* epoll_ctl's work: epf and f are epfd's and fd's files (references held by the caller) or NULL. */
static long ep_ctl(struct file *epf, int op, int fd, struct file *f, uint64_t uev)
{
	struct eventpoll *ep = ep_of(epf);
	struct epoll_event_k ev = { 0, 0 };
	struct ep_item *spare = NULL;
	unsigned long fl;
	long r;

	if (op != EPOLL_CTL_DEL && copy_from_user(&ev, (const void *)uev, sizeof(ev)))
		return -EFAULT;
	if (!epf || !f)
		return -EBADF;
	if (!ep || ep_of(f) || (op != EPOLL_CTL_ADD && op != EPOLL_CTL_DEL && op != EPOLL_CTL_MOD))
		return -EINVAL;
	if (op == EPOLL_CTL_MOD && (ev.events & EPOLLEXCLUSIVE))
		return -EINVAL;
	if (op == EPOLL_CTL_ADD && !(spare = kzalloc(sizeof(*spare))))
		return -ENOMEM;
	fl = spin_lock_irqsave(&ep->lock);
	r = ep_ctl_locked(ep, op, fd, f, &ev, &spare);
	spin_unlock_irqrestore(&ep->lock, fl);
	kfree(spare);
	return r;
}

/*
 * epoll_ctl(epfd, op, fd, event): add, change or remove fd's entry.
 * -EBADF epfd or fd not open; -EINVAL epfd not an epoll file, fd == epfd
 * or another epoll file, a bad op, or EPOLLEXCLUSIVE with MOD; -EEXIST /
 * -ENOENT; -ENOSPC 4096 entries; -EFAULT.
 */
long sys_epoll_ctl(SYSCALL_ARGS)
{
	struct file *epf = fget(a0), *f = fget(a2);
	long r = ep_ctl(epf, (int)a1, (int)a2, f, a3);

	file_put(epf);
	file_put(f);
	return r;
}

struct ep_wait {
	struct eventpoll *ep;
	struct epoll_event_k *out;
	int max, count;
};

/* Collect up to max ready entries (one-shot ones disarmed, edge-triggered ones marked). */
static bool ep_scan(void *arg)
{
	struct ep_wait *w = arg;
	unsigned long gen = smp_load_acquire(&file_io_events);
	unsigned long fl = spin_lock_irqsave(&w->ep->lock);
	struct list_head *p;

	w->count = 0;
	ep_drop_stale_locked(w->ep);
	list_for_each(p, &w->ep->items) {
		struct ep_item *it = list_entry(p, struct ep_item, link);
		uint32_t r;

		if (w->count == w->max)
			break;
		if ((it->events & EPOLLET) && it->reported_gen == gen)
			continue;               /* reported, and nothing happened since */
		if (!(r = ep_item_ready(it)))
			continue;
		w->out[w->count++] = (struct epoll_event_k){ .events = r, .data = it->data };
		if (it->events & EPOLLONESHOT)
			it->events &= EPOLLET | EPOLLONESHOT;
		it->reported_gen = gen;
	}
	spin_unlock_irqrestore(&w->ep->lock, fl);
	return w->count > 0;
}

/* epoll_wait's work on epfd's file f (a reference held by the caller, or NULL). */
static long ep_wait_file(struct file *f, uint64_t uevents, int max, int timeout_ms)
{
	struct ep_wait w = { .ep = ep_of(f), .max = max };
	uint64_t deadline;
	long r = 0;

	if (max <= 0 || max > EP_MAX_EVENTS)
		return -EINVAL;
	if (!f)
		return -EBADF;
	if (!w.ep)
		return -EINVAL;
	if (max > 1024)
		w.max = max = 1024;     /* one batch; the rest come with the next call */
	w.out = kmalloc((size_t)max * sizeof(*w.out));
	if (!w.out)
		return -ENOMEM;
	deadline = timeout_ms < 0 ? UINT64_MAX : monotonic_ns() + (uint64_t)timeout_ms * 1000000;
	if (!ep_scan(&w) && timeout_ms != 0) {
		r = sleep_until_ns(deadline, &file_io_wait, ep_scan, &w);
		r = r == -EINTR ? -EINTR : 0;   /* Linux: -EINTR, never restarted */
	}
	if (!r && copy_to_user((void *)uevents, w.out, (size_t)w.count * sizeof(*w.out)))
		r = -EFAULT;
	kfree(w.out);
	return r ? r : w.count;
}

/* epoll_wait's body: timeout_ms < 0 waits without a limit, 0 not at all. */
static long ep_wait(uint64_t epfd, uint64_t uevents, int max, int timeout_ms)
{
	struct file *f = fget(epfd);
	long r = ep_wait_file(f, uevents, max, timeout_ms);

	file_put(f);
	return r;
}

/* epoll_wait(epfd, events, maxevents, timeout): the ready entries. -EINVAL, -EBADF, -EFAULT, -EINTR. */
long sys_epoll_wait(SYSCALL_ARGS)
{
	return ep_wait(a0, a1, (int)a2, (int)a3);
}

/* epoll_pwait(..., sigmask, sigsetsize): the same with a temporary signal mask. */
long sys_epoll_pwait(SYSCALL_ARGS)
{
	long r = signal_temp_mask_user(a4, a5);

	return r ? r : ep_wait(a0, a1, (int)a2, (int)a3);
}
