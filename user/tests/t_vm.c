/*
 * VM system-call tests: what each call does to page contents (dontneed
 * zero-fills, free keeps the data, shared anonymous memory crosses fork,
 * populate makes pages resident, munmap/mprotect make accesses fault,
 * mremap moves the data), then bad input for each call with the errno
 * Linux returns.
 *
 * Every expected value here is Linux's: the binary passes on the host
 * Linux (make test-user-linux), which is the proof; the rule that makes
 * Linux return it is written beside each check (mm/mmap.c, mm/mprotect.c,
 * mm/madvise.c, mm/mincore.c, mm/mremap.c, mm/vma.c).
 */
#include "utests.h"

#define PG 4096UL
/* x86-64 TASK_SIZE with 4-level paging: the first address user space cannot map. */
#define USER_TOP 0x7ffffffff000UL
#define KERNEL_ADDR 0xffff800000000000UL

static char *map(size_t len, int prot, int flags)
{
	char *p = mmap(NULL, len, prot, MAP_ANONYMOUS | flags, -1, 0);

	CHECK(p != MAP_FAILED);
	return p;
}

static char *map_rw(size_t len)
{
	return map(len, PROT_READ | PROT_WRITE, MAP_PRIVATE);
}

/* Number of resident pages of [p, p + len) according to mincore (bit 0 of each byte). */
static long resident(void *p, size_t len)
{
	static unsigned char vec[256];
	long n = 0;

	CHECK(len / PG <= sizeof(vec));
	CHECK_EQ(mincore(p, len, vec), 0);
	for (size_t i = 0; i < len / PG; i++)
		n += vec[i] & 1;
	return n;
}

/* errno of a libc-style call that must fail: -1 checked here, errno returned. */
#define ERRNO_OF(call) ({ errno = 0; CHECK_EQ((long)(call), -1L); errno; })
#define MMAP_ERRNO(a, l, pr, fl) ({ errno = 0; \
	CHECK(mmap((void *)(a), (l), (pr), (fl), -1, 0) == MAP_FAILED); errno; })

/* ---- SIGSEGV catching ---- */

static sigjmp_buf jb;
static volatile long fault_addr;
static volatile int fault_code;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	fault_addr = (long)si->si_addr;
	fault_code = si->si_code;
	siglongjmp(jb, 1);
}

static void catch_segv(void)
{
	ut_catch_signal(SIGSEGV, on_segv);
}

/*
 * Write one byte at p; true when the write raised SIGSEGV (fault_addr and
 * fault_code then describe it). sigsetjmp saves the signal mask, so the
 * handler's blocked SIGSEGV is unblocked again by siglongjmp.
 */
static bool write_faults(volatile char *p, char v)
{
	fault_addr = 0;
	fault_code = 0;
	if (sigsetjmp(jb, 1) == 0) {
		*p = v;
		return false;
	}
	return true;
}

static bool read_faults(volatile char *p)
{
	fault_addr = 0;
	fault_code = 0;
	if (sigsetjmp(jb, 1) == 0) {
		(void)*p;
		return false;
	}
	return true;
}

/* =================== content semantics =================== */

/*
 * MADV_DONTNEED on private anonymous memory drops the pages: the next
 * touch gets a fresh zero page (Linux: zap_page_range, then do_anonymous_page).
 *   before: |xxxx|xxxx|xxxx|xxxx|   after: |0000|0000|0000|0000|
 */
static void t_dontneed_zero_fill(void)
{
	size_t len = 4 * PG;
	char *p = map_rw(len);

	for (size_t i = 0; i < len; i++)
		p[i] = 'x';
	CHECK_EQ(resident(p, len), 4);
	CHECK_EQ(madvise(p, len, MADV_DONTNEED), 0);
	CHECK_EQ(resident(p, len), 0);          /* zapped: nothing mapped any more */
	for (size_t i = 0; i < len; i += 512)
		CHECK_EQ(p[i], 0);
	p[len - 1] = 'y';                        /* still mapped and writable */
	CHECK_EQ(p[len - 1], 'y');
}

/*
 * MADV_DONTNEED on part of the range: only those pages read zero.
 *   |xxxx|0000|0000|xxxx|
 */
static void t_dontneed_partial(void)
{
	char *p = map_rw(4 * PG);

	for (int i = 0; i < 4; i++)
		memset(p + i * PG, 'a' + i, PG);
	CHECK_EQ(madvise(p + PG, 2 * PG, MADV_DONTNEED), 0);
	CHECK_EQ(p[0], 'a');
	CHECK_EQ(p[PG], 0);
	CHECK_EQ(p[3 * PG - 1], 0);
	CHECK_EQ(p[3 * PG], 'd');
	CHECK_EQ(p[4 * PG - 1], 'd');
}

/*
 * MADV_FREE only marks the pages lazily freeable: until reclaim takes a
 * clean page the data stays (no memory pressure here), and a write makes
 * the page dirty again, so the new value stays for good.
 */
static void t_free_keeps_data(void)
{
	size_t len = 8 * PG;
	char *p = map_rw(len);

	for (size_t i = 0; i < len; i += PG)
		memset(p + i, 'f', PG);
	CHECK_EQ(madvise(p, len, MADV_FREE), 0);
	for (size_t i = 0; i < len; i += 1024)
		CHECK_EQ(p[i], 'f');
	p[0] = 'n';                             /* a write cancels the free for this page */
	p[3 * PG + 7] = 'm';
	CHECK_EQ(p[0], 'n');
	CHECK_EQ(p[1], 'f');                    /* the rest of the page is the old data */
	CHECK_EQ(p[3 * PG + 7], 'm');
	CHECK_EQ(p[3 * PG + 8], 'f');
}

/* MADV_FREE on never-touched memory: succeeds, pages still read as zero. */
static void t_free_untouched(void)
{
	char *p = map_rw(4 * PG);

	CHECK_EQ(madvise(p, 4 * PG, MADV_FREE), 0);
	CHECK_EQ(p[0], 0);
	CHECK_EQ(p[4 * PG - 1], 0);
}

/*
 * MADV_PAGEOUT reclaims the range at once. Without swap only clean lazily
 * freed pages can go: after MADV_FREE of the last of four written pages,
 * a pageout of the last two drops it (mincore 1110, it reads zero again)
 * and keeps the third (Linux: shrink_folio_list discards a clean lazyfree
 * folio; a swap-backed one needs swap). On Linux the test stays on one
 * CPU: MADV_FREE and MADV_PAGEOUT drain only the LRU batch of their CPU.
 */
static void t_pageout_lazyfree(void)
{
	char *p = map_rw(4 * PG);
	unsigned char vec[4];

	if (!on_vmkernel())
		CHECK_EQ(pin_to_this_cpu(), 0);
	memset(p, 'o', 4 * PG);
	CHECK_EQ(madvise(p + 3 * PG, PG, MADV_FREE), 0);
	CHECK_EQ(madvise(p + 2 * PG, 2 * PG, MADV_PAGEOUT), 0);
	CHECK_EQ(mincore(p, 4 * PG, vec), 0);
	CHECK_EQ((vec[0] & 1) * 1000 + (vec[1] & 1) * 100 + (vec[2] & 1) * 10 + (vec[3] & 1), 1110);
	CHECK_EQ(p[3 * PG + 1], 0);
	CHECK_EQ(p[2 * PG + 1], 'o');
}

/* =================== guard regions (Linux 6.13 MADV_GUARD_*) =================== */

/*
 * Every access to a guard page raises SIGSEGV with SEGV_MAPERR at the
 * address touched (handle_pte_marker -> VM_FAULT_SIGSEGV ->
 * bad_area_nosemaphore); the install zapped the data there, the pages
 * around keep theirs; MADV_DONTNEED and mprotect leave the marker; after
 * MADV_GUARD_REMOVE the page is demand-zero again.
 */
static void t_guard_segv(void)
{
	char *p = map_rw(4 * PG);

	memset(p, 'g', 4 * PG);
	catch_segv();
	CHECK_EQ(madvise(p + PG, 2 * PG, MADV_GUARD_INSTALL), 0);
	CHECK(read_faults(p + PG + 5));
	CHECK_EQ(fault_addr, (long)(p + PG + 5));
	CHECK_EQ(fault_code, SEGV_MAPERR);
	CHECK(write_faults(p + 2 * PG, 1));
	CHECK_EQ(fault_addr, (long)(p + 2 * PG));
	CHECK_EQ(fault_code, SEGV_MAPERR);
	CHECK_EQ(p[PG - 1], 'g');
	CHECK_EQ(p[3 * PG], 'g');
	CHECK_EQ(madvise(p, 4 * PG, MADV_DONTNEED), 0);
	CHECK_EQ(mprotect(p, 4 * PG, PROT_READ), 0);
	CHECK_EQ(mprotect(p, 4 * PG, PROT_READ | PROT_WRITE), 0);
	CHECK(read_faults(p + PG));
	CHECK_EQ(madvise(p + PG, 2 * PG, MADV_GUARD_REMOVE), 0);
	CHECK(!read_faults(p + PG));
	CHECK_EQ(p[PG], 0);
	p[2 * PG] = 'r';
	CHECK_EQ(p[2 * PG], 'r');
}

/*
 * Markers live in the page tables and fork copies them (Linux 6.18.y:
 * VM_MAYBE_GUARD is in VM_COPY_ON_FORK), except into a VM_WIPEONFORK
 * range, whose tables are not copied. A shared page behind a marker keeps
 * its data in the shared object: the child that removes its own marker
 * reads it, while the parent's marker stays.
 */
static void t_guard_fork(void)
{
	char *p = map_rw(2 * PG), *w = map_rw(PG);
	char *s = map(PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	int pid, st;

	s[0] = 's';
	catch_segv();
	CHECK_EQ(madvise(w, PG, MADV_WIPEONFORK), 0);
	CHECK_EQ(madvise(p + PG, PG, MADV_GUARD_INSTALL), 0);
	CHECK_EQ(madvise(w, PG, MADV_GUARD_INSTALL), 0);
	CHECK_EQ(madvise(s, PG, MADV_GUARD_INSTALL), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		if (!read_faults(p + PG) || fault_code != SEGV_MAPERR)
			_exit(2);
		if (read_faults(w) || w[0] != 0)
			_exit(3);
		if (!read_faults(s))
			_exit(4);
		if (madvise(s, PG, MADV_GUARD_REMOVE) != 0 || s[0] != 's')
			_exit(5);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	CHECK(read_faults(s));
	CHECK(read_faults(w));
	CHECK(read_faults(p + PG));
}

/*
 * is_valid_guard_vma: a VM_LOCKED mapping (MAP_LOCKED) refuses install,
 * which would have to zap locked pages, with EINVAL, but allows remove.
 */
static void t_guard_locked(void)
{
	char *p = map(2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_LOCKED);

	CHECK_EQ(p[0], 0);
	CHECK_EQ(ERRNO_OF(madvise(p, PG, MADV_GUARD_INSTALL)), EINVAL);
	CHECK_EQ(madvise(p, 2 * PG, MADV_GUARD_REMOVE), 0);
	p[PG] = 'l';
	CHECK_EQ(p[PG], 'l');
}

/* A system call whose buffer lies in a guard region gets EFAULT: the kernel's access faults there too. */
static void t_guard_syscall(void)
{
	char *p = map_rw(2 * PG);
	int fds[2];

	CHECK_EQ(madvise(p + PG, PG, MADV_GUARD_INSTALL), 0);
	CHECK_EQ(pipe(fds), 0);
	CHECK_EQ(ERRNO_OF(write(fds[1], p + PG, 1)), EFAULT);
	CHECK_EQ(write(fds[1], "x", 1), 1);
	CHECK_EQ(ERRNO_OF(read(fds[0], p + PG, 1)), EFAULT);
	CHECK_EQ(read(fds[0], p, 1), 1);
	CHECK_EQ(p[0], 'x');
	close(fds[0]);
	close(fds[1]);
}

/*
 * MAP_SHARED|MAP_ANONYMOUS is one shared object: after fork both processes
 * map the same pages.
 *   parent writes 'P' before fork -> the child reads 'P'
 *   child writes 'C' and exits     -> the parent reads 'C' after wait4
 */
static void t_shared_anon_fork(void)
{
	size_t len = 4 * PG;
	char *s = map(len, PROT_READ | PROT_WRITE, MAP_SHARED);
	int pid, st;

	for (size_t i = 0; i < len; i += PG)
		s[i] = 'P';
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		for (size_t i = 0; i < len; i += PG)
			if (s[i] != 'P')
				_exit(2);
		for (size_t i = 0; i < len; i += PG)
			s[i + 1] = 'C';
		s[len - 1] = 'E';               /* the last byte: never touched by the parent */
		_exit(0);
	}
	CHECK_EQ(sys_wait4(pid, &st, 0, NULL), pid);
	CHECK_EQ(st, 0);
	for (size_t i = 0; i < len; i += PG) {
		CHECK_EQ(s[i], 'P');
		CHECK_EQ(s[i + 1], 'C');
	}
	CHECK_EQ(s[len - 1], 'E');
}

/* Shared pages first touched in the child (never in the parent) are still the shared ones. */
static void t_shared_anon_child_first_touch(void)
{
	char *s = map(2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	int pid, st;

	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		s[PG + 5] = 'k';
		_exit(0);
	}
	CHECK_EQ(sys_wait4(pid, &st, 0, NULL), pid);
	CHECK_EQ(st, 0);
	CHECK_EQ(s[PG + 5], 'k');
	CHECK_EQ(s[0], 0);
}

/* A private mapping, by contrast, keeps the child's write in the child. */
static void t_private_anon_fork(void)
{
	char *p = map_rw(PG);
	int pid, st;

	p[0] = 'P';
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		p[0] = 'C';
		_exit(0);
	}
	CHECK_EQ(sys_wait4(pid, &st, 0, NULL), pid);
	CHECK_EQ(st, 0);
	CHECK_EQ(p[0], 'P');
}

/*
 * MAP_POPULATE faults every page in at mmap time: mincore says all
 * resident. Without it nothing is resident until touched.
 */
static void t_populate_resident(void)
{
	size_t len = 32 * PG;
	char *a = map(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_POPULATE);
	char *b = map(len, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *s = map(len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE);

	CHECK_EQ(resident(a, len), 32);
	CHECK_EQ(resident(b, len), 0);
	CHECK_EQ(resident(s, len), 32);
	CHECK_EQ(a[5 * PG], 0);                 /* populated pages are zero-filled */
	CHECK_EQ(s[31 * PG], 0);
}

/* munmap then access: SIGSEGV with SEGV_MAPERR at the address touched. */
static void t_munmap_then_fault(void)
{
	char *p = map_rw(3 * PG);

	p[PG] = 1;
	catch_segv();
	CHECK_EQ(munmap(p, 3 * PG), 0);
	CHECK(read_faults(p + PG + 10));
	CHECK_EQ(fault_addr, (long)(p + PG + 10));
	CHECK_EQ(fault_code, SEGV_MAPERR);
	CHECK(write_faults(p, 1));
	CHECK_EQ(fault_addr, (long)p);
	CHECK_EQ(fault_code, SEGV_MAPERR);
}

/*
 * munmap of the middle page of three: the neighbours keep their data,
 * the middle faults.
 *   |aaaa|    |cccc|
 */
static void t_munmap_middle(void)
{
	char *p = map_rw(3 * PG);

	p[0] = 'a';
	p[PG] = 'b';
	p[2 * PG] = 'c';
	catch_segv();
	CHECK_EQ(munmap(p + PG, PG), 0);
	CHECK_EQ(p[0], 'a');
	CHECK_EQ(p[2 * PG], 'c');
	CHECK(read_faults(p + PG));
	CHECK_EQ(fault_code, SEGV_MAPERR);
}

/*
 * mremap grow with MREMAP_MAYMOVE, forced to move (a mapping sits right
 * after the old range): the data moves with it, the new tail is zero and
 * the old range is gone.
 *   old: |0123|GGGG|        new: |0123|0000|0000|0000|  (elsewhere)
 */
static void t_mremap_moves_data(void)
{
	size_t oldlen = 4 * PG, newlen = 16 * PG;
	char *p = map_rw(oldlen), *q;
	char *guard = mmap(p + oldlen, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			   -1, 0);

	if (guard == MAP_FAILED) {
		/* something else already sits right after p: that blocks in-place growth too */
		CHECK_EQ(errno, EEXIST);
	}
	for (size_t i = 0; i < oldlen; i += PG)
		memset(p + i, '0' + (int)(i / PG), PG);
	q = mremap(p, oldlen, newlen, MREMAP_MAYMOVE);
	CHECK(q != MAP_FAILED);
	CHECK(q != p);
	for (size_t i = 0; i < oldlen; i += PG) {
		CHECK_EQ(q[i], '0' + (long)(i / PG));
		CHECK_EQ(q[i + PG - 1], '0' + (long)(i / PG));
	}
	CHECK_EQ(q[oldlen], 0);
	CHECK_EQ(q[newlen - 1], 0);
	q[newlen - 1] = 'T';
	CHECK_EQ(q[newlen - 1], 'T');
	{
		unsigned char v[4];

		/* the old range is unmapped after the move (mincore: ENOMEM on a hole) */
		CHECK_EQ(ERRNO_OF(mincore(p, oldlen, v)), ENOMEM);
	}
}

/* mremap shrink in place: the kept part keeps its data, the cut tail faults. */
static void t_mremap_shrink(void)
{
	char *p = map_rw(4 * PG), *q;

	p[0] = 's';
	p[3 * PG] = 't';
	q = mremap(p, 4 * PG, PG, 0);
	CHECK(q == p);
	CHECK_EQ(p[0], 's');
	catch_segv();
	CHECK(read_faults(p + 3 * PG));
	CHECK_EQ(fault_code, SEGV_MAPERR);
}

/*
 * mprotect PROT_READ, then a write: SIGSEGV with SEGV_ACCERR (the page is
 * mapped, the access is not allowed). Back to read-write: the write works
 * and the data from before is intact.
 */
static void t_mprotect_ro_then_rw(void)
{
	size_t len = 4 * PG;
	char *p = map_rw(len);

	for (size_t i = 0; i < len; i += PG)
		memset(p + i, 'r', PG);
	catch_segv();
	CHECK_EQ(mprotect(p, len, PROT_READ), 0);
	CHECK_EQ(p[2 * PG], 'r');               /* reads still work */
	CHECK(write_faults(p + 2 * PG + 3, 'w'));
	CHECK_EQ(fault_addr, (long)(p + 2 * PG + 3));
	CHECK_EQ(fault_code, SEGV_ACCERR);
	CHECK_EQ(mprotect(p, len, PROT_READ | PROT_WRITE), 0);
	CHECK(!write_faults(p + 2 * PG + 3, 'w'));
	CHECK_EQ(p[2 * PG + 3], 'w');
	for (size_t i = 0; i < len; i += 512)
		if (i != 2 * PG)
			CHECK_EQ(p[i], 'r');
	CHECK_EQ(p[2 * PG + 2], 'r');
	CHECK_EQ(p[2 * PG + 4], 'r');
}

/* PROT_NONE: even a read faults (SEGV_ACCERR); the data survives a round trip. */
static void t_mprotect_none(void)
{
	char *p = map_rw(PG);

	p[100] = 'n';
	catch_segv();
	CHECK_EQ(mprotect(p, PG, PROT_NONE), 0);
	CHECK(read_faults(p + 100));
	CHECK_EQ(fault_code, SEGV_ACCERR);
	CHECK_EQ(mprotect(p, PG, PROT_READ), 0);
	CHECK_EQ(p[100], 'n');
}

/*
 * mprotect over a hole: Linux changes the VMAs up to the hole, then
 * returns ENOMEM (mprotect_fixup ran on the first VMA already).
 *   |RW->R |hole|RW  |   the first page is read-only afterwards
 */
static void t_mprotect_hole_partial(void)
{
	char *p = map_rw(3 * PG);

	CHECK_EQ(munmap(p + PG, PG), 0);
	catch_segv();
	CHECK_EQ(ERRNO_OF(mprotect(p, 3 * PG, PROT_READ)), ENOMEM);
	CHECK(write_faults(p, 1));
	CHECK_EQ(fault_code, SEGV_ACCERR);
	CHECK(!write_faults(p + 2 * PG, 1));    /* after the hole: untouched */
}

/* =================== bad input =================== */

/*
 * mmap errors.
 *   len 0                        EINVAL  (do_mmap: !len)
 *   fixed addr not page-aligned  EINVAL  (__get_unmapped_area: offset_in_page(addr))
 *   neither PRIVATE nor SHARED   EINVAL  (do_mmap: switch on MAP_TYPE, default)
 *   FIXED_NOREPLACE on a mapping EEXIST  (do_mmap: find_vma_intersection)
 *   fixed, crossing USER_TOP     ENOMEM  (__get_unmapped_area: addr > TASK_SIZE - len)
 *   len > TASK_SIZE              ENOMEM  (__get_unmapped_area: len > TASK_SIZE)
 *   len that wraps when aligned  ENOMEM  (do_mmap: PAGE_ALIGN(len) == 0)
 *   fixed kernel-half address    ENOMEM  (__get_unmapped_area: addr > TASK_SIZE - len)
 */
static void t_mmap_bad(void)
{
	int rw = PROT_READ | PROT_WRITE, anon = MAP_PRIVATE | MAP_ANONYMOUS;
	char *p = map_rw(2 * PG);

	CHECK_EQ(MMAP_ERRNO(0, 0, rw, anon), EINVAL);
	CHECK_EQ(MMAP_ERRNO(p + 1, PG, rw, anon | MAP_FIXED), EINVAL);
	CHECK_EQ(MMAP_ERRNO(0, PG, rw, MAP_ANONYMOUS), EINVAL);
	CHECK_EQ(MMAP_ERRNO(p + PG, PG, rw, anon | MAP_FIXED_NOREPLACE), EEXIST);
	/* overlapping only the last page of the existing mapping is enough */
	CHECK_EQ(MMAP_ERRNO(p + PG, 4 * PG, rw, anon | MAP_FIXED_NOREPLACE), EEXIST);
	CHECK_EQ(MMAP_ERRNO(USER_TOP - PG, 2 * PG, rw, anon | MAP_FIXED), ENOMEM);
	CHECK_EQ(MMAP_ERRNO(USER_TOP, PG, rw, anon | MAP_FIXED), ENOMEM);
	CHECK_EQ(MMAP_ERRNO(0, 1UL << 62, rw, anon), ENOMEM);
	CHECK_EQ(MMAP_ERRNO(0, USER_TOP + PG, rw, anon), ENOMEM);
	CHECK_EQ(MMAP_ERRNO(0, ~0UL - 5, rw, anon), ENOMEM);
	CHECK_EQ(MMAP_ERRNO(KERNEL_ADDR, PG, rw, anon | MAP_FIXED), ENOMEM);
	/* the last page below USER_TOP is inside user space: mapped, or EEXIST if taken, never ENOMEM */
	{
		void *top = mmap((void *)(USER_TOP - PG), PG, rw, anon | MAP_FIXED_NOREPLACE, -1, 0);

		CHECK(top == (void *)(USER_TOP - PG) || (top == MAP_FAILED && errno == EEXIST));
	}
	/* the failed calls changed nothing: p is still mapped and writable */
	p[0] = p[PG] = 1;
	CHECK_EQ(resident(p, 2 * PG), 2);
}

/*
 * munmap errors (__do_munmap / do_vmi_munmap):
 *   start not page-aligned         EINVAL  (offset_in_page(start))
 *   len 0                          EINVAL  (PAGE_ALIGN(len) == 0)
 *   start + len past TASK_SIZE     EINVAL  (len > TASK_SIZE - start)
 *   start + len wraps around       EINVAL  (same check; PAGE_ALIGN(len) wrapping to 0 too)
 * while a range with nothing mapped in it is fine (returns 0).
 */
static void t_munmap_bad(void)
{
	char *p = map_rw(2 * PG);

	CHECK_EQ(ERRNO_OF(munmap(p + 1, PG)), EINVAL);
	CHECK_EQ(ERRNO_OF(munmap(p, 0)), EINVAL);
	CHECK_EQ(ERRNO_OF(munmap(p, ~0UL - PG + 1)), EINVAL);  /* p + len wraps */
	CHECK_EQ(ERRNO_OF(munmap(p, ~0UL)), EINVAL);           /* PAGE_ALIGN wraps to 0 */
	CHECK_EQ(ERRNO_OF(munmap((void *)(USER_TOP - PG), 2 * PG)), EINVAL);
	CHECK_EQ(ERRNO_OF(munmap((void *)KERNEL_ADDR, PG)), EINVAL);
	/* unmapping a hole is not an error */
	CHECK_EQ(munmap(p, 2 * PG), 0);
	CHECK_EQ(munmap(p, 2 * PG), 0);
}

/*
 * mprotect errors (do_mprotect_pkey):
 *   start not page-aligned  EINVAL  (start & ~PAGE_MASK)
 *   len 0                   0       (!len: nothing to do, even unmapped)
 *   start + len wraps       ENOMEM  (end <= start)
 *   unknown prot bits       EINVAL  (arch_validate_prot: only READ|WRITE|EXEC|SEM)
 *   GROWSDOWN|GROWSUP       EINVAL  (both at once)
 *   a hole in the range     ENOMEM  (the VMA walk finds a gap)
 *   nothing mapped at start ENOMEM  (no VMA at start)
 */
static void t_mprotect_bad(void)
{
	char *p = map_rw(3 * PG);

	CHECK_EQ(ERRNO_OF(mprotect(p + 1, PG, PROT_READ)), EINVAL);
	CHECK_EQ(mprotect(p, 0, PROT_READ), 0);
	CHECK_EQ(ERRNO_OF(mprotect(p, ~0UL - PG + 1, PROT_READ)), ENOMEM);
	CHECK_EQ(ERRNO_OF(mprotect(p, PG, 0x40)), EINVAL);
	CHECK_EQ(ERRNO_OF(mprotect(p, PG, PROT_READ | 0x01000000 | 0x02000000)), EINVAL);
	CHECK_EQ(munmap(p + PG, PG), 0);
	CHECK_EQ(ERRNO_OF(mprotect(p, 3 * PG, PROT_READ | PROT_WRITE)), ENOMEM);
	CHECK_EQ(ERRNO_OF(mprotect(p + PG, PG, PROT_READ)), ENOMEM);
	CHECK_EQ(ERRNO_OF(mprotect((void *)KERNEL_ADDR, PG, PROT_READ)), ENOMEM);
}

/*
 * madvise errors (do_madvise):
 *   unknown advice       EINVAL  (madvise_behavior_valid)
 *   start not aligned    EINVAL  (PAGE_ALIGN(start) != start)
 *   start + len wraps    EINVAL  (end < start)
 *   len 0                0       (end == start)
 *   a hole in the range  ENOMEM  (madvise_walk_vmas: unmapped_error), the
 *                                 advice still applied to the mapped parts
 *   nothing mapped       ENOMEM
 */
static void t_madvise_bad(void)
{
	char *p = map_rw(3 * PG);

	CHECK_EQ(ERRNO_OF(madvise(p, PG, 999)), EINVAL);
	CHECK_EQ(ERRNO_OF(madvise(p, PG, 5)), EINVAL);          /* 5..7 are unassigned */
	CHECK_EQ(ERRNO_OF(madvise(p + 1, PG, MADV_NORMAL)), EINVAL);
	CHECK_EQ(ERRNO_OF(madvise(p, ~0UL - PG + 1, MADV_NORMAL)), EINVAL);
	CHECK_EQ(madvise(p, 0, MADV_DONTNEED), 0);
	p[0] = 'a';
	p[2 * PG] = 'c';
	CHECK_EQ(munmap(p + PG, PG), 0);
	CHECK_EQ(ERRNO_OF(madvise(p, 3 * PG, MADV_NORMAL)), ENOMEM);
	/* DONTNEED over the hole: ENOMEM, yet both mapped pages were zapped */
	CHECK_EQ(ERRNO_OF(madvise(p, 3 * PG, MADV_DONTNEED)), ENOMEM);
	CHECK_EQ(p[0], 0);
	CHECK_EQ(p[2 * PG], 0);
	CHECK_EQ(ERRNO_OF(madvise(p + PG, PG, MADV_WILLNEED)), ENOMEM);
}

/* Does a line of /proc/self/maps end with name? */
static bool maps_name_present(const char *name)
{
	static char buf[65536];
	size_t nl = strlen(name);
	long total = ut_read_file("/proc/self/maps", buf, sizeof(buf));

	CHECK(total >= 0);
	for (long i = 0; i + (long)nl <= total; i++)
		if (memcmp(buf + i, name, nl) == 0 && (i + (long)nl == total || buf[i + nl] == '\n'))
			return true;
	return false;
}

/*
 * madvise(0, -4096, advice): a length that does not wrap from address 0
 * (its end is the top of memory), so madvise_walk_vmas applies the
 * advice to every VMA of the program, skipping the holes (the first one
 * at 0 makes the result ENOMEM), unless a VMA refuses it first. Run in a
 * child, for the advices that leave the program's data as it was; the
 * child checks its data after each and must exit normally (the leak
 * check after the tests then finds every frame back). The errnos, as
 * the host's Linux 6.18 returns them: ENOMEM (the hole at 0) for most;
 * EINVAL where a VMA refuses: the program's own file VMA for
 * MADV_WIPEONFORK and MADV_FREE (anonymous memory only); and Linux's
 * [vvar] (VM_IO | VM_PFNMAP | VM_DONTEXPAND) for MADV_DOFORK (VM_IO),
 * MADV_DODUMP (VM_SPECIAL), MADV_COLD and MADV_PAGEOUT (can_madv_lru_vma:
 * no VM_PFNMAP) and MADV_GUARD_REMOVE (VM_SPECIAL). This kernel maps no
 * [vvar] (docs/abi.md), so there those five end in ENOMEM.
 */
static void t_madvise_all_memory(void)
{
	enum { NOMEM, FILE_REFUSES, VVAR_REFUSES };
	static const int advices[][2] = {
		{ MADV_NORMAL, NOMEM }, { MADV_RANDOM, NOMEM }, { MADV_SEQUENTIAL, NOMEM },
		{ MADV_WILLNEED, NOMEM }, { MADV_DONTFORK, NOMEM }, { MADV_DOFORK, VVAR_REFUSES },
		{ MADV_UNMERGEABLE, NOMEM }, { MADV_NOHUGEPAGE, NOMEM }, { MADV_HUGEPAGE, NOMEM },
		{ MADV_DONTDUMP, NOMEM }, { MADV_DODUMP, VVAR_REFUSES }, { MADV_WIPEONFORK, FILE_REFUSES },
		{ MADV_KEEPONFORK, NOMEM }, { MADV_COLD, VVAR_REFUSES }, { MADV_PAGEOUT, VVAR_REFUSES },
		{ MADV_FREE, FILE_REFUSES }, { MADV_GUARD_REMOVE, VVAR_REFUSES },
	};
	bool vvar = maps_name_present("[vvar]");
	char *p = map_rw(16 * PG);
	char *s = map(16 * PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	int pid, st;

	for (unsigned long i = 0; i < 16; i++)
		p[i * PG] = s[i * PG] = (char)('a' + i);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		for (unsigned i = 0; i < sizeof(advices) / sizeof(advices[0]); i++) {
			long r = madvise(0, -PG, advices[i][0]);
			int want = advices[i][1] == FILE_REFUSES || (advices[i][1] == VVAR_REFUSES && vvar) ? EINVAL
												   : ENOMEM;

			printf("    madvise(0, -4096, %d): %ld, errno %d\n", advices[i][0], r, r ? errno : 0);
			if (r != -1 || errno != want)
				_exit(40 + (int)i);
			for (unsigned long j = 0; j < 16; j++)
				if (p[j * PG] != (char)('a' + j) || s[j * PG] != (char)('a' + j))
					_exit(10 + (int)i);
		}
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
}

/*
 * mincore errors (sys_mincore):
 *   start not page-aligned    EINVAL  (start & ~PAGE_MASK)
 *   start beyond user space   ENOMEM  (!access_ok(start, len))
 *   nothing mapped / a hole   ENOMEM  (do_mincore: no VMA at the address)
 *   vec unmapped              EFAULT  (copy_to_user fails)
 *   vec in the kernel half    EFAULT  (!access_ok(vec, pages))
 *   len 0                     0
 */
static void t_mincore_bad(void)
{
	unsigned char v[4];
	char *p = map_rw(3 * PG);
	char *hole = map_rw(PG);

	CHECK_EQ(munmap(hole, PG), 0);
	CHECK_EQ(ERRNO_OF(mincore(p + 1, PG, v)), EINVAL);
	CHECK_EQ(ERRNO_OF(mincore(hole, PG, v)), ENOMEM);
	CHECK_EQ(ERRNO_OF(mincore((void *)KERNEL_ADDR, PG, v)), ENOMEM);
	CHECK_EQ(ERRNO_OF(mincore(p, PG, (unsigned char *)hole)), EFAULT);
	CHECK_EQ(ERRNO_OF(mincore(p, PG, (unsigned char *)KERNEL_ADDR)), EFAULT);
	CHECK_EQ(mincore(p, 0, v), 0);
	CHECK_EQ(munmap(p + PG, PG), 0);
	CHECK_EQ(ERRNO_OF(mincore(p, 3 * PG, v)), ENOMEM);
}

/*
 * mremap errors (do_mremap / mremap_to):
 *   unknown flag bits               EINVAL  (flags & ~(MAYMOVE|FIXED|DONTUNMAP))
 *   FIXED without MAYMOVE           EINVAL
 *   addr not page-aligned           EINVAL  (offset_in_page(addr))
 *   new_len 0                       EINVAL  (PAGE_ALIGN(new_len) == 0)
 *   old range not mapped            EFAULT  (vma_lookup(addr) finds nothing)
 *   old range spans two VMAs        EFAULT  (old_len > vma->vm_end - addr)
 *   grow in place, no MAYMOVE, blocked  ENOMEM
 *   FIXED, new range overlaps old   EINVAL
 */
static void t_mremap_bad(void)
{
	/* |p: rw|rw|ro| : the read-only page is a separate VMA right after p's two pages */
	char *p = map_rw(3 * PG);
	char *hole = map_rw(PG);
	void *r;

	CHECK_EQ(mprotect(p + 2 * PG, PG, PROT_READ), 0);
	CHECK_EQ(munmap(hole, PG), 0);
	CHECK(mremap(p, PG, 2 * PG, 0x80) == MAP_FAILED);
	CHECK_EQ(errno, EINVAL);
	CHECK(mremap(p, PG, PG, MREMAP_FIXED, hole) == MAP_FAILED);
	CHECK_EQ(errno, EINVAL);
	CHECK(mremap(p + 1, PG, 2 * PG, MREMAP_MAYMOVE) == MAP_FAILED);
	CHECK_EQ(errno, EINVAL);
	CHECK(mremap(p, PG, 0, MREMAP_MAYMOVE) == MAP_FAILED);
	CHECK_EQ(errno, EINVAL);
	CHECK(mremap(hole, PG, 2 * PG, MREMAP_MAYMOVE) == MAP_FAILED);
	CHECK_EQ(errno, EFAULT);
	CHECK(mremap(p, 3 * PG, 4 * PG, MREMAP_MAYMOVE) == MAP_FAILED);
	CHECK_EQ(errno, EFAULT);
	CHECK(mremap(p, 2 * PG, 3 * PG, 0) == MAP_FAILED);
	CHECK_EQ(errno, ENOMEM);
	CHECK(mremap(p, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, p) == MAP_FAILED);
	CHECK_EQ(errno, EINVAL);
	/* the failures left p as it was: a good call still works */
	p[0] = 'g';
	r = mremap(p, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	CHECK(r == hole);
	CHECK_EQ(((char *)r)[0], 'g');
}

/*
 * brk below the initial break is refused: Linux returns the current break
 * unchanged (sys_brk: brk < min_brk -> out, which returns mm->brk). Our
 * libc never calls brk, so the current break is the initial one. The values
 * asked for are below the end of the program text, so they are refused
 * whether min_brk is start_brk (randomized brk) or end_code (COMPAT_BRK).
 */
static void t_brk_bad(void)
{
	long cur = sys_brk(0);

	CHECK(cur > 0);
	CHECK_EQ(sys_brk(0x1000), cur);
	CHECK_EQ(sys_brk((unsigned long)&t_brk_bad), cur);      /* inside the program text */
	CHECK_EQ(sys_brk(0), cur);
	/* a real grow and shrink still work afterwards; the grown page reads zero */
	CHECK_EQ(sys_brk(cur + 2 * PG), cur + 2 * PG);
	CHECK_EQ(((char *)cur)[PG], 0);
	((char *)cur)[PG] = 'h';
	CHECK_EQ(sys_brk(cur), cur);
	CHECK_EQ(sys_brk(cur + 2 * PG), cur + 2 * PG);
	CHECK_EQ(((char *)cur)[PG], 0);         /* the shrink unmapped it: fresh zero page */
}

/*
 * Page tables go when Linux lets them go (VmPTE of /proc/self/status, kB
 * of page-table pages): an unmap frees a page table only when its whole
 * 2 MiB lies between the VMAs that stay (free_pgtables: one a neighbour
 * shares stays, even empty); MADV_DONTNEED frees the page tables whose
 * whole 2 MiB it covers (PT_RECLAIM, Linux 6.14 and later; 6.1 keeps
 * them), and MAP_FIXED over a mapping frees its tables as an unmap.
 * Eight MiB on 2 MiB boundaries inside a larger mapping, blocks B(0) to
 * B(3), one page written in each (B(1)'s in its middle): each step's
 * change is one page table of 4 kB or none (the tables above stay: the
 * mapping's ends are still there).
 */
static void t_pgtables_freed_like_linux(void)
{
	const size_t two = 2UL << 20;
	char *m = mmap(NULL, 6 * two, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a = (char *)(((uintptr_t)m + two - 1) & ~(two - 1));
	long v;

#define B(k) (a + (size_t)(k) * two)
	CHECK(m != MAP_FAILED);
	CHECK_EQ(madvise(m, 6 * two, MADV_NOHUGEPAGE), 0);     /* 4 KiB pages, in page tables */
	for (int k = 0; k < 4; k++)
		B(k)[k == 1 ? 0x100000 : 0] = 1;
	v = status_kb("VmPTE");
	CHECK(v >= 16);
	/* A hole in B(1) around its page: the table is empty, but both sides of it stay mapped. */
	CHECK_EQ(munmap(B(1) + 0xc0000, 0x80000), 0);
	CHECK_EQ(status_kb("VmPTE"), v);
	/* DONTNEED of all of B(2) frees its table; of B(3) but its last page, keeps it. */
	CHECK_EQ(madvise(B(2), two, MADV_DONTNEED), 0);
	CHECK_EQ(status_kb("VmPTE"), v - 4);
	CHECK_EQ(madvise(B(3), two - PG, MADV_DONTNEED), 0);
	CHECK_EQ(status_kb("VmPTE"), v - 4);
	/* B(1)'s lower piece goes: its upper piece still shares the table. */
	CHECK_EQ(munmap(B(1), 0xc0000), 0);
	CHECK_EQ(status_kb("VmPTE"), v - 4);
	/* The upper piece goes: B(1) lies between the VMAs below and above now: freed. */
	CHECK_EQ(munmap(B(1) + 0x140000, 0xc0000), 0);
	CHECK_EQ(status_kb("VmPTE"), v - 8);
	/* MAP_FIXED over B(3) (the mapping goes on above it): its table goes. */
	CHECK(mmap(B(3), two, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == B(3));
	CHECK_EQ(status_kb("VmPTE"), v - 12);
#undef B
	CHECK_EQ(munmap(m, 6 * two), 0);
}

/*
 * vmk_vmdump, this kernel's debugging dump: 0 for the caller and for its
 * parent, -EINVAL for an empty or unknown request, -ESRCH for a pid that
 * does not exist. Linux has no such call: -ENOSYS for every request.
 */
static void t_vmdump(void)
{
	if (!on_vmkernel()) {
		CHECK_EQ(sys_vmk_vmdump(0, VMDUMP_VMAS), -ENOSYS);
		return;
	}
	CHECK_EQ(sys_vmk_vmdump(0, VMDUMP_VMAS), 0);
	CHECK_EQ(sys_vmk_vmdump((int)usys0(__NR_getppid), VMDUMP_VMAS), 0);
	CHECK_EQ(sys_vmk_vmdump(0, 0), -EINVAL);
	CHECK_EQ(sys_vmk_vmdump(0, 4), -EINVAL);
	CHECK_EQ(sys_vmk_vmdump(99999, VMDUMP_VMAS), -ESRCH);
}

const struct utest ut_vm_tests[] = {
	{ "vm_dontneed_zero_fill", t_dontneed_zero_fill },
	{ "vm_dontneed_partial", t_dontneed_partial },
	{ "vm_pgtables_freed_like_linux", t_pgtables_freed_like_linux },
	{ "vm_free_keeps_data", t_free_keeps_data },
	{ "vm_free_untouched", t_free_untouched },
	{ "vm_pageout_lazyfree", t_pageout_lazyfree },
	{ "vm_guard_segv", t_guard_segv },
	{ "vm_guard_fork", t_guard_fork },
	{ "vm_guard_syscall", t_guard_syscall },
	{ "vm_guard_locked", t_guard_locked },
	{ "vm_shared_anon_fork", t_shared_anon_fork },
	{ "vm_shared_anon_child_first_touch", t_shared_anon_child_first_touch },
	{ "vm_private_anon_fork", t_private_anon_fork },
	{ "vm_populate_resident", t_populate_resident },
	{ "vm_munmap_then_fault", t_munmap_then_fault },
	{ "vm_munmap_middle", t_munmap_middle },
	{ "vm_mremap_moves_data", t_mremap_moves_data },
	{ "vm_mremap_shrink", t_mremap_shrink },
	{ "vm_mprotect_ro_then_rw", t_mprotect_ro_then_rw },
	{ "vm_mprotect_none", t_mprotect_none },
	{ "vm_mprotect_hole_partial", t_mprotect_hole_partial },
	{ "vm_mmap_bad", t_mmap_bad },
	{ "vm_munmap_bad", t_munmap_bad },
	{ "vm_mprotect_bad", t_mprotect_bad },
	{ "vm_madvise_bad", t_madvise_bad },
	{ "vm_madvise_all_memory", t_madvise_all_memory },
	{ "vm_mincore_bad", t_mincore_bad },
	{ "vm_mremap_bad", t_mremap_bad },
	{ "vm_brk_bad", t_brk_bad },
	{ "vm_vmdump", t_vmdump },
	{ NULL, NULL },
};
