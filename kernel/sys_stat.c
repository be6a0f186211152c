/*
 * File status and the working directory: stat, lstat, fstat, newfstatat,
 * statx, access, faccessat, faccessat2, getcwd, chdir, fchdir. The files
 * are those of include/file.h; the working directory is always "/" (the
 * only directory). There are no symbolic links, so lstat is stat.
 */
#include "syscall_internal.h"
#include "file.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"
#include "task.h"

#define AT_FDCWD            (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EACCESS          0x200
#define AT_NO_AUTOMOUNT     0x800
#define AT_EMPTY_PATH       0x1000
#define AT_STATX_SYNC_TYPE  0x6000
#define STATX_BASIC_STATS   0x7ffU
#define STATX__RESERVED     0x80000000U
#define W_OK 2
#define X_OK 1
#define S_IFMT  0170000
#define S_IFDIR 0040000
#define S_IFCHR 0020000

long path_from_user(char *buf, size_t size, uint64_t upath);

/* Linux's struct stat on x86-64 (144 bytes). */
struct stat_k {
	uint64_t dev, ino, nlink;
	uint32_t mode, uid, gid, pad0;
	uint64_t rdev;
	int64_t size, blksize, blocks;
	uint64_t atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
	int64_t reserved[3];
};
_Static_assert(sizeof(struct stat_k) == 144, "struct stat is 144 bytes on x86-64");

struct statx_ts_k {
	int64_t sec;
	uint32_t nsec;
	int32_t reserved;
};

/* Linux's struct statx (256 bytes). */
struct statx_k {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, spare0;
	uint64_t ino, size, blocks, attributes_mask;
	struct statx_ts_k atime, btime, ctime, mtime;
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t spare[14];
};
_Static_assert(sizeof(struct statx_k) == 256, "struct statx is 256 bytes");

static int copy_stat(uint64_t ubuf, const struct kstat *st)
{
	struct stat_k s;

	memset(&s, 0, sizeof(s));
	s.dev = st->dev;
	s.ino = st->ino;
	s.nlink = st->nlink;
	s.mode = st->mode;
	s.rdev = st->rdev;
	s.size = (int64_t)st->size;
	s.blksize = st->blksize;
	s.blocks = (int64_t)st->blocks;
	return copy_to_user((void *)ubuf, &s, sizeof(s)) ? -EFAULT : 0;
}

/* stat of what (dirfd, upath, flags) names: AT_EMPTY_PATH with "" is dirfd itself. */
static long stat_at(int64_t dirfd, uint64_t upath, unsigned flags, struct kstat *st)
{
	char path[256];
	long r = path_from_user(path, sizeof(path), upath);

	if (r == -ENOENT && (flags & AT_EMPTY_PATH)) {
		struct file *f;

		if (dirfd == AT_FDCWD)
			return file_stat_path("/", st);
		f = fd_get((uint64_t)dirfd);
		if (!f)
			return -EBADF;
		file_stat(f, st);
		return 0;
	}
	if (r)
		return r;
	return file_stat_path(path, st);
}

/* stat(path, buf) and lstat (no symbolic links here): -ENOENT, -EFAULT, -ENAMETOOLONG. */
long sys_stat(SYSCALL_ARGS)
{
	struct kstat st;
	long r = stat_at(AT_FDCWD, a0, 0, &st);

	return r ? r : copy_stat(a1, &st);
}

/* fstat(fd, buf): -EBADF, -EFAULT. */
long sys_fstat(SYSCALL_ARGS)
{
	struct file *f = fd_get(a0);
	struct kstat st;

	if (!f)
		return -EBADF;
	file_stat(f, &st);
	return copy_stat(a1, &st);
}

/* newfstatat(dirfd, path, buf, flags): flags AT_SYMLINK_NOFOLLOW, AT_NO_AUTOMOUNT, AT_EMPTY_PATH, the statx sync bits, else -EINVAL. */
long sys_newfstatat(SYSCALL_ARGS)
{
	struct kstat st;
	long r;

	if (a3 & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	r = stat_at((int)a0, a1, (unsigned)a3, &st);
	return r ? r : copy_stat(a2, &st);
}

/* statx(dirfd, path, flags, mask, buf): the basic stats; -EINVAL bad flags or reserved mask bit. */
long sys_statx(SYSCALL_ARGS)
{
	struct kstat st;
	struct statx_k x;
	long r;

	if (a2 & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	if ((a2 & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE || (a3 & STATX__RESERVED))
		return -EINVAL;
	r = stat_at((int)a0, a1, (unsigned)a2, &st);
	if (r)
		return r;
	memset(&x, 0, sizeof(x));
	x.mask = STATX_BASIC_STATS;
	x.blksize = st.blksize;
	x.nlink = st.nlink;
	x.mode = (uint16_t)st.mode;
	x.ino = st.ino;
	x.size = st.size;
	x.blocks = st.blocks;
	x.rdev_major = (uint32_t)(st.rdev >> 8);
	x.rdev_minor = (uint32_t)(st.rdev & 0xff);
	x.dev_major = (uint32_t)(st.dev >> 8);
	x.dev_minor = (uint32_t)(st.dev & 0xff);
	return copy_to_user((void *)a4, &x, sizeof(x)) ? -EFAULT : 0;
}

/* access for root: read always; write only to writable files (-EROFS: the files are read-only); execute needs an x bit. */
static long do_access(uint64_t upath, uint64_t mode, uint64_t flags, bool have_flags)
{
	struct kstat st;
	long r;

	if (mode & ~7UL)
		return -EINVAL;
	if (have_flags && (flags & ~(uint64_t)(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)))
		return -EINVAL;
	r = stat_at(AT_FDCWD, upath, have_flags ? (unsigned)flags : 0, &st);
	if (r)
		return r;
	if ((mode & W_OK) && (st.mode & S_IFMT) != S_IFCHR)
		return -EROFS;          /* only the devices are writable */
	if ((mode & X_OK) && !(st.mode & 0111))
		return -EACCES;
	return 0;
}

/* access(path, mode): 0; -EINVAL mode; -ENOENT; -EROFS (write); -EACCES (execute). */
long sys_access(SYSCALL_ARGS)
{
	return do_access(a0, a1, 0, false);
}

/* faccessat(dirfd, path, mode): as access (paths do not depend on dirfd here). */
long sys_faccessat(SYSCALL_ARGS)
{
	return do_access(a1, a2, 0, false);
}

/* faccessat2(dirfd, path, mode, flags): -EINVAL unknown flags. */
long sys_faccessat2(SYSCALL_ARGS)
{
	return do_access(a1, a2, a3, true);
}

/* getcwd(buf, size): "/" (length 2 with the NUL); -ERANGE size < 2; -EFAULT. */
long sys_getcwd(SYSCALL_ARGS)
{
	if (a1 < 2)
		return -ERANGE;
	return copy_to_user((void *)a0, "/", 2) ? -EFAULT : 2;
}

/* chdir(path): "/" only (the one directory); -ENOTDIR a file; -ENOENT; -EFAULT. */
long sys_chdir(SYSCALL_ARGS)
{
	struct kstat st;
	long r = stat_at(AT_FDCWD, a0, 0, &st);

	if (r)
		return r;
	return (st.mode & S_IFMT) == S_IFDIR ? 0 : -ENOTDIR;
}

/* fchdir(fd): a directory fd; -ENOTDIR; -EBADF. */
long sys_fchdir(SYSCALL_ARGS)
{
	struct file *f = fd_get(a0);
	struct kstat st;

	if (!f)
		return -EBADF;
	file_stat(f, &st);
	return (st.mode & S_IFMT) == S_IFDIR ? 0 : -ENOTDIR;
}

/* readlink of path: /proc/self/exe is the program's path; other files are not links (-EINVAL). */
static long do_readlink(uint64_t upath, uint64_t ubuf, uint64_t size)
{
	char path[256];
	struct kstat st;
	const char *target = current->exe_path;
	size_t n;
	long r;

	if ((int64_t)size <= 0)
		return -EINVAL;
	r = path_from_user(path, sizeof(path), upath);
	if (r)
		return r;
	if (strcmp(path, "/proc/self/exe") != 0) {
		r = file_stat_path(path, &st);
		return r ? r : -EINVAL;
	}
	/* absolute, as Linux's (glibc's static start-up asserts it): relative to "/", the cwd */
	if (target[0] != '/') {
		if (copy_to_user((void *)ubuf, "/", 1))
			return -EFAULT;
		n = MIN(strlen(target), (size_t)size - 1);
		return copy_to_user((void *)(ubuf + 1), target, n) ? -EFAULT : (long)n + 1;
	}
	n = MIN(strlen(target), (size_t)size);
	return copy_to_user((void *)ubuf, target, n) ? -EFAULT : (long)n;
}

/* readlink(path, buf, size): the bytes of the link (no NUL); -EINVAL not a link or size <= 0; -ENOENT; -EFAULT. */
long sys_readlink(SYSCALL_ARGS)
{
	return do_readlink(a0, a1, a2);
}

/* readlinkat(dirfd, path, buf, size): as readlink (one directory). */
long sys_readlinkat(SYSCALL_ARGS)
{
	return do_readlink(a1, a2, a3);
}
