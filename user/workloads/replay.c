/*
 * workloads replay FILE [--repeat N]: run the memory system calls of a
 * real program again (N times; default once), from a trace that tools/profile/strace2replay made out of
 * `strace -f -e trace=%memory,execve PROGRAM` on the host.
 *
 * Trace format (one operation per line; numbers decimal; lengths and
 * offsets in pages; "#" lines are comments):
 *   P NAME                          a process (a successful execve): the lines up to
 *                                   the next P run in a forked child, which then exits
 *   M ID PAGES PROT                 mmap anywhere (private anonymous) -> region ID
 *   F ID PAGE PAGES PROT            mmap MAP_FIXED at region ID + PAGE
 *   U ID PAGE PAGES                 munmap
 *   R ID PAGE PAGES PROT            mprotect
 *   A ID PAGE PAGES ADVICE          madvise
 *   X ID PAGE OLDPAGES NEWPAGES NEWID   mremap(MREMAP_MAYMOVE): the result is region NEWID
 *   B BYTES TOUCH                   brk(initial break + BYTES); then TOUCH 1: write the
 *                                   first new page, 2: every new page, 0: none
 *   T ID PAGE PAGES                 write one byte into each page
 * Region IDs are the converter's names for the address ranges the traced
 * program got from mmap; every address of the trace is expressed relative
 * to one, so the replay works wherever this kernel places things.
 *
 * Prints per process "@result workload=replay phase=proc name=NAME ops=N
 * failed=F vmas_end=V faults=..." (its VMAs just before it exits,
 * wl_vma_count; its own faults) and the whole run's counters (wl.h) as
 * phase=all.
 */
#include "wl.h"

#define MAX_REGIONS 65536

struct replay {
	unsigned long *base;            /* region id -> address (0: never mapped) */
	unsigned long brk0;
	unsigned long ops, failed;
	char name[64];
};

static char *read_file(const char *path, unsigned long *len)
{
	int fd = open(path, O_RDONLY);
	unsigned long cap = 1UL << 20, n = 0;
	char *buf;
	long r;

	if (fd < 0)
		wl_die("replay: cannot open %s: errno %d", path, errno);
	buf = wl_map(NULL, cap, PROT_READ | PROT_WRITE, 0);
	while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
		n += (unsigned long)r;
		if (n + 1 == cap) {                     /* double the buffer */
			char *nb = wl_map(NULL, 2 * cap, PROT_READ | PROT_WRITE, 0);
			memcpy(nb, buf, n);
			wl_unmap(buf, cap);
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Parse up to max unsigned numbers after the op letter; returns how many. */
static int numbers(const char *s, unsigned long *v, int max)
{
	int k = 0;

	while (k < max) {
		while (*s == ' ')
			s++;
		if (*s < '0' || *s > '9')
			break;
		v[k++] = strtoul(s, (char **)&s, 10);
	}
	return k;
}

static unsigned long at(struct replay *r, unsigned long id, unsigned long page)
{
	return id < MAX_REGIONS && r->base[id] ? r->base[id] + page * WL_PAGE : 0;
}

static bool failed(long ret)
{
	return ret < 0 && ret > -4096;
}

/* One operation line; false when it failed or named an unknown region. */
static bool run_op(struct replay *r, char op, const unsigned long *v, int n)
{
	const long anon = MAP_PRIVATE | MAP_ANONYMOUS;
	unsigned long a = n >= 2 ? at(r, v[0], v[1]) : 0;
	long ret;

	switch (op) {
	case 'M':
		if (n != 3 || v[0] >= MAX_REGIONS)
			return false;
		ret = sys_mmap(0, v[1] * WL_PAGE, (long)v[2], anon, -1, 0);
		if (failed(ret))
			return false;
		r->base[v[0]] = (unsigned long)ret;
		return true;
	case 'F':
		return n == 4 && a && !failed(sys_mmap(a, v[2] * WL_PAGE, (long)v[3], anon | MAP_FIXED, -1, 0));
	case 'U':
		return n == 3 && a && !failed(sys_munmap(a, v[2] * WL_PAGE));
	case 'R':
		return n == 4 && a && !failed(sys_mprotect(a, v[2] * WL_PAGE, (long)v[3]));
	case 'A':
		return n == 4 && a && !failed(sys_madvise(a, v[2] * WL_PAGE, (long)v[3]));
	case 'T':
		if (n != 3 || !a)
			return false;
		wl_touch((void *)a, v[2] * WL_PAGE);
		return true;
	case 'X':
		if (n != 5 || !a || v[4] >= MAX_REGIONS)
			return false;
		ret = sys_mremap(a, v[2] * WL_PAGE, v[3] * WL_PAGE, MREMAP_MAYMOVE, 0);
		if (failed(ret))
			return false;
		r->base[v[4]] = (unsigned long)ret - v[1] * WL_PAGE;
		return true;
	case 'B': {
		unsigned long old = (unsigned long)sys_brk(0), want = r->brk0 + v[0];
		if (n != 2 || (unsigned long)sys_brk(want) != want)
			return false;
		unsigned long from = (old + WL_PAGE - 1) & ~(WL_PAGE - 1);
		if (v[1] && want > from)
			wl_touch((void *)from, v[1] == 1 ? WL_PAGE : ((want - from + WL_PAGE - 1) & ~(WL_PAGE - 1)));
		return true;
	}
	}
	return false;
}

/* Replay lines from s up to the next "P" line or the end; returns where it stopped. */
static const char *run_process(struct replay *r, const char *s)
{
	r->brk0 = (unsigned long)sys_brk(0);
	while (*s && *s != 'P') {
		const char *eol = strchr(s, '\n');
		unsigned long v[6];

		if (*s != '#' && *s != '\n') {
			int n = numbers(s + 1, v, 6);
			r->ops++;
			if (!run_op(r, *s, v, n))
				r->failed++;
		}
		s = eol ? eol + 1 : s + strlen(s);
	}
	return s;
}

struct child_arg {
	struct replay *r;
	const char *s;
};

static void child(void *arg)
{
	struct child_arg *c = arg;
	struct wl_counts a;

	run_process(c->r, c->s);
	wl_counts(&a);
	wl_result("workload=replay phase=proc name=%s ops=%lu failed=%lu vmas_end=%ld faults=%llu",
		  c->r->name, c->r->ops, c->r->failed, wl_vma_count(), (unsigned long long)a.faults);
}

/* Replay every process of the trace once, each in its own child. Returns the process count. */
static unsigned long replay_all(struct replay *r, const char *s)
{
	unsigned long procs = 0;

	while (*s) {
		const char *eol = strchr(s, '\n');
		unsigned long nl;

		if (*s != 'P') {                        /* comments, or lines before the first P */
			s = eol ? eol + 1 : s + strlen(s);
			continue;
		}
		nl = eol ? (unsigned long)(eol - s) : strlen(s);
		nl = nl > 2 ? nl - 2 : 0;               /* "P NAME" */
		if (nl > sizeof(r->name) - 1)
			nl = sizeof(r->name) - 1;
		memcpy(r->name, s + 2, nl);
		r->name[nl] = 0;
		s = eol ? eol + 1 : s + strlen(s);
		struct child_arg c = { r, s };
		wl_in_child("replay", child, &c);
		procs++;
		while (*s && *s != 'P') {               /* skip to the next process */
			eol = strchr(s, '\n');
			s = eol ? eol + 1 : s + strlen(s);
		}
	}
	return procs;
}

int wl_replay(int argc, char **argv)
{
	struct replay r;
	struct wl_counts a, b;
	unsigned long len, procs = 0, repeat = wl_opt(argc, argv, "--repeat", 1);
	const char *s;

	if (argc < 2 || argv[1][0] == '-' || repeat < 1 || repeat > 10000)
		wl_die("replay: usage: workloads replay FILE [--repeat N]");
	memset(&r, 0, sizeof(r));
	s = read_file(argv[1], &len);
	r.base = wl_map(NULL, MAX_REGIONS * sizeof(unsigned long), PROT_READ | PROT_WRITE, 0);
	wl_counts(&a);
	for (unsigned long i = 0; i < repeat; i++)
		procs += replay_all(&r, s);
	wl_counts(&b);
	wl_result_counts("replay", "all", &a, &b);
	wl_result("workload=replay phase=shape processes=%lu repeat=%lu file=%s", procs, repeat,
		  argv[1]);
	return 0;
}
