/*
 * Inodes (include/fs.h): allocation, numbering, times, and the page-cache
 * object each one embeds, whose reference count is the inode's and whose
 * pages tmpfs charges against its size limit (Linux's shmem_inode_acct
 * and the mount's size=, half of the memory by default).
 *
 * Locking: the counters are atomic; the limit check is a compare-and-swap
 * loop, so it holds on several CPUs without a lock.
 */
#include "fs_internal.h"
#include "lockless.h"
#include "slab.h"
#include "kstring.h"
#include "printk.h"
#include "kerrno.h"

static uint64_t next_ino = 1;
static unsigned long page_limit;        /* 0: none */
static unsigned long pages_used;
static size_t inodes_alive;
static void (*clock_fn)(struct fs_time *t);

void fs_set_page_limit(unsigned long pages)
{
	page_limit = pages;
}

unsigned long fs_pages_used(void)
{
	return READ_ONCE(pages_used);
}

size_t fs_inodes_inuse(void)
{
	return READ_ONCE(inodes_alive);
}

void fs_set_clock(void (*now)(struct fs_time *t))
{
	clock_fn = now;
}

void fs_now(struct fs_time *t)
{
	t->sec = 0;
	t->nsec = 0;
	if (clock_fn)
		clock_fn(t);
}

/* vm_object_ops.charge for tmpfs inodes: the whole file system's pages against the limit. */
static int inode_charge(struct vm_object *o, long pages)
{
	struct inode *inode = container_of(o, struct inode, data);
	unsigned long used = READ_ONCE(pages_used);

	if (!inode->charged)
		return 0;
	if (pages < 0) {
		__atomic_sub_fetch(&pages_used, (unsigned long)-pages, __ATOMIC_RELAXED);
		return 0;
	}
	do {
		if (page_limit && used + (unsigned long)pages > page_limit)
			return -ENOSPC;
	} while (!__atomic_compare_exchange_n(&pages_used, &used, used + (unsigned long)pages, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return 0;
}

static void inode_release(struct vm_object *o)
{
	struct inode *inode = container_of(o, struct inode, data);

	kfree(inode->link);
	kfree(inode);
	__atomic_sub_fetch(&inodes_alive, 1, __ATOMIC_RELAXED);
}

/* memfds and unlinked files have no name (nlink 0); an open file or a mapping keeps them */
static void inode_describe(struct vm_object *o, char *buf, size_t n)
{
	struct inode *inode = container_of(o, struct inode, data);

	ksnprintf(buf, n, "tmpfs inode %llu (memfd or file), nlink %u", (unsigned long long)inode->ino,
		 READ_ONCE(inode->nlink));
}

static const struct vm_object_ops inode_object_ops = {
	.release = inode_release, .charge = inode_charge, .describe = inode_describe,
};

/*
 * The last user gone (no name, no open file, no mapping), the pages go now,
 * as Linux's shmem_evict_inode truncates them: not when a transient holder
 * of the object (reclaim's clock, which keeps it a whole turn) lets go.
 */
void iput(struct inode *i)
{
	if (__atomic_sub_fetch(&i->users, 1, __ATOMIC_ACQ_REL))
		return;
	vm_object_evict(&i->data);
	vm_object_put(&i->data);
}

struct inode *inode_alloc(uint32_t mode, uint64_t rdev, const struct inode_special *special)
{
	struct inode *inode = kzalloc(sizeof(*inode));

	if (!inode)
		return NULL;
	vm_object_init(&inode->data, &inode_object_ops, 0);
	inode->users = 1;
	inode->ino = __atomic_add_fetch(&next_ino, 1, __ATOMIC_RELAXED);
	inode->mode = mode;
	inode->nlink = S_ISDIR(mode) ? 2 : 1;
	inode->rdev = rdev;
	inode->special = special;
	inode->charged = true;
	fs_now(&inode->mtime);
	inode->atime = inode->ctime = inode->btime = inode->mtime;
	__atomic_add_fetch(&inodes_alive, 1, __ATOMIC_RELAXED);
	return inode;
}
