/*
 * Opening by path (include/file.h): the *at() calls' starting directory,
 * user paths, and open(2) as Linux's path_openat does it: without O_CREAT
 * a lookup (the last link followed unless O_NOFOLLOW); with O_CREAT the
 * parent directory, then the name made or opened; then the checks of
 * do_open and may_open (directories only for reading, O_TRUNC empties a
 * regular file). As root there are no permission checks beyond those.
 * O_PATH opens only a name (include/file.h, file_open_path), a symbolic
 * link itself with O_NOFOLLOW.
 */
#include "file.h"
#include "task.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "uaccess.h"

#define O_TMPFILE_K 020000000

long path_from_user(uint64_t upath, char **out)
{
	char *p = kmalloc(PATH_MAX);
	long len;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	len = strncpy_from_user(p, (const char *)upath, PATH_MAX);
	if (len < 0 || len >= PATH_MAX) {
		kfree(p);
		return len < 0 ? len : -ENAMETOOLONG;
	}
	*out = p;
	return len == 0 ? -ENOENT : 0;
}

long dirfd_base(int dirfd, struct dentry **out)
{
	struct file *f;

	if (dirfd == AT_FDCWD) {
		*out = current->cwd;
		dget(*out);
		return 0;
	}
	f = dirfd < 0 ? NULL : fget((uint64_t)(uint32_t)dirfd);
	if (!f)
		return -EBADF;
	if (!f->dentry || !S_ISDIR(f->dentry->inode->mode)) {
		file_put(f);
		return -ENOTDIR;
	}
	*out = f->dentry;
	dget(*out);
	file_put(f);
	return 0;
}

/* The user path upath (kmalloc'd) and where it starts (a reference): both, or neither. */
static long user_path_at(int dirfd, uint64_t upath, char **path, struct dentry **base)
{
	long r = path_from_user(upath, path);

	if (!r)
		r = dirfd_base(dirfd, base);
	if (r) {
		kfree(*path);
		*path = NULL;
	}
	return r;
}

long user_path_lookup(int dirfd, uint64_t upath, unsigned flags, struct dentry **out)
{
	struct dentry *base;
	char *path;
	long r = user_path_at(dirfd, upath, &path, &base);

	if (r)
		return r;
	r = fs_lookup(base, path, flags, out);
	dput(base);
	kfree(path);
	return r;
}

long user_lookup_parent(int dirfd, uint64_t upath, struct fs_last *last)
{
	struct dentry *base;
	char *path;
	long r = user_path_at(dirfd, upath, &path, &base);

	if (r)
		return r;
	r = fs_lookup_parent(base, path, last);
	dput(base);
	kfree(path);
	return r;
}

/* What may_open and do_open refuse for d opened with flags. */
static long open_checks(struct dentry *d, int flags)
{
	uint32_t mode = d->inode->mode;
	int acc = flags & O_ACCMODE;

	if (S_ISLNK(mode) && ((flags & O_NOFOLLOW) || !d->inode->special || !d->inode->special->follow))
		return -ELOOP;                  /* O_NOFOLLOW on a link; a magic link that led to itself opens */
	if ((flags & O_DIRECTORY) && !S_ISDIR(mode))
		return -ENOTDIR;
	if (S_ISDIR(mode) && (acc != O_RDONLY || (flags & (O_TRUNC | O_CREAT))))
		return -EISDIR;
	return 0;
}

/* The O_CREAT half: the parent's entry, made when missing (mode less the umask). A reference. */
static long open_create(struct dentry *base, const char *path, int flags, uint32_t mode,
			struct dentry **out, bool *created)
{
	struct fs_last last;
	long err = fs_lookup_parent(base, path, &last);

	*created = false;
	if (err)
		return err;
	if (last.type != LAST_NORM || last.slash) {
		fs_last_done(&last);
		return -EISDIR;
	}
	*out = fs_lookup_child(last.dir, last.name, last.len);
	if (*out && (flags & O_EXCL)) {
		dput(*out);
		err = -EEXIST;
	} else if (*out && S_ISLNK((*out)->inode->mode) && !(flags & O_NOFOLLOW)) {
		struct dentry *link = *out;

		err = fs_lookup(last.dir, last.name, LOOKUP_FOLLOW, out);
		dput(link);
	} else if (!*out) {
		err = fs_create(last.dir, last.name, last.len,
				S_IFREG | (mode & ~current->umask & 07777), 0, NULL, out);
		*created = !err;
		if (err == -EEXIST)             /* made meanwhile: open it */
			err = fs_lookup(last.dir, last.name, LOOKUP_FOLLOW, out);
	}
	fs_last_done(&last);
	return err;
}

/* Lookup (and creation) of what open(2) opens. A reference. */
static long open_lookup(int dirfd, const char *path, int flags, uint32_t mode, struct dentry **out)
{
	struct dentry *base;
	bool created;
	long err = dirfd_base(dirfd, &base);

	if (err)
		return err;
	if (flags & O_CREAT)
		err = open_create(base, path, flags, mode, out, &created);
	else
		err = fs_lookup(base, path, (flags & O_NOFOLLOW) ? 0 : LOOKUP_FOLLOW, out);
	dput(base);
	return err;
}

long file_open_at(int dirfd, const char *path, int flags, uint32_t mode, struct file **out)
{
	struct dentry *d;
	long err;

	if (flags & O_PATH)                     /* the other flags are ignored (build_open_flags) */
		flags &= O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC;
	if (flags & O_TMPFILE_K)
		return -EOPNOTSUPP;             /* libcs fall back to a named file */
	if ((flags & (O_CREAT | O_DIRECTORY)) == (O_CREAT | O_DIRECTORY))
		return -EINVAL;                 /* Linux 6.4 on */
	err = open_lookup(dirfd, path, flags, mode, &d);
	if (err)
		return err;
	if (flags & O_PATH) {                   /* a symbolic link too (O_NOFOLLOW) */
		err = (flags & O_DIRECTORY) && !S_ISDIR(d->inode->mode) ? -ENOTDIR : file_open_path(d, flags, out);
		if (err)
			dput(d);
		return err;
	}
	err = open_checks(d, flags);
	if (!err && (flags & O_TRUNC) && S_ISREG(d->inode->mode) && !d->inode->special)
		err = fs_truncate(d->inode, 0);
	if (!err)
		err = file_open_dentry(d, flags, out);      /* the reference moves into the file */
	if (err)
		dput(d);
	return err;
}

long path_stat_at(int dirfd, const char *path, unsigned lookup_flags, struct kstat *st)
{
	struct dentry *base, *d;
	long err = dirfd_base(dirfd, &base);

	if (err)
		return err;
	err = fs_lookup(base, path, lookup_flags, &d);
	dput(base);
	if (err)
		return err;
	memset(st, 0, sizeof(*st));
	if ((lookup_flags & LOOKUP_FOLLOW) && S_ISLNK(d->inode->mode) && inode_kspecial(d->inode) &&
	    inode_kspecial(d->inode)->stat_target)
		inode_kspecial(d->inode)->stat_target(d, st);   /* a magic link that led to itself */
	else
		dentry_stat(d, st);
	dput(d);
	return 0;
}
