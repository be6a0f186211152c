/*
 * The file system: one tmpfs-like tree in memory, the way Linux's rootfs
 * is a tmpfs filled from the initramfs. Regular files keep their bytes in
 * page-cache pages (include/vm_object.h), so read(), write() and every
 * mapping of a file see the same pages. Directories, symbolic links and
 * special inodes (devices and /proc entries, whose meaning the kernel
 * gives them) complete it. Code: fs/ (inode.c, dcache.c, namei.c, dir.c,
 * rw.c, cpio.c); it builds in the kernel and on the host (mm/ below it,
 * nothing of the kernel's tasks or system calls).
 *
 * Names are dentries (Linux's word): a name in a directory, pointing at an
 * inode; a hard link is a second dentry for the same inode. An unlinked
 * dentry leaves its directory but lives on while referenced (an open file,
 * a mapping's file, a cwd): its path then prints with " (deleted)", as
 * Linux's d_path does. Files made by memfd_create are dentries that never
 * had a directory ("/memfd:NAME (deleted)").
 *
 * Limits (docs/abi.md, "Files"): names up to NAME_MAX (255) bytes, paths
 * up to PATH_MAX (4096) bytes with the NUL, 40 symbolic links followed per
 * lookup (ELOOP), files up to 2^63 - 1 bytes; the tmpfs pages (not
 * memfd's) may use half of the memory (fs_set_page_limit), then ENOSPC.
 *
 * Locking: fs_lock, one spinlock for the whole namespace (the dentry tree,
 * names, parents, nlink, modes and times), held only for short walks and
 * changes, never while copying file data or sleeping. Order: mmap_lock
 * (/proc/PID/maps prints paths under it) -> fs_lock -> object lock (a
 * last dput frees an inode's pages) -> pmm/slab; never with pt_lock (class
 * FS of include/lock_order.h, checked by lockdep). File
 * data is the page cache's (its own lock; see vm_object.h). Reference
 * counts are atomic. Concurrent writes to one file are not serialized
 * against each other (Linux's i_rwsem would), so they may interleave page
 * by page on several CPUs.
 */
#ifndef FS_H
#define FS_H

#include "vm_object.h"
#include "list.h"

/* The Linux values; guarded, as a host program may have them from its libc already. */
#ifndef NAME_MAX
#define NAME_MAX    255
#endif
#ifndef PATH_MAX
#define PATH_MAX    4096
#endif
#define MAXSYMLINKS 40
#define FS_MAX_FILE_SIZE 0x7fffffffffffffffULL   /* MAX_LFS_FILESIZE */

/* File types and permission bits (Linux's st_mode). */
#ifndef S_IFMT
#define S_IFMT   0170000
#define S_IFSOCK 0140000
#define S_IFLNK  0120000
#define S_IFREG  0100000
#define S_IFDIR  0040000
#define S_IFCHR  0020000
#define S_IFIFO  0010000
#endif
#ifndef S_ISDIR
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#endif

/* getdents64's d_type values. */
#ifndef DT_CHR
#define DT_CHR 2
#define DT_DIR 4
#define DT_REG 8
#define DT_LNK 10
#endif

struct inode;
struct dentry;

struct fs_time {
	int64_t sec;
	long nsec;
};

/*
 * What the kernel makes of a special inode (a device, a /proc file): fs
 * keeps the pointer and calls follow, lookup and revalidate, the rest is
 * the kernel's. A special inode of type S_IFLNK with follow is a "magic
 * link" (/proc/self/exe): lookups go where follow says, not by a stored
 * text. A directory with lookup is a dynamic directory (/proc,
 * /proc/PID/fd): its entries are made as they are looked up and kept
 * while revalidate says they still exist (Linux's proc dcache); nothing
 * can be created, removed or renamed in it (open O_CREAT: -EACCES,
 * mkdir, unlink, rename...: -EPERM); the kernel lists it (fs_readdir
 * lists only what is cached).
 */
struct inode_special {
	int kind;                                /* the kernel's own code */
	/*
	 * magic links, called with fs_lock held: the dentry the link leads
	 * to now; link itself when it leads to something without a name (a
	 * pipe: the walk ends at the link, which the kernel opens); NULL:
	 * -ENOENT. No reference is taken: its holder (the task, the
	 * directory that caches it) keeps it alive while the caller, under
	 * fs_lock, uses it. Must not take fs_lock (fs_dyn_lookup_locked may
	 * be called).
	 */
	struct dentry *(*follow)(struct dentry *link);
	/*
	 * dynamic directories, fs_lock held: the special and mode (into
	 * *mode) of dir's entry name (len bytes), or NULL: no such entry.
	 */
	const struct inode_special *(*lookup)(struct dentry *dir, const char *name, size_t len,
					      uint32_t *mode);
	/* entries of dynamic directories, fs_lock held: does d still exist? (NULL: always) */
	bool (*revalidate)(struct dentry *d);
};

struct inode {
	struct vm_object data;           /* regular files: their pages and size; every
	                                  * inode: when its memory goes (data.refcount: the
	                                  * users' one reference plus transient holders,
	                                  * as reclaim's clock) */
	int users;                       /* [atomic] iget/iput holders (dentries, a rename) */
	uint64_t ino;                    /* [init] */
	uint32_t mode;                   /* [fs_lock] type and permission bits */
	uint32_t nlink;                  /* [fs_lock] names; directories: 2 + subdirectories */
	uint64_t rdev;                   /* [init] devices: major << 8 | minor */
	char *link;                      /* [init] symbolic links: the target text */
	const struct inode_special *special; /* [init] NULL for plain files, directories, links */
	struct fs_time atime, mtime, ctime;  /* [fs_lock] */
	struct fs_time btime;            /* [init] birth time (statx's stx_btime) */
	uint32_t uid, gid;               /* [fs_lock] owner (chown); 0 unless changed */
	bool charged;                    /* [init] its pages count against the tmpfs limit */
};

struct dentry {
	char *name;                      /* [fs_lock] the name in its directory */
	size_t len;                      /* [fs_lock] strlen(name) */
	struct dentry *parent;           /* [fs_lock] a reference; NULL: the root, or never linked */
	struct inode *inode;             /* [init] a reference */
	struct list_head child;          /* [fs_lock] link in parent->children, in seq order */
	struct list_head children;       /* [fs_lock] directories: their entries */
	uint64_t seq;                    /* [fs_lock] position in the directory (getdents64) */
	uint64_t next_seq;               /* [fs_lock] directories: seq of the next entry */
	int refcount;                    /* [atomic] holders; a linked dentry has one from its directory */
	bool unlinked;                   /* [fs_lock] removed from its directory, or never in one */
};

/* ---------------------------------------------------------------- setup */

/* fs_init: the empty root directory (mode 0755). 0 or -ENOMEM. Once. */
int fs_init(void);
/* fs_root: the root directory (no reference taken; it is never freed). */
struct dentry *fs_root(void);
/* fs_set_page_limit: at most pages tmpfs pages (0: no limit). fs_pages_used: how many now. */
void fs_set_page_limit(unsigned long pages);
unsigned long fs_pages_used(void);
/* fs_set_clock: where file times come from (the host build leaves them 0). */
void fs_set_clock(void (*now)(struct fs_time *t));
/* fs_now: the time file times take now (0 without a clock). */
void fs_now(struct fs_time *t);
/* Inodes and dentries alive now (leak checks). */
size_t fs_inodes_inuse(void);
size_t fs_dentries_inuse(void);

/* ------------------------------------------------------ references */

void dget(struct dentry *d);
void dput(struct dentry *d);
/* iget / iput: one more / one less user; the last user's put frees the pages at once (iput). */
static inline void iget(struct inode *i) { __atomic_add_fetch(&i->users, 1, __ATOMIC_RELAXED); }
void iput(struct inode *i);

/* ----------------------------------------------------------- lookups */

#define LOOKUP_FOLLOW    0x1     /* follow a symbolic link in the last component */
#define LOOKUP_DIRECTORY 0x2     /* the result must be a directory (as a trailing '/') */

/*
 * fs_lookup: the dentry path names (Linux path_lookupat), starting at
 * base for a relative path (the root for an absolute one). Intermediate
 * symbolic links are always followed, the last one with LOOKUP_FOLLOW (or
 * a trailing '/'). 0 and *out with a reference; -ENOENT (a component
 * missing, or path empty), -ENOTDIR (a component used as a directory is
 * not one), -ENAMETOOLONG (a component over NAME_MAX), -ELOOP (more than
 * MAXSYMLINKS links).
 */
int fs_lookup(struct dentry *base, const char *path, unsigned flags, struct dentry **out);

enum last_type { LAST_NORM, LAST_ROOT, LAST_DOT, LAST_DOTDOT };

/* The parent directory of a path and its last component (fs_lookup_parent). */
struct fs_last {
	struct dentry *dir;              /* a reference (fs_last_done drops it) */
	enum last_type type;             /* LAST_ROOT: the path is "/" (no last component) */
	char name[NAME_MAX + 1];         /* LAST_NORM: the component, NUL-terminated */
	size_t len;
	bool slash;                      /* the path ended in '/' */
};

/*
 * fs_lookup_parent: the directory holding path's last component (which
 * need not exist), as create, mkdir, unlink, rmdir, rename want it. 0 and
 * *last; the errors of fs_lookup for the leading components.
 */
int fs_lookup_parent(struct dentry *base, const char *path, struct fs_last *last);
void fs_last_done(struct fs_last *last);
/* fs_lookup_child: dir's entry name (len bytes), with a reference, or NULL (dynamic ones made). */
/*
 * fs_dyn_lookup_locked: dir's entry name with fs_lock held (for a follow
 * hook): cached, or made by a dynamic directory's lookup; a stale one
 * (revalidate) is dropped first. 0 and *out (no reference: the directory
 * keeps it), -ENOENT, -ENOMEM.
 */
int fs_dyn_lookup_locked(struct dentry *dir, const char *name, size_t len, struct dentry **out);
/*
 * fs_dyn_forget: drop dir's cached entry name (and what it cached below
 * it) if revalidate says it no longer exists (a reaped process's /proc/PID):
 * what was cached for a process does not outlive it.
 */
void fs_dyn_forget(struct dentry *dir, const char *name, size_t len);
/*
 * fs_dyn_shrink: drop every entry cached below the dynamic directory dir
 * that nobody holds (only its directory's reference), as Linux's
 * drop_caches does with unused dentries: they are made again when looked
 * up. So that a count of free frames does not depend on which /proc names
 * were looked up before (vmk_check).
 */
void fs_dyn_shrink(struct dentry *dir);
struct dentry *fs_lookup_child(struct dentry *dir, const char *name, size_t len);
/*
 * fs_path: d's absolute path into buf (size bytes, NUL-terminated, cut
 * when too long), with " (deleted)" once it is unlinked; a dentry never
 * linked is "/NAME (deleted)". Returns the length it needs.
 */
size_t fs_path(struct dentry *d, char *buf, size_t size);

/* ---------------------------------------------------- changing names */

/*
 * fs_create: a new inode of mode (S_IFREG, S_IFCHR with rdev, ... ; never
 * a directory) named name in dir. special: what the kernel makes of it.
 * 0 and *out (a reference; out may be NULL); -EEXIST; -ENOENT dir was
 * removed; -ENOMEM.
 */
int fs_create(struct dentry *dir, const char *name, size_t len, uint32_t mode, uint64_t rdev,
	      const struct inode_special *special, struct dentry **out);
/* fs_mkdir: a new directory; as fs_create (dir's nlink + 1). */
int fs_mkdir(struct dentry *dir, const char *name, size_t len, uint32_t mode, struct dentry **out);
/* fs_mkdir_special: a new directory whose special says what it is (a dynamic directory: /proc). */
int fs_mkdir_special(struct dentry *dir, const char *name, size_t len, uint32_t mode,
		     const struct inode_special *special, struct dentry **out);
/* fs_symlink: a symbolic link to target (not empty); as fs_create. */
int fs_symlink(struct dentry *dir, const char *name, size_t len, const char *target, struct dentry **out);
/* fs_link: a second name for old's inode (not a directory: -EPERM); -EEXIST, -ENOENT. */
int fs_link(struct dentry *old, struct dentry *dir, const char *name, size_t len);
/* fs_unlink: remove a name that is not a directory. 0, -ENOENT, -EISDIR. */
int fs_unlink(struct dentry *dir, const char *name, size_t len);
/* fs_rmdir: remove an empty directory. 0, -ENOENT, -ENOTDIR, -ENOTEMPTY. */
int fs_rmdir(struct dentry *dir, const char *name, size_t len);

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif

/*
 * fs_rename: Linux's rename(2) of odir/oname to ndir/nname, replacing a
 * target of the same kind (an empty directory for a directory). 0;
 * -ENOENT; -EEXIST (RENAME_NOREPLACE); -EISDIR (a file onto a directory);
 * -ENOTDIR (a directory onto a file, or a trailing '/' on a file: slash);
 * -ENOTEMPTY; -EINVAL (a directory into itself or below).
 */
int fs_rename(struct dentry *odir, const char *oname, size_t olen, struct dentry *ndir,
	      const char *nname, size_t nlen, unsigned flags, bool slash);
/*
 * fs_create_unlinked: a regular file that is in no directory (memfd_create:
 * name "memfd:NAME"), mode mode, not charged against the tmpfs limit.
 * A reference, or NULL on -ENOMEM.
 */
struct dentry *fs_create_unlinked(const char *name, uint32_t mode);

/*
 * fs_readdir: dir's entries from position *pos (0 ".", 1 "..", then the
 * names in the order they were made), each through emit(arg, name, len,
 * ino, d_type, next position), until emit returns false (no room: that
 * entry is not consumed) or the end. *pos moves past what was consumed.
 * Entries removed meanwhile are skipped, none is seen twice.
 */
typedef bool (*fs_emit_fn)(void *arg, const char *name, size_t len, uint64_t ino, unsigned type,
			   uint64_t next);
void fs_readdir(struct dentry *dir, uint64_t *pos, fs_emit_fn emit, void *arg);

/* ------------------------------------------------------------ file data */

/*
 * How file data meets its reader or writer: copy n bytes between the page
 * at kaddr and the caller's buffer at offset done (read: from kaddr; write:
 * into kaddr). Returns the bytes it could not copy (0: all).
 */
typedef size_t (*fs_copy_fn)(void *arg, size_t done, void *kaddr, size_t n);

/*
 * fs_read: up to n bytes of the regular file at pos (holes read as zero),
 * stopping at the end. Bytes read (0 at or past the end), or -EFAULT when
 * the first copy failed entirely.
 */
long fs_read(struct inode *inode, uint64_t pos, size_t n, fs_copy_fn copy, void *arg);
/*
 * fs_write: n bytes at pos, growing the file as needed. Bytes written
 * (fewer when a copy faults or memory runs out part-way), or -EFAULT,
 * -ENOSPC (no memory, or over the tmpfs limit), -EFBIG (past the largest
 * file size) when none were.
 */
long fs_write(struct inode *inode, uint64_t pos, size_t n, fs_copy_fn copy, void *arg);
/* fs_truncate: set a regular file's size (vm_object_truncate). 0, -EFBIG. */
int fs_truncate(struct inode *inode, uint64_t size);
/* fs_chmod: the permission bits of inode become mode (& 07777); ctime now. */
void fs_chmod(struct inode *inode, uint32_t mode);
/* fs_size: a regular file's size. */
uint64_t fs_size(struct inode *inode);
/*
 * fs_set_times: utimensat's change: atime and mtime become *atime and
 * *mtime (NULL: left as they are); ctime now.
 */
void fs_set_times(struct inode *inode, const struct fs_time *atime, const struct fs_time *mtime);
/* fs_chown: owner uid and gid ((uint32_t)-1: left as they are); ctime now. */
void fs_chown(struct inode *inode, uint32_t uid, uint32_t gid);
/*
 * fs_accessed: a read of inode happened: its atime becomes now when it is
 * not newer than mtime or ctime, or a day old (Linux's default "relatime").
 */
void fs_accessed(struct inode *inode);

/*
 * fs_unpack_cpio: create in dir what an initramfs archive (Linux's "newc"
 * cpio format, data of size bytes) holds: directories, regular files and
 * symbolic links, with their modes (missing parents are made); other
 * kinds are skipped. A name that exists already is replaced, unless both
 * are directories. 0, or -EINVAL (malformed, after what was read before),
 * -ENOSPC/-ENOMEM. u (may be NULL: every byte copied) asks for and counts
 * what happens to file data.
 */
struct cpio_unpack {
	bool keep_pages;        /* in: data lies in reserved frames (a boot module) whose whole,
	                         * page-aligned file pages may become the files' pages in place */
	uint64_t copied;        /* out: file bytes copied */
	unsigned long kept;     /* out: pages taken over in place */
};
int fs_unpack_cpio(struct dentry *dir, const void *data, size_t size, struct cpio_unpack *u);

#endif
