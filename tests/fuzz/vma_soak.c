/*
 * Soak run of the VMA differential test: millions of random operations on
 * every registered backend at once, compared with the sorted-array model
 * after each step (tests/unit/vma_model.c).
 *
 *   build/soak/vma-soak [SEED [OPS [BACKEND]]]
 *
 * SEED (default 1) is printed so a failure replays; OPS (default 1000000)
 * is per address-space shape (six shapes, see below; the larger ones run
 * check() and the full iteration compare every few steps, not every step); BACKEND restricts the
 * run to one backend. Exit status 0 when every backend agreed throughout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vma_model.h"
#include "vma_host.h"

struct shape {
	const char *name;
	struct vma_diff_space s;
	unsigned full_every;          /* full iteration compare every N steps */
	unsigned check_every;         /* check() every N steps */
};

static const struct shape shapes[] = {
	{ "dense",      { 0x400000, 512, 0, 8, 128 }, 64, 1 },
	{ "aligned64k", { 0x10000000, 1 << 16, 4, 4, 2000 }, 2048, 64 },
	{ "sparse",     { 0x7f0000000000UL, 1UL << 24, 0, 256, 1024 }, 1024, 16 },
	{ "from_zero",  { 0, 256, 0, 4, 64 }, 16, 1 },
	{ "top",        { (UINTPTR_MAX & PAGE_MASK) - 256 * PAGE_SIZE, 256, 0, 4, 64 }, 16, 1 },
	{ "huge",       { 0, 1UL << 36, 28, 24, 128 }, 64, 1 },   /* 1 TiB units: lengths, gaps >= 16 TiB */
};

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
	uint64_t ops = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000;
	const struct vma_index_ops *only = NULL;
	unsigned k;
	int bad = 0;

	vma_host_init(256UL << 20);
	if (argc > 3) {
		only = vma_backend_by_name(argv[3]);
		if (!only) {
			fprintf(stderr, "vma-soak: unknown backend '%s'\n", argv[3]);
			return 2;
		}
	}
	for (k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		struct vma_diff *d = malloc(sizeof(*d));
		struct vma_rng r;
		unsigned b;

		if (!d || vma_diff_init(d, shapes[k].s.max_vmas, only)) {
			fprintf(stderr, "vma-soak: out of memory\n");
			return 2;
		}
		d->full_every = shapes[k].full_every;
		d->check_every = shapes[k].check_every;
		printf("vma-soak %s: seed %llu, %llu ops, backends:", shapes[k].name,
		       (unsigned long long)seed, (unsigned long long)ops);
		for (b = 0; b < d->nb; b++)
			printf(" %s", d->ops[b]->name);
		printf("\n");
		fflush(stdout);
		vma_rng_seed(&r, seed + k);
		if (vma_diff_run(d, &r, &shapes[k].s, ops)) {
			printf("vma-soak %s: FAILED at step %llu (replay: make soak-vma SEED=%llu OPS=%llu)\n",
			       shapes[k].name, (unsigned long long)d->steps,
			       (unsigned long long)seed, (unsigned long long)ops);
			bad = 1;
			free(d);                /* indexes left as they are: we are exiting */
			continue;
		}
		printf("vma-soak %s: ok, %llu steps, %llu skipped, peak %zu VMAs, gaps %llu found / %llu none\n",
		       shapes[k].name, (unsigned long long)d->steps, (unsigned long long)d->skipped,
		       d->peak, (unsigned long long)d->gap_found, (unsigned long long)d->gap_none);
		vma_diff_destroy(d);
		free(d);
	}
	return bad;
}
