/*
 * mmbench: VM microbenchmarks in the spirit of will-it-scale, one static
 * binary that runs unchanged on Linux and on this kernel
 * (tools/bench/bench-linux runs it on both in the same QEMU).
 *
 * Each benchmark runs ROUNDS rounds of a fixed number of operations; a
 * round's cost is read with rdtsc around the timed part only (ubench.h), so
 * boot, program start and exit never enter a figure. Under QEMU's
 * `-icount shift=0` those are guest instructions, user and kernel together.
 * Output, one line per benchmark:
 *
 *   mmbench NAME per-op=MEDIAN min=MIN ops=N   (instructions per operation)
 *
 * MEDIAN is the median over the rounds of (round cost / operations in the
 * round): it ignores the first round's one-time costs (page tables, slab
 * growth) and a round that a timer interrupt happened to hit.
 *
 * Arguments: benchmark names to run (default: all); or `--swap MEM_MIB
 * [NAME...]`: turn swap on and run the swap benchmarks instead (swap.c);
 * or `--thp [NAME...]`: the huge-page benchmarks (thp.c). All but --thp
 * run with transparent huge pages off (PR_SET_THP_DISABLE).
 * As pid 1 (the init of
 * the Linux initramfs) it powers the machine off at the end; where reboot
 * is not implemented (this kernel), the call fails and it just exits.
 */
#include "ulib.h"
#include "ubench.h"
#include "mmbench.h"

#define ROUNDS 9
#define PF_PAGES 256                 /* page_fault1: 1 MiB per round */
#define ADV_PAGES 64                 /* madvise and fork: touched pages */
#define MANY_VMAS 5000               /* the crowded address space */
#define MANY_FAULTS 128              /* faults per round among them */
#define MREMAP_MAX 64                /* mremap growth: 1 .. 64 pages */

void die(const char *what, long r)
{
	printf("mmbench: %s failed: %ld\n", what, r);
	exit(1);
}

char *map_anon(unsigned long len)
{
	long p = sys_mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (usys_is_err(p))
		die("mmap", p);
	return (char *)p;
}

void check(long r, const char *what)
{
	if (usys_is_err(r))
		die(what, r);
}

static void touch(char *p, unsigned long pages)
{
	for (unsigned long i = 0; i < pages; i++)
		((volatile char *)p)[i * PAGE] = 1;
}

void read_pages(char *p, unsigned long pages)
{
	for (unsigned long i = 0; i < pages; i++)
		(void)((volatile char *)p)[i * PAGE];
}

/* ---- page_fault1 and its read twin: map, fault every page, unmap */

static uint64_t pf_round(bool write)
{
	uint64_t t0 = ubench_tsc();
	char *p = map_anon(PF_PAGES * PAGE);

	if (write)
		touch(p, PF_PAGES);
	else
		read_pages(p, PF_PAGES);
	check(sys_munmap((unsigned long)p, PF_PAGES * PAGE), "munmap");
	return ubench_tsc() - t0;
}

static uint64_t pf_write_round(void) { return pf_round(true); }
static uint64_t pf_read_round(void) { return pf_round(false); }

/* ---- mmap1: map and unmap 1 MiB without touching it */

static uint64_t mmap1_round(void)
{
	uint64_t t0 = ubench_tsc();

	for (int i = 0; i < 64; i++)
		check(sys_munmap((unsigned long)map_anon(PF_PAGES * PAGE), PF_PAGES * PAGE), "munmap");
	return ubench_tsc() - t0;
}

/* ---- mprotect: split a touched 48-page VMA into three and merge it back */

static char *region;

static void mprotect_setup(void)
{
	region = map_anon(48 * PAGE);
	touch(region, 48);
}

static uint64_t mprotect_round(void)
{
	unsigned long mid = (unsigned long)region + 16 * PAGE;
	uint64_t t0 = ubench_tsc();

	for (int i = 0; i < 64; i++) {
		check(sys_mprotect(mid, 16 * PAGE, PROT_READ), "mprotect");
		check(sys_mprotect(mid, 16 * PAGE, PROT_READ | PROT_WRITE), "mprotect");
	}
	return ubench_tsc() - t0;
}

static void region_teardown_48(void)
{
	check(sys_munmap((unsigned long)region, 48 * PAGE), "munmap");
}

/* ---- madvise: DONTNEED / FREE of 64 (or 1) touched pages, and the refault after DONTNEED */

static void adv_setup(void)
{
	region = map_anon(ADV_PAGES * PAGE);
}

static void adv_teardown(void)
{
	check(sys_munmap((unsigned long)region, ADV_PAGES * PAGE), "munmap");
}

/* 16 times: touch the first pages of the region (untimed), then time the advice on them. */
static uint64_t advice_round(int advice, unsigned long pages)
{
	uint64_t sum = 0;

	for (int i = 0; i < 16; i++) {
		touch(region, pages);
		uint64_t t0 = ubench_tsc();
		check(sys_madvise((unsigned long)region, pages * PAGE, advice), "madvise");
		sum += ubench_tsc() - t0;
	}
	return sum;
}

static uint64_t dontneed_round(void) { return advice_round(MADV_DONTNEED, ADV_PAGES); }
static uint64_t dontneed1_round(void) { return advice_round(MADV_DONTNEED, 1); }
static uint64_t free_round(void) { return advice_round(MADV_FREE, ADV_PAGES); }

/* 4 times: DONTNEED (untimed), then time writing every page again. */
static uint64_t refault_round(void)
{
	uint64_t sum = 0;

	for (int i = 0; i < 4; i++) {
		check(sys_madvise((unsigned long)region, ADV_PAGES * PAGE, MADV_DONTNEED), "madvise");
		uint64_t t0 = ubench_tsc();
		touch(region, ADV_PAGES);
		sum += ubench_tsc() - t0;
	}
	return sum;
}

/* ---- brk1: grow the heap by a page and shrink it back */

static unsigned long brk0;

static void brk_setup(void)
{
	brk0 = (unsigned long)sys_brk(0);
}

static uint64_t brk_round(void)
{
	uint64_t t0 = ubench_tsc();

	for (int i = 0; i < 64; i++) {
		if ((unsigned long)sys_brk(brk0 + PAGE) != brk0 + PAGE)
			die("brk grow", 0);
		if ((unsigned long)sys_brk(brk0) != brk0)
			die("brk shrink", 0);
	}
	return ubench_tsc() - t0;
}

/* ---- a crowded address space: MANY_VMAS VMAs (every other page read-only) */

static void many_setup(void)
{
	region = map_anon(MANY_VMAS * PAGE);
	for (unsigned long i = 1; i < MANY_VMAS; i += 2)
		check(sys_mprotect((unsigned long)region + i * PAGE, PAGE, PROT_READ), "mprotect");
}

/* In pieces of 100 VMAs: this kernel's munmap over thousands of VMAs fails today (-ENOMEM). */
static void many_teardown(void)
{
	for (unsigned long i = 0; i < MANY_VMAS; i += 100)
		check(sys_munmap((unsigned long)region + i * PAGE, 100 * PAGE), "munmap");
}

/* Write faults in MANY_FAULTS different writable VMAs, spread over the region. */
static uint64_t many_fault_round(void)
{
	uint64_t sum = 0;

	for (unsigned long k = 0; k < MANY_FAULTS; k++) {
		/* even pages are the writable VMAs; 37 is coprime to MANY_VMAS / 2 */
		unsigned long page = 2 * ((k * 37) % (MANY_VMAS / 2));
		uint64_t t0 = ubench_tsc();

		((volatile char *)region)[page * PAGE] = 1;
		sum += ubench_tsc() - t0;
	}
	check(sys_madvise((unsigned long)region, MANY_VMAS * PAGE, MADV_DONTNEED), "madvise");
	return sum;
}

static uint64_t many_mmap_round(void)
{
	uint64_t t0 = ubench_tsc();

	for (int i = 0; i < 64; i++)
		check(sys_munmap((unsigned long)map_anon(16 * PAGE), 16 * PAGE), "munmap");
	return ubench_tsc() - t0;
}

/* ---- fork + copy-on-write */

static uint64_t *shared_slot;                 /* child -> parent, MAP_SHARED */

static void fork_setup(void)
{
	long p = sys_mmap(0, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (usys_is_err(p))
		die("mmap shared", p);
	shared_slot = (uint64_t *)p;
	region = map_anon(ADV_PAGES * PAGE);
	touch(region, ADV_PAGES);
}

static void fork_teardown(void)
{
	adv_teardown();
	check(sys_munmap((unsigned long)shared_slot, PAGE), "munmap");
}

/* Fork; the child writes every page (copies) and reports the time of the writes. */
static uint64_t fork_once(void)
{
	int status;
	long pid = sys_fork();

	if (pid == 0) {
		uint64_t t0 = ubench_tsc();

		touch(region, ADV_PAGES);
		*shared_slot = ubench_tsc() - t0;
		_exit(0);
	}
	if (pid < 0)
		die("fork", pid);
	if (sys_wait4((int)pid, &status, 0, NULL) != pid || status != 0)
		die("wait4", status);
	return *shared_slot;
}

/* One op: fork, the child's 64 copy-on-write faults and exit, wait, the parent's rewrite. */
static uint64_t fork_round(void)
{
	uint64_t t0 = ubench_tsc();

	for (int i = 0; i < 4; i++) {
		fork_once();
		touch(region, ADV_PAGES);
	}
	return ubench_tsc() - t0;
}

/* One op: a copy-on-write fault in the child (a page copied). */
static uint64_t cow_round(void)
{
	return fork_once();
}

/* ---- mremap growth: 1 page grown to 64, one page per call, may move */

static uint64_t mremap_round(void)
{
	uint64_t sum = 0;
	char *p = map_anon(PAGE);

	touch(p, 1);
	for (unsigned long n = 1; n < MREMAP_MAX; n++) {
		uint64_t t0 = ubench_tsc();
		long q = sys_mremap((unsigned long)p, n * PAGE, (n + 1) * PAGE, MREMAP_MAYMOVE, 0);

		sum += ubench_tsc() - t0;
		if (usys_is_err(q))
			die("mremap", q);
		p = (char *)q;
		p[n * PAGE] = 1;
	}
	check(sys_munmap((unsigned long)p, MREMAP_MAX * PAGE), "munmap");
	return sum;
}

static void nothing(void) {}

static const struct bench benches[] = {
	{ "page_fault1", "write fault on a fresh anonymous page (mmap 1 MiB, write a byte per page, munmap)",
	  PF_PAGES, nothing, pf_write_round, nothing },
	{ "page_fault_read", "read fault mapping the zero page (mmap 1 MiB, read a byte per page, munmap)",
	  PF_PAGES, nothing, pf_read_round, nothing },
	{ "mmap1", "mmap + munmap of 1 MiB, untouched", 64, nothing, mmap1_round, nothing },
	{ "mprotect_split_merge", "mprotect of the middle 16 of 48 touched pages to r--, then back to rw-",
	  64, mprotect_setup, mprotect_round, region_teardown_48 },
	{ "madv_dontneed", "MADV_DONTNEED of 64 touched pages", 16, adv_setup, dontneed_round, adv_teardown },
	{ "madv_dontneed_1", "MADV_DONTNEED of the one touched page of a 64-page mapping", 16, adv_setup,
	  dontneed1_round, adv_teardown },
	{ "dontneed_refault", "write fault after MADV_DONTNEED, per page", 4 * ADV_PAGES, adv_setup,
	  refault_round, adv_teardown },
	{ "madv_free", "MADV_FREE of 64 touched pages", 16, adv_setup, free_round, adv_teardown },
	{ "brk1", "brk up one page and back down", 64, brk_setup, brk_round, nothing },
	{ "fault_5000_vmas", "write fault in one of 5,000 VMAs", MANY_FAULTS, many_setup,
	  many_fault_round, many_teardown },
	{ "mmap1_5000_vmas", "mmap + munmap of 64 KiB with 5,000 VMAs present", 64, many_setup,
	  many_mmap_round, many_teardown },
	{ "fork_cow", "fork, child writes 64 pages and exits, wait, parent rewrites them", 4,
	  fork_setup, fork_round, fork_teardown },
	{ "cow_fault", "copy-on-write fault in a forked child, per page", ADV_PAGES, fork_setup,
	  cow_round, fork_teardown },
	{ "mremap_grow", "mremap(MAYMOVE) growing a touched mapping by one page, 1..64 pages",
	  MREMAP_MAX - 1, nothing, mremap_round, nothing },
};
#define NBENCH (sizeof(benches) / sizeof(benches[0]))

void bench_run(const struct bench *b)
{
	uint64_t v[ROUNDS];

	b->setup();
	for (int r = 0; r < ROUNDS; r++)
		v[r] = b->round();
	b->teardown();
	ubench_sort(v, ROUNDS);
	printf("mmbench %s per-op=%llu min=%llu ops=%lu\n", b->name,
	       (unsigned long long)((v[ROUNDS / 2] + b->ops / 2) / b->ops),
	       (unsigned long long)((v[0] + b->ops / 2) / b->ops), b->ops);
}

void bench_list(const struct bench *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		printf("%-22s %s\n", b[i].name, b[i].what);
}

bool wanted(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		bench_list(benches, NBENCH);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "--thp")) {
		thp_benches(argc - 1, argv + 1);        /* huge pages as each kernel's defaults give them */
	} else {
		/* 4 KiB pages on both kernels: no transparent huge pages. */
		sys_prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
		if (argc >= 3 && !strcmp(argv[1], "--swap")) {
			swap_enable();
			swap_benches(strtoul(argv[2], NULL, 10), argc - 2, argv + 2);
		} else {
			for (unsigned i = 0; i < NBENCH; i++)
				if (wanted(benches[i].name, argc, argv))
					bench_run(&benches[i]);
		}
	}
	printf("mmbench done\n");
	if (getpid() == 1)
		sys_reboot(0x4321fedc);           /* Linux as init: power off */
	return 0;
}
