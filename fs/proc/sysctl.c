/*
 * /proc/sys: the kernel's tunables as files, as Linux's sysctl tree. Each
 * is one number: reading gives it and a newline; a write of a decimal
 * number (spaces and a newline around it allowed) sets it through the
 * owner's setter, which says -EINVAL outside its range. As Linux's
 * integer sysctls: a write at a later offset than 0 changes nothing and
 * counts all its bytes; text after the number and its spaces is left
 * unwritten (the write counts the bytes it used); anything else around
 * the number is -EINVAL.
 *
 *   /proc/sys/kernel/threads-max   live tasks at most (kernel/task/task_limit.c)
 *   /proc/sys/vm/min_free_kbytes   the min watermark, the others follow (mm/pmm.c)
 */
#include "internal.h"
#include "task.h"
#include "pmm.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "uaccess.h"

static const struct sysctl_number *sysctl_of(struct dentry *d)
{
	return container_of(inode_kspecial(d->inode), struct sysctl_number, ks);
}

static long sysctl_read(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	return mem_file_ops.read(f, ubuf, n, pos);
}

/*
 * The number at the start of text (len bytes): optional spaces, an
 * optional '-', digits, then the end or spaces (skipped). The bytes used,
 * or -1 when it is not such a number.
 */
static long sysctl_parse(const char *text, size_t len, long *out)
{
	size_t i = 0, digits = 0;
	bool neg = false;
	long v = 0;

	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n'))
		i++;
	if (i < len && text[i] == '-')
		neg = true, i++;
	for (; i < len && text[i] >= '0' && text[i] <= '9' && digits < 18; i++, digits++)
		v = v * 10 + (text[i] - '0');
	if (digits == 0 || (i < len && text[i] != ' ' && text[i] != '\t' && text[i] != '\n'))
		return -1;
	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n'))
		i++;
	*out = neg ? -v : v;
	return (long)i;
}

static long sysctl_write(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	const struct sysctl_number *s = sysctl_of(f->dentry);
	char text[32];
	long v, used, err;

	if (n == 0)
		return 0;
	if (*pos != 0) {
		*pos += n;
		return (long)n;
	}
	n = MIN(n, sizeof(text));
	if (copy_from_user(text, (const void *)ubuf, n))
		return -EFAULT;
	used = sysctl_parse(text, n, &v);
	if (used < 0)
		return -EINVAL;
	err = s->set(v);
	if (err)
		return err;
	*pos += (uint64_t)used;
	return used;
}

static void sysctl_stat(struct file *f, struct kstat *st)
{
	mem_file_ops.stat(f, st);
}

static const struct file_ops sysctl_file_ops = {
	.read = sysctl_read, .write = sysctl_write, .stat = sysctl_stat, .seekable = true,
};

long sysctl_open(struct dentry *d, int flags, struct file **out)
{
	char text[24];
	int len = ksnprintf(text, sizeof(text), "%lu\n", sysctl_of(d)->get());
	struct file *f = file_from_dentry(d, &sysctl_file_ops, (unsigned)(flags & O_ACCMODE) | O_LARGEFILE);

	if (!f)
		return -ENOMEM;
	f->owned = kmalloc((size_t)len);
	if (!f->owned) {
		f->dentry = NULL;       /* the caller keeps its reference on failure */
		file_put(f);
		return -ENOMEM;
	}
	memcpy(f->owned, text, (size_t)len);
	f->data = f->owned;
	f->size = (size_t)len;
	*out = f;
	return 0;
}

static const struct sysctl_number threads_max = {
	.ks = { .open = sysctl_open, .dev = PROC_DEV },
	.get = task_max_threads, .set = task_set_max_threads,
};

static const struct proc_entry kernel_table[] = {
	{ .name = "threads-max", .mode = S_IFREG | 0644, .ks = &threads_max.ks },
};

static const struct sysctl_number min_free_kbytes = {
	.ks = { .open = sysctl_open, .dev = PROC_DEV },
	.get = pmm_min_free_kbytes, .set = pmm_set_min_free_kbytes,
};

static const struct proc_entry vm_table[] = {
	{ .name = "min_free_kbytes", .mode = S_IFREG | 0644, .ks = &min_free_kbytes.ks },
};

static const struct kspecial proc_sys_kernel_dir, proc_sys_vm_dir;

static const struct proc_entry sys_table[] = {
	{ .name = "kernel", .mode = S_IFDIR | 0555, .ks = &proc_sys_kernel_dir },
	{ .name = "vm", .mode = S_IFDIR | 0555, .ks = &proc_sys_vm_dir },
};

PROC_TABLE_DIR(static, proc_sys_kernel_dir, kernel_table);
PROC_TABLE_DIR(static, proc_sys_vm_dir, vm_table);
PROC_TABLE_DIR(, proc_sys_dir, sys_table);
