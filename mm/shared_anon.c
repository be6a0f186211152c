/*
 * Shared anonymous memory (MAP_SHARED | MAP_ANONYMOUS), as Linux's
 * shmem_zero_setup makes it: a file of its own, zero-filled, of the
 * mapping's size, that only the mapping (and its copies: splits, fork,
 * mremap) can reach. Here that is a page-cache object (mm/filemap.c) and a
 * vm_file naming it "/dev/zero (deleted)", freed with the last VMA.
 *
 * Locking: none of its own: the reference count is atomic, the object has
 * its lock.
 */
#include "internal.h"
#include "slab.h"
#include "kstring.h"
#include "printk.h"

struct shared_anon {
	struct vm_file file;
	struct vm_object obj;
	int refcount;                 /* [atomic] VMAs + the creator's */
	uint64_t ino;                 /* [init] its inode number in maps */
};

static uint64_t sa_next_ino;

static void sa_release(struct vm_object *o)
{
	kfree(container_of(o, struct shared_anon, obj));
}

static void sa_object_describe(struct vm_object *o, char *buf, size_t n)
{
	struct shared_anon *sa = container_of(o, struct shared_anon, obj);

	ksnprintf(buf, n, "shared anon ino %llu, file refs %d", (unsigned long long)sa->ino, READ_ONCE(sa->refcount));
}

static const struct vm_object_ops sa_object_ops = { .release = sa_release, .describe = sa_object_describe };

static void sa_get(struct vm_file *f)
{
	__atomic_add_fetch(&container_of(f, struct shared_anon, file)->refcount, 1, __ATOMIC_RELAXED);
}

static void sa_put(struct vm_file *f)
{
	struct shared_anon *sa = container_of(f, struct shared_anon, file);

	if (__atomic_sub_fetch(&sa->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	/*
	 * The last mapping went: the pages go now (Linux's shmem_evict_inode
	 * truncates them), not with the object, which reclaim may still hold
	 * for a whole turn of its clock (shmem_reclaim): else the memory of a
	 * process that exited came back only later, after its parent reaped it.
	 */
	vm_object_evict(&sa->obj);
	vm_object_put(&sa->obj);
}

/* Linux names the file "dev/zero" on its internal mount; maps prints it deleted. */
static void sa_describe(const struct vm_file *f, char *buf, size_t size, uint64_t *dev, uint64_t *ino)
{
	const struct shared_anon *sa = container_of(f, struct shared_anon, file);

	ksnprintf(buf, size, "/dev/zero (deleted)");
	*dev = 1;
	*ino = sa->ino;
}

static const struct vm_file_ops sa_file_ops = {
	.get = sa_get, .put = sa_put, .describe = sa_describe,
};

struct vm_file *shared_anon_file(uint64_t size)
{
	struct shared_anon *sa = kzalloc(sizeof(*sa));

	if (!sa)
		return NULL;
	vm_object_init(&sa->obj, &sa_object_ops, size);
	sa->refcount = 1;
	sa->ino = __atomic_add_fetch(&sa_next_ino, 1, __ATOMIC_RELAXED);
	sa->file.ops = &sa_file_ops;
	sa->file.obj = &sa->obj;
	sa->file.mode = VMF_READ | VMF_WRITE;
	return &sa->file;
}
