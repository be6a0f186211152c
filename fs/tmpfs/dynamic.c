/*
 * Dynamic directories (include/fs.h, struct inode_special): directories
 * whose entries the kernel makes as they are looked up (/proc, /proc/PID,
 * /proc/PID/fd), as Linux's procfs fills the dcache from its lookup
 * methods. A made entry is linked into its directory like any other (the
 * directory's list holds it) and is looked up again from there while its
 * revalidate hook says it still exists; a stale one is pruned, with what
 * it cached below it, the next time its name is looked up (Linux's
 * d_revalidate + d_invalidate).
 *
 * Locking: everything here runs with fs_lock held; the allocations are
 * made under it (fs_lock comes before slab and pmm in the lock order).
 */
#include "fs_internal.h"
#include "kerrno.h"
#include "lockless.h"

/*
 * Drop d from its directory, and first what it cached below it. The depth
 * is that of the dynamic tree (/proc/PID/fd/N: three), so the recursion is
 * bounded by how the kernel builds it.
 */
static void d_prune_locked(struct dentry *d)
{
	while (!list_empty(&d->children))
		d_prune_locked(list_entry(d->children.next, struct dentry, child));
	d_unlink_locked(d);
}

static bool d_stale(struct dentry *d)
{
	const struct inode_special *s = d->inode->special;

	return s && s->revalidate && !s->revalidate(d);
}

int fs_dyn_lookup_locked(struct dentry *dir, const char *name, size_t len, struct dentry **out)
{
	struct dentry *d = d_find_locked(dir, name, len);
	const struct inode_special *s;
	struct inode *inode;
	uint32_t mode = 0;

	assert_spin_held(&fs_lock);
	if (d && d_stale(d)) {
		d_prune_locked(d);
		d = NULL;
	}
	*out = d;
	if (d)
		return 0;
	if (!d_is_dynamic(dir) || (dir->unlinked && dir != fs_root()))
		return -ENOENT;
	s = dir->inode->special->lookup(dir, name, len, &mode);
	if (!s)
		return -ENOENT;
	inode = inode_alloc(mode, 0, s);
	if (!inode)
		return -ENOMEM;
	inode->charged = false;
	d = d_alloc(name, len, inode);
	if (!d) {
		iput(inode);
		return -ENOMEM;
	}
	d_link_locked(dir, d);
	dput(d);                        /* the directory's reference keeps it */
	*out = d;
	return 0;
}

void fs_dyn_forget(struct dentry *dir, const char *name, size_t len)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);
	struct dentry *d = d_find_locked(dir, name, len);

	if (d && d_stale(d))
		d_prune_locked(d);
	spin_unlock_irqrestore(&fs_lock, fl);
}

/* Drop the entries below dir nobody holds, deepest first (a directory is held by its cached entries). */
static void d_shrink_locked(struct dentry *dir)
{
	struct list_head *p, *tmp;

	list_for_each_safe(p, tmp, &dir->children) {
		struct dentry *d = list_entry(p, struct dentry, child);

		d_shrink_locked(d);
		if (list_empty(&d->children) && smp_load_acquire(&d->refcount) == 1)
			d_unlink_locked(d);
	}
}

void fs_dyn_shrink(struct dentry *dir)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);

	if (d_is_dynamic(dir))
		d_shrink_locked(dir);
	spin_unlock_irqrestore(&fs_lock, fl);
}
