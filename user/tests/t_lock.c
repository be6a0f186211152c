/*
 * File locks, the same on the host Linux and on our kernel (fcntl(2),
 * flock(2)): POSIX record locks are per process (a forked child is another
 * owner; any close of the file drops the process's locks), split and merge
 * with the owner's own ranges, refuse with EAGAIN, and find a deadlock
 * between two processes (EDEADLK); open-file-description locks belong to
 * the open file; flock locks are whole-file, per open file, apart from
 * the record locks. The file lives under /dev/shm (tmpfs on Linux). No
 * check depends on timing: where two processes race, each order has the
 * outcome the check accepts.
 */
#include "utests.h"

#define EDEADLK_U    35

struct uflock {
	int16_t type, whence;
	int64_t start, len;
	int32_t pid;
};

static char lpath[64];

static int open_file(int flags)
{
	int fd = (int)usys3(__NR_open, (long)lpath, flags | O_CREAT, 0644);

	CHECK(fd >= 0);
	return fd;
}

static void setup(void)
{
	snprintf(lpath, sizeof(lpath), "/dev/shm/vmk-lk-%d", getpid());
	close(open_file(O_RDWR | O_TRUNC));
}

static long lk(int fd, int cmd, int type, long start, long len)
{
	struct uflock fl = { (int16_t)type, SEEK_SET, start, len, 0 };

	return usys3(__NR_fcntl, fd, cmd, (long)&fl);
}

/* F_GETLK for [start, start + len): the conflicting lock found, or l_type F_UNLCK. */
static struct uflock getlk(int fd, int cmd, int type, long start, long len)
{
	struct uflock fl = { (int16_t)type, SEEK_SET, start, len, 0 };

	CHECK_EQ(usys3(__NR_fcntl, fd, cmd, (long)&fl), 0);
	return fl;
}

/* Run fn(fd) in a forked child with its own fd of the file; its exit status. */
static int in_child(int (*fn)(int fd))
{
	int pid = fork(), st;

	CHECK(pid >= 0);
	if (pid == 0)
		_exit(fn(open_file(O_RDWR)));
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static int parent_pid;

/* Seen from another process: the parent's write lock on [0, 10) conflicts, [10, 15) is free. */
static int child_sees_lock(int fd)
{
	struct uflock fl = getlk(fd, F_GETLK, F_RDLCK, 5, 1);

	if (fl.type != F_WRLCK || fl.start != 0 || fl.len != 10 || fl.pid != parent_pid || fl.whence != SEEK_SET)
		return 1;
	if (lk(fd, F_SETLK, F_WRLCK, 0, 1) != -EAGAIN)
		return 2;
	if (lk(fd, F_SETLK, F_RDLCK, 10, 5) != 0)
		return 3;
	return getlk(fd, F_GETLK, F_WRLCK, 10, 0).type == F_UNLCK ? 0 : 4;
}

static void t_lock_posix_basic(void)
{
	int fd, rd;

	setup();
	parent_pid = getpid();
	fd = open_file(O_RDWR);
	CHECK_EQ(lk(fd, F_SETLK, F_WRLCK, 0, 10), 0);
	/* our own locks never conflict with us */
	CHECK_EQ(getlk(fd, F_GETLK, F_WRLCK, 0, 0).type, F_UNLCK);
	CHECK_EQ(in_child(child_sees_lock), 0);
	/* errors: bad type, bad whence, negative start, the lock against the access mode */
	CHECK_EQ(lk(fd, F_SETLK, 7, 0, 1), -EINVAL);
	CHECK_EQ(lk(fd, F_GETLK, F_UNLCK, 0, 1), -EINVAL);
	CHECK_EQ(lk(fd, F_SETLK, F_WRLCK, -5, 1), -EINVAL);
	{
		struct uflock fl = { F_WRLCK, 5, 0, 1, 0 };

		CHECK_EQ(usys3(__NR_fcntl, fd, F_SETLK, (long)&fl), -EINVAL);
	}
	rd = open_file(O_RDONLY);
	CHECK_EQ(lk(rd, F_SETLK, F_WRLCK, 20, 1), -EBADF);
	CHECK_EQ(lk(rd, F_SETLK, F_RDLCK, 20, 1), 0);
	close(rd);
	close(fd);
	usys1(__NR_unlink, (long)lpath);
}

/* The parent holds a write lock on [0, 100) less [40, 60): two ranges now. */
static int child_sees_split(int fd)
{
	struct uflock a = getlk(fd, F_GETLK, F_WRLCK, 30, 20), b = getlk(fd, F_GETLK, F_WRLCK, 55, 10);

	if (getlk(fd, F_GETLK, F_WRLCK, 40, 20).type != F_UNLCK)
		return 1;
	if (a.type != F_WRLCK || a.start != 0 || a.len != 40)
		return 2;
	return b.type == F_WRLCK && b.start == 60 && b.len == 40 ? 0 : 3;
}

/* The parent holds read locks [0, 10) and [10, 20), merged into one: [0, 20). */
static int child_sees_merge(int fd)
{
	struct uflock a = getlk(fd, F_GETLK, F_WRLCK, 0, 0);

	return a.type == F_RDLCK && a.start == 0 && a.len == 20 ? 0 : 1;
}

/* The parent holds nothing on the file now. */
static int child_sees_nothing(int fd)
{
	return getlk(fd, F_GETLK, F_WRLCK, 0, 0).type == F_UNLCK ? 0 : 1;
}

static void t_lock_posix_split_merge_close(void)
{
	int fd, fd2;

	setup();
	fd = open_file(O_RDWR);
	CHECK_EQ(lk(fd, F_SETLK, F_WRLCK, 0, 100), 0);
	CHECK_EQ(lk(fd, F_SETLK, F_UNLCK, 40, 20), 0);
	CHECK_EQ(in_child(child_sees_split), 0);
	CHECK_EQ(lk(fd, F_SETLK, F_UNLCK, 0, 0), 0);
	CHECK_EQ(in_child(child_sees_nothing), 0);
	CHECK_EQ(lk(fd, F_SETLK, F_RDLCK, 0, 10), 0);
	CHECK_EQ(lk(fd, F_SETLK, F_RDLCK, 10, 10), 0);
	CHECK_EQ(in_child(child_sees_merge), 0);
	/* closing another fd of the same file drops the process's locks */
	fd2 = open_file(O_RDONLY);
	close(fd2);
	CHECK_EQ(in_child(child_sees_nothing), 0);
	close(fd);
	usys1(__NR_unlink, (long)lpath);
}

/*
 * Two processes each hold a byte and wait (F_SETLKW) for the other's: the
 * second to wait closes the cycle and gets EDEADLK, whichever it is; it
 * then lets go (the parent closes its fd, the child exits) and the other
 * one gets its lock.
 */
static void t_lock_posix_deadlock(void)
{
	int fd, p[2], pid, st;
	long r;
	char c;

	setup();
	fd = open_file(O_RDWR);
	CHECK_EQ(lk(fd, F_SETLK, F_WRLCK, 0, 1), 0);
	CHECK_EQ(pipe(p), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int cfd = open_file(O_RDWR);

		if (lk(cfd, F_SETLK, F_WRLCK, 1, 1))
			_exit(10);
		write(p[1], "x", 1);
		r = lk(cfd, F_SETLKW, F_WRLCK, 0, 1);
		_exit(r == 0 ? 0 : r == -EDEADLK_U ? 2 : 11);
	}
	CHECK_EQ(read(p[0], &c, 1), 1);
	r = lk(fd, F_SETLKW, F_WRLCK, 1, 1);
	if (r == -EDEADLK_U)
		close(fd);                      /* lets the child have byte 0 */
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	if (r == -EDEADLK_U) {
		CHECK_EQ(WEXITSTATUS(st), 0);
	} else {
		CHECK_EQ(r, 0);                 /* the child got EDEADLK and exited */
		CHECK_EQ(WEXITSTATUS(st), 2);
		close(fd);
	}
	close(p[0]);
	close(p[1]);
	usys1(__NR_unlink, (long)lpath);
}

/* Open-file-description locks: two opens in one process conflict; l_pid -1; l_pid must be 0 to set. */
static void t_lock_ofd(void)
{
	struct uflock fl = { F_WRLCK, SEEK_SET, 0, 1, 5 };
	int a, b;

	setup();
	a = open_file(O_RDWR);
	b = open_file(O_RDWR);
	CHECK_EQ(lk(a, F_OFD_SETLK, F_WRLCK, 0, 10), 0);
	CHECK_EQ(lk(b, F_OFD_SETLK, F_WRLCK, 5, 1), -EAGAIN);
	fl = getlk(b, F_OFD_GETLK, F_RDLCK, 0, 1);
	CHECK_EQ(fl.type, F_WRLCK);
	CHECK_EQ(fl.pid, -1);
	/* a POSIX lock of this process conflicts with the OFD lock too */
	CHECK_EQ(lk(b, F_SETLK, F_RDLCK, 0, 1), -EAGAIN);
	fl = (struct uflock){ F_WRLCK, SEEK_SET, 20, 1, 5 };
	CHECK_EQ(usys3(__NR_fcntl, b, F_OFD_SETLK, (long)&fl), -EINVAL);
	close(a);                               /* its last reference: the lock goes */
	CHECK_EQ(lk(b, F_OFD_SETLK, F_WRLCK, 5, 1), 0);
	close(b);
	usys1(__NR_unlink, (long)lpath);
}

/* flock: per open file; dup shares it; conversion; EWOULDBLOCK with LOCK_NB; apart from fcntl locks. */
static void t_lock_flock(void)
{
	int a, b, d;

	setup();
	a = open_file(O_RDONLY);
	b = open_file(O_RDONLY);
	CHECK_EQ(usys2(__NR_flock, a, LOCK_EX), 0);
	CHECK_EQ(usys2(__NR_flock, b, LOCK_EX | LOCK_NB), -EAGAIN);
	CHECK_EQ(usys2(__NR_flock, b, LOCK_SH | LOCK_NB), -EAGAIN);
	CHECK_EQ(usys2(__NR_flock, a, LOCK_SH), 0);             /* converted */
	CHECK_EQ(usys2(__NR_flock, b, LOCK_SH | LOCK_NB), 0);
	CHECK_EQ(usys2(__NR_flock, a, LOCK_EX | LOCK_NB), -EAGAIN);
	CHECK_EQ(usys2(__NR_flock, b, LOCK_UN), 0);
	CHECK_EQ(usys2(__NR_flock, a, LOCK_EX | LOCK_NB), 0);
	/* a dup shares the open file: closing it keeps the lock */
	d = dup(a);
	close(d);
	CHECK_EQ(usys2(__NR_flock, b, LOCK_SH | LOCK_NB), -EAGAIN);
	/* record locks are another world */
	CHECK_EQ(lk(b, F_SETLK, F_RDLCK, 0, 0), 0);
	close(a);
	CHECK_EQ(usys2(__NR_flock, b, LOCK_EX | LOCK_NB), 0);
	CHECK_EQ(usys2(__NR_flock, b, 0), -EINVAL);
	CHECK_EQ(usys2(__NR_flock, b, LOCK_SH | LOCK_EX), -EINVAL);
	close(b);
	CHECK_EQ(usys2(__NR_flock, b, LOCK_UN), -EBADF);
	CHECK_EQ(usys2(__NR_flock, b, 0), -EINVAL);             /* the operation is checked before the fd */
	usys1(__NR_unlink, (long)lpath);
}

/* A waiting F_SETLKW gets the lock once its holder lets go (whenever that is). */
static void t_lock_setlkw_waits(void)
{
	int fd, p[2], pid, st;
	char c;

	setup();
	fd = open_file(O_RDWR);
	CHECK_EQ(lk(fd, F_SETLK, F_WRLCK, 0, 0), 0);
	CHECK_EQ(pipe(p), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int cfd = open_file(O_RDWR);

		if (lk(cfd, F_SETLK, F_RDLCK, 3, 1) != -EAGAIN)
			_exit(1);
		write(p[1], "x", 1);
		_exit(lk(cfd, F_SETLKW, F_RDLCK, 3, 1) == 0 ? 0 : 2);
	}
	CHECK_EQ(read(p[0], &c, 1), 1);
	CHECK_EQ(lk(fd, F_SETLK, F_UNLCK, 0, 0), 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	close(fd);
	close(p[0]);
	close(p[1]);
	usys1(__NR_unlink, (long)lpath);
}

const struct utest ut_lock_tests[] = {
	{ "lock_posix_basic", t_lock_posix_basic },
	{ "lock_posix_split_merge_close", t_lock_posix_split_merge_close },
	{ "lock_posix_deadlock", t_lock_posix_deadlock },
	{ "lock_ofd", t_lock_ofd },
	{ "lock_flock", t_lock_flock },
	{ "lock_setlkw_waits", t_lock_setlkw_waits },
	{ NULL, NULL },
};
