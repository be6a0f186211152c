/*
 * File locks as Linux's fs/locks.c keeps them, in one list for the whole
 * system (few locks are held at once):
 *
 *   POSIX record locks (fcntl F_GETLK, F_SETLK, F_SETLKW): byte ranges
 *   owned by a process (its fd table, as Linux's fl_owner = current->files:
 *   threads share them, a forked child does not inherit them); a lock
 *   replaces, splits or merges the owner's own ranges it meets; every
 *   one the process holds on a file goes when it closes any fd of that file.
 *   F_SETLKW fails with -EDEADLK when the owner it would wait for waits,
 *   through a chain of waiting owners, for the caller.
 *   Open-file-description locks (F_OFD_*): the same ranges, owned by the
 *   open file, gone with its last reference; they conflict with POSIX locks.
 *   flock(2): a whole-file shared or exclusive lock of an open file, apart
 *   from the other two kinds (Linux keeps them apart too).
 *
 * Locking: locks_lock (a leaf spinlock) guards the list and the list of
 * waiters; the records are allocated before it is taken. Sleepers wait on
 * one queue and look again whenever a lock goes.
 */
#include "syscall_internal.h"
#include "file.h"
#include "task.h"
#include "wait.h"
#include "signal.h"
#include "slab.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"
#include "spinlock.h"
#include "lockless.h"

#define OFFSET_MAX   0x7fffffffffffffffLL
#define DEADLOCK_DEPTH 10               /* Linux's MAX_DEADLK_ITERATIONS */

enum lock_kind { LK_POSIX, LK_OFD, LK_FLOCK };

struct file_lock {
	struct list_head link;          /* in all_locks */
	const struct inode *inode;      /* the file locked (alive while an open file of it is) */
	uintptr_t owner;                /* POSIX: the fd table; OFD and flock: the open file */
	int pid;                        /* the process that set it (F_GETLK's l_pid) */
	enum lock_kind kind;
	int type;                       /* F_RDLCK or F_WRLCK */
	int64_t start, end;             /* bytes [start, end]; end OFFSET_MAX: to the end of file */
};

/* A task asleep in F_SETLKW: owner waits for blocker (the deadlock check follows these). */
struct lock_waiter {
	struct list_head link;
	uintptr_t owner, blocker;
};

/* Linux's struct flock on x86-64 (32 bytes). */
struct flock_k {
	int16_t type, whence;
	int64_t start, len;
	int32_t pid;
};

static struct spinlock locks_lock = SPINLOCK_INIT("file_locks");
static struct list_head all_locks = LIST_HEAD_INIT(all_locks);
static struct list_head lock_waiters = LIST_HEAD_INIT(lock_waiters);
static struct wait_queue lock_wq = WAIT_QUEUE_INIT(lock_wq);
static int locks_held;                  /* [atomic] records in all_locks: 0 lets close skip the lock */

static bool ranges_meet(const struct file_lock *l, int64_t start, int64_t end)
{
	return l->start <= end && start <= l->end;
}

static bool is_range_kind(enum lock_kind k)
{
	return k == LK_POSIX || k == LK_OFD;
}

/* A lock of another owner that keeps want (type over [start, end], of want's kind) from being taken. */
static struct file_lock *conflict_locked(const struct file_lock *want)
{
	struct list_head *p;

	list_for_each(p, &all_locks) {
		struct file_lock *l = list_entry(p, struct file_lock, link);

		if (l->inode != want->inode || l->owner == want->owner ||
		    is_range_kind(l->kind) != is_range_kind(want->kind))
			continue;
		if (ranges_meet(l, want->start, want->end) && (l->type == F_WRLCK || want->type == F_WRLCK))
			return l;
	}
	return NULL;
}

/* The owner that owner waits for in F_SETLKW, or 0. */
static uintptr_t waits_for_locked(uintptr_t owner)
{
	struct list_head *p;

	list_for_each(p, &lock_waiters) {
		struct lock_waiter *w = list_entry(p, struct lock_waiter, link);

		if (w->owner == owner)
			return w->blocker;
	}
	return 0;
}

/* Waiting for blocker would close a cycle of POSIX owners back to owner (Linux's posix_locks_deadlock). */
static bool would_deadlock_locked(const struct file_lock *want, const struct file_lock *blocker)
{
	uintptr_t owner = want->owner, o = blocker->owner;

	if (want->kind != LK_POSIX || blocker->kind != LK_POSIX)
		return false;
	for (int i = 0; i < DEADLOCK_DEPTH && o; i++) {
		if (o == owner)
			return true;
		o = waits_for_locked(o);
	}
	return false;
}

static void lock_free_locked(struct file_lock *l)
{
	list_del(&l->link);
	__atomic_sub_fetch(&locks_held, 1, __ATOMIC_RELAXED);
	kfree(l);
}

static void lock_add_locked(struct file_lock *l)
{
	list_add_tail(&l->link, &all_locks);
	__atomic_add_fetch(&locks_held, 1, __ATOMIC_RELAXED);
}

/*
 * Give want's owner want's type over want's range (F_UNLCK: none): its own
 * locks there are cut back, split (the far part into *spare, taken) or
 * dropped; ones of the same type that meet or touch it are merged in.
 * want itself is inserted (taken) unless it unlocks.
 */
static void apply_locked(struct file_lock *want, struct file_lock **spare)
{
	struct list_head *p, *n;

	list_for_each_safe(p, n, &all_locks) {
		struct file_lock *l = list_entry(p, struct file_lock, link);

		if (l->inode != want->inode || l->owner != want->owner || l->kind != want->kind)
			continue;
		if (l->type == want->type && l->start <= (want->end == OFFSET_MAX ? OFFSET_MAX : want->end + 1) &&
		    want->start <= (l->end == OFFSET_MAX ? OFFSET_MAX : l->end + 1)) {
			want->start = MIN(want->start, l->start);
			want->end = MAX(want->end, l->end);
			lock_free_locked(l);
		} else if (ranges_meet(l, want->start, want->end)) {
			if (l->start < want->start && l->end > want->end) {
				**spare = *l;
				(*spare)->start = want->end + 1;
				lock_add_locked(*spare);
				*spare = NULL;
				l->end = want->start - 1;
			} else if (l->start < want->start) {
				l->end = want->start - 1;
			} else if (l->end > want->end) {
				l->start = want->end + 1;
			} else {
				lock_free_locked(l);
			}
		}
	}
	if (want->type != F_UNLCK)
		lock_add_locked(want);
	else
		kfree(want);
}

/*
 * Take (or drop) the lock want describes (a kmalloc'd record that moves in),
 * waiting while another owner's lock conflicts when wait. 0; -EAGAIN;
 * -EDEADLK; -ERESTARTSYS (a signal); -ENOMEM.
 */
static long lock_set(struct file_lock *want, bool wait)
{
	struct file_lock *spare = kmalloc(sizeof(*spare)), *c;
	struct lock_waiter lw = { .owner = want->owner };
	struct waiter w = WAITER_INIT;
	unsigned long fl;
	long r = 0;

	if (!spare) {
		kfree(want);
		return -ENOMEM;
	}
	for (;;) {
		if (wait)
			wait_prepare(&lock_wq, &w);
		fl = spin_lock_irqsave(&locks_lock);
		c = want->type == F_UNLCK ? NULL : conflict_locked(want);
		if (!c) {
			apply_locked(want, &spare);
			want = NULL;
		} else if (!wait) {
			r = -EAGAIN;
		} else if (would_deadlock_locked(want, c)) {
			r = -EDEADLK;
		} else if (signal_pending(current)) {
			r = -ERESTARTSYS;
		} else {
			lw.blocker = c->owner;
			list_add_tail(&lw.link, &lock_waiters);
		}
		spin_unlock_irqrestore(&locks_lock, fl);
		if (!c || r)
			break;
		wait_schedule(&w);
		fl = spin_lock_irqsave(&locks_lock);
		list_del(&lw.link);
		spin_unlock_irqrestore(&locks_lock, fl);
	}
	if (wait)
		wait_finish(&lock_wq, &w);
	kfree(want);
	kfree(spare);
	if (!r)
		wake_up(&lock_wq);              /* a range may have been given up */
	return r;
}

#define KIND(k) (1U << (k))

/* Drop owner's locks of the kinds (KIND bits) on inode (NULL: on any file) and wake the waiters. */
static void locks_drop(const struct inode *inode, uintptr_t owner, unsigned kinds)
{
	struct list_head *p, *n;
	unsigned long fl;
	bool dropped = false;

	if (!READ_ONCE(locks_held))
		return;
	fl = spin_lock_irqsave(&locks_lock);
	list_for_each_safe(p, n, &all_locks) {
		struct file_lock *l = list_entry(p, struct file_lock, link);

		if (l->owner == owner && (!inode || l->inode == inode) && (kinds & KIND(l->kind))) {
			lock_free_locked(l);
			dropped = true;
		}
	}
	spin_unlock_irqrestore(&locks_lock, fl);
	if (dropped)
		wake_up(&lock_wq);
}

void file_locks_close(struct file *f, const void *fdt)
{
	if (f->dentry)
		locks_drop(f->dentry->inode, (uintptr_t)fdt, KIND(LK_POSIX));
}

void file_locks_release(struct file *f)
{
	if (f->dentry)
		locks_drop(NULL, (uintptr_t)f, KIND(LK_OFD) | KIND(LK_FLOCK));
}

/* The byte range fl names in f (Linux's flock_to_posix_lock). 0, -EINVAL, -EOVERFLOW. */
static long lock_range(struct file *f, const struct flock_k *fl, int64_t *start, int64_t *end)
{
	int64_t base;

	switch (fl->whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = (int64_t)f->pos; break;
	case SEEK_END: base = (int64_t)fs_size(f->dentry->inode); break;
	default: return -EINVAL;
	}
	if (fl->start > OFFSET_MAX - base)
		return -EOVERFLOW;
	*start = base + fl->start;
	if (*start < 0)
		return -EINVAL;
	if (fl->len > 0) {
		if (fl->len - 1 > OFFSET_MAX - *start)
			return -EOVERFLOW;
		*end = *start + fl->len - 1;
	} else if (fl->len < 0) {
		*end = *start - 1;
		*start += fl->len;
		if (*start < 0)
			return -EINVAL;
	} else {
		*end = OFFSET_MAX;
	}
	return 0;
}

/* F_GETLK: the first lock that would conflict, or l_type F_UNLCK (the rest left as it was). */
static long lock_get(struct file_lock *want, uint64_t uarg, struct flock_k *fl)
{
	unsigned long flags = spin_lock_irqsave(&locks_lock);
	struct file_lock *c = conflict_locked(want);

	if (c) {
		fl->type = (int16_t)c->type;
		fl->whence = SEEK_SET;
		fl->start = c->start;
		fl->len = c->end == OFFSET_MAX ? 0 : c->end - c->start + 1;
		fl->pid = c->kind == LK_OFD ? -1 : c->pid;
	} else {
		fl->type = F_UNLCK;
	}
	spin_unlock_irqrestore(&locks_lock, flags);
	return copy_to_user((void *)uarg, fl, sizeof(*fl)) ? -EFAULT : 0;
}

long file_lock_fcntl(struct file *f, unsigned cmd, uint64_t uarg)
{
	bool ofd = cmd == F_OFD_GETLK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;
	bool get = cmd == F_GETLK || cmd == F_OFD_GETLK;
	struct file_lock want = { .pid = current->pid }, *rec;
	struct flock_k fl;
	long r;

	memset(&fl, 0, sizeof(fl));
	if (copy_from_user(&fl, (const void *)uarg, sizeof(fl)))
		return -EFAULT;
	if (ofd && fl.pid)
		return -EINVAL;
	if (fl.type != F_RDLCK && fl.type != F_WRLCK && (get || fl.type != F_UNLCK))
		return -EINVAL;
	if (!f->dentry || file_is_path(f))
		return -EBADF;                  /* pipes and consoles: not here (Linux locks them too) */
	r = lock_range(f, &fl, &want.start, &want.end);
	if (r)
		return r;
	want.inode = f->dentry->inode;
	want.type = fl.type;
	want.kind = ofd ? LK_OFD : LK_POSIX;
	want.owner = ofd ? (uintptr_t)f : (uintptr_t)current->fdt;
	if (get)
		return lock_get(&want, uarg, &fl);
	if ((fl.type == F_RDLCK && (f->flags & O_ACCMODE) == O_WRONLY) ||
	    (fl.type == F_WRLCK && (f->flags & O_ACCMODE) == O_RDONLY))
		return -EBADF;
	rec = kmalloc(sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	*rec = want;
	return lock_set(rec, cmd == F_SETLKW || cmd == F_OFD_SETLKW);
}

/* flock's work on f (the caller holds a reference). */
static long flock_file(struct file *f, unsigned op, bool wait)
{
	struct file_lock *rec;

	if (!f->dentry)
		return 0;                       /* a pipe or console: no one else can lock it here */
	locks_drop(f->dentry->inode, (uintptr_t)f, KIND(LK_FLOCK));
	if (op == LOCK_UN)
		return 0;
	rec = kmalloc(sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	*rec = (struct file_lock){ .inode = f->dentry->inode, .owner = (uintptr_t)f, .pid = current->pid,
				   .kind = LK_FLOCK, .type = op == LOCK_EX ? F_WRLCK : F_RDLCK,
				   .start = 0, .end = OFFSET_MAX };
	return lock_set(rec, wait);
}

/*
 * flock(fd, op): LOCK_SH, LOCK_EX (a held lock is converted: dropped, then
 * taken again, as Linux does), LOCK_UN, each | LOCK_NB (-EWOULDBLOCK
 * instead of waiting). -EINVAL op (checked first); -EBADF; -EINTR.
 */
long sys_flock(SYSCALL_ARGS)
{
	unsigned op = (unsigned)a1 & ~(unsigned)LOCK_NB;
	struct file *f;
	long r;

	if (op != LOCK_SH && op != LOCK_EX && op != LOCK_UN)
		return -EINVAL;                 /* before the fd, as Linux */
	f = fget((uint64_t)(uint32_t)a0);
	r = !f || file_is_path(f) ? -EBADF : flock_file(f, op, !(a1 & LOCK_NB));
	file_put(f);
	return r;
}
