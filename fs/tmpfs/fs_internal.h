/*
 * Private to fs/: the namespace lock, inode allocation, dentry links, the
 * clock. See include/fs.h for the structures and their locking.
 */
#ifndef FS_INTERNAL_H
#define FS_INTERNAL_H

#include "fs.h"
#include "spinlock.h"

/* The namespace lock (include/fs.h, "Locking"). */
extern struct spinlock fs_lock;

/* inode_alloc: a new inode (nlink 1, or 2 for a directory), one reference; NULL on -ENOMEM. */
struct inode *inode_alloc(uint32_t mode, uint64_t rdev, const struct inode_special *special);

/* d_alloc: a dentry named name (len bytes) for inode (whose reference it takes over), one reference; NULL on -ENOMEM. */
struct dentry *d_alloc(const char *name, size_t len, struct inode *inode);
/* d_link_locked: put d into directory dir (fs_lock held): the directory's reference is taken. */
void d_link_locked(struct dentry *dir, struct dentry *d);
/* d_unlink_locked: take d out of its directory (fs_lock held); the directory's reference is dropped. */
void d_unlink_locked(struct dentry *d);
/* d_find_locked: dir's entry name, or NULL (fs_lock held, no reference). */
struct dentry *d_find_locked(struct dentry *dir, const char *name, size_t len);

static inline bool d_is_dir(const struct dentry *d) { return S_ISDIR(d->inode->mode); }
/* d_is_dynamic: d is a dynamic directory (include/fs.h, inode_special.lookup). */
static inline bool d_is_dynamic(const struct dentry *d)
{
	return d->inode->special && d->inode->special->lookup;
}

#endif
