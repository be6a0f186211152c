/*
 * mmbench --thp: the same kind of work with transparent huge pages as each
 * kernel ships them (Debian's Linux: "always"; this kernel: thp=always),
 * for tools/bench/bench-linux's huge-page table.
 *
 * Every mapping is placed at a 2 MiB boundary (a larger one is mapped and
 * its ends unmapped, untimed), so both kernels can map the same number of
 * huge pages wherever their mmap puts it: Linux 6.1 does not align
 * anonymous mappings itself (6.7 does), and the figures should not depend
 * on where each kernel's mmap lands.
 *
 * After each benchmark a line "mmthp NAME thp_fault_alloc=A
 * thp_split_pmd=S thp_collapse_alloc=C" gives /proc/vmstat's growth over
 * its rounds, to show that huge pages were used (as init on Linux, proc is
 * mounted first).
 */
#include "ulib.h"
#include "ubench.h"
#include "mmbench.h"

#define HUGE (2UL << 20)
#define FORK_MIB 64

/* A private anonymous read-write mapping of len bytes (a multiple of HUGE) at a HUGE boundary. */
static char *map_huge_aligned(unsigned long len)
{
	unsigned long p = (unsigned long)map_anon(len + HUGE);
	unsigned long a = (p + HUGE - 1) & ~(HUGE - 1), head = a - p;

	if (head)
		check(sys_munmap(p, head), "munmap");
	check(sys_munmap(a + len, HUGE - head), "munmap");
	return (char *)a;
}

static void write_pages(char *p, unsigned long pages)
{
	for (unsigned long i = 0; i < pages; i++)
		((volatile char *)p)[i * PAGE] = 1;
}

/* ---- page_fault1 with huge pages: a write per 4 KiB page of a fresh aligned mapping, then munmap */

static uint64_t fault_round(unsigned long len)
{
	char *p = map_huge_aligned(len);
	uint64_t t0 = ubench_tsc();

	write_pages(p, len / PAGE);
	check(sys_munmap((unsigned long)p, len), "munmap");
	return ubench_tsc() - t0;
}

static uint64_t fault16_round(void) { return fault_round(16UL << 20); }
static uint64_t fault128_round(void) { return fault_round(128UL << 20); }

/* ---- fork of a process with 64 MiB in huge pages (the child exits at once) */

static char *forked;

static void fork_setup(void)
{
	forked = map_huge_aligned((unsigned long)FORK_MIB << 20);
	write_pages(forked, ((unsigned long)FORK_MIB << 20) / PAGE);
}

static void fork_teardown(void)
{
	check(sys_munmap((unsigned long)forked, (unsigned long)FORK_MIB << 20), "munmap");
}

static uint64_t fork_round(void)
{
	uint64_t t0 = ubench_tsc();

	for (int i = 0; i < 4; i++) {
		int status;
		long pid = sys_fork();

		if (pid == 0)
			_exit(0);
		if (pid < 0)
			die("fork", pid);
		if (sys_wait4((int)pid, &status, 0, NULL) != pid || status != 0)
			die("wait4", status);
	}
	return ubench_tsc() - t0;
}

/* ---- the split: munmap of one 4 KiB page in the middle of a huge page */

static uint64_t split_round(void)
{
	uint64_t sum = 0;

	for (int i = 0; i < 16; i++) {
		char *p = map_huge_aligned(HUGE);

		write_pages(p, 1);                      /* one fault: the huge page */
		uint64_t t0 = ubench_tsc();
		check(sys_munmap((unsigned long)p + HUGE / 2, PAGE), "munmap");
		sum += ubench_tsc() - t0;
		check(sys_munmap((unsigned long)p, HUGE), "munmap");
	}
	return sum;
}

/* ---- MADV_COLLAPSE of 2 MiB written in 4 KiB pages */

static uint64_t collapse_round(void)
{
	uint64_t sum = 0;

	for (int i = 0; i < 4; i++) {
		char *p = map_huge_aligned(HUGE);

		check(sys_madvise((unsigned long)p, HUGE, MADV_NOHUGEPAGE), "madvise");
		write_pages(p, HUGE / PAGE);            /* 512 faults, 4 KiB each */
		check(sys_madvise((unsigned long)p, HUGE, MADV_HUGEPAGE), "madvise");
		uint64_t t0 = ubench_tsc();
		check(sys_madvise((unsigned long)p, HUGE, MADV_COLLAPSE), "MADV_COLLAPSE");
		sum += ubench_tsc() - t0;
		check(sys_munmap((unsigned long)p, HUGE), "munmap");
	}
	return sum;
}

static void nothing(void) {}

static const struct bench thp_list[] = {
	{ "thp_fault_16m", "a write per 4 KiB of a fresh 2 MiB-aligned 16 MiB mapping, munmap included, per 4 KiB",
	  (16UL << 20) / PAGE, nothing, fault16_round, nothing },
	{ "thp_fault_128m", "the same over 128 MiB, per 4 KiB", (128UL << 20) / PAGE, nothing, fault128_round,
	  nothing },
	{ "thp_fork_64m", "fork of a process with 64 MiB in huge pages, the child exits, wait", 4, fork_setup,
	  fork_round, fork_teardown },
	{ "thp_split_munmap", "munmap of 4 KiB in the middle of a huge page (the split)", 16, nothing,
	  split_round, nothing },
	{ "thp_collapse", "MADV_COLLAPSE of 2 MiB written in 4 KiB pages", 4, nothing, collapse_round, nothing },
};
#define NTHP (sizeof(thp_list) / sizeof(thp_list[0]))

struct thp_counts {
	unsigned long fault_alloc, split_pmd, collapse_alloc;
};

static void thp_counts(struct thp_counts *c)
{
	const char *vm = read_proc("/proc/vmstat");

	c->fault_alloc = proc_field(vm, "thp_fault_alloc");
	c->split_pmd = proc_field(vm, "thp_split_pmd");
	c->collapse_alloc = proc_field(vm, "thp_collapse_alloc");
}

void thp_benches(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		bench_list(thp_list, NTHP);
		return;
	}
	if (getpid() == 1)
		mount_on("proc", "/proc");      /* Linux's /init: nothing has mounted it */
	for (unsigned i = 0; i < NTHP; i++) {
		struct thp_counts a, b;

		if (!wanted(thp_list[i].name, argc, argv))
			continue;
		thp_counts(&a);
		bench_run(&thp_list[i]);
		thp_counts(&b);
		printf("mmthp %s thp_fault_alloc=%lu thp_split_pmd=%lu thp_collapse_alloc=%lu\n", thp_list[i].name,
		       b.fault_alloc - a.fault_alloc, b.split_pmd - a.split_pmd, b.collapse_alloc - a.collapse_alloc);
	}
}
