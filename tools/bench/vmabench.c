/*
 * vmabench: replay a vmatrace (docs/spec/vmatrace.md) on the host build
 * of the VMA index backends and print, per backend and operation kind,
 *
 *     BACKEND OP count=N accesses_avg=X accesses_max=M ns_avg=T
 *     BACKEND total ns=T bytes_per_vma=B index_bytes_per_vma=I
 *
 * Usage: vmabench --backend NAME|all --trace FILE [--no-check] [--skip-lines N]
 *                 [--callgrind-start]
 *        vmabench --registry
 *
 * Extensions of the spec: --skip-lines N: operations on trace lines <= N
 * still run but are left out of the statistics; make bench uses it to
 * leave the index-building inserts out of the insert figures.
 * --callgrind-start: under `valgrind --tool=callgrind --instr-atstart=no`,
 * switch instrumentation on at the first measured operation, so that
 * reading the trace and building the index run at valgrind's uninstrumented
 * speed (only with valgrind/callgrind.h at build time). index_bytes_per_vma
 * is the backend's own memory alone (ops->bytes() / count, no struct vma).
 *
 * Backends: every registered one (vma_backends[]), and "maple", Linux's
 * maple tree, when built with -DVMABENCH_MAPLE (tools/bench/vmabench_maple.c,
 * make bench). "all" runs them one after the other. --registry prints the
 * registered ones (the kernel's: not maple), one name a line, in the
 * registry's order, for tools that run every backend (tools/profile).
 *
 * The trace is first replayed on the sorted-array model (untimed): that
 * validates it (bad lines, overlapping inserts, erasing a VMA that does not
 * exist: an error naming the line, exit 2) and records every expected
 * result. Each backend then replays it alone; every result is compared with
 * the model's (first disagreement: message with the line number, exit 1)
 * unless --no-check, in which case nothing but the backend runs in the
 * timed loop.
 *
 * What is measured per op kind (accesses = idx->accesses delta):
 *   insert  ops->reserve(1) then ops->insert: what mm/vma.c does for each
 *           insert, node allocation included (the B-tree takes nodes from
 *           its pool; the maple tree preallocates inside its insert)
 *   erase   ops->find(START) then ops->erase: finding the VMA is part of
 *           removing it by address, as in munmap (and the 1998 figures);
 *           erase needs no reserve
 *   find    ops->find
 *   gap     ops->gap_top(LEN, PAGE_SIZE, LOW, HIGH)
 * Time is taken in batches of consecutive same-kind operations (at most
 * 256), minus the clock's own cost per batch (calibrated at start-up), so
 * short batches are not inflated by clock_gettime. bytes_per_vma is, at the
 * trace's peak VMA count, (count * vma_alloc_size(ops) + ops->bytes() +
 * sizeof(struct vma_index)) / count: struct vma with the backend's link in
 * it, the backend's own memory and the index header. Each op kind runs through its own
 * noipa (noinline) function (bench_insert, bench_erase, bench_find,
 * bench_gap; the --skip-lines ops through build_*), so callgrind's
 * inclusive cost of bench_KIND divided by its call count is instructions
 * per measured op (see tools/bench/vmabench-run).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vma.h"
#include "vma_model.h"
#include "vma_host.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND_H 1
#endif
#endif

/* --callgrind-start: instrumentation is switched on at the first measured op. */
static bool callgrind_start;

static void measured_ops_begin(void)
{
	static bool started;

	if (!callgrind_start || started)
		return;
	started = true;
#ifdef HAVE_CALLGRIND_H
	CALLGRIND_START_INSTRUMENTATION;
#endif
}

enum kind { K_INSERT, K_ERASE, K_FIND, K_GAP, NKINDS };
static const char *const kind_name[NKINDS] = { "insert", "erase", "find", "gap" };

struct op {
	unsigned char kind;
	unsigned line;
	uintptr_t a, b, c;            /* i: start end; e: start; f: addr; g: len low high */
	size_t slot;                  /* i/e: the VMA's slot; f: expected slot or NONE */
	uintptr_t want;               /* g: expected address (valid when slot != NONE) */
};

#define NONE ((size_t)-1)

static struct op *ops;
static size_t nops, cap_ops, nslots, peak_count, peak_op = NONE;
static const char *trace_name;
static unsigned skip_lines;

static __attribute__((noreturn, format(printf, 2, 3))) void trace_error(unsigned line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "vmabench: %s:%u: ", trace_name, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* A number: hex with 0x, or decimal; the whole token. */
static bool parse_num(const char *s, uintptr_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!s[2])
			return false;
		v = strtoull(s + 2, &end, 16);
		if (s[2] == '-' || s[2] == '+' || s[2] == ' ')
			return false;
	} else {
		v = strtoull(s, &end, 10);
	}
	if (errno || *end)
		return false;
	*out = (uintptr_t)v;
	return true;
}

static void read_trace(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	unsigned line = 0;

	trace_name = path;
	if (!f) {
		fprintf(stderr, "vmabench: cannot open %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *tok[8], *p, *save = NULL;
		unsigned ntok = 0, want, k;
		struct op o;

		line++;
		if (!strchr(buf, '\n') && !feof(f))
			trace_error(line, "line too long");
		if ((p = strchr(buf, '#')) != NULL)
			*p = 0;
		for (p = strtok_r(buf, " \t\r\n", &save); p; p = strtok_r(NULL, " \t\r\n", &save)) {
			if (ntok == 8)
				trace_error(line, "too many fields");
			tok[ntok++] = p;
		}
		if (!ntok)
			continue;
		memset(&o, 0, sizeof(o));
		o.line = line;
		if (strcmp(tok[0], "i") == 0) { o.kind = K_INSERT; want = 2; }
		else if (strcmp(tok[0], "e") == 0) { o.kind = K_ERASE; want = 1; }
		else if (strcmp(tok[0], "f") == 0) { o.kind = K_FIND; want = 1; }
		else if (strcmp(tok[0], "g") == 0) { o.kind = K_GAP; want = 3; }
		else trace_error(line, "unknown operation '%s' (expected i, e, f or g)", tok[0]);
		if (ntok - 1 != want)
			trace_error(line, "'%s' takes %u numbers, got %u", tok[0], want, ntok - 1);
		for (k = 0; k < want; k++) {
			uintptr_t v;
			if (!parse_num(tok[k + 1], &v))
				trace_error(line, "bad number '%s'", tok[k + 1]);
			if (v & (PAGE_SIZE - 1))
				trace_error(line, "'%s' is not page aligned", tok[k + 1]);
			(&o.a)[k] = v;
		}
		if (o.kind == K_INSERT && o.a >= o.b)
			trace_error(line, "insert: START 0x%lx must be below END 0x%lx",
				    (unsigned long)o.a, (unsigned long)o.b);
		if (o.kind == K_GAP && o.a == 0)
			trace_error(line, "gap: LEN must not be 0");
		if (nops == cap_ops) {
			cap_ops = cap_ops ? 2 * cap_ops : 4096;
			ops = realloc(ops, cap_ops * sizeof(*ops));
			if (!ops) {
				fprintf(stderr, "vmabench: out of memory\n");
				exit(2);
			}
		}
		ops[nops++] = o;
	}
	if (ferror(f)) {
		fprintf(stderr, "vmabench: reading %s: %s\n", path, strerror(errno));
		exit(2);
	}
	fclose(f);
}

/* Replay on the model: validate, assign slots, record expected results. */
static void model_pass(void)
{
	struct vma_model m;
	size_t i, ninsert = 0, *free_slots, nfree = 0;

	for (i = 0; i < nops; i++)
		ninsert += ops[i].kind == K_INSERT;
	free_slots = malloc((ninsert + 1) * sizeof(*free_slots));
	/* The model's array comes from libc here: kmalloc caps block sizes below 1M entries. */
	m.n = 0;
	m.cap = ninsert;
	m.buf = malloc((2 * ninsert + 2) * sizeof(*m.buf));
	m.e = m.buf ? m.buf + ninsert + 1 : NULL;
	if (!free_slots || !m.buf) {
		fprintf(stderr, "vmabench: out of memory\n");
		exit(2);
	}
	for (i = 0; i < nops; i++) {
		struct op *o = &ops[i];
		size_t k;

		switch (o->kind) {
		case K_INSERT:
			if (!vma_model_is_free(&m, o->a, o->b))
				trace_error(o->line, "insert [0x%lx, 0x%lx) overlaps a VMA",
					    (unsigned long)o->a, (unsigned long)o->b);
			o->slot = nfree ? free_slots[--nfree] : nslots++;
			vma_model_insert(&m, o->a, o->b, (unsigned)o->slot);
			if (m.n > peak_count) {
				peak_count = m.n;
				peak_op = i;
			}
			break;
		case K_ERASE:
			k = vma_model_lookup(&m, o->a);
			if (k == m.n)
				trace_error(o->line, "erase 0x%lx: no VMA starts there", (unsigned long)o->a);
			o->slot = m.e[k].slot;
			free_slots[nfree++] = o->slot;
			vma_model_erase_at(&m, k);
			break;
		case K_FIND:
			k = vma_model_find(&m, o->a);
			o->slot = k < m.n ? m.e[k].slot : NONE;
			break;
		case K_GAP:
			o->slot = vma_model_gap_top(&m, o->a, PAGE_SIZE, o->b, o->c, &o->want) ? NONE : 0;
			break;
		}
	}
	free(m.buf);
	free(free_slots);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct stats {
	uint64_t count, acc_sum, acc_max, ns;
};

/*
 * One function per op kind, never inlined, cloned or folded with an
 * identical function (gcc's noipa: no .constprop / .isra copies that would
 * rename them, and build_find is not merged into bench_find by -fipa-icf),
 * never tail-calling (the empty asm after each call), so callgrind's inclusive cost of bench_find etc. is
 * exactly the backend's work for the measured ops of that kind plus the
 * wrapper's own few instructions. The ops on --skip-lines lines (the build)
 * go through an identical set named build_*, so they never count as
 * bench_*. Calls counted by callgrind must equal the count= printed.
 */
#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")
#ifdef __clang__
#define BENCH_FN __attribute__((noinline))
#else
#define BENCH_FN __attribute__((noipa))
#endif

static __attribute__((noreturn, noinline)) void reserve_failed(struct vma_index *x)
{
	fprintf(stderr, "vmabench: %s: reserve failed (out of memory)\n", x->ops->name);
	exit(2);
}

#define DEFINE_OP_WRAPPERS(P)								\
static BENCH_FN void P##_insert(struct vma_index *x, struct vma *v)			\
{											\
	if (x->ops->reserve(x, 1))							\
		reserve_failed(x);							\
	x->ops->insert(x, v);								\
	NO_TAIL_CALL();									\
}											\
static BENCH_FN struct vma *P##_erase(struct vma_index *x, uintptr_t start)		\
{											\
	struct vma *v = x->ops->find(x, start);						\
											\
	if (v && v->start == start)							\
		x->ops->erase(x, v);							\
	NO_TAIL_CALL();									\
	return v;									\
}											\
static BENCH_FN struct vma *P##_find(struct vma_index *x, uintptr_t addr)		\
{											\
	struct vma *v = x->ops->find(x, addr);						\
											\
	NO_TAIL_CALL();									\
	return v;									\
}											\
static BENCH_FN int P##_gap(struct vma_index *x, uintptr_t len, uintptr_t low,		\
			    uintptr_t high, uintptr_t *out)				\
{											\
	int ret = x->ops->gap_top(x, len, PAGE_SIZE, low, high, out);			\
											\
	NO_TAIL_CALL();									\
	return ret;									\
}

DEFINE_OP_WRAPPERS(bench)
DEFINE_OP_WRAPPERS(build)

/*
 * The clock's own cost inside one timed interval: the median of 1001
 * back-to-back now_ns() pairs. Subtracted from every batch (short batches,
 * e.g. 2 inserts per round at n = 16, would otherwise carry it).
 */
static uint64_t clock_cost;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void calibrate_clock(void)
{
	uint64_t d[1001];
	size_t i;

	for (i = 0; i < 1001; i++) {
		uint64_t t0 = now_ns();
		d[i] = now_ns() - t0;
	}
	qsort(d, 1001, sizeof(d[0]), cmp_u64);
	clock_cost = d[500];
}

static void disagree(const struct vma_index_ops *b, const struct op *o, const char *fmt,
		     unsigned long got, unsigned long want)
{
	printf("%s: line %u: %s ", b->name, o->line, kind_name[o->kind]);
	printf(fmt, got, want);
	printf("\n");
	fflush(stdout);
	fprintf(stderr, "vmabench: %s disagrees with the model at %s:%u\n", b->name, trace_name, o->line);
	exit(1);
}

/* Replay the whole trace on backend b. */
static void run_backend(const struct vma_index_ops *b, bool check)
{
	/* Each VMA carries the backend's link after it: vma_alloc_size(b) bytes apart. */
	struct vma *pool = calloc(nslots ? nslots : 1, vma_alloc_size(b));
	struct stats st[NKINDS];
	struct vma_index x;
	size_t i, bytes = 0;
	uint64_t total = 0;
	int k;

	if (!pool) {
		fprintf(stderr, "vmabench: out of memory\n");
		exit(2);
	}
	memset(st, 0, sizeof(st));
	memset(&x, 0, sizeof(x));
	b->init(&x);
	x.ops = b;
	for (i = 0; i < nops;) {
		/* A batch: up to 256 consecutive ops of one kind, timed together. */
		size_t j, end = i;
		int kind = ops[i].kind;
		bool measured;
		uint64_t t0, dt;

		while (end < nops && end - i < 256 && ops[end].kind == kind &&
		       (ops[end].line > skip_lines) == (ops[i].line > skip_lines))
			end++;
		/* End a batch at the peak, to measure bytes() there (untimed). */
		if (peak_op != NONE && i <= peak_op && end > peak_op + 1)
			end = peak_op + 1;
		measured = ops[i].line > skip_lines;     /* batches never straddle the boundary */
		if (measured)
			measured_ops_begin();
		t0 = now_ns();
		for (j = i; j < end; j++) {
			const struct op *o = &ops[j];
			uint64_t a0 = x.accesses, d;
			struct vma *v;
			uintptr_t got = 0;
			int ret;

			switch (kind) {
			case K_INSERT:
				v = vma_array_at(pool, b, o->slot);
				v->start = o->a;
				v->end = o->b;
				v->pgoff = o->a >> PAGE_SHIFT;
				if (measured)
					bench_insert(&x, v);
				else
					build_insert(&x, v);
				break;
			case K_ERASE:
				v = measured ? bench_erase(&x, o->a) : build_erase(&x, o->a);
				if (check && v != vma_array_at(pool, b, o->slot))
					disagree(b, o, "0x%lx: found the VMA at 0x%lx", o->a,
						 v ? v->start : 0UL);
				break;
			case K_FIND:
				v = measured ? bench_find(&x, o->a) : build_find(&x, o->a);
				if (check && v != (o->slot == NONE ? NULL : vma_array_at(pool, b, o->slot)))
					disagree(b, o, "got the VMA starting 0x%lx, expected 0x%lx (0: none)",
						 v ? v->start : 0UL,
						 o->slot == NONE ? 0UL : vma_array_at(pool, b, o->slot)->start);
				break;
			default:
				ret = measured ? bench_gap(&x, o->a, o->b, o->c, &got) :
						 build_gap(&x, o->a, o->b, o->c, &got);
				if (check && (ret != 0) != (o->slot == NONE))
					disagree(b, o, "returned %ld, expected %ld", (unsigned long)(long)ret,
						 o->slot == NONE ? (unsigned long)(long)-ENOMEM : 0UL);
				if (check && ret == 0 && got != o->want)
					disagree(b, o, "found 0x%lx, expected 0x%lx", got, o->want);
				break;
			}
			if (!measured)
				continue;
			d = x.accesses - a0;
			st[kind].count++;
			st[kind].acc_sum += d;
			if (d > st[kind].acc_max)
				st[kind].acc_max = d;
		}
		dt = now_ns() - t0;
		if (measured)
			st[kind].ns += dt > clock_cost ? dt - clock_cost : 0;
		if (peak_op != NONE && i <= peak_op && peak_op < end) {
			bytes = b->bytes(&x);
			if (check && x.count != peak_count) {
				printf("%s: line %u: count %zu, expected %zu\n", b->name,
				       ops[peak_op].line, x.count, peak_count);
				exit(1);
			}
		}
		i = end;
	}
	if (check && b->check(&x)) {
		fprintf(stderr, "vmabench: %s: check() failed at the end of the trace\n", b->name);
		exit(1);
	}
	for (k = 0; k < NKINDS; k++) {
		if (!st[k].count)
			continue;
		printf("%s %s count=%llu accesses_avg=%.2f accesses_max=%llu ns_avg=%.1f\n", b->name,
		       kind_name[k], (unsigned long long)st[k].count,
		       (double)st[k].acc_sum / st[k].count, (unsigned long long)st[k].acc_max,
		       (double)st[k].ns / st[k].count);
		total += st[k].ns;
	}
	printf("%s total ns=%llu bytes_per_vma=%.1f index_bytes_per_vma=%.1f\n", b->name,
	       (unsigned long long)total,
	       peak_count ? (double)(peak_count * vma_alloc_size(b) + bytes + sizeof(struct vma_index)) /
			    peak_count : 0.0,
	       peak_count ? (double)bytes / peak_count : 0.0);
	fflush(stdout);
	/* Tear down (untimed): erase what is left, in address order. */
	{
		struct vma *v;
		while ((v = b->first(&x)) != NULL) {
			b->reserve(&x, 1);
			b->erase(&x, v);
		}
	}
	b->destroy(&x);
	free(pool);
}

#ifdef VMABENCH_MAPLE
/*
 * Linux's maple tree (tools/bench/vmabench_maple.c) as a backend of this program
 * only: not in the registry, never in the kernel. vmabench replays one
 * backend at a time, so the adapter's single tree is enough. reserve is a
 * no-op: the maple tree preallocates inside its insert and erase, and that
 * is measured with them.
 */
#include "vmabench_maple.h"

static const struct vma_index_ops vma_maple_ops;

static void mp_init(struct vma_index *idx)
{
	idx->ops = &vma_maple_ops;
	idx->count = 0;
	idx->accesses = 0;
	vbm_create();
}

static void mp_destroy(struct vma_index *idx)
{
	vbm_destroy();
}

static struct vma *mp_find(struct vma_index *idx, uintptr_t addr)
{
	return vbm_find(addr);
}

static int mp_reserve(struct vma_index *idx, unsigned nr)
{
	return 0;
}

static void mp_insert(struct vma_index *idx, struct vma *v)
{
	if (vbm_insert(v->start, v->end, v)) {
		fprintf(stderr, "vmabench: maple: insert: out of memory\n");
		exit(2);
	}
	idx->count++;
}

static void mp_erase(struct vma_index *idx, struct vma *v)
{
	vbm_erase(v->start, v->end);
	idx->count--;
}

static int mp_gap_top(struct vma_index *idx, uintptr_t len, uintptr_t align, uintptr_t low,
		      uintptr_t high, uintptr_t *out)
{
	unsigned long a;

	if (align != PAGE_SIZE || vbm_gap_top(len, low, high, &a))
		return -ENOMEM;
	*out = a;
	return 0;
}

static struct vma *mp_first(struct vma_index *idx)
{
	return vbm_first();
}

static int mp_check(struct vma_index *idx)
{
	return 0;       /* every result was compared with the model's already */
}

static size_t mp_bytes(struct vma_index *idx)
{
	return vbm_nodes() * vbm_node_size();
}

static const struct vma_index_ops vma_maple_ops = {
	.name = "maple",
	.init = mp_init,
	.destroy = mp_destroy,
	.find = mp_find,
	.reserve = mp_reserve,
	.insert = mp_insert,
	.erase = mp_erase,
	.first = mp_first,
	.gap_top = mp_gap_top,
	.check = mp_check,
	.bytes = mp_bytes,
};
#endif

/* The registered backends, then (when built in) the maple tree; NULL-terminated. */
static const struct vma_index_ops *bench_backends[16];

static void list_backends(void)
{
	const struct vma_index_ops *const *p;
	size_t n = 0;

	for (p = vma_backends; *p && n + 2 < sizeof(bench_backends) / sizeof(bench_backends[0]); p++)
		bench_backends[n++] = *p;
#ifdef VMABENCH_MAPLE
	bench_backends[n++] = &vma_maple_ops;
#endif
	bench_backends[n] = NULL;
}

static const struct vma_index_ops *bench_backend_by_name(const char *name)
{
	const struct vma_index_ops *const *p;

	for (p = bench_backends; *p; p++)
		if (strcmp((*p)->name, name) == 0)
			return *p;
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: vmabench --backend NAME|all --trace FILE [--no-check] [--skip-lines N] [--callgrind-start]\n"
		"       vmabench --registry\n");
	exit(2);
}

/* --registry: the names of vma_backends[], one a line. */
static int print_registry(void)
{
	for (const struct vma_index_ops *const *p = vma_backends; *p; p++)
		printf("%s\n", (*p)->name);
	return 0;
}

int main(int argc, char **argv)
{
	const char *backend = NULL, *trace = NULL;
	const struct vma_index_ops *const *p;
	bool check = true;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--registry") == 0)
			return print_registry();
		else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc)
			backend = argv[++i];
		else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc)
			trace = argv[++i];
		else if (strcmp(argv[i], "--no-check") == 0)
			check = false;
		else if (strcmp(argv[i], "--skip-lines") == 0 && i + 1 < argc)
			skip_lines = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--callgrind-start") == 0) {
#ifndef HAVE_CALLGRIND_H
			fprintf(stderr, "vmabench: built without valgrind/callgrind.h: no --callgrind-start\n");
			return 2;
#endif
			callgrind_start = true;
		}
		else
			usage();
	}
	if (!backend || !trace)
		usage();
	list_backends();
	if (strcmp(backend, "all") != 0 && !bench_backend_by_name(backend)) {
		fprintf(stderr, "vmabench: unknown backend '%s'; known:", backend);
		for (p = bench_backends; *p; p++)
			fprintf(stderr, " %s", (*p)->name);
		fprintf(stderr, "\n");
		return 2;
	}
	calibrate_clock();
	read_trace(trace);
	{
		/*
		 * Simulated RAM for backends
		 * that allocate nodes (the B-tree): 64 MiB plus 320 bytes per
		 * inserted VMA (VMABENCH_RAM_MB overrides).
		 */
		size_t k, ninsert = 0, ram;
		for (k = 0; k < nops; k++)
			ninsert += ops[k].kind == K_INSERT;
		ram = ((64UL << 20) + ninsert * 320 + 0xfffff) & ~0xfffffUL;
		if (getenv("VMABENCH_RAM_MB"))
			ram = strtoull(getenv("VMABENCH_RAM_MB"), NULL, 0) << 20;
		vma_host_init(ram);
	}
	model_pass();
#ifdef VMABENCH_MAPLE
	vbm_global_init();
#endif
	if (strcmp(backend, "all") == 0) {
		for (p = bench_backends; *p; p++)
			run_backend(*p, check);
	} else {
		run_backend(bench_backend_by_name(backend), check);
	}
	return 0;
}
