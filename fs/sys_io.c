/*
 * Reading and writing file descriptors: read, write, readv, writev, pread64,
 * pwrite64, lseek, ftruncate, truncate, fsync, fdatasync, ioctl. What a
 * file does is its file_ops (include/file.h);
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
#include "slab.h"
#include "pmm.h"

#define UIO_MAXIOV 1024
#define SSIZE_MAX_K 0x7fffffffffffffffUL
#define MAX_RW_COUNT 0x7ffff000UL       /* Linux caps one read/write at INT_MAX & PAGE_MASK */

struct iovec_k {
	uint64_t base;
	uint64_t len;
};

/* The file behind fd (a reference) if it is open for reading (write = false) or writing; else NULL. */
static struct file *fd_for(uint64_t fd, bool write)
{
	struct file *f = fget(fd);
	unsigned acc;

	if (!f)
		return NULL;
	acc = f->flags & O_ACCMODE;
	if (write ? acc == O_RDONLY : acc == O_WRONLY) {
		file_put(f);
		return NULL;
	}
	return f;
}

/* rw_verify_area: a file with offsets takes no transfer whose end passes 2^63 - 1. */
static bool rw_range_ok(struct file *f, uint64_t pos, size_t n)
{
	return !f->ops->seekable || ((int64_t)pos >= 0 && (int64_t)(pos + n) >= (int64_t)pos);
}

/* A file without a read (write) method (epoll) refuses with -EINVAL, before the buffer is looked at (Linux). */
static long file_read(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	if (!f->ops->read)
		return -EINVAL;
	if (!access_ok(ubuf, n))
		return -EFAULT;
	if ((int64_t)n < 0 || !rw_range_ok(f, *pos, n))
		return -EINVAL;
	return f->ops->read(f, ubuf, MIN(n, MAX_RW_COUNT), pos);
}

static long file_write(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	if (!f->ops->write)
		return -EINVAL;
	if (!access_ok(ubuf, n))
		return -EFAULT;
	if ((int64_t)n < 0 || !rw_range_ok(f, *pos, n))
		return -EINVAL;
	return f->ops->write(f, ubuf, MIN(n, MAX_RW_COUNT), pos);
}

/* read(fd, buf, n): bytes read, 0 at end of file. -EBADF, -EISDIR, -EFAULT, -EAGAIN, -EINTR. */
long sys_read(SYSCALL_ARGS)
{
	struct file *f = fd_for(a0, false);
	long r = f ? file_read(f, a1, a2, &f->pos) : -EBADF;

	file_put(f);
	return r;
}

/* write(fd, buf, n): bytes written. -EBADF, -EFAULT (checked before anything is written), -EPIPE, -EAGAIN. */
long sys_write(SYSCALL_ARGS)
{
	struct file *f = fd_for(a0, true);
	long r = f ? file_write(f, a1, a2, &f->pos) : -EBADF;

	file_put(f);
	return r;
}

/* pread64/pwrite64 on f (a reference, dropped here; NULL: -EBADF) at off, the offset left alone. */
static long rw_at(struct file *f, uint64_t ubuf, size_t n, uint64_t off, bool write)
{
	long r;

	if (!f)
		return -EBADF;
	if (!f->ops->seekable)
		r = -ESPIPE;
	else if ((int64_t)off < 0)
		r = -EINVAL;
	else
		r = write ? file_write(f, ubuf, n, &off) : file_read(f, ubuf, n, &off);
	file_put(f);
	return r;
}

/* pread64(fd, buf, n, off): read at off without moving the offset; -ESPIPE for streams, -EINVAL off < 0. */
long sys_pread64(SYSCALL_ARGS)
{
	return rw_at(fd_for(a0, false), a1, a2, a3, false);
}

/* pwrite64(fd, buf, n, off): write at off without moving the offset (O_APPEND: at the end, as Linux). */
long sys_pwrite64(SYSCALL_ARGS)
{
	return rw_at(fd_for(a0, true), a1, a2, a3, true);
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

/* Room for UIO_MAXIOV entries, per call (several CPUs run system calls at once). */
#define IOV_ORDER 2

/* readv/writev over the copied iovecs: each buffer in turn, stopping at the first short transfer. */
static long rw_iovecs(struct file *f, const struct iovec_k *iov, uint64_t cnt, bool write)
{
	long done = 0;

	for (uint64_t i = 0; i < cnt; i++) {
		long r;

		if (!iov[i].len)
			continue;
		r = write ? file_write(f, iov[i].base, iov[i].len, &f->pos) :
			    file_read(f, iov[i].base, iov[i].len, &f->pos);
		if (r < 0)
			return done ? done : r;
		done += r;
		if ((uint64_t)r < iov[i].len)
			break;
	}
	return done;
}

/* readv/writev: each buffer in turn; stops at the first short transfer, as Linux's loop does. */
static long do_rw_vector(uint64_t fd, uint64_t uiov, uint64_t cnt, bool write)
{
	struct file *f = fd_for(fd, write);
	struct page *pg;
	struct iovec_k *iov;
	long total;

	if (!f)
		return -EBADF;
	pg = pmm_alloc(IOV_ORDER, 0);
	if (!pg) {
		file_put(f);
		return -ENOMEM;
	}
	iov = page_address(pg);
	total = iov_total(uiov, cnt, iov);
	if (total >= 0)
		total = rw_iovecs(f, iov, cnt, write);
	pmm_free(pg, IOV_ORDER);
	file_put(f);
	return total;
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

/* The size lseek's SEEK_END counts from: a regular file's, a memory file's text, else 0. */
static uint64_t file_size(struct file *f)
{
	if (f->dentry && S_ISREG(f->dentry->inode->mode) && !f->dentry->inode->special)
		return fs_size(f->dentry->inode);
	return f->size;
}

/* lseek's work on f: the new offset, -ESPIPE, -EINVAL. */
static long lseek_file(struct file *f, int64_t off, uint64_t whence)
{
	int64_t base;

	if (!f->ops->seekable)
		return -ESPIPE;
	if (whence == 0)
		base = 0;
	else if (whence == 1)
		base = (int64_t)f->pos;
	else if (whence == 2)
		base = (int64_t)file_size(f);
	else
		return -EINVAL;
	if ((off < 0 && base + off < 0) || (off > 0 && base + off < base))
		return -EINVAL;
	f->pos = (uint64_t)(base + off);
	return (long)f->pos;
}

/* lseek(fd, off, whence): memory files (SEEK_SET/CUR/END); streams -ESPIPE; -EINVAL bad whence or result. */
long sys_lseek(SYSCALL_ARGS)
{
	struct file *f = fget(a0);
	long r = f ? lseek_file(f, (int64_t)a1, a2) : -EBADF;

	file_put(f);
	return r;
}

/* do_truncate on a regular file: -EISDIR a directory, -EINVAL anything else not regular, -EFBIG. */
static long truncate_file(struct dentry *d, int64_t len)
{
	if (len < 0)
		return -EINVAL;
	if (S_ISDIR(d->inode->mode))
		return -EISDIR;
	if (!S_ISREG(d->inode->mode) || d->inode->special)
		return -EINVAL;
	return fs_truncate(d->inode, (uint64_t)len);
}

/* ftruncate(fd, len): -EBADF; -EINVAL not a regular file open for writing, or len < 0; -EFBIG. */
long sys_ftruncate(SYSCALL_ARGS)
{
	struct file *f;
	long r;

	if ((int64_t)a1 < 0)
		return -EINVAL;
	f = fget(a0);
	if (!f)
		return -EBADF;
	if (!f->dentry || !S_ISREG(f->dentry->inode->mode) || f->dentry->inode->special ||
	    (f->flags & O_ACCMODE) == O_RDONLY)
		r = -EINVAL;
	else
		r = truncate_file(f->dentry, (int64_t)a1);
	file_put(f);
	return r;
}

/* truncate(path, len): the file path names (links followed); its lookup errors, -EISDIR, -EINVAL. */
long sys_truncate(SYSCALL_ARGS)
{
	struct dentry *d;
	long r;

	if ((int64_t)a1 < 0)
		return -EINVAL;
	r = user_path_lookup(AT_FDCWD, a0, LOOKUP_FOLLOW, &d);
	if (!r) {
		r = truncate_file(d, (int64_t)a1);
		dput(d);
	}
	return r;
}

/* fsync(fd), fdatasync(fd): nothing to write back from memory; -EBADF, -EINVAL for pipes and the console. */
long sys_fsync(SYSCALL_ARGS)
{
	struct file *f = fget(a0);
	long r = !f ? -EBADF : f->dentry ? 0 : -EINVAL;

	file_put(f);
	return r;
}

/* ioctl(fd, cmd, arg): -EBADF, else -ENOTTY (no file here is a terminal: TIOCGWINSZ, TCGETS...). */
long sys_ioctl(SYSCALL_ARGS)
{
	return fd_peek(a0, NULL, NULL) ? -EBADF : -ENOTTY;
}
