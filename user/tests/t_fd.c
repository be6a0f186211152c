/*
 * File descriptors, pipes and file status, as Linux: the lowest free fd,
 * dup/dup2/dup3/fcntl, close-on-exec, pipe/pipe2 (blocking, EOF, SIGPIPE,
 * EPIPE, O_NONBLOCK, PIPE_BUF atomicity), the stat family, access,
 * getcwd/chdir, readv. Every expected value here is what Linux 6.18 gives
 * (the same binary runs on the host: make test-user-linux).
 */
#include "utests.h"

#define AT_FDCWD (-100)
#define AT_EMPTY_PATH 0x1000
#define S_IFMT 0170000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define S_IFIFO 0010000
#define EISDIR 21
#define ENOTDIR 20
#define ERANGE 34
#define EPIPE 32
#define EMFILE 24


/* close(0) frees 0: the next open gets it (busybox relies on this to redirect stdin). */
static void t_fd_lowest(void)
{
	int fd;

	CHECK_EQ(close(0), 0);
	fd = open(ut_argv0, O_RDONLY);
	CHECK_EQ(fd, 0);
	{
		int a = dup(0), b;

		CHECK(a > 2);
		CHECK_EQ(close(a), 0);
		b = dup(0);
		CHECK_EQ(b, a);                         /* the lowest free one again */
	}
	CHECK_EQ(close(77), -1);
	CHECK_EQ(errno, EBADF);
}

/* dup, dup2, dup3 and their errors. */
static void t_fd_dup(void)
{
	int p[2], d;

	CHECK_EQ(pipe(p), 0);
	d = dup(p[1]);
	CHECK(d > p[1]);
	CHECK_EQ(dup2(p[1], 100), 100);
	CHECK_EQ(dup2(p[1], p[1]), p[1]);               /* same fd: just checked */
	CHECK_EQ(dup2(200, 201), -1);
	CHECK_EQ(errno, EBADF);
	CHECK_EQ(dup2(200, 200), -1);
	CHECK_EQ(errno, EBADF);
	CHECK_EQ(usys3(__NR_dup3, p[1], p[1], 0), -EINVAL);
	CHECK_EQ(usys3(__NR_dup3, p[1], 101, 1), -EINVAL);       /* flags other than O_CLOEXEC */
	CHECK_EQ(usys3(__NR_dup3, p[1], 101, O_CLOEXEC), 101);
	CHECK_EQ(fcntl(101, F_GETFD, 0), FD_CLOEXEC);
	CHECK_EQ(fcntl(100, F_GETFD, 0), 0);
	CHECK_EQ(usys3(__NR_dup3, 555, 101, 0), -EBADF);
	CHECK_EQ(usys2(__NR_dup2, p[1], 1 << 20), -EBADF);       /* beyond RLIMIT_NOFILE */
	/* the copies write into the same pipe */
	CHECK_EQ(write(100, "ab", 2), 2);
	CHECK_EQ(write(d, "c", 1), 1);
	{
		char buf[4];

		CHECK_EQ(read(p[0], buf, sizeof(buf)), 3);
		CHECK_EQ(memcmp(buf, "abc", 3), 0);
	}
	CHECK_EQ(usys1(__NR_dup, 999), -EBADF);
}

/* fcntl: F_DUPFD (lowest >= arg, up to RLIMIT_NOFILE), F_DUPFD_CLOEXEC, F_GETFD/SETFD, F_GETFL/SETFL. */
static void t_fd_fcntl(void)
{
	unsigned long lim[2];
	int p[2];

	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(fcntl(p[0], F_DUPFD, 50), 50);
	CHECK_EQ(fcntl(p[0], F_DUPFD, 50), 51);
	CHECK_EQ(fcntl(p[0], F_DUPFD_CLOEXEC, 60), 60);
	CHECK_EQ(fcntl(60, F_GETFD, 0), FD_CLOEXEC);
	CHECK_EQ(fcntl(60, F_SETFD, 0), 0);
	CHECK_EQ(fcntl(60, F_GETFD, 0), 0);
	CHECK_EQ(fcntl(p[0], F_GETFL, 0), O_RDONLY);
	CHECK_EQ(fcntl(p[1], F_GETFL, 0), O_WRONLY);
	CHECK_EQ(fcntl(p[0], F_SETFL, O_NONBLOCK | O_WRONLY), 0);       /* access mode cannot change */
	CHECK_EQ(fcntl(p[0], F_GETFL, 0), O_RDONLY | O_NONBLOCK);
	CHECK_EQ(fcntl(50, F_GETFL, 0), O_RDONLY | O_NONBLOCK);         /* a status flag of the file: shared */
	CHECK_EQ(usys3(__NR_fcntl, 999, F_GETFD, 0), -EBADF);
	CHECK_EQ(usys3(__NR_fcntl, p[0], 9999, 0), -EINVAL);
	/* the limit Linux reports is the limit it applies */
	CHECK_EQ(usys2(__NR_getrlimit, 7 /* RLIMIT_NOFILE */, (long)lim), 0);
	CHECK(lim[0] >= 256 && lim[0] <= lim[1]);
	CHECK_EQ(usys3(__NR_fcntl, p[0], F_DUPFD, (long)lim[0]), -EINVAL);
	CHECK_EQ(usys3(__NR_fcntl, p[0], F_DUPFD, (long)lim[0] - 1), (long)lim[0] - 1);
	CHECK_EQ(usys3(__NR_fcntl, p[0], F_DUPFD, (long)lim[0] - 1), -EMFILE);
}

/* Close-on-exec is per fd: the exec'd helper sees only the fds without it. */
static void t_fd_cloexec_exec(void)
{
	int p[2], st, pid;

	CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
	CHECK_EQ(fcntl(p[0], F_GETFD, 0), FD_CLOEXEC);
	CHECK_EQ(dup2(p[1], 40), 40);                   /* dup2 clears close-on-exec on the new fd */
	CHECK_EQ(fcntl(40, F_GETFD, 0), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		char n1[16], n2[16];
		char *argv[] = { ut_argv0, "--fdcheck", n1, n2, NULL };

		snprintf(n1, sizeof(n1), "%d", p[0]);   /* closed by exec */
		snprintf(n2, sizeof(n2), "%d", 40);     /* kept */
		execve(ut_argv0, argv, NULL);
		_exit(99);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
}

/* Data flows, EOF when the last writer closes (a fork's copy counts). */
static void t_pipe_eof(void)
{
	int p[2], pid, st;
	char buf[64];

	CHECK_EQ(pipe(p), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		write(p[1], "hello", 5);
		_exit(0);
	}
	close(p[1]);
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 5);
	CHECK_EQ(memcmp(buf, "hello", 5), 0);
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
}

/* Blocking both ways: 1 MiB through a 64 KiB pipe, checksummed. */
static void t_pipe_bulk(void)
{
	static unsigned char buf[8192];
	int p[2], pid, st;
	unsigned long sum = 0, want = 0, total = 0;
	long n;

	for (unsigned long i = 0; i < (1UL << 20); i++)
		want += (i * 7 + (i >> 9)) & 0xff;
	CHECK_EQ(pipe(p), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		for (unsigned long off = 0; off < (1UL << 20); off += sizeof(buf)) {
			for (unsigned i = 0; i < sizeof(buf); i++)
				buf[i] = (unsigned char)(((off + i) * 7 + ((off + i) >> 9)) & 0xff);
			if (write_all(p[1], buf, sizeof(buf)))
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	while ((n = read(p[0], buf, 1000)) > 0) {
		for (long i = 0; i < n; i++)
			sum += buf[i];
		total += (unsigned long)n;
	}
	CHECK_EQ(n, 0);
	CHECK_EQ(total, 1UL << 20);
	CHECK_EQ(sum, want);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
}

static void write_to_closed_pipe(void)
{
	int p[2];

	pipe(p);
	close(p[0]);
	write(p[1], "x", 1);
	_exit(0);                       /* not reached: SIGPIPE kills */
}

/* No reader: SIGPIPE kills by default; ignored, write fails with EPIPE. */
static void t_pipe_sigpipe(void)
{
	struct sigaction sa;
	int p[2], st;

	st = run_in_child(write_to_closed_pipe);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGPIPE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	CHECK_EQ(sigaction(SIGPIPE, &sa, NULL), 0);
	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(close(p[0]), 0);
	CHECK_EQ(write(p[1], "x", 1), -1);
	CHECK_EQ(errno, EPIPE);
}

/* O_NONBLOCK: empty read -EAGAIN, a full pipe takes 65536 bytes then -EAGAIN; pipe2 flags. */
static void t_pipe_nonblock(void)
{
	static char big[65536];
	int p[2];
	char c;

	CHECK_EQ(pipe2(p, O_NONBLOCK), 0);
	CHECK_EQ(fcntl(p[0], F_GETFL, 0), O_RDONLY | O_NONBLOCK);
	CHECK_EQ(read(p[0], &c, 1), -1);
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(write(p[1], big, sizeof(big)), (long)sizeof(big));
	CHECK_EQ(write(p[1], "x", 1), -1);
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(read(p[0], big, 100), 100);
	CHECK_EQ(write(p[1], big, 200), -1);            /* 200 <= PIPE_BUF: all or nothing; 100 free */
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(usys2(__NR_pipe2, (long)p, 1), -EINVAL);
	CHECK_EQ(usys1(__NR_pipe, 0x10), -EFAULT);
	CHECK_EQ(usys1(__NR_pipe, (long)0xffffffff81000000UL), -EFAULT);
}

/* Writes of PIPE_BUF bytes from two writers never interleave. */
static void t_pipe_atomic(void)
{
	static char rec[4096];
	int p[2], pids[2], st;
	int counts[2] = { 0, 0 };

	CHECK_EQ(pipe(p), 0);
	for (int w = 0; w < 2; w++) {
		pids[w] = fork();
		CHECK(pids[w] >= 0);
		if (pids[w] == 0) {
			close(p[0]);
			memset(rec, 'A' + w, sizeof(rec));
			for (int i = 0; i < 64; i++)
				if (write(p[1], rec, sizeof(rec)) != (long)sizeof(rec))
					_exit(1);
			_exit(0);
		}
	}
	close(p[1]);
	for (;;) {
		long n = read(p[0], rec, sizeof(rec));

		if (n == 0)
			break;
		CHECK_EQ(n, (long)sizeof(rec));         /* only whole records are ever in the pipe */
		for (unsigned i = 1; i < sizeof(rec); i++)
			CHECK_EQ(rec[i], rec[0]);
		CHECK(rec[0] == 'A' || rec[0] == 'B');
		counts[rec[0] - 'A']++;
	}
	CHECK_EQ(counts[0], 64);
	CHECK_EQ(counts[1], 64);
	for (int w = 0; w < 2; w++) {
		CHECK_EQ(waitpid(pids[w], &st, 0), pids[w]);
		CHECK_EQ(st, 0);
	}
}

/* stat, lstat, fstat, newfstatat (AT_EMPTY_PATH), statx on a program file, "/", a pipe. */
static void t_stat_family(void)
{
	struct kstat_u st, st2;
	unsigned char sx[256];
	int fd = open(ut_argv0, O_RDONLY), p[2];
	long size;

	CHECK(fd >= 0);
	size = lseek(fd, 0, 2);
	CHECK(size > 4096);
	CHECK_EQ(usys2(__NR_stat, (long)ut_argv0, (long)&st), 0);
	CHECK_EQ(st.mode & S_IFMT, S_IFREG);
	CHECK_EQ(st.size, size);
	CHECK(st.mode & 0100);                          /* a program: executable */
	CHECK_EQ(usys2(__NR_lstat, (long)ut_argv0, (long)&st2), 0);
	CHECK_EQ(st2.ino, st.ino);
	CHECK_EQ(usys2(__NR_fstat, fd, (long)&st2), 0);
	CHECK_EQ(st2.ino, st.ino);
	CHECK_EQ(st2.dev, st.dev);
	CHECK_EQ(st2.size, size);
	memset(&st2, 0, sizeof(st2));
	CHECK_EQ(usys4(__NR_newfstatat, fd, (long)"", (long)&st2, AT_EMPTY_PATH), 0);
	CHECK_EQ(st2.ino, st.ino);
	CHECK_EQ(usys4(__NR_newfstatat, fd, (long)"", (long)&st2, 0), -ENOENT);
	CHECK_EQ(usys4(__NR_newfstatat, AT_FDCWD, (long)ut_argv0, (long)&st2, 0x8000), -EINVAL);
	CHECK_EQ(usys4(__NR_newfstatat, AT_FDCWD, (long)ut_argv0, (long)&st2, 0), 0);
	CHECK_EQ(st2.size, size);
	CHECK_EQ(usys5(__NR_statx, fd, (long)"", AT_EMPTY_PATH, 0x7ff, (long)sx), 0);
	CHECK_EQ(*(unsigned long *)(sx + 40), (unsigned long)size);     /* stx_size */
	CHECK_EQ(*(unsigned short *)(sx + 28) & S_IFMT, S_IFREG);       /* stx_mode */
	CHECK_EQ(*(unsigned long *)(sx + 32), st.ino);                  /* stx_ino */
	CHECK_EQ(*(unsigned *)sx & 0x7ff, 0x7ff);                       /* the basic stats are there */
	CHECK_EQ(usys5(__NR_statx, AT_FDCWD, (long)ut_argv0, 0x6000, 0x7ff, (long)sx), -EINVAL);
	CHECK_EQ(usys5(__NR_statx, AT_FDCWD, (long)ut_argv0, 0, 0x80000000L, (long)sx), -EINVAL);
	CHECK_EQ(usys2(__NR_stat, (long)"/", (long)&st), 0);
	CHECK_EQ(st.mode & S_IFMT, S_IFDIR);
	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(usys2(__NR_fstat, p[0], (long)&st), 0);
	CHECK_EQ(st.mode & S_IFMT, S_IFIFO);
	CHECK_EQ(usys2(__NR_fstat, p[1], (long)&st2), 0);
	CHECK_EQ(st2.ino, st.ino);                      /* both ends: one pipe */
	/* bad input */
	CHECK_EQ(usys2(__NR_stat, (long)"/no/such/file_xyz", (long)&st), -ENOENT);
	CHECK_EQ(usys2(__NR_stat, (long)"", (long)&st), -ENOENT);
	CHECK_EQ(usys2(__NR_stat, 0x10, (long)&st), -EFAULT);
	CHECK_EQ(usys2(__NR_stat, (long)ut_argv0, 0x10), -EFAULT);
	CHECK_EQ(usys2(__NR_fstat, 999, (long)&st), -EBADF);
	CHECK_EQ(usys2(__NR_fstat, fd, (long)0xffffffff81000000UL), -EFAULT);
}

/* access: existing files readable, programs executable; bad mode, missing file. */
static void t_access(void)
{
	CHECK_EQ(usys2(__NR_access, (long)ut_argv0, 4 /* R_OK */), 0);
	CHECK_EQ(usys2(__NR_access, (long)ut_argv0, 1 /* X_OK */), 0);
	CHECK_EQ(usys2(__NR_access, (long)ut_argv0, 0 /* F_OK */), 0);
	CHECK_EQ(usys2(__NR_access, (long)ut_argv0, 8), -EINVAL);
	CHECK_EQ(usys2(__NR_access, (long)"/no/such/file_xyz", 0), -ENOENT);
	CHECK_EQ(usys2(__NR_access, 0x10, 0), -EFAULT);
	CHECK_EQ(usys3(__NR_faccessat, AT_FDCWD, (long)ut_argv0, 4), 0);
	CHECK_EQ(usys3(__NR_faccessat, AT_FDCWD, (long)"/no/such/file_xyz", 4), -ENOENT);
}

/* getcwd after chdir("/") is "/"; chdir to a file or nowhere fails; fchdir. */
static void t_cwd(void)
{
	char buf[64];
	int fd;

	fd = open(ut_argv0, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_EQ(usys1(__NR_chdir, (long)ut_argv0), -ENOTDIR);
	CHECK_EQ(usys1(__NR_fchdir, fd), -ENOTDIR);
	CHECK_EQ(usys1(__NR_chdir, (long)"/no/such/dir_xyz"), -ENOENT);
	CHECK_EQ(usys1(__NR_chdir, 0x10), -EFAULT);
	CHECK_EQ(usys1(__NR_chdir, (long)"/"), 0);
	CHECK_EQ(usys2(__NR_getcwd, (long)buf, sizeof(buf)), 2);
	CHECK_EQ(strcmp(buf, "/"), 0);
	CHECK_EQ(usys2(__NR_getcwd, (long)buf, 1), -ERANGE);
	CHECK_EQ(usys2(__NR_getcwd, 0x10, sizeof(buf)), -EFAULT);
	fd = open("/", O_RDONLY);
	CHECK(fd >= 0);
	CHECK_EQ(usys1(__NR_fchdir, fd), 0);
	CHECK_EQ(read(fd, buf, 1), -1);
	CHECK_EQ(errno, EISDIR);
	CHECK_EQ(usys1(__NR_fchdir, 999), -EBADF);
}

/* readv on an opened file (musl's fread) reads what pread reads. */
static void t_readv_file(void)
{
	char a[10], b[300], want[310];
	struct { void *base; long len; } iov[3] = { { a, 10 }, { NULL, 0 }, { b, 300 } };
	int fd = open(ut_argv0, O_RDONLY);

	CHECK(fd >= 0);
	CHECK_EQ(usys4(__NR_pread64, fd, (long)want, 310, 0), 310);
	CHECK_EQ(usys3(__NR_readv, fd, (long)iov, 3), 310);
	CHECK_EQ(memcmp(a, want, 10), 0);
	CHECK_EQ(memcmp(b, want + 10, 300), 0);
	CHECK_EQ(lseek(fd, 0, 1), 310);
	CHECK_EQ(usys3(__NR_readv, 999, (long)iov, 3), -EBADF);
	CHECK_EQ(usys3(__NR_readv, fd, 0x10, 3), -EFAULT);
	CHECK_EQ(usys3(__NR_readv, fd, (long)iov, 5000), -EINVAL);
	CHECK_EQ(usys3(__NR_readv, 1, (long)iov, 1), -EBADF);   /* stdout is not open for reading */
	{
		int p[2];

		CHECK_EQ(pipe(p), 0);
		CHECK_EQ(usys4(__NR_pread64, p[0], (long)want, 1, 0), -ESPIPE);
		CHECK_EQ(lseek(p[0], 0, 0), -1);
		CHECK_EQ(errno, ESPIPE);
		CHECK_EQ(write(p[0], "x", 1), -1);      /* the read end */
		CHECK_EQ(errno, EBADF);
	}
}

#define POLLIN 1
#define POLLOUT 4
#define POLLERR 8
#define POLLHUP 16
#define POLLNVAL 32

struct pollfd_u {
	int fd;
	short events, revents;
};

/* poll on pipe ends: readiness, hang-up, error, a closed fd, timeouts; bad input. */
static void t_poll(void)
{
	int p[2];
	struct pollfd_u f[3];

	CHECK_EQ(pipe(p), 0);
	f[0] = (struct pollfd_u){ p[0], POLLIN, 0 };
	f[1] = (struct pollfd_u){ p[1], POLLOUT, 0 };
	f[2] = (struct pollfd_u){ -1, POLLIN, 77 };
	CHECK_EQ(usys3(__NR_poll, (long)f, 3, 0), 1);            /* only the write end */
	CHECK_EQ(f[0].revents, 0);
	CHECK_EQ(f[1].revents, POLLOUT);
	CHECK_EQ(f[2].revents, 0);                              /* negative fd: ignored, revents cleared */
	CHECK_EQ(usys3(__NR_poll, (long)f, 1, 30), 0);           /* 30 ms: times out */
	CHECK_EQ(write(p[1], "x", 1), 1);
	CHECK_EQ(usys3(__NR_poll, (long)f, 1, -1), 1);
	CHECK_EQ(f[0].revents, POLLIN);
	CHECK_EQ(close(p[1]), 0);
	CHECK_EQ(usys3(__NR_poll, (long)f, 1, -1), 1);
	CHECK_EQ(f[0].revents, POLLIN | POLLHUP);
	f[1].fd = 99;
	CHECK_EQ(usys3(__NR_poll, (long)&f[1], 1, 0), 1);
	CHECK_EQ(f[1].revents, POLLNVAL);
	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(close(p[0]), 0);
	f[0] = (struct pollfd_u){ p[1], POLLOUT, 0 };
	CHECK_EQ(usys3(__NR_poll, (long)f, 1, 0), 1);
	CHECK_EQ(f[0].revents, POLLOUT | POLLERR);
	CHECK_EQ(usys3(__NR_poll, 0x10, 1, 0), -EFAULT);
	CHECK_EQ(usys3(__NR_poll, (long)f, 1L << 30, 0), -EINVAL);
}

/* select: readable and writable sets, a timeout, a closed fd (EBADF), n < 0. */
static void t_select(void)
{
	unsigned long rd[16], wr[16];
	long tv[2] = { 0, 30000 };
	int p[2];

	CHECK_EQ(pipe(p), 0);
	memset(rd, 0, sizeof(rd));
	memset(wr, 0, sizeof(wr));
	rd[p[0] / 64] |= 1UL << (p[0] % 64);
	wr[p[1] / 64] |= 1UL << (p[1] % 64);
	CHECK_EQ(usys5(__NR_select, p[1] + 1, (long)rd, (long)wr, 0, (long)tv), 1);
	CHECK_EQ(rd[p[0] / 64] & (1UL << (p[0] % 64)), 0);
	CHECK(wr[p[1] / 64] & (1UL << (p[1] % 64)));
	rd[p[0] / 64] |= 1UL << (p[0] % 64);
	tv[0] = 0;
	tv[1] = 30000;
	CHECK_EQ(usys5(__NR_select, p[0] + 1, (long)rd, 0, 0, (long)tv), 0);  /* times out */
	CHECK_EQ(tv[0], 0);
	CHECK_EQ(tv[1], 0);                                     /* Linux leaves the time not slept */
	CHECK_EQ(write(p[1], "x", 1), 1);
	rd[p[0] / 64] |= 1UL << (p[0] % 64);
	CHECK_EQ(usys5(__NR_select, p[0] + 1, (long)rd, 0, 0, 0), 1);
	CHECK(rd[p[0] / 64] & (1UL << (p[0] % 64)));
	/*
	 * A closed fd below 64: Linux clamps n to the size of the fd table
	 * (64 at least, more when the parent had more open), and bits above it
	 * are ignored, so a closed fd 84 would block forever in a small table.
	 */
	memset(rd, 0, sizeof(rd));
	rd[0] = 1UL << 60;                                      /* fd 60: closed */
	CHECK_EQ(usys5(__NR_select, 61, (long)rd, 0, 0, 0), -EBADF);
	CHECK_EQ(usys5(__NR_select, -1, 0, 0, 0, 0), -EINVAL);
	tv[0] = -1;
	CHECK_EQ(usys5(__NR_select, 1, 0, 0, 0, (long)tv), -EINVAL);
	tv[0] = 0;
	tv[1] = -5;
	CHECK_EQ(usys5(__NR_select, 1, 0, 0, 0, (long)tv), -EINVAL);
}

/* readlink: /proc/self/exe is an absolute path ending with the program's name; other files are not links. */
static void t_readlink(void)
{
	char buf[256];
	long n = usys3(__NR_readlink, (long)"/proc/self/exe", (long)buf, sizeof(buf));
	const char *base = ut_argv0;

	for (const char *q = ut_argv0; *q; q++)
		if (*q == '/')
			base = q + 1;
	CHECK(n > 0 && n < (long)sizeof(buf));
	buf[n] = 0;
	CHECK_EQ(buf[0], '/');
	CHECK_EQ(strcmp(buf + n - strlen(base), base), 0);
	CHECK_EQ(usys3(__NR_readlink, (long)ut_argv0, (long)buf, sizeof(buf)), -EINVAL);
	CHECK_EQ(usys3(__NR_readlink, (long)"/no/such/file_xyz", (long)buf, sizeof(buf)), -ENOENT);
	CHECK_EQ(usys3(__NR_readlink, (long)"/proc/self/exe", (long)buf, 0), -EINVAL);
	CHECK_EQ(usys3(__NR_readlink, (long)"/proc/self/exe", 0x10, sizeof(buf)), -EFAULT);
}


/*
 * Process groups and sessions: a child inherits its parent's; setpgid
 * makes a group, kill(-g) and wait4(-g) address it; setsid makes a new
 * session (not for a group leader); bad input.
 */
static void t_pgrp(void)
{
	long g = usys0(__NR_getpgrp), sid = usys1(__NR_getsid, 0);
	int a, b, st;

	/*
	 * 0 is a valid answer on Linux: when the group or session leader lives
	 * outside our pid namespace (a CI container), its number here is 0.
	 */
	CHECK(g >= 0 && sid >= 0);
	CHECK_EQ(usys1(__NR_getpgid, 0), g);
	CHECK_EQ(usys1(__NR_getpgid, getpid()), g);
	CHECK_EQ(usys1(__NR_getpgid, 999999), -ESRCH);
	CHECK_EQ(usys1(__NR_getsid, 999999), -ESRCH);
	CHECK_EQ(usys2(__NR_setpgid, 0, -1), -EINVAL);
	CHECK_EQ(usys2(__NR_setpgid, 999999, 0), -ESRCH);
	CHECK_EQ(usys2(__NR_setpgid, 0, 0), 0);                  /* a group of our own */
	CHECK_EQ(usys0(__NR_getpgrp), getpid());
	CHECK_EQ(usys0(__NR_setsid), -EPERM);                    /* a group leader cannot */
	a = fork();
	CHECK(a >= 0);
	if (a == 0)
		for (;;)
			usys0(__NR_sched_yield);
	b = fork();
	CHECK(b >= 0);
	if (b == 0) {
		long s = usys0(__NR_setsid);                     /* not a leader: a new session */

		_exit(s == getpid() && usys1(__NR_getsid, 0) == getpid() && usys0(__NR_getpgrp) == getpid() ? 0 : 1);
	}
	CHECK_EQ(usys1(__NR_getpgid, a), getpid());              /* inherited */
	CHECK_EQ(waitpid(b, &st, 0), b);
	CHECK_EQ(st, 0);
	CHECK_EQ(usys2(__NR_setpgid, a, a), 0);                  /* a leads its own group now */
	CHECK_EQ(usys1(__NR_getpgid, a), a);
	CHECK_EQ(waitpid(-a, &st, WNOHANG), 0);
	CHECK_EQ(kill(-a, SIGKILL), 0);
	CHECK_EQ(waitpid(-a, &st, 0), a);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(kill(-a, 0), -1);                              /* the group is gone */
	CHECK_EQ(errno, ESRCH);
}


static volatile int usr2_code, usr2_seen;

static void on_usr2(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	usr2_seen++;
	usr2_code = si->si_code;
}

/* rt_sigpending shows a blocked pending signal; rt_sigqueueinfo delivers the caller's si_code to itself. */
static void t_sigpending_queueinfo(void)
{
	sigset_t block = sigmask_of(SIGUSR2), none = 0, pend = 0;
	struct sigaction sa;
	siginfo_t si;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr2;
	sa.sa_flags = SA_SIGINFO;
	CHECK_EQ(sigaction(SIGUSR2, &sa, NULL), 0);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &block, NULL), 0);
	memset(&si, 0, sizeof(si));
	si.si_code = -1;                                        /* SI_QUEUE */
	CHECK_EQ(usys3(__NR_rt_sigqueueinfo, getpid(), SIGUSR2, (long)&si), 0);
	CHECK_EQ(usys2(__NR_rt_sigpending, (long)&pend, 8), 0);
	CHECK_EQ(pend, block);
	CHECK_EQ(usys2(__NR_rt_sigpending, (long)&pend, 9), -EINVAL);
	CHECK_EQ(usys2(__NR_rt_sigpending, 0x10, 8), -EFAULT);
	CHECK_EQ(sigprocmask(SIG_SETMASK, &none, NULL), 0);
	CHECK_EQ(usr2_seen, 1);
	CHECK_EQ(usr2_code, -1);
	CHECK_EQ(usys3(__NR_rt_sigqueueinfo, getpid(), SIGUSR2, 0x10), -EFAULT);
	si.si_code = 0;                                         /* SI_USER to another process: not allowed */
	CHECK_EQ(usys3(__NR_rt_sigqueueinfo, 1, SIGUSR2, (long)&si), -EPERM);
}

/* ppoll and pselect6: timespec timeouts, bad times, a pipe that is ready. */
static void t_ppoll_pselect(void)
{
	struct pollfd_u f;
	long ts[2] = { 0, 20000000 }, bad[2] = { 0, 1000000000 };
	unsigned long rd[16];
	int p[2];

	CHECK_EQ(pipe(p), 0);
	f = (struct pollfd_u){ p[0], POLLIN, 0 };
	CHECK_EQ(usys5(__NR_ppoll, (long)&f, 1, (long)ts, 0, 8), 0);
	CHECK_EQ(usys5(__NR_ppoll, (long)&f, 1, (long)bad, 0, 8), -EINVAL);
	CHECK_EQ(write(p[1], "x", 1), 1);
	CHECK_EQ(usys5(__NR_ppoll, (long)&f, 1, 0, 0, 8), 1);
	CHECK_EQ(f.revents, POLLIN);
	memset(rd, 0, sizeof(rd));
	rd[p[0] / 64] |= 1UL << (p[0] % 64);
	ts[1] = 20000000;
	CHECK_EQ(usys6(__NR_pselect6, p[0] + 1, (long)rd, 0, 0, (long)ts, 0), 1);
	CHECK_EQ(usys6(__NR_pselect6, p[0] + 1, (long)rd, 0, 0, (long)bad, 0), -EINVAL);
	CHECK_EQ(usys6(__NR_pselect6, -1, 0, 0, 0, (long)ts, 0), -EINVAL);
}

/* getgroups: a count (no list needed with size 0); a negative size is EINVAL. */
static void t_getgroups(void)
{
	unsigned groups[64];
	long n = usys2(__NR_getgroups, 0, 0);

	CHECK(n >= 0 && n <= 64);
	CHECK_EQ(usys2(__NR_getgroups, 64, (long)groups), n);
	CHECK_EQ(usys2(__NR_getgroups, -1, (long)groups), -EINVAL);
}


/* getdents64 on "/": ".", "..", 8-aligned records, then 0 at the end; not a directory: ENOTDIR. */
static void t_getdents(void)
{
	static char buf[65536];
	int fd = open("/", O_RDONLY | O_DIRECTORY), p[2], dots = 0;
	long n, total = 0;

	CHECK(fd >= 0);
	while ((n = usys3(__NR_getdents64, fd, (long)buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			unsigned short reclen = *(unsigned short *)(buf + off + 16);
			const char *name = buf + off + 19;

			CHECK_EQ(reclen % 8, 0);
			dots += strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
			off += reclen;
		}
		total += n;
	}
	CHECK_EQ(n, 0);
	CHECK(total > 0);
	CHECK_EQ(dots, 2);
	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(usys3(__NR_getdents64, p[0], (long)buf, sizeof(buf)), -ENOTDIR);
	CHECK_EQ(usys3(__NR_getdents64, 999, (long)buf, sizeof(buf)), -EBADF);
	CHECK_EQ(usys3(__NR_getdents64, fd, (long)buf, 1), 0);          /* at the end already */
	CHECK_EQ(lseek(fd, 0, 0), 0);
	CHECK_EQ(usys3(__NR_getdents64, fd, (long)buf, 1), -EINVAL);    /* no room for one record */
}

const struct utest ut_fd_tests[] = {
	{ "getdents", t_getdents },
	{ "poll", t_poll },
	{ "select", t_select },
	{ "readlink", t_readlink },
	{ "pgrp", t_pgrp },
	{ "sigpending_queueinfo", t_sigpending_queueinfo },
	{ "ppoll_pselect", t_ppoll_pselect },
	{ "getgroups", t_getgroups },
	{ "fd_lowest", t_fd_lowest },
	{ "fd_dup", t_fd_dup },
	{ "fd_fcntl", t_fd_fcntl },
	{ "fd_cloexec_exec", t_fd_cloexec_exec },
	{ "pipe_eof", t_pipe_eof },
	{ "pipe_bulk", t_pipe_bulk },
	{ "pipe_sigpipe", t_pipe_sigpipe },
	{ "pipe_nonblock", t_pipe_nonblock },
	{ "pipe_atomic", t_pipe_atomic },
	{ "stat_family", t_stat_family },
	{ "access", t_access },
	{ "cwd", t_cwd },
	{ "readv_file", t_readv_file },
	{ NULL, NULL },
};
