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
 */
#include "internal.h"
#include "task.h"
#include "pipe.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"

/* The file behind the link's number in the caller's own process, or NULL. */
static struct file *link_file(const struct dentry *link)
{
	long fd = proc_number(link->name, link->len);

	if (fd < 0 || proc_pid_of(link) != current->pid)
		return NULL;
	return fd_get((uint64_t)fd);
}

static uint32_t link_mode(const struct file *f)
{
	switch (f->flags & O_ACCMODE) {
	case O_RDONLY: return S_IFLNK | 0500;
	case O_WRONLY: return S_IFLNK | 0300;
	default:       return S_IFLNK | 0700;
	}
}

static struct dentry *fd_follow(struct dentry *link)
{
	struct file *f = link_file(link);

	if (!f)
		return NULL;
	return f->dentry ? f->dentry : link;
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
		if (err)
			return err;
	} else {
		file_get_ref(f);
		*out = f;
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
}

/* Still open, with the access mode the entry was made for. */
static bool fd_revalidate(struct dentry *link)
{
	struct file *f = link_file(link);

	return f && link_mode(f) == link->inode->mode;
}

static const struct kspecial proc_fd_link = {
	.base = { .follow = fd_follow, .revalidate = fd_revalidate },
	.open = fd_open, .readlink = fd_readlink, .stat_target = fd_stat_target, .dev = PROC_DEV,
};

static const struct inode_special *fd_lookup(struct dentry *dir, const char *name, size_t len,
					     uint32_t *mode)
{
	long fd = proc_number(name, len);
	struct file *f;

	if (fd < 0 || proc_pid_of(dir) != current->pid)
		return NULL;
	f = fd_get((uint64_t)fd);
	if (!f)
		return NULL;
	*mode = link_mode(f);
	return &proc_fd_link.base;
}

static void fd_readdir(struct dentry *dir, uint64_t *pos, fs_emit_fn emit, void *arg)
{
	struct fdtable *t = current->fdt;

	if (!proc_dots(dir, pos, emit, arg) || proc_pid_of(dir) != current->pid || !t)
		return;
	for (; *pos - 2 < t->size; (*pos)++) {
		unsigned fd = (unsigned)(*pos - 2);
		char name[16];
		int n;

		if (!t->fd[fd])
			continue;
		n = ksnprintf(name, sizeof(name), "%u", fd);
		if (!emit(arg, name, (size_t)n, dir->inode->ino * 4096 + fd, DT_LNK, *pos + 1))
			return;
	}
}

const struct kspecial proc_fd_dir = {
	.base = { .lookup = fd_lookup }, .readdir = fd_readdir, .dev = PROC_DEV,
};
