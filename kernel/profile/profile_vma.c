/*
 * vmastat=on: counting VMA index operations, by kind, with the index's own
 * access counter (struct vma_index's `accesses`: list elements, tree nodes,
 * B-tree nodes touched). The 1998 comparison counted "VMA accesses per
 * lookup, insert and delete"; this measures exactly that inside the running
 * kernel, under real system calls and page faults of a user workload.
 *
 * How: the chosen backend is wrapped in a struct vma_index_ops whose every
 * operation calls the real one and adds the change of idx->accesses to the
 * counters of its kind (include/uapi/vmk_profile.h). Nothing in mm/ knows:
 * mm_vma_init stores the wrapper as the index's ops, fork copies it. The
 * wrapper costs an indirect call per operation, so the readprofile runs
 * boot without it.
 *
 * Locking: the counters are global and updated with atomic adds (index
 * operations run under each mm's own mmap_lock, several mms at once).
 */
#include "profile_vma.h"
#include "lockless.h"
#include "kstring.h"
#include "kernel.h"

struct counted_backend {
	struct vma_index_ops ops;               /* what the index calls */
	const struct vma_index_ops *inner;      /* the real backend */
};

static struct counted_backend counted[8];
static struct vmk_vmastat stats;

static const struct vma_index_ops *inner(const struct vma_index *idx)
{
	return container_of(idx->ops, struct counted_backend, ops)->inner;
}

static void note(enum vmk_vma_op op, uint64_t before, const struct vma_index *idx)
{
	uint64_t a = idx->accesses - before;
	uint64_t m = READ_ONCE(stats.max_accesses[op]);

	__atomic_fetch_add(&stats.calls[op], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&stats.accesses[op], a, __ATOMIC_RELAXED);
	while (a > m && !__atomic_compare_exchange_n(&stats.max_accesses[op], &m, a, false,
						     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Call the real operation and count it as `op`. */
#define COUNTED(op, call) ({ uint64_t before_ = idx->accesses; \
	__typeof__(call) r_ = (call); note(op, before_, idx); r_; })
#define COUNTED_VOID(op, call) do { uint64_t before_ = idx->accesses; \
	call; note(op, before_, idx); } while (0)

/*
 * init runs before mm_vma_init stores the wrapper in idx->ops, so it cannot
 * find its backend through idx: one init function per slot.
 */
#define SLOT_INIT(n) static void c_init##n(struct vma_index *idx) { counted[n].inner->init(idx); }
SLOT_INIT(0) SLOT_INIT(1) SLOT_INIT(2) SLOT_INIT(3) SLOT_INIT(4) SLOT_INIT(5) SLOT_INIT(6) SLOT_INIT(7)
static void (*const slot_init[])(struct vma_index *) = {
	c_init0, c_init1, c_init2, c_init3, c_init4, c_init5, c_init6, c_init7,
};
_Static_assert(ARRAY_SIZE(slot_init) == ARRAY_SIZE(counted), "one init per slot");

static void c_destroy(struct vma_index *idx)
{
	COUNTED_VOID(VMK_VMA_OTHER, inner(idx)->destroy(idx));
}

static struct vma *c_find(struct vma_index *idx, uintptr_t addr)
{
	return COUNTED(VMK_VMA_FIND, inner(idx)->find(idx, addr));
}

static struct vma *c_find_prev(struct vma_index *idx, uintptr_t addr, struct vma **prev)
{
	return COUNTED(VMK_VMA_FIND_PREV, inner(idx)->find_prev(idx, addr, prev));
}

static int c_reserve(struct vma_index *idx, unsigned nr)
{
	return COUNTED(VMK_VMA_OTHER, inner(idx)->reserve(idx, nr));
}

static void c_insert(struct vma_index *idx, struct vma *v)
{
	COUNTED_VOID(VMK_VMA_INSERT, inner(idx)->insert(idx, v));
}

static void c_erase(struct vma_index *idx, struct vma *v)
{
	COUNTED_VOID(VMK_VMA_ERASE, inner(idx)->erase(idx, v));
}

static void c_update(struct vma_index *idx, struct vma *v, uintptr_t start, uintptr_t end)
{
	COUNTED_VOID(VMK_VMA_UPDATE, inner(idx)->update(idx, v, start, end));
}

static struct vma *c_next(struct vma_index *idx, struct vma *v)
{
	return COUNTED(VMK_VMA_NEXT, inner(idx)->next(idx, v));
}

static struct vma *c_prev(struct vma_index *idx, struct vma *v)
{
	return COUNTED(VMK_VMA_PREV, inner(idx)->prev(idx, v));
}

static struct vma *c_first(struct vma_index *idx)
{
	return COUNTED(VMK_VMA_FIRST, inner(idx)->first(idx));
}

static struct vma *c_last(struct vma_index *idx)
{
	return COUNTED(VMK_VMA_FIRST, inner(idx)->last(idx));
}

static int c_gap_top(struct vma_index *idx, uintptr_t len, uintptr_t align, uintptr_t low,
		     uintptr_t high, uintptr_t *out)
{
	return COUNTED(VMK_VMA_GAP, inner(idx)->gap_top(idx, len, align, low, high, out));
}

static int c_gap_bottom(struct vma_index *idx, uintptr_t len, uintptr_t align, uintptr_t low,
			uintptr_t high, uintptr_t *out)
{
	return COUNTED(VMK_VMA_GAP, inner(idx)->gap_bottom(idx, len, align, low, high, out));
}

static int c_check(struct vma_index *idx)
{
	return inner(idx)->check(idx);
}

static size_t c_bytes(struct vma_index *idx)
{
	return inner(idx)->bytes(idx);
}

const struct vma_index_ops *profile_vma_counted(const struct vma_index_ops *backend)
{
	for (unsigned i = 0; i < ARRAY_SIZE(counted); i++) {
		struct counted_backend *c = &counted[i];

		if (c->inner == backend || &c->ops == backend)
			return &c->ops;
		if (c->inner)
			continue;
		c->inner = backend;
		c->ops = (struct vma_index_ops){
			.name = backend->name, .link_size = backend->link_size,
			.init = slot_init[i], .destroy = c_destroy,
			.find = c_find, .find_prev = c_find_prev, .reserve = c_reserve,
			.insert = c_insert, .erase = c_erase, .update = c_update,
			.next = c_next, .prev = c_prev, .first = c_first, .last = c_last,
			.gap_top = c_gap_top, .gap_bottom = c_gap_bottom,
			.check = c_check, .bytes = c_bytes,
		};
		return &c->ops;
	}
	return backend;         /* more backends than slots: uncounted */
}

bool profile_vma_is_counted(const struct vma_index_ops *ops)
{
	for (unsigned i = 0; i < ARRAY_SIZE(counted); i++)
		if (counted[i].inner && ops == &counted[i].ops)
			return true;
	return false;
}

void profile_vma_stats(struct vmk_vmastat *out)
{
	for (unsigned k = 0; k < VMK_VMA_NR_OPS; k++) {
		out->calls[k] = READ_ONCE(stats.calls[k]);
		out->accesses[k] = READ_ONCE(stats.accesses[k]);
		out->max_accesses[k] = READ_ONCE(stats.max_accesses[k]);
	}
}

void profile_vma_reset(void)
{
	for (unsigned k = 0; k < VMK_VMA_NR_OPS; k++) {
		WRITE_ONCE(stats.calls[k], 0);
		WRITE_ONCE(stats.accesses[k], 0);
		WRITE_ONCE(stats.max_accesses[k], 0);
	}
}
