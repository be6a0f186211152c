/*
 * /proc/PID (Linux's fs/proc/base.c, tgid_base_stuff): a dynamic directory
 * per process, whose entries are the table below; it lasts while the
 * process does (a zombie included), and is pruned at the next lookup of
 * its name once the process has been reaped.
 *
 *   auxv     exec's auxiliary vector, binary (type, value) pairs through
 *            AT_NULL, from the copy exec kept (Linux's saved_auxv)
 *   cmdline  the argv strings, each NUL-terminated, read from the
 *            process's memory (empty for a zombie or a kernel thread)
 *   comm     the program name and a newline
 *   cwd, exe magic links to the working directory and the program (the
 *            caller's own process only: another's are -ENOENT here, where
 *            Linux lets root follow them)
 *   fd       the file descriptors (fd.c)
 *   maps     the memory map (maps.c)
 *   smaps, smaps_rollup  what its pages use (smaps.c)
 *   stat, statm, status   pid_stat.c
 */
#include "internal.h"
#include "task.h"
#include "mm.h"
#include "slab.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"

#define CMDLINE_MAX (64 * 1024)         /* at most this much of the argv strings is shown */

static long cmdline_fill(int pid, char *buf, size_t size)
{
	char comm[TASK_COMM_LEN];
	struct mm *mm = task_get_mm(pid, comm);
	size_t len = 0;
	int err = 0;

	if (mm) {
		len = MIN(mm->arg_end - mm->arg_start, (uintptr_t)CMDLINE_MAX);
		if (buf && size)
			err = mm_copy_from(mm, buf, mm->arg_start, MIN(len, size));
		mm_put(mm);
	}
	return err ? 0 : (long)len;     /* unreadable argv (unmapped by the program): empty, as Linux */
}

/* /proc/PID/auxv: exec's auxiliary vector as it was (Linux's saved_auxv), binary pairs through AT_NULL. */
static long auxv_fill(int pid, char *buf, size_t size)
{
	char comm[TASK_COMM_LEN];
	struct mm *mm = task_get_mm(pid, comm);
	size_t len = 0;

	if (mm) {
		len = mm->saved_auxv_words * sizeof(uint64_t);
		if (buf)
			memcpy(buf, mm->saved_auxv, MIN(len, size));
		mm_put(mm);
	}
	return (long)len;
}

static long comm_fill(int pid, char *buf, size_t size)
{
	struct task_info ti;

	if (task_info_get(pid, &ti))
		return -ESRCH;
	return ksnprintf(buf, size, "%s\n", ti.comm);
}

PROC_TEXT_FILE(static, proc_cmdline, cmdline_fill);
PROC_TEXT_FILE(static, proc_auxv, auxv_fill);
PROC_TEXT_FILE(static, proc_comm, comm_fill);
PROC_TEXT_FILE(static, proc_stat_file, proc_pid_stat_fill);
PROC_TEXT_FILE(static, proc_statm, proc_pid_statm_fill);
PROC_TEXT_FILE(static, proc_status, proc_pid_status_fill);

/* ---- cwd and exe: the caller's own process only (its task holds both) */

static struct dentry *own_dentry(struct dentry *link, bool exe)
{
	if (proc_pid_of(link) != current->pid)
		return NULL;
	return exe ? current->exe : current->cwd;
}

static struct dentry *exe_follow(struct dentry *link)
{
	return own_dentry(link, true);
}

static struct dentry *cwd_follow(struct dentry *link)
{
	return own_dentry(link, false);
}

static long path_readlink(struct dentry *to, char *buf, size_t size)
{
	return to ? (long)MIN(fs_path(to, buf, size), size - 1) : -ENOENT;
}

static long exe_readlink(struct dentry *link, char *buf, size_t size)
{
	return path_readlink(own_dentry(link, true), buf, size);
}

static long cwd_readlink(struct dentry *link, char *buf, size_t size)
{
	return path_readlink(own_dentry(link, false), buf, size);
}

static const struct kspecial proc_exe = {
	.base = { .follow = exe_follow }, .readlink = exe_readlink, .dev = PROC_DEV,
};
static const struct kspecial proc_cwd = {
	.base = { .follow = cwd_follow }, .readlink = cwd_readlink, .dev = PROC_DEV,
};

/* ---- the directory */

static const struct proc_entry pid_table[] = {
	{ .name = "auxv", .mode = S_IFREG | 0400, .ks = &proc_auxv },
	{ .name = "cmdline", .mode = S_IFREG | 0444, .ks = &proc_cmdline },
	{ .name = "comm", .mode = S_IFREG | 0644, .ks = &proc_comm },
	{ .name = "cwd", .mode = S_IFLNK | 0777, .ks = &proc_cwd },
	{ .name = "exe", .mode = S_IFLNK | 0777, .ks = &proc_exe },
	{ .name = "fd", .mode = S_IFDIR | 0500, .ks = &proc_fd_dir },
	{ .name = "maps", .mode = S_IFREG | 0444, .ks = &proc_maps },
	{ .name = "smaps", .mode = S_IFREG | 0444, .ks = &proc_smaps },
	{ .name = "smaps_rollup", .mode = S_IFREG | 0444, .ks = &proc_smaps_rollup },
	{ .name = "stat", .mode = S_IFREG | 0444, .ks = &proc_stat_file },
	{ .name = "statm", .mode = S_IFREG | 0444, .ks = &proc_statm },
	{ .name = "status", .mode = S_IFREG | 0444, .ks = &proc_status },
};

static const struct inode_special *pid_lookup(struct dentry *dir, const char *name, size_t len,
					      uint32_t *mode)
{
	return proc_table_lookup(pid_table, ARRAY_SIZE(pid_table), name, len, mode);
}

/* The process is still there (until its parent reaps it). */
static bool pid_revalidate(struct dentry *d)
{
	struct task_info ti;

	return task_info_get(proc_pid_of(d), &ti) == 0;
}

static void pid_readdir(struct dentry *dir, uint64_t *pos, fs_emit_fn emit, void *arg)
{
	if (proc_dots(dir, pos, emit, arg))
		proc_table_readdir(dir, pid_table, ARRAY_SIZE(pid_table), pos, emit, arg);
}

const struct kspecial proc_pid_dir = {
	.base = { .lookup = pid_lookup, .revalidate = pid_revalidate },
	.readdir = pid_readdir, .dev = PROC_DEV,
};
