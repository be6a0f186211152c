/*
 * Open files (include/file.h): allocation and reference counting, the stat
 * of an open file, poll readiness and its wait queue, and the memory files
 * (/proc text made at open, read at the file's offset).
 */
#include "file.h"
#include "task.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "uaccess.h"
#include "wait.h"

struct file *file_alloc(const struct file_ops *ops, unsigned flags)
{
	static uint64_t serials;
	struct file *f = kzalloc(sizeof(*f));

	if (!f)
		return NULL;
	f->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
	f->refs = 1;
	f->ops = ops;
	f->flags = flags;
	return f;
}

/* The reference count is atomic: processes on other CPUs share the file since fork. */
void file_get_ref(struct file *f)
{
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
}

void file_put(struct file *f)
{
	if (!f || __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	if (f->ops->release)
		f->ops->release(f);
	file_locks_release(f);
	if (f->dentry)
		dput(f->dentry);
	kfree(f->owned);
	kfree(f);
}

struct wait_queue file_io_wait = WAIT_QUEUE_INIT(file_io_wait);

unsigned long file_io_events;           /* [atomic] */

void file_io_event(void)
{
	__atomic_add_fetch(&file_io_events, 1, __ATOMIC_RELEASE);
	wake_up(&file_io_wait);
}

unsigned file_poll(struct file *f)
{
	return f->ops->poll ? f->ops->poll(f) : POLLIN | POLLOUT;
}

void file_stat(struct file *f, struct kstat *st)
{
	memset(st, 0, sizeof(*st));
	st->nlink = 1;
	st->blksize = 4096;
	st->ino = f->ino;
	st->mode = S_IFCHR | 0620;
	if (f->dentry)
		dentry_stat(f->dentry, st);
	if (f->ops->stat)
		f->ops->stat(f, st);
}

/* Memory files: read from data at *pos. */
static long mem_read(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	if (*pos >= f->size)
		return 0;
	n = MIN(n, f->size - *pos);
	if (copy_to_user((void *)ubuf, f->data + *pos, n))
		return -EFAULT;
	*pos += n;
	return (long)n;
}

static long mem_write(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	return -EBADF;                  /* opened read-only */
}

/* Linux's /proc files have size 0, whatever they hold. */
static void mem_stat(struct file *f, struct kstat *st)
{
	st->size = 0;
	st->blocks = 0;
}

const struct file_ops mem_file_ops = {
	.read = mem_read, .write = mem_write, .stat = mem_stat, .seekable = true,
};
