/*
 * File mappings on mm/ (host and kernel): a file of fs/ mapped through a
 * test vm_file into address spaces made by mm_create and mm_dup, so that
 * truncation and hole punching (mm/truncate.c) are seen from several
 * address spaces at once, which neither the user tests nor mmscript can
 * arrange. Expected values are Linux's rules (each case says which), with
 * leak checks of frames, objects, VMAs and the vm_file references.
 */
#include "test_mm_util.h"
#include "fs.h"
#include "kerrno.h"

#define A0 0x20000000UL
#define UT_SH (MAP_SHARED | MAP_FIXED)
#define UT_PR (MAP_PRIVATE | MAP_FIXED)

/* A file of fs/, opened read-write as mm sees an open file. */
struct tfile {
	struct vm_file vm;
	struct dentry *d;
	int refs;
};

static void tf_get(struct vm_file *f) { container_of(f, struct tfile, vm)->refs++; }
static void tf_put(struct vm_file *f) { container_of(f, struct tfile, vm)->refs--; }

static void tf_describe(const struct vm_file *f, char *buf, size_t size, uint64_t *dev, uint64_t *ino)
{
	fs_path(container_of(f, struct tfile, vm)->d, buf, size);
	*dev = 1;
	*ino = 0;
}

static const struct vm_file_ops tf_ops = { .get = tf_get, .put = tf_put, .describe = tf_describe };

static size_t copy_byte(void *arg, size_t done, void *kaddr, size_t n)
{
	memcpy(kaddr, arg, n);
	return 0;
}

/* A new file of size bytes, byte 0 of page i = 'a' + i. */
static bool tf_open(struct ktest *t, struct tfile *tf, uint64_t size)
{
	if (!fs_root() && fs_init())
		return false;
	tf->d = fs_create_unlinked("memfd:test", 0777);
	if (!tf->d)
		return false;
	tf->vm.ops = &tf_ops;
	tf->vm.obj = &tf->d->inode->data;
	tf->vm.mode = VMF_READ | VMF_WRITE;
	tf->refs = 1;
	fs_truncate(tf->d->inode, size);
	for (uint64_t p = 0; p * PAGE_SIZE < size; p++) {
		char c = (char)('a' + p);

		fs_write(tf->d->inode, p * PAGE_SIZE, 1, copy_byte, &c);
	}
	return true;
}

static void tf_close(struct ktest *t, struct tfile *tf)
{
	EXPECT_EQ(t, tf->refs, 1);              /* every VMA gave its reference back */
	dput(tf->d);
}

struct counts {
	size_t frames, objects, vmas;
};

static void counts_take(struct counts *c)
{
	if (!fs_root())
		fs_init();              /* the root stays: made before the counts */
	ut_warm_up();
	c->frames = ut_free_frames();
	c->objects = vm_object_inuse();
	c->vmas = vma_objects_inuse();
}

static void counts_check(struct ktest *t, const struct counts *c)
{
	EXPECT_EQ(t, ut_free_frames(), c->frames);
	EXPECT_EQ(t, vm_object_inuse(), c->objects);
	EXPECT_EQ(t, vma_objects_inuse(), c->vmas);
}

/*
 * Truncation reaches every address space: a shared mapping in the parent
 * and a private copy in a fork child both lose the pages past the new end
 * (SIGBUS; Linux truncate_pagecache unmaps even_cows), the last page's tail
 * reads zero, and growing the file back gives zero pages.
 */
static void test_truncate_every_mm(struct ktest *t)
{
	struct counts c;
	struct tfile tf;
	struct mm *mm, *child;

	counts_take(&c);
	ASSERT_TRUE(t, tf_open(t, &tf, 4 * PAGE_SIZE));
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, A0, 4 * PAGE_SIZE, UT_RW, UT_SH, &tf.vm, 0), (long)A0);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, A0 + 8 * PAGE_SIZE, 4 * PAGE_SIZE, UT_RW, UT_PR, &tf.vm, 0),
		  (long)(A0 + 8 * PAGE_SIZE));
	EXPECT_EQ(t, ut_read8(mm, A0 + 2 * PAGE_SIZE), 'c');
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	EXPECT_EQ(t, ut_write8(child, A0 + 10 * PAGE_SIZE, 'P'), FAULT_OK);   /* a private copy */
	EXPECT_EQ(t, ut_read8(child, A0 + 3 * PAGE_SIZE), 'd');
	EXPECT_EQ(t, fs_truncate(tf.d->inode, PAGE_SIZE + 5), 0);
	EXPECT_EQ(t, ut_read8(mm, A0 + 2 * PAGE_SIZE), UT_READ_FAULT(FAULT_SIGBUS));
	EXPECT_EQ(t, ut_read8(child, A0 + 3 * PAGE_SIZE), UT_READ_FAULT(FAULT_SIGBUS));
	EXPECT_EQ(t, ut_read8(child, A0 + 10 * PAGE_SIZE), UT_READ_FAULT(FAULT_SIGBUS));
	EXPECT_EQ(t, ut_read8(mm, A0 + PAGE_SIZE), 'b');
	EXPECT_EQ(t, ut_write8(mm, A0 + PAGE_SIZE + 5, 'x'), FAULT_OK);
	EXPECT_EQ(t, fs_truncate(tf.d->inode, 4 * PAGE_SIZE), 0);
	EXPECT_EQ(t, ut_read8(child, A0 + PAGE_SIZE + 5), 'x');     /* the tail written past the end shows */
	EXPECT_EQ(t, ut_read8(child, A0 + 10 * PAGE_SIZE), 0);      /* the file's new zero page */
	EXPECT_EQ(t, ut_read8(mm, A0 + 3 * PAGE_SIZE), 0);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	EXPECT_EQ(t, ut_vma_check(child), 0);
	mm_put(child);
	mm_put(mm);
	tf_close(t, &tf);
	counts_check(t, &c);
}

/*
 * A hole punched through one address space (MADV_REMOVE: shmem_fallocate
 * PUNCH_HOLE, no even_cows) empties the page for every shared mapping of
 * the file, while a private copy made earlier keeps its bytes.
 */
static void test_punch_every_mm(struct ktest *t)
{
	struct counts c;
	struct tfile tf;
	struct mm *mm, *child;

	counts_take(&c);
	ASSERT_TRUE(t, tf_open(t, &tf, 2 * PAGE_SIZE));
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, A0, 2 * PAGE_SIZE, UT_RW, UT_SH, &tf.vm, 0), (long)A0);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, A0 + 4 * PAGE_SIZE, PAGE_SIZE, UT_RW, UT_PR, &tf.vm, 0),
		  (long)(A0 + 4 * PAGE_SIZE));
	EXPECT_EQ(t, ut_write8(mm, A0 + 4 * PAGE_SIZE + 1, 'p'), FAULT_OK);
	child = mm_dup(mm);
	ASSERT_TRUE(t, child);
	EXPECT_EQ(t, ut_read8(child, A0), 'a');
	EXPECT_EQ(t, vm_madvise(mm, A0, PAGE_SIZE, MADV_REMOVE), 0);
	EXPECT_EQ(t, ut_read8(child, A0), 0);
	EXPECT_EQ(t, ut_read8(mm, A0), 0);
	EXPECT_EQ(t, ut_read8(child, A0 + 4 * PAGE_SIZE), 'a');    /* the copy stays */
	EXPECT_EQ(t, ut_read8(child, A0 + PAGE_SIZE), 'b');
	EXPECT_EQ(t, vm_object_pages(tf.vm.obj), 2);               /* page 0 again (read), page 1 */
	mm_put(child);
	mm_put(mm);
	tf_close(t, &tf);
	counts_check(t, &c);
}

/*
 * Splits, merges, mremap and munmap keep the file's reference count
 * exact: one per VMA (Linux's get_file in vm_area_dup, fput in
 * vm_area_free), back to the opener's alone when all are gone.
 */
static void test_file_references(struct ktest *t)
{
	struct counts c;
	struct tfile tf;
	struct mm *mm;

	counts_take(&c);
	ASSERT_TRUE(t, tf_open(t, &tf, 8 * PAGE_SIZE));
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, A0, 8 * PAGE_SIZE, UT_RW, UT_SH, &tf.vm, 0), (long)A0);
	EXPECT_EQ(t, tf.refs, 2);
	EXPECT_EQ(t, vm_mprotect(mm, A0 + 2 * PAGE_SIZE, PAGE_SIZE, PROT_READ), 0);
	EXPECT_EQ(t, tf.refs, 4);                                   /* split in three */
	EXPECT_EQ(t, tf.vm.obj->nr_vmas, 3);
	EXPECT_EQ(t, vm_mprotect(mm, A0 + 2 * PAGE_SIZE, PAGE_SIZE, UT_RW), 0);
	EXPECT_EQ(t, tf.refs, 2);                                   /* merged back */
	EXPECT_EQ(t, vm_mremap(mm, A0, 2 * PAGE_SIZE, 2 * PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED,
			       A0 + 16 * PAGE_SIZE), (long)(A0 + 16 * PAGE_SIZE));
	EXPECT_EQ(t, tf.refs, 3);
	EXPECT_EQ(t, vm_munmap(mm, A0, 32 * PAGE_SIZE), 0);
	EXPECT_EQ(t, tf.refs, 1);
	EXPECT_EQ(t, tf.vm.obj->nr_vmas, 0);
	mm_put(mm);
	tf_close(t, &tf);
	counts_check(t, &c);
}

static const struct ktest_case mm_file_cases[] = {
	KTEST_CASE(test_truncate_every_mm),
	KTEST_CASE(test_punch_every_mm),
	KTEST_CASE(test_file_references),
	{ 0 }
};

KTEST_SUITE(mm_file, mm_file_cases);
