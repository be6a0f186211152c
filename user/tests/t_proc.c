/* Process tests: exit status, wait4, getpid/getppid, execve, kill, fork limits, bad pointers. */
#include "utests.h"

static void t_exit_status(void)
{
	int pid = fork(), st;

	CHECK(pid >= 0);
	if (pid == 0)
		_exit(42);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 42);
	/* no child left: ECHILD */
	CHECK_EQ(waitpid(-1, &st, 0), -1);
	CHECK_EQ(errno, ECHILD);
}

static void t_getppid(void)
{
	int me = getpid(), pid = fork(), st;

	CHECK(pid >= 0);
	if (pid == 0)
		_exit(usys0(__NR_getppid) == me && usys0(__NR_gettid) == getpid() ? 0 : 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
}

char *ut_argv0;

static char *strstr_simple(const char *h, const char *n)
{
	size_t len = strlen(n);

	for (; *h; h++)
		if (strncmp(h, n, len) == 0)
			return (char *)h;
	return NULL;
}

/* execve of this same program (found by its path on Linux, by its module name here) with new arguments. */
static void t_execve(void)
{
	int pid = fork(), st;

	CHECK(pid >= 0);
	if (pid == 0) {
		char *argv[] = { ut_argv0, "--exit", "42", NULL };
		char *envp[] = { "X=1", NULL };

		usys3(__NR_execve, (long)ut_argv0, (long)argv, (long)envp);
		_exit(99);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 42);
}

/* execve failures return to the caller: no such file, bad pointers. */
static void t_execve_errors(void)
{
	char *argv[] = { "x", NULL };
	char *bad_argv[] = { (char *)0xffffffff81000000UL, NULL };

	CHECK_EQ(usys3(__NR_execve, (long)"/no/such/program_xyz", (long)argv, 0), -ENOENT);
	CHECK_EQ(usys3(__NR_execve, 0xffffffff81000000L, (long)argv, 0), -EFAULT);
	CHECK_EQ(usys3(__NR_execve, (long)ut_argv0, (long)bad_argv, 0), -EFAULT);
	CHECK_EQ(usys3(__NR_execve, (long)ut_argv0, 0x10, 0), -EFAULT);
}

static void spin_forever(void)
{
	for (;;)
		usys0(__NR_sched_yield);
}

/* kill: signal 0 probes, SIGKILL kills (status = 9), unknown pids are ESRCH, bad signals EINVAL. */
static void t_kill(void)
{
	int pid = fork(), st;

	CHECK(pid >= 0);
	if (pid == 0)
		spin_forever();
	CHECK_EQ(kill(pid, 0), 0);
	CHECK_EQ(kill(pid, SIGKILL), 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGKILL);
	CHECK_EQ(kill(pid, 0), -1);
	CHECK_EQ(errno, ESRCH);
	CHECK_EQ(kill(getpid(), 99), -1);
	CHECK_EQ(errno, EINVAL);
}

/*
 * Preemption: child A spins in user mode, without system calls, until
 * child B sets a shared flag; B only runs if the timer takes the CPU from A.
 */
static void t_preemption(void)
{
	volatile int *flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int a, b, st;

	CHECK(flag != MAP_FAILED);
	*flag = 0;
	a = fork();
	CHECK(a >= 0);
	if (a == 0) {
		while (*flag == 0)
			;
		_exit(0);
	}
	b = fork();
	CHECK(b >= 0);
	if (b == 0) {
		*flag = 1;
		_exit(0);
	}
	CHECK_EQ(waitpid(a, &st, 0), a);
	CHECK_EQ(st, 0);
	CHECK_EQ(waitpid(b, &st, 0), b);
	CHECK_EQ(st, 0);
}

/* Kernel, non-canonical and unmapped buffers given to system calls: EFAULT, never a crash. */
static void t_bad_pointers(void)
{
	struct { long base, len; } iov[2] = { { (long)"ok", 0 }, { 0xffffffff81000000L, 4 } };
	long k = 0xffffffff81000000L, nc = 0x0000800000000000L, unmapped = 0x1000;

	CHECK_EQ(sys_write(1, (void *)k, 4), -EFAULT);
	CHECK_EQ(sys_write(1, (void *)nc, 4), -EFAULT);
	CHECK_EQ(sys_write(1, (void *)unmapped, 4), -EFAULT);
	CHECK_EQ(sys_write(1, "x", (size_t)-1), -EFAULT);
	CHECK_EQ(sys_write(1, (void *)(nc - 2), 4), -EFAULT);       /* crosses the end of user space */
	CHECK_EQ(usys3(__NR_writev, 1, (long)iov, 2), -EFAULT);
	CHECK_EQ(usys3(__NR_writev, 1, k, 1), -EFAULT);
	CHECK_EQ(usys3(__NR_writev, 1, (long)iov, 5000), -EINVAL);
	CHECK_EQ(usys2(__NR_clock_gettime, 1, k), -EFAULT);
	CHECK_EQ(usys2(__NR_clock_gettime, 1, unmapped), -EFAULT);
	CHECK_EQ(usys1(__NR_uname, k), -EFAULT);
	CHECK_EQ(sys_wait4(-1, (int *)k, 1, NULL), -ECHILD);
	CHECK_EQ(sys_mincore(0x10000, 4096, (unsigned char *)k), -EFAULT);
	CHECK_EQ(usys2(__NR_rt_sigprocmask, 0, k) , -EINVAL);        /* sigsetsize 0 */
	CHECK_EQ(usys4(__NR_rt_sigprocmask, 0, k, 0, 8), -EFAULT);
}

/* The console answers like a non-terminal file; write/writev return their counts. */
static void t_console_io(void)
{
	struct { const char *base; long len; } iov[2] = { { "", 0 }, { "", 0 } };
	struct { unsigned short r, c, x, y; } ws;

	CHECK_EQ(usys3(__NR_ioctl, 1, 0x5413 /* TIOCGWINSZ */, (long)&ws) == -ENOTTY ||
		 usys3(__NR_ioctl, 1, 0x5413, (long)&ws) == 0, 1);
	CHECK_EQ(usys3(__NR_ioctl, 77, 0x5413, (long)&ws), -EBADF);
	CHECK_EQ(sys_write(77, "x", 1), -EBADF);
	CHECK_EQ(sys_write(1, "", 0), 0);
	CHECK_EQ(usys3(__NR_writev, 1, (long)iov, 2), 0);
}

/* uname's sysname is Linux and its machine x86_64; CLOCK_MONOTONIC does not go backwards and advances over a busy loop. */
static void t_uname_clock(void)
{
	char u[6][65];
	long t0[2], t1[2];
	volatile long spin = 0;

	CHECK_EQ(usys1(__NR_uname, (long)u), 0);
	CHECK_EQ(strcmp(u[0], "Linux"), 0);
	CHECK_EQ(strcmp(u[4], "x86_64"), 0);
	CHECK_EQ(usys2(__NR_clock_gettime, 1, (long)t0), 0);
	for (long i = 0; i < 3000000; i++)
		spin += i;
	CHECK_EQ(usys2(__NR_clock_gettime, 1, (long)t1), 0);
	CHECK(t1[0] > t0[0] || (t1[0] == t0[0] && t1[1] > t0[1]));
	CHECK(t0[1] >= 0 && t0[1] < 1000000000);
	CHECK_EQ(usys2(__NR_clock_gettime, 99, (long)t0), -EINVAL);
}


#define THREADS_MAX "/proc/sys/kernel/threads-max"

/* The number in file path (a number and a newline), or -1. */
static long read_number(const char *path)
{
	char buf[64];
	long v = 0;

	if (ut_read_file(path, buf, sizeof(buf)) <= 0 || buf[strlen(buf) - 1] != '\n')
		return -1;
	for (const char *p = buf; *p != '\n'; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v;
}

/* pwrite(fd, text) at offset off: what it returns (-errno on failure). */
static long write_text(int fd, const char *text, unsigned long off)
{
	return sys_pwrite(fd, text, strlen(text), off);
}

/*
 * /proc/sys/kernel/threads-max, Linux's limit on live tasks. Its default
 * is the RAM counted at boot over eight task stacks (16 KiB each on
 * x86-64): MemTotal / 128 KiB, where MemTotal, read later, may have grown
 * a little since (Linux 6.18 on the host: 192730 against 192844, 0.06%):
 * within 2% below. Writes as Linux's integer sysctls: text that is not a
 * number, 0 and -5 are EINVAL (the range is 1..0x3fffffff); the value
 * itself, with spaces and a newline, is accepted, all bytes counted;
 * followed by " 8", only the number and its space are used.
 */
static void t_threads_max(void)
{
	char text[4096], *m;
	long tmax = read_number(THREADS_MAX), mem_kb = -1;
	int fd;

	if (ut_read_file("/proc/meminfo", text, sizeof(text)) > 0 && (m = strstr_simple(text, "MemTotal:")))
		mem_kb = strtol(m + 9, NULL, 10);

	CHECK(tmax > 0);
	CHECK(mem_kb > 0);
	CHECK(tmax <= mem_kb / 128 && tmax >= mem_kb / 128 * 98 / 100);
	fd = open(THREADS_MAX, O_WRONLY);
	if (fd < 0 && !on_vmkernel() && (errno == EROFS || errno == EACCES)) {
		printf("    (writes not checked: this Linux's /proc/sys is read-only here)\n");
		return;
	}
	CHECK(fd >= 0);
	CHECK_EQ(write_text(fd, "abc", 0), -EINVAL);
	CHECK_EQ(write_text(fd, "0\n", 0), -EINVAL);
	CHECK_EQ(write_text(fd, "-5", 0), -EINVAL);
	CHECK_EQ(write_text(fd, "12x", 0), -EINVAL);
	CHECK_EQ(write_text(fd, "abc", 3), 3);           /* not at the start: ignored, counted */
	CHECK_EQ(write_text(fd, "5", 3), 1);
	CHECK_EQ(read_number(THREADS_MAX), tmax);
	snprintf(text, sizeof(text), " %ld \n", tmax);
	CHECK_EQ(write_text(fd, text, 0), (long)strlen(text));
	CHECK_EQ(read_number(THREADS_MAX), tmax);
	snprintf(text, sizeof(text), "%ld 8", tmax);
	CHECK_EQ(write_text(fd, text, 0), (long)strlen(text) - 1);
	CHECK_EQ(read_number(THREADS_MAX), tmax);
	close(fd);
	if (on_vmkernel()) {
		/* Linux's first process starts with RLIMIT_NPROC at half the default (a container may change it) */
		unsigned long rl[2];

		CHECK_EQ(usys4(__NR_prlimit64, 0, 6, 0, (long)rl), 0);         /* RLIMIT_NPROC */
		CHECK_EQ((long)rl[0], tmax / 2);
		CHECK_EQ((long)rl[1], tmax / 2);
	}
}

#define MIN_FREE_KBYTES "/proc/sys/vm/min_free_kbytes"

/*
 * /proc/sys/vm/min_free_kbytes, the min watermark that low and high
 * follow. Linux's default is sqrt(16 x KiB of RAM): here within 1% of
 * MemTotal's (on Linux the RAM counted is the lowmem above the
 * watermarks, and khugepaged raises it when THP is on, so only its
 * floor, 128, is checked there). Writes as Linux's integer sysctl with
 * a minimum of 0: -1 and text are EINVAL and change nothing; a number is
 * read back as written (not rounded to pages), then the old one restored.
 */
static void t_min_free_kbytes(void)
{
	char text[4096], *m;
	long v = read_number(MIN_FREE_KBYTES), mem_kb = -1, r = 0;
	int fd;

	if (ut_read_file("/proc/meminfo", text, sizeof(text)) > 0 && (m = strstr_simple(text, "MemTotal:")))
		mem_kb = strtol(m + 9, NULL, 10);
	CHECK(v >= 128);
	CHECK(mem_kb > 0);
	while ((r + 1) * (r + 1) <= mem_kb * 16)
		r++;
	if (on_vmkernel())
		CHECK(v * 100 >= r * 99 && v * 100 <= r * 101);
	fd = open(MIN_FREE_KBYTES, O_WRONLY);
	if (fd < 0 && !on_vmkernel() && (errno == EROFS || errno == EACCES)) {
		printf("    (writes not checked: this Linux's /proc/sys is read-only here)\n");
		return;
	}
	CHECK(fd >= 0);
	CHECK_EQ(write_text(fd, "-1", 0), -EINVAL);
	CHECK_EQ(write_text(fd, "abc", 0), -EINVAL);
	CHECK_EQ(read_number(MIN_FREE_KBYTES), v);
	snprintf(text, sizeof(text), "%ld\n", v + 1001);
	CHECK_EQ(write_text(fd, text, 0), (long)strlen(text));
	CHECK_EQ(read_number(MIN_FREE_KBYTES), v + 1001);
	snprintf(text, sizeof(text), "%ld", v);
	CHECK_EQ(write_text(fd, text, 0), (long)strlen(text));
	CHECK_EQ(read_number(MIN_FREE_KBYTES), v);
	close(fd);
}

/*
 * fork until it fails: EAGAIN at threads-max live tasks, set to 100 here
 * (the machine's default is thousands), zombies included; all reaped
 * after. Not on Linux: root's processes are limited only by threads-max,
 * and lowering the host's would hit everything else running there.
 */
static void t_fork_bomb(void)
{
	long tmax = read_number(THREADS_MAX);
	int n = 0, pid, st, fd;
	char text[32];

	if (!on_vmkernel()) {
		printf("    (skipped on Linux: it would lower the host's threads-max)\n");
		return;
	}
	fd = open(THREADS_MAX, O_WRONLY);
	CHECK(fd >= 0 && tmax > 100);
	CHECK_EQ(write_text(fd, "100", 0), 3);
	for (;;) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid < 0)
			break;
		n++;
		CHECK(n < 100);
	}
	CHECK_EQ(errno, EAGAIN);
	CHECK(n >= 10);
	while (waitpid(-1, &st, 0) > 0)
		n--;
	CHECK_EQ(n, 0);
	CHECK_EQ(errno, ECHILD);
	snprintf(text, sizeof(text), "%ld", tmax);
	CHECK_EQ(write_text(fd, text, 0), (long)strlen(text));
	close(fd);
	CHECK_EQ(read_number(THREADS_MAX), tmax);
}

/*
 * /proc/self/maps in Linux's format: a fresh mapping appears as
 * "START-END rw-p 00000000 00:00 0 " (trailing space, no name), the stack
 * as a line whose name "[stack]" starts at column 73.
 */
static void t_proc_maps(void)
{
	static char buf[65536];
	char want[80], *line, *stack;
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	CHECK_EQ(mprotect(p + 4096, 4096, PROT_READ), 0);       /* three VMAs: rw- r-- rw- */
	CHECK(ut_read_file("/proc/self/maps", buf, sizeof(buf)) > 0);
	snprintf(want, sizeof(want), "%lx-%lx r--p 00000000 00:00 0 \n", (unsigned long)p + 4096,
		 (unsigned long)p + 8192);
	line = strstr_simple(buf, want);
	CHECK(line != NULL);
	CHECK(line == buf || line[-1] == '\n');
	stack = strstr_simple(buf, "[stack]\n");
	CHECK(stack != NULL);
	while (stack > buf && stack[-1] != '\n')
		stack--;
	CHECK_EQ(strstr_simple(stack, "[stack]") - stack, 73);
}

/* A boot module (this program) opens like a file: its first bytes are the ELF magic. */
static void t_open_module(void)
{
	char buf[8];
	int fd = open(ut_argv0, O_RDONLY);

	CHECK(fd >= 3);
	CHECK_EQ(read(fd, buf, 4), 4);
	CHECK_EQ(memcmp(buf, "\177ELF", 4), 0);
	CHECK_EQ(close(fd), 0);
	CHECK_EQ(close(fd), -1);
	CHECK_EQ(errno, EBADF);
	CHECK_EQ(open("/no/such/file_xyz", O_RDONLY), -1);
	CHECK_EQ(errno, ENOENT);
}

static void touch_until_oom(void)
{
	size_t len = 1UL << 30;         /* 1 GiB: far more than the machine has */
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		_exit(3);
	for (size_t off = 0; off < len; off += 4096)
		p[off] = 1;
	_exit(4);                       /* should not get here */
}

/* Out of memory in a page fault kills that process (SIGKILL, with a report); everything else goes on. */
static void t_oom_kill(void)
{
	int st;

	if (!on_vmkernel()) {
		printf("    (skipped on Linux: would use the host's memory)\n");
		return;
	}
	st = run_in_child(touch_until_oom);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGKILL);
	/* memory is back: a fork and some pages work again */
	st = run_in_child(t_getppid);
	CHECK_EQ(st, 0);
}

static unsigned long rng_state = 88172645463325252UL;

static unsigned long rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* An argument that is often interesting: small, page-aligned, kernel, non-canonical, or random. */
static long fuzz_arg(void)
{
	static const long special[] = { 0, 1, -1, 4096, 0x400000, 0x7ffffffff000L, 0x800000000000L,
					(long)0xffffffff81000000UL, (long)0xffff888000000000UL, 0x10000 };

	switch (rng() % 4) {
	case 0: return special[rng() % (sizeof(special) / sizeof(special[0]))];
	case 1: return (long)(rng() % 64);
	case 2: return (long)(rng() & ~0xfffUL & 0x00007fffffffffffUL);
	default: return (long)rng();
	}
}

static void fuzz_child(void)
{
	/* system calls that cannot hurt the test run itself (no kill, exit, execve, sleeps, fork) */
	static const long nrs[] = { 0, 1, 2, 3, 5, 8, 9, 10, 11, 12, 13, 14, 16, 19, 20, 24, 25, 27,
				    28, 39, 61, 63, 96, 97, 102, 110, 131, 157, 158, 186, 201, 218,
				    228, 229, 257, 302, 318, 333, 1000, 5000, -1, 15, 59 };

	for (int i = 0; i < 3000; i++) {
		long nr = nrs[rng() % (sizeof(nrs) / sizeof(nrs[0]))];

		usys6(nr, fuzz_arg(), fuzz_arg(), fuzz_arg(), fuzz_arg(), fuzz_arg(), fuzz_arg());
	}
}

/*
 * Random system calls with hostile arguments, in children that may well
 * die of them: the kernel must survive (and the final leak check must
 * still balance). Our kernel only: on the host this could do real damage.
 */
static void t_syscall_fuzz(void)
{
	if (!on_vmkernel()) {
		printf("    (skipped on Linux)\n");
		return;
	}
	for (int round = 0; round < 16; round++) {
		int st;

		rng_state += (unsigned long)round * 7919;
		st = run_in_child(fuzz_child);
		CHECK(st != -1);
	}
}

const struct utest ut_proc_tests[] = {
	{ "oom_kill", t_oom_kill },
	{ "syscall_fuzz", t_syscall_fuzz },
	{ "proc_maps", t_proc_maps },
	{ "open_module", t_open_module },
	{ "exit_status", t_exit_status },
	{ "getppid", t_getppid },
	{ "execve", t_execve },
	{ "execve_errors", t_execve_errors },
	{ "kill", t_kill },
	{ "preemption", t_preemption },
	{ "bad_pointers", t_bad_pointers },
	{ "console_io", t_console_io },
	{ "uname_clock", t_uname_clock },
	{ "threads_max", t_threads_max },
	{ "min_free_kbytes", t_min_free_kbytes },
	{ "fork_bomb", t_fork_bomb },
	{ NULL, NULL },
};
