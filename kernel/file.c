/* Read-only files: boot modules and /proc/self/maps (include/file.h). */
#include "file.h"
#include "task.h"
#include "exec.h"
#include "mm.h"
#include "slab.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"

#define O_ACCMODE 3
#define O_CLOEXEC 02000000
#define MAPS_LINE_MAX 160               /* header (<= 56) + padding to 73 + a name < 64 + '\n' */

/* Linux's column for the name: the header is padded to 72 characters, then one space. */
#define MAPS_NAME_COL 73

static const char *vma_name(struct task *t, struct mm *mm, const struct vma *v, uint64_t *off)
{
	for (unsigned i = 0; i < t->exe_nseg; i++)
		if (v->start >= t->exe_seg[i].start && v->start < t->exe_seg[i].end) {
			*off = t->exe_seg[i].offset + (v->start - t->exe_seg[i].start);
			return t->exe_path;
		}
	*off = 0;
	if (v->start <= mm->brk && v->end >= mm->start_brk && mm->start_brk)
		return "[heap]";
	if (v->start <= mm->start_stack && v->end >= mm->start_stack)
		return "[stack]";
	return NULL;
}

size_t maps_format(struct task *t, char *buf, size_t size)
{
	struct mm *mm = t->mm;
	size_t len = 0;
	char line[MAPS_LINE_MAX];

	if (!mm)
		return 0;
	mmap_read_lock(mm);
	for (struct vma *v = vma_first(mm); v; v = vma_next(mm, v)) {
		uint64_t off;
		const char *name = vma_name(t, mm, v, &off);
		int n = ksnprintf(line, sizeof(line), "%08lx-%08lx %c%c%c%c %08llx 00:00 %lu ",
				  (unsigned long)v->start, (unsigned long)v->end,
				  (v->flags & VM_READ) ? 'r' : '-', (v->flags & VM_WRITE) ? 'w' : '-',
				  (v->flags & VM_EXEC) ? 'x' : '-', (v->flags & VM_MAYSHARE) ? 's' : 'p',
				  (unsigned long long)off, 0UL);

		if (name) {
			while (n < MAPS_NAME_COL - 1 && n < (int)sizeof(line) - 2)
				line[n++] = ' ';
			n += ksnprintf(line + n, sizeof(line) - n, " %s", name);
			if (n > (int)sizeof(line) - 2)
				n = sizeof(line) - 2;
		}
		line[n++] = '\n';
		if (len + n <= size)
			memcpy(buf + len, line, n);
		len += n;
	}
	mmap_read_unlock(mm);
	return len;
}

static int fd_alloc(struct task *t, struct file *f)
{
	for (int fd = 3; fd < TASK_NFILES; fd++)
		if (!t->files[fd]) {
			t->files[fd] = f;
			return fd;
		}
	return -EMFILE;
}

static void file_put(struct file *f)
{
	if (--f->refs == 0) {
		kfree(f->owned);
		kfree(f);
	}
}

int file_open(const char *path, int flags)
{
	struct task *t = current;
	const struct boot_module *m = NULL;
	struct file *f;
	int fd;

	if ((flags & O_ACCMODE) != 0)
		return strcmp(path, "/proc/self/maps") == 0 || module_find(path) ? -EACCES : -ENOENT;
	if (strcmp(path, "/proc/self/maps") != 0) {
		m = path[0] ? module_find(path) : NULL;
		if (!m)
			return -ENOENT;
	}
	f = kzalloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->refs = 1;
	f->cloexec = flags & O_CLOEXEC;
	if (m) {
		f->data = m->data;
		f->size = m->size;
	} else {
		size_t need = maps_format(t, NULL, 0), got;

		f->owned = kmalloc(need + MAPS_LINE_MAX);
		if (!f->owned) {
			kfree(f);
			return -ENOMEM;
		}
		got = maps_format(t, f->owned, need + MAPS_LINE_MAX);
		f->data = f->owned;
		f->size = MIN(got, need + MAPS_LINE_MAX);
	}
	fd = fd_alloc(t, f);
	if (fd < 0)
		file_put(f);
	return fd;
}

struct file *file_get(uint64_t fd)
{
	return fd >= 3 && fd < TASK_NFILES ? current->files[fd] : NULL;
}

int file_close(uint64_t fd)
{
	struct file *f = file_get(fd);

	if (!f)
		return -EBADF;
	current->files[fd] = NULL;
	file_put(f);
	return 0;
}

void files_fork(struct task *child, struct task *parent)
{
	for (int fd = 0; fd < TASK_NFILES; fd++) {
		child->files[fd] = parent->files[fd];
		if (child->files[fd])
			child->files[fd]->refs++;
	}
}

void files_exec(struct task *t)
{
	for (int fd = 0; fd < TASK_NFILES; fd++)
		if (t->files[fd] && t->files[fd]->cloexec) {
			file_put(t->files[fd]);
			t->files[fd] = NULL;
		}
}

void files_close_all(struct task *t)
{
	for (int fd = 0; fd < TASK_NFILES; fd++)
		if (t->files[fd]) {
			file_put(t->files[fd]);
			t->files[fd] = NULL;
		}
}
