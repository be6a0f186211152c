/*
 * The file system of fs/ on its own (host and kernel): file data through
 * the page cache, truncation, directories, rename, symbolic links, path
 * errors, paths of removed files, the tmpfs limit, the initramfs reader,
 * and that nothing leaks. Each case works in a scratch directory of its
 * own under the root. Expected values are Linux's rules (each case says
 * which), checked against tmpfs on the host where the case notes it.
 */
#include "ktest.h"
#include "fs.h"
#include "test_fs_util.h"
#include "pmm.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "printk.h"

/* ---------------------------------------------------------------- helpers */

struct fs_fixture {
	struct dentry *dir;             /* the scratch directory */
	size_t inodes, dentries, objects, frames;
	char name[32];
};

static struct fs_fixture fx;

static size_t frames_now(void)
{
	slab_shrink_all();
	return pmm_free_frames();
}

/* A scratch directory and the counters to come back to. */
static bool fx_init(struct ktest *t)
{
	static unsigned serial;

	if (!fs_root() && fs_init()) {
		ktest_fail(t, __FILE__, __LINE__, "fs_init failed");
		return false;
	}
	ksnprintf(fx.name, sizeof(fx.name), "ktest-fs-%u", ++serial);
	fx.inodes = fs_inodes_inuse();
	fx.dentries = fs_dentries_inuse();
	fx.objects = vm_object_inuse();
	fx.frames = frames_now();
	if (fs_mkdir(fs_root(), fx.name, strlen(fx.name), 0755, &fx.dir)) {
		ktest_fail(t, __FILE__, __LINE__, "mkdir %s failed", fx.name);
		return false;
	}
	return true;
}

/* Remove everything below d (depth first), then d's name in its parent. */
static void remove_tree(struct dentry *parent, struct dentry *d)
{
	while (!list_empty(&d->children)) {
		struct dentry *c = list_first_entry(&d->children, struct dentry, child);

		dget(c);
		remove_tree(d, c);
		dput(c);
	}
	if (S_ISDIR(d->inode->mode))
		fs_rmdir(parent, d->name, d->len);
	else
		fs_unlink(parent, d->name, d->len);
}

/* Remove the scratch directory; every inode, dentry, object and frame is back. */
static void fx_done(struct ktest *t)
{
	remove_tree(fs_root(), fx.dir);
	dput(fx.dir);
	EXPECT_EQ(t, fs_inodes_inuse(), fx.inodes);
	EXPECT_EQ(t, fs_dentries_inuse(), fx.dentries);
	EXPECT_EQ(t, vm_object_inuse(), fx.objects);
	EXPECT_EQ(t, frames_now(), fx.frames);
}

static long put_bytes(struct inode *i, uint64_t pos, const void *buf, size_t n)
{
	return fs_write(i, pos, n, ut_copy_from_buf, (void *)buf);
}

static long get_bytes(struct inode *i, uint64_t pos, void *buf, size_t n)
{
	return fs_read(i, pos, n, ut_copy_to_buf, buf);
}

static struct dentry *new_file(struct ktest *t, const char *name)
{
	struct dentry *d = NULL;

	EXPECT_EQ(t, fs_create(fx.dir, name, strlen(name), S_IFREG | 0644, 0, NULL, &d), 0);
	return d;
}

static int lookup(const char *path, unsigned flags, struct dentry **out)
{
	return fs_lookup(fx.dir, path, flags, out);
}

/* 0 when path resolves (the reference dropped again), else the error. */
static int resolves(const char *path, unsigned flags)
{
	struct dentry *d;
	int err = lookup(path, flags, &d);

	if (!err)
		dput(d);
	return err;
}

/* ------------------------------------------------------------- file data */

/*
 * A write past the start leaves a hole that reads as zero; the size is
 * where the write ended; a read stops at the size (shmem: pages allocated
 * only where written).
 */
static void test_write_read_hole(struct ktest *t)
{
	static char buf[3 * PAGE_SIZE], back[3 * PAGE_SIZE];
	struct dentry *d;

	if (!fx_init(t))
		return;
	d = new_file(t, "f");
	ASSERT_TRUE(t, d);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7 + 1);
	EXPECT_EQ(t, put_bytes(d->inode, 5000, buf, 10000), 10000);
	EXPECT_EQ(t, fs_size(d->inode), 15000);
	/* pages 1, 2 and 3 hold bytes [5000, 15000); page 0 is a hole */
	EXPECT_EQ(t, vm_object_pages(&d->inode->data), 3);
	memset(back, 0x55, sizeof(back));
	EXPECT_EQ(t, get_bytes(d->inode, 0, back, 5000), 5000);
	for (size_t i = 0; i < 5000; i++)
		if (back[i])
			EXPECT_EQ(t, back[i], 0);
	EXPECT_EQ(t, get_bytes(d->inode, 5000, back, sizeof(back)), 10000);
	EXPECT_EQ(t, memcmp(back, buf, 10000), 0);
	EXPECT_EQ(t, get_bytes(d->inode, 15000, back, 10), 0);
	EXPECT_EQ(t, get_bytes(d->inode, 1UL << 40, back, 10), 0);
	dput(d);
	fx_done(t);
}

/*
 * Shrinking frees the pages past the new end and zeroes the tail of the
 * last one; growing again shows zeros there (shmem_setattr +
 * truncate_inode_partial_folio).
 */
static void test_truncate(struct ktest *t)
{
	static char buf[4 * PAGE_SIZE], back[8];
	struct dentry *d;

	if (!fx_init(t))
		return;
	d = new_file(t, "f");
	ASSERT_TRUE(t, d);
	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ(t, put_bytes(d->inode, 0, buf, sizeof(buf)), (long)sizeof(buf));
	EXPECT_EQ(t, vm_object_pages(&d->inode->data), 4);
	EXPECT_EQ(t, fs_truncate(d->inode, PAGE_SIZE + 10), 0);
	EXPECT_EQ(t, fs_size(d->inode), PAGE_SIZE + 10);
	EXPECT_EQ(t, vm_object_pages(&d->inode->data), 2);
	EXPECT_EQ(t, fs_truncate(d->inode, 3 * PAGE_SIZE), 0);
	EXPECT_EQ(t, get_bytes(d->inode, PAGE_SIZE + 8, back, 4), 4);
	EXPECT_EQ(t, back[0], 'x');
	EXPECT_EQ(t, back[1], 'x');
	EXPECT_EQ(t, back[2], 0);          /* byte PAGE_SIZE + 10: past the old end */
	EXPECT_EQ(t, back[3], 0);
	EXPECT_EQ(t, fs_truncate(d->inode, 0), 0);
	EXPECT_EQ(t, vm_object_pages(&d->inode->data), 0);
	EXPECT_EQ(t, fs_truncate(d->inode, FS_MAX_FILE_SIZE + 1), -EFBIG);
	/* the largest size is allowed, and a write there is -EFBIG (generic_write_check_limits) */
	EXPECT_EQ(t, fs_truncate(d->inode, FS_MAX_FILE_SIZE), 0);
	EXPECT_EQ(t, put_bytes(d->inode, FS_MAX_FILE_SIZE, buf, 1), -EFBIG);
	EXPECT_EQ(t, put_bytes(d->inode, FS_MAX_FILE_SIZE - 1, buf, 2), 1);
	EXPECT_EQ(t, put_bytes(d->inode, FS_MAX_FILE_SIZE, buf, 0), 0);
	dput(d);
	fx_done(t);
}

/* Over the tmpfs limit a write stops short, then fails with ENOSPC; unlinking gives the pages back. */
static void test_page_limit(struct ktest *t)
{
	static char buf[4 * PAGE_SIZE];
	unsigned long used;
	struct dentry *d;

	if (!fx_init(t))
		return;
	d = new_file(t, "f");
	ASSERT_TRUE(t, d);
	used = fs_pages_used();
	fs_set_page_limit(used + 2);
	EXPECT_EQ(t, put_bytes(d->inode, 0, buf, sizeof(buf)), 2 * (long)PAGE_SIZE);
	EXPECT_EQ(t, put_bytes(d->inode, 2 * PAGE_SIZE, buf, 1), -ENOSPC);
	EXPECT_EQ(t, fs_pages_used(), used + 2);
	fs_set_page_limit(0);
	dput(d);
	EXPECT_EQ(t, fs_unlink(fx.dir, "f", 1), 0);
	EXPECT_EQ(t, fs_pages_used(), used);
	fx_done(t);
}

/*
 * An unlinked file's last close while reclaim holds its object (its clock
 * keeps a reference for a whole turn): the pages leave at that close, as
 * Linux's shmem_evict_inode truncates them at the inode's final iput, not
 * when reclaim lets go. The same window the fuzzer found for shared
 * anonymous memory (mm_swap.test_shared_anon_freed_under_reclaim).
 */
static void test_pages_freed_at_last_user(struct ktest *t)
{
	static char buf[8 * PAGE_SIZE];
	unsigned long used;
	struct vm_object *o;
	struct dentry *d;

	if (!fx_init(t))
		return;
	used = fs_pages_used();
	d = new_file(t, "f");
	ASSERT_TRUE(t, d);
	EXPECT_EQ(t, put_bytes(d->inode, 0, buf, sizeof(buf)), (long)sizeof(buf));
	o = &d->inode->data;
	vm_object_get(o);                       /* reclaim's (vm_object_next_to_scan) */
	EXPECT_EQ(t, fs_unlink(fx.dir, "f", 1), 0);
	EXPECT_EQ(t, vm_object_pages(o), 8);    /* still open (d): the pages stay */
	dput(d);                                /* the last user */
	EXPECT_EQ(t, vm_object_pages(o), 0);
	EXPECT_EQ(t, fs_pages_used(), used);
	vm_object_put(o);                       /* reclaim lets go: the inode itself goes */
	fx_done(t);
}

/* ------------------------------------------------------------ directories */

/* mkdir/create/unlink/rmdir errors as Linux's vfs_* return them. */
static void test_dir_errors(struct ktest *t)
{
	struct dentry *d;

	if (!fx_init(t))
		return;
	EXPECT_EQ(t, fs_mkdir(fx.dir, "a", 1, 0755, NULL), 0);
	EXPECT_EQ(t, fs_mkdir(fx.dir, "a", 1, 0755, NULL), -EEXIST);
	d = new_file(t, "f");
	ASSERT_TRUE(t, d);
	dput(d);
	EXPECT_EQ(t, fs_create(fx.dir, "f", 1, S_IFREG | 0644, 0, NULL, NULL), -EEXIST);
	EXPECT_EQ(t, fs_unlink(fx.dir, "a", 1), -EISDIR);
	EXPECT_EQ(t, fs_rmdir(fx.dir, "f", 1), -ENOTDIR);
	EXPECT_EQ(t, fs_unlink(fx.dir, "zz", 2), -ENOENT);
	EXPECT_EQ(t, fs_rmdir(fx.dir, "zz", 2), -ENOENT);
	ASSERT_EQ(t, lookup("a", 0, &d), 0);
	EXPECT_EQ(t, d->inode->nlink, 2);
	EXPECT_EQ(t, fs_create(d, "x", 1, S_IFREG | 0644, 0, NULL, NULL), 0);
	EXPECT_EQ(t, fs_rmdir(fx.dir, "a", 1), -ENOTEMPTY);
	EXPECT_EQ(t, fs_unlink(d, "x", 1), 0);
	EXPECT_EQ(t, fx.dir->inode->nlink, 3);          /* 2 + the subdirectory a */
	EXPECT_EQ(t, fs_rmdir(fx.dir, "a", 1), 0);
	EXPECT_EQ(t, fx.dir->inode->nlink, 2);
	/* a removed directory takes no new names (ENOENT), though d still holds it */
	EXPECT_EQ(t, fs_create(d, "y", 1, S_IFREG | 0644, 0, NULL, NULL), -ENOENT);
	EXPECT_EQ(t, d->inode->nlink, 0);
	dput(d);
	fx_done(t);
}

struct seen {
	char names[16][8];
	uint64_t next[16];
	unsigned n, room;
};

static bool collect(void *arg, const char *name, size_t len, uint64_t ino, unsigned type, uint64_t next)
{
	struct seen *s = arg;

	if (s->n >= s->room || len >= 8)
		return false;
	memcpy(s->names[s->n], name, len);
	s->names[s->n][len] = 0;
	s->next[s->n++] = next;
	return true;
}

/*
 * Entries come in creation order after "." and ".."; a name removed while
 * the directory is being read is not seen and shifts nothing (tmpfs keeps
 * a cursor; here positions are creation numbers).
 */
static void test_readdir(struct ktest *t)
{
	struct seen s = { .room = 3 };
	uint64_t pos = 0;

	if (!fx_init(t))
		return;
	EXPECT_EQ(t, fs_create(fx.dir, "c", 1, S_IFREG | 0644, 0, NULL, NULL), 0);
	EXPECT_EQ(t, fs_create(fx.dir, "a", 1, S_IFREG | 0644, 0, NULL, NULL), 0);
	EXPECT_EQ(t, fs_mkdir(fx.dir, "b", 1, 0755, NULL), 0);
	EXPECT_EQ(t, fs_create(fx.dir, "d", 1, S_IFREG | 0644, 0, NULL, NULL), 0);
	fs_readdir(fx.dir, &pos, collect, &s);
	ASSERT_EQ(t, s.n, 3);
	EXPECT_STREQ(t, s.names[0], ".");
	EXPECT_STREQ(t, s.names[1], "..");
	EXPECT_STREQ(t, s.names[2], "c");
	EXPECT_EQ(t, pos, s.next[2]);
	EXPECT_EQ(t, fs_unlink(fx.dir, "a", 1), 0);     /* the next one: skipped, nothing shifts */
	s.n = 0;
	s.room = 16;
	fs_readdir(fx.dir, &pos, collect, &s);
	ASSERT_EQ(t, s.n, 2);
	EXPECT_STREQ(t, s.names[0], "b");
	EXPECT_STREQ(t, s.names[1], "d");
	s.n = 0;
	fs_readdir(fx.dir, &pos, collect, &s);
	EXPECT_EQ(t, s.n, 0);                          /* at the end */
	fx_done(t);
}

/* rename(2)'s cases (Linux do_renameat2 + vfs_rename + shmem_rename2). */
static void test_rename(struct ktest *t)
{
	struct dentry *a, *d;

	if (!fx_init(t))
		return;
	a = new_file(t, "a");
	ASSERT_TRUE(t, a);
	EXPECT_EQ(t, fs_create(fx.dir, "b", 1, S_IFREG | 0644, 0, NULL, NULL), 0);
	EXPECT_EQ(t, fs_mkdir(fx.dir, "dir", 3, 0755, &d), 0);
	EXPECT_EQ(t, fs_mkdir(d, "sub", 3, 0755, NULL), 0);
	EXPECT_EQ(t, fs_rename(fx.dir, "dir", 3, d, "x", 1, 0, false), -EINVAL);      /* into itself */
	dput(d);
	EXPECT_EQ(t, fs_mkdir(fx.dir, "full", 4, 0755, NULL), 0);
	EXPECT_EQ(t, resolves("full", 0), 0);
	EXPECT_EQ(t, fs_rename(fx.dir, "zz", 2, fx.dir, "y", 1, 0, false), -ENOENT);
	EXPECT_EQ(t, fs_rename(fx.dir, "a", 1, fx.dir, "b", 1, RENAME_NOREPLACE, false), -EEXIST);
	EXPECT_EQ(t, fs_rename(fx.dir, "a", 1, fx.dir, "dir", 3, 0, false), -EISDIR);
	EXPECT_EQ(t, fs_rename(fx.dir, "dir", 3, fx.dir, "b", 1, 0, false), -ENOTDIR);
	EXPECT_EQ(t, fs_rename(fx.dir, "a", 1, fx.dir, "c", 1, 0, true), -ENOTDIR);   /* "a" -> "c/" */
	EXPECT_EQ(t, fs_rename(fx.dir, "a", 1, fx.dir, "a", 1, 0, false), 0);          /* itself: nothing */
	/* a file over a file: the target's name goes, a (still open here) takes it */
	EXPECT_EQ(t, fs_rename(fx.dir, "a", 1, fx.dir, "b", 1, 0, false), 0);
	EXPECT_EQ(t, resolves("a", 0), -ENOENT);
	ASSERT_EQ(t, lookup("b", 0, &d), 0);
	EXPECT_EQ(t, d == a, 1);
	dput(d);
	/* a directory over an empty one, and into another directory */
	EXPECT_EQ(t, fs_rename(fx.dir, "full", 4, fx.dir, "dir", 3, 0, false), -ENOTEMPTY);
	EXPECT_EQ(t, fs_rename(fx.dir, "dir", 3, fx.dir, "full", 4, 0, false), 0);
	EXPECT_EQ(t, resolves("full/sub", LOOKUP_DIRECTORY), 0);
	ASSERT_EQ(t, lookup("full/sub", 0, &d), 0);
	EXPECT_EQ(t, fs_rename(fx.dir, "b", 1, d, "b", 1, 0, false), 0);
	dput(d);
	EXPECT_EQ(t, resolves("full/sub/b", 0), 0);
	/* onto an ancestor of itself: ENOTEMPTY (lock_rename's trap), before the file/dir check */
	ASSERT_EQ(t, lookup("full/sub", 0, &d), 0);
	EXPECT_EQ(t, fs_rename(d, "b", 1, fx.dir, "full", 4, 0, false), -ENOTEMPTY);
	dput(d);
	dput(a);
	fx_done(t);
}

/* ------------------------------------------------------------------ paths */

/* Path walks: "." and "..", the root's "..", trailing slashes, and Linux's errors. */
static void test_lookup_errors(struct ktest *t)
{
	char longname[NAME_MAX + 2];
	struct dentry *d;

	if (!fx_init(t))
		return;
	EXPECT_EQ(t, fs_mkdir(fx.dir, "a", 1, 0755, NULL), 0);
	d = new_file(t, "f");
	dput(d);
	EXPECT_EQ(t, resolves("a", 0), 0);
	EXPECT_EQ(t, resolves("./a/.././a//", 0), 0);
	EXPECT_EQ(t, resolves("/..", 0), 0);                  /* the root's parent is the root */
	ASSERT_EQ(t, fs_lookup(fs_root(), "/../..", 0, &d), 0);
	EXPECT_EQ(t, d == fs_root(), 1);
	dput(d);
	EXPECT_EQ(t, resolves("", 0), -ENOENT);
	EXPECT_EQ(t, resolves("nope", 0), -ENOENT);
	EXPECT_EQ(t, resolves("nope/x", 0), -ENOENT);
	EXPECT_EQ(t, resolves("f/x", 0), -ENOTDIR);           /* a file used as a directory */
	EXPECT_EQ(t, resolves("f/", 0), -ENOTDIR);            /* a trailing slash wants a directory */
	EXPECT_EQ(t, resolves("f", LOOKUP_DIRECTORY), -ENOTDIR);
	EXPECT_EQ(t, resolves("a/", 0), 0);
	memset(longname, 'n', NAME_MAX + 1);
	longname[NAME_MAX + 1] = 0;
	EXPECT_EQ(t, resolves(longname, 0), -ENAMETOOLONG);
	longname[NAME_MAX] = 0;
	EXPECT_EQ(t, resolves(longname, 0), -ENOENT);         /* 255 bytes is a legal name */
	fx_done(t);
}

/* Symbolic links: relative to their directory, absolute, chains, loops, dangling, the last one not followed. */
static void test_symlinks(struct ktest *t)
{
	struct dentry *d;
	char path[64];

	if (!fx_init(t))
		return;
	EXPECT_EQ(t, fs_mkdir(fx.dir, "dir", 3, 0755, NULL), 0);
	ASSERT_EQ(t, lookup("dir", 0, &d), 0);
	EXPECT_EQ(t, fs_create(d, "f", 1, S_IFREG | 0644, 0, NULL, NULL), 0);
	EXPECT_EQ(t, fs_symlink(d, "up", 2, "../dir/f", NULL), 0);    /* relative to dir/ */
	dput(d);
	EXPECT_EQ(t, fs_symlink(fx.dir, "l", 1, "dir", NULL), 0);
	ksnprintf(path, sizeof(path), "/%s/dir/f", fx.name);
	EXPECT_EQ(t, fs_symlink(fx.dir, "abs", 3, path, NULL), 0);
	EXPECT_EQ(t, fs_symlink(fx.dir, "loop1", 5, "loop2", NULL), 0);
	EXPECT_EQ(t, fs_symlink(fx.dir, "loop2", 5, "loop1", NULL), 0);
	EXPECT_EQ(t, fs_symlink(fx.dir, "dangling", 8, "nowhere", NULL), 0);
	EXPECT_EQ(t, resolves("l/f", 0), 0);
	EXPECT_EQ(t, resolves("l/up", LOOKUP_FOLLOW), 0);
	EXPECT_EQ(t, resolves("abs", LOOKUP_FOLLOW), 0);
	EXPECT_EQ(t, resolves("loop1", LOOKUP_FOLLOW), -ELOOP);
	EXPECT_EQ(t, resolves("loop1", 0), 0);                /* the link itself */
	EXPECT_EQ(t, resolves("dangling", LOOKUP_FOLLOW), -ENOENT);
	EXPECT_EQ(t, resolves("l/", 0), 0);                   /* a trailing slash follows */
	ASSERT_EQ(t, lookup("l", 0, &d), 0);
	EXPECT_TRUE(t, S_ISLNK(d->inode->mode));
	dput(d);
	ASSERT_EQ(t, lookup("l", LOOKUP_FOLLOW, &d), 0);
	EXPECT_TRUE(t, S_ISDIR(d->inode->mode));
	dput(d);
	fx_done(t);
}

/* d_path: the path from the root; " (deleted)" once unlinked, also for a never-linked file. */
static void test_paths(struct ktest *t)
{
	char buf[128], want[128];
	struct dentry *d, *m;

	if (!fx_init(t))
		return;
	EXPECT_EQ(t, fs_mkdir(fx.dir, "a", 1, 0755, NULL), 0);
	ASSERT_EQ(t, lookup("a", 0, &d), 0);
	EXPECT_EQ(t, fs_create(d, "f", 1, S_IFREG | 0644, 0, NULL, NULL), 0);
	dput(d);
	ASSERT_EQ(t, lookup("a/f", 0, &d), 0);
	ksnprintf(want, sizeof(want), "/%s/a/f", fx.name);
	EXPECT_EQ(t, fs_path(d, buf, sizeof(buf)), strlen(want));
	EXPECT_STREQ(t, buf, want);
	EXPECT_EQ(t, fs_path(d, buf, 4), strlen(want));    /* cut, NUL-terminated */
	EXPECT_EQ(t, strlen(buf), 3);
	EXPECT_EQ(t, fs_rename(fx.dir, "a", 1, fx.dir, "b", 1, 0, false), 0);
	ksnprintf(want, sizeof(want), "/%s/b/f", fx.name);
	fs_path(d, buf, sizeof(buf));
	EXPECT_STREQ(t, buf, want);
	ASSERT_EQ(t, lookup("b", 0, &m), 0);
	EXPECT_EQ(t, fs_unlink(m, "f", 1), 0);
	dput(m);
	ksnprintf(want, sizeof(want), "/%s/b/f (deleted)", fx.name);
	fs_path(d, buf, sizeof(buf));
	EXPECT_STREQ(t, buf, want);
	dput(d);
	m = fs_create_unlinked("memfd:x", 0777);
	ASSERT_TRUE(t, m);
	fs_path(m, buf, sizeof(buf));
	EXPECT_STREQ(t, buf, "/memfd:x (deleted)");
	dput(m);
	fs_path(fs_root(), buf, sizeof(buf));
	EXPECT_STREQ(t, buf, "/");
	fx_done(t);
}

/* ---------------------------------------------------------------- cpio */

/* Append one newc entry to a (its data too, padded) whose name field is nl bytes of name (NULs after the name pad it). */
static size_t cpio_put_nl(char *a, size_t off, const char *name, size_t nl, uint32_t mode, const char *data,
			  size_t n)
{
	off += ksnprintf(a + off, 111, "070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
			 1u, mode, 0u, 0u, 1u, 1000u, (unsigned)n, 0u, 0u, 0u, 0u, (unsigned)nl, 0u);
	memcpy(a + off, name, nl);
	off = ALIGN_UP(off + nl, 4UL);
	memcpy(a + off, data, n);
	return ALIGN_UP(off + n, 4UL);
}

/* Append one newc entry to a (its data too, padded). */
static size_t cpio_put(char *a, size_t off, const char *name, uint32_t mode, const char *data, size_t n)
{
	return cpio_put_nl(a, off, name, strlen(name) + 1, mode, data, n);
}

/* An archive with ".", a directory, a file in a directory not listed, a link, a fifo (skipped). */
static void test_cpio(struct ktest *t)
{
	static char a[2048];
	char back[16];
	struct dentry *d;
	size_t n = 0;

	if (!fx_init(t))
		return;
	n = cpio_put(a, n, ".", S_IFDIR | 0755, "", 0);
	n = cpio_put(a, n, "bin", S_IFDIR | 0700, "", 0);
	n = cpio_put(a, n, "./usr/lib/x.so", S_IFREG | 0755, "ELFELF", 6);
	n = cpio_put(a, n, "bin/x", S_IFLNK | 0777, "../usr/lib/x.so", 15);
	n = cpio_put(a, n, "fifo", S_IFIFO | 0644, "", 0);
	n = cpio_put(a, n, "TRAILER!!!", 0, "", 0);
	ASSERT_EQ(t, fs_unpack_cpio(fx.dir, a, n, NULL), 0);
	ASSERT_EQ(t, lookup("bin/x", LOOKUP_FOLLOW, &d), 0);
	EXPECT_EQ(t, d->inode->mode, S_IFREG | 0755);
	EXPECT_EQ(t, d->inode->mtime.sec, 1000);
	EXPECT_EQ(t, get_bytes(d->inode, 0, back, sizeof(back)), 6);
	EXPECT_EQ(t, memcmp(back, "ELFELF", 6), 0);
	dput(d);
	ASSERT_EQ(t, lookup("bin", 0, &d), 0);
	EXPECT_EQ(t, d->inode->mode, S_IFDIR | 0700);
	/* the archive's time, though bin/x was made in it later (Linux sets directories' last) */
	EXPECT_EQ(t, d->inode->mtime.sec, 1000);
	EXPECT_EQ(t, d->inode->atime.sec, 1000);
	{
		struct fs_time now;

		fs_now(&now);                           /* ctime is the unpacking's (0 on the host: no clock) */
		EXPECT_NE(t, d->inode->ctime.sec, 1000);
		EXPECT_LE(t, d->inode->ctime.sec, now.sec);
	}
	dput(d);
	ASSERT_EQ(t, lookup("usr", 0, &d), 0);
	EXPECT_EQ(t, d->inode->mode, S_IFDIR | 0755);        /* made for the file below it */
	dput(d);
	EXPECT_EQ(t, resolves("fifo", 0), -ENOENT);
	/* unpacking again replaces the file and keeps the directories */
	ASSERT_EQ(t, fs_unpack_cpio(fx.dir, a, n, NULL), 0);
	EXPECT_EQ(t, resolves("bin/x", LOOKUP_FOLLOW), 0);
	/* a name under a linked directory (Debian's lib -> usr/lib) lands where the link leads */
	n = cpio_put(a, 0, "lib", S_IFLNK | 0777, "usr/lib", 7);
	n = cpio_put(a, n, "lib/y.so", S_IFREG | 0644, "Y", 1);
	n = cpio_put(a, n, "TRAILER!!!", 0, "", 0);
	ASSERT_EQ(t, fs_unpack_cpio(fx.dir, a, n, NULL), 0);
	EXPECT_EQ(t, resolves("usr/lib/y.so", 0), 0);
	ASSERT_EQ(t, lookup("lib", 0, &d), 0);
	EXPECT_EQ(t, d->inode->mode & S_IFMT, S_IFLNK);   /* still the link */
	dput(d);
	/* a dangling link on the way: the lookup's -ENOENT */
	n = cpio_put(a, 0, "gone", S_IFLNK | 0777, "nowhere", 7);
	n = cpio_put(a, n, "gone/z", S_IFREG | 0644, "Z", 1);
	n = cpio_put(a, n, "TRAILER!!!", 0, "", 0);
	EXPECT_EQ(t, fs_unpack_cpio(fx.dir, a, n, NULL), -ENOENT);
	/* malformed: a bad magic, a cut archive, no trailer */
	EXPECT_EQ(t, fs_unpack_cpio(fx.dir, "070709", 6, NULL), -EINVAL);
	EXPECT_EQ(t, fs_unpack_cpio(fx.dir, a, 100, NULL), -EINVAL);
	n = cpio_put(a, 0, "z", S_IFREG | 0644, "q", 1);
	EXPECT_EQ(t, fs_unpack_cpio(fx.dir, a, n, NULL), -EINVAL);
	/* NULs after a name are padding (tools/run aligns file data so): the name ends at the first */
	n = cpio_put_nl(a, 0, "padded\0\0\0\0\0\0\0", 14, S_IFREG | 0644, "P", 1);
	n = cpio_put(a, n, "TRAILER!!!", 0, "", 0);
	ASSERT_EQ(t, fs_unpack_cpio(fx.dir, a, n, NULL), 0);
	EXPECT_EQ(t, resolves("padded", 0), 0);
	fx_done(t);
}

/* ---------------------------------------------------------------- dynamic directories */

static bool dyn_alive = true;           /* what the entries' revalidate says */

static bool dyn_revalidate(struct dentry *d)
{
	return dyn_alive;
}

/* A magic link that leads to itself (what /proc/self/fd/N of a pipe does). */
static struct dentry *dyn_follow_self(struct dentry *link)
{
	return link;
}

static const struct inode_special *dyn_lookup(struct dentry *dir, const char *name, size_t len,
					      uint32_t *mode);
static const struct inode_special dyn_file = { .revalidate = dyn_revalidate };
static const struct inode_special dyn_link = { .follow = dyn_follow_self, .revalidate = dyn_revalidate };
static const struct inode_special dyn_dir = { .lookup = dyn_lookup, .revalidate = dyn_revalidate };
static const struct inode_special dyn_top = { .lookup = dyn_lookup };      /* as /proc: always there */

/* While dyn_alive: "a" (a file), "l" (the link), "d" (a dynamic directory with the same entries). */
static const struct inode_special *dyn_lookup(struct dentry *dir, const char *name, size_t len,
					      uint32_t *mode)
{
	if (len != 1 || !dyn_alive)
		return NULL;
	*mode = name[0] == 'a' ? S_IFREG | 0444 : name[0] == 'l' ? S_IFLNK | 0777 : S_IFDIR | 0555;
	return name[0] == 'a' ? &dyn_file : name[0] == 'l' ? &dyn_link : name[0] == 'd' ? &dyn_dir : NULL;
}

/* Entries made at lookup and kept while they exist; nothing made, removed or renamed in them. */
static void test_dynamic_dir(struct ktest *t)
{
	struct dentry *dyn, *d;
	size_t before;

	if (!fx_init(t))
		return;
	dyn_alive = true;
	ASSERT_EQ(t, fs_mkdir_special(fx.dir, "dyn", 3, 0555, &dyn_top, &dyn), 0);
	before = fs_dentries_inuse();
	EXPECT_EQ(t, resolves("dyn/a", 0), 0);
	EXPECT_EQ(t, fs_dentries_inuse(), before + 1);          /* made, and kept by the directory */
	EXPECT_EQ(t, resolves("dyn/a", 0), 0);
	EXPECT_EQ(t, fs_dentries_inuse(), before + 1);          /* found again, not made twice */
	EXPECT_EQ(t, resolves("dyn/b", 0), -ENOENT);
	EXPECT_EQ(t, resolves("dyn/d/d/a", 0), 0);               /* nested dynamic directories */
	EXPECT_EQ(t, fs_dentries_inuse(), before + 4);
	/* a link that leads to itself ends the walk there; nothing goes below it */
	ASSERT_EQ(t, lookup("dyn/l", LOOKUP_FOLLOW, &d), 0);
	EXPECT_EQ(t, d->inode->mode & S_IFMT, S_IFLNK);
	dput(d);
	EXPECT_EQ(t, resolves("dyn/l/a", LOOKUP_FOLLOW), -ENOTDIR);
	/* Linux's procfs errors for changes */
	EXPECT_EQ(t, fs_create(dyn, "n", 1, S_IFREG | 0644, 0, NULL, NULL), -EACCES);
	EXPECT_EQ(t, fs_mkdir(dyn, "n", 1, 0755, NULL), -EPERM);
	EXPECT_EQ(t, fs_symlink(dyn, "n", 1, "a", NULL), -EPERM);
	EXPECT_EQ(t, fs_unlink(dyn, "a", 1), -EPERM);
	EXPECT_EQ(t, fs_rmdir(dyn, "d", 1), -EPERM);
	EXPECT_EQ(t, fs_rename(dyn, "a", 1, fx.dir, "z", 1, 0, false), -EPERM);
	EXPECT_EQ(t, resolves("z", 0), -ENOENT);
	/* still there: forget keeps it; gone: the next lookup prunes it */
	fs_dyn_forget(dyn, "a", 1);
	EXPECT_EQ(t, fs_dentries_inuse(), before + 5);          /* a, d, d/d, d/d/a, l */
	dyn_alive = false;
	EXPECT_EQ(t, resolves("dyn/a", 0), -ENOENT);
	EXPECT_EQ(t, fs_dentries_inuse(), before + 4);
	/* forget prunes a name and what it cached below it */
	fs_dyn_forget(dyn, "d", 1);
	EXPECT_EQ(t, fs_dentries_inuse(), before + 1);
	fs_dyn_forget(dyn, "l", 1);
	EXPECT_EQ(t, fs_dentries_inuse(), before);
	EXPECT_TRUE(t, list_empty(&dyn->children));
	dput(dyn);
	fx_done(t);
}

static const struct ktest_case fs_cases[] = {
	KTEST_CASE(test_write_read_hole),
	KTEST_CASE(test_truncate),
	KTEST_CASE(test_page_limit),
	KTEST_CASE(test_pages_freed_at_last_user),
	KTEST_CASE(test_dir_errors),
	KTEST_CASE(test_readdir),
	KTEST_CASE(test_rename),
	KTEST_CASE(test_lookup_errors),
	KTEST_CASE(test_symlinks),
	KTEST_CASE(test_paths),
	KTEST_CASE(test_cpio),
	KTEST_CASE(test_dynamic_dir),
	{ 0 }
};

KTEST_SUITE(fs, fs_cases);
