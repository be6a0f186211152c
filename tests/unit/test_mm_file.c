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
#ifndef HOSTED
#include "task.h"
#endif

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
 * Truncation finds the address spaces through the file's i_mmap list
 * (Linux's unmap_mapping_range): one that maps the file is visited once,
 * however many of its VMAs map it (its mmap_lock taken for reading once),
 * and one that does not is never visited. Before, every address space on
 * the system was. The lock counts are exact on the host only: in the
 * kernel, khugepaged may take any address space's lock meanwhile.
 */
static void test_truncate_visits_mapping_mms(struct ktest *t)
{
	struct counts c;
	struct tfile tf;
	struct mm *mm, *other;
	unsigned long reads, other_reads;

	counts_take(&c);
	ASSERT_TRUE(t, tf_open(t, &tf, 4 * PAGE_SIZE));
	mm = mm_create();
	other = mm_create();
	ASSERT_TRUE(t, mm && other);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, A0, 4 * PAGE_SIZE, UT_RW, UT_SH, &tf.vm, 0), (long)A0);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, A0 + 8 * PAGE_SIZE, 4 * PAGE_SIZE, UT_RW, UT_PR, &tf.vm, 0),
		  (long)(A0 + 8 * PAGE_SIZE));
	EXPECT_EQ(t, vm_mmap(other, A0, 4 * PAGE_SIZE, UT_RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), (long)A0);
	reads = mm->mmap_lock.read_acquired;
	other_reads = other->mmap_lock.read_acquired;
	EXPECT_EQ(t, fs_truncate(tf.d->inode, PAGE_SIZE), 0);
#ifdef HOSTED
	EXPECT_EQ(t, mm->mmap_lock.read_acquired - reads, 1);
	EXPECT_EQ(t, other->mmap_lock.read_acquired - other_reads, 0);
#else
	(void)reads;
	(void)other_reads;
#endif
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(other);
	mm_put(mm);
	tf_close(t, &tf);
	counts_check(t, &c);
}

/*
 * More address spaces map the file than the walk keeps track of
 * (UNMAP_MMS_MAX, 32): it visits every address space instead, and every
 * one of them loses the pages past the end (SIGBUS) and keeps the rest.
 */
#define MANY_MMS 40

static void test_truncate_many_mms(struct ktest *t)
{
	struct counts c;
	struct tfile tf;
	struct mm *mms[MANY_MMS];

	counts_take(&c);
	ASSERT_TRUE(t, tf_open(t, &tf, 4 * PAGE_SIZE));
	for (unsigned i = 0; i < MANY_MMS; i++) {
		mms[i] = mm_create();
		ASSERT_TRUE(t, mms[i]);
		EXPECT_EQ(t, vm_mmap_pgoff(mms[i], A0, 4 * PAGE_SIZE, UT_RW, UT_SH, &tf.vm, 0), (long)A0);
		EXPECT_EQ(t, ut_read8(mms[i], A0 + 3 * PAGE_SIZE), 'd');
	}
	EXPECT_EQ(t, fs_truncate(tf.d->inode, 2 * PAGE_SIZE), 0);
	for (unsigned i = 0; i < MANY_MMS; i++) {
		EXPECT_EQ(t, ut_read8(mms[i], A0 + 3 * PAGE_SIZE), UT_READ_FAULT(FAULT_SIGBUS));
		EXPECT_EQ(t, ut_read8(mms[i], A0 + PAGE_SIZE), 'b');
		mm_put(mms[i]);
	}
	tf_close(t, &tf);
	counts_check(t, &c);
}

#ifndef HOSTED
struct fork_race {
	struct mm *blocker;
	struct inode *inode;
	int held;                     /* [atomic] 1 while the holder has blocker's mmap_lock */
	int release;                  /* [atomic] 1: the holder lets go */
	int done;                     /* [atomic] 1 once fs_truncate returned */
};

static void truncate_to_one_page(void *arg)
{
	struct fork_race *r = arg;

	fs_truncate(r->inode, PAGE_SIZE);
	smp_store_release(&r->done, 1);
}

/* Hold blocker's mmap_lock for writing until told to let go (a task of its own: lockdep
 * would see two address spaces' locks nested in the test's, as mm_dup takes the parent's). */
static void hold_blocker(void *arg)
{
	struct fork_race *r = arg;

	mmap_write_lock(r->blocker);
	smp_store_release(&r->held, 1);
	while (!smp_load_acquire(&r->release))
		sched_yield();
	mmap_write_unlock(r->blocker);
}

/*
 * A fork while truncation is under way: the truncation (a kernel thread)
 * has found the address spaces mapping the file, {blocker, parent}, and
 * waits for blocker's mmap_lock, which another task holds. Meanwhile the
 * parent forks: the child gets copies of the parent's PTEs of pages 1-3,
 * which are past the new end but not yet unmapped (the parent is visited
 * after blocker). The truncation must find the child too: its pages 1-3
 * read SIGBUS afterwards, not the old bytes. (A walk that looks at the
 * list once misses it; Linux orders the child's VMA after the parent's in
 * i_mmap for this.) The test does not hang where the truncation never
 * waits: it then goes on when the thread is done, and the checks fail.
 */
static void test_truncate_races_fork(struct ktest *t)
{
	struct counts c;
	struct tfile tf;
	struct mm *parent, *child;
	struct fork_race r = { 0 };
	struct task *holder, *truncator;
	unsigned long waited;

	counts_take(&c);
	ASSERT_TRUE(t, tf_open(t, &tf, 4 * PAGE_SIZE));
	r.blocker = mm_create();
	parent = mm_create();
	ASSERT_TRUE(t, r.blocker && parent);
	r.inode = tf.d->inode;
	EXPECT_EQ(t, vm_mmap_pgoff(r.blocker, A0, 4 * PAGE_SIZE, UT_RW, UT_SH, &tf.vm, 0), (long)A0);
	EXPECT_EQ(t, vm_mmap_pgoff(parent, A0, 4 * PAGE_SIZE, UT_RW, UT_SH, &tf.vm, 0), (long)A0);
	for (unsigned i = 0; i < 4; i++)
		EXPECT_EQ(t, ut_read8(parent, A0 + i * PAGE_SIZE), 'a' + (int)i);
	waited = r.blocker->mmap_lock.read_contended;
	holder = kthread_create(hold_blocker, &r, -1, "fork_race_holder");
	ASSERT_TRUE(t, holder != NULL);
	kthread_start(holder);
	while (!smp_load_acquire(&r.held))
		sched_yield();
	truncator = kthread_create(truncate_to_one_page, &r, -1, "fork_race_truncator");
	ASSERT_TRUE(t, truncator != NULL);
	kthread_start(truncator);
	while (READ_ONCE(r.blocker->mmap_lock.read_contended) == waited && !smp_load_acquire(&r.done))
		sched_yield();
	child = mm_dup(parent);
	smp_store_release(&r.release, 1);
	kthread_join(truncator);
	kthread_join(holder);
	ASSERT_TRUE(t, child != NULL);
	for (unsigned i = 1; i < 4; i++) {
		EXPECT_EQ(t, ut_read8(child, A0 + i * PAGE_SIZE), UT_READ_FAULT(FAULT_SIGBUS));
		EXPECT_EQ(t, ut_read8(parent, A0 + i * PAGE_SIZE), UT_READ_FAULT(FAULT_SIGBUS));
	}
	EXPECT_EQ(t, ut_read8(child, A0), 'a');
	EXPECT_EQ(t, ut_vma_check(child), 0);
	mm_put(child);
	mm_put(parent);
	mm_put(r.blocker);
	tf_close(t, &tf);
	counts_check(t, &c);
}
#endif

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

/*
 * A read fault in a private file mapping maps the file's own cached page,
 * read-only (Linux's do_read_fault): the frame a shared mapping of the
 * file maps too, no anon identity, counted in rss_file; a write() to the
 * file shows through it. The first write to the page copies it
 * (do_wp_page: a file's page is never taken over): the copy is the
 * process's own, the file keeps its bytes, and later write()s no longer
 * show through. (The mmscript file_private_cow shows the same on Linux.)
 */
static void test_private_read_shares_cache(struct ktest *t)
{
	const uintptr_t P = A0 + 64 * PAGE_SIZE;       /* another fault-around block */
	struct counts c;
	struct tfile tf;
	struct mm *mm;
	char ch;

	counts_take(&c);
	ASSERT_TRUE(t, tf_open(t, &tf, 2 * PAGE_SIZE));
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, A0, 2 * PAGE_SIZE, UT_RW, UT_SH, &tf.vm, 0), (long)A0);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, P, 2 * PAGE_SIZE, UT_RW, UT_PR, &tf.vm, 0), (long)P);
	EXPECT_EQ(t, ut_read8(mm, P), 'a');
	EXPECT_EQ(t, ut_read8(mm, A0), 'a');
	EXPECT_NE(t, ut_pa(mm, P), 0);
	EXPECT_EQ(t, ut_pa(mm, P), ut_pa(mm, A0));
	EXPECT_EQ(t, ut_state(mm, P) & MMU_WRITE, 0);
	EXPECT_EQ(t, ut_vma(mm, P)->anon, NULL);
	EXPECT_EQ(t, mm->rss_file, mm->rss);
	ch = 'Z';
	EXPECT_EQ(t, fs_write(tf.d->inode, 0, 1, copy_byte, &ch), 1);
	EXPECT_EQ(t, ut_read8(mm, P), 'Z');                         /* shows through */
	EXPECT_EQ(t, ut_write8(mm, P, 'P'), FAULT_OK);              /* the copy */
	EXPECT_EQ(t, mm->cow_copies, 1);
	EXPECT_NE(t, ut_vma(mm, P)->anon, NULL);
	EXPECT_NE(t, ut_pa(mm, P), ut_pa(mm, A0));
	EXPECT_EQ(t, ut_read8(mm, A0), 'Z');                        /* the file kept its byte */
	ch = 'Y';
	EXPECT_EQ(t, fs_write(tf.d->inode, 0, 1, copy_byte, &ch), 1);
	EXPECT_EQ(t, ut_read8(mm, P), 'P');                         /* no longer follows the file */
	EXPECT_EQ(t, ut_read8(mm, A0), 'Y');
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
	tf_close(t, &tf);
	counts_check(t, &c);
}

/*
 * Past the end of the file a private mapping faults with SIGBUS, for a
 * read (do_read_fault) and a write (do_cow_fault) alike: the page lookup
 * fails and vmf_error makes it VM_FAULT_SIGBUS; the bytes of the last page
 * beyond the end read zero. do_cow_fault prepares the VMA's anon identity
 * before the lookup, so a write past the end leaves the VMA one. The
 * faults that fail map nothing.
 */
static void test_private_past_eof_sigbus(struct ktest *t)
{
	struct counts c;
	struct tfile tf;
	struct mm *mm;

	counts_take(&c);
	ASSERT_TRUE(t, tf_open(t, &tf, PAGE_SIZE + 5));
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	EXPECT_EQ(t, vm_mmap_pgoff(mm, A0, 4 * PAGE_SIZE, UT_RW, UT_PR, &tf.vm, 0), (long)A0);
	EXPECT_EQ(t, ut_read8(mm, A0 + PAGE_SIZE), 'b');
	EXPECT_EQ(t, ut_read8(mm, A0 + PAGE_SIZE + 100), 0);       /* the last page's tail */
	EXPECT_EQ(t, ut_read8(mm, A0 + 2 * PAGE_SIZE), UT_READ_FAULT(FAULT_SIGBUS));
	EXPECT_EQ(t, ut_vma(mm, A0)->anon, NULL);
	EXPECT_EQ(t, ut_write8(mm, A0 + 3 * PAGE_SIZE, 1), FAULT_SIGBUS);
	EXPECT_NE(t, ut_vma(mm, A0)->anon, NULL);
	EXPECT_EQ(t, ut_pa(mm, A0 + 2 * PAGE_SIZE), 0);
	EXPECT_EQ(t, ut_pa(mm, A0 + 3 * PAGE_SIZE), 0);
	EXPECT_EQ(t, mm->rss, mm->rss_file);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
	tf_close(t, &tf);
	counts_check(t, &c);
}

/* Which of pages [0, n) of the VMA at va are mapped, as a string of '1' and '0'. */
static void mapped_pages(struct mm *mm, uintptr_t va, unsigned n, char *out)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = ut_pa(mm, va + i * PAGE_SIZE) ? '1' : '0';
	out[n] = 0;
}

/*
 * Fault-around (Linux's do_fault_around with fault_around_bytes 64 KiB,
 * and filemap_map_pages): a read fault also maps the file's cached pages
 * in the 16-page block around it, aligned to 16 entries of its page table
 * but not before the VMA's start, and clipped to the VMA's end, to the
 * page table of the fault and to the end of the file; a page not in the
 * cache (a hole) or already mapped is left as it is. Each case below is
 * that rule worked by hand (pte = the entry's index in its page table).
 */
static void test_fault_around_block(struct ktest *t)
{
	const uintptr_t B = A0 + 69 * PAGE_SIZE, C = A0 + 500 * PAGE_SIZE, D = A0 + 1024 * PAGE_SIZE;
	const uintptr_t E = A0 + 2048 * PAGE_SIZE;
	struct counts c;
	struct tfile tf, holes;
	struct mm *mm;
	phys_addr_t copy;
	char m[65];

	counts_take(&c);
	ASSERT_TRUE(t, tf_open(t, &tf, 64 * PAGE_SIZE));
	ASSERT_TRUE(t, tf_open(t, &holes, 16 * PAGE_SIZE));
	ASSERT_EQ(t, fs_truncate(holes.d->inode, 32 * PAGE_SIZE), 0);   /* pages 16-31: holes */
	mm = mm_create();
	ASSERT_TRUE(t, mm);
	/* A VMA at pte 0: a read of page 20 maps the aligned block 16-31; the copy at 17 stays. */
	EXPECT_EQ(t, vm_mmap_pgoff(mm, A0, 64 * PAGE_SIZE, UT_RW, UT_PR, &tf.vm, 0), (long)A0);
	EXPECT_EQ(t, ut_write8(mm, A0 + 17 * PAGE_SIZE, 'W'), FAULT_OK);
	copy = ut_pa(mm, A0 + 17 * PAGE_SIZE);
	EXPECT_EQ(t, ut_read8(mm, A0 + 20 * PAGE_SIZE), 'a' + 20);
	mapped_pages(mm, A0, 64, m);
	EXPECT_STREQ(t, m, "0000000000000000111111111111111100000000000000000000000000000000");
	EXPECT_EQ(t, ut_pa(mm, A0 + 17 * PAGE_SIZE), copy);
	EXPECT_EQ(t, ut_read8(mm, A0 + 17 * PAGE_SIZE), 'W');
	EXPECT_EQ(t, mm->rss_file, 15);
	/* A VMA starting at pte 69: a read at its page 2 (pte 71) maps from its start, 16 pages. */
	EXPECT_EQ(t, vm_mmap_pgoff(mm, B, 40 * PAGE_SIZE, PROT_READ, UT_PR, &tf.vm, 0), (long)B);
	EXPECT_EQ(t, ut_read8(mm, B + 2 * PAGE_SIZE), 'a' + 2);
	mapped_pages(mm, B, 40, m);
	EXPECT_STREQ(t, m, "1111111111111111000000000000000000000000");
	/* Starting at pte 500, 30 pages: a read at pte 511 maps to the end of its table, no further. */
	EXPECT_EQ(t, vm_mmap_pgoff(mm, C, 30 * PAGE_SIZE, PROT_READ, UT_PR, &tf.vm, 0), (long)C);
	EXPECT_EQ(t, ut_read8(mm, C + 11 * PAGE_SIZE), 'a' + 11);
	mapped_pages(mm, C, 30, m);
	EXPECT_STREQ(t, m, "111111111111000000000000000000");
	/* File pages 56-71 of a 64-page file: only the 8 before the end; past it, SIGBUS. */
	EXPECT_EQ(t, vm_mmap_pgoff(mm, D, 16 * PAGE_SIZE, PROT_READ, UT_PR, &tf.vm, 56), (long)D);
	EXPECT_EQ(t, ut_read8(mm, D), 'a' + 56);
	mapped_pages(mm, D, 16, m);
	EXPECT_STREQ(t, m, "1111111100000000");
	EXPECT_EQ(t, ut_read8(mm, D + 8 * PAGE_SIZE), UT_READ_FAULT(FAULT_SIGBUS));
	/* Holes are not cached: a read of page 20 maps page 20 alone (a zero page of the file's). */
	EXPECT_EQ(t, vm_mmap_pgoff(mm, E, 32 * PAGE_SIZE, PROT_READ, UT_PR, &holes.vm, 0), (long)E);
	EXPECT_EQ(t, ut_read8(mm, E + 20 * PAGE_SIZE), 0);
	mapped_pages(mm, E, 32, m);
	EXPECT_STREQ(t, m, "00000000000000000000100000000000");
	EXPECT_EQ(t, mm->rss_file, 15 + 16 + 12 + 8 + 1);
	EXPECT_EQ(t, ut_vma_check(mm), 0);
	mm_put(mm);
	tf_close(t, &holes);
	tf_close(t, &tf);
	counts_check(t, &c);
}

static const struct ktest_case mm_file_cases[] = {
	KTEST_CASE(test_truncate_every_mm),
	KTEST_CASE(test_punch_every_mm),
	KTEST_CASE(test_truncate_visits_mapping_mms),
	KTEST_CASE(test_truncate_many_mms),
#ifndef HOSTED
	KTEST_CASE(test_truncate_races_fork),
#endif
	KTEST_CASE(test_file_references),
	KTEST_CASE(test_private_read_shares_cache),
	KTEST_CASE(test_private_past_eof_sigbus),
	KTEST_CASE(test_fault_around_block),
	{ 0 }
};

KTEST_SUITE(mm_file, mm_file_cases);
