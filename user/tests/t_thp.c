/*
 * Transparent huge pages as a program sees them (docs/guide.md, "The PMD
 * path"): 8 MiB written after MADV_HUGEPAGE on a 2 MiB boundary, then a
 * 4 KiB munmap, a 4 KiB mprotect, a fork whose child writes one byte, and
 * MADV_DONTNEED of a whole 2 MiB page; after each step the VMAs' Rss and
 * AnonHugePages from /proc/self/smaps are printed and checked, and the
 * data is checked. Expected values are Linux's (the host runs this test
 * too): a write fault in an aligned 2 MiB range of a THP VMA maps one huge
 * page; a partial munmap or mprotect splits the one huge page it touches
 * into 4 KiB mappings (no longer counted in AnonHugePages, data kept);
 * fork leaves the parent's huge pages mapped whole, whatever the child
 * writes; MADV_DONTNEED of a whole huge page frees it whole.
 *
 * usertests disables THP in every test (PR_SET_THP_DISABLE); this one
 * enables it again for itself. Where THP is off (Linux's "never", this
 * kernel's default thp=never:
 * the VMA's THPeligible is 0) the AnonHugePages checks are skipped, with
 * the reason printed; the Rss and data checks stay.
 */
#include "utests.h"

#define PG   4096UL
#define HPG  (2UL << 20)
#define SALT 0x5eed0000UL

/* The word a page holds at its start: its index in the region. */
static unsigned long word_of(unsigned long i)
{
	return SALT + i;
}

/* Pages [from, to) of p hold their words (zero: zero-filled instead). */
static void check_pages(const char *p, unsigned long from, unsigned long to, bool zero)
{
	for (unsigned long i = from; i < to; i++)
		CHECK_EQ(*(const unsigned long *)(p + i * PG), zero ? 0 : word_of(i));
}

/* One VMA's line: its offsets from p (KiB), Rss and AnonHugePages; checked against want_rss and want_huge (huge < 0: unchecked). */
static void vma_line(const char *p, unsigned long off, long want_rss, long want_huge)
{
	long rss = smaps_kb(p + off, "Rss:"), huge = smaps_kb(p + off, "AnonHugePages:");

	printf("    vma +%lu KiB: Rss %ld kB, AnonHugePages %ld kB\n", off >> 10, rss, huge);
	CHECK_EQ(rss, want_rss);
	if (want_huge >= 0)
		CHECK_EQ(huge, want_huge);
}

/* A private anonymous region of len bytes on a 2 MiB boundary (the excess of a padded mmap unmapped). */
static char *map_aligned(unsigned long len)
{
	char *raw = mmap(NULL, len + HPG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;
	unsigned long head;

	CHECK(raw != MAP_FAILED);
	p = (char *)(((unsigned long)raw + HPG - 1) & ~(HPG - 1));
	head = (unsigned long)(p - raw);
	if (head)
		CHECK_EQ(munmap(raw, head), 0);
	if (HPG - head)
		CHECK_EQ(munmap(p + len, HPG - head), 0);
	return p;
}

/* len bytes at p with THP on for them (usertests turned it off for all); whether the VMA is THPeligible. */
static bool thp_on(char *p, unsigned long len)
{
	bool thp;

	CHECK_EQ(sys_prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), 0);
	CHECK_EQ(madvise(p, len, MADV_HUGEPAGE), 0);
	thp = smaps_kb(p, "THPeligible:") == 1;
	if (!thp)
		printf("    (AnonHugePages checks skipped: THP is off here, THPeligible 0)\n");
	return thp;
}

static void t_thp_split_fork(void)
{
	const unsigned long n = 8 * 1024 * 1024 / PG;        /* 2048 pages: 4 huge pages */
	char *p = map_aligned(n * PG);
	bool thp = thp_on(p, n * PG);
	int pid, st;

	for (unsigned long i = 0; i < n; i++)
		*(unsigned long *)(p + i * PG) = word_of(i);
	printf("    written:\n");
	vma_line(p, 0, 8192, thp ? 8192 : -1);
	/* 4 KiB unmapped in the first huge page: it is split, the other three stay. */
	CHECK_EQ(munmap(p + PG, PG), 0);
	printf("    munmap 4 KiB at +4 KiB:\n");
	vma_line(p, 0, 4, thp ? 0 : -1);
	vma_line(p, 2 * PG, 8192 - 8, thp ? 6144 : -1);
	/* 4 KiB made read-only in the second: split too. */
	CHECK_EQ(mprotect(p + HPG + 3 * PG, PG, PROT_READ), 0);
	printf("    mprotect 4 KiB at +2060 KiB:\n");
	vma_line(p, 2 * PG, 2048 - 8 + 12, thp ? 0 : -1);
	vma_line(p, HPG + 3 * PG, 4, thp ? 0 : -1);
	vma_line(p, HPG + 4 * PG, 6144 - 16, thp ? 4096 : -1);
	/* A child writes one byte in the fourth huge page: the parent's pages stay as they were. */
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		p[3 * HPG + 5 * PG + 100] = 1;
		check_pages(p, 3 * 512, 4 * 512, false);
		_exit(p[3 * HPG + 5 * PG + 100] == 1 ? 0 : 1);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	CHECK_EQ(p[3 * HPG + 5 * PG + 100], 0);
	printf("    fork, the child wrote a byte:\n");
	vma_line(p, HPG + 4 * PG, 6144 - 16, thp ? 4096 : -1);
	/* The whole third huge page dropped: it reads zeros, the fourth stays huge. */
	CHECK_EQ(madvise(p + 2 * HPG, HPG, MADV_DONTNEED), 0);
	printf("    MADV_DONTNEED of the third huge page:\n");
	vma_line(p, HPG + 4 * PG, 4096 - 16, thp ? 2048 : -1);
	check_pages(p, 0, 1, false);
	check_pages(p, 2, 2 * 512, false);
	check_pages(p, 2 * 512, 3 * 512, true);
	check_pages(p, 3 * 512, 4 * 512, false);
	CHECK_EQ(munmap(p, n * PG), 0);
}

/*
 * The huge zero page and fork's sharing, 4 MiB (two huge pages) after
 * MADV_HUGEPAGE. Expected values are Linux's (6.18 on the host): a read
 * maps the huge zero page, which counts in neither Rss nor AnonHugePages
 * (smaps_pmd_entry skips it; without THP the 4 KiB zero page does not
 * count either) and makes the whole 2 MiB resident for mincore; a write
 * there maps a new huge page (Linux 6.15+; 6.1 split the zero page and
 * took 4 KiB). A forked child that writes one byte splits only its own
 * mapping of that huge page (AnonHugePages 2048 kB fewer, Rss the same:
 * one 4 KiB page copied in place of a shared one); the parent keeps both
 * huge pages and its data, and its own write after the child is gone
 * reuses the page whole. Where THP is off the AnonHugePages and mincore
 * checks are skipped (said so) and Rss is that of 4 KiB pages.
 */
static void t_thp_zero_fork(void)
{
	const unsigned long len = 2 * HPG;
	char *p = map_aligned(len);
	bool thp = thp_on(p, len);
	unsigned char vec[2];
	int pid, st;

	CHECK_EQ(p[100] + p[HPG + 5], 0);
	printf("    read a byte of each huge page:\n");
	vma_line(p, 0, 0, thp ? 0 : -1);
	CHECK_EQ(mincore(p + 256 * PG, PG, vec), 0);
	if (thp)
		CHECK_EQ(vec[0] & 1, 1);
	p[5] = 7;
	printf("    wrote a byte of the first:\n");
	vma_line(p, 0, thp ? 2048 : 4, thp ? 2048 : -1);
	CHECK_EQ(p[5] + p[6] + p[HPG + 5], 7);
	memset(p + HPG, 0x5a, HPG);
	printf("    filled the second:\n");
	vma_line(p, 0, thp ? 4096 : 2052, thp ? 4096 : -1);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		p[HPG + 5 * PG] = 1;
		vma_line(p, 0, thp ? 4096 : 2052, thp ? 2048 : -1);
		CHECK_EQ(p[HPG + 6 * PG], 0x5a);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	printf("    fork, the child wrote a byte of the second (its line above):\n");
	vma_line(p, 0, thp ? 4096 : 2052, thp ? 4096 : -1);
	CHECK_EQ(p[HPG + 5 * PG], 0x5a);
	p[HPG + 5 * PG] = 2;
	printf("    the parent wrote the same byte:\n");
	vma_line(p, 0, thp ? 4096 : 2052, thp ? 4096 : -1);
	CHECK_EQ(p[5], 7);
	CHECK_EQ(munmap(p, len), 0);
}

const struct utest ut_thp_tests[] = {
	{ "thp_split_fork", t_thp_split_fork },
	{ "thp_zero_fork", t_thp_zero_fork },
	{ NULL, NULL },
};
