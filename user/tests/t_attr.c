/*
 * File times and owners, credentials, resource use, O_PATH: the same on
 * the host Linux and on our kernel. Files live in a directory of their
 * own under /dev/shm (tmpfs on Linux, mounted relatime there as Linux
 * mounts tmpfs by default). Expected values are Linux's (stat(2),
 * utimensat(2), chown(2), open(2), getrusage(2), setresuid(2) and the
 * reasons next to each check); "now" is checked as within a second of
 * clock_gettime(CLOCK_REALTIME) read before and after (Linux's file times
 * come from the coarse clock, up to a tick behind the precise one).
 */
#include "utests.h"

#define AT_FDCWD            (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EMPTY_PATH       0x1000
#define UTIME_NOW           ((1L << 30) - 1)
#define UTIME_OMIT          ((1L << 30) - 2)
#define STATX_BTIME         0x800
#define O_PATH_U            010000000

struct astat {
	uint64_t dev, ino, nlink;
	uint32_t mode, uid, gid, pad0;
	uint64_t rdev;
	int64_t size, blksize, blocks;
	int64_t atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
	int64_t reserved[3];
};

struct astatx_ts {
	int64_t sec;
	uint32_t nsec;
	int32_t pad;
};

struct astatx {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, pad0;
	uint64_t ino, size, blocks, attributes_mask;
	struct astatx_ts atime, btime, ctime, mtime;
	uint32_t more[4];
	uint64_t spare[14];
};

static char dir[64];

static const char *apath(const char *name)
{
	static char buf[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* A fresh directory with a 5-byte file "f" and a symbolic link "l" to it. */
static void setup(void)
{
	int fd;

	snprintf(dir, sizeof(dir), "/dev/shm/vmk-at-%d", getpid());
	CHECK_EQ(usys2(__NR_mkdir, (long)dir, 0755), 0);
	fd = (int)usys3(__NR_open, (long)apath("f"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, "hello", 5), 5);
	close(fd);
	CHECK_EQ(usys2(__NR_symlink, (long)"f", (long)apath("l")), 0);
}

static void teardown(void)
{
	usys1(__NR_unlink, (long)apath("f"));
	usys1(__NR_unlink, (long)apath("l"));
	CHECK_EQ(usys1(__NR_rmdir, (long)dir), 0);
}

static struct astat st_of(const char *p, int flags)
{
	struct astat st;

	CHECK_EQ(usys4(__NR_newfstatat, AT_FDCWD, (long)p, (long)&st, flags), 0);
	return st;
}

static int64_t now_sec(void)
{
	int64_t ts[2];

	CHECK_EQ(usys2(__NR_clock_gettime, 0, (long)ts), 0);
	return ts[0];
}

/* t is "now": within [before - 1, after] seconds. */
#define CHECK_NOW(t, before, after) CHECK((t) >= (before) - 1 && (t) <= (after))

static long utimens(const char *p, int64_t as, long ans, int64_t ms, long mns, int flags)
{
	int64_t ts[4] = { as, ans, ms, mns };

	return usys4(__NR_utimensat, AT_FDCWD, (long)p, (long)ts, flags);
}

/* utimensat sets atime and mtime to the nanosecond; ctime becomes now; OMIT and NOW; both OMIT changes nothing. */
static void t_attr_utimensat(void)
{
	struct astat st, st2;
	int64_t t0, t1, bad[4] = { 1, 1000000000, 2, 0 };

	setup();
	t0 = now_sec();
	CHECK_EQ(utimens(apath("f"), 1000, 5, 2000, 7, 0), 0);
	t1 = now_sec();
	st = st_of(apath("f"), 0);
	CHECK_EQ(st.atime, 1000);
	CHECK_EQ(st.atime_ns, 5);
	CHECK_EQ(st.mtime, 2000);
	CHECK_EQ(st.mtime_ns, 7);
	CHECK_NOW(st.ctime, t0, t1);
	/* atime left, mtime now */
	t0 = now_sec();
	CHECK_EQ(utimens(apath("f"), 0, UTIME_OMIT, 0, UTIME_NOW, 0), 0);
	t1 = now_sec();
	st = st_of(apath("f"), 0);
	CHECK_EQ(st.atime, 1000);
	CHECK_EQ(st.atime_ns, 5);
	CHECK_NOW(st.mtime, t0, t1);
	/* both UTIME_OMIT: Linux returns before changing anything, ctime included */
	CHECK_EQ(utimens(apath("f"), 3, UTIME_OMIT, 4, UTIME_OMIT, 0), 0);
	st2 = st_of(apath("f"), 0);
	CHECK_EQ(st2.ctime, st.ctime);
	CHECK_EQ(st2.ctime_ns, st.ctime_ns);
	/* NULL times: both now */
	CHECK_EQ(usys4(__NR_utimensat, AT_FDCWD, (long)apath("f"), 0, 0), 0);
	st = st_of(apath("f"), 0);
	CHECK(st.atime > 1000 && st.mtime >= t0 - 1);
	/* the link itself with AT_SYMLINK_NOFOLLOW; its target keeps its times */
	CHECK_EQ(utimens(apath("l"), 10, 0, 20, 0, AT_SYMLINK_NOFOLLOW), 0);
	CHECK_EQ(st_of(apath("l"), AT_SYMLINK_NOFOLLOW).mtime, 20);
	CHECK_EQ(st_of(apath("f"), 0).mtime, st.mtime);
	/* errors: nsec out of range, unknown flag, no such file, a NULL path with AT_FDCWD */
	CHECK_EQ(usys4(__NR_utimensat, AT_FDCWD, (long)apath("f"), (long)bad, 0), -EINVAL);
	CHECK_EQ(utimens(apath("f"), 1, 0, 2, 0, 0x4), -EINVAL);
	CHECK_EQ(utimens(apath("nothere"), 1, 0, 2, 0, 0), -ENOENT);
	CHECK_EQ(usys4(__NR_utimensat, AT_FDCWD, 0, 0, 0), -EFAULT);
	teardown();
}

/* futimens is utimensat(fd, NULL, times, 0): flags must be 0 then; a bad fd is EBADF. */
static void t_attr_futimens(void)
{
	int64_t ts[4] = { 111, 0, 222, 0 };
	int fd;

	setup();
	fd = open(apath("f"), O_RDONLY);
	CHECK(fd >= 0);
	CHECK_EQ(usys4(__NR_utimensat, fd, 0, (long)ts, 0), 0);
	CHECK_EQ(st_of(apath("f"), 0).mtime, 222);
	CHECK_EQ(st_of(apath("f"), 0).atime, 111);
	CHECK_EQ(usys4(__NR_utimensat, fd, 0, (long)ts, AT_SYMLINK_NOFOLLOW), -EINVAL);
	close(fd);
	CHECK_EQ(usys4(__NR_utimensat, fd, 0, (long)ts, 0), -EBADF);
	teardown();
}

/* write and truncate set mtime and ctime to now; chmod only ctime; a read moves an atime older than mtime (relatime). */
static void t_attr_times_follow_changes(void)
{
	struct astat st;
	int64_t t0, t1;
	char c;
	int fd;

	setup();
	fd = open(apath("f"), O_RDWR);
	CHECK(fd >= 0);
	CHECK_EQ(utimens(apath("f"), 1000, 0, 2000, 0, 0), 0);
	t0 = now_sec();
	CHECK_EQ(write(fd, "x", 1), 1);
	t1 = now_sec();
	st = st_of(apath("f"), 0);
	CHECK_NOW(st.mtime, t0, t1);
	CHECK_NOW(st.ctime, t0, t1);
	CHECK_EQ(st.atime, 1000);
	CHECK_EQ(utimens(apath("f"), 1000, 0, 2000, 0, 0), 0);
	CHECK_EQ(usys2(__NR_ftruncate, fd, 2), 0);
	t1 = now_sec();
	CHECK_NOW(st_of(apath("f"), 0).mtime, t0, t1);
	CHECK_EQ(utimens(apath("f"), 1000, 0, 2000, 0, 0), 0);
	CHECK_EQ(usys2(__NR_chmod, (long)apath("f"), 0600), 0);
	t1 = now_sec();
	st = st_of(apath("f"), 0);
	CHECK_EQ(st.mtime, 2000);
	CHECK_NOW(st.ctime, t0, t1);
	/* relatime: an atime not newer than mtime moves to now on a read */
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
	CHECK_EQ(read(fd, &c, 1), 1);
	t1 = now_sec();
	CHECK_NOW(st_of(apath("f"), 0).atime, t0, t1);
	close(fd);
	teardown();
}

/* statx gives the times stat gives, and a birth time on tmpfs (STATX_BTIME, when asked for) not after ctime. */
static void t_attr_statx_times(void)
{
	struct astatx sx;
	struct astat st;

	setup();
	CHECK_EQ(utimens(apath("f"), 1000, 1, 2000, 2, 0), 0);
	CHECK_EQ(usys5(__NR_statx, AT_FDCWD, (long)apath("f"), 0, 0xfff, (long)&sx), 0);
	st = st_of(apath("f"), 0);
	CHECK_EQ(sx.atime.sec, 1000);
	CHECK_EQ(sx.atime.nsec, 1);
	CHECK_EQ(sx.mtime.sec, 2000);
	CHECK_EQ(sx.mtime.nsec, 2);
	CHECK_EQ(sx.ctime.sec, st.ctime);
	CHECK_EQ(sx.ctime.nsec, st.ctime_ns);
	CHECK(sx.mask & STATX_BTIME);
	CHECK(sx.btime.sec > 0 && sx.btime.sec <= sx.ctime.sec);
	CHECK_EQ(sx.uid, st.uid);
	/* tmpfs fills the birth time only when asked for it (shmem_getattr) */
	CHECK_EQ(usys5(__NR_statx, AT_FDCWD, (long)apath("f"), 0, 0x7ff, (long)&sx), 0);
	CHECK_EQ(sx.mask & STATX_BTIME, 0);
	teardown();
}

/*
 * chown sets the owner (-1 keeps one); of anything but a directory it drops
 * set-user-ID, and set-group-ID when group execution is on (root too, since
 * Linux 2.2.13); lchown changes the link; fchownat's bad flag is EINVAL.
 */
static void t_attr_chown(void)
{
	struct astat st;
	int fd;

	setup();
	CHECK_EQ(usys3(__NR_chown, (long)apath("f"), 1234, 5678), 0);
	st = st_of(apath("f"), 0);
	CHECK_EQ(st.uid, 1234);
	CHECK_EQ(st.gid, 5678);
	CHECK_EQ(usys3(__NR_chown, (long)apath("f"), -1, 42), 0);
	st = st_of(apath("f"), 0);
	CHECK_EQ(st.uid, 1234);
	CHECK_EQ(st.gid, 42);
	CHECK_EQ(usys2(__NR_chmod, (long)apath("f"), 06755), 0);
	CHECK_EQ(usys3(__NR_chown, (long)apath("f"), 0, 0), 0);
	CHECK_EQ(st_of(apath("f"), 0).mode & 07777, 0755);
	CHECK_EQ(usys2(__NR_chmod, (long)apath("f"), 06745), 0);     /* no group x: set-group-ID stays */
	CHECK_EQ(usys3(__NR_chown, (long)apath("f"), 0, 0), 0);
	CHECK_EQ(st_of(apath("f"), 0).mode & 07777, 02745);
	CHECK_EQ(usys2(__NR_chmod, (long)dir, 06755), 0);            /* a directory keeps both */
	CHECK_EQ(usys3(__NR_chown, (long)dir, 0, 0), 0);
	CHECK_EQ(st_of(dir, 0).mode & 07777, 06755);
	CHECK_EQ(usys3(__NR_lchown, (long)apath("l"), 77, 88), 0);
	CHECK_EQ(st_of(apath("l"), AT_SYMLINK_NOFOLLOW).uid, 77);
	CHECK_EQ(st_of(apath("f"), 0).uid, 0);
	CHECK_EQ(usys5(__NR_fchownat, AT_FDCWD, (long)apath("f"), 1, 1, 0x2), -EINVAL);
	CHECK_EQ(usys5(__NR_fchownat, AT_FDCWD, (long)apath("l"), 3, 4, AT_SYMLINK_NOFOLLOW), 0);
	CHECK_EQ(st_of(apath("l"), AT_SYMLINK_NOFOLLOW).gid, 4);
	CHECK_EQ(usys3(__NR_chown, (long)apath("nothere"), 0, 0), -ENOENT);
	fd = open(apath("f"), O_RDONLY);
	CHECK_EQ(usys3(__NR_fchown, fd, 9, -1), 0);
	CHECK_EQ(st_of(apath("f"), 0).uid, 9);
	CHECK_EQ(usys5(__NR_fchownat, fd, (long)"", 10, -1, AT_EMPTY_PATH), 0);
	CHECK_EQ(st_of(apath("f"), 0).uid, 10);
	close(fd);
	CHECK_EQ(usys3(__NR_fchown, fd, 0, 0), -EBADF);
	CHECK_EQ(usys3(__NR_chown, (long)dir, 0, 0), 0);
	teardown();
}

/* O_PATH: a name, not a stream; with O_NOFOLLOW a symbolic link itself. */
static void t_attr_o_path(void)
{
	struct astat st;
	char c;
	int fd, lfd, dfd, f2;

	setup();
	lfd = open(apath("l"), O_PATH_U | O_NOFOLLOW);
	CHECK(lfd >= 0);
	CHECK_EQ(usys2(__NR_fstat, lfd, (long)&st), 0);
	CHECK_EQ(st.mode & 0170000, 0120000);                   /* S_IFLNK */
	CHECK_EQ(usys4(__NR_newfstatat, lfd, (long)"", (long)&st, AT_EMPTY_PATH), 0);
	CHECK_EQ(st.mode & 0170000, 0120000);
	CHECK_EQ(usys3(__NR_read, lfd, (long)&c, 1), -EBADF);
	fd = open(apath("l"), O_PATH_U);                        /* followed: the file */
	CHECK(fd >= 0);
	CHECK_EQ(usys2(__NR_fstat, fd, (long)&st), 0);
	CHECK_EQ(st.mode & 0170000, 0100000);
	CHECK_EQ(st.size, 5);
	CHECK_EQ(usys3(__NR_write, fd, (long)"x", 1), -EBADF);
	CHECK_EQ(usys2(__NR_fchmod, fd, 0600), -EBADF);
	CHECK_EQ(usys3(__NR_fchown, fd, 0, 0), -EBADF);
	CHECK_EQ(usys2(__NR_open, (long)apath("f"), O_PATH_U | O_DIRECTORY), -ENOTDIR);
	dfd = open(dir, O_PATH_U | O_DIRECTORY);                /* a dirfd for *at() */
	CHECK(dfd >= 0);
	f2 = (int)usys4(__NR_openat, dfd, (long)"f", O_RDONLY, 0);
	CHECK(f2 >= 0);
	CHECK_EQ(read(f2, &c, 1), 1);
	CHECK_EQ(c, 'h');
	close(f2);
	/* O_PATH with O_CREAT: the other flags are ignored, nothing is made */
	CHECK_EQ(usys3(__NR_open, (long)apath("new"), O_PATH_U | O_CREAT, 0644), -ENOENT);
	close(fd);
	close(lfd);
	close(dfd);
	teardown();
}

/* One user, root: all IDs 0; setting 0 or keeping (-1) succeeds; setuid(-1) is EINVAL (not a valid ID). */
static void t_attr_credentials(void)
{
	uint32_t r = 7, e = 7, s = 7;

	CHECK_EQ(usys3(__NR_getresuid, (long)&r, (long)&e, (long)&s), 0);
	CHECK(r == 0 && e == 0 && s == 0);
	r = e = s = 7;
	CHECK_EQ(usys3(__NR_getresgid, (long)&r, (long)&e, (long)&s), 0);
	CHECK(r == 0 && e == 0 && s == 0);
	CHECK_EQ(usys3(__NR_getresuid, 0, (long)&e, (long)&s), -EFAULT);
	CHECK_EQ(usys3(__NR_setresuid, -1, -1, -1), 0);
	CHECK_EQ(usys3(__NR_setresgid, 0, -1, 0), 0);
	CHECK_EQ(usys1(__NR_setuid, 0), 0);
	CHECK_EQ(usys1(__NR_setgid, 0), 0);
	CHECK_EQ(usys1(__NR_setuid, -1), -EINVAL);
	CHECK_EQ(usys1(__NR_setgid, -1), -EINVAL);
	CHECK_EQ(usys2(__NR_setreuid, -1, 0), 0);
	CHECK_EQ(usys2(__NR_setgroups, 0, 0), 0);
	CHECK_EQ(usys2(__NR_getgroups, 0, 0), 0);
	CHECK_EQ(usys2(__NR_setgroups, -1, 0), -EINVAL);
	CHECK_EQ(usys2(__NR_setgroups, 1, 0), -EFAULT);
	CHECK_EQ(usys0(__NR_getuid), 0);
	CHECK_EQ(usys0(__NR_geteuid), 0);
}

struct arusage {
	int64_t utime[2], stime[2];
	int64_t maxrss, ixrss, idrss, isrss, minflt, majflt, nswap, inblock, oublock;
	int64_t msgsnd, msgrcv, nsignals, nvcsw, nivcsw;
};

/*
 * getrusage: after 256 new pages were written, at least 1 MiB is resident
 * and the minor-fault count has not gone down (how many faults the writes
 * took is the fault path's business: the lazy lab's skeleton maps pages
 * its own way, and this test must not grade that).
 */
static void t_attr_getrusage(void)
{
	struct arusage before, after;
	char *p = mmap(NULL, 256 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	CHECK_EQ(usys2(__NR_getrusage, 0, (long)&before), 0);
	for (int i = 0; i < 256; i++)
		p[i * 4096] = 1;
	CHECK_EQ(usys2(__NR_getrusage, 0, (long)&after), 0);
	CHECK(after.minflt >= before.minflt);
	CHECK(after.maxrss >= 1024);
	CHECK_EQ(usys2(__NR_getrusage, 1, (long)&after), 0);    /* RUSAGE_THREAD */
	CHECK_EQ(usys2(__NR_getrusage, -1, (long)&after), 0);   /* RUSAGE_CHILDREN */
	CHECK_EQ(usys2(__NR_getrusage, 2, (long)&after), -EINVAL);
	CHECK_EQ(usys2(__NR_getrusage, 0, 0), -EFAULT);
	munmap(p, 256 * 4096);
}

/* prlimit64: the current limits set again are accepted; a soft limit over the hard one is EINVAL. */
static void t_attr_prlimit(void)
{
	uint64_t cur[2], bad[2];

	CHECK_EQ(usys4(__NR_prlimit64, 0, 7, 0, (long)cur), 0);        /* RLIMIT_NOFILE */
	CHECK(cur[0] <= cur[1]);
	CHECK_EQ(usys4(__NR_prlimit64, 0, 7, (long)cur, 0), 0);
	bad[0] = cur[1] + 1;
	bad[1] = cur[1];
	CHECK_EQ(usys4(__NR_prlimit64, 0, 7, (long)bad, 0), -EINVAL);
	CHECK_EQ(usys4(__NR_prlimit64, 0, 99, 0, (long)cur), -EINVAL);
}

const struct utest ut_attr_tests[] = {
	{ "attr_utimensat", t_attr_utimensat },
	{ "attr_futimens", t_attr_futimens },
	{ "attr_times_follow_changes", t_attr_times_follow_changes },
	{ "attr_statx_times", t_attr_statx_times },
	{ "attr_chown", t_attr_chown },
	{ "attr_o_path", t_attr_o_path },
	{ "attr_credentials", t_attr_credentials },
	{ "attr_getrusage", t_attr_getrusage },
	{ "attr_prlimit", t_attr_prlimit },
	{ NULL, NULL },
};
