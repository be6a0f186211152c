/*
 * Memory pressure beside a workload (sysbench --pressure; docs/results):
 * a child process that takes nearly all free memory and then makes the
 * kernel reclaim again and again, so that pages a workload left
 * reclaimable (MADV_FREE's lazily freed ones) are taken from it while it
 * runs. Linux's kswapd works from the zone watermarks; the child puts the
 * free memory just above the low one and then crosses it every cycle:
 *
 *   1. hog: map and write anonymous memory until MemFree (/proc/meminfo)
 *      is low + slack + churn KiB, low computed as the kernel does from
 *      /proc/sys/vm/min_free_kbytes and MemTotal (min + max(min / 4,
 *      0.1% of RAM), Linux's __setup_per_zone_wmarks);
 *   2. churn: map churn KiB, write every page, unmap, and again, until
 *      told to stop. With no swap the hog's and the churn's pages cannot
 *      be reclaimed: what the kernel takes to stay above its watermarks
 *      comes from what the workload left reclaimable. The workload's own
 *      live memory must fit in slack plus the watermarks' headroom, or the
 *      OOM killer ends the child (the largest process): wl_pressure_stop
 *      says so.
 */
#include "wl.h"

/* The page the parent and the child share: the stop flag and the child's counts. */
struct pressure_shared {
	volatile int stop;
	volatile unsigned long cycles, hog_kib;
};

/* Linux's low watermark in KiB: min_free_kbytes + max(min / 4, RAM / 1000). */
static unsigned long low_watermark_kib(void)
{
	long min = wl_proc_number("/proc/sys/vm/min_free_kbytes", NULL);
	long total = wl_proc_number("/proc/meminfo", "MemTotal:");

	if (min < 0 || total < 0)
		wl_die("pressure: cannot read min_free_kbytes (%ld) or MemTotal (%ld)", min, total);
	return (unsigned long)(min + (min / 4 > total / 1000 ? min / 4 : total / 1000));
}

/*
 * Step 1: write anonymous memory, 64 KiB at a time, until MemFree is at
 * most leave KiB (at most 64 below); never freed: the exit does.
 */
static unsigned long hog(unsigned long leave)
{
	const unsigned long step = 64 * 1024;
	unsigned long kib = 0;
	long free_kib;

	while ((free_kib = wl_proc_number("/proc/meminfo", "MemFree:")) > (long)leave) {
		char *p = wl_map(NULL, step, PROT_READ | PROT_WRITE, 0);

		wl_touch(p, step);
		kib += step / 1024;
	}
	if (free_kib < 0)
		wl_die("pressure: cannot read MemFree");
	return kib;
}

static void pressure_child(struct pressure_shared *sh, unsigned long slack_kib, unsigned long churn_kib,
			   int ready_fd)
{
	unsigned long len = churn_kib * 1024;

	sh->hog_kib = hog(low_watermark_kib() + slack_kib + churn_kib);
	if (write(ready_fd, "r", 1) != 1)
		exit(2);
	while (!sh->stop) {
		char *p = wl_map(NULL, len, PROT_READ | PROT_WRITE, 0);

		wl_touch(p, len);
		wl_unmap(p, len);
		sh->cycles++;
	}
	exit(0);
}

void wl_pressure_start(struct wl_pressure *p, unsigned long slack_kib, unsigned long churn_kib)
{
	int fds[2];
	char c;

	p->shared = mmap(NULL, WL_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->shared == MAP_FAILED)
		wl_die("pressure: mmap of the shared page failed: errno %d", errno);
	if (pipe(fds))
		wl_die("pressure: pipe failed: errno %d", errno);
	p->pid = fork();
	if (p->pid < 0)
		wl_die("pressure: fork failed: errno %d", errno);
	if (p->pid == 0) {
		close(fds[0]);
		pressure_child(p->shared, slack_kib, churn_kib, fds[1]);
	}
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1)
		wl_die("pressure: the child died before it was ready");
	close(fds[0]);
}

bool wl_pressure_stop(struct wl_pressure *p, unsigned long *cycles, unsigned long *hog_kib)
{
	struct pressure_shared *sh = p->shared;
	int st = 0;

	sh->stop = 1;
	if (waitpid(p->pid, &st, 0) != p->pid)
		wl_die("pressure: waitpid failed: errno %d", errno);
	*cycles = sh->cycles;
	*hog_kib = sh->hog_kib;
	munmap(p->shared, WL_PAGE);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
