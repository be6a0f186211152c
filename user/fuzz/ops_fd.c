/*
 * File-descriptor operations over the pool: open (the seed's files, its
 * directory, /proc files), memfd_create, pipe2, epoll_create1, read,
 * write, pread, pwrite, lseek, ftruncate, fstat, getdents64, fsync, dup,
 * dup2, dup3, fcntl, epoll_ctl, epoll_wait, close. Pipes are non-blocking
 * (fcntl keeps O_NONBLOCK), epoll_wait never waits, fds 0-2 are never
 * touched: no operation blocks, and the console stays the driver's.
 */
#include "fuzz.h"

#define FZ_IO_MAX (16 * 1024)           /* bytes per read/write: files grow slowly */
#define EPOLL_CTL_ADD 1
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034

/* A buffer for read/write: the actor's own mostly, else arena memory (may fault: -EFAULT or short). */
static char *io_buf(struct actor *a, unsigned long n)
{
	if (fz_chance(a, 80))
		return a->buf + fz_below(a, FZ_BUF_SIZE - n + 1);
	return fz_pool->arena + fz_below(a, FZ_ARENA_PAGES * UPAGE_SIZE - n + 1);
}

static unsigned long io_len(struct actor *a)
{
	return fz_chance(a, 70) ? 1 + fz_below(a, 512) : fz_below(a, FZ_IO_MAX + 1);
}

static void op_open(struct actor *a)
{
	static const char *const fixed[] = { "/proc/self/maps", "/proc/self/status", "/proc/self/smaps",
					     "/proc/meminfo", "/", "/nonexistent/x", "" };
	static const int acc[] = { O_RDONLY, O_WRONLY, O_RDWR, O_RDWR };
	char path[64];
	int flags = acc[fz_below(a, 4)];
	unsigned r = (unsigned)fz_below(a, 100);

	if (r < 75)
		snprintf(path, sizeof(path), "%s/f%d", fz_pool->dir, (int)fz_below(a, FZ_FILES));
	else if (r < 80)
		snprintf(path, sizeof(path), "%s", fz_pool->dir);
	else {
		snprintf(path, sizeof(path), "%s", fixed[fz_below(a, sizeof(fixed) / sizeof(fixed[0]))]);
		flags = O_RDONLY;               /* never write /proc files */
	}
	if (r < 80) {
		flags |= fz_chance(a, 60) ? O_CREAT : 0;
		flags |= fz_chance(a, 10) ? O_TRUNC : 0;
		flags |= fz_chance(a, 15) ? O_APPEND : 0;
		flags |= fz_chance(a, 5) ? O_EXCL : 0;
		flags |= fz_chance(a, 5) ? O_DIRECTORY : 0;
	}
	flags |= fz_chance(a, 20) ? O_CLOEXEC : 0;
	fz_add_fd(a, (int)fz_count(sys_open(path, flags | O_NONBLOCK, 0600)));
}

static void op_create(struct actor *a)
{
	int fds[2];
	long r;

	switch (fz_below(a, 3)) {
	case 0:
		r = fz_count(sys_memfd_create("fuzz", fz_chance(a, 95) ? (unsigned)fz_below(a, 4) : 0x100)); /* CLOEXEC, ALLOW_SEALING */
		fz_add_fd(a, (int)r);
		if (r >= 0 && fz_chance(a, 70))
			fz_count(sys_ftruncate((int)r, fz_below(a, 64) * UPAGE_SIZE));
		break;
	case 1:
		if (fz_count(usys2(__NR_pipe2, (long)fds, O_NONBLOCK | (fz_chance(a, 20) ? O_CLOEXEC : 0))) == 0) {
			fz_add_fd(a, fds[0]);
			fz_add_fd(a, fds[1]);
		}
		break;
	default:
		fz_add_fd(a, (int)fz_count(usys1(__NR_epoll_create1, fz_chance(a, 95) ? (fz_chance(a, 50) ? O_CLOEXEC : 0) : 1)));
		break;
	}
}

static void op_rw(struct actor *a)
{
	int fd = fz_fd(a);
	unsigned long n = io_len(a);
	char *b = io_buf(a, n);
	unsigned long off = fz_chance(a, 90) ? fz_below(a, FZ_MAX_FILE) : -1UL;

	switch (fz_below(a, 4)) {
	case 0: fz_count(sys_read(fd, b, n)); break;
	case 1: fz_count(sys_write(fd, b, n)); break;
	case 2: fz_count(sys_pread(fd, b, n, off)); break;
	default: fz_count(sys_pwrite(fd, b, n, off)); break;
	}
}

static void op_meta(struct actor *a)
{
	int fd = fz_fd(a);

	switch (fz_below(a, 6)) {
	case 0:
		fz_count(usys3(__NR_lseek, fd, fz_chance(a, 90) ? (long)fz_below(a, FZ_MAX_FILE) : -(long)fz_below(a, 9999),
			       (long)fz_below(a, 6)));      /* SET, CUR, END, DATA, HOLE, bad */
		break;
	case 1:
		fz_count(sys_ftruncate(fd, fz_chance(a, 95) ? fz_below(a, FZ_MAX_FILE) : -1UL));
		break;
	case 2:
		fz_count(usys2(__NR_fstat, fd, (long)a->buf));
		break;
	case 3:
		fz_count(usys3(__NR_getdents64, fd, (long)a->buf, (long)fz_below(a, 4096)));
		break;
	case 4:
		fz_count(usys1(__NR_fsync, fd));
		break;
	default:
		fz_count(usys3(__NR_fcntl, fd, fz_chance(a, 50) ? F_ADD_SEALS : F_GET_SEALS, (long)fz_below(a, 32)));
		break;
	}
}

static void op_dup(struct actor *a)
{
	int fd = fz_fd(a), to = 3 + (int)fz_below(a, 40);

	switch (fz_below(a, 5)) {
	case 0: fz_add_fd(a, (int)fz_count(usys1(__NR_dup, fd))); break;
	case 1: fz_add_fd(a, (int)fz_count(usys2(__NR_dup2, fd, to))); break;
	case 2: fz_add_fd(a, (int)fz_count(usys3(__NR_dup3, fd, to, fz_chance(a, 80) ? O_CLOEXEC : 1))); break;
	case 3: fz_add_fd(a, (int)fz_count(usys3(__NR_fcntl, fd, fz_chance(a, 50) ? F_DUPFD : F_DUPFD_CLOEXEC, to))); break;
	default:
		fz_count(usys3(__NR_fcntl, fd, F_SETFL, O_NONBLOCK | (fz_chance(a, 50) ? O_APPEND : 0)));
		break;
	}
}

static void op_epoll(struct actor *a)
{
	struct { uint32_t events; uint64_t data; } __attribute__((packed)) ev = { (uint32_t)fz_rand(a), fz_rand(a) };

	if (fz_chance(a, 60))
		fz_count(usys4(__NR_epoll_ctl, fz_fd(a), fz_chance(a, 95) ? EPOLL_CTL_ADD + (long)fz_below(a, 3) : 7,
			       fz_fd(a), (long)&ev));
	else
		fz_count(usys4(__NR_epoll_wait, fz_fd(a), (long)a->buf, fz_chance(a, 95) ? 1 + (long)fz_below(a, 16) : 0, 0));
}

static void op_close(struct actor *a)
{
	unsigned i = (unsigned)fz_below(a, FZ_MAX_FDS);
	int fd = fz_chance(a, 90) ? __atomic_exchange_n(&fz_pool->fds[i], -1, __ATOMIC_ACQ_REL) : fz_fd(a);

	if (fd > 2 || fd == -1)
		fz_count(sys_close(fd));
}

void fz_op_fd(struct actor *a)
{
	switch (fz_below(a, 12)) {
	case 0: case 1: op_open(a); break;
	case 2: op_create(a); break;
	case 3: case 4: case 5: op_rw(a); break;
	case 6: case 7: op_meta(a); break;
	case 8: op_dup(a); break;
	case 9: op_epoll(a); break;
	default: op_close(a); break;
	}
}
