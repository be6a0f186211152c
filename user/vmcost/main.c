/*
 * vmcost: the kernel cost of single VM operations, measured from user space
 * with rdtsc. Under QEMU with `-icount shift=0` the guest TSC advances by one
 * per guest instruction, so the figures are instruction counts, exact and
 * repeatable (tools/vmcost runs it that way). On real hardware or Linux the
 * same program prints cycles.
 *
 * For each size (1, 64, 4096 pages) and operation it prints the median of
 * ROUNDS runs:
 *   mmap+touch+munmap   map anonymous private memory, write one byte per page, unmap
 *   mprotect-split      mprotect(middle third -> read-only): one VMA becomes three
 *   mprotect-merge      mprotect(middle third -> read-write): three VMAs merge back
 *   madvise-dontneed    MADV_DONTNEED on touched memory (pages freed)
 *   retouch-dontneed    writing every page again after it (fresh zero pages)
 *   madvise-free        MADV_FREE on touched memory (pages only marked)
 *   retouch-free        writing every page again after it (the pages are still there)
 * Output: one line per (operation, pages): "vmcost OP pages=N median=M min=m".
 */
#include "ulib.h"
#include "ubench.h"

#define ROUNDS 7

static void report(const char *op, unsigned long pages, uint64_t *v)
{
	ubench_sort(v, ROUNDS);
	printf("vmcost %-18s pages=%-5lu median=%llu min=%llu\n", op, pages,
	       (unsigned long long)v[ROUNDS / 2], (unsigned long long)v[0]);
}

static char *map(unsigned long len)
{
	long p = sys_mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (usys_is_err(p)) {
		printf("vmcost: mmap of %lu bytes failed: %ld\n", len, p);
		exit(1);
	}
	return (char *)p;
}

static void touch(char *p, unsigned long pages)
{
	for (unsigned long i = 0; i < pages; i++)
		((volatile char *)p)[i * 4096] = 1;
}

static void check(long r, const char *what)
{
	if (usys_is_err(r)) {
		printf("vmcost: %s failed: %ld\n", what, r);
		exit(1);
	}
}

static void bench_size(unsigned long pages)
{
	unsigned long len = pages * 4096;
	uint64_t a[ROUNDS], b[ROUNDS];

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = ubench_tsc();
		char *p = map(len);
		touch(p, pages);
		check(sys_munmap((unsigned long)p, len), "munmap");
		a[r] = ubench_tsc() - t0;
	}
	report("mmap+touch+munmap", pages, a);

	for (int r = 0; r < ROUNDS; r++) {
		char *p = map(3 * len);
		touch(p, 3 * pages);
		uint64_t t0 = ubench_tsc();
		check(sys_mprotect((unsigned long)p + len, len, PROT_READ), "mprotect");
		uint64_t t1 = ubench_tsc();
		check(sys_mprotect((unsigned long)p + len, len, PROT_READ | PROT_WRITE), "mprotect");
		uint64_t t2 = ubench_tsc();
		a[r] = t1 - t0;
		b[r] = t2 - t1;
		check(sys_munmap((unsigned long)p, 3 * len), "munmap");
	}
	report("mprotect-split", pages, a);
	report("mprotect-merge", pages, b);

	static const struct { int advice; const char *name, *retouch; } adv[] = {
		{ MADV_DONTNEED, "madvise-dontneed", "retouch-dontneed" },
		{ MADV_FREE, "madvise-free", "retouch-free" },
	};
	for (unsigned k = 0; k < 2; k++) {
		for (int r = 0; r < ROUNDS; r++) {
			char *p = map(len);
			touch(p, pages);
			uint64_t t0 = ubench_tsc();
			check(sys_madvise((unsigned long)p, len, adv[k].advice), adv[k].name);
			uint64_t t1 = ubench_tsc();
			touch(p, pages);
			uint64_t t2 = ubench_tsc();
			a[r] = t1 - t0;
			b[r] = t2 - t1;
			check(sys_munmap((unsigned long)p, len), "munmap");
		}
		report(adv[k].name, pages, a);
		report(adv[k].retouch, pages, b);
	}
}

int main(void)
{
	static const unsigned long sizes[] = { 1, 64, 4096 };
	for (unsigned i = 0; i < 3; i++)
		bench_size(sizes[i]);
	return 0;
}
