/*
 * Changing a file's attributes other than its mode: utimensat (times) and
 * the chown family (owner). The caller is root (the only user), so
 * Linux's permission checks all pass; what remains are its argument
 * checks, in its order, and its side effects: ctime becomes now, and
 * chown of anything but a directory drops the set-user-ID bit and a
 * set-group-ID bit that goes with group execution (Linux's
 * setattr_should_drop_sgid), as it does for root since Linux 2.2.13.
 */
#include "syscall_internal.h"
#include "file.h"
#include "uaccess.h"
#include "kerrno.h"
#include "slab.h"

#define UTIME_NOW  ((1L << 30) - 1)
#define UTIME_OMIT ((1L << 30) - 2)
#define NSEC_PER_SEC 1000000000L
#define S_ISUID_K  04000
#define S_ISGID_K  02000

/*
 * What (dirfd, upath, at_flags) names, with a reference: a last symbolic
 * link followed unless AT_SYMLINK_NOFOLLOW; "" with AT_EMPTY_PATH is
 * dirfd itself (*out NULL: a pipe or console, which has no inode here).
 */
static long attr_lookup(int dirfd, uint64_t upath, unsigned at_flags, struct dentry **out)
{
	char *path;
	long r = path_from_user(upath, &path);
	bool empty = r == -ENOENT && path;

	kfree(path);
	*out = NULL;
	if (empty && (at_flags & AT_EMPTY_PATH)) {
		struct file *f;

		if (dirfd == AT_FDCWD)
			return dirfd_base(AT_FDCWD, out);
		f = dirfd < 0 ? NULL : fget((uint64_t)(uint32_t)dirfd);
		if (!f)
			return -EBADF;
		if (f->dentry) {
			dget(f->dentry);
			*out = f->dentry;
		}
		file_put(f);
		return 0;
	}
	if (r)
		return r;
	return user_path_lookup(dirfd, upath, (at_flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW, out);
}

static bool nsec_valid(long nsec)
{
	return nsec == UTIME_NOW || nsec == UTIME_OMIT || (nsec >= 0 && nsec < NSEC_PER_SEC);
}

/* One of utimensat's times: *t set, or NULL for UTIME_OMIT; now for UTIME_NOW. */
static const struct fs_time *chosen_time(const int64_t ts[2], const struct fs_time *now, struct fs_time *t)
{
	if (ts[1] == UTIME_OMIT)
		return NULL;
	if (ts[1] == UTIME_NOW)
		return now;
	t->sec = ts[0];
	t->nsec = (long)ts[1];
	return t;
}

/* Apply times (NULL: both now) to d's inode. */
static void set_times(struct dentry *d, const int64_t (*times)[2])
{
	struct fs_time now, a, m;

	fs_now(&now);
	if (!times) {
		fs_set_times(d->inode, &now, &now);
		return;
	}
	if (times[0][1] == UTIME_OMIT && times[1][1] == UTIME_OMIT)
		return;                 /* nothing changes, not even ctime */
	fs_set_times(d->inode, chosen_time(times[0], &now, &a), chosen_time(times[1], &now, &m));
}

/*
 * utimensat(dirfd, path, times, flags): atime and mtime become times[0]
 * and times[1] (struct timespec; UTIME_NOW, UTIME_OMIT; NULL: both now);
 * path NULL with a dirfd: that file (futimens). -EINVAL bad nsec or
 * flags (or flags with a NULL path); -EBADF; -EFAULT; the lookup's errors.
 */
long sys_utimensat(SYSCALL_ARGS)
{
	int64_t times[2][2];
	struct dentry *d;
	long r;

	if (a2 && copy_from_user(times, (const void *)a2, sizeof(times)))
		return -EFAULT;
	if (a2 && (!nsec_valid((long)times[0][1]) || !nsec_valid((long)times[1][1])))
		return -EINVAL;
	if (a3 & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (!a1 && (int)a0 != AT_FDCWD) {
		struct file *f;

		if (a3)
			return -EINVAL;
		f = (int)a0 < 0 ? NULL : fget((uint64_t)(uint32_t)a0);
		r = !f || file_is_path(f) ? -EBADF : 0;
		if (!r && f->dentry)
			set_times(f->dentry, a2 ? (const int64_t (*)[2])times : NULL);
		file_put(f);
		return r;
	}
	r = attr_lookup((int)a0, a1, (unsigned)a3, &d);
	if (r || !d)
		return r;
	set_times(d, a2 ? (const int64_t (*)[2])times : NULL);
	dput(d);
	return 0;
}

/* The new owner of d's inode; the set-ID bits chown drops. */
static void change_owner(struct dentry *d, uint64_t uid, uint64_t gid)
{
	uint32_t mode = d->inode->mode;

	if (!S_ISDIR(mode) && (mode & (S_ISUID_K | S_ISGID_K))) {
		uint32_t drop = S_ISUID_K | ((mode & 010) ? S_ISGID_K : 0);

		fs_chmod(d->inode, mode & 07777 & ~drop);
	}
	fs_chown(d->inode, (uint32_t)uid, (uint32_t)gid);
}

static long chown_at(int dirfd, uint64_t upath, uint64_t uid, uint64_t gid, uint64_t flags)
{
	struct dentry *d;
	long r;

	if (flags & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	r = attr_lookup(dirfd, upath, (unsigned)flags, &d);
	if (r || !d)
		return r;
	change_owner(d, uid, gid);
	dput(d);
	return 0;
}

/* chown(path, uid, gid): -1 leaves one as it is; the lookup's errors. */
long sys_chown(SYSCALL_ARGS)
{
	return chown_at(AT_FDCWD, a0, a1, a2, 0);
}

/* lchown(path, uid, gid): as chown, a last symbolic link itself. */
long sys_lchown(SYSCALL_ARGS)
{
	return chown_at(AT_FDCWD, a0, a1, a2, AT_SYMLINK_NOFOLLOW);
}

/* fchownat(dirfd, path, uid, gid, flags): AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH; else -EINVAL. */
long sys_fchownat(SYSCALL_ARGS)
{
	return chown_at((int)a0, a1, a2, a3, a4);
}

/* fchown(fd, uid, gid): -EBADF (O_PATH too); files outside the file system: nothing to change. */
long sys_fchown(SYSCALL_ARGS)
{
	struct file *f = fget((uint64_t)(uint32_t)a0);
	long r = !f || file_is_path(f) ? -EBADF : 0;

	if (!r && f->dentry)
		change_owner(f->dentry, a1, a2);
	file_put(f);
	return r;
}
