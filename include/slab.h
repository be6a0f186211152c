/*
 * Slab allocator: caches of fixed-size objects carved from buddy pages, and
 * kmalloc/kfree over power-of-two size classes (8 .. 2048 bytes; bigger
 * requests take whole buddy blocks).
 *
 * Debug builds (SLAB_DEBUG, on by default) put a red zone after each object
 * and fill freed objects with a poison pattern; a red-zone overwrite, a write
 * after free, or a double free is reported on the console and counted in
 * slab_debug_errors (the allocator then goes on without using the damaged object).
 *
 * Locking: each cache has its own spinlock; callable with interrupts off.
 */
#ifndef SLAB_H
#define SLAB_H

#include "types.h"

struct kmem_cache;

/* Create a cache of objects of size bytes aligned to align (0: 8). NULL on -ENOMEM. */
struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align);
/*
 * kmem_cache_get_or_create: *slot, created on first use; safe when several
 * CPUs get there at once (the loser's cache is destroyed). NULL on -ENOMEM.
 */
struct kmem_cache *kmem_cache_get_or_create(struct kmem_cache **slot, const char *name, size_t size,
					    size_t align);
/* Destroy a cache; every object must already be freed (else reported, and its pages leak). */
void kmem_cache_destroy(struct kmem_cache *c);
/* Allocate one object, or NULL when memory is exhausted. Contents undefined. */
void *kmem_cache_alloc(struct kmem_cache *c);
void *kmem_cache_zalloc(struct kmem_cache *c);
/* Free an object from kmem_cache_alloc of the same cache. NULL is ignored. */
void kmem_cache_free(struct kmem_cache *c, void *obj);
/* Every cache gives back its empty slabs (a cache keeps one to avoid churn): afterwards only slabs with live objects hold pages (leak checks). */
void slab_shrink_all(void);
/* Objects now allocated from c. */
size_t kmem_cache_inuse(const struct kmem_cache *c);
/*
 * slab_mark_all: every cache remembers its objects and slabs now (a cache
 * created later: none); kmem_cache_changed: c's counts differ from its
 * mark; slab_report_changed prints to the kernel log each cache that
 * changed (which cache a leak check's missing slab frames are in).
 */
void slab_mark_all(void);
bool kmem_cache_changed(const struct kmem_cache *c);
void slab_report_changed(void);
/* Verify a cache's invariants (and, in debug builds, every free object's poison). 0 or -EINVAL. */
int kmem_cache_check(struct kmem_cache *c);
/* kmem_cache_check on every cache; *checked (may be NULL) = how many. 0 or -EINVAL (one failed). */
int slab_check_all(unsigned *checked);

void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(void *p);

/*
 * Fault injection for tests: the nth allocation from now (1 = the next one)
 * by kmem_cache_alloc/kmalloc returns NULL as if memory were exhausted;
 * 0 turns injection off. Lets tests check that a failed operation leaves
 * everything as it was.
 */
void slab_fail_nth(unsigned long n);

/* Number of corruptions the debug checks have detected since boot. */
extern unsigned long slab_debug_errors;

/* Set up the kmalloc caches. Needs pmm_init first. */
void slab_init(void);

#endif
