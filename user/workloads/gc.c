/*
 * workloads gc: the 2001 merging experiment's allocator. gcc's garbage
 * collector (ggc-page) got its pages from the kernel with mmap and gave
 * free ones back with munmap after each collection. Red Hat's gcc 2.96
 * mapped ONE page per mmap, so without VMA merging its 25 MB arena was
 * thousands of VMAs (cc1plus: >3000 lines in /proc/PID/maps); gcc 3.0
 * mapped 32-page chunks (here --chunk 32) and hardly noticed.
 *
 *   workloads gc --chunk PAGES [--peak PAGES] [--cycles C] [--brk] [--sys N]
 *
 * Model (ggc-page, simplified): live pages and a free-page list. Each of C
 * cycles (default 20) allocates pages until the live set reaches its
 * target for the cycle (growing linearly to --peak, default 6400 pages =
 * 25 MB): a page comes from the free list, else from a new mmap of --chunk
 * pages whose other pages go to the free list; every new page is written
 * (a fault). Then a collection: "mark" reads every live page (no faults:
 * they are resident), "sweep" frees a third of the live pages, in random
 * stretches of 1-64 pages consecutive in allocation order (objects made
 * together die together), and "release" gives every free page back with
 * munmap, one call per run of adjacent free pages (ggc's release_pages). The next cycle's mmaps
 * land in the holes left behind (top-down search), so with merging on the
 * arena folds back into a few VMAs; without it every page stays a VMA.
 *
 * --brk: the pages come from the brk heap instead (the break grows by
 * --chunk pages at a time, as malloc's heap grows), and "release" keeps the
 * free pages for reuse (malloc's free lists) instead of unmapping them:
 * gcc 2.95.3's collector took its memory from malloc, and the process stays
 * a handful of VMAs whatever merging does.
 *
 * --sys N: N reads of 64 KiB from a memfd per cycle, kernel work that no
 * VMA count changes (what a real compile also asks of the kernel: file
 * reads, exec, writing its output), to see how much of it dilutes the
 * merge-off/merge-on ratio of kernel time to the seed's 3.3.
 *
 * The last cycle ends at the peak, where the run stops (before any exit).
 * Prints @result lines with the run's counters (wl.h, taken before maps is
 * read) and
 *   maps       lines of /proc/self/maps at the peak
 *   vmas       the VMA count at the peak (wl_vma_count: the same as maps on vmkernel)
 *   mmaps, munmaps, pages_allocated
 */
#include "wl.h"

struct gc {
	struct wl_rng rng;
	unsigned long chunk, peak, cycles;
	bool brk;                               /* pages from the brk heap, never given back */
	unsigned long brk_top;
	unsigned long sys;                      /* 64 KiB reads per cycle */
	int fd;                                 /* the memfd they read */
	unsigned long *live, nlive;             /* page addresses */
	unsigned long *freel, nfree;            /* free page list (addresses) */
	unsigned long mmaps, munmaps, allocated;
};

/* chunk new pages: from a fresh mapping, or the break moved up (--brk). */
static unsigned long new_chunk(struct gc *g)
{
	unsigned long p;

	if (!g->brk) {
		g->mmaps++;
		return (unsigned long)wl_map(NULL, g->chunk * WL_PAGE, PROT_READ | PROT_WRITE, 0);
	}
	if (!g->brk_top)
		g->brk_top = ((unsigned long)sys_brk(0) + WL_PAGE - 1) & ~(WL_PAGE - 1);
	p = g->brk_top;
	g->brk_top += g->chunk * WL_PAGE;
	if ((unsigned long)sys_brk(g->brk_top) != g->brk_top)
		wl_die("gc: brk(%#lx) failed", g->brk_top);
	return p;
}

static unsigned long take_page(struct gc *g)
{
	if (g->nfree == 0) {
		unsigned long p = new_chunk(g);

		for (unsigned long i = g->chunk; i-- > 0;)
			g->freel[g->nfree++] = p + i * WL_PAGE;
	}
	return g->freel[--g->nfree];
}

static void allocate_to(struct gc *g, unsigned long target)
{
	if (g->nlive > target) {                /* shrink: the newest live pages die */
		while (g->nlive > target)
			g->freel[g->nfree++] = g->live[--g->nlive];
		return;
	}
	while (g->nlive < target) {
		unsigned long p = take_page(g);

		*(volatile char *)p = 1;
		g->live[g->nlive++] = p;
		g->allocated++;
	}
}

/*
 * Free about a third of the live pages onto the free list, in stretches of
 * 1-64 pages consecutive in allocation order (objects allocated together
 * die together), keeping the survivors in allocation order.
 */
static void sweep(struct gc *g)
{
	unsigned long target = g->nlive / 3, freed = 0, k = 0;

	while (freed < target) {
		unsigned long at = wl_rand(&g->rng) % g->nlive;
		unsigned long len = wl_between(&g->rng, 1, 64);

		for (unsigned long i = at; i < g->nlive && i < at + len && freed < target; i++)
			if (!(g->live[i] & 1)) {
				g->freel[g->nfree++] = g->live[i];
				g->live[i] |= 1;                /* dead */
				freed++;
			}
	}
	for (unsigned long i = 0; i < g->nlive; i++)
		if (!(g->live[i] & 1))
			g->live[k++] = g->live[i];
	g->nlive = k;
}

/* munmap every free page, one call per run of adjacent ones (--brk: keep them for reuse). */
static void release(struct gc *g)
{
	unsigned long i = 0;

	if (g->brk)
		return;
	wl_sort(g->freel, g->nfree);
	while (i < g->nfree) {
		unsigned long j = i + 1;

		while (j < g->nfree && g->freel[j] == g->freel[j - 1] + WL_PAGE)
			j++;
		wl_unmap((void *)g->freel[i], (j - i) * WL_PAGE);
		g->munmaps++;
		i = j;
	}
	g->nfree = 0;
}

#define SYS_READ (64UL << 10)
static char sys_buf[SYS_READ];

/* The memfd the --sys reads read: 64 KiB, written once. */
static void sys_file_open(struct gc *g)
{
	g->fd = (int)sys_memfd_create("gc-sys", 0);
	if (g->fd < 0 || sys_write(g->fd, sys_buf, SYS_READ) != (long)SYS_READ)
		wl_die("gc: memfd for --sys");
}

/* --sys: this cycle's reads (kernel work that no VMA count changes). */
static void sys_work(struct gc *g)
{
	for (unsigned long i = 0; i < g->sys; i++)
		if (sys_pread(g->fd, sys_buf, SYS_READ, 0) != (long)SYS_READ)
			wl_die("gc: pread");
}

int wl_gc(int argc, char **argv)
{
	struct gc g;
	struct wl_counts a, b;
	long maps;
	unsigned long mark = 0;
	char name[32];

	memset(&g, 0, sizeof(g));
	g.chunk = wl_opt(argc, argv, "--chunk", 1);
	g.peak = wl_opt(argc, argv, "--peak", 6400);
	g.cycles = wl_opt(argc, argv, "--cycles", 20);
	g.brk = wl_flag(argc, argv, "--brk");
	g.sys = wl_opt(argc, argv, "--sys", 0);
	if (g.chunk < 1 || g.chunk > 4096 || g.peak < 16 || g.peak > 1000000 || g.cycles < 1)
		wl_die("gc: --chunk 1..4096 --peak 16..1000000 --cycles >= 1");
	if (g.sys)
		sys_file_open(&g);
	wl_rng_seed(&g.rng, 2001);
	g.live = wl_map(NULL, g.peak * sizeof(unsigned long), PROT_READ | PROT_WRITE, 0);
	g.freel = wl_map(NULL, (g.peak + g.chunk) * sizeof(unsigned long), PROT_READ | PROT_WRITE, 0);
	snprintf(name, sizeof(name), "gc-%schunk%lu", g.brk ? "brk-" : "", g.chunk);
	wl_counts(&a);
	for (unsigned long c = 1; c <= g.cycles; c++) {
		unsigned long target = g.peak * c / g.cycles;

		if (c % 3 == 2 && c < g.cycles)
			target = target * 3 / 4;        /* a quieter stretch: the live set shrinks */
		allocate_to(&g, target);
		if (c == g.cycles)
			break;
		release(&g);            /* the pages freed last time and not reused since */
		sys_work(&g);
		for (unsigned long i = 0; i < g.nlive; i++)     /* mark */
			mark += *(volatile const char *)g.live[i];
		sweep(&g);
	}
	wl_counts(&b);
	maps = wl_maps_lines();
	wl_result_counts(name, "all", &a, &b);
	wl_result("workload=%s phase=shape maps=%ld vmas=%ld mmaps=%lu munmaps=%lu pages_allocated=%lu "
		  "peak_pages=%lu marked=%lu", name, maps, wl_vma_count(), g.mmaps, g.munmaps,
		  g.allocated, g.peak, mark);
	return 0;
}
