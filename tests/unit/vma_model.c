/*
 * The sorted-array model of a VMA index and the differential driver that
 * compares every backend with it (see vma_model.h).
 */
#include "vma_model.h"
#include "kerrno.h"
#include "kstring.h"
#include "printk.h"
#include "slab.h"


/* Slot i of backend b's VMA pool (laid out for that backend: vma_array_alloc). */
#define POOL(d, b, i) vma_array_at((d)->pool[b], (d)->ops[b], (i))

struct vma *vma_array_alloc(const struct vma_index_ops *ops, size_t n)
{
	size_t size = vma_alloc_size(ops);

	if (n > (size_t)-1 / size)
		return NULL;
	return kzalloc(n * size);
}

/* ---------------------------------------------------------------- model */

int vma_model_init(struct vma_model *m, size_t cap)
{
	m->n = 0;
	m->cap = cap;
	m->buf = kmalloc((2 * cap + 2) * sizeof(*m->buf));
	m->e = m->buf ? m->buf + cap + 1 : NULL;
	return m->buf ? 0 : -ENOMEM;
}

void vma_model_destroy(struct vma_model *m)
{
	kfree(m->buf);
	m->e = m->buf = NULL;
	m->n = m->cap = 0;
}

size_t vma_model_find(const struct vma_model *m, uintptr_t addr)
{
	size_t lo = 0, hi = m->n;

	/* Ends are sorted too (ranges do not overlap): lower bound on end > addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->e[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

size_t vma_model_lookup(const struct vma_model *m, uintptr_t start)
{
	size_t i = vma_model_find(m, start);

	return i < m->n && m->e[i].start == start ? i : m->n;
}

bool vma_model_is_free(const struct vma_model *m, uintptr_t start, uintptr_t end)
{
	size_t i;

	if (start >= end)
		return false;
	i = vma_model_find(m, start);        /* first range ending above start */
	return i == m->n || m->e[i].start >= end;
}

size_t vma_model_insert(struct vma_model *m, uintptr_t start, uintptr_t end, unsigned slot)
{
	size_t i = vma_model_find(m, start);
	size_t total = 2 * m->cap + 2, front = (size_t)(m->e - m->buf);

	BUG_ON(m->n >= m->cap || !vma_model_is_free(m, start, end));
	if (front == 0 || front + m->n == total) {
		/* One side is full: recentre (the other side has room, n < cap). */
		struct vma_model_ent *ne = m->buf + (total - m->n) / 2;
		memmove(ne, m->e, m->n * sizeof(m->e[0]));
		m->e = ne;
		front = (size_t)(m->e - m->buf);
	}
	if (i < m->n / 2 && front > 0) {
		memmove(m->e - 1, m->e, i * sizeof(m->e[0]));       /* lower part moves down */
		m->e--;
	} else {
		memmove(&m->e[i + 1], &m->e[i], (m->n - i) * sizeof(m->e[0]));
	}
	m->e[i].start = start;
	m->e[i].end = end;
	m->e[i].slot = slot;
	m->n++;
	return i;
}

void vma_model_erase_at(struct vma_model *m, size_t i)
{
	BUG_ON(i >= m->n);
	if (i < m->n / 2) {
		memmove(m->e + 1, m->e, i * sizeof(m->e[0]));       /* lower part moves up */
		m->e++;
	} else {
		memmove(&m->e[i], &m->e[i + 1], (m->n - i - 1) * sizeof(m->e[0]));
	}
	m->n--;
}

/*
 * Gap i is the free range between range i-1 and range i: [end of i-1 (or 0),
 * start of i (or "2^64")). Both searches clip each gap to [low, high).
 */
int vma_model_gap_top(const struct vma_model *m, uintptr_t len, uintptr_t align,
		      uintptr_t low, uintptr_t high, uintptr_t *out)
{
	size_t i;

	if (len == 0 || low >= high || high - low < len)
		return -ENOMEM;
	/*
	 * Range i is the first ending above high; gap i (just below it) is the
	 * highest gap with any part below high, since gap i+1 starts at its end.
	 */
	i = vma_model_find(m, high);
	for (;; i--) {
		uintptr_t glo = i ? m->e[i - 1].end : 0;
		uintptr_t ghi = i < m->n ? m->e[i].start : high;

		if (ghi > high)
			ghi = high;
		if (glo < low)
			glo = low;
		if (ghi <= low)
			break;
		if (ghi > glo && ghi - glo >= len) {
			uintptr_t a = (ghi - len) & ~(align - 1);
			if (a >= glo) {
				*out = a;
				return 0;
			}
		}
		if (i == 0)
			break;
	}
	return -ENOMEM;
}

int vma_model_gap_bottom(const struct vma_model *m, uintptr_t len, uintptr_t align,
			 uintptr_t low, uintptr_t high, uintptr_t *out)
{
	size_t i;

	if (len == 0 || low >= high || high - low < len)
		return -ENOMEM;
	/* Gap i is the first that can reach above low: range i is the first ending above low. */
	for (i = vma_model_find(m, low); i <= m->n; i++) {
		uintptr_t glo = i ? m->e[i - 1].end : 0;
		uintptr_t ghi = i < m->n ? m->e[i].start : high;
		uintptr_t a;

		if (glo >= high)
			break;
		if (glo < low)
			glo = low;
		if (ghi > high)
			ghi = high;
		a = (glo + align - 1) & ~(align - 1);
		if (a < glo)            /* rounding up wrapped past 2^64 */
			break;
		if (a <= ghi && ghi - a >= len) {
			*out = a;
			return 0;
		}
	}
	return -ENOMEM;
}

/* ---------------------------------------------------------------- rng */

void vma_rng_seed(struct vma_rng *r, uint64_t seed)
{
	memset(r, 0, sizeof(*r));
	r->state = seed;
}

uint64_t vma_rng_next(struct vma_rng *r)
{
	uint64_t z;

	if (r->data) {
		uint64_t v = 0;
		unsigned k;

		if (r->pos >= r->len) {
			r->exhausted = true;
			return 0;
		}
		for (k = 0; k < 8 && r->pos < r->len; k++)
			v |= (uint64_t)r->data[r->pos++] << (8 * k);
		return v;
	}
	z = (r->state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t vma_rng_below(struct vma_rng *r, uint64_t n)
{
	if (r->data && n) {
		/* Byte source: take only the bytes n needs, so fuzz inputs stay short. */
		uint64_t v = 0, span = 1;
		while (span < n && span < (1ULL << 56)) {
			if (r->pos >= r->len) {
				r->exhausted = true;
				return 0;
			}
			v |= (uint64_t)r->data[r->pos++] * span;
			span <<= 8;
		}
		return v % n;
	}
	return n ? vma_rng_next(r) % n : 0;
}

/* ---------------------------------------------------------------- driver */

static const char *const op_names[VD_NOPS] = {
	"insert", "erase", "update", "find", "find_prev", "next", "prev",
	"first_last", "gap_top", "gap_bottom", "reserve",
};

void vma_diff_op_str(const struct vma_diff_op *op, char *buf, size_t size)
{
	const char *name = (unsigned)op->code < VD_NOPS ? op_names[op->code] : "(full compare)";

	ksnprintf(buf, size, "%s a=0x%lx b=0x%lx c=0x%lx d=0x%lx", name,
		  (unsigned long)op->a, (unsigned long)op->b,
		  (unsigned long)op->c, (unsigned long)op->d);
}

int vma_diff_init(struct vma_diff *d, size_t cap, const struct vma_index_ops *only)
{
	const struct vma_index_ops *const *p;
	unsigned b;
	size_t i;

	memset(d, 0, sizeof(*d));
	d->cap = cap;
	d->full_every = 1;
	d->check_every = 1;
	if (vma_backend_count() > VMA_DIFF_MAX_BACKENDS) {
		printk("vma_diff: %u backends registered, room for %d: raise VMA_DIFF_MAX_BACKENDS\n",
		       vma_backend_count(), VMA_DIFF_MAX_BACKENDS);
		return -EINVAL;
	}
	for (p = vma_backends; *p; p++)
		if (!only || *p == only)
			d->ops[d->nb++] = *p;
	if (only && d->nb == 0)
		d->ops[d->nb++] = only;
	if (vma_model_init(&d->m, cap))
		goto nomem;
	d->free_slots = kmalloc((cap ? cap : 1) * sizeof(*d->free_slots));
	if (!d->free_slots)
		goto nomem;
	for (i = 0; i < cap; i++)
		d->free_slots[i] = (unsigned)(cap - 1 - i);
	d->nfree = cap;
	for (b = 0; b < d->nb; b++) {
		d->pool[b] = vma_array_alloc(d->ops[b], cap ? cap : 1);
		if (!d->pool[b])
			goto nomem;
		memset(&d->idx[b], 0, sizeof(d->idx[b]));
		d->ops[b]->init(&d->idx[b]);
		d->idx[b].ops = d->ops[b];
	}
	return 0;
nomem:
	for (b = 0; b < d->nb; b++) {
		if (d->pool[b])
			d->ops[b]->destroy(&d->idx[b]);
		kfree(d->pool[b]);
	}
	kfree(d->free_slots);
	vma_model_destroy(&d->m);
	memset(d, 0, sizeof(*d));
	return -ENOMEM;
}

void vma_diff_destroy(struct vma_diff *d)
{
	unsigned b;

	/* Erase from the middle outwards-ish (every third), then the rest: varied shapes. */
	while (d->m.n) {
		struct vma_diff_op op = { VD_ERASE, (uintptr_t)(d->m.n / 3), 0, 0, 0 };
		if (vma_diff_apply(d, &op))
			break;
	}
	for (b = 0; b < d->nb; b++) {
		if (d->idx[b].count == 0)
			d->ops[b]->destroy(&d->idx[b]);
		kfree(d->pool[b]);
	}
	kfree(d->free_slots);
	vma_model_destroy(&d->m);
	memset(d, 0, sizeof(*d));
}

static struct vma *model_vma(struct vma_diff *d, unsigned b, size_t i)
{
	return i < d->m.n ? POOL(d, b, d->m.e[i].slot) : NULL;
}

static void print_vma(const char *what, const struct vma *v)
{
	if (v)
		printk("    %s: [0x%lx, 0x%lx)\n", what, (unsigned long)v->start,
		       (unsigned long)v->end);
	else
		printk("    %s: none\n", what);
}

static int mismatch(struct vma_diff *d, unsigned b, const struct vma_diff_op *op,
		    const char *what, const struct vma *want, const struct vma *got)
{
	char buf[160];

	vma_diff_op_str(op, buf, sizeof(buf));
	printk("vma_diff: step %llu backend %s: %s wrong after op %s\n",
	       (unsigned long long)d->steps, d->ops[b]->name, what, buf);
	print_vma("expected", want);
	print_vma("got", got);
	return -EINVAL;
}

static int fail(struct vma_diff *d, unsigned b, const struct vma_diff_op *op, const char *fmt,
		unsigned long x, unsigned long y)
{
	char buf[160];

	vma_diff_op_str(op, buf, sizeof(buf));
	printk("vma_diff: step %llu backend %s after op %s: ", (unsigned long long)d->steps,
	       b < d->nb ? d->ops[b]->name : "-", buf);
	printk(fmt, x, y);
	printk("\n");
	return -EINVAL;
}

/*
 * Before an erase or update of v, look v up the way mm/vma.c does (op->d):
 * 0 not at all, 1 find(v->start), 2 find_prev(v->end) (v is then the
 * previous VMA), 3 first() or last() when v is one of them. Backends may
 * reuse what the lookup found (the B-tree follows its path); the results
 * must name v.
 */
static int lookup_first(struct vma_diff *d, unsigned b, const struct vma_diff_op *op, struct vma *v)
{
	const struct vma_index_ops *o = d->ops[b];
	struct vma_index *x = &d->idx[b];
	struct vma *got = v, *prev = v;

	switch (op->d % 4) {
	case 1:
		got = o->find(x, v->start);
		break;
	case 2:
		o->find_prev(x, v->end, &prev);
		break;
	case 3:
		got = o->first(x) == v ? v : o->last(x) == v ? v : NULL;
		if (!got)
			got = v;                /* neither: no lookup to check */
		break;
	}
	if (got != v || prev != v)
		return fail(d, b, op, "lookup before the change found 0x%lx, not 0x%lx",
			    got != v ? (unsigned long)got : (unsigned long)prev, (unsigned long)v);
	return 0;
}

int vma_diff_compare_all(struct vma_diff *d)
{
	static const struct vma_diff_op none = { VD_NOPS, 0, 0, 0, 0 };
	unsigned b;
	size_t i;

	for (b = 0; b < d->nb; b++) {
		struct vma_index *x = &d->idx[b];
		struct vma *v = d->ops[b]->first(x);

		for (i = 0; i < d->m.n; i++) {
			if (v != model_vma(d, b, i))
				return mismatch(d, b, &none, "forward iteration", model_vma(d, b, i), v);
			if (v->start != d->m.e[i].start || v->end != d->m.e[i].end)
				return fail(d, b, &none, "VMA bounds changed: start 0x%lx end 0x%lx",
					    v->start, v->end);
			v = d->ops[b]->next(x, v);
		}
		if (v)
			return mismatch(d, b, &none, "forward iteration end", NULL, v);
		v = d->ops[b]->last(x);
		for (i = d->m.n; i-- > 0;) {
			if (v != model_vma(d, b, i))
				return mismatch(d, b, &none, "backward iteration", model_vma(d, b, i), v);
			v = d->ops[b]->prev(x, v);
		}
		if (v)
			return mismatch(d, b, &none, "backward iteration end", NULL, v);
	}
	return 0;
}

/* Ask every backend to make the next nr mutations infallible. */
static int reserve_all(struct vma_diff *d, const struct vma_diff_op *op, unsigned nr)
{
	unsigned b;

	for (b = 0; b < d->nb; b++) {
		int err = d->ops[b]->reserve(&d->idx[b], nr);
		if (err)
			return fail(d, b, op, "reserve(%lu) returned %ld", nr, (unsigned long)(long)err);
	}
	return 0;
}

static uintptr_t norm_align(uintptr_t a)
{
	/* Any value becomes a power of two >= PAGE_SIZE (PAGE_SIZE << (a % 24)). */
	return PAGE_SIZE << (a % 24);
}

/* Apply the op; *skipped set when it was invalid in this state. */
static int apply_op(struct vma_diff *d, const struct vma_diff_op *op, bool *skipped)
{
	struct vma_model *m = &d->m;
	unsigned b;
	size_t i;

	*skipped = false;
	switch (op->code) {
	case VD_INSERT: {
		uintptr_t s = op->a & PAGE_MASK, e = op->b & PAGE_MASK;
		unsigned slot;
		if (!d->nfree || !vma_model_is_free(m, s, e)) {
			*skipped = true;
			return 0;
		}
		if (reserve_all(d, op, 1))
			return -EINVAL;
		slot = d->free_slots[--d->nfree];
		vma_model_insert(m, s, e, slot);
		for (b = 0; b < d->nb; b++) {
			struct vma *v = POOL(d, b, slot);
			memset(v, 0, sizeof(*v));
			v->start = s;
			v->end = e;
			v->pgoff = s >> PAGE_SHIFT;
			d->ops[b]->insert(&d->idx[b], v);
		}
		return 0;
	}
	case VD_ERASE: {
		unsigned slot;
		if (!m->n) {
			*skipped = true;
			return 0;
		}
		if (reserve_all(d, op, 1))
			return -EINVAL;
		i = op->a % m->n;
		slot = m->e[i].slot;
		for (b = 0; b < d->nb; b++)
			if (lookup_first(d, b, op, POOL(d, b, slot)))
				return -EINVAL;
		for (b = 0; b < d->nb; b++)
			d->ops[b]->erase(&d->idx[b], POOL(d, b, slot));
		vma_model_erase_at(m, i);
		d->free_slots[d->nfree++] = slot;
		return 0;
	}
	case VD_UPDATE: {
		uintptr_t s = op->b & PAGE_MASK, e = op->c & PAGE_MASK, lo, hi;
		if (!m->n) {
			*skipped = true;
			return 0;
		}
		i = op->a % m->n;
		lo = i ? m->e[i - 1].end : 0;
		hi = i + 1 < m->n ? m->e[i + 1].start : UINTPTR_MAX & PAGE_MASK;
		if (s >= e || s < lo || e > hi) {
			*skipped = true;
			return 0;
		}
		if (reserve_all(d, op, 1))
			return -EINVAL;
		for (b = 0; b < d->nb; b++)
			if (lookup_first(d, b, op, POOL(d, b, m->e[i].slot)))
				return -EINVAL;
		for (b = 0; b < d->nb; b++)
			d->ops[b]->update(&d->idx[b], POOL(d, b, m->e[i].slot), s, e);
		m->e[i].start = s;
		m->e[i].end = e;
		for (b = 0; b < d->nb; b++) {
			struct vma *v = POOL(d, b, m->e[i].slot);
			if (v->start != s || v->end != e)
				return fail(d, b, op, "update left bounds 0x%lx-0x%lx", v->start, v->end);
		}
		return 0;
	}
	case VD_FIND:
	case VD_FIND_PREV: {
		i = vma_model_find(m, op->a);
		for (b = 0; b < d->nb; b++) {
			struct vma *prev = (struct vma *)1, *v;
			uint64_t before = d->idx[b].accesses;
			if (op->code == VD_FIND)
				v = d->ops[b]->find(&d->idx[b], op->a);
			else
				v = d->ops[b]->find_prev(&d->idx[b], op->a, &prev);
			if (v != model_vma(d, b, i))
				return mismatch(d, b, op, "find result", model_vma(d, b, i), v);
			if (op->code == VD_FIND_PREV && prev != (i ? model_vma(d, b, i - 1) : NULL))
				return mismatch(d, b, op, "find_prev *prev", i ? model_vma(d, b, i - 1) : NULL,
						prev == (struct vma *)1 ? NULL : prev);
			/* The returned VMA's end was read to decide: at least one access. */
			if (v && d->idx[b].accesses <= before)
				return fail(d, b, op, "accesses did not increase (%lu -> %lu)",
					    (unsigned long)before, (unsigned long)d->idx[b].accesses);
		}
		return 0;
	}
	case VD_NEXT:
	case VD_PREV: {
		if (!m->n) {
			*skipped = true;
			return 0;
		}
		i = op->a % m->n;
		for (b = 0; b < d->nb; b++) {
			struct vma *v = model_vma(d, b, i), *want, *got;
			if (op->code == VD_NEXT) {
				want = model_vma(d, b, i + 1);
				got = d->ops[b]->next(&d->idx[b], v);
			} else {
				want = i ? model_vma(d, b, i - 1) : NULL;
				got = d->ops[b]->prev(&d->idx[b], v);
			}
			if (want != got)
				return mismatch(d, b, op, op->code == VD_NEXT ? "next" : "prev", want, got);
		}
		return 0;
	}
	case VD_FIRST_LAST:
		for (b = 0; b < d->nb; b++) {
			struct vma *f = d->ops[b]->first(&d->idx[b]), *l = d->ops[b]->last(&d->idx[b]);
			if (f != model_vma(d, b, 0))
				return mismatch(d, b, op, "first", model_vma(d, b, 0), f);
			if (l != (m->n ? model_vma(d, b, m->n - 1) : NULL))
				return mismatch(d, b, op, "last", m->n ? model_vma(d, b, m->n - 1) : NULL, l);
		}
		return 0;
	case VD_GAP_TOP:
	case VD_GAP_BOTTOM: {
		uintptr_t len = op->a & PAGE_MASK, align = norm_align(op->b);
		uintptr_t low = op->c & PAGE_MASK, high = op->d & PAGE_MASK, want = 0;
		int wret;
		if (!len) {
			*skipped = true;
			return 0;
		}
		if (op->code == VD_GAP_TOP)
			wret = vma_model_gap_top(m, len, align, low, high, &want);
		else
			wret = vma_model_gap_bottom(m, len, align, low, high, &want);
		if (wret)
			d->gap_none++;
		else
			d->gap_found++;
		for (b = 0; b < d->nb; b++) {
			uintptr_t got = 0xdead000;
			int ret;
			if (op->code == VD_GAP_TOP)
				ret = d->ops[b]->gap_top(&d->idx[b], len, align, low, high, &got);
			else
				ret = d->ops[b]->gap_bottom(&d->idx[b], len, align, low, high, &got);
			if (ret != wret)
				return fail(d, b, op, "returned %ld, expected %ld",
					    (unsigned long)(long)ret, (unsigned long)(long)wret);
			if (!ret && got != want)
				return fail(d, b, op, "found 0x%lx, expected 0x%lx", got, want);
		}
		return 0;
	}
	case VD_RESERVE:
		return reserve_all(d, op, (unsigned)(op->a % 16) + 1);
	default:
		*skipped = true;
		return 0;
	}
}

int vma_diff_apply(struct vma_diff *d, const struct vma_diff_op *op)
{
	bool skipped;
	unsigned b;
	int err;

	d->steps++;
	if (d->verbose) {
		char buf[160];
		vma_diff_op_str(op, buf, sizeof(buf));
		printk("vma_diff: step %llu %s\n", (unsigned long long)d->steps, buf);
	}
	err = apply_op(d, op, &skipped);
	if (err)
		return err;
	if (skipped) {
		d->skipped++;
		return 0;
	}
	if (d->m.n > d->peak)
		d->peak = d->m.n;
	for (b = 0; b < d->nb; b++) {
		struct vma_index *x = &d->idx[b];
		if (x->count != d->m.n)
			return fail(d, b, op, "count %lu, model has %lu",
				    (unsigned long)x->count, (unsigned long)d->m.n);
		if (x->accesses < d->acc[b])
			return fail(d, b, op, "accesses went backwards %lu -> %lu",
				    (unsigned long)d->acc[b], (unsigned long)x->accesses);
		d->acc[b] = x->accesses;
		if ((d->check_every <= 1 || d->steps % d->check_every == 0) && d->ops[b]->check(x))
			return fail(d, b, op, "check() failed (count %lu, step %lu)",
				    (unsigned long)x->count, (unsigned long)d->steps);
		(void)d->ops[b]->bytes(x);
	}
	if (d->full_every && d->steps % d->full_every == 0)
		return vma_diff_compare_all(d);
	return 0;
}

/* ------------------------------------------------------- random operations */

static uintptr_t unit(const struct vma_diff_space *s)
{
	return PAGE_SIZE << s->unit_shift;
}

/* A random unit-aligned address in the space (occasionally just outside it). */
static uintptr_t rand_addr(struct vma_rng *r, const struct vma_diff_space *s)
{
	uintptr_t units = (s->pages >> s->unit_shift) + 1;
	uintptr_t a = s->base + vma_rng_below(r, units) * unit(s);

	if (vma_rng_below(r, 64) == 0)          /* rare: a page that is not unit aligned */
		a += vma_rng_below(r, (uintptr_t)1 << s->unit_shift) * PAGE_SIZE;
	return a;
}

static uintptr_t rand_len(struct vma_rng *r, const struct vma_diff_space *s)
{
	uintptr_t n = 1 + vma_rng_below(r, s->max_len_units);

	if (vma_rng_below(r, 4) == 0)           /* bias toward short VMAs */
		n = 1;
	return n * unit(s);
}

/* Top of the space, and a value for "no limit". */
static uintptr_t space_top(const struct vma_diff_space *s)
{
	return s->base + s->pages * PAGE_SIZE;
}

static void random_insert(struct vma_diff *d, struct vma_rng *r,
			  const struct vma_diff_space *s, struct vma_diff_op *op)
{
	unsigned tries;

	for (tries = 0; tries < 8; tries++) {
		uintptr_t a = rand_addr(r, s), e = a + rand_len(r, s);
		size_t i = vma_model_find(&d->m, a);

		if (e > space_top(s) || e < a)
			e = space_top(s);
		if (i < d->m.n && d->m.e[i].start <= a)
			continue;                        /* a is inside a VMA */
		if (i < d->m.n && d->m.e[i].start < e)
			e = d->m.e[i].start;             /* clip to the next VMA: adjacency */
		if (a < e) {
			op->a = a;
			op->b = e;
			return;
		}
	}
	op->a = op->b = 0;                               /* skipped */
}

static void random_update(struct vma_diff *d, struct vma_rng *r,
			  const struct vma_diff_space *s, struct vma_diff_op *op)
{
	size_t i = vma_rng_below(r, d->m.n);
	uintptr_t lo = i ? d->m.e[i - 1].end : s->base;
	uintptr_t hi = i + 1 < d->m.n ? d->m.e[i + 1].start : space_top(s);
	uintptr_t st = d->m.e[i].start, en = d->m.e[i].end;

	if (lo > st)
		lo = st;
	if (hi < en)
		hi = en;
	switch (vma_rng_below(r, 6)) {
	case 0: st = lo; break;                                  /* grow down to the neighbour */
	case 1: en = hi; break;                                  /* grow up to the neighbour */
	case 2: st = lo + vma_rng_below(r, (st - lo) / PAGE_SIZE + 1) * PAGE_SIZE; break;
	case 3: en = en + vma_rng_below(r, (hi - en) / PAGE_SIZE + 1) * PAGE_SIZE; break;
	case 4: st = st + vma_rng_below(r, (en - st) / PAGE_SIZE) * PAGE_SIZE; break;      /* shrink */
	default: en = en - vma_rng_below(r, (en - st) / PAGE_SIZE) * PAGE_SIZE; break;     /* shrink */
	}
	op->a = i;
	op->b = st;
	op->c = en;
}

static void random_gap(struct vma_diff *d, struct vma_rng *r,
		       const struct vma_diff_space *s, struct vma_diff_op *op)
{
	uintptr_t low = s->base, high = space_top(s);

	op->a = rand_len(r, s);
	switch (vma_rng_below(r, 8)) {
	case 0: op->a *= 1 + vma_rng_below(r, 64); break;       /* big: often no fit */
	case 1: op->a = PAGE_SIZE; break;
	default: break;
	}
	op->b = vma_rng_below(r, 4) ? 0 : vma_rng_below(r, 10);   /* align PAGE_SIZE << b */
	switch (vma_rng_below(r, 6)) {
	case 0: break;                                              /* the whole space */
	case 1: low = 0; high = UINTPTR_MAX & PAGE_MASK; break;     /* no bounds */
	case 2: low = rand_addr(r, s); break;
	case 3: high = rand_addr(r, s); break;
	default:
		low = rand_addr(r, s);
		high = rand_addr(r, s);
		if (low > high && vma_rng_below(r, 16)) {            /* rarely leave them crossed */
			uintptr_t t = low; low = high; high = t;
		}
		break;
	}
	op->c = low;
	op->d = high;
	(void)d;
}

void vma_diff_random_op(struct vma_diff *d, struct vma_rng *r,
			const struct vma_diff_space *s, struct vma_diff_op *op)
{
	uint64_t k;
	bool grow;

	memset(op, 0, sizeof(*op));
	/* The count drifts toward a target that changes now and then. */
	if (vma_rng_below(r, 512) == 0 || d->target > s->max_vmas)
		d->target = vma_rng_below(r, s->max_vmas + 1);
	grow = d->m.n < d->target;
	k = vma_rng_below(r, 100);
	if (k < 30) {
		if (grow || (k < 10 && d->m.n < s->max_vmas)) {
			op->code = VD_INSERT;
			random_insert(d, r, s, op);
		} else {
			op->code = VD_ERASE;
			op->a = vma_rng_below(r, d->m.n ? d->m.n : 1);
			op->d = vma_rng_below(r, 4);
		}
	} else if (k < 40) {
		op->code = VD_UPDATE;
		if (d->m.n)
			random_update(d, r, s, op);
		op->d = vma_rng_below(r, 4);
	} else if (k < 55) {
		op->code = VD_FIND;
		op->a = rand_addr(r, s) + vma_rng_below(r, unit(s)) - vma_rng_below(r, 2);
		if (vma_rng_below(r, 4) == 0 && d->m.n) {      /* exactly on a boundary */
			size_t i = vma_rng_below(r, d->m.n);
			op->a = (vma_rng_below(r, 2) ? d->m.e[i].start : d->m.e[i].end) -
				vma_rng_below(r, 2);
		}
	} else if (k < 63) {
		op->code = VD_FIND_PREV;
		op->a = rand_addr(r, s) + vma_rng_below(r, unit(s));
		if (vma_rng_below(r, 4) == 0 && d->m.n) {
			size_t i = vma_rng_below(r, d->m.n);
			op->a = (vma_rng_below(r, 2) ? d->m.e[i].start : d->m.e[i].end) -
				vma_rng_below(r, 2);
		}
	} else if (k < 68) {
		op->code = VD_NEXT;
		op->a = vma_rng_below(r, d->m.n ? d->m.n : 1);
	} else if (k < 73) {
		op->code = VD_PREV;
		op->a = vma_rng_below(r, d->m.n ? d->m.n : 1);
	} else if (k < 75) {
		op->code = VD_FIRST_LAST;
	} else if (k < 99) {
		op->code = k < 87 ? VD_GAP_TOP : VD_GAP_BOTTOM;
		random_gap(d, r, s, op);
	} else {
		op->code = VD_RESERVE;
		op->a = vma_rng_below(r, 16);
	}
}

int vma_diff_run(struct vma_diff *d, struct vma_rng *r, const struct vma_diff_space *s,
		 uint64_t nops)
{
	uint64_t k;

	for (k = 0; k < nops; k++) {
		struct vma_diff_op op;
		vma_diff_random_op(d, r, s, &op);
		if (r->exhausted)
			break;
		if (vma_diff_apply(d, &op))
			return -EINVAL;
	}
	return vma_diff_compare_all(d);
}
