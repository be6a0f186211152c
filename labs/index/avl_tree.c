/*
 * LAB index: the AVL tree. Every function below is a stub that keeps the
 * kernel building and fails safely (no VMA can be added: reserve says
 * -ENOMEM); the other backends, the B-tree by default, run everything else.
 * Write the operations with the contracts of struct vma_index_ops
 * (include/vma.h) and the design at the top of this file: an intrusive
 * AVL tree keyed by start (each VMA's struct avl_link: A_LEFT(v) and the
 * rest, defined above; the root in AS(idx)->root), parent
 * pointers, heights, rotations on insert and erase, gap searches that
 * descend once and then walk in order (mm/vma_index/gap.h has the fit),
 * idx->accesses counting every node an operation moves to, and a check
 * that verifies every invariant. docs/labs/index.md.
 */
static void avl_init(struct vma_index *idx)
{
	idx->ops = &vma_avl_ops;
	idx->count = 0;
	idx->accesses = 0;
	AS(idx)->root = NULL;
}

static void avl_destroy(struct vma_index *idx)
{
}

static int avl_reserve(struct vma_index *idx, unsigned nr)
{
	return -ENOMEM;                 /* TODO: nothing to allocate in an intrusive tree */
}

static struct vma *avl_find(struct vma_index *idx, uintptr_t addr)
{
	return NULL;
}

static struct vma *avl_find_prev(struct vma_index *idx, uintptr_t addr, struct vma **prev)
{
	*prev = NULL;
	return NULL;
}

static void avl_insert(struct vma_index *idx, struct vma *v)
{
}

static void avl_erase(struct vma_index *idx, struct vma *v)
{
}

static void avl_update(struct vma_index *idx, struct vma *v, uintptr_t start, uintptr_t end)
{
}

static struct vma *avl_next(struct vma_index *idx, struct vma *v)
{
	return NULL;
}

static struct vma *avl_prev(struct vma_index *idx, struct vma *v)
{
	return NULL;
}

static struct vma *avl_first(struct vma_index *idx)
{
	return NULL;
}

static struct vma *avl_last(struct vma_index *idx)
{
	return NULL;
}

static int avl_gap_top(struct vma_index *idx, uintptr_t len, uintptr_t align,
		       uintptr_t low, uintptr_t high, uintptr_t *out)
{
	return -ENOMEM;
}

static int avl_gap_bottom(struct vma_index *idx, uintptr_t len, uintptr_t align,
			  uintptr_t low, uintptr_t high, uintptr_t *out)
{
	return -ENOMEM;
}

static int avl_check(struct vma_index *idx)
{
	printk("vma avl: not written yet (docs/labs/index.md)\n");
	return -EINVAL;
}

static size_t avl_bytes(struct vma_index *idx)
{
	return 0;
}
