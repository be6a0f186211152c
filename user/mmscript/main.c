/*
 * main.c - the mmscript runner's command line, script sources and framing.
 *
 *   mmscript [--framed] [--window ADDR] FILE...
 *   mmscript [--window ADDR] --bundle PATH        (PATH "-" = standard input)
 *   mmscript [--window ADDR] --bundle-fd N
 *   mmscript [--window ADDR] --bundle-mem ADDR LEN  (bundle already in memory)
 *
 * Each script runs in its own forked child, so it starts with an address
 * space whose window is empty and whose break has never moved. The parent
 * waits; a child that did not exit with status 0 (it crashed, was killed,
 * ran out of memory) gets a line "INCOMPLETE" after its output.
 *
 * Bundle format (written by tools/mmscript, docs/mmscript.md):
 *     @@mmscript-bundle 1\n
 *     @@file LEN NAME\n  followed by exactly LEN bytes of script text
 *     ... more @@file entries ...
 *     @@end\n
 * Framed output (bundles, --framed, or more than one FILE):
 *     @@mmscript begin NAME
 *     ... the script's output lines ...
 *     [INCOMPLETE]
 *     @@mmscript end NAME
 *     ...
 *     @@mmscript done
 * Exit status: 0 when every script ran to its end, 1 when one did not,
 * 2 for usage errors or unreadable input.
 */
#include "mmscript.h"
#include "vmk.h"

struct mms_state mms;

struct script {
	const char *name;
	const char *text;
	size_t len;
};

/* Window candidates, most preferred first: all 1 GiB aligned, far below the
 * mmap base of Linux (~0x7f..) and of our kernel (top-down below the stack),
 * far above the program and its heap. */
static const unsigned long window_candidates[] = {
	0x600000000000UL, 0x500000000000UL, 0x400000000000UL,
	0x300000000000UL, 0x200000000000UL, 0x100000000000UL,
};

static void usage(void)
{
	dprintf(2, "usage: mmscript [--framed] [--window ADDR] FILE...\n"
		   "       mmscript [--window ADDR] --bundle PATH|- | --bundle-fd N |"
		   " --bundle-mem ADDR LEN\n");
	exit(2);
}

static void die(const char *what, const char *arg, long err)
{
	const char *name = uerrno_name((int)-err);

	dprintf(2, "mmscript: %s %s: %s\n", what, arg, name ? name : "error");
	exit(2);
}

/* Read everything from fd into a fresh buffer (mmap-only malloc). */
static long read_all_fd(int fd, char **out, size_t *len)
{
	struct sb b;
	char chunk[4096];

	sb_init(&b);
	for (;;) {
		long n = sys_read(fd, chunk, sizeof(chunk));

		if (n == -EINTR)
			continue;
		if (n < 0) {
			sb_free(&b);
			return n;
		}
		if (n == 0)
			break;
		sb_putn(&b, chunk, (size_t)n);
	}
	*out = b.buf;
	*len = b.len;
	return 0;
}

static long read_all_path(const char *path, char **out, size_t *len)
{
	long fd = sys_open(path, O_RDONLY, 0);
	long r;

	if (fd < 0)
		return fd;
	r = read_all_fd((int)fd, out, len);
	sys_close((int)fd);
	return r;
}

/* The name shown in frames for a FILE argument: basename without ".mms". */
static const char *script_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(base);
	char *name;

	if (n > 4 && strcmp(base + n - 4, ".mms") == 0)
		n -= 4;
	name = malloc(n + 1);
	if (!name)
		exit(3);
	memcpy(name, base, n);
	name[n] = '\0';
	return name;
}

/* Read one "\n"-terminated header line at *pos; returns it NUL-terminated
 * (a fresh copy) or NULL when there is no complete line. */
static char *bundle_line(const char *b, size_t len, size_t *pos)
{
	size_t i = *pos;
	char *line;

	while (i < len && b[i] != '\n')
		i++;
	if (i >= len)
		return NULL;
	line = malloc(i - *pos + 1);
	if (!line)
		exit(3);
	memcpy(line, b + *pos, i - *pos);
	line[i - *pos] = '\0';
	*pos = i + 1;
	return line;
}

/* Split a bundle into scripts. Returns the count, or -1 for a malformed one. */
static int bundle_parse(const char *b, size_t len, struct script **out)
{
	size_t pos = 0;
	int n = 0, cap = 16;
	struct script *s = malloc((size_t)cap * sizeof(*s));
	char *line = bundle_line(b, len, &pos);

	if (!s || !line || strcmp(line, "@@mmscript-bundle 1") != 0)
		return -1;
	for (;;) {
		char *end;
		unsigned long flen;

		line = bundle_line(b, len, &pos);
		if (!line)
			return -1;
		if (strcmp(line, "@@end") == 0)
			break;
		if (strncmp(line, "@@file ", 7) != 0)
			return -1;
		flen = strtoul(line + 7, &end, 10);
		if (end == line + 7 || *end != ' ' || !end[1] || flen > len - pos)
			return -1;
		if (n == cap) {
			cap *= 2;
			s = realloc(s, (size_t)cap * sizeof(*s));
			if (!s)
				exit(3);
		}
		s[n].name = end + 1;
		s[n].text = b + pos;
		s[n].len = flen;
		n++;
		pos += flen;
	}
	*out = s;
	return n;
}

/* Pick W: the first candidate with [W-1GiB, W+2GiB) free, so that nothing
 * even borders the window. */
static unsigned long choose_window(void)
{
	for (size_t i = 0; i < sizeof(window_candidates) / sizeof(window_candidates[0]); i++) {
		unsigned long w = window_candidates[i];

		if (mms_range_is_free(w - MMS_WINDOW_SIZE, w + 2 * MMS_WINDOW_SIZE) == 1)
			return w;
	}
	return 0;
}

/* Run one script in a child; returns 1 when it ran to its end. */
/*
 * On Linux, run every script on one CPU: a page just faulted in waits in
 * that CPU's LRU batch, and MADV_FREE and MADV_PAGEOUT drain only the
 * batch of the CPU they run on (lru_add_drain), so a script that moved
 * between CPUs could see a page escape them (madvise_pageout.mms). Our
 * kernel has no such batches, nor sched_setaffinity (whose call would be
 * logged as unimplemented): its vmk_memstat call tells it apart.
 */
static void pin_on_linux(void)
{
	if (usys2(__NR_vmk_memstat, 0, 0) == -ENOSYS)
		pin_to_this_cpu();
}

static int run_one(const struct script *s, int framed)
{
	long pid;
	int status = 0;
	long r;

	if (framed)
		dprintf(1, "@@mmscript begin %s\n", s->name);
	pid = sys_fork();
	if (pid == 0) {
		mms.brk0 = (unsigned long)sys_brk(0);
		mms_run_script(s->text, s->len);
		_exit(0);
	}
	if (pid < 0) {
		dprintf(2, "mmscript: fork: %s\n", uerrno_name((int)-pid));
		status = -1;
	} else {
		do
			r = sys_wait4((int)pid, &status, 0, NULL);
		while (r == -EINTR);
		if (r < 0)
			status = -1;
	}
	if (status != 0) {
		if (status > 0 && WIFSIGNALED(status))
			dprintf(2, "mmscript: %s: killed by signal %d\n", s->name, WTERMSIG(status));
		else if (status > 0 && WIFEXITED(status))
			dprintf(2, "mmscript: %s: exit status %d\n", s->name, WEXITSTATUS(status));
		dprintf(1, "INCOMPLETE\n");
	}
	if (framed)
		dprintf(1, "@@mmscript end %s\n", s->name);
	return status == 0;
}

int main(int argc, char **argv, char **envp)
{
	struct script *scripts = NULL;
	int nscripts = 0, framed = 0, i = 1, all_ok = 1, r;
	unsigned long forced_window = 0;
	char *buf;
	size_t len;

	(void)envp;
	while (i < argc && argv[i][0] == '-' && argv[i][1] == '-') {
		if (strcmp(argv[i], "--framed") == 0) {
			framed = 1;
			i++;
		} else if (strcmp(argv[i], "--window") == 0 && i + 1 < argc) {
			forced_window = strtoul(argv[i + 1], NULL, 0);
			i += 2;
		} else if (strcmp(argv[i], "--bundle") == 0 && i + 2 == argc) {
			const char *path = argv[i + 1];
			long e = strcmp(path, "-") == 0 ? read_all_fd(0, &buf, &len)
							: read_all_path(path, &buf, &len);
			if (e < 0)
				die("cannot read", path, e);
			nscripts = bundle_parse(buf, len, &scripts);
			framed = 1;
			i = argc;
		} else if (strcmp(argv[i], "--bundle-fd") == 0 && i + 2 == argc) {
			long e = read_all_fd((int)strtoul(argv[i + 1], NULL, 0), &buf, &len);

			if (e < 0)
				die("cannot read fd", argv[i + 1], e);
			nscripts = bundle_parse(buf, len, &scripts);
			framed = 1;
			i = argc;
		} else if (strcmp(argv[i], "--bundle-mem") == 0 && i + 3 == argc) {
			buf = (char *)strtoul(argv[i + 1], NULL, 0);
			len = strtoul(argv[i + 2], NULL, 0);
			nscripts = bundle_parse(buf, len, &scripts);
			framed = 1;
			i = argc;
		} else {
			usage();
		}
	}
	if (nscripts < 0) {
		dprintf(2, "mmscript: malformed bundle\n");
		return 2;
	}
	if (!scripts) {
		if (i >= argc)
			usage();
		nscripts = argc - i;
		if (nscripts > 1)
			framed = 1;
		scripts = calloc((size_t)nscripts, sizeof(*scripts));
		if (!scripts)
			return 3;
		for (int k = 0; k < nscripts; k++) {
			long e = read_all_path(argv[i + k], &buf, &len);

			if (e < 0)
				die("cannot read", argv[i + k], e);
			scripts[k].name = script_name(argv[i + k]);
			scripts[k].text = buf;
			scripts[k].len = len;
		}
	}

	mms.ops = &mms_sys_ops;
	mms.window = forced_window ? forced_window : choose_window();
	if (!mms.window || (mms.window & (MMS_WINDOW_SIZE - 1))) {
		dprintf(2, "mmscript: no free 1 GiB-aligned window\n");
		return 2;
	}
	r = mms_probe_install();
	if (r < 0) {
		dprintf(2, "mmscript: cannot install signal handlers\n");
		return 2;
	}
	/* No transparent huge pages: page-granular residency as on our kernel.
	 * Only changes an mm flag, never VMA flags; -EINVAL/-ENOSYS is fine. */
	sys_prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	pin_on_linux();

	for (int k = 0; k < nscripts; k++)
		if (!run_one(&scripts[k], framed))
			all_ok = 0;
	if (framed)
		dprintf(1, "@@mmscript done\n");
	return all_ok ? 0 : 1;
}
