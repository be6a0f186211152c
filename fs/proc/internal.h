/*
 * Private to fs/proc/: how the files of /proc are made. /proc is a
 * dynamic directory of the file system (include/fs.h, struct
 * inode_special): every entry is made when it is looked up, from a table
 * (struct proc_entry) or from a process id, and listed by the kernel's
 * readdir hooks (include/file.h, struct kspecial).
 *
 *   procfs.c    /proc itself: its table, /proc/PID lookup, /proc/self
 *   pid.c       /proc/PID: its table, the cmdline, exe and cwd entries
 *   pid_stat.c  /proc/PID/stat, statm and status text
 *   fd.c        /proc/PID/fd: the fd links, reopening through them
 *   sysinfo.c   /proc/meminfo, vmstat, cpuinfo, stat, uptime, loadavg
 *   maps.c      /proc/PID/maps
 *   smaps.c     /proc/PID/smaps and smaps_rollup
 *   sysctl.c    /proc/sys: the tunables
 *   sysfs.c     /sys: the few files of Linux's sysfs this kernel has (khugepaged's)
 */
#ifndef FS_PROC_INTERNAL_H
#define FS_PROC_INTERNAL_H

#include "file.h"
#include "printk.h"
#include "kernel.h"
#include "mm.h"

#define PROC_DEV 0x16                   /* st_dev of /proc on the reference machine */
#define PROC_USER_HZ 100                /* the clock ticks of /proc's times (AT_CLKTCK) */

/* One name of a table directory: its mode and special. */
struct proc_entry {
	const char *name;
	uint32_t mode;
	const struct kspecial *ks;
};

/*
 * proc_fill_fn: the text of a /proc file of process pid (0 for the files
 * of /proc itself) into buf (size bytes, maybe NULL with 0); returns the
 * length it needs, or -errno (-ESRCH: the process is gone).
 */
typedef long (*proc_fill_fn)(int pid, char *buf, size_t size);
/* proc_open_text: open d read-only as a memory file holding fill's text made now. 0 and *out, -errno. */
long proc_open_text(struct dentry *d, int flags, proc_fill_fn fill, struct file **out);
/* A /proc file whose text fill makes at open: the kspecial var (storage: static or nothing). */
#define PROC_TEXT_FILE(storage, var, fill)                                      \
	static long var##_open(struct dentry *d, int flags, struct file **out)  \
	{                                                                       \
		return proc_open_text(d, flags, fill, out);                     \
	}                                                                       \
	storage const struct kspecial var = { .open = var##_open, .dev = PROC_DEV }
/* PROC_PUT: append to a text being measured (buf NULL) or made; n (a long) grows by its length. */
#define PROC_PUT(n, buf, size, ...)                                             \
	((n) += ksnprintf((buf) ? (buf) + MIN((size_t)(n), (size)) : NULL,      \
			  (size_t)(n) < (size) ? (size) - (size_t)(n) : 0, __VA_ARGS__))

/* proc_table_lookup / proc_table_readdir: a table directory's entries (after "." and ".."). */
const struct inode_special *proc_table_lookup(const struct proc_entry *tab, size_t n, const char *name,
					      size_t len, uint32_t *mode);
/* emits tab[*pos - 2...] into emit; returns false when emit had no room. */
bool proc_table_readdir(struct dentry *dir, const struct proc_entry *tab, size_t n, uint64_t *pos,
			fs_emit_fn emit, void *arg);
/* proc_dots: emit "." and ".." of dir from *pos; false when emit had no room. */
bool proc_dots(struct dentry *dir, uint64_t *pos, fs_emit_fn emit, void *arg);

/* proc_pids: every process id, ascending, in a new array (kfree it), their count in *n; NULL: no memory. */
int *proc_pids(size_t *n);
/* proc_number: the decimal number name (len bytes) is, or -1 (not one, or leading zeros). */
long proc_number(const char *name, size_t len);
/* proc_pid_of: the process id of the /proc/PID directory d is in (or is). */
int proc_pid_of(const struct dentry *d);

/* One numeric tunable: its file and its owner's accessors (/proc/sys, /sys). */
struct sysctl_number {
	struct kspecial ks;
	unsigned long (*get)(void);
	long (*set)(long value);        /* 0, or -EINVAL */
};

/*
 * sysctl_open: a struct sysctl_number's open (its ks.open): for reading,
 * writing or both, the number as it is now, which a write replaces.
 */
long sysctl_open(struct dentry *d, int flags, struct file **out);

/* PROC_TABLE_DIR(storage, var, table): the kspecial var of a directory listing table's entries. */
#define PROC_TABLE_DIR(storage, var, table)                                                              \
	static const struct inode_special *var##_lookup(struct dentry *dir, const char *name,  \
							size_t len, uint32_t *mode)            \
	{                                                                                       \
		return proc_table_lookup(table, ARRAY_SIZE(table), name, len, mode);            \
	}                                                                                       \
	static void var##_readdir(struct dentry *dir, uint64_t *pos, fs_emit_fn emit, void *arg) \
	{                                                                                       \
		if (proc_dots(dir, pos, emit, arg))                                             \
			proc_table_readdir(dir, table, ARRAY_SIZE(table), pos, emit, arg);      \
	}                                                                                       \
	storage const struct kspecial var = {                                                   \
		.base = { .lookup = var##_lookup }, .readdir = var##_readdir, .dev = PROC_DEV,  \
	}

/* the specials of the directories, for the tables */
extern const struct kspecial proc_pid_dir;      /* /proc/PID (pid.c) */
extern const struct kspecial proc_fd_dir;       /* /proc/PID/fd (fd.c) */
extern const struct kspecial proc_sys_dir;      /* /proc/sys (sysctl.c) */
extern const struct kspecial proc_maps, proc_smaps, proc_smaps_rollup;
extern const struct kspecial proc_meminfo, proc_vmstat, proc_cpuinfo, proc_sysstat, proc_uptime,
			     proc_loadavg, proc_kernel_cmdline;

/* the texts of pid_stat.c */
long proc_pid_stat_fill(int pid, char *buf, size_t size);
long proc_pid_statm_fill(int pid, char *buf, size_t size);
long proc_pid_status_fill(int pid, char *buf, size_t size);
/* Linux's seq_pad: a maps line's header is padded to 72 characters, then one space, then the name. */
#define MAPS_PAD_WIDTH 72
#define MAPS_HDR_MAX 96                 /* the fields before the name (at most 79 characters) */
/* proc_maps_line: v's maps line, newline included, into line (room bytes: MAPS_HDR_MAX + a path); its length. */
size_t proc_maps_line(struct mm *mm, const struct vma *v, char *line, size_t room);
/* proc_maps_name: end the n header characters in line with name (padded; NULL: none) and a newline; the length. */
size_t proc_maps_name(char *line, size_t n, const char *name);

#endif
