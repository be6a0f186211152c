/*
 * File data (include/fs.h): read and write a regular file through its page
 * cache, page by page, and set its size. Linux's shmem_file_read_iter and
 * generic_perform_write over shmem, without the inode lock: each page is
 * looked up (or allocated) with a reference, copied with no lock held (the
 * copy may fault on a user buffer that maps this very file), then
 * released; a write grows the size to what it wrote. A page in swap is
 * read back by the lookup; short of memory, the lookup reclaims first.
 *
 * Locking: the page cache's own; times under fs_lock.
 */
#include "fs_internal.h"
#include "lockless.h"
#include "pmm.h"
#include "lru.h"
#include "kerrno.h"

/* What a hole reads as. */
static const char zero_page_data[PAGE_SIZE];

uint64_t fs_size(struct inode *inode)
{
	return vm_object_size(&inode->data);
}

/* Mark inode modified now (mtime and ctime). */
static void fs_touch(struct inode *inode)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);

	fs_now(&inode->mtime);
	inode->ctime = inode->mtime;
	spin_unlock_irqrestore(&fs_lock, fl);
}

void fs_chmod(struct inode *inode, uint32_t mode)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);

	inode->mode = (inode->mode & S_IFMT) | (mode & 07777);
	fs_now(&inode->ctime);
	spin_unlock_irqrestore(&fs_lock, fl);
}

void fs_set_times(struct inode *inode, const struct fs_time *atime, const struct fs_time *mtime)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);

	if (atime)
		inode->atime = *atime;
	if (mtime)
		inode->mtime = *mtime;
	fs_now(&inode->ctime);
	spin_unlock_irqrestore(&fs_lock, fl);
}

void fs_chown(struct inode *inode, uint32_t uid, uint32_t gid)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);

	if (uid != (uint32_t)-1)
		inode->uid = uid;
	if (gid != (uint32_t)-1)
		inode->gid = gid;
	fs_now(&inode->ctime);
	spin_unlock_irqrestore(&fs_lock, fl);
}

/* a is not later than b (read without fs_lock, a field at a time: a torn pair only costs a lock) */
static bool time_not_after(const struct fs_time *a, const struct fs_time *b)
{
	int64_t as = READ_ONCE(a->sec), bs = READ_ONCE(b->sec);

	return as < bs || (as == bs && READ_ONCE(a->nsec) <= READ_ONCE(b->nsec));
}

#define RELATIME_SECONDS (24 * 60 * 60)

/* Linux's relatime_need_update: atime not after mtime or ctime, or a day old. */
static bool atime_needs_update(const struct inode *inode, const struct fs_time *now)
{
	return time_not_after(&inode->atime, &inode->mtime) || time_not_after(&inode->atime, &inode->ctime) ||
	       now->sec - READ_ONCE(inode->atime.sec) >= RELATIME_SECONDS;
}

void fs_accessed(struct inode *inode)
{
	struct fs_time now;
	unsigned long fl;

	fs_now(&now);
	if (!atime_needs_update(inode, &now))
		return;                 /* the common case: no lock taken */
	fl = spin_lock_irqsave(&fs_lock);
	if (atime_needs_update(inode, &now))
		inode->atime = now;
	spin_unlock_irqrestore(&fs_lock, fl);
}

long fs_read(struct inode *inode, uint64_t pos, size_t n, fs_copy_fn copy, void *arg)
{
	uint64_t size = fs_size(inode);
	size_t done = 0;

	if (pos >= size)
		return 0;
	n = (size_t)MIN((uint64_t)n, size - pos);
	while (done < n) {
		size_t off = (pos + done) & (PAGE_SIZE - 1), chunk = MIN(n - done, PAGE_SIZE - off), left;
		struct page *p;
		int err = vm_object_page(&inode->data, (pos + done) >> PAGE_SHIFT, VMO_RECLAIM, &p);

		if (err == -ENXIO)
			break;          /* truncated meanwhile */
		if (err)
			return done ? (long)done : err;   /* a page in swap not read back: -EIO, -ENOMEM */
		if (p && !off)
			lru_mark_accessed(p);   /* a read from the page's start (shmem_file_read_iter's rule) */
		left = copy(arg, done, p ? (char *)page_address(p) + off : (void *)(zero_page_data + off),
			    chunk);
		if (p)
			vm_object_page_put(p);
		done += chunk - left;
		if (left)
			return done ? (long)done : -EFAULT;
	}
	return (long)done;
}

/* One page's part of a write: *copied bytes went in. 0, or the error that stopped it. */
static int write_page(struct inode *inode, uint64_t pos, size_t chunk, size_t done,
		      fs_copy_fn copy, void *arg, size_t *copied)
{
	struct page *p;
	size_t left;
	int err = vm_object_page(&inode->data, pos >> PAGE_SHIFT, VMO_ALLOC | VMO_PAST_EOF | VMO_RECLAIM, &p);

	*copied = 0;
	if (err)
		return err == -ENOMEM ? -ENOSPC : err;
	lru_mark_accessed(p);                   /* every write (shmem_get_folio's SGP_WRITE) */
	left = copy(arg, done, (char *)page_address(p) + (pos & (PAGE_SIZE - 1)), chunk);
	vm_object_page_dirty(p);
	vm_object_page_put(p);
	*copied = chunk - left;
	if (*copied)
		vm_object_set_size(&inode->data, pos + *copied);
	return left ? -EFAULT : 0;
}

long fs_write(struct inode *inode, uint64_t pos, size_t n, fs_copy_fn copy, void *arg)
{
	size_t done = 0;
	int err = 0;

	if (!n)
		return 0;
	if (pos >= FS_MAX_FILE_SIZE)
		return -EFBIG;                  /* generic_write_check_limits */
	if (n > FS_MAX_FILE_SIZE - pos)
		n = (size_t)(FS_MAX_FILE_SIZE - pos);
	while (done < n && !err) {
		uint64_t at = pos + done;
		size_t chunk = MIN(n - done, PAGE_SIZE - (size_t)(at & (PAGE_SIZE - 1))), copied;

		err = write_page(inode, at, chunk, done, copy, arg, &copied);
		done += copied;
	}
	if (done)
		fs_touch(inode);
	return done ? (long)done : err;
}

int fs_truncate(struct inode *inode, uint64_t size)
{
	if (size > FS_MAX_FILE_SIZE)
		return -EFBIG;
	vm_object_truncate(&inode->data, size);
	fs_touch(inode);
	return 0;
}
