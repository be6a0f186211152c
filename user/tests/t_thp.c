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
 * enables it again for itself. Where THP is off (Linux's and this
 * kernel's "never": the VMA's THPeligible is 0) the AnonHugePages checks are skipped, with
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

/* One VMA's line: its offsets from p (KiB), Rss and AnonHugePages; checked against want_rss and want_huge (< 0: unchecked). */
static void vma_line(const char *p, unsigned long off, long want_rss, long want_huge)
{
	long rss = smaps_kb(p + off, "Rss:"), huge = smaps_kb(p + off, "AnonHugePages:");

	printf("    vma +%lu KiB: Rss %ld kB, AnonHugePages %ld kB\n", off >> 10, rss, huge);
	if (want_rss >= 0)
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

/*
 * MADV_POPULATE_READ of 1 GiB readable and not writable, MADV_HUGEPAGE: every
 * 2 MiB block comes in as the huge zero page (a read fault in a THP range),
 * and the populate passes over a 2 MiB leaf it finds in place whole
 * (Linux's __get_user_pages steps by follow_page_mask's page_mask), so on
 * this kernel the walk takes the mmap_lock about three times a block (its
 * look, the fault's, the look that finds the leaf) and 2 x 511 more at
 * unaligned ends: the bound is 8 a block. Page by page it took 512 a block,
 * and a 64 TiB MAP_POPULATE (fuzz seed 60; the same walk) ran for hours. On both kernels
 * the range reads back as zero.
 */
static void t_thp_populate_zero(void)
{
	const unsigned long len = 1UL << 30;
	struct vmk_memstat a, b;
	char *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool vmk, thp;

	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	thp = thp_on(p, len);
	vmk = vmk_memstat(&a);
	CHECK_EQ(madvise(p, len, MADV_POPULATE_READ), 0);
	if (vmk && vmk_memstat(&b)) {
		if (thp)
			CHECK(b.mmap_read_acquired - a.mmap_read_acquired < 8 * (len / HPG));
	}
	CHECK_EQ(p[0] + p[len / 2 + 12345] + p[len - 1], 0);
	CHECK_EQ(munmap(p, len), 0);
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

/* A child of thp_fork_many: works on the four huge pages at p, checks what it sees; 0 when all held. */
static int fork_many_child(char *p, int k, int go)
{
	const unsigned long hp = 512;                   /* pages per huge page */
	unsigned long gone = (k % 4) * hp + 7 + k, mine = ((k + 1) % 4) * hp + 9 + k;
	char c;
	int pid, st, bad = 0;

	if (read(go, &c, 1) != 0)                       /* every sibling is there: the parent closed it */
		return 2;
	CHECK_EQ(munmap(p + gone * PG, PG), 0);         /* splits this child's leaf of huge page k % 4 */
	*(unsigned long *)(p + mine * PG) = ~word_of(mine);     /* a copy-on-write split */
	CHECK_EQ(mprotect(p + ((k + 2) % 4) * HPG, HPG, PROT_READ), 0);        /* whole: no split */
	CHECK_EQ(mprotect(p + ((k + 2) % 4) * HPG, HPG, PROT_READ | PROT_WRITE), 0);
	pid = fork();                                   /* a grandchild shares what is still whole */
	if (pid == 0)
		_exit(*(unsigned long *)(p + ((k + 3) % 4) * HPG) == word_of(((k + 3) % 4) * hp) ? 0 : 1);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
		bad++;
	for (unsigned long i = 0; i < 4 * hp; i++) {
		unsigned long want = i == mine ? ~word_of(i) : word_of(i);

		if (i != gone && *(unsigned long *)(p + i * PG) != want)
			bad++;
	}
	return bad ? 1 : 0;
}

/*
 * Many address spaces share the same huge pages at once and split, write
 * and exit in parallel (on several CPUs where the kernel has them): the
 * parent writes 8 MiB (four huge pages where THP is on) and forks six
 * children, which start together once all exist; child k unmaps one page
 * of huge page k % 4 (a split of its own mapping), rewrites a page of
 * huge page (k + 1) % 4 (copy-on-write), makes huge page (k + 2) % 4
 * read-only whole and writable again, forks a grandchild that reads huge
 * page (k + 3) % 4 and exits, and checks every page it still maps. The
 * parent meanwhile unmaps one page of each huge page (splitting its own
 * mappings), and once every child is gone rewrites another (its writes
 * come last, so that where they cannot work, a skeleton of the cow lab,
 * no child outlives the test). Expected (Linux too, from the semantics of
 * fork): every child and grandchild exits 0, the parent reads its own
 * data, and the leak check after the test finds every frame back (on
 * this kernel fork counts a shared huge page once per block: mm/thp.c,
 * "Deferred shares").
 */
static void t_thp_fork_many(void)
{
	const unsigned long n = 4 * 512;
	char *p = map_aligned(n * PG);
	int go[2], pids[6], st;

	thp_on(p, n * PG);
	for (unsigned long i = 0; i < n; i++)
		*(unsigned long *)(p + i * PG) = word_of(i);
	CHECK_EQ(pipe(go), 0);
	for (int k = 0; k < 6; k++) {
		pids[k] = fork();
		CHECK(pids[k] >= 0);
		if (pids[k] == 0) {
			close(go[1]);
			_exit(fork_many_child(p, k, go[0]));
		}
	}
	close(go[0]);
	close(go[1]);
	for (unsigned long h = 0; h < 4; h++)
		CHECK_EQ(munmap(p + (h * 512 + 200) * PG, PG), 0);
	for (int k = 0; k < 6; k++) {
		CHECK_EQ(waitpid(pids[k], &st, 0), pids[k]);
		CHECK_EQ(st, 0);
	}
	for (unsigned long h = 0; h < 4; h++)
		*(unsigned long *)(p + (h * 512 + 100) * PG) = 7 + h;
	for (unsigned long i = 0; i < n; i++)
		if (i % 512 != 200)
			CHECK_EQ(*(unsigned long *)(p + i * PG), i % 512 == 100 ? 7 + i / 512 : word_of(i));
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
 * checks are skipped (said so) and Rss is that of 4 KiB pages. Where a
 * Linux build maps no zero page (read_maps_zero_page), each read maps
 * what a write would have (2 MiB, or 4 KiB without THP) and the write to
 * the first page adds nothing.
 */
static void t_thp_zero_fork(void)
{
	const unsigned long len = 2 * HPG;
	char *p = map_aligned(len);
	bool thp = thp_on(p, len), zero = read_maps_zero_page(thp);
	long read_kb = zero ? 0 : thp ? 4096 : 8, first_kb = zero ? (thp ? 2048 : 4) : read_kb;
	unsigned char vec[2];
	int pid, st;

	CHECK_EQ(p[100] + p[HPG + 5], 0);
	printf("    read a byte of each huge page:\n");
	vma_line(p, 0, read_kb, thp ? read_kb : -1);
	CHECK_EQ(mincore(p + 256 * PG, PG, vec), 0);
	if (thp)
		CHECK_EQ(vec[0] & 1, 1);
	p[5] = 7;
	printf("    wrote a byte of the first:\n");
	vma_line(p, 0, first_kb, thp ? first_kb : -1);
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

/*
 * /proc/vmstat's thp_split_pmd counts each 2 MiB mapping split into 4 KiB
 * entries (Linux's __split_huge_pmd_locked, the huge zero page's too): a
 * 4 KiB munmap in each of two huge pages, one a written page and one the
 * huge zero page, counts 2; a child's exit frees its leaf whole (no
 * split). On the host other programs add to it: there, at least.
 *
 * /proc/meminfo's AnonHugePages counts each huge page once (Linux's
 * NR_ANON_THPS: a folio counts while at least one PMD maps it), not once
 * per mapping as smaps does: after a write fills a huge page it is 2048 kB
 * more; a read that maps the huge zero page adds nothing; a forked child,
 * which maps the same huge page with a leaf of its own, sees the same
 * total; a 4 KiB munmap in the parent splits its leaf while the child's
 * still maps the page whole (the same total), and after the child is gone
 * the split page no longer counts. The field is the whole system's: here
 * nothing else runs, and the checks are exact; on the host other programs
 * (a QEMU's guest RAM) move it at any time, so there the values are only
 * printed. Where THP is off nothing is checked.
 */
static void t_thp_meminfo_vmstat(void)
{
	char *p = map_aligned(2 * HPG);
	bool thp = thp_on(p, 2 * HPG), exact = thp && on_vmkernel();
	long m0 = meminfo_kb("AnonHugePages"), s0 = vmstat("thp_split_pmd"), m, splits;
	int pid, st, fds[2];
	char c;

	CHECK(m0 >= 0 && s0 >= 0);
	p[7] = 1;
	CHECK_EQ(p[HPG + 7], 0);
	m = meminfo_kb("AnonHugePages");
	printf("    wrote the first huge page, read the second: AnonHugePages +%ld kB\n", m - m0);
	if (exact) {
		CHECK_EQ(m - m0, 2048);
		CHECK_EQ(vmstat("thp_split_pmd"), s0);
	}
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(!exact || meminfo_kb("AnonHugePages") - m0 == 2048 ? 0 : 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	CHECK_EQ(pipe(fds), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(fds[1]);
		_exit(read(fds[0], &c, 1) == 0 ? 0 : 1);       /* until the parent closes its end */
	}
	close(fds[0]);
	CHECK_EQ(munmap(p + PG, PG), 0);
	CHECK_EQ(munmap(p + HPG + PG, PG), 0);
	m = meminfo_kb("AnonHugePages");
	splits = vmstat("thp_split_pmd") - s0;
	printf("    split in the parent (and its huge zero page), whole in a child: AnonHugePages +%ld kB,"
	       " thp_split_pmd +%ld\n", m - m0, splits);
	if (exact)
		CHECK_EQ(m - m0, 2048);
	if (exact)
		CHECK_EQ(splits, 2);
	else if (thp)
		CHECK(splits >= 2);
	close(fds[1]);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	m = meminfo_kb("AnonHugePages");
	printf("    the child gone: AnonHugePages +%ld kB\n", m - m0);
	if (exact)
		CHECK_EQ(m - m0, 0);
	if (exact)
		CHECK_EQ(vmstat("thp_split_pmd") - s0, 2);
	CHECK_EQ(p[7], 1);
	CHECK_EQ(p[HPG + 7], 0);
	CHECK_EQ(munmap(p, 2 * HPG), 0);
}

/*
 * mremap of whole huge pages to a 2 MiB boundary moves their PMDs whole
 * (Linux's move_huge_pmd): 4 MiB written after MADV_HUGEPAGE, moved to
 * another 2 MiB boundary, keeps AnonHugePages 4096 kB in its new VMA and
 * splits nothing (thp_split_pmd unchanged: exact here; the host's other
 * programs may split theirs meanwhile, so there it is printed only); one
 * of them moved again to 4 KiB past a boundary cannot stay huge: split
 * (AnonHugePages 0 there), its data kept. Graded in the mremap lab.
 */
static void t_thp_mremap(void)
{
	char *p = map_aligned(2 * HPG), *q = map_aligned(2 * HPG), *r = map_aligned(2 * HPG), *m;
	bool thp = thp_on(p, 2 * HPG), exact = thp && on_vmkernel();
	long s0;

	for (unsigned long i = 0; i < 2 * HPG / PG; i++)
		*(unsigned long *)(p + i * PG) = word_of(i);
	s0 = vmstat("thp_split_pmd");
	m = mremap(p, 2 * HPG, 2 * HPG, MREMAP_MAYMOVE | MREMAP_FIXED, q);
	CHECK(m == q);
	printf("    moved 4 MiB to a 2 MiB boundary: thp_split_pmd +%ld\n", vmstat("thp_split_pmd") - s0);
	vma_line(q, 0, 4096, thp ? 4096 : -1);
	if (exact)
		CHECK_EQ(vmstat("thp_split_pmd"), s0);
	check_pages(q, 0, 2 * HPG / PG, false);
	m = mremap(q + HPG, HPG, HPG, MREMAP_MAYMOVE | MREMAP_FIXED, r + PG);
	CHECK(m == r + PG);
	printf("    moved its second huge page to 4 KiB past one:\n");
	vma_line(r + PG, 0, 2048, thp ? 0 : -1);
	for (unsigned long i = 0; i < HPG / PG; i++)
		CHECK_EQ(*(unsigned long *)(r + PG + i * PG), word_of(HPG / PG + i));
	CHECK_EQ(munmap(q, HPG), 0);
	CHECK_EQ(munmap(r, 2 * HPG), 0);
}

/* madvise(MADV_COLLAPSE) of [p, p + len): 0 or -errno. */
static int collapse(char *p, unsigned long len)
{
	return madvise(p, len, MADV_COLLAPSE) ? -errno : 0;
}

/*
 * MADV_COLLAPSE, as the host's Linux 6.18 answers it (mm/collapse.c): it
 * ignores the THP policy (the VMAs here never asked for huge pages:
 * their faults map 4 KiB pages under "madvise", as on the host and in
 * make test's user-thp stage, and under "never"), so only PR_SET_THP_DISABLE is lifted. A
 * VMA never faulted: EINVAL. A slot with two written pages and a read
 * one: one huge page (AnonHugePages 2048 kB, data kept, thp_collapse_alloc
 * one more: exactly here, at least on the host, where khugepaged works
 * for others); again: 0. Over an untouched slot: EINVAL, and the walk
 * ends there (the next slot stays 4 KiB); alone, a slot that was only
 * read (the zero page) collapses too. No whole slot in the range: EINVAL,
 * 0 when it starts on a boundary. A forked child collapses its own copy
 * (the parent's stays 4 KiB, data kept in both). A hole in the range:
 * ENOMEM, after the rest was done (the parent's last slot collapses
 * then). MADV_NOHUGEPAGE: EINVAL. A read-only VMA's slot collapses too. Skipped where THP is "always"
 * (faults would map huge pages themselves).
 */
static void t_thp_collapse(void)
{
	char *p = map_aligned(4 * HPG);
	long c0 = vmstat("thp_collapse_alloc");
	int pid, st;

	CHECK_EQ(sys_prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), 0);
	if (smaps_kb(p, "THPeligible:") == 1) {
		printf("    (skipped: THP is \"always\" here)\n");
		return;
	}
	CHECK_EQ(collapse(p, HPG), -EINVAL);
	p[5] = 1;
	p[3 * PG] = 2;
	CHECK_EQ(p[7 * PG], 0);
	CHECK_EQ(collapse(p, HPG), 0);
	vma_line(p, 0, 2048, 2048);
	CHECK_EQ(p[5] + p[3 * PG] + p[6] + p[7 * PG], 3);
	if (on_vmkernel())
		CHECK_EQ(vmstat("thp_collapse_alloc") - c0, 1);
	else
		CHECK(vmstat("thp_collapse_alloc") - c0 >= 1);
	CHECK_EQ(collapse(p, HPG), 0);
	p[3 * HPG + PG] = 3;
	CHECK_EQ(collapse(p + HPG, 3 * HPG), -EINVAL);
	vma_line(p, 0, -1, 2048);
	CHECK_EQ(p[2 * HPG + 9 * PG], 0);
	CHECK_EQ(collapse(p + 2 * HPG, HPG), 0);
	CHECK_EQ(collapse(p + 3 * HPG + PG, PG), -EINVAL);
	CHECK_EQ(collapse(p + 3 * HPG, PG), 0);
	vma_line(p, 0, -1, 4096);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		CHECK_EQ(collapse(p + 3 * HPG, HPG), 0);
		vma_line(p, 0, 6144, 6144);
		CHECK_EQ(p[3 * HPG + PG], 3);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	printf("    (the parent's, after its child collapsed the last slot:)\n");
	vma_line(p, 0, -1, 4096);
	CHECK_EQ(munmap(p + HPG + PG, PG), 0);
	p[HPG + 2 * PG] = 4;
	CHECK_EQ(collapse(p, 4 * HPG), -ENOMEM);
	vma_line(p, 0, 2048, 2048);
	vma_line(p, HPG + 2 * PG, -1, 4096);
	CHECK_EQ(p[3 * HPG + PG] + p[HPG + 2 * PG], 7);
	CHECK_EQ(madvise(p, HPG, MADV_NOHUGEPAGE), 0);
	CHECK_EQ(collapse(p, HPG), -EINVAL);
	CHECK_EQ(munmap(p, 4 * HPG), 0);
	p = map_aligned(HPG);
	p[1] = 5;
	CHECK_EQ(mprotect(p, HPG, PROT_READ), 0);
	CHECK_EQ(collapse(p, HPG), 0);
	vma_line(p, 0, 2048, 2048);
	CHECK_EQ(p[1], 5);
	CHECK_EQ(munmap(p, HPG), 0);
}

#define KHUGEPAGED "/sys/kernel/mm/transparent_hugepage/khugepaged/"

/* The number a /sys file holds, or -1 when it cannot be read. */
static long sys_number(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY);
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/* Write the number v into a /sys file; whether it took it. */
static bool sys_set(const char *path, long v)
{
	char buf[24];
	int fd = open(path, O_WRONLY), n = snprintf(buf, sizeof(buf), "%ld\n", v);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, buf, (size_t)n) == n;
	close(fd);
	return ok;
}

static long monotonic_s(void)
{
	long ts[2] = { 0, 0 };

	usys2(__NR_clock_gettime, 1 /* CLOCK_MONOTONIC */, (long)ts);
	return ts[0];
}

#define KHUGEPAGED_WAIT_S 280           /* under usertests' 300 s watchdog */

/*
 * Wait until khugepaged's full_scans has advanced twice from scans0 (each
 * pass visits every address space it scans: by then both slots of p were
 * looked at) or, on Linux, until p's 4 MiB show as AnonHugePages (the
 * host's pass over all its processes at 4096 entries per 10 s can take
 * minutes), for KHUGEPAGED_WAIT_S at most; the seconds waited, or -1.
 */
static long khugepaged_wait(const char *p, long scans0)
{
	long start = monotonic_s(), nap[2] = { 0, 10000000 };   /* polled every 10 ms */

	while (monotonic_s() - start < KHUGEPAGED_WAIT_S) {
		if (sys_number(KHUGEPAGED "full_scans") >= scans0 + 2)
			return monotonic_s() - start;
		if (!on_vmkernel() && smaps_kb(p, "AnonHugePages:") == 4096)
			return monotonic_s() - start;
		usys2(35 /* nanosleep */, (long)nap, 0);
	}
	return -1;
}

/*
 * khugepaged, the background collapser: 4 MiB on a 2 MiB boundary with
 * MADV_NOHUGEPAGE, so that writes fault 4 KiB pages whatever the policy,
 * three pages written in its two slots (Rss 12 kB); then MADV_HUGEPAGE:
 * the VMA may have huge pages under "always" and "madvise", and
 * khugepaged collapses each slot (one written page is enough: up to 511
 * empty entries, max_ptes_none; the pages were just written, so
 * referenced). After two full scans: AnonHugePages and Rss 4096 kB, the
 * data kept, zeros around it, thp_collapse_alloc 2 more (exactly here;
 * at least 2 on the host, where khugepaged works for others too) and
 * pages_collapsed too. On this kernel the test sets scan_sleep_millisecs
 * to 100 for its wait (restored after); on the host it waits at Linux's
 * pace and, if khugepaged has not come to this region within the
 * bound, says so and skips the checks (the host's settings are not
 * touched). Skipped under "never" (THPeligible 0).
 */
static void t_thp_khugepaged(void)
{
	char *p = map_aligned(2 * HPG);
	long c0 = vmstat("thp_collapse_alloc"), done0 = sys_number(KHUGEPAGED "pages_collapsed");
	long sleep_ms = -1, waited;

	CHECK_EQ(sys_prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), 0);
	CHECK_EQ(madvise(p, 2 * HPG, MADV_NOHUGEPAGE), 0);
	p[5] = 1;
	p[3 * PG] = 2;
	p[HPG + 7 * PG + 1] = 3;
	vma_line(p, 0, 12, 0);
	CHECK_EQ(madvise(p, 2 * HPG, MADV_HUGEPAGE), 0);
	if (smaps_kb(p, "THPeligible:") != 1) {
		printf("    (skipped: THP is \"never\" here)\n");
		return;
	}
	CHECK(done0 >= 0);
	if (on_vmkernel()) {
		sleep_ms = sys_number(KHUGEPAGED "scan_sleep_millisecs");
		CHECK(sys_set(KHUGEPAGED "scan_sleep_millisecs", 100));
	}
	waited = khugepaged_wait(p, sys_number(KHUGEPAGED "full_scans"));
	if (sleep_ms >= 0)
		CHECK(sys_set(KHUGEPAGED "scan_sleep_millisecs", sleep_ms));
	if (waited < 0 && !on_vmkernel()) {
		printf("    (skipped: the host's khugepaged did not come here in %d s)\n", KHUGEPAGED_WAIT_S);
		return;
	}
	printf("    (waited %ld s)\n", waited);
	CHECK(waited >= 0);
	vma_line(p, 0, 4096, 4096);
	CHECK_EQ(p[5] + p[3 * PG] + p[HPG + 7 * PG + 1], 6);
	CHECK_EQ(p[0] + p[6] + p[PG] + p[HPG] + p[2 * HPG - 1], 0);
	if (on_vmkernel()) {
		CHECK_EQ(vmstat("thp_collapse_alloc") - c0, 2);
		CHECK_EQ(sys_number(KHUGEPAGED "pages_collapsed") - done0, 2);
	} else {
		CHECK(vmstat("thp_collapse_alloc") - c0 >= 2);
		CHECK(sys_number(KHUGEPAGED "pages_collapsed") - done0 >= 2);
	}
	CHECK_EQ(munmap(p, 2 * HPG), 0);
}

/* Write round into the first word of pages [0, n) of p; whether each reads it back at once. */
static bool write_round(char *p, unsigned n, long round)
{
	bool ok = true;

	for (unsigned i = 0; i < n; i++)
		*(volatile long *)(p + i * PG) = round;
	for (unsigned i = 0; i < n; i++)
		ok &= *(volatile long *)(p + i * PG) == round;
	return ok;
}

/*
 * khugepaged collapses a slot while its task writes into it: rounds of
 * writes into 8 pages of one 2 MiB slot (4 KiB pages: written under
 * MADV_NOHUGEPAGE, then MADV_HUGEPAGE), with no sleep between them, so
 * that nothing but the collapse's own TLB flush can drop the task's 4 KiB
 * translations, until two full scans have passed (on the host Linux, 2 s:
 * its khugepaged may not come at all). Then one sleep (a context switch)
 * and every page must hold the last round. The collapse write-protects
 * the old entries and flushes them everywhere before it copies
 * (mm/collapse.c): a write meanwhile faults and waits. A flush that misses
 * the writer's CPU lets it go on writing into the old 4 KiB frames, freed
 * after the copy: its last rounds are lost (and land in pages that others
 * get). That is the case of every lab skeleton before the smp lab's
 * shootdown, unless khugepaged runs on the CPU of the user tasks
 * (kernel/sched/sched.c, cpu_may_run). Here the slot must end huge.
 */
static void t_thp_khugepaged_under_writes(void)
{
	enum { PAGES = 8 };
	char *p = map_aligned(HPG);
	long round = 1, scans0, sleep_ms = -1, start, nap[2] = { 0, 10000000 };
	bool ok = true, waiting = true;

	CHECK_EQ(sys_prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), 0);
	CHECK_EQ(madvise(p, HPG, MADV_NOHUGEPAGE), 0);
	CHECK(write_round(p, PAGES, round));
	CHECK_EQ(madvise(p, HPG, MADV_HUGEPAGE), 0);
	if (smaps_kb(p, "THPeligible:") != 1) {
		printf("    (skipped: THP is \"never\" here)\n");
		return;
	}
	if (on_vmkernel()) {
		sleep_ms = sys_number(KHUGEPAGED "scan_sleep_millisecs");
		CHECK(sys_set(KHUGEPAGED "scan_sleep_millisecs", 100));
	}
	scans0 = sys_number(KHUGEPAGED "full_scans");
	start = monotonic_s();
	while (waiting && monotonic_s() - start < KHUGEPAGED_WAIT_S) {
		ok &= write_round(p, PAGES, ++round);
		waiting = on_vmkernel() ? sys_number(KHUGEPAGED "full_scans") < scans0 + 2 : monotonic_s() - start < 2;
	}
	if (sleep_ms >= 0)
		CHECK(sys_set(KHUGEPAGED "scan_sleep_millisecs", sleep_ms));
	CHECK(!waiting);
	CHECK(ok);
	printf("    (%ld rounds written)\n", round);
	usys2(35 /* nanosleep */, (long)nap, 0);
	for (unsigned i = 0; i < PAGES; i++)
		CHECK_EQ(*(volatile long *)(p + i * PG), round);
	if (on_vmkernel())
		vma_line(p, 0, 2048, 2048);
	CHECK_EQ(munmap(p, HPG), 0);
}

const struct utest ut_thp_tests[] = {
	{ "thp_split_fork", t_thp_split_fork },
	{ "thp_zero_fork", t_thp_zero_fork },
	{ "thp_fork_many", t_thp_fork_many },
	{ "thp_meminfo_vmstat", t_thp_meminfo_vmstat },
	{ "thp_mremap", t_thp_mremap },
	{ "thp_collapse", t_thp_collapse },
	{ "thp_khugepaged", t_thp_khugepaged },
	{ "thp_khugepaged_under_writes", t_thp_khugepaged_under_writes },
	{ "thp_populate_zero", t_thp_populate_zero },
	{ NULL, NULL },
};
