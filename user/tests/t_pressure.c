/*
 * Memory pressure, as a program sees it: the counters of /proc/vmstat,
 * /proc/meminfo and /proc/self/smaps (Linux's names, so the test reads
 * them the same way on the host Linux), lazily freed pages dropped when memory runs short
 * instead of a kill (mm/vmscan.c), and the OOM killer choosing the
 * largest process, not the one that faulted (kernel/mm/oom_kill.c).
 *
 * The tests that fill the machine's memory run on our kernel only (on the
 * host they would fill the host's); what they expect is Linux's rule,
 * written beside each check. The swap tests need a swap area: make test's
 * user-swap stage boots with one (tools/run --swap) and sets
 * UTEST_SWAP=1, which makes them fail when SwapTotal is 0; elsewhere they
 * say they were skipped.
 */
#include "utests.h"
#include "uclone.h"

#define PG 4096UL

static char procbuf[16384];

/* Read the /proc file path into procbuf (one snapshot: its fields agree with each other). */
static void proc_read(const char *path)
{
	int fd = open(path, O_RDONLY);
	long n = 0, r;

	CHECK(fd >= 0);
	while ((r = read(fd, procbuf + n, sizeof(procbuf) - 1 - n)) > 0)
		n += r;
	close(fd);
	procbuf[n] = 0;
}

/* The line of procbuf that starts with NAME followed by ' ' or ':', or NULL. */
static const char *proc_line(const char *name)
{
	size_t len = strlen(name);

	for (char *line = procbuf; line && *line; ) {
		char *next = line;

		while (*next && *next != '\n')
			next++;
		if (!strncmp(line, name, len) && (line[len] == ' ' || line[len] == ':'))
			return line;
		line = *next ? next + 1 : NULL;
	}
	return NULL;
}

/* The number on procbuf's NAME line, or -1. */
static long proc_field(const char *name)
{
	const char *v = proc_line(name);

	if (!v)
		return -1;
	v += strlen(name) + 1;
	while (*v == ' ')
		v++;
	return (long)strtoul(v, NULL, 10);
}

/* The number after NAME (followed by ' ' or ':') at the start of a line of the /proc file path, or -1. */
static long proc_value(const char *path, const char *name)
{
	proc_read(path);
	return proc_field(name);
}

long vmstat(const char *name)
{
	return proc_value("/proc/vmstat", name);
}

long meminfo_kb(const char *name)
{
	return proc_value("/proc/meminfo", name);
}

long status_kb(const char *name)
{
	return proc_value("/proc/self/status", name);
}

/*
 * The counters move as Linux moves them: pgfault once per fault
 * (handle_mm_fault), pglazyfree once per page MADV_FREE marks
 * (folio_mark_lazyfree), pglazyfreed once per lazily freed clean page
 * reclaim drops, MADV_PAGEOUT's included (shrink_folio_list). On the host
 * other programs add to them: at least; here nothing else runs: exactly
 * for the madvise counts.
 */
static void t_vmstat_counts(void)
{
	const size_t n = 64;
	char *p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static const char *const names[] = { "nr_free_pages", "pswpin", "pswpout", "pgfault", "pgmajfault",
					     "pglazyfree", "pglazyfreed", "pgscan_kswapd", "pgscan_direct",
					     "pgsteal_kswapd", "pgsteal_direct", "oom_kill", "swap_ra", "swap_ra_hit" };
	long f0, lf0, lfd0;

	CHECK(p != MAP_FAILED);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CHECK(vmstat(names[i]) >= 0);
	CHECK_EQ(madvise(p, n * PG, MADV_NOHUGEPAGE), 0);      /* one fault per page on Linux too */
	f0 = vmstat("pgfault");
	for (size_t i = 0; i < n; i++)
		p[i * PG] = 1;
	CHECK(vmstat("pgfault") - f0 >= (long)n);
	lf0 = vmstat("pglazyfree");
	CHECK_EQ(madvise(p, n * PG, MADV_FREE), 0);
	lfd0 = vmstat("pglazyfreed");
	CHECK_EQ(madvise(p, n * PG, MADV_PAGEOUT), 0);
	if (on_vmkernel()) {
		CHECK_EQ(vmstat("pglazyfree") - lf0, n);
		CHECK_EQ(vmstat("pglazyfreed") - lfd0, n);
	} else {
		CHECK(vmstat("pglazyfree") - lf0 >= (long)n);
		CHECK(vmstat("pglazyfreed") - lfd0 >= (long)n);
	}
	for (size_t i = 0; i < n; i++)
		CHECK_EQ(p[i * PG], 0);
	/* meminfo: what free(1) reads, consistent with itself. */
	CHECK(meminfo_kb("MemTotal") > 0);
	CHECK(meminfo_kb("MemFree") <= meminfo_kb("MemTotal"));
	CHECK(meminfo_kb("MemAvailable") <= meminfo_kb("MemTotal"));
	CHECK(meminfo_kb("SwapTotal") >= 0);
	CHECK(meminfo_kb("SwapFree") <= meminfo_kb("SwapTotal"));
	CHECK(meminfo_kb("AnonPages") >= 0);
	CHECK_EQ(munmap(p, n * PG), 0);
}

/* Active(anon) + Inactive(anon) in kB, from one read of /proc/meminfo. */
static long anon_lru_kb(void)
{
	proc_read("/proc/meminfo");
	return proc_field("Active(anon)") + proc_field("Inactive(anon)");
}

/*
 * The LRU lines of /proc/meminfo as Linux prints them (meminfo_proc_show):
 * Active, Inactive, Active(anon), Inactive(anon), Active(file),
 * Inactive(file), in that order, right after SwapCached; Active is the
 * sum of the two active lists and Inactive of the two inactive ones,
 * computed from one snapshot. On this kernel 256 pages written add
 * 1024 kB to the anonymous lists (new pages are counted as soon as they
 * are queued for a list) and munmap takes them off again, give or take
 * the pages the test run's other tasks fault meanwhile (seen: one); on
 * the host other programs move the counts by far more, so only the
 * format is checked there. The counts are the whole system's: a task of
 * an earlier test still exiting on a loaded host frees its pages in the
 * middle of a round (seen once in a whole-suite boot beside two other
 * test runs), so a round that another task moved is run again, three
 * rounds at most; a miscount of this kernel's shows in every round.
 */
static void t_meminfo_lru(void)
{
	static const char *const order[] = { "SwapCached", "Active", "Inactive", "Active(anon)",
					     "Inactive(anon)", "Active(file)", "Inactive(file)" };
	const size_t n = 256;
	long before, during, after;
	char *p;

	proc_read("/proc/meminfo");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *line = proc_line(order[i]), *nl = line ? strchr(line, '\n') : NULL;

		CHECK(line != NULL && nl != NULL);
		if (i + 1 < sizeof(order) / sizeof(order[0]))
			CHECK(proc_line(order[i + 1]) == nl + 1);          /* the next line */
		CHECK(!strncmp(nl - 3, " kB", 3));
	}
	CHECK_EQ(proc_field("Active"), proc_field("Active(anon)") + proc_field("Active(file)"));
	CHECK_EQ(proc_field("Inactive"), proc_field("Inactive(anon)") + proc_field("Inactive(file)"));
	if (!on_vmkernel()) {
		printf("    (counts skipped on Linux: other programs move them)\n");
		return;
	}
	for (int round = 1;; round++) {
		bool added, removed;

		/*
		 * Read-write-execute: no neighbour of the same kind to merge with, so
		 * a VMA of its own and no fault maps a page outside it (a skeleton of
		 * the lazy lab fills ahead within the VMA), without a split.
		 */
		p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(p != MAP_FAILED);
		before = anon_lru_kb();
		for (size_t i = 0; i < n; i++)
			p[i * PG] = 1;
		during = anon_lru_kb();
		CHECK_EQ(munmap(p, n * PG), 0);
		after = anon_lru_kb();
		/* Other tasks of the test run may fault a page or two meanwhile: up to 16 pages either way. */
		added = during - before >= (long)(n * PG / 1024) && during - before <= (long)((n + 16) * PG / 1024);
		removed = after - before <= (long)(16 * PG / 1024) && before - after <= (long)(16 * PG / 1024);
		if ((added && removed) || round == 3) {
			CHECK(added);
			CHECK(removed);
			break;
		}
		printf("    (round %d: %ld kB before, %ld during, %ld after: again)\n", round, before, during, after);
	}
}

static unsigned char old_byte(size_t i) { return (unsigned char)(i % 251 + 1); }
static unsigned char new_byte(size_t i) { return (unsigned char)(i % 239 + 7); }

/*
 * The scenario: 60% of memory written, freed with MADV_FREE, an
 * eighth of it written again, then 60% more written elsewhere. Both cannot
 * be resident: reclaim must drop clean lazily freed pages (Linux: they are
 * discarded, and read back as zeros) instead of killing. A page written
 * after the free keeps its new data; an untouched one holds either its
 * old data (kept) or zeros (dropped), never anything else; at least the
 * overcommitted part was dropped; nobody was killed.
 */
static void t_pressure_madv_free(void)
{
	size_t total = (size_t)meminfo_kb("MemTotal") * 1024 / PG, n = total * 6 / 10, dropped = 0;
	char *a, *b;
	long lf0, lfd0, oom0 = vmstat("oom_kill");

	if (!on_vmkernel()) {
		printf("    (skipped on Linux: would fill the host's memory)\n");
		return;
	}
	a = mmap(NULL, n * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b = mmap(NULL, n * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(a != MAP_FAILED && b != MAP_FAILED);
	for (size_t i = 0; i < n; i++)
		a[i * PG] = (char)old_byte(i);
	lf0 = vmstat("pglazyfree");
	lfd0 = vmstat("pglazyfreed");
	CHECK_EQ(madvise(a, n * PG, MADV_FREE), 0);
	CHECK_EQ(vmstat("pglazyfree") - lf0, n);
	for (size_t i = 0; i < n / 8; i++)
		a[i * PG] = (char)new_byte(i);
	for (size_t i = 0; i < n; i++)
		b[i * PG] = 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char v = (unsigned char)a[i * PG];

		if (i < n / 8) {
			CHECK_EQ(v, new_byte(i));
		} else if (v == 0) {
			dropped++;
			CHECK_EQ(a[i * PG + PG / 2] | a[i * PG + PG - 1], 0);
		} else {
			CHECK_EQ(v, old_byte(i));
		}
	}
	CHECK(dropped >= 2 * n - total);
	/* kswapd may still be dropping pages read as kept above: at least those seen, at most the lazy ones. */
	CHECK(vmstat("pglazyfreed") - lfd0 >= (long)dropped);
	CHECK(vmstat("pglazyfreed") - lfd0 <= (long)(n - n / 8));
	CHECK_EQ(vmstat("oom_kill"), oom0);
	CHECK_EQ(munmap(a, n * PG), 0);
	CHECK_EQ(munmap(b, n * PG), 0);
}

/* Write one byte per page of a new private mapping of n pages (value i % 253 + 1); returns it. */
static char *fill(size_t n)
{
	char *p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	for (size_t i = 0; i < n; i++)
		p[i * PG] = (char)(i % 253 + 1);
	return p;
}

/*
 * MADV_FREE moves the pages it frees lazily to the inactive file list
 * (Linux's lru_lazyfree_fn, since 4.12: they need no swap to leave), so
 * /proc/meminfo's Inactive(file) grows by them and Active(anon) plus
 * Inactive(anon) shrink by as much; munmap takes them off again. Linux
 * moves them through a per-CPU batch (15 pages) that may not be drained
 * yet, and other tasks of the run may fault a page or two: 16 pages of
 * slack either way. On the host other programs move the counts by far
 * more, so there the test only runs the calls.
 */
static void t_meminfo_lazyfree(void)
{
	const size_t n = 256;
	const long kb = (long)(n * PG / 1024), slack = (long)(16 * PG / 1024);
	long file0, anon0, file1, anon1, file2;
	char *p;

	/* read-write-execute: a VMA of its own (as meminfo_lru) */
	p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	for (size_t i = 0; i < n; i++)
		p[i * PG] = 1;
	anon0 = anon_lru_kb();
	file0 = proc_field("Inactive(file)");
	CHECK_EQ(madvise(p, n * PG, MADV_FREE), 0);
	anon1 = anon_lru_kb();
	file1 = proc_field("Inactive(file)");
	CHECK_EQ(munmap(p, n * PG), 0);
	proc_read("/proc/meminfo");
	file2 = proc_field("Inactive(file)");
	if (!on_vmkernel()) {
		printf("    (counts skipped on Linux: other programs move them)\n");
		return;
	}
	CHECK(file1 - file0 >= kb - slack && file1 - file0 <= kb + slack);
	CHECK(anon0 - anon1 >= kb - slack && anon0 - anon1 <= kb + slack);
	CHECK(file2 - file0 <= slack && file0 - file2 <= slack);
}

#define SHARER_STACK (64UL << 10)

/* The holder's sharer: sleeps on the hold pipe (its own copy of the read end), as the holder does. */
static int sharer_main(void *arg)
{
	char c;

	read((int)(long)arg, &c, 1);
	return 5;
}

/*
 * For the OOM tests: false (with a note) where memory cannot run out here
 * (the host's Linux, which it would fill; a swap area). Else a child that
 * holds 6/10 of memory's pages and sleeps until killed: its pid, and
 * *hold, the pipe end whose closing lets it go (0 as it returns). With
 * sharer (else NULL), the holder also starts a process on its own
 * address space (its child by clone with CLONE_VM, not CLONE_THREAD) that
 * sleeps the same way: *sharer, its pid.
 */
static bool oom_holder_start_sharing(int *pid, int *hold_w, int *sharer)
{
	size_t total = (size_t)meminfo_kb("MemTotal") * 1024 / PG;
	int ready[2], hold[2];
	char c;

	if (!on_vmkernel()) {
		printf("    (skipped on Linux: would fill the host's memory)\n");
		return false;
	}
	if (meminfo_kb("SwapTotal") > 0) {
		printf("    (skipped: with swap, memory does not run out here)\n");
		return false;
	}
	CHECK_EQ(pipe(ready), 0);
	CHECK_EQ(pipe(hold), 0);
	*pid = fork();
	CHECK(*pid >= 0);
	if (*pid == 0) {
		close(ready[0]);
		close(hold[1]);
		if (!fill(total * 6 / 10))
			_exit(3);
		if (sharer) {
			char *stack = mmap(NULL, SHARER_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
					   -1, 0);
			int spid = stack == MAP_FAILED ? -1 :
				   (int)clone_on_stack(CLONE_VM | SIGCHLD, stack + SHARER_STACK, sharer_main,
						       (void *)(long)hold[0], NULL);

			if (spid <= 0)
				_exit(5);
			write(ready[1], &spid, sizeof(spid));
		}
		write(ready[1], "r", 1);
		read(hold[0], &c, 1);           /* sleeps until killed (or the parent gives up) */
		_exit(4);
	}
	close(ready[1]);
	close(hold[0]);
	if (sharer)
		CHECK_EQ(read(ready[0], sharer, sizeof(*sharer)), (long)sizeof(*sharer));
	CHECK_EQ(read(ready[0], &c, 1), 1);
	close(ready[0]);
	*hold_w = hold[1];
	return true;
}

static bool oom_holder_start(int *pid, int *hold_w)
{
	return oom_holder_start_sharing(pid, hold_w, NULL);
}

/*
 * The OOM killer takes the largest process, not the one that faulted
 * (Linux's oom_badness: resident pages, swap, page tables): a child holds
 * 60% of memory and sleeps; the parent then writes 50%, which cannot fit
 * beside it. When the parent's fault finds no page, the child (then the
 * larger) is killed with SIGKILL, and the parent's writes all succeed.
 */
static void t_oom_kill_largest(void)
{
	size_t total = (size_t)meminfo_kb("MemTotal") * 1024 / PG;
	int hold, st = 0, pid;
	long oom0 = vmstat("oom_kill");
	char *p;

	if (!oom_holder_start(&pid, &hold))
		return;
	p = fill(total / 2);
	CHECK(p != NULL);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGKILL);
	for (size_t i = 0; i < total / 2; i++)
		CHECK_EQ(p[i * PG], (char)(i % 253 + 1));
	CHECK_EQ(vmstat("oom_kill") - oom0, 1);
	close(hold);
}

/*
 * The OOM killer kills every process that shares the victim's address
 * space (Linux's __oom_kill_process kills the user processes sharing the
 * victim's mm in other thread groups): the memory comes back only when
 * the last of them has left it. The holder (60% of memory) starts a
 * process on its own address space that sleeps; the parent then writes
 * 50%. Both must die of SIGKILL in one OOM kill (whichever of the two
 * the killer picks: they have the same footprint), and the parent's
 * writes all succeed. This test is a subreaper (PR_SET_CHILD_SUBREAPER),
 * so the sharer, orphaned when the holder dies, is its child to reap.
 * Before the fix the sharer lived on, the victim's memory never came
 * back, and every fault that found no page waited for it: this test hung,
 * as the fuzzer's seed 128 did (docs/fuzz.md).
 */
static void t_oom_kill_shared_mm(void)
{
	size_t total = (size_t)meminfo_kb("MemTotal") * 1024 / PG;
	int hold, st = 0, pid, sharer = 0;
	long oom0 = vmstat("oom_kill");
	char *p;

	CHECK_EQ(sys_prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	if (!oom_holder_start_sharing(&pid, &hold, &sharer))
		return;
	p = fill(total / 2);
	CHECK(p != NULL);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CHECK_EQ(waitpid(sharer, &st, 0), sharer);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	for (size_t i = 0; i < total / 2; i++)
		CHECK_EQ(p[i * PG], (char)(i % 253 + 1));
	CHECK_EQ(vmstat("oom_kill") - oom0, 1);
	CHECK_EQ(munmap(p, total / 2 * PG), 0);
	close(hold);
}

/*
 * A kernel copy to user memory that finds no page OOM-kills and retries,
 * as a user fault does: Linux's page allocator runs the OOM killer inside
 * the allocation and tries again, so a read() into fresh memory waits for
 * the victim's pages instead of failing with EFAULT. A child holds 60% of
 * memory and sleeps; the parent then reads half of memory from /dev/zero
 * into an untouched mapping, so every page of it is first touched by the
 * kernel's copy. The read must return every byte, the child (the larger)
 * dies of SIGKILL, and the buffer reads back as zeros. (Before the fix the
 * read failed with EFAULT once memory ran out; the fuzzer met the same gap
 * as a signal frame that could not be written, docs/fuzz.md, seed 12.)
 */
static void t_oom_kill_in_copy(void)
{
	size_t n = (size_t)meminfo_kb("MemTotal") * 1024 / PG / 2;
	int hold, st = 0, pid, fd;
	long oom0 = vmstat("oom_kill"), bad = 0;
	char *p;

	if (!oom_holder_start(&pid, &hold))
		return;
	p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	fd = open("/dev/zero", O_RDONLY);
	CHECK(fd >= 0);
	CHECK_EQ(read(fd, p, n * PG), (long)(n * PG));
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGKILL);
	CHECK_EQ(vmstat("oom_kill") - oom0, 1);
	for (size_t i = 0; i < n; i++)
		bad += p[i * PG] != 0;
	CHECK_EQ(bad, 0);
	CHECK_EQ(munmap(p, n * PG), 0);
	close(fd);
	close(hold);
}

/* A swap area is expected (UTEST_SWAP=1) and present; false with a note when the test must be skipped. */
static bool swap_ready(void)
{
	bool want = env_has("UTEST_SWAP=1");

	if (!on_vmkernel() || !want) {
		printf("    (skipped: no swap area asked for; make test's user-swap stage runs it)\n");
		return false;
	}
	CHECK(meminfo_kb("SwapTotal") > 0);
	return true;
}

/* VmSwap of /proc/NAME/status in kB, or 0 (no such process any more). */
static long process_swap_kb(const char *name)
{
	char path[64];
	int fd;
	long n = 0, r;

	snprintf(path, sizeof(path), "/proc/%s/status", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	while ((r = read(fd, procbuf + n, sizeof(procbuf) - 1 - n)) > 0)
		n += r;
	close(fd);
	procbuf[n] = 0;
	n = proc_field("VmSwap");
	return n > 0 ? n : 0;
}

/* Swap in kB that the live processes' own memory holds: VmSwap summed over /proc's processes. */
static long processes_swap_kb(void)
{
	static char buf[8192];
	int fd = open("/proc", O_RDONLY | O_DIRECTORY);
	long sum = 0, n;

	CHECK(fd >= 0);
	while ((n = usys3(__NR_getdents64, fd, (long)buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct dirent_u *d = (struct dirent_u *)(buf + off);

			if (d->name[0] >= '1' && d->name[0] <= '9')
				sum += process_swap_kb(d->name);
			off += d->reclen;
		}
	close(fd);
	return sum;
}

/*
 * Swap in kB that this program's own file holds. The file lies in the
 * root tmpfs; its pages that no entry maps (symbols, code not run yet)
 * are page-cache pages that reclaim writes out under pressure like any
 * tmpfs page (mm/shmem_swap.c), which no process's VmSwap counts. smaps'
 * Swap of a read-only mapping of the whole file is their count (Linux's
 * shmem_swap_usage).
 */
static long program_file_swap_kb(void)
{
	int fd = open(ut_argv0, O_RDONLY);
	long size = fd >= 0 ? lseek(fd, 0, 2) : -1, kb;
	void *m;

	CHECK(size > 0);
	m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED);
	kb = smaps_kb(m, "Swap:");
	CHECK(kb >= 0);
	CHECK_EQ(munmap(m, (size_t)size), 0);
	close(fd);
	return kb;
}

/* Swap in use (kB) that neither a live process's memory nor the program's file accounts for. */
static long swap_unaccounted_kb(void)
{
	long used = meminfo_kb("SwapTotal") - meminfo_kb("SwapFree");

	return used - processes_swap_kb() - program_file_swap_kb();
}

/*
 * The unmapped range's slots are free again: what is still in swap is the
 * live processes' own memory (the test program's, init's: cold pages
 * reclaim wrote out under the test's pressure, which stay there while
 * those processes sleep; their VmSwap), the pages of the program's own
 * file that reclaim wrote out (a 24 KiB larger program once took this
 * past 1 MiB) and, at most, a few slots in transit: under 1 MiB besides.
 * The reaped child's address space may still be held for a moment by
 * reclaim (kswapd looks at every address space, holding a reference: its
 * put is then the last, as Linux's mmput can be from kswapd), so wait for
 * that, yielding; a real leak of the
 * range trips the test program's watchdog. (The exact slot counts are
 * checked by the mm_swap suite.)
 */
static void slots_all_free(void)
{
	long left = swap_unaccounted_kb();

	if (left >= 1024)       /* say which wait a hang is in (a line only on this path) */
		printf("# waiting for swap slots to be freed: %ld kB in use besides the processes' VmSwap "
		       "and the program's file\n", left);
	while (swap_unaccounted_kb() >= 1024)
		usys0(__NR_sched_yield);
}

/* The check word of page i, word k: any value that differs between pages and words. */
static unsigned long pattern(size_t i, unsigned k)
{
	return (i * 0x9e3779b97f4a7c15UL) ^ ((unsigned long)k << 56) ^ 0x5a5a5a5a5aUL;
}

static void write_pages(unsigned long *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < 4; k++)
			p[i * (PG / 8) + k * 128] = pattern(i, k);
}

/* Pages of [p, p + n pages) whose check words are wrong. */
static size_t bad_pages(const unsigned long *p, size_t n)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < 4; k++)
			if (p[i * (PG / 8) + k * 128] != pattern(i, k)) {
				bad++;
				break;
			}
	return bad;
}

/*
 * A forked child writes the even pages of [p, p + n pages) (each write
 * makes the page the child's) and checks the odd ones; the parent waits
 * and checks that it found them right.
 */
static void child_rewrites_half(unsigned long *p, size_t n)
{
	int pid = fork(), st = -1;

	CHECK(pid >= 0);
	if (pid == 0) {
		for (size_t i = 0; i < n; i += 2)
			p[i * (PG / 8)] = 0;
		for (size_t i = 1; i < n; i += 2)
			if (p[i * (PG / 8)] != pattern(i, 0))
				_exit(1);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
}

/*
 * The round trip: twice the machine's memory written with check words
 * (so at least half of it has to go to swap: reclaim writes the coldest
 * pages out), then every page read back and checked (each swapped page
 * comes back by a major fault); then everything still resident is paged
 * out (MADV_PAGEOUT) and a forked child reads every page back and checks
 * it, from the slots the two processes share; then the parent once more.
 * Nobody is killed, and once the memory is unmapped every slot is free.
 * (MADV_PAGEOUT skips pages mapped twice, as Linux's does; reclaim would
 * take them through the swap cache, but not in an order a test controls:
 * hence the pageout before the fork.)
 */
static void t_swap_roundtrip(void)
{
	size_t n;
	unsigned long *p;
	long out0 = vmstat("pswpout"), in0 = vmstat("pswpin"), maj0 = vmstat("pgmajfault");
	long oom0 = vmstat("oom_kill");
	int pid, st = -1;

	if (!swap_ready())
		return;
	n = (size_t)meminfo_kb("MemTotal") * 1024 / PG * 2;
	CHECK((size_t)meminfo_kb("SwapTotal") * 1024 / PG > n);
	p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	write_pages(p, n);
	CHECK(vmstat("pswpout") - out0 >= (long)(n / 2));
	CHECK_EQ(bad_pages(p, n), 0);
	CHECK(vmstat("pswpin") - in0 >= (long)(n / 2));
	CHECK(vmstat("pgmajfault") - maj0 > 0);
	printf("    read back: %ld pages swapped in by %ld major faults\n", vmstat("pswpin") - in0,
	       vmstat("pgmajfault") - maj0);
	CHECK_EQ(madvise(p, n * PG, MADV_PAGEOUT), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(bad_pages(p, n) ? 1 : 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	CHECK_EQ(bad_pages(p, n), 0);
	CHECK_EQ(vmstat("oom_kill"), oom0);
	CHECK_EQ(munmap(p, n * PG), 0);
	slots_all_free();
}

/*
 * Swapped pages through fork, COW, mremap and mprotect: MADV_PAGEOUT
 * writes 16 MiB out (Linux: every page only this process maps), fork, the
 * child writes half (each write reads its page back and makes it the
 * child's), the parent's data is unchanged; mremap moves the parent's
 * swapped range and mprotect makes it read-only, and it still reads back.
 */
static void t_swap_fork_cow_mremap(void)
{
	const size_t n = 4096;
	unsigned long *p, *q;

	if (!swap_ready())
		return;
	p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	write_pages(p, n);
	CHECK_EQ(madvise(p, n * PG, MADV_PAGEOUT), 0);
	CHECK(meminfo_kb("SwapTotal") - meminfo_kb("SwapFree") >= (long)(n * PG / 1024));
	child_rewrites_half(p, n);
	q = mremap(p, n * PG, n * PG, MREMAP_MAYMOVE | MREMAP_FIXED, (char *)p + 2 * n * PG);
	CHECK(q == (unsigned long *)((char *)p + 2 * n * PG));
	CHECK_EQ(mprotect(q, n * PG, PROT_READ), 0);
	CHECK_EQ(bad_pages(q, n), 0);
	CHECK_EQ(munmap(q, n * PG), 0);
	slots_all_free();
}

/*
 * The private copies in a mapping of a file go to swap as anonymous
 * memory does (Linux's madvise_pageout pages out the anonymous folios of
 * a private file mapping; reclaim swaps any anonymous folio): a memfd of
 * n pages written with pwrite, mapped MAP_PRIVATE, every page rewritten
 * through the mapping (a copy each, the file unchanged). MADV_PAGEOUT
 * writes the n copies out (pswpout + n: the file's own pages are not
 * mapped any more, so nothing else of it is written), a forked child
 * rewrites half of them and reads the other half back, the parent's
 * copies and the file read back unchanged, and munmap frees every slot.
 */
static void t_swap_private_file(void)
{
	const size_t n = 1024;
	unsigned long *p, *buf;
	long out0;
	int fd;
	size_t bad = 0;

	if (!swap_ready())
		return;
	fd = (int)usys2(__NR_memfd_create, (long)"swap_private_file", 0);
	CHECK(fd >= 0);
	buf = malloc(PG);
	CHECK(buf != NULL);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < PG / 8; k++)
			buf[k] = ~pattern(i, k);
		CHECK_EQ(sys_pwrite(fd, buf, PG, i * PG), (long)PG);
	}
	p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(p != MAP_FAILED);
	write_pages(p, n);
	out0 = vmstat("pswpout");
	CHECK_EQ(madvise(p, n * PG, MADV_PAGEOUT), 0);
	CHECK_EQ(vmstat("pswpout") - out0, (long)n);
	child_rewrites_half(p, n);
	CHECK_EQ(bad_pages(p, n), 0);
	for (size_t i = 0; i < n; i++) {
		CHECK_EQ(sys_pread(fd, buf, PG, i * PG), (long)PG);
		bad += buf[0] != ~pattern(i, 0) || buf[PG / 8 - 1] != ~pattern(i, PG / 8 - 1);
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(munmap(p, n * PG), 0);
	CHECK_EQ(close(fd), 0);
	free(buf);
	slots_all_free();
}

static char smapsbuf[65536];

/* The first line of text (from a line start) that begins with what, or NULL. */
static char *line_starting(char *text, const char *what)
{
	size_t len = strlen(what);

	for (char *b = text; *b; b++)
		if ((b == text || b[-1] == '\n') && !strncmp(b, what, len))
			return b;
	return NULL;
}

/*
 * Read /proc/self/smaps (or, va 0, smaps_rollup) into smapsbuf; the start
 * of the block of the VMA that starts at va (of the rollup), or NULL.
 */
static char *smaps_block(const void *va)
{
	int fd = open(va ? "/proc/self/smaps" : "/proc/self/smaps_rollup", O_RDONLY);
	long n = 0, r;

	CHECK(fd >= 0);
	while ((r = read(fd, smapsbuf + n, sizeof(smapsbuf) - 1 - n)) > 0)
		n += r;
	close(fd);
	smapsbuf[n] = 0;
	if (!va)
		return smapsbuf;                /* one block, the [rollup] line first */
	for (char *b = smapsbuf; *b; b++) {
		char *end;

		if ((b == smapsbuf || b[-1] == '\n') && strtoul(b, &end, 16) == (unsigned long)va && *end == '-')
			return b;
	}
	return NULL;
}

long smaps_kb(const void *va, const char *field)
{
	char *b = smaps_block(va), *f, *end;

	if (!b)
		return -1;
	end = line_starting(b, "VmFlags:");     /* the block's last line (the rollup has none) */
	f = line_starting(b, field);
	if (!f || (end && f > end))
		return -1;
	f += strlen(field);
	while (*f == ' ')
		f++;
	return (long)strtoul(f, NULL, 10);
}

bool read_maps_zero_page(bool huge)
{
	static int probed = -1;
	char *p, knob = '1';
	int fd;

	if (on_vmkernel())
		return true;
	if (probed < 0) {
		p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(p != MAP_FAILED);
		CHECK_EQ(((volatile char *)p)[0], 0);
		probed = smaps_kb(p, "Rss:") == 0;
		CHECK_EQ(munmap(p, PG), 0);
	}
	if (!probed || !huge)
		return probed;
	fd = open("/sys/kernel/mm/transparent_hugepage/use_zero_page", O_RDONLY);
	if (fd >= 0) {
		CHECK_EQ(read(fd, &knob, 1), 1);
		close(fd);
	}
	return knob == '1';
}

/* The VmFlags line of the smaps block of the VMA at va, in line (size bytes); false if none. */
static bool smaps_vmflags(const void *va, char *line, size_t size)
{
	char *b = smaps_block(va), *f = b ? line_starting(b, "VmFlags:") : NULL;
	size_t k = 0;

	if (!f)
		return false;
	while (f[k] && f[k] != '\n' && k + 1 < size) {
		line[k] = f[k];
		k++;
	}
	line[k] = 0;
	return true;
}

/*
 * A forked child that holds the parent's pages (its copy of the address
 * space) until *go, the write end of a pipe the parent keeps, is closed;
 * it then exits 0. Its pid.
 */
static int holding_child(int *go)
{
	int fds[2], pid;

	CHECK_EQ(pipe(fds), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		char c;

		close(fds[1]);
		_exit(read(fds[0], &c, 1) == 0 ? 0 : 1);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

/*
 * /proc/self/smaps counts a VMA's pages as Linux 6.18's smaps_account
 * does, checked here on the host Linux too: 16 pages mapped, 8 written
 * and one read (the zero page, which counts nowhere): Rss, Pss,
 * Private_Dirty, Referenced and Anonymous are the 8 pages (32 kB). Where
 * a Linux build maps no zero page the read page is a ninth, dirty one
 * (do_anonymous_page makes a writable VMA's entry dirty): z = 4 kB more in
 * each of those. After MADV_FREE of 4 written pages, those are clean and
 * LazyFree (16 kB: madvise_free_pte_range cleans the entries and the
 * folios); writing one again makes it dirty and not lazily free. With a
 * forked child holding the same pages, each is shared by two: Pss is half
 * of Rss and nothing is private. In a MAP_LOCKED mapping Locked is the VMA's Pss. smaps_rollup
 * totals every VMA: at least these pages.
 */
static void t_smaps_counts(void)
{
	char *p = mmap(NULL, 16 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char flags[128];
	volatile char sink;
	int pid, st, go;
	const long z = read_maps_zero_page(false) ? 0 : 4;

	CHECK(p != MAP_FAILED);
	CHECK(pin_to_this_cpu() == 0 || errno == ENOSYS);     /* (the batch below is per CPU) */
	for (int i = 0; i < 8; i++)
		p[i * PG] = 1;
	sink = p[8 * PG];
	(void)sink;
	CHECK_EQ(smaps_kb(p, "Size:"), 64);
	CHECK_EQ(smaps_kb(p, "KernelPageSize:"), 4);
	CHECK_EQ(smaps_kb(p, "Rss:"), 32 + z);
	CHECK_EQ(smaps_kb(p, "Pss:"), 32 + z);
	CHECK_EQ(smaps_kb(p, "Pss_Dirty:"), 32 + z);
	CHECK_EQ(smaps_kb(p, "Private_Dirty:"), 32 + z);
	CHECK_EQ(smaps_kb(p, "Private_Clean:"), 0);
	CHECK_EQ(smaps_kb(p, "Shared_Dirty:"), 0);
	CHECK_EQ(smaps_kb(p, "Referenced:"), 32 + z);
	CHECK_EQ(smaps_kb(p, "Anonymous:"), 32 + z);
	CHECK_EQ(smaps_kb(p, "LazyFree:"), 0);
	CHECK_EQ(smaps_kb(p, "Swap:"), 0);
	CHECK_EQ(smaps_kb(p, "Locked:"), 0);
	CHECK(smaps_vmflags(p, flags, sizeof(flags)));
	CHECK(!strncmp(flags, "VmFlags: rd wr mr mw me ac ", 27));
	CHECK(smaps_block(NULL) && line_starting(smapsbuf, "Rss:") &&
	      !strncmp(line_starting(smapsbuf, "Rss:") - 9, "[rollup]\n", 9));
	CHECK(smaps_kb(NULL, "Rss:") >= 32);
	CHECK(smaps_kb(NULL, "Anonymous:") >= 32);
	CHECK(smaps_kb(NULL, "Pss_Anon:") >= 32);

	CHECK_EQ(madvise(p + 4 * PG, 4 * PG, MADV_FREE), 0);
	/*
	 * Linux marks the folios lazily free (clears PG_swapbacked) from a
	 * per-CPU batch, drained when full or by lru_add_drain, which
	 * MADV_COLD runs first (madvise_cold): on the same CPU, cold advice
	 * on the never-touched page 15 makes the count exact. Here the mark
	 * is immediate, and the advice changes nothing either.
	 */
	CHECK_EQ(madvise(p + 15 * PG, PG, MADV_COLD), 0);
	CHECK_EQ(smaps_kb(p, "LazyFree:"), 16);
	CHECK_EQ(smaps_kb(p, "Private_Dirty:"), 16 + z);
	CHECK_EQ(smaps_kb(p, "Private_Clean:"), 16);
	p[5 * PG] = 2;
	CHECK_EQ(smaps_kb(p, "LazyFree:"), 12);
	CHECK_EQ(smaps_kb(p, "Private_Dirty:"), 20 + z);

	pid = holding_child(&go);
	CHECK_EQ(smaps_kb(p, "Rss:"), 32 + z);
	CHECK_EQ(smaps_kb(p, "Pss:"), (32 + z) / 2);
	CHECK_EQ(smaps_kb(p, "Private_Dirty:") + smaps_kb(p, "Private_Clean:"), 0);
	CHECK_EQ(smaps_kb(p, "Shared_Dirty:") + smaps_kb(p, "Shared_Clean:"), 32 + z);
	close(go);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);

	CHECK_EQ(munmap(p, 16 * PG), 0);
	CHECK_EQ(smaps_kb(p, "Size:"), -1);

	p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	CHECK(p != MAP_FAILED);
	p[0] = p[PG] = 1;
	CHECK_EQ(smaps_kb(p, "Locked:"), 8);
	CHECK(smaps_vmflags(p, flags, sizeof(flags)));
	CHECK(!strncmp(flags, "VmFlags: rd wr mr mw me lo ac ", 30));
	CHECK_EQ(munmap(p, 2 * PG), 0);
}

/*
 * Swapped pages in smaps (needs a swap area, so our kernel only):
 * MADV_PAGEOUT moves 8 pages out: Rss 0, Swap 32 kB, SwapPss 32 kB (one
 * reference to each slot); after fork both processes hold each slot, so
 * SwapPss halves (smaps_pte_entry divides by swp_swapcount).
 */
static void t_smaps_swap(void)
{
	char *p;
	int pid, st, go;

	if (!swap_ready())
		return;
	p = mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	for (int i = 0; i < 8; i++)
		p[i * PG] = (char)i;
	CHECK_EQ(madvise(p, 8 * PG, MADV_PAGEOUT), 0);
	CHECK_EQ(smaps_kb(p, "Rss:"), 0);
	CHECK_EQ(smaps_kb(p, "Swap:"), 32);
	CHECK_EQ(smaps_kb(p, "SwapPss:"), 32);
	pid = holding_child(&go);
	CHECK_EQ(smaps_kb(p, "Swap:"), 32);
	CHECK_EQ(smaps_kb(p, "SwapPss:"), 16);
	close(go);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	CHECK_EQ(smaps_kb(p, "SwapPss:"), 32);
	for (int i = 0; i < 8; i++)
		CHECK_EQ(p[i * PG], (char)i);
	CHECK_EQ(smaps_kb(p, "Swap:"), 0);
	CHECK_EQ(munmap(p, 8 * PG), 0);
	slots_all_free();
}

/* ---- tmpfs and memfd pages in swap */

#define SHM_CHUNK 16                    /* pages a read() or write() moves */
static unsigned long shm_buf[SHM_CHUNK * PG / 8];

/* The check word of page i, word k, of the file salted with salt (pages of two files differ too). */
static unsigned long shm_word(size_t i, unsigned k, unsigned long salt)
{
	return pattern(i, k) ^ salt;
}

/* Write n pages of check words to fd through write(), SHM_CHUNK at a time. */
static void shm_write(int fd, size_t n, unsigned long salt)
{
	for (size_t i = 0; i < n; i += SHM_CHUNK) {
		for (size_t j = 0; j < SHM_CHUNK; j++)
			for (unsigned k = 0; k < 4; k++)
				shm_buf[j * (PG / 8) + k * 128] = shm_word(i + j, k, salt);
		CHECK_EQ(write_all(fd, shm_buf, SHM_CHUNK * PG), 0);
	}
}

/* Page i's check words at q, the first `first' pages' word 0 rewritten to ~ (through a mapping). */
static bool shm_page_ok(const unsigned long *q, size_t i, unsigned long salt, size_t first)
{
	for (unsigned k = 0; k < 4; k++) {
		unsigned long want = shm_word(i, k, salt);

		if (q[k * 128] != (i < first && k == 0 ? ~want : want))
			return false;
	}
	return true;
}

/* Pages of fd (n, from offset 0) with wrong check words, read through read(). */
static size_t shm_bad_read(int fd, size_t n, unsigned long salt, size_t first)
{
	size_t bad = 0;

	CHECK_EQ(lseek(fd, 0, 0), 0);
	for (size_t i = 0; i < n; i += SHM_CHUNK) {
		CHECK_EQ(read(fd, shm_buf, SHM_CHUNK * PG), (long)(SHM_CHUNK * PG));
		for (size_t j = 0; j < SHM_CHUNK; j++)
			bad += !shm_page_ok(shm_buf + j * (PG / 8), i + j, salt, first);
	}
	return bad;
}

/*
 * The same through shared read-only mappings of 256 pages at a time
 * (each unmapped before the next: with reclaim=scan this kernel's
 * reclaim cannot take mapped shared memory, only reclaim=lru unmaps it
 * through the file reverse map).
 */
static size_t shm_bad_mapped(int fd, size_t n, unsigned long salt, size_t first)
{
	const size_t win = 256;
	size_t bad = 0;

	for (size_t i = 0; i < n; i += win) {
		const unsigned long *q = mmap(NULL, win * PG, PROT_READ, MAP_SHARED, fd, (long)(i * PG));

		CHECK(q != MAP_FAILED);
		for (size_t j = 0; j < win && i + j < n; j++)
			bad += !shm_page_ok(q + j * (PG / 8), i + j, salt, first);
		CHECK_EQ(munmap((void *)q, win * PG), 0);
	}
	return bad;
}

/*
 * Shared memory files in swap, as Linux's shmem swaps them: a memfd as
 * large as the machine's memory and a tmpfs file (/dev/shm) of a quarter
 * of it, written with check words through write(). They cannot both be in
 * memory: Linux (and this kernel, mm/shmem_swap.c) writes the dirty pages
 * of files nobody maps to swap and keeps the swap entry in the file's
 * page index. Then: the first 256 pages of the memfd rewritten through a
 * shared mapping (each faulted back from swap, the writes kept when the
 * mapping goes), a private mapping of the tmpfs file written (a copy:
 * the file unchanged); every page read back through read() and through
 * mappings; smaps' Swap: for an untouched shared mapping of the memfd,
 * which Linux counts from the file's swap entries (since 4.5,
 * shmem_swap_usage); the last page truncated mid-way and the file grown
 * again (its tail reads zeros); and once both files are gone, every slot
 * free again.
 *
 * Expected counts, with swap: the data is 1.25 x MemTotal, at least
 * D = data - MemFree (before) pages cannot be in memory, so pswpout grows
 * by at least D / 2 (the other half: room reclaim may have made by
 * taking other processes' pages instead, a few MiB at most, and
 * MemFree's slack); a pass over every page then reads back at least as
 * many (pswpin), by major faults for the mapped pass. Without swap
 * (the host, or no UTEST_SWAP) the files are 8 MiB and 2 MiB and only the
 * data is checked.
 */
static void t_swap_shmem(void)
{
	const unsigned long salt_m = 0x1111111111111111UL, salt_t = 0x2222222222222222UL;
	bool swap = swap_ready();
	size_t total = (size_t)meminfo_kb("MemTotal") * 1024 / PG;
	size_t nm = swap ? total : 2048, nt = swap ? total / 4 : 512, first = 256;
	long free0 = meminfo_kb("MemFree") / 4, out0 = vmstat("pswpout"), in0, maj0;
	long want = (long)(nm + nt) - free0;
	char path[64];
	int mfd, tfd;
	unsigned long *q;
	unsigned char *vec;
	long swap_kb;
	size_t resident = 0;

	nm = (nm + SHM_CHUNK - 1) / SHM_CHUNK * SHM_CHUNK;
	nt = (nt + SHM_CHUNK - 1) / SHM_CHUNK * SHM_CHUNK;
	snprintf(path, sizeof(path), "/dev/shm/vmk-swap-shmem-%d", getpid());
	mfd = (int)usys2(__NR_memfd_create, (long)"swap_shmem", 0);
	CHECK(mfd >= 0);
	tfd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(tfd >= 0);
	shm_write(mfd, nm, salt_m);
	shm_write(tfd, nt, salt_t);
	/* Progress lines: on a loaded host each phase takes minutes, and tools/run's hang limit is silence. */
	printf("# swap_shmem: %zu + %zu pages written\n", nm, nt);
	if (swap) {
		CHECK(vmstat("pswpout") - out0 >= want / 2);
		CHECK(meminfo_kb("Shmem") < (long)((nm + nt) * PG / 1024));   /* not all in memory */
	}
	/* Rewrite through a shared mapping: a write fault on each page (in swap or not). */
	q = mmap(NULL, first * PG, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	CHECK(q != MAP_FAILED);
	for (size_t i = 0; i < first; i++)
		q[i * (PG / 8)] = ~shm_word(i, 0, salt_m);
	CHECK_EQ(munmap(q, first * PG), 0);
	/* A private mapping's writes are its own copies (the file keeps its data). */
	q = mmap(NULL, first * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, tfd, 0);
	CHECK(q != MAP_FAILED);
	for (size_t i = 0; i < first; i++)
		q[i * (PG / 8)] = 0;
	CHECK_EQ(munmap(q, first * PG), 0);
	in0 = vmstat("pswpin");
	CHECK_EQ(shm_bad_read(mfd, nm, salt_m, first), 0);
	CHECK_EQ(shm_bad_read(tfd, nt, salt_t, 0), 0);
	if (swap)
		CHECK(vmstat("pswpin") - in0 >= want / 2);
	printf("# swap_shmem: read back through read()\n");
	in0 = vmstat("pswpin");
	maj0 = vmstat("pgmajfault");
	CHECK_EQ(shm_bad_mapped(mfd, nm, salt_m, first), 0);
	CHECK_EQ(shm_bad_mapped(tfd, nt, salt_t, 0), 0);
	if (swap) {
		CHECK(vmstat("pswpin") - in0 >= want / 2);
		CHECK(vmstat("pgmajfault") - maj0 > 0);
	}
	/*
	 * An untouched shared mapping of the whole memfd: no page mapped
	 * (Rss 0); every page is in memory (mincore) or in swap (Swap:),
	 * and here never both (shmem pages skip the swap cache; Linux could
	 * count a page under writeback in both).
	 */
	printf("# swap_shmem: read back through mmap\n");
	q = mmap(NULL, nm * PG, PROT_READ, MAP_SHARED, mfd, 0);
	CHECK(q != MAP_FAILED);
	vec = mmap(NULL, nm, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(vec != MAP_FAILED);
	/*
	 * Reclaim may be moving pages out meanwhile (kswapd): counted again
	 * until Swap: did not change around the mincore (nothing touches the
	 * file, so nothing comes back in).
	 */
	for (unsigned round = 0;; round++) {
		if (round == 1)
			printf("# swap_shmem: Swap: changed around mincore, counting again\n");
		swap_kb = smaps_kb(q, "Swap:");
		CHECK_EQ(mincore(q, nm * PG, vec), 0);
		resident = 0;
		for (size_t i = 0; i < nm; i++)
			resident += vec[i] & 1;
		if (smaps_kb(q, "Swap:") == swap_kb)
			break;
	}
	CHECK_EQ(smaps_kb(q, "Rss:"), 0);
	if (swap) {
		CHECK(swap_kb > 0);
		CHECK_EQ(swap_kb / 4 + (long)resident, (long)nm);
	}
	CHECK_EQ(munmap(vec, nm), 0);
	CHECK_EQ(munmap(q, nm * PG), 0);
	/* Truncated inside the last page, then grown: its tail reads zeros, its head is kept. */
	CHECK_EQ(usys2(__NR_ftruncate, mfd, (long)((nm - 1) * PG + 8)), 0);
	CHECK_EQ(usys2(__NR_ftruncate, mfd, (long)(nm * PG)), 0);
	CHECK_EQ(lseek(mfd, (long)((nm - 1) * PG), 0), (long)((nm - 1) * PG));
	CHECK_EQ(read(mfd, shm_buf, PG), (long)PG);
	CHECK_EQ(shm_buf[0], shm_word(nm - 1, 0, salt_m));
	CHECK_EQ(shm_buf[128], 0);
	/* Both files gone (truncated, unlinked and closed): their slots are free. */
	CHECK_EQ(usys2(__NR_ftruncate, mfd, 0), 0);
	CHECK_EQ(usys1(__NR_unlink, (long)path), 0);
	CHECK_EQ(close(tfd), 0);
	CHECK_EQ(close(mfd), 0);
	if (swap)
		slots_all_free();
}

/* The monotonic clock in ms. */
static long mono_ms(void)
{
	long ts[2] = { 0, 0 };

	usys2(__NR_clock_gettime, 1 /* CLOCK_MONOTONIC */, (long)ts);
	return ts[0] * 1000 + ts[1] / 1000000;
}

/* Wait for pid for at most ms; its pid, or 0 when it is still running then. */
static int wait_for_ms(int pid, int *st, long ms)
{
	long end = mono_ms() + ms;
	int r;

	while ((r = waitpid(pid, st, WNOHANG)) == 0 && mono_ms() < end)
		msleep(2);
	return r;
}

#define HUGE_SHARED (64UL << 40)      /* 64 TiB: more than any memory, as the fuzzer's seed 12 maps */

/*
 * A child maps 64 TiB of shared anonymous memory with MAP_POPULATE, which
 * would fill memory. SIGKILLed once it has populated an eighth of it, it
 * must die at once: Linux's populate loop (__get_user_pages) stops when
 * fatal_signal_pending and returns -EINTR. Dying is tearing down what it
 * has, much less than populating it, so the reap must come within three
 * times the time the eighth took (plus 200 ms): a child that goes on to
 * fill the other seven eighths first takes about seven times as long
 * (measured before the fix, on TCG: the reap came after more than 20 s,
 * the eighth took about 5 s). Once it is reaped every frame it took is
 * free again: nothing else holds the object.
 */
static void t_populate_shared_killed(void)
{
	struct vmk_memstat before, now;
	int st = 0, pid;
	long t0, t_eighth;

	if (!on_vmkernel()) {
		printf("    (skipped on Linux: would fill the host's memory)\n");
		return;
	}
	CHECK(vmk_memstat(&before));
	t0 = mono_ms();
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		void *p = mmap(NULL, HUGE_SHARED, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		_exit(p == MAP_FAILED ? 3 : 4);
	}
	do {
		msleep(1);
		CHECK(vmk_memstat(&now));
		CHECK_EQ(waitpid(pid, &st, WNOHANG), 0);       /* still populating */
	} while (now.free_frames > before.free_frames - before.free_frames / 8);
	t_eighth = mono_ms() - t0;
	CHECK_EQ(kill(pid, SIGKILL), 0);
	CHECK_EQ(wait_for_ms(pid, &st, 3 * t_eighth + 200), pid);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGKILL);
	/*
	 * Two frames of slack, as thread_oom_kill: a slab cache may be a page
	 * fuller. Up to a second for reclaim (kswapd), which may hold the object
	 * a moment, to let go of it.
	 */
	for (long end = mono_ms() + 1000; vmk_memstat(&now) && now.free_frames + 2 < before.free_frames &&
	     mono_ms() < end;)
		msleep(10);
	CHECK(now.free_frames + 2 >= before.free_frames);
}

/*
 * The memory of shared anonymous memory is free once its last mapping
 * is gone: Linux frees a shmem object's pages at the last fput
 * (shmem_evict_inode), which an exiting process does before its parent
 * can reap it, whoever else was looking at the pages (reclaim). A child
 * C writes 70% of memory through MAP_SHARED | MAP_ANONYMOUS and waits; a
 * child D then touches new private pages until the OOM killer takes C,
 * the largest, while D's faults keep reclaim scanning C's object (its
 * clock holds a reference to the object for a whole turn). Right after C
 * is reaped, Shmem in /proc/meminfo must be back where it was (64 kB of
 * slack). Before the fix it read 720,116 kB in 5 runs of 6: the pages
 * waited for reclaim to let go of the object, as in the fuzzer's seeds
 * 12 and 53 ("file refs 0, nr_vmas 0, refcount 1").
 *
 * Run in a 512 MiB machine (UTEST_SMALL_OOM=1: make test's user-oom
 * stage): with no swap every reclaim pass scans all of C's pages and
 * frees none, and in the 1 GiB of the other stages the OOM kill came
 * after more than 300 s on a loaded host (and past 120 s on the KASAN
 * kernel). In 512 MiB it took 4-22 s at load 6-10, and with the fix
 * taken out it failed (90 s); in 128 and 256 MiB it passed without the
 * fix too (reclaim's pass is over before C is reaped), so not smaller.
 */
static void t_shared_freed_under_reclaim(void)
{
	long base_kb = meminfo_kb("Shmem"), now_kb;
	size_t len = ((size_t)meminfo_kb("MemTotal") * 1024 / 10 * 7) & ~(PG - 1);
	int st = 0, c, d, fds[2];
	char x;

	if (!on_vmkernel()) {
		printf("    (skipped on Linux: would fill the host's memory)\n");
		return;
	}
	if (!env_has("UTEST_SMALL_OOM=1")) {
		printf("    (skipped: make test's user-oom stage runs it, in 512 MiB)\n");
		return;
	}
	CHECK_EQ(pipe(fds), 0);
	c = fork();
	CHECK(c >= 0);
	if (c == 0) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(3);
		for (size_t i = 0; i < len; i += PG)
			p[i] = 1;
		if (write(fds[1], "r", 1) != 1)
			_exit(4);
		for (;;)
			msleep(1000);
	}
	CHECK_EQ(read(fds[0], &x, 1), 1);
	d = fork();
	CHECK(d >= 0);
	if (d == 0) {
		for (;;) {
			char *q = mmap(NULL, 64 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			for (size_t i = 0; q != MAP_FAILED && i < 64 * PG; i += PG)
				q[i] = 1;
		}
	}
	/* No deadline: D's faults run until the OOM killer takes C (the run's hang detector bounds it). */
	CHECK_EQ(waitpid(c, &st, 0), c);
	now_kb = meminfo_kb("Shmem");
	CHECK_EQ(kill(d, SIGKILL), 0);
	CHECK_EQ(waitpid(d, NULL, 0), d);
	close(fds[0]);
	close(fds[1]);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);     /* the OOM killer's */
	printf("    Shmem %ld kB before, %ld kB right after the reap\n", base_kb, now_kb);
	CHECK(now_kb <= base_kb + 64);
}

/*
 * The kernel was booted with reclaim=scan (/proc/cmdline, Linux's file of
 * the boot command line); reclaim=lru is the default.
 */
static bool reclaim_scan(void)
{
	static const char word[] = "reclaim=scan";
	char line[1024];
	int fd = open("/proc/cmdline", O_RDONLY);
	long n = fd >= 0 ? read(fd, line, sizeof(line) - 1) : -1;

	if (fd >= 0)
		close(fd);
	for (long i = 0; i + (long)sizeof(word) - 1 <= n; i++)
		if (!memcmp(line + i, word, sizeof(word) - 1) && (i == 0 || line[i - 1] == ' '))
			return true;
	return false;
}

/*
 * Mapped shared memory in swap (Linux's shrink_folio_list: try_to_unmap
 * of a mapped shmem folio, then shmem_writeout): a memfd of 1.25 x
 * MemTotal (it cannot all be in memory, however much else reclaim
 * takes), mapped shared once and written only through that
 * mapping, so every page is mapped and dirty in its page-table entry
 * when memory runs out; then every page read back through the mapping.
 * Reclaim must unmap pages from the mapping (the reverse map from a page
 * of the file to its entries), carry their entries' dirty bits into the
 * pages and write them to swap; the reads fault them back (major
 * faults) with the data written. Expected counts as swap_shmem's: at
 * least D = pages - MemFree (before) cannot be in memory, so pswpout
 * grows by at least D / 2 and the read pass reads back at least D / 2
 * (pswpin), by major faults. With reclaim=scan (which takes no mapped
 * shared memory: the file would not fit) and without swap (the host, or
 * no UTEST_SWAP) the file is 8 MiB and only the data is checked.
 */
static void t_swap_shmem_mapped(void)
{
	const unsigned long salt = 0x3333333333333333UL;
	bool swap = swap_ready();
	size_t n = 2048, bad = 0;
	long free0 = meminfo_kb("MemFree") / 4, out0 = vmstat("pswpout"), in0, maj0, want;
	unsigned long *q;
	int fd;

	if (swap && reclaim_scan())
		printf("    (8 MiB only: reclaim=scan takes no mapped shared memory)\n");
	else if (swap)
		n = (size_t)meminfo_kb("MemTotal") / 4 * 5 / 4;
	want = (long)n - free0;
	fd = (int)usys2(__NR_memfd_create, (long)"swap_shmem_mapped", 0);
	CHECK(fd >= 0);
	CHECK_EQ(usys2(__NR_ftruncate, fd, (long)(n * PG)), 0);
	q = mmap(NULL, n * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(q != MAP_FAILED);
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < 4; k++)
			q[i * (PG / 8) + k * 128] = shm_word(i, k, salt);
	printf("# swap_shmem_mapped: %zu pages written through the mapping\n", n);
	if (want > 0)
		CHECK(vmstat("pswpout") - out0 >= want / 2);
	in0 = vmstat("pswpin");
	maj0 = vmstat("pgmajfault");
	for (size_t i = 0; i < n; i++)
		bad += !shm_page_ok(q + i * (PG / 8), i, salt, 0);
	CHECK_EQ(bad, 0);
	if (want > 0) {
		CHECK(vmstat("pswpin") - in0 >= want / 2);
		CHECK(vmstat("pgmajfault") - maj0 > 0);
	}
	CHECK_EQ(munmap(q, n * PG), 0);
	CHECK_EQ(close(fd), 0);
	if (swap)
		slots_all_free();
}

const struct utest ut_pressure_tests[] = {
	{ "vmstat_counts", t_vmstat_counts },
	{ "meminfo_lru", t_meminfo_lru },
	{ "meminfo_lazyfree", t_meminfo_lazyfree },
	{ "pressure_madv_free", t_pressure_madv_free },
	{ "oom_kill_largest", t_oom_kill_largest },
	{ "oom_kill_shared_mm", t_oom_kill_shared_mm },
	{ "oom_kill_in_copy", t_oom_kill_in_copy },
	{ "swap_roundtrip", t_swap_roundtrip },
	{ "swap_fork_cow_mremap", t_swap_fork_cow_mremap },
	{ "swap_private_file", t_swap_private_file },
	{ "smaps_counts", t_smaps_counts },
	{ "smaps_swap", t_smaps_swap },
	{ "swap_shmem", t_swap_shmem },
	{ "populate_shared_killed", t_populate_shared_killed },
	{ "shared_freed_under_reclaim", t_shared_freed_under_reclaim },
	{ "swap_shmem_mapped", t_swap_shmem_mapped },
	{ NULL, NULL },
};
