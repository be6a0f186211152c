/*
 * workloads sweep: the 1998 "VMA accesses per lookup, insert and delete"
 * as a function of n, measured inside the kernel under real page faults,
 * mmap and munmap calls. Needs a kernel booted with vmastat=on (the index
 * operations are counted by kind, kernel/profile/profile_vma.c) and merge=off (so
 * that every mmap inserts and every munmap erases exactly one VMA).
 *
 *   workloads sweep [--layout mixed|64k|both] [--max N] [--max64k N] [--ops K]
 *
 * Layouts, built upward from a free region with MAP_FIXED (both: mixed,
 * then 64k, the default):
 *   mixed  VMAs of 1-16 pages with holes of 1-8 pages (uniform), as
 *          docs/vma-bench.md: page numbers spread over every hash list.
 *          Checkpoints n = 16, 32, ..., --max (default 8192).
 *   64k    the seed's worst case: VMAs of 64 KiB at 64 KiB-aligned
 *          addresses, 64 KiB apart. Checkpoints 16, 32, ..., --max64k
 *          (default 2000: 1024, then 2000).
 * At each checkpoint, --ops K (default 256) operations of each kind:
 *   lookup        a read fault at a random page of a random VMA (the page
 *                 was dropped with MADV_DONTNEED before the window if it had
 *                 been read before): one find per fault
 *   lookup-start  the same at a VMA's first page
 *   insert        mmap(MAP_FIXED) of one unit (a page; 64 KiB in 64k) into
 *                 a random hole, in rounds of max(1, n/8) distinct holes
 *   erase         munmap of those units again, in random order
 * and prints, per operation kind,
 *   @result workload=sweep layout=L n=N vmas=V op=OP syscalls=S
 *           find=C:A:M find_prev=... insert=... erase=... update=... next=...
 *           prev=... first=... gap=... other=...
 * with C calls, A node accesses and M the most one call made, counted only
 * inside the window.
 */
#include "wl.h"

static const char *const op_names[VMK_VMA_NR_OPS] = {
	"find", "find_prev", "insert", "erase", "update", "next", "prev", "first", "gap", "other",
};

struct sweep {
	struct wl_rng rng;
	bool big;                       /* the 64k layout */
	unsigned long unit;             /* bytes: a page, or 64 KiB */
	unsigned long base;             /* start of the region */
	unsigned long n;                /* VMAs placed so far */
	unsigned long *start, *len;     /* placed VMAs, ascending */
	unsigned char *read_map;        /* a bit per page of the region: read since last dropped */
	unsigned long *ins;             /* inserted units of the current round */
	unsigned long ops;
};

static void stat_reset(void)
{
	if (usys3(__NR_vmk_profile, VMK_PROF_VMASTAT_RESET, 0, 0) != 0)
		wl_die("sweep: vmk_profile(VMASTAT_RESET) failed: boot with vmastat=on");
}

static void stat_read(struct vmk_vmastat *st)
{
	if (usys3(__NR_vmk_profile, VMK_PROF_VMASTAT, (long)st, sizeof(*st)) != 0)
		wl_die("sweep: vmk_profile(VMASTAT) failed");
}

static void add_stats(struct vmk_vmastat *sum, const struct vmk_vmastat *st)
{
	for (int k = 0; k < VMK_VMA_NR_OPS; k++) {
		sum->calls[k] += st->calls[k];
		sum->accesses[k] += st->accesses[k];
		if (st->max_accesses[k] > sum->max_accesses[k])
			sum->max_accesses[k] = st->max_accesses[k];
	}
	sum->vmas = st->vmas;
}

static void print_stats(const struct sweep *s, const char *op, unsigned long syscalls,
			const struct vmk_vmastat *st)
{
	char buf[400];
	int o = 0;

	for (int k = 0; k < VMK_VMA_NR_OPS; k++)
		o += snprintf(buf + o, sizeof(buf) - o, " %s=%llu:%llu:%llu", op_names[k],
			      (unsigned long long)st->calls[k], (unsigned long long)st->accesses[k],
			      (unsigned long long)st->max_accesses[k]);
	wl_result("workload=sweep layout=%s n=%lu vmas=%llu op=%s syscalls=%lu%s",
		  s->big ? "64k" : "mixed", s->n, (unsigned long long)st->vmas, op, syscalls, buf);
}

/* Place VMAs until there are n. */
static void grow_to(struct sweep *s, unsigned long n)
{
	while (s->n < n) {
		unsigned long prev_end = s->n ? s->start[s->n - 1] + s->len[s->n - 1] : s->base;
		unsigned long hole = s->big ? s->unit : wl_between(&s->rng, 1, 8) * WL_PAGE;
		unsigned long len = s->big ? s->unit : wl_between(&s->rng, 1, 16) * WL_PAGE;

		s->start[s->n] = prev_end + hole;
		s->len[s->n] = len;
		wl_map((void *)s->start[s->n], len, PROT_READ | PROT_WRITE, MAP_FIXED);
		s->n++;
	}
}

/* K read faults at random VMAs: at a random page, or at the first page (at_start). */
static void measure_lookups(struct sweep *s, bool at_start)
{
	unsigned long *addr = s->ins;           /* scratch: K addresses */
	struct vmk_vmastat st;

	for (unsigned long i = 0; i < s->ops; i++) {
		unsigned long v = wl_rand(&s->rng) % s->n;
		unsigned long pg = at_start ? 0 : wl_rand(&s->rng) % (s->len[v] / WL_PAGE);
		unsigned long a = s->start[v] + pg * WL_PAGE, bit = (a - s->base) / WL_PAGE;

		if (s->read_map[bit / 8] & (1u << (bit % 8)))
			madvise((void *)a, WL_PAGE, MADV_DONTNEED);
		s->read_map[bit / 8] |= (unsigned char)(1u << (bit % 8));
		addr[i] = a;
	}
	/* the same page twice in the window would fault once: drop the repeats */
	unsigned long k = 0;
	for (unsigned long i = 0; i < s->ops; i++) {
		bool dup = false;
		for (unsigned long j = 0; j < k && !dup; j++)
			dup = addr[j] == addr[i];
		if (!dup)
			addr[k++] = addr[i];
	}
	stat_reset();
	for (unsigned long i = 0; i < k; i++)
		(void)*(volatile const char *)addr[i];
	stat_read(&st);
	print_stats(s, at_start ? "lookup-start" : "lookup", k, &st);
}

/* Rounds of max(1, n/8) one-unit inserts into distinct random holes, then their erases. */
static void measure_insert_erase(struct sweep *s)
{
	unsigned long round = s->n / 8 ? s->n / 8 : 1, done = 0, calls = 0;
	struct vmk_vmastat st, ins_sum, era_sum;

	memset(&ins_sum, 0, sizeof(ins_sum));
	memset(&era_sum, 0, sizeof(era_sum));
	while (done < s->ops) {
		unsigned long k = round < s->ops - done ? round : s->ops - done, m = 0;

		for (unsigned long i = 0; i < k; i++) {         /* distinct holes below VMA h */
			unsigned long h = wl_rand(&s->rng) % s->n, lo, pages, a;
			lo = h ? s->start[h - 1] + s->len[h - 1] : s->base;
			pages = (s->start[h] - lo) / WL_PAGE;
			a = s->big ? lo : lo + wl_between(&s->rng, 0, pages - 1) * WL_PAGE;
			bool dup = false;
			for (unsigned long j = 0; j < m && !dup; j++)
				dup = s->ins[j] >= lo && s->ins[j] < s->start[h];
			if (!dup)
				s->ins[m++] = a;
		}
		stat_reset();
		for (unsigned long i = 0; i < m; i++)
			wl_map((void *)s->ins[i], s->unit, PROT_READ | PROT_WRITE, MAP_FIXED);
		stat_read(&st);
		add_stats(&ins_sum, &st);
		for (unsigned long i = m; i > 1; i--) {         /* random order */
			unsigned long j = wl_rand(&s->rng) % i, t = s->ins[i - 1];
			s->ins[i - 1] = s->ins[j];
			s->ins[j] = t;
		}
		stat_reset();
		for (unsigned long i = 0; i < m; i++)
			wl_unmap((void *)s->ins[i], s->unit);
		stat_read(&st);
		add_stats(&era_sum, &st);
		done += k;
		calls += m;
	}
	print_stats(s, "insert", calls, &ins_sum);
	print_stats(s, "erase", calls, &era_sum);
}

static void *alloc_array(unsigned long bytes)
{
	return wl_map(NULL, (bytes + WL_PAGE - 1) & ~(WL_PAGE - 1), PROT_READ | PROT_WRITE, 0);
}

static void free_array(void *p, unsigned long bytes)
{
	wl_unmap(p, (bytes + WL_PAGE - 1) & ~(WL_PAGE - 1));
}

/* One layout from n = 16 to max; everything it mapped is unmapped again at the end. */
static void sweep_layout(bool big, unsigned long max, unsigned long ops)
{
	struct sweep s;
	unsigned long span;

	memset(&s, 0, sizeof(s));
	s.big = big;
	s.ops = ops;
	wl_rng_seed(&s.rng, 1998);
	s.unit = s.big ? 16 * WL_PAGE : WL_PAGE;
	span = (max + 2) * (s.big ? 2 * s.unit : 24 * WL_PAGE) + s.unit;
	s.start = alloc_array(max * sizeof(unsigned long));
	s.len = alloc_array(max * sizeof(unsigned long));
	s.ins = alloc_array((s.ops + max) * sizeof(unsigned long));
	s.read_map = alloc_array(span / WL_PAGE / 8 + 1);
	/* a free region: map it to find one, unmap, then place VMAs in it */
	s.base = (unsigned long)wl_map(NULL, span, PROT_NONE, 0);
	wl_unmap((void *)s.base, span);
	s.base = (s.base + s.unit - 1) & ~(s.unit - 1);
	for (unsigned long n = 16; n <= max; n = n * 2 <= max || n == max ? n * 2 : max) {
		grow_to(&s, n);
		measure_lookups(&s, false);
		measure_lookups(&s, true);
		measure_insert_erase(&s);
	}
	/*
	 * In pieces of 256 VMAs: one munmap over thousands of VMAs fails with
	 * ENOMEM on the btree backend today (Linux takes it in one call).
	 */
	for (unsigned long i = 0; i < s.n; i += 256) {
		unsigned long last = i + 256 < s.n ? i + 255 : s.n - 1;
		wl_unmap((void *)s.start[i], s.start[last] + s.len[last] - s.start[i]);
	}
	free_array(s.start, max * sizeof(unsigned long));
	free_array(s.len, max * sizeof(unsigned long));
	free_array(s.ins, (s.ops + max) * sizeof(unsigned long));
	free_array(s.read_map, span / WL_PAGE / 8 + 1);
}

int wl_sweep(int argc, char **argv)
{
	const char *layout = "both";
	unsigned long ops = wl_opt(argc, argv, "--ops", 256);
	unsigned long max = wl_opt(argc, argv, "--max", 8192);
	unsigned long max64 = wl_opt(argc, argv, "--max64k", 2000);

	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--layout") == 0)
			layout = argv[i + 1];
	if (strcmp(layout, "mixed") && strcmp(layout, "64k") && strcmp(layout, "both"))
		wl_die("sweep: --layout mixed|64k|both");
	if (!wl_on_vmkernel()) {
		wl_result("workload=sweep error=not-vmkernel");
		return 0;
	}
	if (max < 16 || max > 60000 || max64 < 16 || max64 > 60000 || ops == 0 || ops > 100000)
		wl_die("sweep: --max and --max64k 16..60000, --ops 1..100000");
	if (strcmp(layout, "64k") != 0)
		sweep_layout(false, max, ops);
	if (strcmp(layout, "mixed") != 0)
		sweep_layout(true, max64, ops);
	return 0;
}
