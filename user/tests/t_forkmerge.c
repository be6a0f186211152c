/*
 * Merging after fork, seen through /proc/self/maps. Linux 6.18
 * (mm/vma.c is_mergeable_anon_vma, vma_had_uncowed_parents): a VMA the
 * child inherited from a parent VMA that had an anon_vma has an
 * anon_vma_chain of more than one entry, and a new unfaulted range mapped
 * next to it is not merged into it (case 2: the target is a fork child).
 * An inherited VMA the parent never wrote has no anon_vma (anon_vma_fork
 * returns early), so the same mapping merges. The process that created
 * and wrote the mapping merges as usual (its chain is singular).
 *
 * Expected values are Linux's: `make test-user-linux` runs this binary on
 * the host Linux.
 */
#include "utests.h"

#define FM_PG 4096UL

static char fm_buf[65536];

static long fm_read_maps(void)
{
	return ut_read_file("/proc/self/maps", fm_buf, sizeof(fm_buf));
}

static unsigned long fm_hex(const char **s)
{
	unsigned long v = 0;

	for (;; (*s)++) {
		char c = **s;

		if (c >= '0' && c <= '9')
			v = v * 16 + (unsigned long)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (unsigned long)(c - 'a' + 10);
		else
			return v;
	}
}

/* Lines of /proc/self/maps whose range intersects [start, end); -1 if unreadable. */
static int fm_lines_in(unsigned long start, unsigned long end)
{
	const char *s = fm_buf;
	int n = 0;

	if (fm_read_maps() <= 0)
		return -1;
	while (*s) {
		unsigned long lo = fm_hex(&s), hi;

		if (*s != '-')
			return -1;
		s++;
		hi = fm_hex(&s);
		if (lo < end && hi > start)
			n++;
		while (*s && *s != '\n')
			s++;
		if (*s)
			s++;
	}
	return n;
}

/*
 * Two pages RW private anonymous at p, the two above them free: map four,
 * unmap the top two.
 */
static char *fm_map_two(void)
{
	char *p = mmap(NULL, 4 * FM_PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	CHECK_EQ(munmap(p + 2 * FM_PG, 2 * FM_PG), 0);
	return p;
}

static void fm_map_above(char *p)
{
	char *q = mmap(p + 2 * FM_PG, 2 * FM_PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	CHECK(q == p + 2 * FM_PG);
}

/* Fork, in the child map the two pages above p; return how many maps lines cover [p, p + 4 pages) there. */
static int fm_child_lines(char *p)
{
	int pid = fork(), st;

	CHECK(pid >= 0);
	if (pid == 0) {
		int n;

		fm_map_above(p);
		n = fm_lines_in((unsigned long)p, (unsigned long)p + 4 * FM_PG);
		_exit(n < 0 ? 100 : n);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void t_forkmerge_faulted(void)
{
	char *p = fm_map_two();

	p[0] = 1;                      /* anon_vma in this process */
	/* Child: case 2, the inherited VMA had uncowed parents -> not merged: two lines. */
	CHECK_EQ(fm_child_lines(p), 2);
	/* Here: the chain is singular -> the same mapping merges: one line. */
	fm_map_above(p);
	CHECK_EQ(fm_lines_in((unsigned long)p, (unsigned long)p + 4 * FM_PG), 1);
}

static void t_forkmerge_unfaulted(void)
{
	char *p = fm_map_two();

	/* Never written: the child's copy has no anon_vma; both NULL -> merged: one line. */
	CHECK_EQ(fm_child_lines(p), 1);
	fm_map_above(p);
	CHECK_EQ(fm_lines_in((unsigned long)p, (unsigned long)p + 4 * FM_PG), 1);
}

const struct utest ut_forkmerge_tests[] = {
	{ "forkmerge_faulted", t_forkmerge_faulted },
	{ "forkmerge_unfaulted", t_forkmerge_unfaulted },
	{ NULL, NULL },
};
