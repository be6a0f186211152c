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

#define TOUCHED 2000UL

/*
 * Faults among 60,000 VMAs under per-VMA locks (fault_lock=vma, the
 * default; the user-mmap stage runs it under the mmap_lock): the first write to each of 2,000 read-write
 * VMAs prepares its anon identity under the mmap_lock (a fallback), the
 * second, to its other page, finds the VMA without the mmap_lock (in the
 * B-tree, mm/vma_index/btree.c's find_lockless) and is a lock-free fault:
 * exactly 2,000 of them and no fallback, as nothing else runs. With
 * fault_lock=mmap no fault counts either way: the counters are skipped.
 * On Linux the writes and their values are checked.
 */
static void t_many_faults_lockless(void)
{
	char *p = many_vmas();
	struct vmk_memstat a, b, c;
	bool counted = vmk_memstat(&a);

	for (unsigned long i = 1; i < 2 * TOUCHED; i += 2)
		p[2 * i * PG] = (char)i;
	CHECK(vmk_memstat(&b) == counted);
	for (unsigned long i = 1; i < 2 * TOUCHED; i += 2)
		p[(2 * i + 1) * PG] = (char)(i + 1);
	CHECK(vmk_memstat(&c) == counted);
	for (unsigned long i = 1; i < 2 * TOUCHED; i += 2) {
		CHECK_EQ(p[2 * i * PG], (char)i);
		CHECK_EQ(p[(2 * i + 1) * PG], (char)(i + 1));
	}
	CHECK_EQ(munmap(p, SPAN), 0);
	if (!counted) {
		printf("    (counters skipped on Linux)\n");
	} else if (b.faults_fallback == a.faults_fallback && b.faults_lockless == a.faults_lockless) {
		printf("    (counters skipped: faults take the mmap_lock, fault_lock=mmap)\n");
	} else {
		CHECK_EQ(c.faults_lockless - b.faults_lockless, TOUCHED);
		CHECK_EQ(c.faults_fallback - b.faults_fallback, 0);
	}
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
	{ "manyvma_faults_lockless", t_many_faults_lockless },
	{ "manyvma_mprotect", t_many_mprotect },
	{ "manyvma_map_fixed", t_many_map_fixed },
	{ NULL, NULL },
};
