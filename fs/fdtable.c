/*
 * The file-descriptor table (include/file.h): Linux's rules: a new fd is
 * the lowest free one (>= a minimum for F_DUPFD), close-on-exec is a flag of
 * the fd (not of the file), fork copies the table, execve closes the
 * close-on-exec fds. The table grows in powers of two up to FD_LIMIT_SOFT.
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

/* Grow t to at least need slots (a power of two, <= FD_LIMIT_SOFT). 0 or -ENOMEM. */
static int fdtable_grow(struct fdtable *t, unsigned need)
{
	unsigned size = t->size ? t->size : FDTABLE_FIRST;
	struct file **fd;
	uint64_t *ce;

	while (size < need)
		size *= 2;
	if (size == t->size)
		return 0;
	fd = kzalloc(size * sizeof(*fd));
	ce = kzalloc(size / 8);
	if (!fd || !ce) {
		kfree(fd);
		kfree(ce);
		return -ENOMEM;
	}
	if (t->size) {
		memcpy(fd, t->fd, t->size * sizeof(*fd));
		memcpy(ce, t->cloexec, t->size / 8);
	}
	kfree(t->fd);
	kfree(t->cloexec);
	t->fd = fd;
	t->cloexec = ce;
	t->size = size;
	return 0;
}

/* t lets go of f (close, dup2 over it, exec, exit): the process's POSIX locks on its file go. */
static void close_file(struct fdtable *t, struct file *f)
{
	file_locks_close(f, t);
	file_put(f);
}

struct fdtable *fdtable_new(void)
{
	struct fdtable *t = kzalloc(sizeof(*t));

	if (!t)
		return NULL;
	t->refs = 1;
	if (fdtable_grow(t, FDTABLE_FIRST)) {
		kfree(t);
		return NULL;
	}
	return t;
}

struct fdtable *fdtable_dup(struct fdtable *old)
{
	struct fdtable *t = fdtable_new();

	if (!t)
		return NULL;
	if (fdtable_grow(t, old->size)) {
		fdtable_put(t);
		return NULL;
	}
	for (unsigned i = 0; i < old->size; i++) {
		t->fd[i] = old->fd[i];
		if (t->fd[i])
			file_get_ref(t->fd[i]);
	}
	memcpy(t->cloexec, old->cloexec, old->size / 8);
	return t;
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
	for (unsigned i = 0; i < t->size; i++)
		if (t->fd[i] && cloexec_bit(t, i)) {
			close_file(t, t->fd[i]);
			t->fd[i] = NULL;
			set_cloexec_bit(t, i, false);
		}
}

int fd_install_lowest(struct file *f, int min, bool cloexec)
{
	int fd = fd_install_in(current->fdt, f, min);

	if (fd >= 0)
		set_cloexec_bit(current->fdt, (unsigned)fd, cloexec);
	return fd;
}

int fd_install_in(struct fdtable *t, struct file *f, int min)
{
	unsigned fd = (unsigned)min;

	while (fd < t->size && t->fd[fd])
		fd++;
	if (fd >= FD_LIMIT_SOFT)
		return -EMFILE;
	if (fd >= t->size && fdtable_grow(t, fd + 1))
		return -ENOMEM;
	t->fd[fd] = f;
	set_cloexec_bit(t, fd, false);
	return (int)fd;
}

struct file *fd_get(uint64_t fd)
{
	struct fdtable *t = current->fdt;

	return t && fd < t->size ? t->fd[fd] : NULL;
}

int fd_close(uint64_t fd)
{
	struct fdtable *t = current->fdt;
	struct file *f = fd_get(fd);

	if (!f)
		return -EBADF;
	t->fd[fd] = NULL;
	set_cloexec_bit(t, (unsigned)fd, false);
	close_file(t, f);
	return 0;
}

int fd_dup_to(uint64_t oldfd, uint64_t newfd, bool cloexec)
{
	struct fdtable *t = current->fdt;
	struct file *f = fd_get(oldfd), *old;

	if (!f || newfd >= FD_LIMIT_SOFT)
		return -EBADF;
	if (newfd >= t->size && fdtable_grow(t, (unsigned)newfd + 1))
		return -ENOMEM;
	file_get_ref(f);
	old = t->fd[newfd];
	t->fd[newfd] = f;
	set_cloexec_bit(t, (unsigned)newfd, cloexec);
	if (old)
		close_file(t, old);
	return (int)newfd;
}

bool fd_cloexec(uint64_t fd)
{
	return fd_get(fd) && cloexec_bit(current->fdt, (unsigned)fd);
}

void fd_set_cloexec(uint64_t fd, bool on)
{
	if (fd_get(fd))
		set_cloexec_bit(current->fdt, (unsigned)fd, on);
}
