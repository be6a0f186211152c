/*
 * /proc as programs read it: /proc/self/fd and /dev/fd links (their text,
 * modes, and opening a file or a pipe again through them, which is what
 * bash's <(...) and >(...) do), /proc/self and /proc/PID/{stat,status,
 * cmdline,comm,cwd}, and /proc listing the processes. Every expected
 * value is what Linux 6.18 gives (the same binary runs on the host: make
 * test-user-linux), from its documented formats (proc(5)).
 */
#include "utests.h"

#define S_IFMT 0170000
#define S_IFLNK 0120000
#define S_IFIFO 0010000
#define S_IFREG 0100000
#define ELOOP 40


static long readlink_str(const char *path, char *buf, size_t size)
{
	long n = usys3(__NR_readlink, (long)path, (long)buf, (long)size - 1);

	if (n >= 0)
		buf[n] = 0;
	return n;
}

static long read_path(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	long n, total = 0;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + total, size - 1 - (size_t)total)) > 0)
		total += n;
	close(fd);
	buf[total] = 0;
	return n < 0 ? -1 : total;
}

/* The name the kernel gives this program (comm): argv[0]'s last component, at most 15 bytes. */
static void own_comm(char *comm)
{
	const char *b = strrchr(ut_argv0, '/');

	b = b ? b + 1 : ut_argv0;
	memcpy(comm, b, strnlen(b, 15));
	comm[strnlen(b, 15)] = 0;
}

/* readlink of fd links: "pipe:[INO]" with the pipe's st_ino, a file's path, " (deleted)" once removed, a memfd's name. */
static void t_procfs_fd_links(void)
{
	char path[64], want[96], buf[256];
	struct kstat_u st;
	int p[2], fd;

	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(usys2(__NR_fstat, p[0], (long)&st), 0);
	snprintf(want, sizeof(want), "pipe:[%lu]", st.ino);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	CHECK(readlink_str(path, buf, sizeof(buf)) > 0);
	CHECK_EQ(strcmp(buf, want), 0);
	snprintf(path, sizeof(path), "/dev/fd/%d", p[1]);  /* /dev/fd -> /proc/self/fd */
	CHECK(readlink_str(path, buf, sizeof(buf)) > 0);
	CHECK_EQ(strcmp(buf, want), 0);                     /* both ends: one pipe inode */
	CHECK(readlink_str("/dev/fd", buf, sizeof(buf)) > 0);
	CHECK_EQ(strcmp(buf, "/proc/self/fd"), 0);
	CHECK(readlink_str("/dev/stdin", buf, sizeof(buf)) > 0);
	CHECK_EQ(strcmp(buf, "/proc/self/fd/0"), 0);
	/* lstat: a link, lr-x------ for a read end, l-wx------ for a write end */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	CHECK_EQ(usys2(__NR_lstat, (long)path, (long)&st), 0);
	CHECK_EQ(st.mode, S_IFLNK | 0500);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
	CHECK_EQ(usys2(__NR_lstat, (long)path, (long)&st), 0);
	CHECK_EQ(st.mode, S_IFLNK | 0300);
	/* a file: its absolute path; removed: " (deleted)" appended */
	snprintf(want, sizeof(want), "/tmp/vmk-procfs-%d", getpid());
	fd = open(want, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	CHECK(readlink_str(path, buf, sizeof(buf)) > 0);
	CHECK_EQ(strcmp(buf, want), 0);
	CHECK_EQ(usys2(__NR_lstat, (long)path, (long)&st), 0);
	CHECK_EQ(st.mode, S_IFLNK | 0700);                 /* O_RDWR: lrwx------ */
	CHECK_EQ(usys1(__NR_unlink, (long)want), 0);
	CHECK(readlink_str(path, buf, sizeof(buf)) > 0);
	CHECK_EQ(strncmp(buf, want, strlen(want)), 0);
	CHECK_EQ(strcmp(buf + strlen(want), " (deleted)"), 0);
	/* a closed fd has no entry */
	CHECK_EQ(close(fd), 0);
	CHECK_EQ(readlink_str(path, buf, sizeof(buf)), -ENOENT);
	CHECK_EQ(usys2(__NR_lstat, (long)path, (long)&st), -ENOENT);
	/* a memfd: the name Linux gives it, never in a directory */
	fd = (int)usys2(__NR_memfd_create, (long)"vmk", 0);
	CHECK(fd >= 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	CHECK(readlink_str(path, buf, sizeof(buf)) > 0);
	CHECK_EQ(strcmp(buf, "/memfd:vmk (deleted)"), 0);
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* Opening /proc/self/fd/N: a pipe opens again (either end), a file gets a new offset; O_NOFOLLOW: ELOOP. */
static void t_procfs_fd_reopen(void)
{
	char path[64], buf[16];
	struct kstat_u st, st2;
	int p[2], r, w, fd, fd2;

	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(write(p[1], "abc", 3), 3);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	CHECK_EQ(usys2(__NR_stat, (long)path, (long)&st), 0);      /* stat follows: the pipe */
	CHECK_EQ(st.mode & S_IFMT, S_IFIFO);
	CHECK_EQ(usys2(__NR_fstat, p[0], (long)&st2), 0);
	CHECK_EQ(st.ino, st2.ino);
	CHECK_EQ(usys3(__NR_open, (long)path, O_RDONLY | O_NOFOLLOW, 0), -ELOOP);
	r = open(path, O_RDONLY);
	CHECK(r >= 0 && r != p[0]);
	CHECK_EQ(read(r, buf, sizeof(buf)), 3);                    /* the same pipe's bytes */
	CHECK_EQ(memcmp(buf, "abc", 3), 0);
	w = open(path, O_WRONLY);                                   /* the read end's link, opened to write */
	CHECK(w >= 0);
	CHECK_EQ(write(w, "xyz", 3), 3);
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 3);
	CHECK_EQ(memcmp(buf, "xyz", 3), 0);
	/* end of file once every write end is closed, the reopened one included */
	CHECK_EQ(close(p[1]), 0);
	CHECK_EQ(close(w), 0);
	CHECK_EQ(read(r, buf, sizeof(buf)), 0);
	close(r);
	close(p[0]);
	/* a regular file: a new open file, with its own offset */
	snprintf(path, sizeof(path), "/tmp/vmk-procfs-r%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, "hello", 5), 5);
	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	fd2 = open(path, O_RDONLY);
	CHECK(fd2 >= 0);
	CHECK_EQ(read(fd2, buf, sizeof(buf)), 5);
	CHECK_EQ(memcmp(buf, "hello", 5), 0);
	CHECK_EQ(lseek(fd, 0, 1 /* SEEK_CUR */), 5);                 /* untouched by fd2's read */
	CHECK_EQ(usys2(__NR_stat, (long)path, (long)&st), 0);
	CHECK_EQ(st.mode & S_IFMT, S_IFREG);
	snprintf(path, sizeof(path), "/tmp/vmk-procfs-r%d", getpid());
	CHECK_EQ(usys1(__NR_unlink, (long)path), 0);
	close(fd);
	close(fd2);
}

/* /proc/self/stat fields 1-8 (proc(5)): pid, (comm), state R (it is running), ppid, pgrp, session, tty 0, tpgid. */
static void t_procfs_stat_self(void)
{
	char buf[1024], want[128], comm[16];

	own_comm(comm);
	CHECK(read_path("/proc/self/stat", buf, sizeof(buf)) > 0);
	snprintf(want, sizeof(want), "%d (%s) R %ld %ld %ld ", getpid(), comm, usys0(__NR_getppid),
		 usys1(__NR_getpgid, 0), usys1(__NR_getsid, 0));
	CHECK_EQ(strncmp(buf, want, strlen(want)), 0);
	CHECK_EQ(buf[strlen(buf) - 1], '\n');
	/* /proc/self is a link to /proc/PID */
	snprintf(want, sizeof(want), "%d", getpid());
	CHECK(readlink_str("/proc/self", buf, sizeof(buf)) > 0);
	CHECK_EQ(strcmp(buf, want), 0);
	snprintf(want, sizeof(want), "%s\n", comm);
	CHECK(read_path("/proc/self/comm", buf, sizeof(buf)) > 0);
	CHECK_EQ(strcmp(buf, want), 0);
}

/* Is line ("Key:\tvalue\n") in the status text? */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, line, n))
			return true;
	return false;
}

/* /proc/PID/status: Name, State, Tgid, Pid, PPid lines; a child that exited is Z until reaped, then gone. */
static void t_procfs_status_child(void)
{
	char path[64], buf[2048], line[64], comm[16];
	int pid, st;

	own_comm(comm);
	pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK(pid > 0);
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	/* until it has exited (no time limit: it exits at once, the loop only waits for that) */
	for (;;) {
		CHECK(read_path(path, buf, sizeof(buf)) > 0);
		if (has_line(buf, "State:\tZ (zombie)\n"))
			break;
		usys0(__NR_sched_yield);
	}
	snprintf(line, sizeof(line), "Name:\t%s\n", comm);         /* fork keeps the name */
	CHECK(has_line(buf, line));
	snprintf(line, sizeof(line), "Tgid:\t%d\n", pid);
	CHECK(has_line(buf, line));
	snprintf(line, sizeof(line), "Pid:\t%d\n", pid);
	CHECK(has_line(buf, line));
	snprintf(line, sizeof(line), "PPid:\t%d\n", getpid());
	CHECK(has_line(buf, line));
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	CHECK(read_path(path, buf, sizeof(buf)) > 0);
	snprintf(line, sizeof(line), "%d (%s) Z %d ", pid, comm, getpid());
	CHECK_EQ(strncmp(buf, line, strlen(line)), 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(usys3(__NR_open, (long)path, O_RDONLY, 0), -ENOENT);   /* reaped: no /proc/PID */
	snprintf(path, sizeof(path), "/proc/%d", pid);
	CHECK_EQ(usys3(__NR_open, (long)path, O_RDONLY, 0), -ENOENT);
	/* our own status: running, ourselves */
	CHECK(read_path("/proc/self/status", buf, sizeof(buf)) > 0);
	CHECK(has_line(buf, "State:\tR (running)\n"));
	snprintf(line, sizeof(line), "Pid:\t%d\n", getpid());
	CHECK(has_line(buf, line));
}

/* /proc/self/cmdline: argv, each NUL-terminated (argv[0] first); /proc/self/cwd: the working directory. */
static void t_procfs_cmdline_cwd(void)
{
	char buf[4096];
	long n = read_path("/proc/self/cmdline", buf, sizeof(buf));

	CHECK(n > (long)strlen(ut_argv0));
	CHECK_EQ(strcmp(buf, ut_argv0), 0);
	CHECK_EQ(buf[n - 1], 0);
	CHECK_EQ(usys1(__NR_chdir, (long)"/tmp"), 0);
	CHECK(readlink_str("/proc/self/cwd", buf, sizeof(buf)) > 0);
	CHECK_EQ(strcmp(buf, "/tmp"), 0);
}

/* Does the directory path list name (of type type)? */
static bool dir_lists(const char *path, const char *name, unsigned type)
{
	static char buf[16384];
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	bool found = false;
	long n;

	if (fd < 0)
		return false;
	while (!found && (n = usys3(__NR_getdents64, fd, (long)buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct dirent_u *d = (struct dirent_u *)(buf + off);

			if (!strcmp(d->name, name) && d->type == type)
				found = true;
			off += d->reclen;
		}
	close(fd);
	return found;
}

/* /proc lists each process as a directory (ours, our parent's), "self" as a link; /proc/self/fd each open fd. */
static void t_procfs_readdir(void)
{
	char name[32];
	int p[2], pid = fork();

	if (pid == 0) {
		char c;

		read(0, &c, 0);
		_exit(0);
	}
	CHECK(pid > 0);
	snprintf(name, sizeof(name), "%d", getpid());
	CHECK(dir_lists("/proc", name, 4 /* DT_DIR */));
	snprintf(name, sizeof(name), "%d", pid);           /* a child, running or a zombie */
	CHECK(dir_lists("/proc", name, 4));
	CHECK(dir_lists("/proc", "self", 10 /* DT_LNK */));
	CHECK(dir_lists("/proc/self", "status", 8 /* DT_REG */));
	CHECK(dir_lists("/proc/self", "fd", 4));
	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(dup2(p[1], 100), 100);         /* a number the directory's own fd will not take */
	CHECK(dir_lists("/proc/self/fd", "100", 10));
	close(100);
	CHECK(!dir_lists("/proc/self/fd", "100", 10));
	close(p[0]);
	close(p[1]);
	CHECK_EQ(waitpid(pid, NULL, 0), pid);
}

/*
 * /proc/self/auxv: the auxiliary vector exec gave this program, as binary
 * (type, value) pairs ending with AT_NULL (Linux's saved_auxv): the same
 * values the start-up code read from the stack (getauxval: AT_PAGESZ,
 * AT_ENTRY, AT_RANDOM's address), and in a forked child too (fork copies
 * it with the address space).
 */
static void auxv_check(void)
{
	static uint64_t v[128];
	long n = read_path("/proc/self/auxv", (char *)v, sizeof(v));
	int found = 0;

	CHECK(n >= 16 && n % 16 == 0);
	CHECK(v[n / 8 - 2] == 0 && v[n / 8 - 1] == 0);          /* AT_NULL last */
	for (long i = 0; i + 1 < n / 8; i += 2) {
		if (v[i] == 6)                                  /* AT_PAGESZ */
			found += v[i + 1] == 4096;
		if (v[i] == 9 || v[i] == 25)                    /* AT_ENTRY, AT_RANDOM */
			found += v[i + 1] == getauxval(v[i]) && v[i + 1] != 0;
	}
	CHECK_EQ(found, 3);
}

static void t_procfs_auxv(void)
{
	int pid, st;

	auxv_check();
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		auxv_check();
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
}

const struct utest ut_procfs_tests[] = {
	{ "procfs_fd_links", t_procfs_fd_links },
	{ "procfs_fd_reopen", t_procfs_fd_reopen },
	{ "procfs_stat_self", t_procfs_stat_self },
	{ "procfs_status_child", t_procfs_status_child },
	{ "procfs_cmdline_cwd", t_procfs_cmdline_cwd },
	{ "procfs_readdir", t_procfs_readdir },
	{ "procfs_auxv", t_procfs_auxv },
	{ NULL, NULL },
};
