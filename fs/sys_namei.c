/*
 * Names in the file system: mkdir, mkdirat, rmdir, unlink, unlinkat,
 * rename, renameat, renameat2, link, linkat, symlink, symlinkat. Each
 * copies its paths, finds the parent directory and last component
 * (fs_lookup_parent) and calls fs/tmpfs/dir.c; what the last component may be
 * ("." , "..", "/", a trailing slash) is checked here, as Linux's
 * filename_create, do_rmdir, do_unlinkat, do_renameat2 and do_linkat do.
 */
#include "syscall_internal.h"
#include "file.h"
#include "task.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"

#define RENAME_EXCHANGE_K 2
#define RENAME_WHITEOUT_K 4

static long do_mkdir(int dirfd, uint64_t upath, uint64_t mode)
{
	struct fs_last last;
	long r = user_lookup_parent(dirfd, upath, &last);

	if (r)
		return r;
	if (last.type != LAST_NORM)
		r = -EEXIST;            /* "/", "." and ".." exist */
	else
		r = fs_mkdir(last.dir, last.name, last.len, (uint32_t)mode & ~current->umask & 07777, NULL);
	fs_last_done(&last);
	return r;
}

/* mkdir(path, mode): -EEXIST, -ENOENT (a parent missing or removed), -ENOTDIR, -ENAMETOOLONG, -ENOSPC. */
long sys_mkdir(SYSCALL_ARGS)
{
	return do_mkdir(AT_FDCWD, a0, a1);
}

/* mkdirat(dirfd, path, mode): as mkdir, relative to dirfd. */
long sys_mkdirat(SYSCALL_ARGS)
{
	return do_mkdir((int)a0, a1, a2);
}

static long do_rmdir(int dirfd, uint64_t upath)
{
	static const long by_type[] = { [LAST_ROOT] = -EBUSY, [LAST_DOT] = -EINVAL,
					[LAST_DOTDOT] = -ENOTEMPTY };
	struct fs_last last;
	long r = user_lookup_parent(dirfd, upath, &last);

	if (r)
		return r;
	r = last.type != LAST_NORM ? by_type[last.type] : fs_rmdir(last.dir, last.name, last.len);
	fs_last_done(&last);
	return r;
}

/* rmdir(path): -ENOENT, -ENOTDIR, -ENOTEMPTY, -EINVAL ("."), -EBUSY ("/"). */
long sys_rmdir(SYSCALL_ARGS)
{
	return do_rmdir(AT_FDCWD, a0);
}

static long do_unlink(int dirfd, uint64_t upath)
{
	struct fs_last last;
	struct dentry *d;
	long r = user_lookup_parent(dirfd, upath, &last);

	if (r)
		return r;
	if (last.type != LAST_NORM) {
		r = -EISDIR;
	} else if (last.slash) {
		/* "name/": not a file name at all */
		d = fs_lookup_child(last.dir, last.name, last.len);
		r = !d ? -ENOENT : S_ISDIR(d->inode->mode) ? -EISDIR : -ENOTDIR;
		if (d)
			dput(d);
	} else {
		r = fs_unlink(last.dir, last.name, last.len);
	}
	fs_last_done(&last);
	return r;
}

/* unlink(path): -ENOENT, -EISDIR, -ENOTDIR. */
long sys_unlink(SYSCALL_ARGS)
{
	return do_unlink(AT_FDCWD, a0);
}

/* unlinkat(dirfd, path, flags): AT_REMOVEDIR is rmdir; other flags -EINVAL. */
long sys_unlinkat(SYSCALL_ARGS)
{
	if (a2 & ~(uint64_t)AT_REMOVEDIR)
		return -EINVAL;
	return (a2 & AT_REMOVEDIR) ? do_rmdir((int)a0, a1) : do_unlink((int)a0, a1);
}

static long do_rename(int olddfd, uint64_t uold, int newdfd, uint64_t unew, uint64_t flags)
{
	struct fs_last from, to;
	long r;

	if (flags & ~(uint64_t)(RENAME_NOREPLACE | RENAME_EXCHANGE_K | RENAME_WHITEOUT_K))
		return -EINVAL;
	if (flags & (RENAME_EXCHANGE_K | RENAME_WHITEOUT_K))
		return -EINVAL;         /* not supported here (Linux's tmpfs has them) */
	r = user_lookup_parent(olddfd, uold, &from);
	if (r)
		return r;
	r = user_lookup_parent(newdfd, unew, &to);
	if (r) {
		fs_last_done(&from);
		return r;
	}
	if (from.type != LAST_NORM)
		r = -EBUSY;
	else if (to.type != LAST_NORM)
		r = (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;
	else
		r = fs_rename(from.dir, from.name, from.len, to.dir, to.name, to.len, (unsigned)flags,
			      from.slash || to.slash);
	fs_last_done(&from);
	fs_last_done(&to);
	return r;
}

/* rename(old, new): fs_rename's errors; -EBUSY for "/", "." or "..". */
long sys_rename(SYSCALL_ARGS)
{
	return do_rename(AT_FDCWD, a0, AT_FDCWD, a1, 0);
}

/* renameat(olddirfd, old, newdirfd, new). */
long sys_renameat(SYSCALL_ARGS)
{
	return do_rename((int)a0, a1, (int)a2, a3, 0);
}

/* renameat2(olddirfd, old, newdirfd, new, flags): RENAME_NOREPLACE; EXCHANGE and WHITEOUT -EINVAL. */
long sys_renameat2(SYSCALL_ARGS)
{
	return do_rename((int)a0, a1, (int)a2, a3, a4);
}

static long do_symlink(uint64_t utarget, int dirfd, uint64_t upath)
{
	struct fs_last last;
	char *target;
	long r = path_from_user(utarget, &target);

	if (!r)
		r = user_lookup_parent(dirfd, upath, &last);
	if (!r) {
		r = last.type != LAST_NORM ? -EEXIST : fs_symlink(last.dir, last.name, last.len, target, NULL);
		fs_last_done(&last);
	}
	kfree(target);
	return r;
}

/* symlink(target, path): a link whose text is target (not empty: -ENOENT); -EEXIST and the lookup's errors. */
long sys_symlink(SYSCALL_ARGS)
{
	return do_symlink(a0, AT_FDCWD, a1);
}

/* symlinkat(target, dirfd, path). */
long sys_symlinkat(SYSCALL_ARGS)
{
	return do_symlink(a0, (int)a1, a2);
}

static long do_link(int olddfd, uint64_t uold, int newdfd, uint64_t unew, uint64_t flags)
{
	struct fs_last last;
	struct dentry *old;
	long r;

	if (flags & ~(uint64_t)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	r = user_path_lookup(olddfd, uold, (flags & AT_SYMLINK_FOLLOW) ? LOOKUP_FOLLOW : 0, &old);
	if (r)
		return r;
	r = user_lookup_parent(newdfd, unew, &last);
	if (!r) {
		r = last.type != LAST_NORM ? -EEXIST : fs_link(old, last.dir, last.name, last.len);
		fs_last_done(&last);
	}
	dput(old);
	return r;
}

/* link(old, new): a second name; -EPERM a directory, -EEXIST, the lookups' errors. */
long sys_link(SYSCALL_ARGS)
{
	return do_link(AT_FDCWD, a0, AT_FDCWD, a1, 0);
}

/* linkat(olddirfd, old, newdirfd, new, flags): AT_SYMLINK_FOLLOW; other flags -EINVAL. */
long sys_linkat(SYSCALL_ARGS)
{
	return do_link((int)a0, a1, (int)a2, a3, a4);
}
