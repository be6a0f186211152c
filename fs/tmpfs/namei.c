/*
 * Path lookup (Linux's path_lookupat / path_parentat over the dcache):
 * components between slashes, "." and ".." (the root's parent is the
 * root), symbolic links followed up to MAXSYMLINKS times per lookup (a
 * link's text is looked up from the directory holding the link), magic
 * links through their inode_special (one that leads to itself ends the
 * walk there: a pipe's /proc/self/fd/N), entries of dynamic directories
 * (fs/tmpfs/dynamic.c), and Linux's errors: ENOENT, ENOTDIR,
 * ENAMETOOLONG, ELOOP.
 *
 * Locking: the whole walk runs under fs_lock, so no dentry it passes can
 * go away; only the result gets a reference. A link inside a link recurses
 * (at most MAXSYMLINKS deep, with no buffers on the stack).
 */
#include "fs_internal.h"
#include "kstring.h"
#include "kerrno.h"

struct walk {
	int links;                      /* symbolic links followed so far */
};

static struct dentry *root_dentry;

struct dentry *fs_root(void)
{
	return root_dentry;
}

int fs_init(void)
{
	struct inode *inode = inode_alloc(S_IFDIR | 0755, 0, NULL);

	if (!inode)
		return -ENOMEM;
	root_dentry = d_alloc("/", 1, inode);
	if (!root_dentry) {
		iput(inode);
		return -ENOMEM;
	}
	root_dentry->unlinked = false;
	return 0;
}

static int resolve(struct walk *w, struct dentry *start, const char *path, size_t plen,
		   unsigned flags, struct dentry **out);

/* Follow the symbolic link d, found in directory dir. */
static int follow_link(struct walk *w, struct dentry *dir, struct dentry *d, struct dentry **out)
{
	const struct inode *inode = d->inode;

	if (++w->links > MAXSYMLINKS)
		return -ELOOP;
	if (inode->special && inode->special->follow) {
		*out = inode->special->follow(d);
		return *out ? 0 : -ENOENT;
	}
	return resolve(w, dir, inode->link, strlen(inode->link), LOOKUP_FOLLOW, out);
}

/* One step from directory d by the component c (n bytes): ".", "..", or a child. */
static int step(struct dentry *d, const char *c, size_t n, struct dentry **next)
{
	if (!d_is_dir(d))
		return -ENOTDIR;
	if (n > NAME_MAX)
		return -ENAMETOOLONG;
	if (n == 1 && c[0] == '.')
		*next = d;
	else if (n == 2 && c[0] == '.' && c[1] == '.')
		*next = d->parent && d != fs_root() ? d->parent : d;
	else
		return fs_dyn_lookup_locked(d, c, n, next);
	return 0;
}

/* Is there anything but slashes in path[i, plen)? */
static bool more_components(const char *path, size_t i, size_t plen)
{
	for (; i < plen; i++)
		if (path[i] != '/')
			return true;
	return false;
}

/*
 * Walk path (plen bytes) from start (the root when absolute) under
 * fs_lock; *out without a reference. flags: LOOKUP_FOLLOW,
 * LOOKUP_DIRECTORY.
 */
static int resolve(struct walk *w, struct dentry *start, const char *path, size_t plen,
		   unsigned flags, struct dentry **out)
{
	struct dentry *d = plen && path[0] == '/' ? fs_root() : start;
	size_t i = 0;

	if (!plen)
		return -ENOENT;
	for (;;) {
		struct dentry *next;
		size_t b;
		bool more, slash;
		int err;

		while (i < plen && path[i] == '/')
			i++;
		if (i == plen)
			break;
		for (b = i; i < plen && path[i] != '/'; i++)
			;
		slash = i < plen;
		more = more_components(path, i, plen);
		err = step(d, path + b, i - b, &next);
		if (!err && S_ISLNK(next->inode->mode) && (more || slash || (flags & LOOKUP_FOLLOW)))
			err = follow_link(w, d, next, &next);
		if (err)
			return err;
		d = next;
		if (!more) {
			if (slash)
				flags |= LOOKUP_DIRECTORY;
			break;
		}
	}
	if ((flags & LOOKUP_DIRECTORY) && !d_is_dir(d))
		return -ENOTDIR;
	*out = d;
	return 0;
}

int fs_lookup(struct dentry *base, const char *path, unsigned flags, struct dentry **out)
{
	struct walk w = { 0 };
	unsigned long fl = spin_lock_irqsave(&fs_lock);
	int err = resolve(&w, base, path, strlen(path), flags, out);

	if (!err)
		dget(*out);
	spin_unlock_irqrestore(&fs_lock, fl);
	return err;
}

/* The last component path[b, e) of a lookup_parent: its type and name. */
static int last_component(const char *path, size_t b, size_t e, struct fs_last *last)
{
	size_t n = e - b;

	last->len = 0;
	last->name[0] = 0;
	if (n == 1 && path[b] == '.') {
		last->type = LAST_DOT;
		return 0;
	}
	if (n == 2 && path[b] == '.' && path[b + 1] == '.') {
		last->type = LAST_DOTDOT;
		return 0;
	}
	if (n > NAME_MAX)
		return -ENAMETOOLONG;
	last->type = LAST_NORM;
	memcpy(last->name, path + b, n);
	last->name[n] = 0;
	last->len = n;
	return 0;
}

int fs_lookup_parent(struct dentry *base, const char *path, struct fs_last *last)
{
	size_t plen = strlen(path), e = plen, b;
	struct walk w = { 0 };
	struct dentry *d = base;
	unsigned long fl;
	int err = 0;

	last->dir = NULL;
	if (!plen)
		return -ENOENT;
	while (e > 0 && path[e - 1] == '/')
		e--;
	last->slash = e < plen;
	for (b = e; b > 0 && path[b - 1] != '/'; b--)
		;
	fl = spin_lock_irqsave(&fs_lock);
	if (e == 0) {
		d = fs_root();
		last->type = LAST_ROOT;
		last->len = 0;
		last->name[0] = 0;
	} else {
		if (b > 0)
			err = resolve(&w, base, path, b, LOOKUP_FOLLOW, &d);
		if (!err && !d_is_dir(d))
			err = -ENOTDIR;
		if (!err)
			err = last_component(path, b, e, last);
	}
	if (!err) {
		dget(d);
		last->dir = d;
	}
	spin_unlock_irqrestore(&fs_lock, fl);
	return err;
}

void fs_last_done(struct fs_last *last)
{
	if (last->dir)
		dput(last->dir);
	last->dir = NULL;
}
