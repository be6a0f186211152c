/*
 * Open files and file descriptors, as Linux's struct file and fd table.
 *
 * A struct file is one open instance (offset, status flags), shared by
 * every fd that dup/fork made from it and by every VMA mapping it (one
 * reference count, as Linux's f_count); what it reads and writes is its
 * file_ops:
 *   - files of the file system (include/fs.h; fs/open.c opens them,
 *     fs/fs_file.c reads and writes them): regular files through their
 *     page cache, mappable (vm, include/vm_object.h); directories
 *     (getdents64); the devices of /dev and the files of /proc, whose
 *     special inodes say what they do (fs/devices.c, fs/proc/procfs.c);
 *   - memory files: text made at open (/proc/self/maps, /proc/meminfo);
 *   - pipes (fs/pipe.c);
 *   - the console streams (fs/console_file.c): init's fds 0, 1, 2.
 *
 * The fd table (fs/fdtable.c) follows Linux: the lowest free fd,
 * close-on-exec per fd, up to RLIMIT_NOFILE (FD_LIMIT_SOFT) fds; a fork child gets a
 * copy (same files), execve closes the close-on-exec ones, exit all.
 *
 * Locks: a file's reference count is atomic (forked processes share files,
 * VMAs of several address spaces hold them, and they run on other CPUs); a
 * pipe's ring has a lock of its own (fs/pipe.c); a table is changed
 * only by the task that holds it, in process context. [Threads sharing a
 * table (CLONE_FILES) and a shared file offset still need locks: issue 9's
 * second part.]
 */
#ifndef FILE_H
#define FILE_H

#include "types.h"
#include "fs.h"
#include "spinlock.h"

struct task;
struct file;
struct kstat;
struct mm;

#include "uapi/linux_fcntl.h"

/* RLIMIT_NOFILE as Linux sets it for init (INR_OPEN_CUR / INR_OPEN_MAX). */
#define FD_LIMIT_SOFT 1024
#define FD_LIMIT_HARD 4096

/* *at() calls: the current directory as dirfd, and their flags. */
#define AT_FDCWD            (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR        0x200
#define AT_EACCESS          0x200
#define AT_SYMLINK_FOLLOW   0x400
#define AT_NO_AUTOMOUNT     0x800
#define AT_EMPTY_PATH       0x1000

struct file_ops {
	/* read n bytes to user ubuf at *pos (streams ignore it); bytes, 0 at end, -errno. May sleep. */
	long (*read)(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos);
	/* write n bytes from user ubuf at *pos; bytes, -errno (-EPIPE, -EAGAIN, -EBADF, -ENOSPC). May sleep. */
	long (*write)(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos);
	/* fill st (mode, size, ...); NULL: a character device */
	void (*stat)(struct file *f, struct kstat *st);
	/* the last reference went away */
	void (*release)(struct file *f);
	/* readiness now: POLLIN, POLLOUT, POLLHUP, POLLERR (NULL: always readable and writable) */
	unsigned (*poll)(struct file *f);
	/* a file without a name: what /proc/PID/fd/N reads as ("pipe:[ino]"), into buf; its length */
	size_t (*dname)(struct file *f, char *buf, size_t size);
	bool seekable;                  /* lseek works (memory and regular files), else -ESPIPE */
};

struct file {
	int refs;                       /* [atomic] fds in all tasks, VMAs mapping it, holders */
	uint64_t serial;                /* unique since boot (epoll tells a file from a later one at its address) */
	const struct file_ops *ops;
	unsigned flags;                 /* O_ACCMODE | O_APPEND | O_NONBLOCK | O_LARGEFILE (F_GETFL) */
	uint64_t pos;                   /* shared offset (memory and regular files) */
	const char *data;               /* memory files: contents */
	size_t size;
	char *owned;                    /* memory files: kmalloc'd contents to free, or NULL */
	void *priv;                     /* pipes: struct pipe; consoles: the stream */
	uint64_t ino;                   /* st_ino of files outside the file system */
	struct dentry *dentry;          /* files of the file system: the name opened (a reference) */
	struct vm_file vm;              /* regular files: what mmap maps (vm.obj NULL: not mappable) */
};

/* What the stat family reports (fs/sys_stat.c turns it into Linux's layouts). */
struct kstat {
	uint64_t dev, ino, rdev, size, blocks;
	uint32_t mode, nlink, blksize, uid, gid;
	struct fs_time atime, mtime, ctime, btime;
	bool has_btime;                 /* btime is known (statx's STATX_BTIME) */
};

/* st_dev of the file system's files (Linux shows tmpfs as an anonymous device 0:N). */
#define FS_DEV 0x1

/* The operations of memory files (fs/file.c): data[0, size) read at the offset, read-only, size 0 to stat. */
extern const struct file_ops mem_file_ops;

/* file_alloc: a new file with one reference. NULL on -ENOMEM. */
struct file *file_alloc(const struct file_ops *ops, unsigned flags);
/* file_get_ref / file_put: take and drop a reference; the last put releases the file (file_put(NULL): nothing). */
void file_get_ref(struct file *f);
void file_put(struct file *f);

/*
 * path_from_user: a kmalloc'd copy of the user path (kfree it). 0 and
 * *out; -EFAULT, -ENAMETOOLONG (PATH_MAX with the NUL), -ENOENT (empty;
 * *out is still set then, for AT_EMPTY_PATH), -ENOMEM.
 */
long path_from_user(uint64_t upath, char **out);
/*
 * dirfd_base: where a *at() call's relative path starts: the current
 * directory for AT_FDCWD, else dirfd's directory. A reference; -EBADF
 * (not open), -ENOTDIR (not a directory).
 */
long dirfd_base(int dirfd, struct dentry **out);
/*
 * user_path_lookup: fs_lookup (flags LOOKUP_*) of the user path upath
 * relative to dirfd. 0 and *out (a reference); path_from_user's,
 * dirfd_base's and the lookup's errors.
 */
long user_path_lookup(int dirfd, uint64_t upath, unsigned flags, struct dentry **out);
/* user_lookup_parent: fs_lookup_parent of the user path upath relative to dirfd; the same errors. */
long user_lookup_parent(int dirfd, uint64_t upath, struct fs_last *last);
/*
 * file_open_at: open(2) of path relative to dirfd (fs/open.c): O_CREAT
 * (with mode, less the umask), O_EXCL, O_TRUNC, O_APPEND, O_DIRECTORY,
 * O_NOFOLLOW, O_CLOEXEC (the caller's), the access mode. 0 and *out;
 * Linux's errors: -ENOENT, -ENOTDIR, -EISDIR, -EEXIST, -ELOOP,
 * -ENAMETOOLONG, -EACCES, -EINVAL, -ENOSPC, -ENOMEM, -EBADF (dirfd).
 */
long file_open_at(int dirfd, const char *path, int flags, uint32_t mode, struct file **out);
/* file_open_dentry: open what d names with flags (no creation, no truncation). 0 and *out, or -errno. */
long file_open_dentry(struct dentry *d, int flags, struct file **out);
/* file_from_dentry: a file of the file system with ops for d (a reference moves in). NULL on -ENOMEM. */
struct file *file_from_dentry(struct dentry *d, const struct file_ops *ops, unsigned flags);
/*
 * path_stat_at: stat of path relative to dirfd without opening it;
 * lookup_flags LOOKUP_FOLLOW (stat) or not (lstat). 0, or the lookup's
 * errors.
 */
long path_stat_at(int dirfd, const char *path, unsigned lookup_flags, struct kstat *st);
/* file_getdents64: directory entries of f as linux_dirent64. Bytes, 0 at the end, -ENOTDIR, -EINVAL (too small), -EFAULT. */
long file_getdents64(struct file *f, uint64_t ubuf, size_t size);
/* file_stat: stat of an open file. */
void file_stat(struct file *f, struct kstat *st);
/* inode_stat: stat of what a dentry names (its special kind decides dev). */
void dentry_stat(struct dentry *d, struct kstat *st);
/*
 * file_open_path: an O_PATH file for d (a reference moves in): it names d
 * (fstat, fchdir, a dirfd, *at with AT_EMPTY_PATH) but cannot be read or
 * written (-EBADF). 0 and *out, or -ENOMEM.
 */
long file_open_path(struct dentry *d, int flags, struct file **out);
/* file_is_path: f was opened with O_PATH. */
bool file_is_path(const struct file *f);

/* ---- file locks (fs/locks.c) */

/*
 * file_lock_fcntl: fcntl's F_GETLK, F_SETLK, F_SETLKW and F_OFD_* on f
 * with the struct flock at uarg. 0; -EAGAIN (held by another), -EDEADLK,
 * -EINVAL, -EBADF (lock type against the access mode), -EOVERFLOW,
 * -EFAULT, -ERESTARTSYS.
 */
long file_lock_fcntl(struct file *f, unsigned cmd, uint64_t uarg);
/* file_locks_close: the process whose fd table is fdt closes an fd of f: its POSIX locks on f's file go. */
void file_locks_close(struct file *f, const void *fdt);
/* file_locks_release: f's last reference goes: its OFD and flock locks go. */
void file_locks_release(struct file *f);

/*
 * Special inodes (devices, /proc): the kernel's struct behind
 * inode->special (fs/devices.c, fs/proc/procfs.c).
 */
struct kspecial {
	struct inode_special base;
	const struct file_ops *ops;     /* an open file's operations (NULL: open decides) */
	/* open: make the file for d (NULL: file_from_dentry with ops). 0 and *out, or -errno. */
	long (*open)(struct dentry *d, int flags, struct file **out);
	uint64_t dev;                   /* st_dev */
	/* dynamic directories: list dir from *pos as fs_readdir does (NULL: fs_readdir). No lock held. */
	void (*readdir)(struct dentry *dir, uint64_t *pos, fs_emit_fn emit, void *arg);
	/* magic links: readlink's text into buf (size bytes, NUL-terminated); its length or -errno. */
	long (*readlink)(struct dentry *link, char *buf, size_t size);
	/* magic links that lead to themselves (a pipe's fd): stat of what they lead to. */
	void (*stat_target)(struct dentry *link, struct kstat *st);
};
/* The kernel's special behind an inode, or NULL. */
static inline const struct kspecial *inode_kspecial(const struct inode *i)
{
	return i->special ? container_of(i->special, struct kspecial, base) : NULL;
}
/* rootfs_init (fs/rootfs.c): the file system, /dev, /proc, /tmp, the boot modules unpacked. 0 or -errno. */
int rootfs_init(void);
/* devices_populate: make /dev's entries (fs/devices.c). procfs_mount: make /proc in root (fs/proc/). */
int devices_populate(struct dentry *dev);
int procfs_mount(struct dentry *root);
/* sysfs_mount: make /sys in root, the few Linux sysfs files this kernel has (fs/proc/sysfs.c). */
int sysfs_mount(struct dentry *root);
/* sysfs_shrink: drop what /sys cached that nobody holds (as procfs_shrink). */
void sysfs_shrink(void);
/* procfs_forget: process pid was reaped: drop what /proc cached for it (no lock held). */
void procfs_forget(int pid);
/* procfs_shrink: drop what /proc cached that nobody holds (fs_dyn_shrink; no lock held). */
void procfs_shrink(void);

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
/* file_io_events: how many file_io_event calls so far (epoll's edge-triggered entries, fs/epoll.c). */
extern unsigned long file_io_events;

/* memfd_file: memfd_create's file: a new unlinked file "memfd:NAME" opened O_RDWR. NULL on -ENOMEM. */
struct file *memfd_file(const char *name);

/* The fd table (fs/fdtable.c). */
struct fdtable {
	int refs;                       /* [atomic] tasks sharing it (CLONE_FILES) */
	struct spinlock lock;           /* class FDTABLE: size, fd, cloexec (nothing sleeps under it) */
	unsigned size;                  /* slots allocated (grows up to FD_LIMIT_SOFT) */
	struct file **fd;               /* size slots, each a reference */
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
/* fget: the file behind fd of current with a new reference (the caller's file_put drops it), or NULL. */
struct file *fget(uint64_t fd);
/*
 * fd_peek: fn(file, arg) with fd's file under the table lock (fn must not
 * sleep, nor take a lock before FDTABLE in include/lock_order.h; NULL fn:
 * just whether fd is open): fn's value, or -EBADF when fd is not open.
 * For callers that may not drop a reference where they are (under fs_lock
 * or a spinning lock: the last file_put may sleep).
 */
long fd_peek(uint64_t fd, long (*fn)(struct file *f, void *arg), void *arg);
/* fd_next_open: the lowest open fd >= from of current, or -1. */
int fd_next_open(uint64_t from);
/* fd_close: close fd of current. 0 or -EBADF. */
int fd_close(uint64_t fd);
/* fd_dup_to: make newfd (closed first if open) refer to oldfd's file. newfd, -EBADF, -ENOMEM. */
int fd_dup_to(uint64_t oldfd, uint64_t newfd, bool cloexec);
/* fd_cloexec / fd_set_cloexec: the FD_CLOEXEC flag of an open fd. */
bool fd_cloexec(uint64_t fd);
void fd_set_cloexec(uint64_t fd, bool on);

#endif
