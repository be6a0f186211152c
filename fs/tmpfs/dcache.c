/*
 * Dentries (include/fs.h): names, their directories and their lifetime,
 * and the path of a dentry as Linux's d_path prints it.
 *
 * A dentry in a directory holds one reference for that directory's list;
 * it holds a reference on its parent (so that the path of an unlinked file
 * can still be printed) and on its inode. The last dput frees it and drops
 * those, parent by parent, without recursion (a deep chain of removed
 * directories cannot overflow the stack).
 *
 * Locking: fs_lock for the tree; reference counts atomic.
 */
#include "fs_internal.h"
#include "lockless.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"

struct spinlock fs_lock = SPINLOCK_INIT_CLASS("fs", LOCK_CLASS_FS);
static size_t dentries_alive;

size_t fs_dentries_inuse(void)
{
	return READ_ONCE(dentries_alive);
}

struct dentry *d_alloc(const char *name, size_t len, struct inode *inode)
{
	struct dentry *d = kzalloc(sizeof(*d));

	if (!d)
		return NULL;
	d->name = kmalloc(len + 1);
	if (!d->name) {
		kfree(d);
		return NULL;
	}
	memcpy(d->name, name, len);
	d->name[len] = 0;
	d->len = len;
	d->inode = inode;
	d->refcount = 1;
	d->unlinked = true;
	d->next_seq = 2;
	list_init(&d->child);
	list_init(&d->children);
	__atomic_add_fetch(&dentries_alive, 1, __ATOMIC_RELAXED);
	return d;
}

void dget(struct dentry *d)
{
	__atomic_add_fetch(&d->refcount, 1, __ATOMIC_RELAXED);
}

void dput(struct dentry *d)
{
	while (d && !__atomic_sub_fetch(&d->refcount, 1, __ATOMIC_ACQ_REL)) {
		struct dentry *parent = d->parent;

		iput(d->inode);
		kfree(d->name);
		kfree(d);
		__atomic_sub_fetch(&dentries_alive, 1, __ATOMIC_RELAXED);
		d = parent;
	}
}

void d_link_locked(struct dentry *dir, struct dentry *d)
{
	assert_spin_held(&fs_lock);
	dget(dir);
	dget(d);
	if (d->parent)
		dput(d->parent);        /* a rename: the old directory is still referenced by its own */
	d->parent = dir;
	d->seq = dir->next_seq++;
	d->unlinked = false;
	list_add_tail(&d->child, &dir->children);
}

void d_unlink_locked(struct dentry *d)
{
	assert_spin_held(&fs_lock);
	list_del(&d->child);
	d->unlinked = true;
	dput(d);                        /* the directory's reference; a holder keeps it alive */
}

struct dentry *d_find_locked(struct dentry *dir, const char *name, size_t len)
{
	struct list_head *pos;

	list_for_each(pos, &dir->children) {
		struct dentry *d = list_entry(pos, struct dentry, child);

		if (d->len == len && memcmp(d->name, name, len) == 0)
			return d;
	}
	return NULL;
}

struct dentry *fs_lookup_child(struct dentry *dir, const char *name, size_t len)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);
	struct dentry *d;

	if (!fs_dyn_lookup_locked(dir, name, len, &d))
		dget(d);
	else
		d = NULL;
	spin_unlock_irqrestore(&fs_lock, fl);
	return d;
}

static const char deleted_suffix[] = " (deleted)";

/* Put s (n bytes) at offset off of the path in buf, clipped to the first size - 1 bytes. */
static void put_piece(char *buf, size_t size, size_t off, const char *s, size_t n)
{
	for (size_t i = 0; i < n && off + i + 1 < size; i++)
		buf[off + i] = s[i];
}

/* The length of d's path (fs_lock held). */
static size_t path_len(struct dentry *d)
{
	size_t n = d == fs_root() ? 1 : 0;

	if (d->unlinked && d != fs_root())
		n += sizeof(deleted_suffix) - 1;
	for (struct dentry *p = d; p && p != fs_root(); p = p->parent)
		n += p->len + 1;
	return n;
}

/* Write d's path (total bytes long) into buf from its end backwards (fs_lock held). */
static void path_write(struct dentry *d, char *buf, size_t size, size_t total)
{
	size_t end = total;

	if (d->unlinked && d != fs_root()) {
		end -= sizeof(deleted_suffix) - 1;
		put_piece(buf, size, end, deleted_suffix, sizeof(deleted_suffix) - 1);
	}
	for (struct dentry *p = d; p && p != fs_root(); p = p->parent) {
		end -= p->len + 1;
		put_piece(buf, size, end, "/", 1);
		put_piece(buf, size, end + 1, p->name, p->len);
	}
	if (d == fs_root())
		put_piece(buf, size, 0, "/", 1);
}

size_t fs_path(struct dentry *d, char *buf, size_t size)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);
	size_t need = path_len(d);

	if (size) {
		path_write(d, buf, size, need);
		buf[MIN(need, size - 1)] = 0;
	}
	spin_unlock_irqrestore(&fs_lock, fl);
	return need;
}
