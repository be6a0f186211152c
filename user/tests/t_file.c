/*
 * Files and file-backed mappings, the same on the host Linux and on our
 * kernel: each test works in a directory of its own under /dev/shm (a
 * tmpfs on Linux, so both sides have tmpfs's semantics) and removes it. Expected values are Linux's behaviour (checked by running this very
 * binary on Linux: make test-user-linux) with the reason next to each.
 *
 *   read/write/pread/pwrite/lseek/O_APPEND/O_TRUNC/O_EXCL, fstat sizes
 *   directories: mkdir, rmdir, rename, getdents64, chdir, getcwd
 *   path errors: ENAMETOOLONG, ENOTDIR, ENOENT, ELOOP, EISDIR, EEXIST
 *   mmap: write() seen by a shared mapping and the other way round,
 *   private COW, SIGBUS past the end, truncate while mapped, two
 *   processes sharing a mapping, msync's errors, EACCES for a writable
 *   shared mapping of a read-only file, ENODEV/EACCES for other files,
 *   mincore of file pages, MADV_DONTNEED on a private mapping, mremap,
 *   /proc/self/maps names, memfd_create, exec of a file, frames back after
 *   files are made, mapped and deleted; on several CPUs: hole punching and
 *   truncation racing with threads and processes reading the mapping.
 */
#include "utests.h"
#include "uthread.h"

#define PG 4096UL

/* raw system calls: the result or -errno */
#define SYS_MKDIR(p, m)        usys2(__NR_mkdir, (long)(p), (m))
#define SYS_RMDIR(p)           usys1(__NR_rmdir, (long)(p))
#define SYS_UNLINK(p)          usys1(__NR_unlink, (long)(p))
#define SYS_RENAME(a, b)       usys2(__NR_rename, (long)(a), (long)(b))
#define SYS_OPEN(p, f, m)      usys3(__NR_open, (long)(p), (f), (m))
#define SYS_FTRUNCATE(fd, n)   usys2(__NR_ftruncate, (fd), (long)(n))
#define SYS_MSYNC(a, n, f)     usys3(__NR_msync, (long)(a), (long)(n), (f))
#define SYS_SYMLINK(t, p)      usys2(__NR_symlink, (long)(t), (long)(p))

/* Linux's struct stat on x86-64: the fields the tests look at. */
struct ustat {
	uint64_t dev, ino, nlink;
	uint32_t mode, uid, gid, pad0;
	uint64_t rdev;
	int64_t size, blksize, blocks;
	int64_t times[6];
	int64_t reserved[3];
};

static char dir[64];

/* The test's own directory, made fresh; paths below it through path(). */
static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/dev/shm/vmk-ft-%d", getpid());
	CHECK_EQ(SYS_MKDIR(dir, 0755), 0);
}

static const char *path(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* A file of n bytes, byte i = fill + i % 251, open read-write. */
static int make_file(const char *name, size_t n, int fill)
{
	static char buf[PG];
	int fd = (int)SYS_OPEN(path(name), O_RDWR | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0);
	for (size_t done = 0; done < n;) {
		size_t chunk = n - done < PG ? n - done : PG;

		for (size_t i = 0; i < chunk; i++)
			buf[i] = (char)(fill + (done + i) % 251);
		CHECK_EQ(write(fd, buf, chunk), (long)chunk);
		done += chunk;
	}
	return fd;
}

static long fsize(int fd)
{
	struct ustat st;

	CHECK_EQ(usys2(__NR_fstat, fd, (long)&st), 0);
	return st.size;
}

/* ------------------------------------------------------------ SIGBUS */

static sigjmp_buf jb;
static volatile int got_sig;

static void on_fault(int sig)
{
	got_sig = sig;
	siglongjmp(jb, 1);
}

static void catch_faults(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	CHECK_EQ(sigaction(SIGBUS, &sa, NULL), 0);
	CHECK_EQ(sigaction(SIGSEGV, &sa, NULL), 0);
}

/* Read the byte at p: its value, or -SIGBUS / -SIGSEGV. */
static int peek(volatile char *p)
{
	got_sig = 0;
	if (sigsetjmp(jb, 1) == 0)
		return (unsigned char)*p;
	return -got_sig;
}

/* Write v at p: 0, or -SIGBUS / -SIGSEGV. */
static int poke(volatile char *p, char v)
{
	got_sig = 0;
	if (sigsetjmp(jb, 1) == 0) {
		*p = v;
		return 0;
	}
	return -got_sig;
}

/* ------------------------------------------------------------ file I/O */

/*
 * read/write/pread/pwrite/lseek on a regular file: the offset moves only
 * for read and write; SEEK_END counts from the size; a write past the end
 * leaves a hole of zeros; O_APPEND writes at the end, pwrite too (Linux's
 * documented pwrite bug); O_TRUNC empties; fstat sees the size.
 */
static void t_file_rw(void)
{
	char buf[16];
	int fd;

	make_dir();
	fd = make_file("a", 10, 'a');
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 10);
	CHECK_EQ(usys4(__NR_pwrite64, fd, (long)"XY", 2, 20), 2);
	CHECK_EQ(fsize(fd), 22);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 10);           /* pwrite leaves the offset */
	CHECK_EQ(read(fd, buf, 16), 12);
	CHECK_EQ(buf[0], 0);                            /* the hole [10, 20) */
	CHECK_EQ(buf[10], 'X');
	CHECK_EQ(lseek(fd, -2, SEEK_END), 20);
	CHECK_EQ(usys4(__NR_pread64, fd, (long)buf, 4, 0), 4);
	CHECK_EQ(memcmp(buf, "abcd", 4), 0);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 20);           /* pread leaves it too */
	CHECK_EQ(usys4(__NR_pread64, fd, (long)buf, 4, 100), 0);
	CHECK_EQ(usys4(__NR_pread64, fd, (long)buf, 4, -1), -EINVAL);
	close(fd);
	fd = (int)SYS_OPEN(path("a"), O_WRONLY | O_APPEND, 0);
	CHECK_EQ(write(fd, "Z", 1), 1);
	CHECK_EQ(usys4(__NR_pwrite64, fd, (long)"W", 1, 0), 1);     /* appends anyway */
	CHECK_EQ(fsize(fd), 24);
	CHECK_EQ(read(fd, buf, 1), -1);                 /* not open for reading */
	CHECK_EQ(errno, EBADF);
	close(fd);
	fd = (int)SYS_OPEN(path("a"), O_RDONLY | O_TRUNC, 0);      /* as root: emptied */
	CHECK_EQ(fsize(fd), 0);
	CHECK_EQ(write(fd, "x", 1), -1);
	CHECK_EQ(errno, EBADF);
	close(fd);
	CHECK_EQ(SYS_UNLINK(path("a")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/* open(2)'s errors, in Linux's order and with its errnos. */
static void t_file_open_errors(void)
{
	char longname[300];
	int fd;

	make_dir();
	fd = make_file("f", 1, 0);
	close(fd);
	CHECK_EQ(SYS_OPEN(path("f"), O_CREAT | O_EXCL | O_RDWR, 0644), -EEXIST);
	CHECK_EQ(SYS_OPEN(path("f"), O_RDONLY | O_DIRECTORY, 0), -ENOTDIR);
	CHECK_EQ(SYS_OPEN(path("f/x"), O_RDONLY, 0), -ENOTDIR);
	CHECK_EQ(SYS_OPEN(path("f/"), O_RDONLY, 0), -ENOTDIR);
	CHECK_EQ(SYS_OPEN(path("none"), O_RDONLY, 0), -ENOENT);
	CHECK_EQ(SYS_OPEN(path("none/x"), O_RDONLY | O_CREAT, 0644), -ENOENT);
	CHECK_EQ(SYS_OPEN(dir, O_RDWR, 0), -EISDIR);
	CHECK_EQ(SYS_OPEN(dir, O_RDONLY | O_CREAT, 0644), -EISDIR);
	CHECK_EQ(SYS_OPEN(path("g/"), O_RDWR | O_CREAT, 0644), -EISDIR);
	CHECK_EQ(SYS_OPEN(path("d"), O_RDWR | O_CREAT | O_DIRECTORY, 0644), -EINVAL);  /* Linux 6.4 on */
	memset(longname, 'n', 256);
	longname[256] = 0;
	CHECK_EQ(SYS_OPEN(path(longname), O_RDONLY, 0), -ENAMETOOLONG);   /* a name over NAME_MAX */
	CHECK_EQ(SYS_OPEN(path(longname), O_RDWR | O_CREAT, 0644), -ENAMETOOLONG);
	CHECK_EQ(SYS_SYMLINK("loop2", path("loop1")), 0);
	CHECK_EQ(SYS_SYMLINK("loop1", path("loop2")), 0);
	CHECK_EQ(SYS_OPEN(path("loop1"), O_RDONLY, 0), -ELOOP);
	CHECK_EQ(SYS_OPEN(path("loop1"), O_RDONLY | O_NOFOLLOW, 0), -ELOOP);
	CHECK_EQ(SYS_UNLINK(path("loop1")), 0);
	CHECK_EQ(SYS_UNLINK(path("loop2")), 0);
	CHECK_EQ(SYS_UNLINK(path("f")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/* A path of PATH_MAX bytes or more is ENAMETOOLONG before anything is looked up. */
static void t_file_path_too_long(void)
{
	static char p[4200];

	for (size_t i = 0; i + 2 < sizeof(p); i += 2)
		memcpy(p + i, "a/", 2);
	p[4096] = 0;                                    /* 4096 bytes without the NUL */
	CHECK_EQ(SYS_OPEN(p, O_RDONLY, 0), -ENAMETOOLONG);
	CHECK_EQ(usys2(__NR_stat, (long)p, (long)p), -ENAMETOOLONG);
	CHECK_EQ(SYS_MKDIR(p, 0755), -ENAMETOOLONG);
	p[4095] = 0;                                    /* 4095 bytes: looked up */
	CHECK_EQ(SYS_OPEN(p, O_RDONLY, 0), -ENOENT);
}

/* ------------------------------------------------------------ directories */

/* Does directory fd list name? (getdents64 through a small buffer, so several calls.) */
static bool lists(int fd, const char *name)
{
	char buf[64];
	bool found = false;
	long n;

	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
	while ((n = usys3(__NR_getdents64, fd, (long)buf, sizeof(buf))) > 0)
		for (long i = 0; i < n;) {
			unsigned short reclen = *(unsigned short *)(buf + i + 16);

			if (strcmp(buf + i + 19, name) == 0)
				found = true;
			i += reclen;
		}
	CHECK_EQ(n, 0);
	return found;
}

/*
 * mkdir, rmdir, rename, getdents64, chdir, getcwd: a directory's entries
 * come and go with its names, a non-empty directory cannot be removed, a
 * file cannot become a directory, getcwd follows chdir, and "." / ".." work.
 */
static void t_file_dirs(void)
{
	char cwd[256];
	int fd;

	make_dir();
	CHECK_EQ(SYS_MKDIR(path("sub"), 0755), 0);
	CHECK_EQ(SYS_MKDIR(path("sub"), 0755), -EEXIST);
	fd = make_file("sub/f", 5, 'q');
	close(fd);
	fd = (int)SYS_OPEN(path("sub"), O_RDONLY | O_DIRECTORY, 0);
	CHECK(fd >= 0);
	CHECK(lists(fd, "f"));
	CHECK_EQ(SYS_RMDIR(path("sub")), -ENOTEMPTY);
	CHECK_EQ(SYS_UNLINK(path("sub")), -EISDIR);
	CHECK_EQ(SYS_RMDIR(path("sub/f")), -ENOTDIR);
	CHECK_EQ(SYS_RENAME(path("sub/f"), path("sub/g")), 0);
	CHECK(!lists(fd, "f"));
	CHECK(lists(fd, "g"));
	CHECK_EQ(SYS_RENAME(path("sub/g"), path("sub")), -ENOTEMPTY);  /* onto its own directory */
	close(make_file("h", 0, 0));
	CHECK_EQ(SYS_MKDIR(path("e"), 0755), 0);
	CHECK_EQ(SYS_RENAME(path("h"), path("e")), -EISDIR);
	CHECK_EQ(SYS_RMDIR(path("e")), 0);
	CHECK_EQ(SYS_RENAME(path("sub"), path("h")), -ENOTDIR);
	CHECK_EQ(SYS_RENAME(path("sub"), path("sub/g")), -EINVAL);  /* into itself, before the rest */
	CHECK_EQ(SYS_UNLINK(path("h")), 0);
	CHECK_EQ(usys1(__NR_chdir, (long)path("sub")), 0);
	CHECK_EQ(usys2(__NR_getcwd, (long)cwd, sizeof(cwd)), (long)strlen(path("sub")) + 1);
	CHECK_EQ(strcmp(cwd, path("sub")), 0);
	CHECK_EQ(usys2(__NR_getcwd, (long)cwd, 3), -ERANGE);
	CHECK_EQ(SYS_UNLINK("g"), 0);                   /* relative to the new cwd */
	CHECK_EQ(usys1(__NR_chdir, (long)".."), 0);
	CHECK_EQ(usys2(__NR_getcwd, (long)cwd, sizeof(cwd)), (long)strlen(dir) + 1);
	CHECK_EQ(SYS_RMDIR("sub/."), -EINVAL);
	CHECK_EQ(SYS_RMDIR("sub"), 0);
	CHECK_EQ(usys3(__NR_getdents64, fd, (long)cwd, sizeof(cwd)), -ENOENT);  /* a removed directory */
	close(fd);
	CHECK_EQ(usys1(__NR_chdir, (long)"/"), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/* --------------------------------------------------------------- mmap */

/*
 * The page cache is one: write() is seen by a shared mapping, a store
 * through the mapping by read() and by a second mapping (Linux maps the
 * same page-cache page everywhere).
 */
static void t_file_mmap_coherent(void)
{
	char buf[4];
	int fd;
	char *p, *q;

	make_dir();
	fd = make_file("m", 2 * PG, 0);
	p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	q = mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, PG);
	CHECK(p != MAP_FAILED && q != MAP_FAILED);
	CHECK_EQ(usys4(__NR_pwrite64, fd, (long)"AB", 2, PG + 5), 2);
	CHECK_EQ(p[PG + 5], 'A');
	CHECK_EQ(q[6], 'B');
	p[PG + 7] = 'C';
	CHECK_EQ(q[7], 'C');
	CHECK_EQ(usys4(__NR_pread64, fd, (long)buf, 3, PG + 5), 3);
	CHECK_EQ(memcmp(buf, "ABC", 3), 0);
	close(fd);                              /* the mappings keep the file */
	p[0] = 'Z';
	fd = (int)SYS_OPEN(path("m"), O_RDONLY, 0);
	CHECK_EQ(read(fd, buf, 1), 1);
	CHECK_EQ(buf[0], 'Z');
	close(fd);
	munmap(p, 2 * PG);
	munmap(q, PG);
	CHECK_EQ(SYS_UNLINK(path("m")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/*
 * MAP_PRIVATE sees the file until its first write, which copies the page
 * (the file keeps its bytes); a page not written yet still follows the
 * file; MADV_DONTNEED drops the copy and brings the file's bytes back.
 */
static void t_file_mmap_private_cow(void)
{
	int fd;
	char *p;

	make_dir();
	fd = make_file("p", 2 * PG, 'a');
	p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(p != MAP_FAILED);
	CHECK_EQ(p[1], 'b');
	p[1] = 'X';                             /* page 0 is now a private copy */
	CHECK_EQ(usys4(__NR_pwrite64, fd, (long)"YY", 2, 0), 2);
	CHECK_EQ(usys4(__NR_pwrite64, fd, (long)"ZZ", 2, PG), 2);
	CHECK_EQ(p[1], 'X');                    /* the copy keeps its own bytes */
	CHECK_EQ(p[0], 'a');
	CHECK_EQ(p[PG], 'Z');                   /* page 1, never written: the file's page */
	CHECK_EQ(madvise(p, PG, MADV_DONTNEED), 0);
	CHECK_EQ(p[0], 'Y');                    /* the copy is gone: the file again */
	CHECK_EQ(p[1], 'Y');
	munmap(p, 2 * PG);
	close(fd);
	CHECK_EQ(SYS_UNLINK(path("p")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/*
 * A page wholly past the end of the file is SIGBUS; the last, partial page
 * reads zeros after the end. Truncating a mapped file makes its pages past
 * the new end SIGBUS in every mapping, private copies included; growing it
 * again shows zeros, not the old bytes.
 */
static void t_file_mmap_sigbus_truncate(void)
{
	int fd;
	char *s, *p;

	catch_faults();
	make_dir();
	fd = make_file("t", PG + 100, 'a');
	s = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	p = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(s != MAP_FAILED && p != MAP_FAILED);
	CHECK_EQ(peek(s + PG + 99), (unsigned char)('a' + (PG + 99) % 251));
	CHECK_EQ(peek(s + PG + 100), 0);        /* the tail of the last page */
	CHECK_EQ(peek(s + 2 * PG), -SIGBUS);
	CHECK_EQ(poke(p + 2 * PG, 1), -SIGBUS);
	CHECK_EQ(poke(p + PG, 'P'), 0);         /* a private copy of page 1 */
	CHECK_EQ(SYS_FTRUNCATE(fd, 10), 0);
	CHECK_EQ(peek(s + PG), -SIGBUS);
	CHECK_EQ(peek(p + PG), -SIGBUS);        /* the copy went too */
	CHECK_EQ(peek(s + 9), 'a' + 9);
	CHECK_EQ(peek(s + 10), 0);              /* zeroed by the truncation */
	CHECK_EQ(SYS_FTRUNCATE(fd, 2 * PG), 0);
	CHECK_EQ(peek(s + PG + 5), 0);
	CHECK_EQ(peek(p + PG + 5), 0);
	CHECK_EQ(peek(s + 20), 0);
	munmap(s, 3 * PG);
	munmap(p, 3 * PG);
	close(fd);
	CHECK_EQ(SYS_UNLINK(path("t")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/* Two processes: a store through one's shared mapping is seen by the other's, mapped before or after fork. */
static void t_file_mmap_two_processes(void)
{
	int fd, st, pid;
	char *p;

	make_dir();
	fd = make_file("s", PG, 0);
	p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	pid = fork();
	if (pid == 0) {
		/* the child also maps the file by its own open */
		int cfd = (int)SYS_OPEN(path("s"), O_RDWR, 0);
		char *c = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);

		if (cfd < 0 || c == MAP_FAILED)
			_exit(2);
		p[10] = 'F';                    /* through the inherited mapping */
		c[11] = 'O';                    /* through its own */
		_exit(c[10] == 'F' ? 0 : 3);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	CHECK_EQ(p[10], 'F');
	CHECK_EQ(p[11], 'O');
	munmap(p, PG);
	close(fd);
	CHECK_EQ(SYS_UNLINK(path("s")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/* msync's checks (Linux 6.18 sys_msync): bad flags, unaligned start, holes. */
static void t_file_msync_errors(void)
{
	int fd;
	char *p;

	make_dir();
	fd = make_file("y", 4 * PG, 0);
	p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	CHECK_EQ(munmap(p + PG, PG), 0);                /* a hole at page 1 */
	CHECK_EQ(SYS_MSYNC(p, PG, MS_SYNC), 0);
	CHECK_EQ(SYS_MSYNC(p, PG, MS_SYNC | MS_ASYNC), -EINVAL);
	CHECK_EQ(SYS_MSYNC(p, PG, 8), -EINVAL);
	CHECK_EQ(SYS_MSYNC(p + 1, PG, MS_SYNC), -EINVAL);
	CHECK_EQ(SYS_MSYNC(p, 0, MS_SYNC), 0);
	CHECK_EQ(SYS_MSYNC(p, 3 * PG, MS_SYNC), -ENOMEM);       /* goes on past the hole */
	CHECK_EQ(SYS_MSYNC(p, 3 * PG, MS_ASYNC), -ENOMEM);      /* stops at it */
	CHECK_EQ(SYS_MSYNC(p + PG, PG, MS_INVALIDATE), -ENOMEM);
	CHECK_EQ(SYS_MSYNC(p, 1, MS_ASYNC | MS_INVALIDATE), 0);
	CHECK_EQ(SYS_MSYNC(p, -PG, MS_SYNC), -ENOMEM);          /* wraps */
	munmap(p, 4 * PG);
	close(fd);
	CHECK_EQ(SYS_UNLINK(path("y")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/*
 * Who may map what: a shared writable mapping needs a file opened for
 * writing (EACCES, at mmap and at mprotect), a private one only reading;
 * a write-only file cannot be mapped at all; pipes and directories have no
 * mmap (ENODEV); an unaligned offset is EINVAL, a closed fd EBADF.
 */
static void t_file_mmap_access(void)
{
	int fd, ro, wo, pp[2], d;
	char *p;

	make_dir();
	fd = make_file("r", PG, 'r');
	ro = (int)SYS_OPEN(path("r"), O_RDONLY, 0);
	wo = (int)SYS_OPEN(path("r"), O_WRONLY, 0);
	CHECK(ro >= 0 && wo >= 0);
	CHECK_EQ((long)mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), -1);
	CHECK_EQ(errno, EACCES);
	p = mmap(NULL, PG, PROT_READ, MAP_SHARED, ro, 0);
	CHECK(p != MAP_FAILED);
	CHECK_EQ(mprotect(p, PG, PROT_READ | PROT_WRITE), -1);
	CHECK_EQ(errno, EACCES);
	munmap(p, PG);
	p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
	CHECK(p != MAP_FAILED);
	p[0] = 'w';                             /* a private copy: fine */
	munmap(p, PG);
	CHECK_EQ((long)mmap(NULL, PG, PROT_READ, MAP_SHARED, wo, 0), -1);
	CHECK_EQ(errno, EACCES);
	CHECK_EQ(pipe(pp), 0);
	CHECK_EQ((long)mmap(NULL, PG, PROT_READ, MAP_PRIVATE, pp[0], 0), -1);
	CHECK_EQ(errno, ENODEV);
	d = (int)SYS_OPEN(dir, O_RDONLY, 0);
	CHECK_EQ((long)mmap(NULL, PG, PROT_READ, MAP_PRIVATE, d, 0), -1);
	CHECK_EQ(errno, ENODEV);
	CHECK_EQ((long)mmap(NULL, PG, PROT_READ, MAP_PRIVATE, fd, 100), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ((long)mmap(NULL, PG, PROT_READ, MAP_PRIVATE, 999, 0), -1);
	CHECK_EQ(errno, EBADF);
	close(pp[0]);
	close(pp[1]);
	close(d);
	close(ro);
	close(wo);
	close(fd);
	CHECK_EQ(SYS_UNLINK(path("r")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/* mincore of a file mapping: a page the cache holds is resident even unmapped here; a hole is not. */
static void t_file_mincore(void)
{
	unsigned char vec[4];
	int fd;
	char *p;

	make_dir();
	fd = (int)SYS_OPEN(path("c"), O_RDWR | O_CREAT, 0644);
	CHECK_EQ(SYS_FTRUNCATE(fd, 4 * PG), 0);         /* all holes */
	CHECK_EQ(usys4(__NR_pwrite64, fd, (long)"x", 1, 2 * PG), 1);
	p = mmap(NULL, 4 * PG, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	CHECK_EQ(mincore(p, 4 * PG, vec), 0);
	CHECK_EQ(vec[0] | vec[1] << 1 | vec[2] << 2 | vec[3] << 3, 4);
	(void)*(volatile char *)p;                      /* a read fault puts page 0 in the cache */
	CHECK_EQ(mincore(p, 4 * PG, vec), 0);
	CHECK_EQ(vec[0] | vec[1] << 1 | vec[2] << 2 | vec[3] << 3, 5);
	munmap(p, 4 * PG);
	close(fd);
	CHECK_EQ(SYS_UNLINK(path("c")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/* mremap grows a shared file mapping; the new pages map the file, past its end SIGBUS. */
static void t_file_mremap(void)
{
	int fd;
	char *p, *q;

	catch_faults();
	make_dir();
	fd = make_file("g", 2 * PG, 'g');
	p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	q = mremap(p, PG, 3 * PG, MREMAP_MAYMOVE);
	CHECK(q != MAP_FAILED);
	CHECK_EQ(peek(q + PG), (unsigned char)('g' + PG % 251));
	CHECK_EQ(peek(q + 2 * PG), -SIGBUS);
	munmap(q, 3 * PG);
	close(fd);
	CHECK_EQ(SYS_UNLINK(path("g")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/* Is want (a string) within [s, end)? */
static bool contains(const char *s, const char *end, const char *want)
{
	size_t n = strlen(want);

	for (; s + n <= end; s++)
		if (memcmp(s, want, n) == 0)
			return true;
	return false;
}

/* Does /proc/self/maps have a line for [p, p + len) ending with "OFFSET ... NAME"? */
static bool maps_has(void *p, size_t len, unsigned long off, const char *name)
{
	static char buf[65536];
	char head[64];
	char *line;

	CHECK(ut_read_file("/proc/self/maps", buf, sizeof(buf)) >= 0);
	snprintf(head, sizeof(head), "%lx-%lx ", (unsigned long)p, (unsigned long)p + len);
	for (line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char *end = strchr(line, '\n'), want[32];
		size_t nl = strlen(name);

		if (strncmp(line, head, strlen(head)) || !end)
			continue;
		snprintf(want, sizeof(want), " %08lx ", off);
		return contains(line, end, want) && (size_t)(end - line) > nl &&
		       memcmp(end - nl, name, nl) == 0;
	}
	return false;
}

/* /proc/self/maps names a file mapping by its path, a memfd's as "/memfd:NAME (deleted)", with the offset. */
static void t_file_maps_names(void)
{
	char *p, *q;
	int fd, mfd;

	make_dir();
	fd = make_file("named", 3 * PG, 0);
	p = mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, 2 * PG);
	CHECK(p != MAP_FAILED);
	CHECK(maps_has(p, PG, 2 * PG, path("named")));
	mfd = (int)usys2(__NR_memfd_create, (long)"ut_memfd", 0);
	CHECK(mfd >= 0);
	CHECK_EQ(SYS_FTRUNCATE(mfd, 2 * PG), 0);
	q = mmap(NULL, PG, PROT_READ, MAP_PRIVATE, mfd, PG);
	CHECK(q != MAP_FAILED);
	CHECK(maps_has(q, PG, PG, "/memfd:ut_memfd (deleted)"));
	CHECK_EQ(SYS_UNLINK(path("named")), 0);
	CHECK(maps_has(p, PG, 2 * PG, " (deleted)"));
	munmap(p, PG);
	munmap(q, PG);
	close(fd);
	close(mfd);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/* memfd_create: an empty file in no directory, its errors (flags, a name over 249 bytes). */
static void t_file_memfd(void)
{
	char name[300];
	struct ustat st;
	int fd = (int)usys2(__NR_memfd_create, (long)"m", 1 /* MFD_CLOEXEC */);

	CHECK(fd >= 0);
	CHECK_EQ(usys2(__NR_fstat, fd, (long)&st), 0);
	CHECK_EQ(st.size, 0);
	CHECK_EQ(st.mode & 0170000, 0100000);
	CHECK_EQ(st.nlink, 0);
	CHECK_EQ(fcntl(fd, F_GETFD, 0), FD_CLOEXEC);
	CHECK_EQ(write(fd, "abc", 3), 3);
	CHECK_EQ(fsize(fd), 3);
	close(fd);
	CHECK_EQ(usys2(__NR_memfd_create, (long)"m", 0x100), -EINVAL);
	memset(name, 'a', 250);
	name[250] = 0;
	CHECK_EQ(usys2(__NR_memfd_create, (long)name, 0), -EINVAL);
	name[249] = 0;
	fd = (int)usys2(__NR_memfd_create, (long)name, 0);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(usys2(__NR_memfd_create, 16, 0), -EFAULT);
	fd = (int)usys2(__NR_memfd_create, (long)"with/slash", 0);   /* any bytes but NUL */
	CHECK(fd >= 0);
	close(fd);
}

/* A copy of this program in a file runs by its path; a file without an x bit or a directory does not (EACCES). */
static void t_file_exec(void)
{
	static char buf[65536];
	char *argv[] = { NULL, "--exit", "7", NULL };
	int in, out, st, pid;
	long n;

	make_dir();
	in = (int)SYS_OPEN(ut_argv0, O_RDONLY, 0);
	out = (int)SYS_OPEN(path("copy"), O_WRONLY | O_CREAT | O_EXCL, 0755);
	CHECK(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		CHECK_EQ(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	argv[0] = (char *)path("copy");
	pid = fork();
	if (pid == 0) {
		execve(path("copy"), argv, NULL);
		_exit(99);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 7);
	CHECK_EQ(usys2(__NR_chmod, (long)path("copy"), 0644), 0);
	CHECK_EQ(usys3(__NR_execve, (long)path("copy"), (long)argv, 0), -EACCES);
	CHECK_EQ(usys3(__NR_execve, (long)dir, (long)argv, 0), -EACCES);
	CHECK_EQ(SYS_UNLINK(path("copy")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/*
 * Frames are all back after files are made, written, mapped (shared and
 * private, written through both), truncated, unmapped, closed and deleted
 * (this kernel only: vmk_memstat).
 */
/*
 * Extended attributes of a tmpfs file with none: names a tmpfs knows are
 * ENODATA, others EOPNOTSUPP, a bare prefix EINVAL, an empty name ERANGE,
 * lists empty; the path's errors and EBADF as usual (ls -l asks these).
 */
static void t_file_xattr(void)
{
	char v[16];
	int fd;

	make_dir();
	fd = make_file("x", 1, 0);
	CHECK_EQ(usys4(__NR_getxattr, (long)path("x"), (long)"user.test", (long)v, sizeof(v)), -ENODATA);
	CHECK_EQ(usys4(__NR_lgetxattr, (long)path("x"), (long)"system.posix_acl_access", (long)v, sizeof(v)),
		 -ENODATA);
	CHECK_EQ(usys4(__NR_fgetxattr, fd, (long)"trusted.t", (long)v, sizeof(v)), -ENODATA);
	CHECK_EQ(usys4(__NR_getxattr, (long)path("x"), (long)"frob.x", (long)v, sizeof(v)), -EOPNOTSUPP);
	CHECK_EQ(usys4(__NR_getxattr, (long)path("x"), (long)"user.", (long)v, sizeof(v)), -EINVAL);
	CHECK_EQ(usys4(__NR_getxattr, (long)path("x"), (long)"", (long)v, sizeof(v)), -ERANGE);
	CHECK_EQ(usys4(__NR_getxattr, (long)path("none"), (long)"user.test", (long)v, sizeof(v)), -ENOENT);
	CHECK_EQ(usys4(__NR_getxattr, (long)path("none"), (long)"", (long)v, sizeof(v)), -ERANGE);
	CHECK_EQ(usys4(__NR_fgetxattr, 900, (long)"user.test", (long)v, sizeof(v)), -EBADF);
	CHECK_EQ(usys3(__NR_listxattr, (long)path("x"), (long)v, sizeof(v)), 0);
	CHECK_EQ(usys3(__NR_llistxattr, (long)dir, 0, 0), 0);
	CHECK_EQ(usys3(__NR_flistxattr, fd, (long)v, sizeof(v)), 0);
	CHECK_EQ(usys3(__NR_listxattr, (long)path("none"), 0, 0), -ENOENT);
	close(fd);
	CHECK_EQ(SYS_UNLINK(path("x")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

static void t_file_no_leak(void)
{
	struct vmk_memstat a, b;
	char *s, *p;
	int fd;

	make_dir();
	for (int round = 0; round < 4; round++) {
		/* round 0 warms up: this process's own pages (make_file's buffer, the stack) stay */
		if (round == 1 && !vmk_memstat(&a))
			break;
		fd = make_file("leak", 64 * PG, round);
		s = mmap(NULL, 64 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		p = mmap(NULL, 64 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		CHECK(s != MAP_FAILED && p != MAP_FAILED);
		for (size_t i = 0; i < 64 * PG; i += PG) {
			s[i] = 1;
			p[i + 1] = 2;
		}
		CHECK_EQ(SYS_FTRUNCATE(fd, 7 * PG), 0);
		munmap(s, 64 * PG);
		munmap(p, 64 * PG);
		close(fd);
		CHECK_EQ(SYS_UNLINK(path("leak")), 0);
	}
	if (vmk_memstat(&b))
		CHECK_EQ(b.free_frames, a.free_frames);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

/* ------------------------------------------------------------ SMP races */

/*
 * Removal of a file's pages racing with faults on other CPUs. A writer
 * removes the pages of a mapped file again and again (round g: hole punch
 * or truncation, then new contents tagged g); readers on other CPUs read
 * the pages through shared mappings meanwhile. Once the removal of round g
 * has returned, no CPU may see the data of an earlier round any more (its
 * pages left every mapping and every TLB before the call returned, and
 * were freed only after that): a read that began after the writer said so
 * gives zero (a hole or a new page), SIGBUS (past the end), or data of
 * round g or later, never older data and never a word of someone else's
 * (a page freed too early and reused). Linux guarantees the same; the
 * counts (reads, rounds) are fixed, nothing is timed.
 */
#define RACE_PAGES   8
#define RACE_READERS 3
#define RACE_READS   4000           /* per reader, at least */
#define RACE_ROUNDS  60             /* removals, at least */

struct race {
	volatile long done_gen;       /* the last round whose removal has returned */
	volatile long max_gen;        /* the last round whose data may be in the file */
	volatile int finished;        /* readers done */
	volatile long bad;            /* reads that broke the rule */
};

static uint64_t race_word(long gen, unsigned k)
{
	return ((uint64_t)gen << 16) | (k + 1);
}

/* v read from page k, where the read began after round floor's removal. */
static bool race_word_ok(uint64_t v, unsigned k, long floor, long max)
{
	long g = (long)(v >> 16);

	return v == 0 || ((v & 0xffff) == k + 1 && g >= floor && g <= max);
}

/*
 * Round gen's contents: every word of page k is race_word(gen, k), stored
 * through the mapping one aligned 8-byte word at a time, so that a reader
 * never sees a torn word (write() may copy byte by byte).
 */
static void race_fill(char *map, long gen)
{
	for (unsigned k = 0; k < RACE_PAGES; k++) {
		volatile uint64_t *w = (volatile uint64_t *)(map + k * PG);

		for (unsigned i = 0; i < PG / 8; i++)
			w[i] = race_word(gen, k);
	}
}

/* One read of page k's first and last words; false (SIGBUS) only when sigbus_ok. */
static void race_read(struct race *r, volatile char *map, unsigned k, bool sigbus_ok)
{
	volatile uint64_t *w = (volatile uint64_t *)(map + k * PG);
	long floor = __atomic_load_n(&r->done_gen, __ATOMIC_ACQUIRE), max;
	uint64_t a, b;

	if (sigbus_ok) {
		got_sig = 0;
		if (sigsetjmp(jb, 1) != 0) {
			if (got_sig != SIGBUS)
				__atomic_add_fetch(&r->bad, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	a = w[0];
	b = w[PG / 8 - 1];
	max = __atomic_load_n(&r->max_gen, __ATOMIC_ACQUIRE);
	if (!race_word_ok(a, k, floor, max) || !race_word_ok(b, k, floor, max))
		__atomic_add_fetch(&r->bad, 1, __ATOMIC_RELAXED);
}

/* A reader's loop: RACE_READS reads, and on until the writer has done RACE_ROUNDS. */
static void race_reader(struct race *r, volatile char *map, bool sigbus_ok)
{
	for (unsigned i = 0; i < RACE_READS || __atomic_load_n(&r->max_gen, __ATOMIC_ACQUIRE) < RACE_ROUNDS;
	     i++)
		race_read(r, map, (i * 5) % RACE_PAGES, sigbus_ok);
	__atomic_add_fetch(&r->finished, 1, __ATOMIC_ACQ_REL);
}

/* The writer's loop: remove (punch or truncate), announce, refill, until the readers are done. */
static long race_writer(struct race *r, int fd, char *map, bool truncate)
{
	long gen = 0;

	while (__atomic_load_n(&r->finished, __ATOMIC_ACQUIRE) < RACE_READERS || gen < RACE_ROUNDS) {
		gen++;
		if (truncate)
			CHECK_EQ(SYS_FTRUNCATE(fd, 0), 0);
		else
			CHECK_EQ(madvise(map, RACE_PAGES * PG, MADV_REMOVE), 0);
		__atomic_store_n(&r->done_gen, gen, __ATOMIC_RELEASE);
		__atomic_store_n(&r->max_gen, gen, __ATOMIC_RELEASE);
		if (truncate)
			CHECK_EQ(SYS_FTRUNCATE(fd, RACE_PAGES * PG), 0);
		race_fill(map, gen);
	}
	return gen;
}

static struct race *race_state(void)
{
	struct race *r = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	CHECK(r != MAP_FAILED);
	return r;
}

/* The file "race" in a fresh directory, mapped shared read-write (*fd open), all zero (round 0). */
static char *race_begin(int *fd)
{
	char *map;

	make_dir();
	*fd = make_file("race", RACE_PAGES * PG, 0);
	map = mmap(NULL, RACE_PAGES * PG, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	CHECK(map != MAP_FAILED);
	memset(map, 0, RACE_PAGES * PG);
	return map;
}

/* No reader broke the rule; everything goes. */
static void race_end(struct race *r, int fd, char *map)
{
	CHECK_EQ(r->bad, 0);
	munmap(map, RACE_PAGES * PG);
	close(fd);
	munmap(r, PG);
	CHECK_EQ(SYS_UNLINK(path("race")), 0);
	CHECK_EQ(SYS_RMDIR(dir), 0);
}

static struct race *thread_race;
static volatile char *thread_map;

static int race_thread(void *arg)
{
	(void)arg;
	race_reader(thread_race, thread_map, false);
	return 0;
}

/*
 * Threads of one process (one address space, its CPUs flushed by
 * shootdown): three read the mapping while the main thread punches holes
 * in the file through it (MADV_REMOVE) and writes the pages again.
 */
static void t_file_smp_punch_threads(void)
{
	struct thread th[RACE_READERS];
	struct race *r = race_state();
	char *map;
	int fd;

	map = race_begin(&fd);        /* round 0: zeroes */
	thread_race = r;
	thread_map = map;
	for (int i = 0; i < RACE_READERS; i++) {
		th[i].fn = race_thread;
		th[i].arg = NULL;
		CHECK(thread_start(&th[i]) > 0);
	}
	CHECK(race_writer(r, fd, map, false) >= RACE_ROUNDS);
	for (int i = 0; i < RACE_READERS; i++)
		thread_join(&th[i]);
	race_end(r, fd, map);
}

/*
 * Processes (an address space each): three children read the file through
 * the mapping they inherited and one of their own (a second VMA of the
 * file) while the parent truncates it to nothing and back, so a read
 * between the two is SIGBUS.
 */
static void t_file_smp_truncate_processes(void)
{
	struct race *r = race_state();
	int fd, pids[RACE_READERS], st;
	char *map;

	map = race_begin(&fd);
	for (int i = 0; i < RACE_READERS; i++) {
		pids[i] = fork();
		CHECK(pids[i] >= 0);
		if (pids[i] == 0) {
			char *own = mmap(NULL, RACE_PAGES * PG, PROT_READ, MAP_SHARED, fd, 0);

			if (own == MAP_FAILED)
				_exit(2);
			catch_faults();
			race_reader(r, (i & 1) ? own : map, true);
			_exit(0);
		}
	}
	CHECK(race_writer(r, fd, map, true) >= RACE_ROUNDS);
	for (int i = 0; i < RACE_READERS; i++) {
		CHECK_EQ(waitpid(pids[i], &st, 0), pids[i]);
		CHECK_EQ(st, 0);
	}
	race_end(r, fd, map);
}

const struct utest ut_file_tests[] = {
	{ "file_rw", t_file_rw },
	{ "file_xattr", t_file_xattr },
	{ "file_open_errors", t_file_open_errors },
	{ "file_path_too_long", t_file_path_too_long },
	{ "file_dirs", t_file_dirs },
	{ "file_mmap_coherent", t_file_mmap_coherent },
	{ "file_mmap_private_cow", t_file_mmap_private_cow },
	{ "file_mmap_sigbus_truncate", t_file_mmap_sigbus_truncate },
	{ "file_mmap_two_processes", t_file_mmap_two_processes },
	{ "file_msync_errors", t_file_msync_errors },
	{ "file_mmap_access", t_file_mmap_access },
	{ "file_mincore", t_file_mincore },
	{ "file_mremap", t_file_mremap },
	{ "file_maps_names", t_file_maps_names },
	{ "file_memfd", t_file_memfd },
	{ "file_exec", t_file_exec },
	{ "file_no_leak", t_file_no_leak },
	{ "file_smp_punch_threads", t_file_smp_punch_threads },
	{ "file_smp_truncate_processes", t_file_smp_truncate_processes },
	{ NULL, NULL },
};
