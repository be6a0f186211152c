/*
 * vmabench_maple: Linux's maple tree as a comparison backend of
 * tools/vmabench. Host benchmark only; never part of the kernel.
 *
 * Nothing of Linux is committed: tools/bench/vmabench-maple-fetch extracts
 * lib/maple_tree.c and Linux's user-space shims (tools/include,
 * tools/testing/shared: the environment tools/testing/radix-tree and
 * tools/testing/vma build the maple tree in) from Debian's linux-source
 * package into build/maple/, and mk/vmabench.mk compiles this file with
 * -I pointing there, so that the #include of maple_tree.c below is
 * Linux's own file, unmodified.
 *
 * The tree is set up as Linux sets up mm->mm_mt (MT_FLAGS_ALLOC_RANGE:
 * gap tracking; MT_FLAGS_LOCK_EXTERN: the caller's lock) but without
 * MT_FLAGS_USE_RCU: in RCU mode most stores copy a node, so the non-RCU
 * tree is the faster opponent. CONFIG_DEBUG_MAPLE_TREE is off (the
 * shims' maple-shared.h turns it on for Linux's test suite).
 *
 * Each vmatrace operation maps to the calls Linux's VMA code makes:
 *   insert  mas_preallocate + mas_store_prealloc (vma_iter_prealloc +
 *           vma_iter_store): the node allocation is part of the insert
 *   find    mas_find from the address (vma_find); the maple state stays
 *           positioned on the result
 *   erase   store NULL over the VMA's range through that positioned state
 *           when it points at the VMA (vma_iter_clear_gfp after vma_find),
 *           else through a fresh one
 *   gap     mas_empty_area_rev (unmapped_area_topdown's
 *           vma_iter_area_highest)
 *
 * Node allocation: the shims' kmem_cache (tools/testing/shared/linux.c) is
 * built for leak checking (a mutex, posix_memalign and free with poisoning
 * for every aligned object), which would charge the maple tree several
 * hundred instructions per node that Linux's slab does not cost. This
 * file supplies its own kmem_cache instead: a LIFO free list, like the
 * per-CPU fast path of Linux's slab, honouring __GFP_ZERO.
 */
/* The kernel's slab, linked into vmabench too, has functions of these names. */
#define kmem_cache_create      vbm_kmem_cache_create
#define kmem_cache_alloc_lru   vbm_kmem_cache_alloc_lru
#define kmem_cache_free        vbm_kmem_cache_free
#define kmem_cache_alloc_bulk  vbm_kmem_cache_alloc_bulk
#define kmem_cache_free_bulk   vbm_kmem_cache_free_bulk

#include "shared.h"
#include <stdlib.h>
#include <string.h>
#include "linux/init.h"

#include "maple_tree.c"

#include "vmabench_maple.h"

#ifndef VBM_LINUX_VERSION
#define VBM_LINUX_VERSION "unknown"
#endif

int kmalloc_verbose;          /* read by the shims' radix-tree.h */

/* ---------------------------------------------------------- node cache */

struct kmem_cache {
	unsigned int size, align;
	void *free;                   /* freed objects, linked through their first word */
	unsigned long in_use;         /* allocated and not freed */
};

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     unsigned int flags, void (*ctor)(void *))
{
	struct kmem_cache *c = calloc(1, sizeof(*c));

	if (!c) {
		fprintf(stderr, "vmabench_maple: out of memory\n");
		exit(2);
	}
	c->size = size;
	c->align = align < sizeof(void *) ? sizeof(void *) : align;
	return c;
}

void *kmem_cache_alloc_lru(struct kmem_cache *c, struct list_lru *lru, int gfp)
{
	void *p = c->free;

	if (p)
		c->free = *(void **)p;
	else if (posix_memalign(&p, c->align, c->size))
		return NULL;
	if (gfp & __GFP_ZERO)
		memset(p, 0, c->size);
	c->in_use++;
	return p;
}

void kmem_cache_free(struct kmem_cache *c, void *p)
{
	*(void **)p = c->free;
	c->free = p;
	c->in_use--;
}

int kmem_cache_alloc_bulk(struct kmem_cache *c, gfp_t gfp, size_t size, void **list)
{
	size_t i;

	for (i = 0; i < size; i++) {
		list[i] = kmem_cache_alloc_lru(c, NULL, gfp);
		if (!list[i]) {
			kmem_cache_free_bulk(c, i, list);
			return 0;
		}
	}
	return (int)size;
}

void kmem_cache_free_bulk(struct kmem_cache *c, size_t size, void **list)
{
	size_t i;

	for (i = 0; i < size; i++)
		kmem_cache_free(c, list[i]);
}

/* ---------------------------------------------------------- the tree */

static struct maple_tree vbm_mt;
static struct ma_state vbm_cur;       /* left on the entry the last vbm_find returned */
static bool vbm_cur_valid;

void vbm_global_init(void)
{
	maple_tree_init();
	rcu_register_thread();
}

void vbm_create(void)
{
	mt_init_flags(&vbm_mt, MT_FLAGS_ALLOC_RANGE | MT_FLAGS_LOCK_EXTERN);
	vbm_cur_valid = false;
}

void vbm_destroy(void)
{
	vbm_cur_valid = false;
	__mt_destroy(&vbm_mt);
}

int vbm_insert(unsigned long start, unsigned long end, void *entry)
{
	MA_STATE(mas, &vbm_mt, start, end - 1);

	vbm_cur_valid = false;
	if (mas_preallocate(&mas, entry, GFP_KERNEL))
		return -ENOMEM;
	mas_store_prealloc(&mas, entry);
	return 0;
}

void *vbm_find(unsigned long addr)
{
	void *entry;

	mas_init(&vbm_cur, &vbm_mt, addr);
	entry = mas_find(&vbm_cur, ULONG_MAX);
	vbm_cur_valid = entry != NULL;
	return entry;
}

void vbm_erase(unsigned long start, unsigned long end)
{
	if (!vbm_cur_valid || vbm_cur.index != start || vbm_cur.last != end - 1) {
		mas_init(&vbm_cur, &vbm_mt, start);
		vbm_cur.last = end - 1;
	}
	vbm_cur_valid = false;
	if (mas_store_gfp(&vbm_cur, NULL, GFP_KERNEL)) {
		fprintf(stderr, "vmabench_maple: erase: out of memory\n");
		exit(2);
	}
}

int vbm_gap_top(unsigned long len, unsigned long low, unsigned long high, unsigned long *out)
{
	MA_STATE(mas, &vbm_mt, 0, 0);

	if (high <= low || high - low < len)
		return -1;
	if (mas_empty_area_rev(&mas, low, high - 1, len))
		return -1;
	*out = mas.index;
	return 0;
}

void *vbm_first(void)
{
	MA_STATE(mas, &vbm_mt, 0, 0);

	vbm_cur_valid = false;
	return mas_find(&mas, ULONG_MAX);
}

unsigned long vbm_nodes(void)
{
	return maple_node_cache->in_use;
}

unsigned long vbm_node_size(void)
{
	return sizeof(struct maple_node);
}

const char *vbm_version(void)
{
	return VBM_LINUX_VERSION;
}
