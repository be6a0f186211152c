/*
 * Open files and file descriptors, as Linux's struct file and fd table.
 *
 * A struct file is one open instance (offset, status flags), shared by
 * every fd that dup/fork made from it (reference counted); what it reads
 * and writes is its file_ops:
 *   - memory files (kernel/file.c): a boot module opened by path (its
 *     basename names it, as for execve), /proc/self/maps (a snapshot taken
 *     at open), read-only;
 *   - pipes (kernel/pipe.c);
 *   - the console streams (kernel/console_file.c): init's fds 0, 1, 2.
 * There is no file system: paths name modules, /proc/self/maps, "/" and
 * /dev/null, /dev/stdin, /dev/stdout, /dev/stderr.
 *
 * The fd table (kernel/fdtable.c) follows Linux: the lowest free fd,
 * close-on-exec per fd, up to RLIMIT_NOFILE (FD_LIMIT_SOFT) fds; a fork child gets a
 * copy (same files), execve closes the close-on-exec ones, exit all.
 *
 * Locks: one CPU runs the kernel; files and tables are changed only by
 * the tasks that hold them, in process context. [SMP: needs a lock per
 * table and per file offset.]
 */
#ifndef FILE_H
#define FILE_H

#include "types.h"

struct task;
struct file;
struct kstat;

#include "uapi/linux_fcntl.h"

/* RLIMIT_NOFILE as Linux sets it for init (INR_OPEN_CUR / INR_OPEN_MAX). */
#define FD_LIMIT_SOFT 1024
#define FD_LIMIT_HARD 4096

struct file_ops {
	/* read n bytes to user ubuf at *pos (ignored by streams); bytes, 0 at end, -errno. May sleep. */
	long (*read)(struct file *f, uint64_t ubuf, size_t n);
	/* write n bytes from user ubuf; bytes, -errno (-EPIPE, -EAGAIN, -EBADF). May sleep. */
	long (*write)(struct file *f, uint64_t ubuf, size_t n);
	/* fill st (mode, size, ...); NULL: a character device */
	void (*stat)(struct file *f, struct kstat *st);
	/* the last reference went away */
	void (*release)(struct file *f);
	/* readiness now: POLLIN, POLLOUT, POLLHUP, POLLERR (NULL: always readable and writable) */
	unsigned (*poll)(struct file *f);
	bool seekable;                  /* lseek works (memory files), else -ESPIPE */
};

struct file {
	int refs;                       /* fds pointing at it, in all tasks */
	const struct file_ops *ops;
	unsigned flags;                 /* O_ACCMODE | O_APPEND | O_NONBLOCK | O_LARGEFILE (F_GETFL) */
	uint64_t pos;                   /* shared offset (memory files) */
	const char *data;               /* memory files: contents */
	size_t size;
	char *owned;                    /* memory files: kmalloc'd contents to free, or NULL */
	void *priv;                     /* pipes: struct pipe; consoles: the stream */
	uint64_t ino;                   /* st_ino */
};

/* What the stat family reports (kernel/sys_stat.c turns it into Linux's layouts). */
struct kstat {
	uint64_t dev, ino, rdev, size, blocks;
	uint32_t mode, nlink, blksize;
};

/* file_alloc: a new file with one reference. NULL on -ENOMEM. */
struct file *file_alloc(const struct file_ops *ops, unsigned flags);
/* file_get_ref / file_put: take and drop a reference; the last put releases the file. */
void file_get_ref(struct file *f);
void file_put(struct file *f);

/*
 * file_open_path: open path (flags as open(2)) for current; the file, or
 * an ERR value: -ENOENT, -EACCES (write access to a read-only file),
 * -EISDIR, -ENOTDIR, -ENOMEM.
 */
long file_open_path(const char *path, int flags, struct file **out);
/* file_stat_path: stat of path without opening it. 0, -ENOENT, -ENOTDIR. */
int file_stat_path(const char *path, struct kstat *st);
/* file_getdents64: directory entries of f (the root: ".", "..", the modules) as linux_dirent64. Bytes, 0 at the end, -ENOTDIR, -EINVAL (too small), -EFAULT. */
long file_getdents64(struct file *f, uint64_t ubuf, size_t size);
/* file_stat: stat of an open file. */
void file_stat(struct file *f, struct kstat *st);

/* poll(2) bits (Linux values). */
#define POLLIN   0x001
#define POLLPRI  0x002
#define POLLOUT  0x004
#define POLLERR  0x008
#define POLLHUP  0x010
#define POLLNVAL 0x020

/* file_poll: f's readiness (file_ops.poll, or POLLIN | POLLOUT). */
unsigned file_poll(struct file *f);
/*
 * file_io_wait: the wait queue poll and select sleep on; file_io_event
 * wakes it: every file whose readiness can change (pipes, the console)
 * calls it when it may have.
 */
extern struct wait_queue file_io_wait;
void file_io_event(void);

/* maps_format: write t's /proc/self/maps text into buf (size bytes); returns the length it needs. */
size_t maps_format(struct task *t, char *buf, size_t size);

/* The fd table (kernel/fdtable.c). */
struct fdtable {
	int refs;                       /* tasks sharing it (CLONE_FILES); 1 for now */
	unsigned size;                  /* slots allocated (grows up to FD_LIMIT_SOFT) */
	struct file **fd;               /* size slots */
	uint64_t *cloexec;              /* size bits */
};

/* fdtable_new: an empty table; NULL on -ENOMEM. */
struct fdtable *fdtable_new(void);
/* fdtable_dup: a copy of t's table (fork): the same files, one more reference each. NULL on -ENOMEM. */
struct fdtable *fdtable_dup(struct fdtable *t);
/* fdtable_put: drop a table reference; the last one closes every fd. */
void fdtable_put(struct fdtable *t);
/* fdtable_exec: close the close-on-exec fds of t. */
void fdtable_exec(struct fdtable *t);

/* fd_install_lowest: put f at the lowest free fd >= min of current (f's reference moves in). fd, -EMFILE, -ENOMEM. */
int fd_install_lowest(struct file *f, int min, bool cloexec);
/* fd_install_in: the same in table t, without close-on-exec. */
int fd_install_in(struct fdtable *t, struct file *f, int min);
/* fd_get: the file behind fd of current (no new reference), or NULL. */
struct file *fd_get(uint64_t fd);
/* fd_close: close fd of current. 0 or -EBADF. */
int fd_close(uint64_t fd);
/* fd_dup_to: make newfd (closed first if open) refer to oldfd's file. newfd, -EBADF, -ENOMEM. */
int fd_dup_to(uint64_t oldfd, uint64_t newfd, bool cloexec);
/* fd_cloexec / fd_set_cloexec: the FD_CLOEXEC flag of an open fd. */
bool fd_cloexec(uint64_t fd);
void fd_set_cloexec(uint64_t fd, bool on);

#endif
