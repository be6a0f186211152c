/*
 * Open files (include/file.h): reference counting, opening by path, and the
 * memory files: boot modules, /proc/self/maps, the root directory and
 * /dev/null. /dev/stdin, /dev/stdout and /dev/stderr open what fds 0, 1
 * and 2 refer to (as Linux's /proc/self/fd links do for pipes).
 */
#include "file.h"
#include "task.h"
#include "exec.h"
#include "mm.h"
#include "slab.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"
#include "uaccess.h"
#include "wait.h"

#define MAPS_LINE_MAX 160               /* header (<= 56) + padding to 73 + a name < 64 + '\n' */
/* Linux's column for the name: the header is padded to 72 characters, then one space. */
#define MAPS_NAME_COL 73

#define S_IFDIR 0040000
#define S_IFREG 0100000
#define S_IFCHR 0020000

/* Inode numbers of the files there are (the same for every open of one). */
#define INO_ROOT 2
#define INO_MAPS 3
#define INO_NULL 4
#define INO_MODULE0 16

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

struct file *file_alloc(const struct file_ops *ops, unsigned flags)
{
	struct file *f = kzalloc(sizeof(*f));

	if (!f)
		return NULL;
	f->refs = 1;
	f->ops = ops;
	f->flags = flags;
	return f;
}

void file_get_ref(struct file *f)
{
	f->refs++;
}

void file_put(struct file *f)
{
	if (--f->refs > 0)
		return;
	if (f->ops->release)
		f->ops->release(f);
	kfree(f->owned);
	kfree(f);
}

struct wait_queue file_io_wait = WAIT_QUEUE_INIT(file_io_wait);

void file_io_event(void)
{
	wake_up(&file_io_wait);
}

unsigned file_poll(struct file *f)
{
	return f->ops->poll ? f->ops->poll(f) : POLLIN | POLLOUT;
}

void file_stat(struct file *f, struct kstat *st)
{
	memset(st, 0, sizeof(*st));
	st->nlink = 1;
	st->blksize = 4096;
	st->ino = f->ino;
	st->mode = S_IFCHR | 0620;
	if (f->ops->stat)
		f->ops->stat(f, st);
}

/* Memory files: read from data at the shared offset. */
static long mem_read(struct file *f, uint64_t ubuf, size_t n)
{
	if (f->pos >= f->size)
		return 0;
	n = MIN(n, f->size - f->pos);
	if (copy_to_user((void *)ubuf, f->data + f->pos, n))
		return -EFAULT;
	f->pos += n;
	return (long)n;
}

static long mem_write(struct file *f, uint64_t ubuf, size_t n)
{
	return -EBADF;                  /* opened read-only */
}

static void mem_stat(struct file *f, struct kstat *st)
{
	bool elf = f->size >= 4 && memcmp(f->data, "\177ELF", 4) == 0;

	st->mode = S_IFREG | (f->ino >= INO_MODULE0 && elf ? 0555 : 0444);
	st->size = f->ino == INO_MAPS ? 0 : f->size;    /* Linux: proc files have size 0 */
	st->blocks = (st->size + 511) / 512;
	st->dev = f->ino == INO_MAPS ? 0x16 : 0x1;
}

static const struct file_ops mem_ops = {
	.read = mem_read, .write = mem_write, .stat = mem_stat, .seekable = true,
};

static long dir_read(struct file *f, uint64_t ubuf, size_t n)
{
	return -EISDIR;
}

static void dir_stat(struct file *f, struct kstat *st)
{
	st->mode = S_IFDIR | 0755;
	st->nlink = 2;
	st->size = 4096;
	st->dev = 0x1;
}

static const struct file_ops dir_ops = {
	.read = dir_read, .write = mem_write, .stat = dir_stat, .seekable = true,
};

/* Linux's struct linux_dirent64 header; the name follows, NUL-terminated, the record 8-aligned. */
struct dirent64_k {
	uint64_t ino;
	int64_t off;
	uint16_t reclen;
	uint8_t type;
} __attribute__((packed));

#define DT_DIR 4
#define DT_REG 8

/* Entry i of "/": ".", "..", then the boot modules. false past the end. */
static bool root_entry(uint64_t i, const char **name, uint64_t *ino, uint8_t *type)
{
	const struct boot_module *m;

	if (i < 2) {
		*name = i ? ".." : ".";
		*ino = INO_ROOT;
		*type = DT_DIR;
		return true;
	}
	m = module_get((unsigned)(i - 2));
	if (!m)
		return false;
	*name = m->name;
	*ino = INO_MODULE0 + (i - 2);
	*type = DT_REG;
	return true;
}

long file_getdents64(struct file *f, uint64_t ubuf, size_t size)
{
	char rec[sizeof(struct dirent64_k) + MODULE_NAME_MAX + 8];
	struct dirent64_k d;
	const char *name;
	size_t done = 0;
	uint64_t ino;
	uint8_t type;

	if (f->ops != &dir_ops)
		return -ENOTDIR;
	while (root_entry(f->pos, &name, &ino, &type)) {
		size_t len = strlen(name) + 1, reclen = ALIGN_UP(sizeof(d) + len, 8UL);

		if (done + reclen > size)
			return done ? (long)done : -EINVAL;
		d.ino = ino;
		d.type = type;
		d.off = (int64_t)f->pos + 1;
		d.reclen = (uint16_t)reclen;
		memset(rec, 0, reclen);
		memcpy(rec, &d, sizeof(d));
		memcpy(rec + sizeof(d), name, len);
		if (copy_to_user((void *)(ubuf + done), rec, reclen))
			return -EFAULT;
		done += reclen;
		f->pos++;
	}
	return (long)done;
}

static long null_read(struct file *f, uint64_t ubuf, size_t n)
{
	return 0;
}

static long null_write(struct file *f, uint64_t ubuf, size_t n)
{
	return access_ok(ubuf, n) ? (long)n : -EFAULT;
}

static void null_stat(struct file *f, struct kstat *st)
{
	st->mode = S_IFCHR | 0666;
	st->rdev = (1 << 8) | 3;        /* 1:3 */
	st->dev = 0x5;
}

static const struct file_ops null_ops = {
	.read = null_read, .write = null_write, .stat = null_stat, .seekable = true,
};

enum path_kind { PATH_NONE, PATH_ROOT, PATH_MAPS, PATH_NULL, PATH_MODULE, PATH_STDFD };

/* What path names; *m the module, *stdfd the std fd for /dev/std*. */
static enum path_kind path_lookup(const char *path, const struct boot_module **m, int *stdfd)
{
	static const char *const std_names[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };

	if (!path[0])
		return PATH_NONE;
	if (strcmp(path, "/") == 0 || strcmp(path, ".") == 0 || strcmp(path, "/.") == 0 ||
	    strcmp(path, "..") == 0 || strcmp(path, "/..") == 0)
		return PATH_ROOT;       /* the one directory (its parent is itself) */
	if (strcmp(path, "/proc/self/maps") == 0)
		return PATH_MAPS;
	if (strcmp(path, "/dev/null") == 0)
		return PATH_NULL;
	for (int i = 0; i < 3; i++)
		if (strcmp(path, std_names[i]) == 0) {
			*stdfd = i;
			return PATH_STDFD;
		}
	*m = module_find(path);
	return *m ? PATH_MODULE : PATH_NONE;
}

static unsigned module_index(const struct boot_module *m)
{
	for (unsigned i = 0; i < module_count(); i++)
		if (module_get(i) == m)
			return i;
	return 0;
}

/* A snapshot of current's maps as a memory file. */
static long open_maps(struct file *f)
{
	size_t need = maps_format(current, NULL, 0), got;

	f->owned = kmalloc(need + MAPS_LINE_MAX);
	if (!f->owned)
		return -ENOMEM;
	got = maps_format(current, f->owned, need + MAPS_LINE_MAX);
	f->data = f->owned;
	f->size = MIN(got, need + MAPS_LINE_MAX);
	f->ino = INO_MAPS;
	return 0;
}

long file_open_path(const char *path, int flags, struct file **out)
{
	const struct boot_module *m = NULL;
	int stdfd = 0, acc = flags & O_ACCMODE;
	enum path_kind k = path_lookup(path, &m, &stdfd);
	unsigned fflags = (flags & (O_ACCMODE | O_APPEND | O_NONBLOCK)) | O_LARGEFILE;
	struct file *f;

	if (k == PATH_NONE)
		return (flags & O_CREAT) ? -EROFS : -ENOENT;
	if (k == PATH_STDFD) {
		f = fd_get(stdfd);
		if (!f)
			return -ENOENT;
		file_get_ref(f);
		*out = f;
		return 0;
	}
	if ((flags & O_CREAT) && (flags & O_EXCL))
		return -EEXIST;
	if ((flags & O_DIRECTORY) && k != PATH_ROOT)
		return -ENOTDIR;
	if (k == PATH_ROOT && acc != O_RDONLY)
		return -EISDIR;
	if (k != PATH_NULL && k != PATH_ROOT && acc != O_RDONLY)
		return -EACCES;
	f = file_alloc(k == PATH_ROOT ? &dir_ops : k == PATH_NULL ? &null_ops : &mem_ops, fflags);
	if (!f)
		return -ENOMEM;
	if (k == PATH_MODULE) {
		f->data = m->data;
		f->size = m->size;
		f->ino = INO_MODULE0 + module_index(m);
	} else if (k == PATH_MAPS && open_maps(f)) {
		file_put(f);
		return -ENOMEM;
	}
	if (k == PATH_ROOT)
		f->ino = INO_ROOT;
	if (k == PATH_NULL)
		f->ino = INO_NULL;
	*out = f;
	return 0;
}

int file_stat_path(const char *path, struct kstat *st)
{
	struct file *f;
	long r = file_open_path(path, O_RDONLY, &f);

	if (r)
		return (int)r;
	file_stat(f, st);
	file_put(f);
	return 0;
}
