/*
 * /proc/PID/maps: the process's VMAs in Linux's format (show_map_vma),
 * names included: files by path, "[heap]", "[stack]". The text is made
 * when the file is opened (a memory file); Linux makes it as it is read,
 * which only differs for a program that reads maps while changing its
 * mappings.
 */
#include "internal.h"
#include "task.h"
#include "mm.h"
#include "slab.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"

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

/* Write mm's /proc/PID/maps text into buf (size bytes); returns the length it needs. */
static size_t maps_format(struct mm *mm, char *buf, size_t size)
{
	size_t room = MAPS_HDR_MAX + PATH_MAX + 16, len = 0;
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

static long maps_fill(int pid, char *buf, size_t size)
{
	char comm[TASK_COMM_LEN];
	struct mm *mm = task_get_mm(pid, comm);
	size_t n;

	if (!mm)
		return 0;               /* a zombie or a kernel thread: empty, as Linux */
	n = maps_format(mm, buf, size);
	mm_put(mm);
	return (long)n;
}

PROC_TEXT_FILE(, proc_maps, maps_fill);
