/*
 * The console as file descriptors 0, 1 and 2 (there is no file system):
 * write/writev to 1 and 2 go to the serial console byte for byte; read from
 * 0 is end-of-file; ioctl answers as Linux does for a file that is not a
 * terminal; open finds nothing; fstat describes a character device.
 */
#include "syscall_internal.h"
#include "uaccess.h"
#include "arch.h"
#include "kstring.h"
#include "kerrno.h"
#include "kernel.h"
#include "file.h"

#define UIO_MAXIOV 1024
#define SSIZE_MAX_K 0x7fffffffffffffffUL
#define TCGETS     0x5401
#define TIOCGWINSZ 0x5413
#define STAT_SIZE 144

struct iovec_k {
	uint64_t base;
	uint64_t len;
};

static bool fd_valid(uint64_t fd)
{
	return fd <= 2;
}

/* Write [ubuf, ubuf + n) to the console; bytes written, or -EFAULT if none could be read. */
static long console_write_user(uint64_t ubuf, size_t n)
{
	char buf[256];
	size_t done = 0;

	if (!access_ok(ubuf, n))
		return -EFAULT;
	while (done < n) {
		size_t chunk = MIN(n - done, sizeof(buf));

		if (copy_from_user(buf, (const void *)(ubuf + done), chunk))
			return done ? (long)done : -EFAULT;
		arch_console_write(buf, chunk);
		done += chunk;
	}
	return (long)done;
}

/* read(fd, buf, n): fds 0..2 are at end of file (0); open files from their offset. -EBADF; -EFAULT. */
long sys_read(SYSCALL_ARGS)
{
	struct file *f = file_get(a0);
	size_t n;

	if (!fd_valid(a0) && !f)
		return -EBADF;
	if (!access_ok(a1, a2))
		return -EFAULT;
	if (!f || f->pos >= f->size)
		return 0;
	n = MIN(a2, f->size - f->pos);
	if (copy_to_user((void *)a1, f->data + f->pos, n))
		return -EFAULT;
	f->pos += n;
	return (long)n;
}

/* lseek(fd, off, whence): open files only (SEEK_SET/CUR/END); the console: -ESPIPE. -EINVAL. */
long sys_lseek(SYSCALL_ARGS)
{
	struct file *f = file_get(a0);
	int64_t base, off = (int64_t)a1;

	if (!f)
		return fd_valid(a0) ? -ESPIPE : -EBADF;
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

/* write(fd, buf, n): fd 1/2 (and 0) to the console. -EBADF other fds; -EFAULT bad buffer (checked first, as Linux's vfs_write). */
long sys_write(SYSCALL_ARGS)
{
	if (!fd_valid(a0))
		return -EBADF;
	return console_write_user(a1, a2);
}

/* Copy and check an iovec array: -EINVAL bad count or total; -EFAULT. */
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

/* writev(fd, iov, cnt): -EBADF; -EINVAL cnt > 1024 or total > SSIZE_MAX; -EFAULT. */
long sys_writev(SYSCALL_ARGS)
{
	static struct iovec_k iov[UIO_MAXIOV];  /* one CPU, interrupts on but no preemption in the kernel */
	long total, done = 0;

	if (!fd_valid(a0))
		return -EBADF;
	total = iov_total(a1, a2, iov);
	if (total < 0)
		return total;
	for (uint64_t i = 0; i < a2; i++) {
		long r = console_write_user(iov[i].base, iov[i].len);

		if (r < 0)
			return done ? done : r;
		done += r;
	}
	return done;
}

/* readv(fd, iov, cnt): end of file on fd 0 after the same checks as writev. */
long sys_readv(SYSCALL_ARGS)
{
	static struct iovec_k iov[UIO_MAXIOV];
	long total;

	if (!fd_valid(a0))
		return -EBADF;
	total = iov_total(a1, a2, iov);
	return total < 0 ? total : 0;
}

/* ioctl(fd, cmd, arg): -EBADF, else -ENOTTY (the console is not a terminal here: TIOCGWINSZ, TCGETS...). */
long sys_ioctl(SYSCALL_ARGS)
{
	if (!fd_valid(a0) && !file_get(a0))
		return -EBADF;
	return -ENOTTY;
}

/* open(path, flags, mode): boot modules and /proc/self/maps, read-only (kernel/file.c). -ENOENT, -EACCES, -EMFILE, -EFAULT, -ENAMETOOLONG. */
long sys_open(SYSCALL_ARGS)
{
	char path[256];
	long len = strncpy_from_user(path, (const char *)a0, sizeof(path));

	if (len < 0)
		return len;
	if ((size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	return file_open(path, (int)a1);
}

/* openat(dirfd, path, flags, mode): absolute paths only (a relative one is looked up the same way). */
long sys_openat(SYSCALL_ARGS)
{
	return sys_open(tf, a1, a2, a3, 0, 0, 0);
}

/* close(fd): 0 for 0..2 (they stay usable) and open files; -EBADF otherwise. */
long sys_close(SYSCALL_ARGS)
{
	return fd_valid(a0) ? 0 : file_close(a0);
}

/* fstat(fd, st): the console is a character device (S_IFCHR | 0620), open files regular (size set). -EBADF; -EFAULT. */
long sys_fstat(SYSCALL_ARGS)
{
	uint8_t st[STAT_SIZE];
	uint32_t mode = 0020620, nlink = 1;
	uint64_t blksize = 1024;
	struct file *f = file_get(a0);

	if (!fd_valid(a0) && !f)
		return -EBADF;
	memset(st, 0, sizeof(st));
	if (f) {
		uint64_t size = f->size;

		mode = 0100444;         /* regular file, r--r--r-- */
		memcpy(st + 48, &size, 8);      /* st_size */
	}
	memcpy(st + 16, &nlink, 4);     /* st_nlink (64-bit field, little endian) */
	memcpy(st + 24, &mode, 4);      /* st_mode */
	memcpy(st + 56, &blksize, 8);   /* st_blksize */
	return copy_to_user((void *)a1, st, sizeof(st)) ? -EFAULT : 0;
}
