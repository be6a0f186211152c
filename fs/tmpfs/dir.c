/*
 * Directories (include/fs.h): making and removing names, rename, reading
 * a directory. The checks and their order are Linux's (vfs_create,
 * vfs_mkdir, vfs_unlink, vfs_rmdir, do_renameat2 and vfs_rename over
 * shmem's operations), so that the system calls return its errnos.
 *
 * Running out of memory for an inode or a name is -ENOSPC, as tmpfs says
 * when it has no room.
 *
 * Locking: fs_lock around each check-and-change; allocations are made
 * before taking it, frees of what lost a race after dropping it.
 */
#include "fs_internal.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"

/* The directory's times after its entries changed. */
static void dir_changed(struct dentry *dir)
{
	fs_now(&dir->inode->mtime);
	dir->inode->ctime = dir->inode->mtime;
}

/* A directory that can take a new entry: not removed. fs_lock held. */
static int dir_usable(struct dentry *dir)
{
	if (!d_is_dir(dir))
		return -ENOTDIR;
	if (dir->unlinked && dir != fs_root())
		return -ENOENT;
	return d_is_dynamic(dir) ? -EPERM : 0;      /* no mkdir, link, symlink, rename (Linux's procfs) */
}

/* Link d (a new dentry, one reference) into dir; *out gets it or it is dropped. */
static int add_name(struct dentry *dir, struct dentry *d, struct dentry **out)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);
	int err = dir_usable(dir);

	if (!err && d_find_locked(dir, d->name, d->len))
		err = -EEXIST;
	if (!err) {
		d_link_locked(dir, d);
		if (d_is_dir(d))
			dir->inode->nlink++;
		dir_changed(dir);
	}
	spin_unlock_irqrestore(&fs_lock, fl);
	if (err || !out)
		dput(d);
	else
		*out = d;
	return err;
}

/* A new inode named name in dir. */
static int make_node(struct dentry *dir, const char *name, size_t len, struct inode *inode,
		     struct dentry **out)
{
	struct dentry *d;

	if (!inode)
		return -ENOSPC;
	d = d_alloc(name, len, inode);
	if (!d) {
		iput(inode);
		return -ENOSPC;
	}
	return add_name(dir, d, out);
}

int fs_create(struct dentry *dir, const char *name, size_t len, uint32_t mode, uint64_t rdev,
	      const struct inode_special *special, struct dentry **out)
{
	if (d_is_dynamic(dir))
		return -EACCES;                 /* Linux's lookup_open without ->create */
	return make_node(dir, name, len, inode_alloc(mode, rdev, special), out);
}

int fs_mkdir(struct dentry *dir, const char *name, size_t len, uint32_t mode, struct dentry **out)
{
	return fs_mkdir_special(dir, name, len, mode, NULL, out);
}

int fs_mkdir_special(struct dentry *dir, const char *name, size_t len, uint32_t mode,
		     const struct inode_special *special, struct dentry **out)
{
	return make_node(dir, name, len, inode_alloc(S_IFDIR | (mode & 07777), 0, special), out);
}

int fs_symlink(struct dentry *dir, const char *name, size_t len, const char *target,
	       struct dentry **out)
{
	struct inode *inode = inode_alloc(S_IFLNK | 0777, 0, NULL);
	size_t n = strlen(target);

	if (inode) {
		inode->link = kmalloc(n + 1);
		if (!inode->link) {
			iput(inode);
			inode = NULL;
		} else {
			memcpy(inode->link, target, n + 1);
		}
	}
	return make_node(dir, name, len, inode, out);
}

int fs_link(struct dentry *old, struct dentry *dir, const char *name, size_t len)
{
	struct dentry *d;
	unsigned long fl;
	int err;

	if (d_is_dir(old))
		return -EPERM;
	iget(old->inode);
	d = d_alloc(name, len, old->inode);
	if (!d) {
		iput(old->inode);
		return -ENOSPC;
	}
	err = add_name(dir, d, &d);
	if (err)
		return err;
	fl = spin_lock_irqsave(&fs_lock);
	old->inode->nlink++;
	fs_now(&old->inode->ctime);
	spin_unlock_irqrestore(&fs_lock, fl);
	dput(d);
	return 0;
}

/* Take the name d out of dir and count its inode one name short. fs_lock held. */
static void remove_name_locked(struct dentry *dir, struct dentry *d)
{
	struct inode *inode = d->inode;

	if (d_is_dir(d)) {
		inode->nlink = 0;
		dir->inode->nlink--;
	} else {
		inode->nlink--;
	}
	fs_now(&inode->ctime);
	dir_changed(dir);
	d_unlink_locked(d);
}

int fs_unlink(struct dentry *dir, const char *name, size_t len)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);
	struct dentry *d = d_find_locked(dir, name, len);
	int err = 0;

	if (d_is_dynamic(dir))
		err = -EPERM;
	else if (!d)
		err = -ENOENT;
	else if (d_is_dir(d))
		err = -EISDIR;
	else
		remove_name_locked(dir, d);
	spin_unlock_irqrestore(&fs_lock, fl);
	return err;
}

int fs_rmdir(struct dentry *dir, const char *name, size_t len)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);
	struct dentry *d = d_find_locked(dir, name, len);
	int err = 0;

	if (d_is_dynamic(dir))
		err = -EPERM;
	else if (!d)
		err = -ENOENT;
	else if (!d_is_dir(d))
		err = -ENOTDIR;
	else if (!list_empty(&d->children))
		err = -ENOTEMPTY;
	else
		remove_name_locked(dir, d);
	spin_unlock_irqrestore(&fs_lock, fl);
	return err;
}

/* Is d the directory a or below it? fs_lock held. */
static bool is_below(struct dentry *d, struct dentry *a)
{
	for (; d; d = d->parent == d ? NULL : d->parent)
		if (d == a)
			return true;
	return false;
}

/*
 * do_renameat2 + vfs_rename's checks for moving old onto the name new
 * (NULL: free) in ndir. 1: nothing to do (the same file); 0: go on.
 */
static int rename_checks(struct dentry *old, struct dentry *ndir, struct dentry *new,
			 unsigned flags, bool slash)
{
	if (new && (flags & RENAME_NOREPLACE))
		return -EEXIST;
	if (!d_is_dir(old) && slash)
		return -ENOTDIR;
	if (d_is_dir(old) && is_below(ndir, old))
		return -EINVAL;                 /* into itself or below */
	if (new && is_below(old->parent, new))
		return -ENOTEMPTY;              /* onto one of its own ancestors */
	if (new && new->inode == old->inode)
		return 1;
	if (new && d_is_dir(old) && !d_is_dir(new))
		return -ENOTDIR;
	if (new && !d_is_dir(old) && d_is_dir(new))
		return -EISDIR;
	if (new && d_is_dir(new) && !list_empty(&new->children))
		return -ENOTEMPTY;
	return 0;
}

/* Move old to ndir under name (a buffer that becomes old's). fs_lock held. */
static void move_locked(struct dentry *old, struct dentry *ndir, char *name, size_t len)
{
	struct dentry *odir = old->parent;

	if (d_is_dir(old) && odir != ndir) {
		odir->inode->nlink--;
		ndir->inode->nlink++;
	}
	list_del(&old->child);
	kfree(old->name);
	old->name = name;
	old->len = len;
	dget(ndir);
	old->parent = ndir;
	old->seq = ndir->next_seq++;
	list_add_tail(&old->child, &ndir->children);
	dir_changed(odir);
	dir_changed(ndir);
	fs_now(&old->inode->ctime);
	dput(odir);                     /* old's reference; the tree still holds odir */
}

int fs_rename(struct dentry *odir, const char *oname, size_t olen, struct dentry *ndir,
	      const char *nname, size_t nlen, unsigned flags, bool slash)
{
	char *name = kmalloc(nlen + 1);
	struct dentry *old, *new;
	unsigned long fl;
	int err;

	if (!name)
		return -ENOSPC;
	memcpy(name, nname, nlen);
	name[nlen] = 0;
	fl = spin_lock_irqsave(&fs_lock);
	old = d_find_locked(odir, oname, olen);
	new = d_find_locked(ndir, nname, nlen);
	err = d_is_dynamic(odir) ? -EPERM : !old ? -ENOENT : dir_usable(ndir);
	if (!err)
		err = rename_checks(old, ndir, new, flags, slash);
	if (!err && new)
		remove_name_locked(ndir, new);
	if (!err) {
		move_locked(old, ndir, name, nlen);
		name = NULL;
	}
	spin_unlock_irqrestore(&fs_lock, fl);
	kfree(name);
	return err < 0 ? err : 0;
}

struct dentry *fs_create_unlinked(const char *name, uint32_t mode)
{
	struct inode *inode = inode_alloc(S_IFREG | (mode & 07777), 0, NULL);
	struct dentry *d;

	if (!inode)
		return NULL;
	inode->charged = false;
	inode->nlink = 0;
	d = d_alloc(name, strlen(name), inode);
	if (!d)
		iput(inode);
	return d;
}

static unsigned dtype(const struct inode *inode)
{
	switch (inode->mode & S_IFMT) {
	case S_IFDIR: return DT_DIR;
	case S_IFLNK: return DT_LNK;
	case S_IFCHR: return DT_CHR;
	default:      return DT_REG;
	}
}

void fs_readdir(struct dentry *dir, uint64_t *pos, fs_emit_fn emit, void *arg)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);
	struct dentry *up = dir->parent && dir != fs_root() ? dir->parent : dir;
	struct list_head *p;

	if (*pos == 0 && emit(arg, ".", 1, dir->inode->ino, DT_DIR, 1))
		*pos = 1;
	if (*pos == 1 && emit(arg, "..", 2, up->inode->ino, DT_DIR, 2))
		*pos = 2;
	if (*pos >= 2) {
		list_for_each(p, &dir->children) {
			struct dentry *d = list_entry(p, struct dentry, child);

			if (d->seq < *pos)
				continue;
			if (!emit(arg, d->name, d->len, d->inode->ino, dtype(d->inode), d->seq + 1))
				break;
			*pos = d->seq + 1;
		}
	}
	spin_unlock_irqrestore(&fs_lock, fl);
}
