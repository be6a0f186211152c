/*
 * Open files of the file system (include/fs.h): regular files, read and
 * written through their page cache at the file's offset (O_APPEND writes
 * at the end, pwrite too, as Linux does), mappable through the vm_file
 * each one carries; directories, listed by getdents64 (dynamic ones by
 * their special's readdir: /proc); memfd_create's
 * files; the stat of a dentry.
 *
 * A file's vm_file shares the file's reference count, so a mapping keeps
 * the open file (and through its dentry the inode and its pages) alive
 * after close, as Linux's vma->vm_file does.
 */
#include "file.h"
#include "task.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "uaccess.h"
#include "printk.h"

static size_t copy_out(void *arg, size_t done, void *kaddr, size_t n)
{
	return copy_to_user((char *)arg + done, kaddr, n) ? n : 0;
}

static size_t copy_in(void *arg, size_t done, void *kaddr, size_t n)
{
	return copy_from_user(kaddr, (const char *)arg + done, n) ? n : 0;
}

static long reg_read(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	long r = fs_read(f->dentry->inode, *pos, n, copy_out, (void *)ubuf);

	if (r > 0)
		*pos += (uint64_t)r;
	if (!(f->flags & O_NOATIME))
		fs_accessed(f->dentry->inode);   /* as shmem_file_read_iter, even for 0 bytes */
	return r;
}

static long reg_write(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	struct inode *inode = f->dentry->inode;
	long r;

	if (f->flags & O_APPEND)
		*pos = fs_size(inode);  /* [SMP: not atomic against another appender] */
	r = fs_write(inode, *pos, n, copy_in, (void *)ubuf);
	if (r > 0)
		*pos += (uint64_t)r;
	return r;
}

static const struct file_ops reg_ops = {
	.read = reg_read, .write = reg_write, .seekable = true,
};

static long dir_read(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	return -EISDIR;
}

static const struct file_ops dir_ops = {
	.read = dir_read, .write = dir_read, .seekable = true,
};

/* f is an open directory. */
static bool file_is_dir(const struct file *f)
{
	return f->ops == &dir_ops;
}

static long path_rw(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	return -EBADF;                  /* Linux's O_PATH files have no f_op read or write */
}

static const struct file_ops path_ops = {
	.read = path_rw, .write = path_rw,
};

bool file_is_path(const struct file *f)
{
	return f->ops == &path_ops;
}

long file_open_path(struct dentry *d, int flags, struct file **out)
{
	struct file *f = file_from_dentry(d, &path_ops, O_PATH | (flags & (O_DIRECTORY | O_NOFOLLOW)));

	if (!f)
		return -ENOMEM;
	*out = f;
	return 0;
}

void dentry_stat(struct dentry *d, struct kstat *st)
{
	struct inode *inode = d->inode;
	const struct kspecial *ks = inode_kspecial(inode);

	st->dev = ks ? ks->dev : FS_DEV;
	st->ino = inode->ino;
	st->mode = inode->mode;
	st->nlink = inode->nlink;
	st->rdev = inode->rdev;
	st->blksize = 4096;
	st->atime = inode->atime;
	st->mtime = inode->mtime;
	st->ctime = inode->ctime;
	st->btime = inode->btime;
	st->has_btime = true;
	st->uid = inode->uid;
	st->gid = inode->gid;
	if (S_ISREG(inode->mode)) {
		st->size = fs_size(inode);
		st->blocks = vm_object_pages(&inode->data) * (PAGE_SIZE / 512);
	} else if (S_ISDIR(inode->mode)) {
		st->size = 4096;        /* what tmpfs reports is the entries' count; ours: a page */
		st->blocks = 0;
	} else if (S_ISLNK(inode->mode)) {
		st->size = inode->link ? strlen(inode->link) : 0;
	}
}

/* ---- the mm side of a regular file: its vm_file (include/vm_object.h) */

static void vmf_get(struct vm_file *vf)
{
	file_get_ref(container_of(vf, struct file, vm));
}

static void vmf_put(struct vm_file *vf)
{
	file_put(container_of(vf, struct file, vm));
}

static void vmf_describe(const struct vm_file *vf, char *buf, size_t size, uint64_t *dev, uint64_t *ino)
{
	const struct file *f = container_of(vf, struct file, vm);

	fs_path(f->dentry, buf, size);
	*dev = FS_DEV;
	*ino = f->dentry->inode->ino;
}

static const struct vm_file_ops file_vm_ops = {
	.get = vmf_get, .put = vmf_put, .describe = vmf_describe,
};

struct file *file_from_dentry(struct dentry *d, const struct file_ops *ops, unsigned flags)
{
	struct file *f = file_alloc(ops, flags);

	if (!f)
		return NULL;
	f->dentry = d;
	f->ino = d->inode->ino;
	return f;
}

/* A regular or directory file for d (a reference moves in), or the special's own. */
long file_open_dentry(struct dentry *d, int flags, struct file **out)
{
	const struct kspecial *ks = inode_kspecial(d->inode);
	unsigned fflags = (flags & (O_ACCMODE | O_APPEND | O_NONBLOCK)) | O_LARGEFILE;
	struct file *f;
	int acc = flags & O_ACCMODE;

	if (ks && ks->open)
		return ks->open(d, flags, out);
	f = file_from_dentry(d, ks && ks->ops ? ks->ops : S_ISDIR(d->inode->mode) ? &dir_ops : &reg_ops, fflags);
	if (!f)
		return -ENOMEM;
	if (!ks && S_ISREG(d->inode->mode)) {
		f->vm.ops = &file_vm_ops;
		f->vm.obj = &d->inode->data;
		f->vm.mode = (acc != O_WRONLY ? VMF_READ : 0) | (acc != O_RDONLY ? VMF_WRITE : 0);
	}
	*out = f;
	return 0;
}

struct file *memfd_file(const char *name)
{
	struct dentry *d = fs_create_unlinked(name, 0777);
	struct file *f;

	if (!d)
		return NULL;
	if (file_open_dentry(d, O_RDWR, &f)) {
		dput(d);
		return NULL;
	}
	return f;
}

/* ---- getdents64 */

/* Linux's struct linux_dirent64 header; the name follows, NUL-terminated, the record 8-aligned. */
struct dirent64_k {
	uint64_t ino;
	int64_t off;
	uint16_t reclen;
	uint8_t type;
} __attribute__((packed));

struct dents_buf {
	char *buf;                      /* kernel buffer of room bytes */
	size_t room, used;
	bool full;                      /* an entry did not fit */
};

static bool emit_dirent(void *arg, const char *name, size_t len, uint64_t ino, unsigned type,
			uint64_t next)
{
	struct dents_buf *b = arg;
	size_t reclen = ALIGN_UP(sizeof(struct dirent64_k) + len + 1, 8UL);
	struct dirent64_k d = { .ino = ino, .off = (int64_t)next, .reclen = (uint16_t)reclen,
				.type = (uint8_t)type };

	if (b->used + reclen > b->room) {
		b->full = true;
		return false;
	}
	memset(b->buf + b->used, 0, reclen);
	memcpy(b->buf + b->used, &d, sizeof(d));
	memcpy(b->buf + b->used + sizeof(d), name, len);
	b->used += reclen;
	return true;
}

/*
 * The entries go through a kernel page (fs_readdir holds fs_lock: no user
 * access there), a page's worth at a time. Nothing fits: -EINVAL.
 */
long file_getdents64(struct file *f, uint64_t ubuf, size_t size)
{
	struct dents_buf b = { 0 };
	const struct kspecial *ks;
	size_t done = 0;
	long r = 0;

	if (!file_is_dir(f))
		return -ENOTDIR;
	if (f->dentry->unlinked && f->dentry != fs_root())
		return -ENOENT;         /* a removed directory (Linux: IS_DEADDIR) */
	ks = inode_kspecial(f->dentry->inode);
	b.buf = kmalloc(PAGE_SIZE);
	if (!b.buf)
		return -ENOMEM;
	for (;;) {
		uint64_t pos = f->pos;

		b.used = 0;
		b.full = false;
		b.room = MIN(size - done, (size_t)PAGE_SIZE);
		if (ks && ks->readdir)
			ks->readdir(f->dentry, &pos, emit_dirent, &b);
		else
			fs_readdir(f->dentry, &pos, emit_dirent, &b);
		if (!b.used) {
			r = done ? (long)done : b.full ? -EINVAL : 0;
			break;
		}
		if (copy_to_user((void *)(ubuf + done), b.buf, b.used)) {
			r = done ? (long)done : -EFAULT;
			break;
		}
		f->pos = pos;
		done += b.used;
	}
	kfree(b.buf);
	return r;
}
