/*
 * /proc itself (Linux's fs/proc/root.c and base.c's pid lookup): a
 * dynamic directory (include/fs.h) whose names are its table below, one
 * directory per process id (/proc/PID, pid.c; a thread id is found too, as
 * on Linux, but not listed) and /proc/self, a magic link to the caller's
 * /proc/PID whose text is the pid. readdir lists ".", "..", the table,
 * then the process ids in ascending order. What was made for a process
 * is dropped when its parent reaps it (procfs_forget), or at the next
 * lookup of its name once it is gone.
 *
 * Also here: what the other files of fs/proc share (fs/proc/internal.h):
 * memory files made at open, table directories, names as numbers.
 */
#include "internal.h"
#include "task.h"
#include "slab.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"

#define PID_POS 0x100000                /* readdir positions of the pids: PID_POS + pid */

static struct dentry *proc_root;        /* /proc (no reference: it is never removed) */

long proc_open_text(struct dentry *d, int flags, proc_fill_fn fill, struct file **out)
{
	int pid = proc_pid_of(d);
	long need = fill(pid, NULL, 0), got;
	struct file *f;

	if ((flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	if (need < 0)
		return need;
	f = file_from_dentry(d, &mem_file_ops, O_RDONLY | O_LARGEFILE);
	if (!f)
		return -ENOMEM;
	need += 256;                    /* room for what changed between the two calls */
	f->owned = kmalloc((size_t)need);
	got = f->owned ? fill(pid, f->owned, (size_t)need) : -ENOMEM;
	if (got < 0) {
		f->dentry = NULL;       /* the caller keeps its reference on failure */
		file_put(f);
		return got;
	}
	f->data = f->owned;
	f->size = MIN((size_t)got, (size_t)need - 1);
	*out = f;
	return 0;
}

int *proc_pids(size_t *n)
{
	for (;;) {
		size_t room = sched_task_count() + 16, got;
		int *pids = kmalloc(room * sizeof(int));

		if (!pids)
			return NULL;
		got = task_pids(pids, room);
		if (got <= room) {
			*n = got;
			return pids;
		}
		kfree(pids);            /* more processes than a moment ago: again */
	}
}

long proc_number(const char *name, size_t len)
{
	long v = 0;

	if (!len || len > 9 || (name[0] == '0' && len > 1))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		v = v * 10 + (name[i] - '0');
	}
	return v;
}

int proc_pid_of(const struct dentry *d)
{
	while (d && d->parent != proc_root)
		d = d->parent;
	return d ? (int)proc_number(d->name, d->len) : 0;
}

const struct inode_special *proc_table_lookup(const struct proc_entry *tab, size_t n, const char *name,
					      size_t len, uint32_t *mode)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(tab[i].name) == len && !memcmp(tab[i].name, name, len)) {
			*mode = tab[i].mode;
			return &tab[i].ks->base;
		}
	return NULL;
}

static unsigned mode_dtype(uint32_t mode)
{
	return S_ISDIR(mode) ? DT_DIR : S_ISLNK(mode) ? DT_LNK : DT_REG;
}

bool proc_dots(struct dentry *dir, uint64_t *pos, fs_emit_fn emit, void *arg)
{
	if (*pos == 0) {
		if (!emit(arg, ".", 1, dir->inode->ino, DT_DIR, 1))
			return false;
		*pos = 1;
	}
	if (*pos == 1) {
		if (!emit(arg, "..", 2, dir->parent ? dir->parent->inode->ino : dir->inode->ino, DT_DIR, 2))
			return false;
		*pos = 2;
	}
	return true;
}

bool proc_table_readdir(struct dentry *dir, const struct proc_entry *tab, size_t n, uint64_t *pos,
			fs_emit_fn emit, void *arg)
{
	for (; *pos >= 2 && *pos - 2 < n; (*pos)++) {
		const struct proc_entry *e = &tab[*pos - 2];

		/* names not looked up yet have no inode: a number of their own (Linux's are made up too) */
		if (!emit(arg, e->name, strlen(e->name), dir->inode->ino * 64 + *pos, mode_dtype(e->mode),
			  *pos + 1))
			return false;
	}
	return true;
}

/* ---- /proc/self */

static int self_pid(void)
{
	return current->pid;
}

/* fs_lock held: the caller's /proc/PID, made if it was not yet. */
static struct dentry *self_follow(struct dentry *link)
{
	char name[16];
	struct dentry *d;
	int n = ksnprintf(name, sizeof(name), "%d", self_pid());

	return fs_dyn_lookup_locked(proc_root, name, (size_t)n, &d) ? NULL : d;
}

static long self_readlink(struct dentry *link, char *buf, size_t size)
{
	return MIN((long)ksnprintf(buf, size, "%d", self_pid()), (long)size - 1);
}

static const struct kspecial proc_self = {
	.base = { .follow = self_follow }, .readlink = self_readlink, .dev = PROC_DEV,
};

/* ---- /proc */

static const struct proc_entry root_table[] = {
	{ .name = "cmdline", .mode = S_IFREG | 0444, .ks = &proc_kernel_cmdline },
	{ .name = "cpuinfo", .mode = S_IFREG | 0444, .ks = &proc_cpuinfo },
	{ .name = "loadavg", .mode = S_IFREG | 0444, .ks = &proc_loadavg },
	{ .name = "meminfo", .mode = S_IFREG | 0444, .ks = &proc_meminfo },
	{ .name = "self", .mode = S_IFLNK | 0777, .ks = &proc_self },
	{ .name = "stat", .mode = S_IFREG | 0444, .ks = &proc_sysstat },
	{ .name = "sys", .mode = S_IFDIR | 0555, .ks = &proc_sys_dir },
	{ .name = "uptime", .mode = S_IFREG | 0444, .ks = &proc_uptime },
	{ .name = "vmstat", .mode = S_IFREG | 0444, .ks = &proc_vmstat },
};

static const struct inode_special *root_lookup(struct dentry *dir, const char *name, size_t len,
					       uint32_t *mode)
{
	long pid = proc_number(name, len);
	struct task_info ti;

	if (pid > 0) {
		if (task_info_get((int)pid, &ti))
			return NULL;
		*mode = S_IFDIR | 0555;
		return &proc_pid_dir.base;
	}
	return proc_table_lookup(root_table, ARRAY_SIZE(root_table), name, len, mode);
}

static void root_readdir(struct dentry *dir, uint64_t *pos, fs_emit_fn emit, void *arg)
{
	int *pids;
	size_t n;

	if (!proc_dots(dir, pos, emit, arg) ||
	    !proc_table_readdir(dir, root_table, ARRAY_SIZE(root_table), pos, emit, arg))
		return;
	pids = proc_pids(&n);
	if (!pids)
		return;
	for (size_t i = 0; i < n; i++) {
		char name[16];
		uint64_t p = PID_POS + (uint64_t)pids[i];
		int len;

		if (p < *pos)
			continue;
		len = ksnprintf(name, sizeof(name), "%d", pids[i]);
		if (!emit(arg, name, (size_t)len, dir->inode->ino * 64 + p, DT_DIR, p + 1))
			break;
		*pos = p + 1;
	}
	kfree(pids);
}

static const struct kspecial proc_root_dir = {
	.base = { .lookup = root_lookup }, .readdir = root_readdir, .dev = PROC_DEV,
};

void procfs_forget(int pid)
{
	char name[16];
	int n = ksnprintf(name, sizeof(name), "%d", pid);

	if (proc_root)
		fs_dyn_forget(proc_root, name, (size_t)n);
}

void procfs_shrink(void)
{
	if (proc_root)
		fs_dyn_shrink(proc_root);
}

int procfs_mount(struct dentry *root)
{
	struct dentry *proc;
	int err = fs_mkdir_special(root, "proc", 4, 0555, &proc_root_dir.base, &proc);

	if (err)
		return err;
	proc_root = proc;
	dput(proc);                     /* the root directory keeps it */
	return 0;
}
