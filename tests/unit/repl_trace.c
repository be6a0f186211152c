/*
 * Reference traces for the replacement model: tests/unit/repl_trace.h.
 */
#include "kernel.h"
#include "kstring.h"
#include "repl_trace.h"

static const char *const trace_names[] = {
	[REPL_LOOP] = "loop", [REPL_HOTCOLD] = "hotcold", [REPL_SCAN] = "scan", [REPL_PHASES] = "phases",
};

int repl_trace_kind(const char *name)
{
	for (unsigned k = 0; k < ARRAY_SIZE(trace_names); k++)
		if (!strcmp(name, trace_names[k]))
			return (int)k;
	return -1;
}

const char *repl_trace_name(enum repl_trace_kind k)
{
	return trace_names[k];
}

void repl_trace_init(struct repl_trace *tr, enum repl_trace_kind kind, unsigned npages,
		     unsigned long refs, unsigned long long seed)
{
	*tr = (struct repl_trace){ .kind = kind, .npages = npages, .refs = refs, .rng = seed };
}

static unsigned long long trace_rng(struct repl_trace *tr)
{
	tr->rng ^= tr->rng >> 12;
	tr->rng ^= tr->rng << 25;
	tr->rng ^= tr->rng >> 27;
	return tr->rng * 0x2545f4914f6cdd1dULL;
}

/* A page in [lo, lo + n), uniformly. */
static unsigned trace_pick(struct repl_trace *tr, unsigned lo, unsigned n)
{
	return lo + (unsigned)(trace_rng(tr) % n);
}

/* 80% of references in the hot pages [0, hot), the rest in the cold ones after them. */
static unsigned trace_hotcold(struct repl_trace *tr, unsigned hot)
{
	if (trace_rng(tr) % 10 < 8)
		return trace_pick(tr, 0, hot);
	return trace_pick(tr, hot, tr->npages - hot);
}

unsigned repl_trace_next(struct repl_trace *tr)
{
	unsigned hot = tr->npages / 3, cold = tr->npages - hot;
	unsigned long i = tr->i++;

	switch (tr->kind) {
	case REPL_LOOP:
		return (unsigned)(i % tr->npages);
	case REPL_SCAN:
		if (i % 2)
			return trace_pick(tr, 0, hot);
		tr->scan = (tr->scan + 1) % cold;
		return hot + tr->scan;
	case REPL_PHASES: {
		unsigned long phase = tr->refs / 8 ? tr->refs / 8 : 1;
		unsigned shift = (unsigned)(i / phase) * hot;

		return (trace_hotcold(tr, hot) + shift) % tr->npages;
	}
	case REPL_HOTCOLD:
	default:
		return trace_hotcold(tr, hot);
	}
}
