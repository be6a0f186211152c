/*
 * fuzz: the syscall fuzzer's driver (docs/fuzz.md).
 *
 *   fuzz [--seeds A,B,..] [--seconds N | --until-input] [--ops N] [--threads N] [--dir D] [--private-fds]
 *
 * Runs each listed seed (default 1), then, with --seconds, the seeds after
 * the last one until N seconds of the guest's clock have passed; with
 * --until-input, until fd 0 has input or is at its end (tools/fuzz stops
 * a run by the host's clock that way when the guest's clock counts
 * instructions, QEMU's -icount). A seed runs in a forked child
 * in its own process group (seed.c): --ops operations spread over
 * --threads threads (default 20000 over 4), plus what its forks and
 * late threads do. After the seed's first process has exited, the driver
 * kills what is left of the group, reaps every process (it is pid 1, or a
 * subreaper on Linux), removes the seed's files, and asks the kernel to
 * check itself (vmk_check): every address space, the buddy allocator, the
 * slab caches, every frame's mapcount against the page tables (the
 * frame-map audit, VMK_CHECK_MAPS), and the free-frame count, which must be what it was before
 * the seed, exactly (from the second seed on: a warm-up seed runs first).
 * A first process killed by SIGKILL while /proc/vmstat's oom_kill grew
 * is the OOM killer's work (a seed may map more than the machine has):
 * said on the seed's line, and the seed is checked as any other.
 * One line per seed; the first failure ends the run
 * with "seed N: FAILED: why" and status 1; the last line is "N passed, N failed"
 * (seeds). On Linux (no vmk_check) only the
 * fuzzer's own promises are checked.
 */
#include "fuzz.h"

#define WALL 0x40000000
#define HANG_S 60               /* no fuzz syscall anywhere in the seed for this long: hung */
#define PR_SET_CHILD_SUBREAPER 36
/*
 * Before the listed seeds, a short warm-up seed: the first fork, thread,
 * pipe, epoll, memfd and file of a boot grow kernel caches that stay (a
 * frame or a few), so the exact frame count is checked from the next seed
 * on; the warm-up's kernel checks count as any seed's.
 */
#define WARMUP_SEED 0x5eed
#define WARMUP_OPS 500

struct fz_stats *fz_stats;
bool fz_share_fds = true;

static long now_ms(void)
{
	long ts[2];

	usys2(__NR_clock_gettime, 1, (long)ts);
	return ts[0] * 1000 + ts[1] / 1000000;
}

static void nap_ms(long ms)
{
	long ts[2] = { 0, ms * 1000000 };

	usys2(__NR_nanosleep, (long)ts, 0);
}

struct options {
	const char *seeds, *dir;
	long seconds, ops;
	int threads;
	bool until_input;
};

static int parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){ "1", "/fuzz", 0, 20000, 4, false };
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--private-fds") == 0) {
			fz_share_fds = false;
			continue;
		}
		if (strcmp(argv[i], "--until-input") == 0) {
			o->until_input = true;
			continue;
		}
		if (!v)
			return -1;
		if (strcmp(argv[i], "--seeds") == 0)
			o->seeds = v;
		else if (strcmp(argv[i], "--dir") == 0)
			o->dir = v;
		else if (strcmp(argv[i], "--seconds") == 0)
			o->seconds = strtol(v, NULL, 10);
		else if (strcmp(argv[i], "--ops") == 0)
			o->ops = strtol(v, NULL, 10);
		else if (strcmp(argv[i], "--threads") == 0)
			o->threads = (int)strtol(v, NULL, 10);
		else
			return -1;
		i++;
	}
	return o->ops > 0 && o->threads > 0 && o->threads <= FZ_MAX_ACTORS ? 0 : -1;
}

/* Wait for the seed's first process; 0 with its status, or -1 when the seed made no progress for HANG_S. */
static int wait_root(int pid, int *st)
{
	uint64_t seen = fz_stats->syscalls;
	long last = now_ms();

	for (;;) {
		long r = sys_wait4(pid, st, 1 /* WNOHANG */, NULL);

		if (r == pid)
			return 0;
		if (r < 0)
			return -1;
		if (fz_stats->syscalls != seen) {
			seen = fz_stats->syscalls;
			last = now_ms();
		} else if (now_ms() - last > HANG_S * 1000) {
			return -1;
		}
		nap_ms(2);
	}
}

/* Kill what is left of the seed's group and reap every child (orphans come to us). */
static void reap_all(int pgid)
{
	int st;

	sys_kill(-pgid, SIGKILL);
	while (sys_wait4(-1, &st, WALL, NULL) > 0)
		;
}

static void remove_files(const char *dir)
{
	char path[96];

	for (int i = 0; i < FZ_FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		usys1(__NR_unlink, (long)path);
	}
}

/* Whether fd 0 has input or is at its end (poll with no wait): --until-input's stop. */
static bool input_waiting(void)
{
	struct { int fd; short events, revents; } p = { 0, 1 /* POLLIN */, 0 };

	return usys3(__NR_poll, (long)&p, 1, 0) > 0;
}

/* Whether to run the seed after the last one: time left, or no input yet. */
static bool more_seeds(const struct options *o, long t0)
{
	if (o->until_input)
		return !input_waiting();
	return o->seconds && now_ms() - t0 < o->seconds * 1000;
}

/* /proc/meminfo after a failed seed, for the report: where the memory is. */
static void print_meminfo(void)
{
	char buf[2048];
	int fd = (int)usys3(__NR_open, (long)"/proc/meminfo", 0, 0);
	long n;

	if (fd < 0)
		return;
	while ((n = usys3(__NR_read, fd, (long)buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		printf("%s", buf);
	}
	usys1(__NR_close, fd);
}

/* The counter name of /proc/vmstat (events since boot), or -1 when unreadable. */
static long vmstat_value(const char *name)
{
	static char buf[8192];
	char key[64];
	int fd = (int)usys3(__NR_open, (long)"/proc/vmstat", 0, 0);
	long n = 0, r;

	if (fd < 0)
		return -1;
	memset(buf, 0, sizeof(buf));    /* all its pages at the first call: not when the file grows past one */
	while (n < (long)sizeof(buf) - 1 && (r = usys3(__NR_read, fd, (long)buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	usys1(__NR_close, fd);
	buf[n] = 0;
	snprintf(key, sizeof(key), "\n%s ", name);
	for (char *p = buf; *p; p++)
		if (!strncmp(p, key, strlen(key)))
			return strtol(p + strlen(key), NULL, 10);
	return -1;
}

/* /proc/vmstat's oom_kill (processes the OOM killer killed since boot), or -1 when unreadable. */
static long oom_kills(void)
{
	return vmstat_value("oom_kill");
}

/* vmk_check (flags: VMK_CHECK_*): 1 on Linux (not there), 0 passed, -1 failed. */
static int kernel_check(struct vmk_check *r, long flags)
{
	long e = usys3(__NR_vmk_check, (long)r, sizeof(*r), flags);

	return e == -38 ? 1 : e == 0 ? 0 : -1;
}

/*
 * The frame count did not come back: say how many address spaces are
 * alive (queued teardowns included) and ask the kernel to list in its log
 * every page-cache object still holding pages (references, mappings,
 * kind), so that one failing run tells who keeps the memory.
 */
static void leak_report(const struct vmk_check *before, const struct vmk_check *after, char *why, size_t n)
{
	static const char *const kind[VMK_CENSUS_KINDS] = {
		"free", "reserved", "per-CPU free", "slab", "page table", "anonymous", "page cache", "other",
	};
	struct vmk_check again;
	int len;

	kernel_check(&again, VMK_CHECK_REPORT);
	len = snprintf(why, n, "frames leaked: %lu free before the seed, %lu after (%lu address spaces, %lu alive; "
		       "%lu objects with pages, kernel log); by kind, after - before:", (unsigned long)before->free_frames,
		       (unsigned long)after->free_frames, (unsigned long)after->mms_checked,
		       (unsigned long)again.mms_live, (unsigned long)again.objects_with_pages);
	/* Which kind of frame the missing ones are now (the counts of the checks before and after the seed). */
	for (int k = 0; k < VMK_CENSUS_KINDS && len > 0 && (size_t)len < n; k++)
		if (after->census[k] != before->census[k])
			len += snprintf(why + len, n - (size_t)len, " %s %+ld", kind[k],
					(long)(after->census[k] - before->census[k]));
}

/*
 * One seed. 0 when clean; else prints "seed N: FAILED: why" and returns -1.
 * frames: whether the free-frame count must come back exactly (not for the
 * warm-up seed, whose first uses grow kernel caches for good).
 */
static int run_seed(uint64_t seed, const struct options *o, bool frames)
{
	struct vmk_check before, after, maps;
	struct fz_stats s0 = *fz_stats;
	int on_vmk = kernel_check(&before, VMK_CHECK_CENSUS | VMK_CHECK_MARK), st = 0, pid;
	long oom0 = oom_kills();
	bool oom_killed = false;
	char why[400] = "";

	printf("seed %lu: ", (unsigned long)seed);     /* the rest when it ends: a crash still names it */
	if (on_vmk < 0) {
		printf("FAILED: kernel checks failed before the seed (failed %#lx)\n", (unsigned long)before.failed);
		return -1;
	}
	fz_stats->ops_left = o->ops;
	pid = fork();
	if (pid == 0)
		fz_seed_main(seed, o->ops, o->threads, o->dir);
	if (pid < 0) {
		printf("FAILED: fork: errno %d\n", errno);
		return -1;
	}
	usys2(__NR_setpgid, pid, pid);
	if (wait_root(pid, &st) < 0) {
		snprintf(why, sizeof(why), "hung: no system call for %d s (the kernel log has every task)", HANG_S);
		usys3(__NR_vmk_check, 0, 0, VMK_CHECK_TASKS);  /* where each waits, before the kill */
	}
	else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && oom0 >= 0 && oom_kills() > oom0)
		oom_killed = true;      /* the seed filled memory: the OOM killer's job, checked below as any seed */
	else if (WIFSIGNALED(st))
		snprintf(why, sizeof(why), "the seed's first process was killed by signal %d", WTERMSIG(st));
	reap_all(pid);
	remove_files(o->dir);
	if (!why[0] && fz_stats->unexpected)
		snprintf(why, sizeof(why), "%s", fz_stats->what);
	else if (!why[0] && WEXITSTATUS(st) != 0)
		snprintf(why, sizeof(why), "the seed's first process exited with %d", WEXITSTATUS(st));
	if (!why[0] && on_vmk == 0) {
		if (kernel_check(&after, VMK_CHECK_CENSUS) < 0)
			snprintf(why, sizeof(why), "kernel checks failed after the seed (failed %#lx: the kernel log says what)",
				 (unsigned long)after.failed);
		else if (kernel_check(&maps, VMK_CHECK_MAPS) < 0) {
			snprintf(why, sizeof(why), "the frame-map audit failed after the seed (failed %#lx: the kernel "
				 "log shows the frames and their mappings, every task and the frames by kind)",
				 (unsigned long)maps.failed);
			/* Memory no live address space maps: who is still tearing one down, and what kind it is. */
			usys3(__NR_vmk_check, 0, 0, VMK_CHECK_TASKS);
			kernel_check(&maps, VMK_CHECK_REPORT);
		}
		else if (frames && after.free_frames != before.free_frames)
			leak_report(&before, &after, why, sizeof(why));
	}
	if (why[0]) {
		printf("FAILED: %s\n", why);
		print_meminfo();
		return -1;
	}
	if (oom_killed)
		printf("first process OOM-killed (oom_kill +%ld); ", oom_kills() - oom0);
	printf("%lu syscalls, %lu forks, %lu threads, %lu signals, %lu faults caught; ",
	       (unsigned long)(fz_stats->syscalls - s0.syscalls), (unsigned long)(fz_stats->forks - s0.forks),
	       (unsigned long)(fz_stats->threads - s0.threads), (unsigned long)(fz_stats->signals - s0.signals),
	       (unsigned long)(fz_stats->faults - s0.faults));
	if (on_vmk == 0 && frames)
		printf("checks passed (%lu address spaces), %lu free frames before and after\n",
		       (unsigned long)after.mms_checked, (unsigned long)after.free_frames);
	else if (on_vmk == 0)
		printf("checks passed; warm-up: %ld frames for caches first used\n",
		       (long)before.free_frames - (long)after.free_frames);
	else
		printf("no kernel checks (not vmkernel)\n");
	return 0;
}

/*
 * The driver's stack, touched once before the first frame count: a page
 * of it first touched between a seed's two counts (a deeper call path
 * than before) reads as a frame leaked by the seed (vmstat_value writes
 * its whole buffer each time for the same reason).
 */
static void __attribute__((noinline)) touch_own_memory(void)
{
	volatile char pad[64 * 1024];

	for (size_t i = 0; i < sizeof(pad); i += 512)
		pad[i] = 0;
}

int main(int argc, char **argv)
{
	struct options o;
	const char *p;
	uint64_t seed = 0, seeds = 0;
	long t0, ms;
	int failed = 0;

	if (parse(argc, argv, &o) < 0) {
		printf("usage: fuzz [--seeds A,B,..] [--seconds N | --until-input] [--ops N] [--threads 1-%d] [--dir D] [--private-fds]\n",
		       FZ_MAX_ACTORS);
		return 2;
	}
	fz_stats = mmap(NULL, UPAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fz_stats == MAP_FAILED) {
		printf("fuzz: no memory for the counters\n");
		return 2;
	}
	usys2(__NR_mkdir, (long)o.dir, 0700);
	sys_prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	printf("fuzz: %ld operations per seed over %d threads%s%s\n", o.ops, o.threads,
	       fz_share_fds ? "" : " (each with its own fd table)",
	       o.seconds || o.until_input ? ", then further seeds until the time is up" : "");
	touch_own_memory();
	t0 = now_ms();
	{
		struct options warm = o;

		warm.ops = o.ops < WARMUP_OPS ? o.ops : WARMUP_OPS;
		failed = run_seed(WARMUP_SEED, &warm, false) < 0;
	}
	for (p = o.seeds; *p && !failed; seeds++) {
		char *end;

		seed = strtoul(p, &end, 0);
		if (end == p) {
			printf("fuzz: bad seed list '%s'\n", o.seeds);
			return 2;
		}
		p = *end == ',' ? end + 1 : end;
		failed = run_seed(seed, &o, true) < 0;
	}
	while (!failed && more_seeds(&o, t0)) {
		failed = run_seed(++seed, &o, true) < 0;
		seeds++;
	}
	ms = now_ms() - t0;
	printf("fuzz: %lu seeds, %lu syscalls in %ld.%01ld s of guest time (%lu syscalls/s): %s\n", (unsigned long)seeds,
	       (unsigned long)fz_stats->syscalls, ms / 1000, ms % 1000 / 100,
	       (unsigned long)(fz_stats->syscalls * 1000 / (ms ? ms : 1)), failed ? "FAILED" : "clean");
	/* What the run did with huge pages (since boot: the run is the boot's work). */
	printf("fuzz: huge pages: %ld faulted, %ld leaves split, %ld collapsed, %ld huge zero pages made "
	       "(/proc/vmstat)\n", vmstat_value("thp_fault_alloc"), vmstat_value("thp_split_pmd"),
	       vmstat_value("thp_collapse_alloc"), vmstat_value("thp_zero_page_alloc"));
	printf("%lu passed, %d failed\n", (unsigned long)(seeds - (uint64_t)failed), failed);
	return failed;
}
