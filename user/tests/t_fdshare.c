/*
 * Threads sharing one fd table (CLONE_FILES, as every pthread): one thread
 * closes, replaces and reopens fds while others use them (read, pread,
 * fstat, lseek, mmap) or open fds of their own. What Linux guarantees and
 * these tests check: a call on an fd another thread closes meanwhile
 * either works on the file the fd held when the call looked it up or fails
 * with EBADF, never anything else; two opens at once never return the same
 * fd. On a kernel whose lookups take no reference (the bug these tests were
 * written for) the file is freed under the user: the sanitizer build
 * (make kasan) reports the use after free, a plain build may crash or
 * return garbage. The closed files must all be freed in the end, which the
 * test program's leak check after the tests sees. Nothing depends on
 * timing: the users run until the closer has done its fixed rounds.
 */
#include "utests.h"
#include "uthread.h"

#define EBADF_ 9
#define SLOT 100                /* the fd the closer keeps closing and reopening */
#define ROUNDS 2000
#define USERS 2
#define OPENERS 2
#define OPENS 150               /* per opener: the table grows past its first 64 slots meanwhile */

static volatile int stop;
static volatile long odd_results;       /* results other than success or EBADF */

/* One use of SLOT: each call either works on a memfd of 4096 zero bytes or finds SLOT closed. */
static void use_slot(int round)
{
	char b[8] = { 1 };
	struct kstat_u st;
	long r;

	switch (round % 4) {
	case 0:
		r = usys3(__NR_read, SLOT, (long)b, 1);
		break;
	case 1:
		r = usys4(__NR_pread64, SLOT, (long)b, sizeof(b), 8);
		r = r == sizeof(b) && b[0] ? -1 : r;    /* the bytes read are the file's zeros */
		break;
	case 2:
		r = usys2(__NR_fstat, SLOT, (long)&st);
		r = !r && st.size != 4096 ? -1 : r;
		break;
	default: {
		void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, SLOT, 0);

		if (p == MAP_FAILED)
			r = -errno;
		else
			r = *(volatile char *)p == 0 && munmap(p, 4096) == 0 ? 0 : -1;
	}
	}
	if (r < 0 && r != -EBADF_)
		__atomic_add_fetch(&odd_results, 1, __ATOMIC_RELAXED);
}

static int slot_user(void *arg)
{
	(void)arg;
	for (int round = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); round++)
		use_slot(round);
	return 0;
}

/*
 * A memfd of 4096 zero bytes at SLOT, its only fd, in one of the ways an fd
 * gets a file: into a closed SLOT by F_DUPFD (the lowest free fd >= SLOT)
 * or dup2, over an open one by dup2 or dup3 (which close what it held).
 */
static void fill_slot(int round, bool closed)
{
	int m = (int)usys2(__NR_memfd_create, (long)"fdshare", 0);

	CHECK(m >= 0 && m != SLOT);
	CHECK_EQ(usys2(__NR_ftruncate, m, 4096), 0);
	if (closed && round % 4 < 2)
		CHECK_EQ(fcntl(m, F_DUPFD, SLOT), SLOT);
	else if (!closed && round % 4 < 2)
		CHECK_EQ(usys3(__NR_dup3, m, SLOT, O_CLOEXEC), SLOT);
	else
		CHECK_EQ(dup2(m, SLOT), SLOT);
	CHECK_EQ(close(m), 0);
}

/* Close SLOT while other threads use it: their calls work or fail with EBADF; every file is freed. */
static void t_fdshare_close_while_used(void)
{
	struct thread users[USERS];

	stop = 0;
	odd_results = 0;
	fill_slot(0, true);
	for (int i = 0; i < USERS; i++) {
		users[i] = (struct thread){ .fn = slot_user };
		CHECK(thread_start(&users[i]) > 0);
	}
	for (int round = 1; round <= ROUNDS; round++) {
		bool closed = round % 2;

		if (closed)
			CHECK_EQ(close(SLOT), 0);       /* the users see it closed for a while */
		fill_slot(round, closed);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < USERS; i++)
		thread_join(&users[i]);
	CHECK_EQ(close(SLOT), 0);
	CHECK_EQ(odd_results, 0);
}

static int opened[OPENERS][OPENS];

/* Open OPENS fds of ut_argv0 (stopping at the first failure: a -1 entry). */
static int opener(void *arg)
{
	int *fds = arg;

	for (int i = 0; i < OPENS; i++)
		fds[i] = open(ut_argv0, O_RDONLY);
	return 0;
}

/* Opens in two threads at once: every one succeeds, and no fd is handed out twice. */
static void t_fdshare_concurrent_opens(void)
{
	static char seen[2 * OPENERS * OPENS + 64];
	struct thread t[OPENERS];

	for (int i = 0; i < OPENERS; i++) {
		t[i] = (struct thread){ .fn = opener, .arg = opened[i] };
		CHECK(thread_start(&t[i]) > 0);
	}
	for (int i = 0; i < OPENERS; i++)
		thread_join(&t[i]);
	for (int i = 0; i < OPENERS; i++)
		for (int k = 0; k < OPENS; k++) {
			int fd = opened[i][k];

			CHECK(fd > 2 && fd < (int)sizeof(seen));   /* the lowest free fds: none beyond */
			CHECK_EQ(seen[fd], 0);
			seen[fd] = 1;
		}
	for (int i = 0; i < OPENERS; i++)
		for (int k = 0; k < OPENS; k++)
			CHECK_EQ(close(opened[i][k]), 0);
}

const struct utest ut_fdshare_tests[] = {
	{ "fdshare_close_while_used", t_fdshare_close_while_used },
	{ "fdshare_concurrent_opens", t_fdshare_concurrent_opens },
	{ NULL, NULL },
};
