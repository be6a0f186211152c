/*
 * /proc/PID/fd (Linux's fs/proc/fd.c): one magic link per open file
 * descriptor, named by its number, lr-x------, l-wx------ or lrwx------
 * by the descriptor's access mode; /dev/fd leads here (fs/devices.c).
 *
 *   readlink   the file's path (" (deleted)" once removed), or for a
 *              file without a name what its file_ops.dname says:
 *              "pipe:[INO]", "/dev/console" (our console streams)
 *   follow     the file's name, so open, stat and execve reach the file
 *              itself (opening it again: a new open file with its own
 *              offset, as on Linux); a file without a name ends the walk
 *              at the link, and opening that opens the pipe again
 *              (pipe_reopen: a new end of the mode asked for, which is
 *              how bash's <(...) and >(...) reach their pipes) or, for a
 *              console stream, shares the open file (dup)
 *
 * Only the caller's own process shows its descriptors: another process's
 * fd directory is empty here (Linux shows it to root). An entry lasts
 * while the descriptor is open with the same access mode.
 *
 * follow, lookup and revalidate run under fs_lock, where dropping a file
 * reference is not allowed (the last one may take fs_lock again): they
 * look at the file under the fd table's lock (fd_peek); the others hold a
 * reference (fget) while they use it, as another thread may close the fd.
 */
#include "internal.h"
#include "task.h"
#include "pipe.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"

/* The fd a name of the caller's own fd directory (dir: the fd directory) stands for, or -1. */
static long name_fd(const struct dentry *dir, const char *name, size_t len)
{
	long fd = proc_number(name, len);

	return fd < 0 || proc_pid_of(dir) != current->pid ? -1 : fd;
}

/* The fd the link stands for in the caller's own process, or -1. */
static long link_fd(const struct dentry *link)
{
	return name_fd(link, link->name, link->len);
}

/* The file behind the link's number in the caller's own process (a reference), or NULL. */
static struct file *link_file(const struct dentry *link)
{
	long fd = link_fd(link);

	return fd < 0 ? NULL : fget((uint64_t)fd);
}

static uint32_t link_mode(const struct file *f)
{
	switch (f->flags & O_ACCMODE) {
	case O_RDONLY: return S_IFLNK | 0500;
	case O_WRONLY: return S_IFLNK | 0300;
	default:       return S_IFLNK | 0700;
	}
}

/* fd_peek's callbacks: the link's mode; the file's name (the link itself for a file without one). */
static long peek_mode(struct file *f, void *arg)
{
	(void)arg;
	return link_mode(f);
}

static long peek_dentry(struct file *f, void *arg)
{
	*(struct dentry **)arg = f->dentry ? f->dentry : *(struct dentry **)arg;
	return 0;
}

/* fs_lock held. (A close in another thread meanwhile may drop the last reference to an unlinked file's name.) */
static struct dentry *fd_follow(struct dentry *link)
{
	struct dentry *to = link;
	long fd = link_fd(link);

	if (fd < 0 || fd_peek((uint64_t)fd, peek_dentry, &to))
		return NULL;
	return to;
}

static long fd_readlink(struct dentry *link, char *buf, size_t size)
{
	struct file *f = link_file(link);
	size_t n;

	if (!f)
		return -ENOENT;
	if (f->dentry)
		n = fs_path(f->dentry, buf, size);
	else if (f->ops->dname)
		n = f->ops->dname(f, buf, size);
	else
		n = (size_t)ksnprintf(buf, size, "anon_inode:[%llu]", (unsigned long long)f->ino);
	file_put(f);
	return (long)MIN(n, size - 1);
}

/* Opening a link that led to itself: a file without a name. */
static long fd_open(struct dentry *link, int flags, struct file **out)
{
	struct file *f = link_file(link);
	long err;

	if (!f)
		return -ENOENT;
	if (file_is_pipe(f)) {
		err = pipe_reopen(f, flags, out);
		file_put(f);
		if (err)
			return err;
	} else {
		*out = f;               /* the reference moves to the caller */
	}
	dput(link);                     /* the file does not keep the name */
	return 0;
}

static void fd_stat_target(struct dentry *link, struct kstat *st)
{
	struct file *f = link_file(link);

	if (f)
		file_stat(f, st);
	else
		dentry_stat(link, st);
	file_put(f);
}

/* Still open, with the access mode the entry was made for (fs_lock held). */
static bool fd_revalidate(struct dentry *link)
{
	long fd = link_fd(link);

	return fd >= 0 && fd_peek((uint64_t)fd, peek_mode, NULL) == (long)link->inode->mode;
}

static const struct kspecial proc_fd_link = {
	.base = { .follow = fd_follow, .revalidate = fd_revalidate },
	.open = fd_open, .readlink = fd_readlink, .stat_target = fd_stat_target, .dev = PROC_DEV,
};

static const struct inode_special *fd_lookup(struct dentry *dir, const char *name, size_t len,
					     uint32_t *mode)
{
	long fd = name_fd(dir, name, len), m;

	if (fd < 0 || (m = fd_peek((uint64_t)fd, peek_mode, NULL)) < 0)
		return NULL;
	*mode = (uint32_t)m;
	return &proc_fd_link.base;
}

static void fd_readdir(struct dentry *dir, uint64_t *pos, fs_emit_fn emit, void *arg)
{
	int fd;

	if (!proc_dots(dir, pos, emit, arg) || proc_pid_of(dir) != current->pid)
		return;
	for (; (fd = fd_next_open(*pos - 2)) >= 0; *pos = (uint64_t)fd + 3) {
		char name[16];
		int n = ksnprintf(name, sizeof(name), "%d", fd);

		if (!emit(arg, name, (size_t)n, dir->inode->ino * 4096 + (unsigned)fd, DT_LNK, (uint64_t)fd + 3))
			return;
	}
}

const struct kspecial proc_fd_dir = {
	.base = { .lookup = fd_lookup }, .readdir = fd_readdir, .dev = PROC_DEV,
};
