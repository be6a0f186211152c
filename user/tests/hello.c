/*
 * Small helper programs inside the test binary, chosen by argv[1]:
 *   tests --hello           prints "hello" with write(1) and exits 0
 *   tests --exit N          exits with status N
 *   tests --exec-ids P PP T after an execve from thread T of process P (parent PP): exit 0 when
 *                           it is alone with the process id (t_tgroup.c)
 *   tests --sigactions      exit 3 * kind(SIGUSR2) + kind(SIGUSR1), kind 0 SIG_DFL, 1 SIG_IGN,
 *                           2 a handler: what execve left (t_tgroup.c)
 *   tests --args A B ...    prints argc and each argument, one per line
 *   tests --segv            dereferences an unmapped address (dies of SIGSEGV)
 *   tests --fdcheck A B     exit 0 when fd A is closed and fd B is open (close-on-exec)
 *   tests --env             prints the environment, one entry a line
 *   tests --yes             "y" lines until the write fails (SIGPIPE kills it first)
 *   tests --seq N           the numbers 1..N, one a line
 *   tests --head N          copies the first N lines of stdin, then exits 0
 *   tests --cat             copies stdin to stdout
 *   tests --cat-file P...   copies each file P to stdout (a line "P: ERRNO" if it cannot)
 *   tests --wc              prints "LINES BYTES" of stdin
 *   tests --text N          N bytes of printable lines (tools/bench/bench-console)
 *   tests --bytes N [E]     N bytes (i * 7 + i / 4093 mod 256) on stdout, and E on stderr
 *                           (i * 13 + 5); the lossless-output check of tools/run-check
 *   tests --orphans-at-exit, --exec-from-thread: run as pid 1 (pid1.c)
 * Used by tools/run's own checks and by the execve tests.
 */
#include "utests.h"

/* Buffered stdout for the stream helpers. */
static char obuf[8192];
static size_t olen;

static void out_flush(void)
{
	if (olen && write_all(1, obuf, olen))
		_exit(1);
	olen = 0;
}

static void out_bytes(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (olen == sizeof(obuf))
			out_flush();
		obuf[olen++] = s[i];
	}
}

/* Stream helpers: read stdin in blocks, count or copy lines. */
static int stream_helper(const char *name, long n)
{
	static char buf[4096];
	long lines = 0, bytes = 0, r;

	while ((r = read(0, buf, sizeof(buf))) > 0) {
		for (long i = 0; i < r; i++) {
			if (strcmp(name, "--head") == 0) {
				if (lines >= n)
					goto done;
				out_bytes(&buf[i], 1);
			}
			if (buf[i] == '\n')
				lines++;
		}
		if (strcmp(name, "--cat") == 0)
			out_bytes(buf, (size_t)r);
		bytes += r;
	}
	if (r < 0)
		return 1;
done:
	if (strcmp(name, "--wc") == 0) {
		char line[48];

		out_bytes(line, (size_t)snprintf(line, sizeof(line), "%ld %ld\n", lines, bytes));
	}
	out_flush();
	return 0;
}

/* N bytes of a fixed pattern on fd; the pattern's byte i is (i * mul + i / 4093 + add) mod 256. */
static int pattern_out(int fd, unsigned long n, unsigned mul, unsigned add)
{
	static unsigned char buf[65536];

	for (unsigned long off = 0; off < n;) {
		size_t chunk = n - off < sizeof(buf) ? (size_t)(n - off) : sizeof(buf);

		for (size_t i = 0; i < chunk; i++)
			buf[i] = (unsigned char)((off + i) * mul + (off + i) / 4093 + add);
		if (write_all(fd, buf, chunk))
			return 1;
		off += chunk;
	}
	return 0;
}

/* n bytes of printable lines (64 characters and a newline) on stdout. */
static int text_out(unsigned long n)
{
	static char buf[65 * 1008];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = i % 65 == 64 ? '\n' : (char)('a' + (i / 65 + i % 65) % 26);
	for (unsigned long off = 0; off < n;) {
		size_t chunk = n - off < sizeof(buf) ? (size_t)(n - off) : sizeof(buf);

		if (write_all(1, buf, chunk))
			return 1;
		off += chunk;
	}
	return 0;
}

/* --cat-file: each file's bytes in turn; 1 when one could not be read. */
static int cat_files(int argc, char **argv)
{
	static char buf[4096];
	int status = 0;

	for (int i = 2; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		long r = 0;

		while (fd >= 0 && (r = read(fd, buf, sizeof(buf))) > 0)
			out_bytes(buf, (size_t)r);
		if (fd < 0 || r < 0) {
			out_flush();
			printf("%s: %s\n", argv[i], uerrno_name(errno) ? uerrno_name(errno) : "error");
			status = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	out_flush();
	return status;
}

static int more_helpers(int argc, char **argv)
{
	if (strcmp(argv[1], "--cat-file") == 0)
		return cat_files(argc, argv);
	if (strcmp(argv[1], "--fdcheck") == 0 && argc > 3) {
		bool a_closed = fcntl((int)strtol(argv[2], NULL, 0), F_GETFD, 0) == -1 && errno == EBADF;
		bool b_open = fcntl((int)strtol(argv[3], NULL, 0), F_GETFD, 0) == 0;

		return a_closed && b_open ? 0 : 1;
	}
	if (strcmp(argv[1], "--env") == 0) {
		for (char **e = environ; *e; e++)
			printf("%s\n", *e);
		return 0;
	}
	if (strcmp(argv[1], "--yes") == 0) {
		for (;;)
			if (write(1, "y\ny\ny\ny\n", 8) < 0)
				return 1;
	}
	if (strcmp(argv[1], "--seq") == 0 && argc > 2) {
		long n = strtol(argv[2], NULL, 0);
		char line[24];

		for (long i = 1; i <= n; i++)
			out_bytes(line, (size_t)snprintf(line, sizeof(line), "%ld\n", i));
		out_flush();
		return 0;
	}
	if (strcmp(argv[1], "--tick") == 0 && argc > 2) {        /* a line a second, n times (tools/run-check) */
		long n = strtol(argv[2], NULL, 0);

		for (long i = 1; i <= n; i++) {
			dprintf(1, "tick %ld\n", i);
			msleep(1000);
		}
		return 0;
	}
	if (strcmp(argv[1], "--head") == 0 || strcmp(argv[1], "--cat") == 0 ||
	    strcmp(argv[1], "--wc") == 0)
		return stream_helper(argv[1], argc > 2 ? strtol(argv[2], NULL, 0) : 10);
	if (strcmp(argv[1], "--text") == 0 && argc > 2)
		return text_out(strtoul(argv[2], NULL, 0));
	if (strcmp(argv[1], "--bytes") == 0 && argc > 2) {
		unsigned long n = strtoul(argv[2], NULL, 0), e = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;

		return pattern_out(1, n, 7, 0) || pattern_out(2, e, 13, 5);
	}
	dprintf(2, "tests: unknown helper %s\n", argv[1]);
	return 2;
}

int helper_main(int argc, char **argv)
{
	if (strcmp(argv[1], "--hello") == 0) {
		write(1, "hello\n", 6);
		return 0;
	}
	if (strcmp(argv[1], "--exec-ids") == 0)
		return tgroup_exec_ids(argc, argv);
	if (strcmp(argv[1], "--sigactions") == 0)
		return tgroup_sigactions();
	if (strcmp(argv[1], "--exit") == 0)
		return argc > 2 ? (int)strtol(argv[2], NULL, 0) : 0;
	if (strcmp(argv[1], "--args") == 0) {
		printf("argc %d\n", argc);
		for (int i = 0; i < argc; i++)
			printf("argv[%d] %s\n", i, argv[i]);
		return 0;
	}
	if (strcmp(argv[1], "--segv") == 0) {
		volatile int *volatile bad = (volatile int *)16;

		*bad = 1;
		return 0;
	}
	if (argc > 1) {
		int st = pid1_helper(argc, argv);

		return st >= 0 ? st : more_helpers(argc, argv);
	}
	return 2;
}
