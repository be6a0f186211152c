/*
 * A trivially correct model of a VMA index (a sorted array of ranges), and
 * the differential driver that applies one operation stream to every
 * registered backend and to the model, comparing results after each step.
 *
 * Used by tests/unit/test_vma_diff.c (ktest, host and kernel), by the soak
 * run (tests/fuzz/vma_soak.c, `make soak-vma`), by the libFuzzer target
 * (tests/fuzz/vma_fuzz.c) and, for the model alone, by tools/vmabench.
 *
 * Not thread safe; the caller owns every object. Nothing here takes a lock.
 */
#ifndef VMA_MODEL_H
#define VMA_MODEL_H

#include "vma.h"

/* ---- model ---- */

struct vma_model_ent {
	uintptr_t start, end;         /* [start, end), page aligned */
	unsigned slot;                /* caller's identifier (the diff driver's pool slot) */
};

struct vma_model {
	struct vma_model_ent *e;      /* sorted by start, non-overlapping: e[0 .. n-1] */
	size_t n, cap;
	struct vma_model_ent *buf;    /* 2 * cap + 2 entries; e points inside, so inserts and
				       * erases move the shorter side (both ends are O(1)) */
};

/* Empty model with room for cap ranges (kmalloc). 0 or -ENOMEM. */
int vma_model_init(struct vma_model *m, size_t cap);
/* Free the array. */
void vma_model_destroy(struct vma_model *m);
/* Index of the first range with end > addr (Linux find_vma), or m->n. */
size_t vma_model_find(const struct vma_model *m, uintptr_t addr);
/* Index of the range starting exactly at start, or m->n. */
size_t vma_model_lookup(const struct vma_model *m, uintptr_t start);
/* True when start < end and [start, end) overlaps no range. */
bool vma_model_is_free(const struct vma_model *m, uintptr_t start, uintptr_t end);
/* Insert [start, end) (must be free, n < cap). Returns its index. */
size_t vma_model_insert(struct vma_model *m, uintptr_t start, uintptr_t end, unsigned slot);
/* Remove the range at index i < n. */
void vma_model_erase_at(struct vma_model *m, size_t i);
/*
 * Free-gap search with the semantics of vma_index_ops.gap_top/gap_bottom:
 * highest (lowest) a with a % align == 0, low <= a, a + len <= high and
 * [a, a + len) free. len > 0, align a power of two. 0 and *out, or -ENOMEM.
 */
int vma_model_gap_top(const struct vma_model *m, uintptr_t len, uintptr_t align,
		      uintptr_t low, uintptr_t high, uintptr_t *out);
int vma_model_gap_bottom(const struct vma_model *m, uintptr_t len, uintptr_t align,
			 uintptr_t low, uintptr_t high, uintptr_t *out);

/* ---- VMA arrays ---- */

/*
 * n zeroed VMA objects for an index of backend ops, each struct vma followed
 * by the backend's link (vma_alloc_size bytes apart), or NULL. kfree it.
 */
struct vma *vma_array_alloc(const struct vma_index_ops *ops, size_t n);

/* The i-th VMA of an array from vma_array_alloc(ops, ...). */
static inline struct vma *vma_array_at(struct vma *a, const struct vma_index_ops *ops, size_t i)
{
	return (struct vma *)((char *)a + i * vma_alloc_size(ops));
}

/* ---- random numbers ---- */

/*
 * A splitmix64 generator, or (data != NULL) a byte source for the fuzzer:
 * each draw consumes up to 8 bytes of data; once it is used up, draws return
 * 0 and `exhausted` is set.
 */
struct vma_rng {
	uint64_t state;
	const uint8_t *data;
	size_t len, pos;
	bool exhausted;
};

void vma_rng_seed(struct vma_rng *r, uint64_t seed);
uint64_t vma_rng_next(struct vma_rng *r);
/* Uniform-ish in [0, n); 0 when n == 0. */
uint64_t vma_rng_below(struct vma_rng *r, uint64_t n);

/* ---- differential driver ---- */

#define VMA_DIFF_MAX_BACKENDS 8

enum vma_diff_opcode {
	VD_INSERT,        /* a = start, b = end */
	VD_ERASE,         /* a = selector (model index a % n), d = lookup first (see vma_model.c) */
	VD_UPDATE,        /* a = selector, b = new start, c = new end, d = lookup first */
	VD_FIND,          /* a = addr */
	VD_FIND_PREV,     /* a = addr */
	VD_NEXT,          /* a = selector */
	VD_PREV,          /* a = selector */
	VD_FIRST_LAST,
	VD_GAP_TOP,       /* a = len, b = align, c = low, d = high */
	VD_GAP_BOTTOM,    /* a = len, b = align, c = low, d = high */
	VD_RESERVE,       /* a = nr */
	VD_NOPS
};

struct vma_diff_op {
	enum vma_diff_opcode code;
	uintptr_t a, b, c, d;
};

/* The address space random operations draw from. */
struct vma_diff_space {
	uintptr_t base;               /* lowest address used, page aligned */
	uintptr_t pages;              /* size of the space in pages */
	unsigned unit_shift;          /* addresses and lengths are multiples of PAGE_SIZE << unit_shift */
	unsigned max_len_units;       /* longest VMA, in units */
	size_t max_vmas;              /* the count drifts between 0 and this */
};

struct vma_diff {
	unsigned nb;                                        /* backends under test */
	const struct vma_index_ops *ops[VMA_DIFF_MAX_BACKENDS];
	struct vma_index idx[VMA_DIFF_MAX_BACKENDS];
	struct vma *pool[VMA_DIFF_MAX_BACKENDS];            /* backend b's VMAs (vma_array_alloc), by slot */
	uint64_t acc[VMA_DIFF_MAX_BACKENDS];                /* accesses seen after the last step */
	struct vma_model m;
	unsigned *free_slots;
	size_t nfree, cap;
	uint64_t steps, skipped;                            /* ops applied, ops that were no-ops */
	uint64_t gap_found, gap_none;                       /* gap searches that found / found nothing */
	size_t peak;                                        /* largest count reached */
	unsigned full_every;                                /* full iteration compare every N steps (0: never) */
	unsigned check_every;                               /* check() every N steps (1: every step, the default) */
	size_t target;                                      /* random generator's drifting target count */
	bool verbose;                                       /* print every op */
};

/*
 * vma_diff_init: set up every backend in vma_backends[] (or only `only`, when
 * not NULL) and the model, each with room for cap VMAs. 0; -ENOMEM;
 * -EINVAL when more backends are registered than VMA_DIFF_MAX_BACKENDS
 * (so that a backend is never left out silently).
 */
int vma_diff_init(struct vma_diff *d, size_t cap, const struct vma_index_ops *only);
/* Erase every VMA from every backend (checking as it goes), destroy, free. */
void vma_diff_destroy(struct vma_diff *d);
/*
 * vma_diff_apply: apply op to all backends and the model and compare
 * results, counts, accesses monotonicity and check(). Operations that are
 * invalid for the current state (overlapping insert, erase on empty, ...) are
 * skipped. 0, or -EINVAL after printing the first disagreement.
 */
int vma_diff_apply(struct vma_diff *d, const struct vma_diff_op *op);
/* Compare every backend's full ordered iteration (both directions) with the model. 0 or -EINVAL. */
int vma_diff_compare_all(struct vma_diff *d);
/* Draw a random, mostly valid operation for the current state. */
void vma_diff_random_op(struct vma_diff *d, struct vma_rng *r,
			const struct vma_diff_space *s, struct vma_diff_op *op);
/*
 * vma_diff_run: nops random operations (stops early when r is an exhausted
 * byte source). 0, or -EINVAL at the first disagreement (printed, with the
 * step number).
 */
int vma_diff_run(struct vma_diff *d, struct vma_rng *r, const struct vma_diff_space *s,
		 uint64_t nops);
/* Format op into buf. */
void vma_diff_op_str(const struct vma_diff_op *op, char *buf, size_t size);

#endif
