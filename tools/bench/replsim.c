/*
 * replsim: page faults per replacement algorithm on the same reference
 * traces (make bench-replace; docs/replacement-bench.md). Every trace
 * touches a working set larger than memory (--ratio times the frames,
 * 1.5 by default) and is replayed on:
 *
 *   fifo        the LRU lists with the verdict that keeps nothing (lab
 *               replace's skeleton): first in, first out
 *   clock       one bit of second chance, no promotion (the clock)
 *   lru-approx  the kernel's policy, mm/lru_policy.c compiled here as it
 *               is in the kernel: second chance and promotion on the
 *               inactive list, aging from the active list
 *   lru         exact LRU (what the three approximate; free in a
 *               simulator, too dear for an MMU that keeps one bit)
 *   opt         Belady's MIN, the fewest faults any algorithm can have
 *               (it knows the future)
 *
 * The first four run on the model of tests/unit/repl_model.h (the lists
 * and batches of mm/vmscan_lru.c); opt is computed from the trace. The
 * traces (tests/unit/repl_trace.h, shared with lab replace's score) are
 * generated from --seed with xorshift64*: the same arguments give the
 * same figures on any machine.
 *
 * Traces (W = frames * ratio distinct pages):
 *   loop     0, 1, .., W-1, 0, 1, ..: LRU's worst case
 *   hotcold  80% of references to a hot third of W (half the frames), the
 *            rest spread over the other pages
 *   scan     a hot third of W referenced at random, every other reference
 *            the next page of a cyclic scan of the other two thirds
 *   phases   the hotcold trace with its hot third moving to other pages
 *            every refs/8 references
 *
 * Usage: replsim [--frames F] [--ratio R] [--refs N] [--seed S] [TRACE...]
 * Prints a Markdown table: per trace, the faults of each algorithm and
 * their share of the references.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/repl_model.h"
#include "tests/unit/repl_trace.h"

struct params {
	unsigned frames, npages;
	unsigned long refs;
	unsigned long long seed;
};

/* Belady's MIN: on a fault with memory full, evict the page used again furthest ahead. */
static unsigned long opt_faults(const unsigned *t, const struct params *p)
{
	unsigned long *next = malloc(p->refs * sizeof(*next)), *seen = malloc(p->npages * sizeof(*seen));
	unsigned long *when = malloc(p->npages * sizeof(*when)), faults = 0;
	unsigned *res = malloc(p->frames * sizeof(*res)), nres = 0;
	char *in = calloc(p->npages, 1);

	if (!next || !seen || !when || !res || !in) {
		fprintf(stderr, "replsim: out of memory\n");
		exit(1);
	}
	for (unsigned i = 0; i < p->npages; i++)
		seen[i] = p->refs;                      /* never again */
	for (unsigned long i = p->refs; i-- > 0;) {
		next[i] = seen[t[i]];
		seen[t[i]] = i;
	}
	for (unsigned long i = 0; i < p->refs; i++) {
		unsigned pg = t[i];

		when[pg] = next[i];
		if (in[pg])
			continue;
		faults++;
		if (nres == p->frames) {
			unsigned far = 0;

			for (unsigned k = 1; k < nres; k++)
				if (when[res[k]] > when[res[far]])
					far = k;
			in[res[far]] = 0;
			res[far] = res[--nres];
		}
		res[nres++] = pg;
		in[pg] = 1;
	}
	free(next), free(seen), free(when), free(res), free(in);
	return faults;
}

static unsigned long model_faults(const unsigned *t, const struct params *p, repl_verdict_fn v, bool exact,
				  struct repl_page *pages)
{
	struct repl_model m;

	repl_init(&m, pages, p->npages, p->frames, v, exact);
	for (unsigned long i = 0; i < p->refs; i++)
		repl_ref(&m, t[i]);
	return m.faults;
}

static void run_trace(enum repl_trace_kind kind, const struct params *p, unsigned *t, struct repl_page *pages)
{
	unsigned long f[5];
	struct repl_trace tr;

	repl_trace_init(&tr, kind, p->npages, p->refs, p->seed);
	for (unsigned long i = 0; i < p->refs; i++)
		t[i] = repl_trace_next(&tr);
	f[0] = model_faults(t, p, repl_fifo_verdict, false, pages);
	f[1] = model_faults(t, p, repl_clock_verdict, false, pages);
	f[2] = model_faults(t, p, lru_inactive_verdict, false, pages);
	f[3] = model_faults(t, p, repl_fifo_verdict, true, pages);
	f[4] = opt_faults(t, p);
	printf("| %s |", repl_trace_name(kind));
	for (unsigned k = 0; k < 5; k++)
		printf(" %lu (%.1f%%) |", f[k], 100.0 * (double)f[k] / (double)p->refs);
	printf("\n");
}

static void usage(void)
{
	fprintf(stderr, "usage: replsim [--frames F] [--ratio R] [--refs N] [--seed S] "
			"[loop|hotcold|scan|phases...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct params p = { .frames = 1024, .refs = 200000, .seed = 1 };
	double ratio = 1.5;
	enum repl_trace_kind traces[8];
	unsigned nt = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--frames"))
			p.frames = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && !strcmp(argv[i], "--ratio"))
			ratio = strtod(argv[++i], NULL);
		else if (i + 1 < argc && !strcmp(argv[i], "--refs"))
			p.refs = strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && !strcmp(argv[i], "--seed"))
			p.seed = strtoull(argv[++i], NULL, 0);
		else if (repl_trace_kind(argv[i]) >= 0 && nt < 8)
			traces[nt++] = (enum repl_trace_kind)repl_trace_kind(argv[i]);
		else
			usage();
	}
	p.npages = (unsigned)(p.frames * ratio + 0.5);
	if (!p.frames || !p.refs || !p.seed || p.npages < 3 || ratio < 1)
		usage();
	if (!nt) {
		traces[nt++] = REPL_LOOP, traces[nt++] = REPL_HOTCOLD;
		traces[nt++] = REPL_SCAN, traces[nt++] = REPL_PHASES;
	}
	unsigned *t = malloc(p.refs * sizeof(*t));
	struct repl_page *pages = malloc(p.npages * sizeof(*pages));

	if (!t || !pages)
		return 1;
	printf("%u frames, %u pages (%.2fx), %lu references per trace, seed %llu\n\n",
	       p.frames, p.npages, ratio, p.refs, p.seed);
	printf("| trace | fifo | clock | lru-approx (kernel) | lru (exact) | opt |\n");
	printf("|---|---|---|---|---|---|\n");
	for (unsigned k = 0; k < nt; k++)
		run_trace(traces[k], &p, t, pages);
	free(t);
	free(pages);
	return 0;
}
