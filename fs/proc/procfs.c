/*
 * /proc, as far as programs here look: /proc/self/maps (the caller's VMAs
 * in Linux's format, names included: files by path, "[heap]", "[stack]"),
 * /proc/self/exe (a magic link to the program, as Linux's),
 * /proc/meminfo (the fields free(1) and friends read) and /proc/vmstat
 * (the VM's counters, include/vmstat.h). /proc/self is a directory here,
 * where Linux has a link to /proc/PID.
 *
 * The text of maps, meminfo and vmstat is made when the file is opened (a memory
 * file, include/file.h); Linux makes it as it is read, which only differs
 * for a program that reads maps while changing its mappings.
 */
#include "file.h"
#include "task.h"
#include "mm.h"
#include "pmm.h"
#include "vmstat.h"
#include "vmscan.h"
#include "swap.h"
#include "slab.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"
#include "internal.h"

#define PROC_DEV 0x16                   /* st_dev of /proc on the reference machine */

/* The name of a VMA without a file: "[heap]" (Linux's rule: start <= brk, end >= start_brk), "[stack]". */
static const char *anon_name(struct mm *mm, const struct vma *v)
{
	if (v->start <= mm->brk && v->end >= mm->start_brk && mm->start_brk)
		return "[heap]";
	if (v->start <= mm->start_stack && v->end >= mm->start_stack)
		return "[stack]";
	return NULL;
}

size_t proc_maps_line(struct mm *mm, const struct vma *v, char *line, size_t room)
{
	uint64_t dev = 0, ino = 0, off = 0;
	const char *name = NULL;
	int n;

	if (v->file) {
		v->file->ops->describe(v->file, line + MAPS_HDR_MAX, room - MAPS_HDR_MAX - 1, &dev, &ino);
		name = line + MAPS_HDR_MAX;
		off = (uint64_t)v->pgoff << PAGE_SHIFT;
	} else {
		name = anon_name(mm, v);
	}
	n = ksnprintf(line, MAPS_HDR_MAX, "%08lx-%08lx %c%c%c%c %08llx %02llx:%02llx %llu ",
		      (unsigned long)v->start, (unsigned long)v->end,
		      (v->flags & VM_READ) ? 'r' : '-', (v->flags & VM_WRITE) ? 'w' : '-',
		      (v->flags & VM_EXEC) ? 'x' : '-', (v->flags & VM_MAYSHARE) ? 's' : 'p',
		      (unsigned long long)off, (unsigned long long)(dev >> 8),
		      (unsigned long long)(dev & 0xff), (unsigned long long)ino);
	return proc_maps_name(line, (size_t)n, name);
}

size_t proc_maps_name(char *line, size_t n, const char *name)
{
	if (name) {
		size_t len = strlen(name);

		while (n < MAPS_PAD_WIDTH)
			line[n++] = ' ';
		line[n++] = ' ';
		memmove(line + n, name, len);
		n += len;
	}
	line[n++] = '\n';
	return n;
}

size_t maps_format(struct task *t, char *buf, size_t size)
{
	size_t room = MAPS_HDR_MAX + PATH_MAX + 16, len = 0;
	struct mm *mm = t->mm;
	char *line;

	if (!mm)
		return 0;
	line = kmalloc(room);
	if (!line)
		return 0;
	mmap_read_lock(mm);
	for (struct vma *v = vma_first(mm); v; v = vma_next(mm, v)) {
		size_t n = proc_maps_line(mm, v, line, room);

		if (len + n <= size)
			memcpy(buf + len, line, n);
		len += n;
	}
	mmap_read_unlock(mm);
	kfree(line);
	return len;
}

/* A memory file holding text made by fill(buf, size) -> length needed. */
static long open_text(struct dentry *d, size_t (*fill)(char *buf, size_t size), struct file **out)
{
	size_t need = fill(NULL, 0), got;
	struct file *f = file_from_dentry(d, &mem_file_ops, O_RDONLY | O_LARGEFILE);

	if (!f)
		return -ENOMEM;
	f->owned = kmalloc(need + 1);
	if (!f->owned) {
		f->dentry = NULL;       /* the caller keeps its reference on failure */
		file_put(f);
		return -ENOMEM;
	}
	got = fill(f->owned, need + 1);
	f->data = f->owned;
	f->size = MIN(got, need + 1);
	*out = f;
	return 0;
}

static size_t maps_fill(char *buf, size_t size)
{
	return maps_format(current, buf, size);
}

/* The fields of /proc/meminfo that matter here, in Linux's order and layout (show_val_kb). */
static size_t meminfo_fill(char *buf, size_t size)
{
	unsigned long total = pmm_total_frames(), free = pmm_free_frames(), cached = fs_pages_used();
	static const char *const names[] = {
		"MemTotal:       ", "MemFree:        ", "MemAvailable:   ", "Buffers:        ",
		"Cached:         ", "SwapCached:     ", "SwapTotal:      ", "SwapFree:       ",
		"AnonPages:      ", "Shmem:          ",
	};
	unsigned long vals[] = { total, free, mm_available_frames(), 0, cached, swap_cache_pages(), swap_total_pages(),
				 swap_free_pages(),
				 vm_stat_read(VM_NR_ANON_PAGES), cached };
	size_t len = 0;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char line[48];
		int n = ksnprintf(line, sizeof(line), "%s%8lu kB\n", names[i], vals[i] * (PAGE_SIZE >> 10));

		if (len + n <= size)
			memcpy(buf + len, line, n);
		len += n;
	}
	return len;
}

static long proc_open_maps(struct dentry *d, int flags, struct file **out)
{
	return (flags & O_ACCMODE) != O_RDONLY ? -EACCES : open_text(d, maps_fill, out);
}

static long proc_open_meminfo(struct dentry *d, int flags, struct file **out)
{
	return (flags & O_ACCMODE) != O_RDONLY ? -EACCES : open_text(d, meminfo_fill, out);
}

static long proc_open_vmstat(struct dentry *d, int flags, struct file **out)
{
	return (flags & O_ACCMODE) != O_RDONLY ? -EACCES : open_text(d, vmstat_format, out);
}

/* /proc/self/exe leads to the running program. */
static struct dentry *exe_follow(const struct inode *inode)
{
	return current->exe;
}

static long proc_open_smaps(struct dentry *d, int flags, struct file **out)
{
	return (flags & O_ACCMODE) != O_RDONLY ? -EACCES : open_text(d, smaps_fill, out);
}

static long proc_open_smaps_rollup(struct dentry *d, int flags, struct file **out)
{
	return (flags & O_ACCMODE) != O_RDONLY ? -EACCES : open_text(d, smaps_rollup_fill, out);
}

static const struct kspecial proc_maps = { { 0, NULL }, NULL, proc_open_maps, PROC_DEV };
static const struct kspecial proc_smaps = { { 0, NULL }, NULL, proc_open_smaps, PROC_DEV };
static const struct kspecial proc_smaps_rollup = { { 0, NULL }, NULL, proc_open_smaps_rollup, PROC_DEV };
static const struct kspecial proc_meminfo = { { 0, NULL }, NULL, proc_open_meminfo, PROC_DEV };
static const struct kspecial proc_vmstat = { { 0, NULL }, NULL, proc_open_vmstat, PROC_DEV };
static const struct kspecial proc_exe = { { 0, exe_follow }, NULL, NULL, PROC_DEV };

int procfs_populate(struct dentry *proc)
{
	struct dentry *self;
	int err = fs_mkdir(proc, "self", 4, 0555, &self);

	if (err)
		return err;
	err = fs_create(self, "maps", 4, S_IFREG | 0444, 0, &proc_maps.base, NULL);
	if (!err)
		err = fs_create(self, "smaps", 5, S_IFREG | 0444, 0, &proc_smaps.base, NULL);
	if (!err)
		err = fs_create(self, "smaps_rollup", 12, S_IFREG | 0444, 0, &proc_smaps_rollup.base, NULL);
	if (!err)
		err = fs_create(self, "exe", 3, S_IFLNK | 0777, 0, &proc_exe.base, NULL);
	dput(self);
	if (!err)
		err = fs_create(proc, "meminfo", 7, S_IFREG | 0444, 0, &proc_meminfo.base, NULL);
	if (!err)
		err = fs_create(proc, "vmstat", 6, S_IFREG | 0444, 0, &proc_vmstat.base, NULL);
	return err;
}
