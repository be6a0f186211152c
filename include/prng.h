/* A small deterministic PRNG (xorshift64*) for tests, fuzzers and workloads: same seed, same sequence everywhere. */
#ifndef PRNG_H
#define PRNG_H

#include "types.h"

struct prng {
	uint64_t s;
};

static inline void prng_seed(struct prng *r, uint64_t seed)
{
	r->s = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

static inline uint64_t prng_next(struct prng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/* Uniform-ish in [0, n); n > 0. */
static inline uint64_t prng_below(struct prng *r, uint64_t n)
{
	return prng_next(r) % n;
}

#endif
