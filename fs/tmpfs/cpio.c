/*
 * The initramfs: Linux's "newc" cpio format (what `cpio -H newc` writes
 * and Linux's init/initramfs.c reads) unpacked into the tree. Each entry
 * is a 110-byte header of "070701" (or "070702", with checksums, which are
 * not checked) and thirteen 8-digit hexadecimal fields, the name (padded
 * so that header plus name end on a 4-byte boundary), then the data
 * (padded to 4 bytes); "TRAILER!!!" ends the archive.
 *
 * Directories, regular files and symbolic links are made, with their mode
 * and mtime (atime too; ctime and the birth time are the unpacking's, as
 * Linux's; directories get theirs after the last entry); missing parent
 * directories are made 0755; a symbolic link on the way to a name is
 * followed (lib/x under lib -> usr/lib: usr/lib/x); a name that exists
 * is replaced unless both are directories (then the mode is updated).
 * Hard links (nlink > 1 sharing an inode number) and device, FIFO and
 * socket entries are not recreated: tools/run writes none.
 *
 * A file's data is copied into its pages, except (struct cpio_unpack's
 * keep_pages, for an archive in reserved boot-module frames) where it
 * starts on a page boundary of the archive: then its whole pages become
 * the file's pages in place (pmm_claim_reserved) and only a partial last
 * page is copied, whose bytes past the end must read as zeros. tools/run
 * pads the names of files of a page or more with NULs (Linux reads the
 * name as a C string) so that their data is so aligned.
 *
 * Locking: through the fs_* calls; meant for boot, before anything else
 * uses the tree.
 */
#include "fs_internal.h"
#include "slab.h"
#include "pmm.h"
#include "vm_object.h"
#include "arch.h"
#include "kstring.h"
#include "kerrno.h"

#define CPIO_HDR 110

struct cpio_entry {
	uint32_t mode, mtime;
	uint64_t size;
	const char *name;               /* NUL-terminated inside the archive */
	size_t namelen;
	const char *data;
};

static int hex8(const char *s, uint32_t *v)
{
	uint32_t x = 0;

	for (int i = 0; i < 8; i++) {
		char c = s[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
			     c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) :
			     c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;

		if (d > 15)
			return -EINVAL;
		x = x << 4 | d;
	}
	*v = x;
	return 0;
}

/* Parse the entry at *off of data (size bytes); *off moves past it. 0, -EINVAL. */
static int next_entry(const char *data, size_t size, size_t *off, struct cpio_entry *e)
{
	const char *h = data + *off;
	uint32_t f[13], namesize;
	size_t p;

	if (size - *off < CPIO_HDR || memcmp(h, "0707", 4) != 0 || (h[4] != '0' || (h[5] != '1' && h[5] != '2')))
		return -EINVAL;
	for (int i = 0; i < 13; i++)
		if (hex8(h + 6 + 8 * i, &f[i]))
			return -EINVAL;
	namesize = f[11];
	if (namesize == 0 || namesize > size - *off - CPIO_HDR || h[CPIO_HDR + namesize - 1] != 0)
		return -EINVAL;
	e->mode = f[1];
	e->mtime = f[5];
	e->size = f[6];
	e->name = h + CPIO_HDR;
	e->namelen = strnlen(e->name, namesize - 1);    /* NULs may pad it (tools/run aligns file data) */
	p = ALIGN_UP(*off + CPIO_HDR + namesize, 4UL);
	if (p > size || e->size > size - p)
		return -EINVAL;
	e->data = data + p;
	*off = ALIGN_UP(p + (size_t)e->size, 4UL);
	if (*off > size)
		*off = size;
	return 0;
}

/*
 * The symbolic link named by the component c (n bytes) of directory d,
 * followed as a path lookup follows a link on the way (Linux's unpacker
 * opens each name by path: "lib/x.so" under "lib -> usr/lib" lands in
 * usr/lib). A reference, or the lookup's error (-ENOENT for a dangling
 * link).
 */
static int follow_component(struct dentry *d, const char *c, size_t n, struct dentry **out)
{
	char name[NAME_MAX + 1];

	if (n > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, c, n);
	name[n] = 0;
	return fs_lookup(d, name, LOOKUP_FOLLOW, out);
}

/*
 * The directory that holds path's last component under dir, made (0755)
 * where missing; symbolic links on the way are followed. A reference.
 */
static int parent_dir(struct dentry *dir, const char *path, size_t len, struct dentry **out,
		      size_t *last)
{
	struct dentry *d = dir;
	size_t i = 0, b;

	dget(d);
	for (;;) {
		struct dentry *next;
		int err;

		for (b = i; i < len && path[i] != '/'; i++)
			;
		if (i == len) {
			*out = d;
			*last = b;
			return 0;
		}
		next = fs_lookup_child(d, path + b, i - b);
		if (next && S_ISLNK(next->inode->mode)) {
			dput(next);
			err = follow_component(d, path + b, i - b, &next);
			if (err) {
				dput(d);
				return err;
			}
		} else if (!next) {
			err = fs_mkdir(d, path + b, i - b, 0755, &next);
			if (err) {
				dput(d);
				return err;
			}
		}
		dput(d);
		d = next;
		if (!d_is_dir(d)) {
			dput(d);
			return -ENOTDIR;
		}
		while (i < len && path[i] == '/')
			i++;
	}
}

static size_t copy_in(void *arg, size_t done, void *kaddr, size_t n)
{
	memcpy(kaddr, (const char *)arg + done, n);
	return 0;
}

/*
 * The whole pages at the start of e's data (page-aligned in the archive)
 * become the pages of inode, in place; stops at the first page that cannot
 * (not a reserved frame, no memory). The bytes taken.
 */
static size_t keep_pages(struct inode *inode, const struct cpio_entry *e, struct cpio_unpack *u)
{
	size_t n = 0, whole = (size_t)e->size & ~(size_t)(PAGE_SIZE - 1);

	while (n < whole) {
		struct page *p = pmm_claim_reserved(virt_to_phys(e->data + n));

		if (!p)
			break;
		if (vm_object_add_page(&inode->data, n >> PAGE_SHIFT, p)) {
			pmm_free(p, 0);
			break;
		}
		n += PAGE_SIZE;
		u->kept++;
	}
	if (n)
		vm_object_set_size(&inode->data, n);
	return n;
}

/* e's data into the new, empty file inode: pages kept where u allows, the rest copied. 0 or -ENOSPC. */
static int file_data(struct inode *inode, const struct cpio_entry *e, struct cpio_unpack *u)
{
	size_t size = (size_t)e->size, done = 0;

	if (u && u->keep_pages && !((uintptr_t)e->data & (PAGE_SIZE - 1)))
		done = keep_pages(inode, e, u);
	if (done == size)
		return 0;
	if (fs_write(inode, done, size - done, copy_in, (void *)(e->data + done)) != (long)(size - done))
		return -ENOSPC;
	if (u)
		u->copied += size - done;
	return 0;
}

/* atime and mtime become the entry's mtime (Linux's do_utime); ctime stays the time of unpacking. */
static void set_times(struct dentry *d, const struct cpio_entry *e)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);
	struct inode *inode = d->inode;

	inode->mtime.sec = e->mtime;
	inode->mtime.nsec = 0;
	inode->atime = inode->mtime;
	spin_unlock_irqrestore(&fs_lock, fl);
}

/* Set the mode bits and times of a new or existing entry. */
static void set_attrs(struct dentry *d, const struct cpio_entry *e)
{
	unsigned long fl = spin_lock_irqsave(&fs_lock);

	d->inode->mode = (d->inode->mode & S_IFMT) | (e->mode & 07777);
	spin_unlock_irqrestore(&fs_lock, fl);
	set_times(d, e);
}

/* A symbolic link whose target is the entry's data (not NUL-terminated in the archive). */
static int cpio_symlink(struct dentry *pd, const char *name, size_t n, const struct cpio_entry *e,
			struct dentry **out)
{
	char *target;
	int err;

	if (!e->size || e->size >= PATH_MAX)
		return -EINVAL;
	target = kmalloc((size_t)e->size + 1);
	if (!target)
		return -ENOSPC;
	memcpy(target, e->data, (size_t)e->size);
	target[e->size] = 0;
	err = fs_symlink(pd, name, n, target, out);
	kfree(target);
	return err;
}

/* A new node of e's type named name (n bytes) in pd; *out NULL for a skipped kind. */
static int create_node(struct dentry *pd, const char *name, size_t n, const struct cpio_entry *e,
		       struct cpio_unpack *u, struct dentry **out)
{
	int err;

	*out = NULL;
	switch (e->mode & S_IFMT) {
	case S_IFDIR:
		return fs_mkdir(pd, name, n, e->mode, out);
	case S_IFLNK:
		return cpio_symlink(pd, name, n, e, out);
	case S_IFREG:
		err = fs_create(pd, name, n, S_IFREG | (e->mode & 07777), 0, NULL, out);
		return err ? err : file_data((*out)->inode, e, u);
	default:
		return 0;
	}
}

/*
 * What is at name in pd already: a directory kept for a directory entry
 * (*keep, a reference), anything else removed. 0 or the removal's error.
 */
static int clear_name(struct dentry *pd, const char *name, size_t n, uint32_t type,
		      struct dentry **keep)
{
	struct dentry *old = fs_lookup_child(pd, name, n);
	int err = 0;

	*keep = NULL;
	if (!old)
		return 0;
	if (type == S_IFDIR && d_is_dir(old)) {
		*keep = old;
		return 0;
	}
	err = d_is_dir(old) ? fs_rmdir(pd, name, n) : fs_unlink(pd, name, n);
	dput(old);
	return err;
}

/* Make entry e (name[0, len) relative to dir). */
static int make_entry(struct dentry *dir, const struct cpio_entry *e, const char *name, size_t len,
		      struct cpio_unpack *u)
{
	struct dentry *pd, *d = NULL;
	size_t last;
	int err = parent_dir(dir, name, len, &pd, &last);

	if (err)
		return err;
	err = clear_name(pd, name + last, len - last, e->mode & S_IFMT, &d);
	if (!err && !d)
		err = create_node(pd, name + last, len - last, e, u, &d);
	if (!err && d)
		set_attrs(d, e);
	if (d)
		dput(d);
	dput(pd);
	return err;
}

/* The entry's name without "./" and leading slashes; false for the root itself ("." or ""). */
static bool entry_name(const struct cpio_entry *e, const char **name, size_t *len)
{
	const char *s = e->name;
	size_t n = e->namelen;

	for (;;) {
		if (n && s[0] == '/') {
			s++;
			n--;
		} else if (n >= 2 && s[0] == '.' && s[1] == '/') {
			s += 2;
			n -= 2;
		} else {
			break;
		}
	}
	while (n && s[n - 1] == '/')
		n--;
	*name = s;
	*len = n;
	return n && !(n == 1 && s[0] == '.');
}

/*
 * The directories' times once every entry is in (Linux's dir_utime): the
 * entries made inside a directory changed its mtime meanwhile.
 */
static void restore_dir_times(struct dentry *dir, const void *data, size_t size)
{
	char *path = kmalloc(PATH_MAX);
	size_t off = 0;
	struct cpio_entry e;

	while (path && off < size && !next_entry(data, size, &off, &e)) {
		const char *name;
		size_t len;
		struct dentry *d;

		if (e.namelen == 10 && memcmp(e.name, "TRAILER!!!", 10) == 0)
			break;
		if ((e.mode & S_IFMT) != S_IFDIR || !entry_name(&e, &name, &len) || len >= PATH_MAX)
			continue;
		memcpy(path, name, len);
		path[len] = 0;
		if (fs_lookup(dir, path, 0, &d))
			continue;
		if (d_is_dir(d))
			set_times(d, &e);
		dput(d);
	}
	kfree(path);
}

int fs_unpack_cpio(struct dentry *dir, const void *data, size_t size, struct cpio_unpack *u)
{
	size_t off = 0;

	while (off < size) {
		struct cpio_entry e;
		const char *name;
		size_t len;
		int err = next_entry(data, size, &off, &e);

		if (err)
			return err;
		if (e.namelen == 10 && memcmp(e.name, "TRAILER!!!", 10) == 0) {
			restore_dir_times(dir, data, size);
			return 0;
		}
		if (!entry_name(&e, &name, &len))
			continue;
		err = make_entry(dir, &e, name, len, u);
		if (err)
			return err;
	}
	return -EINVAL;                 /* no trailer */
}
