/*
 * Reference traces for the replacement model (tests/unit/repl_model.h):
 * the generators of make bench-replace (tools/bench/replsim.c) and of lab
 * replace's score (tests/unit/test_lru_score.c), so the benchmark and the
 * grade replay the same strings. A trace is generated one reference at a
 * time from a seed (xorshift64*), so the same arguments give the same
 * pages on any machine, in the kernel as on the host, with no buffer.
 *
 * Traces over W = npages distinct pages (hot = W/3, cold = the rest):
 *   loop     0, 1, .., W-1, 0, 1, ..: every recency-based algorithm's worst
 *   hotcold  80% of references at random in the hot pages, 20% in the cold
 *   scan     every other reference at random in the hot pages, the others
 *            the next page of a cyclic scan of the cold ones
 *   phases   hotcold, with the hot pages moving by W/3 every refs/8
 */
#ifndef REPL_TRACE_H
#define REPL_TRACE_H

enum repl_trace_kind { REPL_LOOP, REPL_HOTCOLD, REPL_SCAN, REPL_PHASES };

struct repl_trace {
	enum repl_trace_kind kind;
	unsigned npages;
	unsigned long refs, i;        /* length, references made so far */
	unsigned scan;                /* the scan's cursor */
	unsigned long long rng;       /* xorshift64* state */
};

/* The kind named name ("loop", "hotcold", "scan", "phases"); -1 if none. */
int repl_trace_kind(const char *name);
/* The name of kind k. */
const char *repl_trace_name(enum repl_trace_kind k);
/* Start trace tr: npages >= 3 pages, refs > 0 references, seed != 0. */
void repl_trace_init(struct repl_trace *tr, enum repl_trace_kind kind, unsigned npages,
		     unsigned long refs, unsigned long long seed);
/* The page (< npages) of the next reference; call at most refs times. */
unsigned repl_trace_next(struct repl_trace *tr);

#endif
