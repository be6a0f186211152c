/*
 * File status and the working directory: stat, lstat, fstat, newfstatat,
 * statx, access, faccessat, faccessat2, readlink, readlinkat, getcwd,
 * chdir, fchdir, umask, chmod, fchmod, fchmodat. Paths are looked up in
 * the file system (include/fs.h) from the working directory or a dirfd;
 * lstat and AT_SYMLINK_NOFOLLOW do not follow a last symbolic link.
 */
#include "syscall_internal.h"
#include "file.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"
#include "task.h"
#include "slab.h"

#define AT_STATX_SYNC_TYPE  0x6000
#define STATX_BASIC_STATS   0x7ffU
#define STATX_BTIME         0x800U
#define STATX__RESERVED     0x80000000U
#define W_OK 2
#define X_OK 1

/* Linux's struct stat on x86-64 (144 bytes). */
struct stat_k {
	uint64_t dev, ino, nlink;
	uint32_t mode, uid, gid, pad0;
	uint64_t rdev;
	int64_t size, blksize, blocks;
	int64_t atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
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
	s.uid = st->uid;
	s.gid = st->gid;
	s.rdev = st->rdev;
	s.size = (int64_t)st->size;
	s.blksize = st->blksize;
	s.blocks = (int64_t)st->blocks;
	s.atime = st->atime.sec;
	s.atime_ns = st->atime.nsec;
	s.mtime = st->mtime.sec;
	s.mtime_ns = st->mtime.nsec;
	s.ctime = st->ctime.sec;
	s.ctime_ns = st->ctime.nsec;
	return copy_to_user((void *)ubuf, &s, sizeof(s)) ? -EFAULT : 0;
}

/* stat of what (dirfd, upath, flags) names: AT_EMPTY_PATH with "" is dirfd itself. */
static long stat_at(int64_t dirfd, uint64_t upath, unsigned flags, struct kstat *st)
{
	char *path;
	long r = path_from_user(upath, &path);

	if (r == -ENOENT && path && (flags & AT_EMPTY_PATH)) {
		struct file *f;

		kfree(path);
		if (dirfd == AT_FDCWD)
			return path_stat_at(AT_FDCWD, ".", LOOKUP_FOLLOW, st);
		f = dirfd < 0 ? NULL : fget((uint64_t)dirfd);
		if (!f)
			return -EBADF;
		file_stat(f, st);
		file_put(f);
		return 0;
	}
	if (!r)
		r = path_stat_at((int)dirfd, path, (flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW, st);
	kfree(path);
	return r;
}

/* stat(path, buf): -ENOENT, -ENOTDIR, -ELOOP, -EFAULT, -ENAMETOOLONG. */
long sys_stat(SYSCALL_ARGS)
{
	struct kstat st;
	long r = stat_at(AT_FDCWD, a0, 0, &st);

	return r ? r : copy_stat(a1, &st);
}

/* lstat(path, buf): as stat, a last symbolic link itself. */
long sys_lstat(SYSCALL_ARGS)
{
	struct kstat st;
	long r = stat_at(AT_FDCWD, a0, AT_SYMLINK_NOFOLLOW, &st);

	return r ? r : copy_stat(a1, &st);
}

/* fstat(fd, buf): -EBADF, -EFAULT. */
long sys_fstat(SYSCALL_ARGS)
{
	struct file *f = fget(a0);
	struct kstat st;

	if (!f)
		return -EBADF;
	file_stat(f, &st);
	file_put(f);
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

static struct statx_ts_k statx_time(struct fs_time t)
{
	return (struct statx_ts_k){ .sec = t.sec, .nsec = (uint32_t)t.nsec };
}

/* statx(dirfd, path, flags, mask, buf): the basic stats, the birth time where known and asked for; -EINVAL bad flags or reserved mask bit. */
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
	x.mask = STATX_BASIC_STATS | (st.has_btime && (a3 & STATX_BTIME) ? STATX_BTIME : 0);
	x.blksize = st.blksize;
	x.nlink = st.nlink;
	x.uid = st.uid;
	x.gid = st.gid;
	x.atime = statx_time(st.atime);
	x.mtime = statx_time(st.mtime);
	x.ctime = statx_time(st.ctime);
	if (x.mask & STATX_BTIME)       /* asked for (as tmpfs's shmem_getattr) */
		x.btime = statx_time(st.btime);
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

/* access for root (Linux's generic_permission with CAP_DAC_OVERRIDE): only execution needs an x bit. */
static long do_access(int dirfd, uint64_t upath, uint64_t mode, uint64_t flags, bool have_flags)
{
	struct kstat st;
	long r;

	if (mode & ~7UL)
		return -EINVAL;
	if (have_flags && (flags & ~(uint64_t)(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)))
		return -EINVAL;
	r = stat_at(dirfd, upath, have_flags ? (unsigned)flags : 0, &st);
	if (r)
		return r;
	if ((mode & X_OK) && !S_ISDIR(st.mode) && !(st.mode & 0111))
		return -EACCES;
	return 0;
}

/* access(path, mode): 0; -EINVAL mode; the lookup's errors; -EACCES (execute). */
long sys_access(SYSCALL_ARGS)
{
	return do_access(AT_FDCWD, a0, a1, 0, false);
}

/* faccessat(dirfd, path, mode): as access, relative to dirfd. */
long sys_faccessat(SYSCALL_ARGS)
{
	return do_access((int)a0, a1, a2, 0, false);
}

/* faccessat2(dirfd, path, mode, flags): -EINVAL unknown flags. */
long sys_faccessat2(SYSCALL_ARGS)
{
	return do_access((int)a0, a1, a2, a3, true);
}

/* getcwd(buf, size): the working directory's path with its NUL; -ENOENT it was removed; -ERANGE; -EFAULT. */
long sys_getcwd(SYSCALL_ARGS)
{
	struct dentry *cwd = current->cwd;
	char *buf;
	size_t len;
	long r;

	if (cwd->unlinked && cwd != fs_root())
		return -ENOENT;
	buf = kmalloc(PATH_MAX);
	if (!buf)
		return -ENOMEM;
	len = fs_path(cwd, buf, PATH_MAX);
	if (len >= PATH_MAX)
		r = -ENAMETOOLONG;
	else if (a1 < len + 1)
		r = -ERANGE;
	else
		r = copy_to_user((void *)a0, buf, len + 1) ? -EFAULT : (long)len + 1;
	kfree(buf);
	return r;
}

/* Make d (a reference that moves in) the working directory. */
static void set_cwd(struct dentry *d)
{
	struct dentry *old = current->cwd;

	current->cwd = d;
	dput(old);
}

/* chdir(path): a directory (links followed); -ENOTDIR; -ENOENT; -ELOOP; -EFAULT; -ENAMETOOLONG. */
long sys_chdir(SYSCALL_ARGS)
{
	struct dentry *d;
	long r = user_path_lookup(AT_FDCWD, a0, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &d);

	if (!r)
		set_cwd(d);
	return r;
}

/* fchdir(fd): a directory fd; -ENOTDIR; -EBADF. */
long sys_fchdir(SYSCALL_ARGS)
{
	struct file *f = fget(a0);
	long r = !f ? -EBADF : !f->dentry || !S_ISDIR(f->dentry->inode->mode) ? -ENOTDIR : 0;

	if (!r) {
		dget(f->dentry);
		set_cwd(f->dentry);
	}
	file_put(f);
	return r;
}

/* The text of the link d: its target, or for a magic link the path it leads to (into buf). */
static long link_text(struct dentry *d, char *buf, size_t size)
{
	struct inode *inode = d->inode;

	if (!S_ISLNK(inode->mode))
		return -EINVAL;
	if (inode_kspecial(inode) && inode_kspecial(inode)->readlink)
		return inode_kspecial(inode)->readlink(d, buf, size);
	if (inode->special && inode->special->follow) {
		struct dentry *to = inode->special->follow(d);

		return to ? (long)MIN(fs_path(to, buf, size), size - 1) : -ENOENT;
	}
	{
		size_t n = MIN(strlen(inode->link), size - 1);

		memcpy(buf, inode->link, n);
		buf[n] = 0;
		return (long)n;
	}
}

/* readlink of path relative to dirfd: the link's bytes (no NUL), cut at size. */
static long do_readlink(int dirfd, uint64_t upath, uint64_t ubuf, uint64_t size)
{
	struct dentry *d;
	char *buf;
	long r;

	if ((int64_t)size <= 0)
		return -EINVAL;
	r = user_path_lookup(dirfd, upath, 0, &d);
	if (r)
		return r;
	buf = kmalloc(PATH_MAX + 1);
	r = buf ? link_text(d, buf, PATH_MAX + 1) : -ENOMEM;
	dput(d);
	if (r >= 0) {
		r = MIN(r, (long)size);
		if (copy_to_user((void *)ubuf, buf, (size_t)r))
			r = -EFAULT;
	}
	kfree(buf);
	return r;
}

/* readlink(path, buf, size): the bytes of the link (no NUL); -EINVAL not a link or size <= 0; -ENOENT; -EFAULT. */
long sys_readlink(SYSCALL_ARGS)
{
	return do_readlink(AT_FDCWD, a0, a1, a2);
}

/* readlinkat(dirfd, path, buf, size): as readlink, relative to dirfd. */
long sys_readlinkat(SYSCALL_ARGS)
{
	return do_readlink((int)a0, a1, a2, a3);
}

/* umask(mask): the old mask; the new one is mask & 0777. */
long sys_umask(SYSCALL_ARGS)
{
	uint32_t old = current->umask;

	current->umask = (uint32_t)a0 & 0777;
	return old;
}

/* The permission bits of d's inode become mode & 07777. */
static void set_mode(struct dentry *d, uint64_t mode)
{
	fs_chmod(d->inode, (uint32_t)mode & 07777);
}

static long chmod_at(int dirfd, uint64_t upath, uint64_t mode)
{
	struct dentry *d;
	long r = user_path_lookup(dirfd, upath, LOOKUP_FOLLOW, &d);

	if (!r) {
		set_mode(d, mode);
		dput(d);
	}
	return r;
}

/* chmod(path, mode): the lookup's errors. */
long sys_chmod(SYSCALL_ARGS)
{
	return chmod_at(AT_FDCWD, a0, a1);
}

/* fchmodat(dirfd, path, mode): as chmod, relative to dirfd. */
long sys_fchmodat(SYSCALL_ARGS)
{
	return chmod_at((int)a0, a1, a2);
}

/* fchmod(fd, mode): -EBADF (O_PATH too); files outside the file system (pipes, the console): nothing to change. */
long sys_fchmod(SYSCALL_ARGS)
{
	struct file *f = fget(a0);
	long r = !f || file_is_path(f) ? -EBADF : 0;

	if (!r && f->dentry)
		set_mode(f->dentry, a1);
	file_put(f);
	return r;
}
