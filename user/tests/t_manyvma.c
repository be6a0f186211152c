/*
 * munmap, mprotect and MAP_FIXED across 60,000 VMAs (the B-tree's reserve
 * used to grow quadratically with the VMAs an operation touched, so these
 * failed with ENOMEM from about 2,000 VMAs on; Linux does them all).
 * 60,000 plus the program's own VMAs stays below Linux's default
 * vm.max_map_count, 65530.
 *
 * Layout: one read-only mapping of 2 * 60,000 pages, then every odd
 * two-page chunk made read-write: 60,000 VMAs that cannot merge (the host
 * unit test vma_many counts them through the same steps on every index
 * backend). Only munmap, mprotect and mmap are used, so that the course
 * labs that take merging or mremap out still pass these tests. Every
 * expected value is Linux's (the binary passes on the host Linux).
 */
#include "utests.h"

#define PG 4096UL
#define NVMAS 60000UL
#define SPAN (2 * NVMAS * PG)

/* The 60,000 VMAs at the returned address. */
static char *many_vmas(void)
{
	char *p = mmap(NULL, SPAN, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long i;

	CHECK(p != MAP_FAILED);
	for (i = 1; i < NVMAS; i += 2)
		CHECK_EQ(mprotect(p + 2 * i * PG, 2 * PG, PROT_READ | PROT_WRITE), 0);
	return p;
}

/* munmap of all 60,000 at once; afterwards nothing is mapped there (mincore: ENOMEM). */
static void t_many_munmap(void)
{
	char *p = many_vmas();
	unsigned char vec[1];

	CHECK_EQ(munmap(p, SPAN), 0);
	CHECK_EQ(sys_mincore((unsigned long)p, PG, vec), -ENOMEM);
	CHECK_EQ(sys_mincore((unsigned long)(p + SPAN - PG), PG, vec), -ENOMEM);
}

/* mprotect of all 60,000 to read-write: writable throughout, then unmapped. */
static void t_many_mprotect(void)
{
	char *p = many_vmas();

	CHECK_EQ(mprotect(p, SPAN, PROT_READ | PROT_WRITE), 0);
	p[0] = 1;
	p[SPAN / 2] = 2;
	p[SPAN - 1] = 3;
	CHECK_EQ(p[0] + p[SPAN / 2] + p[SPAN - 1], 6);
	CHECK_EQ(munmap(p, SPAN), 0);
}

/* MAP_FIXED over all 60,000 replaces them by zero-filled read-write memory. */
static void t_many_map_fixed(void)
{
	char *p = many_vmas();

	CHECK(mmap(p, SPAN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == p);
	CHECK_EQ(p[SPAN - 1], 0);
	p[SPAN - 1] = 7;
	CHECK_EQ(p[SPAN - 1], 7);
	CHECK_EQ(munmap(p, SPAN), 0);
}

const struct utest ut_manyvma_tests[] = {
	{ "manyvma_munmap", t_many_munmap },
	{ "manyvma_mprotect", t_many_mprotect },
	{ "manyvma_map_fixed", t_many_map_fixed },
	{ NULL, NULL },
};
