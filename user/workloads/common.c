/* Helpers shared by the profiling workloads (wl.h). */
#include "wl.h"

#define SYS_getrusage 98                /* Linux only: this kernel has no rusage */
#define RUSAGE_SELF 0
#define RUSAGE_CHILDREN (-1)

void wl_rng_seed(struct wl_rng *r, uint64_t seed)
{
	r->s = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

uint64_t wl_rand(struct wl_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

unsigned long wl_between(struct wl_rng *r, unsigned long lo, unsigned long hi)
{
	return lo + (unsigned long)(wl_rand(r) % (hi - lo + 1));
}

uint64_t wl_tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

bool wl_on_vmkernel(void)
{
	struct vmk_memstat m;

	return usys2(__NR_vmk_memstat, (long)&m, sizeof(m)) == 0;
}

struct linux_rusage {
	long utime_s, utime_us, stime_s, stime_us;
	long maxrss, ixrss, idrss, isrss, minflt, majflt, rest[8];    /* 144 bytes in all */
};

static void linux_counts(struct wl_counts *c)
{
	struct linux_rusage self, kids;

	memset(&self, 0, sizeof(self));
	memset(&kids, 0, sizeof(kids));
	usys2(SYS_getrusage, RUSAGE_SELF, (long)&self);
	usys2(SYS_getrusage, RUSAGE_CHILDREN, (long)&kids);
	c->faults = (uint64_t)self.minflt;
	c->stime_us = (uint64_t)((self.stime_s + kids.stime_s) * 1000000 + self.stime_us + kids.stime_us);
	c->utime_us = (uint64_t)((self.utime_s + kids.utime_s) * 1000000 + self.utime_us + kids.utime_us);
}

void wl_counts(struct wl_counts *c)
{
	struct vmk_memstat m;
	struct vmk_prof_counts p;

	memset(c, 0, sizeof(*c));
	if (usys2(__NR_vmk_memstat, (long)&m, sizeof(m)) == 0) {
		c->faults = m.faults;
		memset(&p, 0, sizeof(p));
		usys3(__NR_vmk_profile, VMK_PROF_COUNTS, (long)&p, sizeof(p));
		c->hz = p.hz;
		c->kernel = p.kernel;
		c->user = p.user;
		c->vmas = p.vmas;
	} else {
		linux_counts(c);
	}
	c->tsc = wl_tsc();
}

/* printf(prefix, then fmt's text, then a newline). */
static void print_line(const char *prefix, const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	printf("%s%s\n", prefix, buf);
}

void wl_result(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line("@result ", fmt, ap);
	va_end(ap);
}

void wl_result_counts(const char *workload, const char *phase, const struct wl_counts *a,
		      const struct wl_counts *b)
{
	wl_result("workload=%s phase=%s tsc=%llu hz=%llu kernel_ticks=%llu user_ticks=%llu "
		  "faults=%llu stime_us=%llu utime_us=%llu", workload, phase,
		  (unsigned long long)(b->tsc - a->tsc), (unsigned long long)b->hz,
		  (unsigned long long)(b->kernel - a->kernel), (unsigned long long)(b->user - a->user),
		  (unsigned long long)(b->faults - a->faults),
		  (unsigned long long)(b->stime_us - a->stime_us),
		  (unsigned long long)(b->utime_us - a->utime_us));
}

long wl_maps_lines(void)
{
	static char buf[65536];
	long lines = 0, n;
	int fd = open("/proc/self/maps", O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (long i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	return n < 0 ? -1 : lines;
}

/* Read path whole into buf (NUL-terminated); its length, or -1. */
static long proc_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return n;
}

/* The number after key at a line's start in buf (the first number when key is NULL), or -1. */
static long number_after(const char *buf, const char *key)
{
	const char *at = buf;

	if (key) {
		size_t len = strlen(key);

		for (at = buf; *at; at++)
			if ((at == buf || at[-1] == '\n') && !strncmp(at, key, len) &&
			    (at[len] == ' ' || at[len] == '\t'))
				break;
		if (!*at)
			return -1;
		at += len;
	}
	while (*at == ' ' || *at == '\t')
		at++;
	if (*at < '0' || *at > '9')
		return -1;
	return (long)strtoul(at, NULL, 10);
}

long wl_proc_number(const char *path, const char *key)
{
	static char buf[16384];

	return proc_read(path, buf, sizeof(buf)) < 0 ? -1 : number_after(buf, key);
}

void wl_proc_numbers(const char *path, const char *const *keys, long *out, unsigned n)
{
	static char buf[16384];
	bool ok = proc_read(path, buf, sizeof(buf)) >= 0;

	for (unsigned i = 0; i < n; i++)
		out[i] = ok ? number_after(buf, keys[i]) : -1;
}

long wl_vma_count(void)
{
	struct wl_counts c;

	if (!wl_on_vmkernel())
		return wl_maps_lines();
	wl_counts(&c);
	return (long)c.vmas;
}

void wl_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line("workloads: ", fmt, ap);
	va_end(ap);
	exit(1);
}

void *wl_map(void *addr, unsigned long len, int prot, int flags)
{
	void *p = mmap(addr, len, prot, flags | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		wl_die("mmap(%p, %lu, %d, %#x) failed: errno %d", addr, len, prot, flags, errno);
	return p;
}

void wl_unmap(void *addr, unsigned long len)
{
	if (munmap(addr, len))
		wl_die("munmap(%p, %lu) failed: errno %d", addr, len, errno);
}

void wl_protect(void *addr, unsigned long len, int prot)
{
	if (mprotect(addr, len, prot))
		wl_die("mprotect(%p, %lu, %d) failed: errno %d", addr, len, prot, errno);
}

void wl_touch(void *p, unsigned long len)
{
	for (unsigned long o = 0; o < len; o += WL_PAGE)
		((volatile char *)p)[o] = 1;
}

unsigned long wl_read_pages(const void *p, unsigned long len)
{
	unsigned long sum = 0;

	for (unsigned long o = 0; o < len; o += WL_PAGE)
		sum += ((const volatile char *)p)[o];
	return sum;
}

void wl_in_child(const char *what, void (*fn)(void *), void *arg)
{
	int pid = fork(), st = 0;

	if (pid < 0)
		wl_die("%s: fork failed: errno %d", what, errno);
	if (pid == 0) {
		fn(arg);
		exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		wl_die("%s: child failed (wait status %#x)", what, st);
}

unsigned long wl_opt(int argc, char **argv, const char *name, unsigned long def)
{
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return strtoul(argv[i + 1], NULL, 0);
	return def;
}

bool wl_flag(int argc, char **argv, const char *name)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return true;
	return false;
}

static void sift_down(unsigned long *v, unsigned long i, unsigned long n)
{
	for (;;) {
		unsigned long c = 2 * i + 1, t;

		if (c >= n)
			return;
		if (c + 1 < n && v[c + 1] > v[c])
			c++;
		if (v[i] >= v[c])
			return;
		t = v[i];
		v[i] = v[c];
		v[c] = t;
		i = c;
	}
}

void wl_sort(unsigned long *v, unsigned long n)
{
	for (unsigned long i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (unsigned long end = n; end-- > 1;) {
		unsigned long t = v[0];

		v[0] = v[end];
		v[end] = t;
		sift_down(v, 0, end);
	}
}
