/*
 * workloads mix: the 1998 find_vma experiment's mixed workload (Bruno
 * Haible booted, started X, apache and netscape, and built gperf, under
 * readprofile). Three phases, each in forked processes that exit, so that
 * process start-up and exit_mmap are part of it, as they were then:
 *
 *   startup   24 processes that each "load" 20-60 shared libraries
 *             the way ld.so does (reserve the whole extent read-only, map
 *             text r-x, rodata r--, data rw- and bss rw- over it with
 *             MAP_FIXED, write the data and bss pages, make RELRO read-only),
 *             malloc a little, and exit: about 100-250 VMAs each (the
 *             count before exit is printed: phase=startup-peak vmas=).
 *   malloc    one process with a glibc-like allocator: small requests from a
 *             brk heap that grows and is trimmed, requests of 128 KiB and more
 *             with mmap/munmap (up to 16 live); every page written.
 *   compile   3 processes like cc1 on a big file: start-up with 10 libraries,
 *             then 1500 "segments" (1-6 data pages and a PROT_NONE
 *             guard page after them, as guarded allocators and GC arenas lay
 *             them out: two VMAs each, which never merge), written; then
 *             passes that drop pages of random segments with MADV_DONTNEED and
 *             write them again (a fault, hence a find_vma, per page) and free
 *             and reallocate random segments; exit with ~3000+ VMAs (the
 *             count at the peak is printed: vmas=).
 *
 * --small leaves out the compile phase: the few-VMA regime of the 1998
 * table. --libs-min N / --libs-max N: libraries per start-up process
 * (default 20 and 60; 2 and 6 give a few dozen VMAs a process, as in 1998).
 * --size PCT scales the process, allocation and segment counts
 * (default 100).
 * Prints one @result line per phase and one for the whole run.
 */
#include "wl.h"

struct mix_cfg {
	unsigned long pct;              /* --size */
	unsigned long libs_min, libs_max;       /* --libs-min, --libs-max */
	struct wl_rng rng;
};

/* One shared library as ld.so maps it; returns its VMA count. */
static unsigned load_library(struct wl_rng *r)
{
	unsigned long text = wl_between(r, 4, 64), ro = wl_between(r, 1, 16);
	unsigned long data = wl_between(r, 1, 4), bss = wl_between(r, 0, 8);
	unsigned long total = (text + ro + data + bss) * WL_PAGE;
	char *base = wl_map(NULL, total, PROT_READ, 0);
	char *p = base;

	wl_map(p, text * WL_PAGE, PROT_READ | PROT_EXEC, MAP_FIXED);
	wl_read_pages(p, (text / 4 + 1) * WL_PAGE);     /* code that runs */
	p += text * WL_PAGE;
	wl_map(p, ro * WL_PAGE, PROT_READ, MAP_FIXED);
	p += ro * WL_PAGE;
	wl_map(p, data * WL_PAGE, PROT_READ | PROT_WRITE, MAP_FIXED);
	wl_touch(p, data * WL_PAGE);                    /* relocations */
	if (data > 1)
		wl_protect(p, WL_PAGE, PROT_READ);      /* RELRO */
	p += data * WL_PAGE;
	if (bss) {
		wl_map(p, bss * WL_PAGE, PROT_READ | PROT_WRITE, MAP_FIXED);
		wl_touch(p, bss * WL_PAGE);
	}
	return 3 + (data > 1) + (bss > 0);
}

/* A process start-up: nlibs libraries, then a few small allocations. */
static void start_process(struct wl_rng *r, unsigned nlibs)
{
	for (unsigned i = 0; i < nlibs; i++)
		load_library(r);
	for (unsigned i = 0; i < 8; i++) {
		unsigned long len = wl_between(r, 1, 4) * 2 * WL_PAGE;
		wl_touch(wl_map(NULL, len, PROT_READ | PROT_WRITE, 0), len);
	}
}

static void startup_child(void *arg)
{
	struct mix_cfg *c = arg;

	start_process(&c->rng, (unsigned)wl_between(&c->rng, c->libs_min, c->libs_max));
	wl_result("workload=mix phase=startup-peak vmas=%ld", wl_vma_count());
}

/* The glibc-like allocator: brk heap for small requests, mmap from 128 KiB. */
static void malloc_child(void *arg)
{
	struct mix_cfg *c = arg;
	struct wl_rng *r = &c->rng;
	unsigned long heap0 = (unsigned long)sys_brk(0), top = heap0, used = heap0;
	void *big[16] = { 0 };
	unsigned long big_len[16] = { 0 };

	start_process(r, 10);
	for (unsigned long i = 0; i < 30 * c->pct; i++) {
		unsigned long k = wl_rand(r) % 100;

		if (k < 75) {                           /* small: bump, grow the heap by 132 KiB steps */
			used += wl_between(r, 16, 4096);
			if (used > top) {
				top = (used + 33 * WL_PAGE) & ~(WL_PAGE - 1);
				if ((unsigned long)sys_brk(top) != top)
					wl_die("brk(%#lx) failed", top);
				wl_touch((void *)(top - 33 * WL_PAGE), 33 * WL_PAGE);
			}
		} else if (k < 80) {                    /* free of the top chunk: trim the heap */
			used = heap0 + (used - heap0) / 2;
			top = (used + WL_PAGE - 1) & ~(WL_PAGE - 1);
			sys_brk(top);
		} else {                                /* big: mmap, write, and free an old one */
			unsigned s = (unsigned)(wl_rand(r) % 16);

			if (big[s])
				wl_unmap(big[s], big_len[s]);
			big_len[s] = wl_between(r, 32, 96) * WL_PAGE;
			big[s] = wl_map(NULL, big_len[s], PROT_READ | PROT_WRITE, 0);
			wl_touch(big[s], big_len[s]);
		}
	}
}

struct segment {
	char *p;
	unsigned long pages;            /* data pages; a guard page follows */
};

static void new_segment(struct wl_rng *r, struct segment *s)
{
	s->pages = wl_between(r, 1, 6);
	s->p = wl_map(NULL, (s->pages + 1) * WL_PAGE, PROT_READ | PROT_WRITE, 0);
	wl_protect(s->p + s->pages * WL_PAGE, WL_PAGE, PROT_NONE);
	wl_touch(s->p, s->pages * WL_PAGE);
}

static void compile_child(void *arg)
{
	struct mix_cfg *c = arg;
	struct wl_rng *r = &c->rng;
	unsigned long nseg = 15 * c->pct;
	struct segment *seg = wl_map(NULL, nseg * sizeof(*seg), PROT_READ | PROT_WRITE, 0);

	start_process(r, 10);
	for (unsigned long i = 0; i < nseg; i++)
		new_segment(r, &seg[i]);
	for (unsigned pass = 0; pass < 4; pass++) {
		for (unsigned long i = 0; i < nseg / 2; i++) {          /* drop and re-fault */
			struct segment *s = &seg[wl_rand(r) % nseg];

			madvise(s->p, s->pages * WL_PAGE, MADV_DONTNEED);
			wl_touch(s->p, s->pages * WL_PAGE);
		}
		for (unsigned long i = 0; i < nseg / 8; i++) {          /* free and reallocate */
			struct segment *s = &seg[wl_rand(r) % nseg];

			wl_unmap(s->p, (s->pages + 1) * WL_PAGE);
			new_segment(r, s);
		}
	}
	wl_result("workload=mix phase=compile-peak vmas=%ld", wl_vma_count());
}

static void run_phase(struct mix_cfg *c, const char *name, void (*fn)(void *), unsigned times)
{
	struct wl_counts a, b;

	wl_counts(&a);
	for (unsigned i = 0; i < times; i++) {
		wl_rand(&c->rng);               /* each child a different stream */
		wl_in_child(name, fn, c);
	}
	wl_counts(&b);
	wl_result_counts("mix", name, &a, &b);
}

int wl_mix(int argc, char **argv)
{
	struct mix_cfg c;
	struct wl_counts a, b;

	c.pct = wl_opt(argc, argv, "--size", 100);
	if (c.pct == 0 || c.pct > 10000)
		wl_die("mix: --size must be 1..10000 (percent)");
	c.libs_min = wl_opt(argc, argv, "--libs-min", 20);
	c.libs_max = wl_opt(argc, argv, "--libs-max", 60);
	if (c.libs_min > c.libs_max || c.libs_max > 1000)
		wl_die("mix: need --libs-min <= --libs-max <= 1000");
	wl_rng_seed(&c.rng, 1998);
	wl_counts(&a);
	run_phase(&c, "startup", startup_child, (unsigned)((24 * c.pct + 99) / 100));
	run_phase(&c, "malloc", malloc_child, 1);
	if (!wl_flag(argc, argv, "--small"))
		run_phase(&c, "compile", compile_child, 3);
	wl_counts(&b);
	wl_result_counts("mix", "all", &a, &b);
	return 0;
}
