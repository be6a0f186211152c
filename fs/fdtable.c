/*
 * The file-descriptor table (include/file.h): Linux's rules: a new fd is
 * the lowest free one (>= a minimum for F_DUPFD), close-on-exec is a flag of
 * the fd (not of the file), fork copies the table, execve closes the
 * close-on-exec fds. The table grows in powers of two up to FD_LIMIT_SOFT.
 *
 * Threads (CLONE_FILES) share one table, so every slot is read and written
 * under the table's lock (class FDTABLE), as Linux's files_struct.file_lock:
 * a lookup takes a reference on the file before the lock goes (fget), so a
 * close in another thread only takes the table's reference away; the file
 * lives until the caller's file_put. Nothing sleeps under the lock: arrays
 * are allocated with it dropped, and files are closed after it is released.
 */
#include "file.h"
#include "task.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "kernel.h"

#define FDTABLE_FIRST 64

static bool cloexec_bit(const struct fdtable *t, unsigned fd)
{
	return t->cloexec[fd / 64] & (1ULL << (fd % 64));
}

static void set_cloexec_bit(struct fdtable *t, unsigned fd, bool on)
{
	if (on)
		t->cloexec[fd / 64] |= 1ULL << (fd % 64);
	else
		t->cloexec[fd / 64] &= ~(1ULL << (fd % 64));
}

/* Move t to the new arrays fd, ce of size slots (larger than t's); the old ones are freed. t->lock held. */
static void fdtable_swap(struct fdtable *t, struct file **fd, uint64_t *ce, unsigned size)
{
	if (t->size) {
		memcpy(fd, t->fd, t->size * sizeof(*fd));
		memcpy(ce, t->cloexec, t->size / 8);
	}
	kfree(t->fd);
	kfree(t->cloexec);
	t->fd = fd;
	t->cloexec = ce;
	t->size = size;
}

/*
 * Grow t to at least need slots (a power of two, <= FD_LIMIT_SOFT). t->lock
 * held, dropped around the allocation (the table may change meanwhile) and
 * held again on return. 0 or -ENOMEM.
 */
static int fdtable_grow(struct fdtable *t, unsigned need)
{
	while (t->size < need) {
		unsigned size = t->size ? t->size : FDTABLE_FIRST;
		struct file **fd;
		uint64_t *ce;

		while (size < need)
			size *= 2;
		spin_unlock(&t->lock);
		fd = kzalloc(size * sizeof(*fd));
		ce = kzalloc(size / 8);
		spin_lock(&t->lock);
		if (!fd || !ce || t->size >= size) {
			kfree(fd);
			kfree(ce);
			if (!fd || !ce)
				return -ENOMEM;
			continue;
		}
		fdtable_swap(t, fd, ce, size);
	}
	return 0;
}

/* fdtable_grow with t->lock not held. */
static int fdtable_grow_unlocked(struct fdtable *t, unsigned need)
{
	int r;

	spin_lock(&t->lock);
	r = fdtable_grow(t, need);
	spin_unlock(&t->lock);
	return r;
}

/* t lets go of f (close, dup2 over it, exec, exit): the process's POSIX locks on its file go. */
static void close_file(struct fdtable *t, struct file *f)
{
	file_locks_close(f, t);
	file_put(f);
}

/* Empty slot fd of t and return what it held (the table's reference), or NULL. t->lock held. */
static struct file *take_slot_locked(struct fdtable *t, unsigned fd)
{
	struct file *f = fd < t->size ? t->fd[fd] : NULL;

	if (f) {
		t->fd[fd] = NULL;
		set_cloexec_bit(t, fd, false);
	}
	return f;
}

struct fdtable *fdtable_new(void)
{
	struct fdtable *t = kzalloc(sizeof(*t));

	if (!t)
		return NULL;
	t->refs = 1;
	spin_init_class(&t->lock, "fdtable", LOCK_CLASS_FDTABLE);
	if (fdtable_grow_unlocked(t, FDTABLE_FIRST)) {
		kfree(t);
		return NULL;
	}
	return t;
}

/* Copy old's slots into t, which has room for them all; each file gets a reference. old->lock held. */
static void fdtable_copy_locked(struct fdtable *t, struct fdtable *old)
{
	for (unsigned i = 0; i < old->size; i++) {
		t->fd[i] = old->fd[i];
		if (t->fd[i])
			file_get_ref(t->fd[i]);
	}
	memcpy(t->cloexec, old->cloexec, old->size / 8);
}

struct fdtable *fdtable_dup(struct fdtable *old)
{
	struct fdtable *t = fdtable_new();
	unsigned need;

	while (t) {
		spin_lock(&old->lock);
		need = old->size;
		if (need <= t->size) {
			fdtable_copy_locked(t, old);
			spin_unlock(&old->lock);
			return t;
		}
		spin_unlock(&old->lock);
		if (fdtable_grow_unlocked(t, need)) {
			fdtable_put(t);
			return NULL;
		}
	}
	return NULL;
}

void fdtable_put(struct fdtable *t)
{
	if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	for (unsigned i = 0; i < t->size; i++)
		if (t->fd[i])
			close_file(t, t->fd[i]);
	kfree(t->fd);
	kfree(t->cloexec);
	kfree(t);
}

void fdtable_exec(struct fdtable *t)
{
	for (unsigned i = 0;; i++) {
		struct file *f = NULL;
		bool end;

		spin_lock(&t->lock);
		end = i >= t->size;
		if (!end && cloexec_bit(t, i))
			f = take_slot_locked(t, i);
		spin_unlock(&t->lock);
		if (end)
			return;
		if (f)
			close_file(t, f);
	}
}

/* Put f at the lowest free fd >= min of t. The fd, -EMFILE or -ENOMEM. */
static int install(struct fdtable *t, struct file *f, unsigned min, bool cloexec)
{
	unsigned fd;
	int r = 0;

	spin_lock(&t->lock);
	for (;;) {                      /* again after growing: the lock was dropped */
		fd = min;
		while (fd < t->size && t->fd[fd])
			fd++;
		if (fd < t->size)
			break;
		r = fd >= FD_LIMIT_SOFT ? -EMFILE : fdtable_grow(t, fd + 1);
		if (r)
			break;
	}
	if (!r) {
		t->fd[fd] = f;
		set_cloexec_bit(t, fd, cloexec);
	}
	spin_unlock(&t->lock);
	return r ? r : (int)fd;
}

int fd_install_lowest(struct file *f, int min, bool cloexec)
{
	return install(current->fdt, f, (unsigned)min, cloexec);
}

int fd_install_in(struct fdtable *t, struct file *f, int min)
{
	return install(t, f, (unsigned)min, false);
}

struct file *fget(uint64_t fd)
{
	struct fdtable *t = current->fdt;
	struct file *f = NULL;

	if (!t)
		return NULL;
	spin_lock(&t->lock);
	if (fd < t->size && (f = t->fd[fd]))
		file_get_ref(f);
	spin_unlock(&t->lock);
	return f;
}

long fd_peek(uint64_t fd, long (*fn)(struct file *f, void *arg), void *arg)
{
	struct fdtable *t = current->fdt;
	struct file *f;
	long r = -EBADF;

	if (!t)
		return -EBADF;
	spin_lock(&t->lock);
	f = fd < t->size ? t->fd[fd] : NULL;
	if (f)
		r = fn ? fn(f, arg) : 0;
	spin_unlock(&t->lock);
	return r;
}

int fd_close(uint64_t fd)
{
	struct fdtable *t = current->fdt;
	struct file *f;

	if (!t || fd >= FD_LIMIT_SOFT)
		return -EBADF;
	spin_lock(&t->lock);
	f = take_slot_locked(t, (unsigned)fd);
	spin_unlock(&t->lock);
	if (!f)
		return -EBADF;
	close_file(t, f);
	return 0;
}

/* oldfd's file with one more reference, newfd having a slot; NULL: oldfd closed (*err -EBADF) or no memory. t->lock held. */
static struct file *dup_source_locked(struct fdtable *t, uint64_t oldfd, uint64_t newfd, int *err)
{
	*err = -EBADF;
	if (oldfd >= t->size || !t->fd[oldfd])
		return NULL;
	if (newfd >= t->size && (*err = fdtable_grow(t, (unsigned)newfd + 1)))
		return NULL;
	if (oldfd >= t->size || !t->fd[oldfd]) {        /* closed while the lock was dropped */
		*err = -EBADF;
		return NULL;
	}
	file_get_ref(t->fd[oldfd]);
	return t->fd[oldfd];
}

int fd_dup_to(uint64_t oldfd, uint64_t newfd, bool cloexec)
{
	struct fdtable *t = current->fdt;
	struct file *f, *old;
	int err;

	if (!t || newfd >= FD_LIMIT_SOFT)
		return -EBADF;
	spin_lock(&t->lock);
	f = dup_source_locked(t, oldfd, newfd, &err);
	if (!f) {
		spin_unlock(&t->lock);
		return err;
	}
	old = t->fd[newfd];
	t->fd[newfd] = f;
	set_cloexec_bit(t, (unsigned)newfd, cloexec);
	spin_unlock(&t->lock);
	if (old)
		close_file(t, old);
	return (int)newfd;
}

/* What fd_cloexec and fd_set_cloexec ask of slot fd: set (1 on, 0 off) or only read (-1) its flag. */
struct cloexec_req {
	unsigned fd;
	int set;
};

static long cloexec_do(struct file *f, void *arg)
{
	struct cloexec_req *r = arg;

	(void)f;
	if (r->set >= 0)
		set_cloexec_bit(current->fdt, r->fd, r->set);
	return cloexec_bit(current->fdt, r->fd);
}

bool fd_cloexec(uint64_t fd)
{
	struct cloexec_req r = { .fd = (unsigned)fd, .set = -1 };

	return fd_peek(fd, cloexec_do, &r) == 1;
}

void fd_set_cloexec(uint64_t fd, bool on)
{
	struct cloexec_req r = { .fd = (unsigned)fd, .set = on };

	fd_peek(fd, cloexec_do, &r);
}

int fd_next_open(uint64_t from)
{
	struct fdtable *t = current->fdt;
	int r = -1;

	if (!t)
		return -1;
	spin_lock(&t->lock);
	for (uint64_t fd = from; fd < t->size; fd++)
		if (t->fd[fd]) {
			r = (int)fd;
			break;
		}
	spin_unlock(&t->lock);
	return r;
}
