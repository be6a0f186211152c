/*
 * Reading and writing file descriptors: read, write, readv, writev, pread64,
 * pwrite64, lseek, ioctl. What a file does is its file_ops (include/file.h);
 * the checks and their order are Linux's vfs_read/vfs_write: a closed fd
 * -EBADF, a file not open for that direction -EBADF, a directory -EISDIR,
 * then a bad buffer -EFAULT.
 */
#include "syscall_internal.h"
#include "file.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"
#include "kernel.h"

#define UIO_MAXIOV 1024
#define SSIZE_MAX_K 0x7fffffffffffffffUL
#define MAX_RW_COUNT 0x7ffff000UL       /* Linux caps one read/write at INT_MAX & PAGE_MASK */

struct iovec_k {
	uint64_t base;
	uint64_t len;
};

/* The file behind fd if it is open for reading (write = false) or writing; else NULL. */
static struct file *fd_for(uint64_t fd, bool write)
{
	struct file *f = fd_get(fd);
	unsigned acc;

	if (!f)
		return NULL;
	acc = f->flags & O_ACCMODE;
	if (write ? acc == O_RDONLY : acc == O_WRONLY)
		return NULL;
	return f;
}

static long file_read(struct file *f, uint64_t ubuf, size_t n)
{
	if (!access_ok(ubuf, n))
		return -EFAULT;
	return f->ops->read(f, ubuf, MIN(n, MAX_RW_COUNT));
}

static long file_write(struct file *f, uint64_t ubuf, size_t n)
{
	if (!access_ok(ubuf, n))
		return -EFAULT;
	return f->ops->write(f, ubuf, MIN(n, MAX_RW_COUNT));
}

/* read(fd, buf, n): bytes read, 0 at end of file. -EBADF, -EISDIR, -EFAULT, -EAGAIN, -EINTR. */
long sys_read(SYSCALL_ARGS)
{
	struct file *f = fd_for(a0, false);

	return f ? file_read(f, a1, a2) : -EBADF;
}

/* write(fd, buf, n): bytes written. -EBADF, -EFAULT (checked before anything is written), -EPIPE, -EAGAIN. */
long sys_write(SYSCALL_ARGS)
{
	struct file *f = fd_for(a0, true);

	return f ? file_write(f, a1, a2) : -EBADF;
}

/* pread64(fd, buf, n, off): read at off without moving the offset; -ESPIPE for streams, -EINVAL off < 0. */
long sys_pread64(SYSCALL_ARGS)
{
	struct file *f = fd_for(a0, false);
	uint64_t saved;
	long r;

	if (!f)
		return -EBADF;
	if (!f->ops->seekable)
		return -ESPIPE;
	if ((int64_t)a3 < 0)
		return -EINVAL;
	saved = f->pos;
	f->pos = a3;
	r = file_read(f, a1, a2);
	f->pos = saved;
	return r;
}

/* pwrite64(fd, buf, n, off): the files that can be written here are streams or /dev/null. */
long sys_pwrite64(SYSCALL_ARGS)
{
	struct file *f = fd_for(a0, true);

	if (!f)
		return -EBADF;
	if (!f->ops->seekable)
		return -ESPIPE;
	if ((int64_t)a3 < 0)
		return -EINVAL;
	return file_write(f, a1, a2);
}

/* Copy and check an iovec array: the total, -EINVAL bad count or total; -EFAULT. */
static long iov_total(uint64_t uiov, uint64_t cnt, struct iovec_k *iov)
{
	uint64_t total = 0;

	if (cnt > UIO_MAXIOV)
		return -EINVAL;
	if (cnt && copy_from_user(iov, (const void *)uiov, cnt * sizeof(*iov)))
		return -EFAULT;
	for (uint64_t i = 0; i < cnt; i++) {
		if (iov[i].len > SSIZE_MAX_K || total + iov[i].len > SSIZE_MAX_K)
			return -EINVAL;
		total += iov[i].len;
		if (!access_ok(iov[i].base, iov[i].len))
			return -EFAULT;
	}
	return (long)total;
}

/* readv/writev: each buffer in turn; stops at the first short transfer, as Linux's loop does. */
static long do_rw_vector(uint64_t fd, uint64_t uiov, uint64_t cnt, bool write)
{
	static struct iovec_k iov[UIO_MAXIOV];  /* one CPU, no preemption in the kernel [SMP: per task] */
	struct file *f = fd_for(fd, write);
	long total, done = 0;

	if (!f)
		return -EBADF;
	total = iov_total(uiov, cnt, iov);
	if (total < 0)
		return total;
	for (uint64_t i = 0; i < cnt; i++) {
		long r;

		if (!iov[i].len)
			continue;
		r = write ? file_write(f, iov[i].base, iov[i].len) : file_read(f, iov[i].base, iov[i].len);
		if (r < 0)
			return done ? done : r;
		done += r;
		if ((uint64_t)r < iov[i].len)
			break;
	}
	return done;
}

/* writev(fd, iov, cnt): -EBADF; -EINVAL cnt > 1024 or total > SSIZE_MAX; -EFAULT. */
long sys_writev(SYSCALL_ARGS)
{
	return do_rw_vector(a0, a1, a2, true);
}

/* readv(fd, iov, cnt): as read into each buffer in turn. */
long sys_readv(SYSCALL_ARGS)
{
	return do_rw_vector(a0, a1, a2, false);
}

/* lseek(fd, off, whence): memory files (SEEK_SET/CUR/END); streams -ESPIPE; -EINVAL bad whence or result. */
long sys_lseek(SYSCALL_ARGS)
{
	struct file *f = fd_get(a0);
	int64_t base, off = (int64_t)a1;

	if (!f)
		return -EBADF;
	if (!f->ops->seekable)
		return -ESPIPE;
	if (a2 == 0)
		base = 0;
	else if (a2 == 1)
		base = (int64_t)f->pos;
	else if (a2 == 2)
		base = (int64_t)f->size;
	else
		return -EINVAL;
	if ((off < 0 && base + off < 0) || (off > 0 && base + off < base))
		return -EINVAL;
	f->pos = (uint64_t)(base + off);
	return (long)f->pos;
}

/* ioctl(fd, cmd, arg): -EBADF, else -ENOTTY (no file here is a terminal: TIOCGWINSZ, TCGETS...). */
long sys_ioctl(SYSCALL_ARGS)
{
	return fd_get(a0) ? -ENOTTY : -EBADF;
}
