/*
 * The registry of VMA index backends: vma_backends[] in a fixed order
 * (list, avl, hash, rbtree, btree, then "list+cache", the list with its
 * one-entry last-lookup cache, and "hash+list", the fuzzy hash with the
 * sorted list beside it) and lookup by name. A new backend is one
 * file in mm/vma_index/ (its ops, with the size of the link it keeps in each
 * VMA, and its per-index state in struct vma_index.state: include/vma.h)
 * and one line here (its extern goes in include/vma.h): the per-backend
 * test suites, vmabench and the soak run take their backend list from this
 * table at run time.
 */
#include "vma.h"
#include "kstring.h"

const struct vma_index_ops *const vma_backends[] = {
	&vma_list_ops,
	&vma_avl_ops,
	&vma_hash_ops,
	&vma_rbtree_ops,
	&vma_btree_ops,
	&vma_list_cache_ops,          /* after the five classic structures, which keep their order */
	&vma_hash_list_ops,
	NULL,
};

/*
 * vma_backend_by_name: the registered backend whose ops->name equals name,
 * or NULL (also for a NULL name). No locks; the table is constant.
 */
const struct vma_index_ops *vma_backend_by_name(const char *name)
{
	const struct vma_index_ops *const *p;

	if (!name)
		return NULL;
	for (p = vma_backends; *p; p++)
		if (strcmp((*p)->name, name) == 0)
			return *p;
	return NULL;
}

/* vma_backend_count: the entries of vma_backends[] before its NULL. */
unsigned vma_backend_count(void)
{
	unsigned n = 0;

	while (vma_backends[n])
		n++;
	return n;
}

/* vma_backend_name: the name of vma_backends[i], or NULL past the end (a ktest parameter list). */
const char *vma_backend_name(unsigned i)
{
	return i < vma_backend_count() ? vma_backends[i]->name : NULL;
}
