/*
 * mmbench --swap MEM_MIB [NAME...]: the swap benchmarks of
 * tools/bench/bench-linux, run as init (pid 1) in a QEMU machine of
 * MEM_MIB MiB with a virtio-blk disk (QEMU's virtio-blk-pci, vda), the same
 * program on Linux and on this kernel.
 *
 * Turning swap on takes the path Linux needs, and reports what each step
 * returned on either kernel:
 *   1. the modules listed in /mods/order (the initramfs bench-linux builds
 *      for Linux: virtio_blk and what it depends on; Debian builds them as
 *      modules) are loaded with finit_module;
 *   2. devtmpfs is mounted on /dev, so /dev/vda exists, and proc on /proc
 *      (an initramfs has neither);
 *   3. mkswap: page 0 of /dev/vda gets a swap header (Linux's union
 *      swap_header: version 1, last_page, no bad pages, "SWAPSPACE2" in the
 *      page's last 10 bytes);
 *   4. swapon("/dev/vda", 0).
 * This kernel has no modules, no devtmpfs, no /dev/vda for programs and no
 * swapon (-ENOSYS): it swaps on vda from boot (kernel option swap=vda,
 * which tools/run --swap adds; no header is read). Either way the
 * benchmarks run only when /proc/meminfo then shows SwapTotal > 0.
 *
 * Each benchmark prints one line for the script to turn into the table:
 *
 *   mmswap NAME cost=C ops=N pgmajfault=A pswpin=B pswpout=C idle=D
 *
 * C: guest instructions (rdtsc under -icount shift=0) of the timed part;
 * A, B, C: the /proc/vmstat counters' growth over it (Linux's names, on
 * both kernels); D: /proc/stat's idle + iowait growth over it, in USER_HZ
 * ticks (1/100 s): time the CPU halted, which under -icount advances the
 * guest clock with the host's clock (Linux halts while its disk reads;
 * this kernel's virtio-blk driver polls instead, and those are instructions).
 */
#include "ulib.h"
#include "ubench.h"
#include "mmbench.h"

#define NR_UNAME         63
#define NR_SWAPON        167
#define NR_FINIT_MODULE  313
#define SWAP_MAGIC_OFF   (PAGE - 10)       /* "SWAPSPACE2": the page's last 10 bytes */
#define SWAP_INFO_OFF    1024              /* after the boot bits: version, last_page, nr_badpages */
#define SWAPIN_PAGES     8192              /* swap_in: 32 MiB pushed out, then read back */
#define THRASH_OPS       16384             /* thrash: random page writes timed */

struct counters {
	unsigned long majflt, pswpin, pswpout, idle;
};

static void counters_read(struct counters *c)
{
	const char *vm = read_proc("/proc/vmstat");
	c->majflt = proc_field(vm, "pgmajfault");
	c->pswpin = proc_field(vm, "pswpin");
	c->pswpout = proc_field(vm, "pswpout");

	/* "cpu  user nice system idle iowait ...": the 4th and 5th numbers */
	const char *st = read_proc("/proc/stat");
	unsigned long v[5] = { 0 };
	char *p = (char *)st + 3;

	if (!strncmp(st, "cpu ", 4))
		for (int i = 0; i < 5; i++)
			v[i] = strtoul(p, &p, 10);
	c->idle = v[3] + v[4];
}

/* One line for the script: cost and the counters' growth since *before. */
static void report(const char *name, uint64_t cost, unsigned long ops, const struct counters *before)
{
	struct counters a;

	counters_read(&a);
	printf("mmswap %s cost=%llu ops=%lu pgmajfault=%lu pswpin=%lu pswpout=%lu idle=%lu\n", name,
	       (unsigned long long)cost, ops, a.majflt - before->majflt, a.pswpin - before->pswpin,
	       a.pswpout - before->pswpout, a.idle - before->idle);
}

/* ---- turning swap on */

/* finit_module of every path listed in /mods/order, one a line, in order. */
static void load_modules(void)
{
	char list[1024], *line, *next;
	long fd = sys_open("/mods/order", O_RDONLY, 0), n;

	if (fd < 0) {
		printf("mmbench swap: no /mods/order (%ld): no modules to load\n", fd);
		return;
	}
	n = sys_read((int)fd, list, sizeof(list) - 1);
	sys_close((int)fd);
	list[n > 0 ? n : 0] = 0;
	for (line = list; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else
			next = line + strlen(line);
		if (!*line)
			continue;
		long m = sys_open(line, O_RDONLY, 0);
		long r = m < 0 ? m : usys3(NR_FINIT_MODULE, m, (long)"", 0);

		printf("mmbench swap: finit_module %s: %ld\n", line, r);
		if (m >= 0)
			sys_close((int)m);
	}
}

/* mkswap: a version-1 swap header over the whole of the open disk fd. */
static long write_swap_header(int fd)
{
	static char page[PAGE];
	long size = usys3(__NR_lseek, fd, 0, 2 /* SEEK_END */);
	uint32_t info[3];

	if (size < 2 * (long)PAGE)
		return size < 0 ? size : -22;
	info[0] = 1;                              /* version */
	info[1] = (uint32_t)(size / PAGE - 1);    /* last_page: the last usable page */
	info[2] = 0;                              /* nr_badpages */
	memcpy(page + SWAP_INFO_OFF, info, sizeof(info));
	memcpy(page + SWAP_MAGIC_OFF, "SWAPSPACE2", 10);
	long r = sys_pwrite(fd, page, PAGE, 0);
	if (r != (long)PAGE)
		return r < 0 ? r : -5;
	return usys1(__NR_fsync, fd);
}

void swap_enable(void)
{
	long fd, hdr = 0, on;

	static char uts[6 * 65];                  /* struct utsname: release is the third field */

	if (usys1(NR_UNAME, (long)uts) == 0)
		printf("mmbench swap: uname -r: %s\n", uts + 2 * 65);
	load_modules();
	mount_on("devtmpfs", "/dev");
	mount_on("proc", "/proc");
	fd = sys_open("/dev/vda", O_RDWR, 0);
	if (fd >= 0) {
		hdr = write_swap_header((int)fd);
		sys_close((int)fd);
	}
	on = usys2(NR_SWAPON, (long)"/dev/vda", 0);
	unsigned long total = proc_field(read_proc("/proc/meminfo"), "SwapTotal");
	if (fd < 0)
		printf("mmbench swap: open /dev/vda: %ld (no swap header written), swapon: %ld, SwapTotal: %lu kB\n",
		       fd, on, total);
	else
		printf("mmbench swap: open /dev/vda: 0, swap header: %ld, swapon: %ld, SwapTotal: %lu kB\n",
		       hdr, on, total);
	if (!total)
		die("turning swap on (SwapTotal is 0)", on);
}

/* ---- the benchmarks */

static unsigned long ws_pages;                /* 1.5 times the machine's memory */
static char *ws;

static void write_pages(char *p, unsigned long pages)
{
	for (unsigned long i = 0; i < pages; i++)
		((volatile char *)p)[i * PAGE] = (char)i;
}

/*
 * swap_in: 32 MiB written and paged out (MADV_PAGEOUT), then as much memory
 * as the machine has written and unmapped: that pressure takes whatever
 * MADV_PAGEOUT left in memory (Linux keeps a page in its swap cache until
 * its write completes and reclaim comes back for it). The 32 MiB are then
 * read back, a byte per page in order, with free memory to spare: the timed
 * part swaps in and has nothing to reclaim.
 */
static void bench_swap_in(unsigned long mem_pages)
{
	struct counters c;
	char *a = map_anon(SWAPIN_PAGES * PAGE), *b = map_anon(mem_pages * PAGE);

	write_pages(a, SWAPIN_PAGES);
	check(sys_madvise((unsigned long)a, SWAPIN_PAGES * PAGE, MADV_PAGEOUT), "madvise(MADV_PAGEOUT)");
	write_pages(b, mem_pages);
	check(sys_munmap((unsigned long)b, mem_pages * PAGE), "munmap");
	counters_read(&c);
	uint64_t t0 = ubench_tsc();
	read_pages(a, SWAPIN_PAGES);
	report("swap_in", ubench_tsc() - t0, SWAPIN_PAGES, &c);
	check(sys_munmap((unsigned long)a, SWAPIN_PAGES * PAGE), "munmap");
}

/* swap_out: the first write of every page of a working set 1.5 times memory. */
static void bench_swap_out(void)
{
	struct counters c;

	counters_read(&c);
	uint64_t t0 = ubench_tsc();
	write_pages(ws, ws_pages);
	report("swap_out", ubench_tsc() - t0, ws_pages, &c);
}

/* thrash: THRASH_OPS writes of a byte to random pages of the working set (xorshift64, fixed seed). */
static void bench_thrash(void)
{
	struct counters c;
	uint64_t x = 88172645463325252ull;

	counters_read(&c);
	uint64_t t0 = ubench_tsc();
	for (unsigned long i = 0; i < THRASH_OPS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		((volatile char *)ws)[(x % ws_pages) * PAGE]++;
	}
	report("thrash", ubench_tsc() - t0, THRASH_OPS, &c);
}

void swap_benches(unsigned long mem_mib, int argc, char **argv)
{
	unsigned long mem_pages = mem_mib * (1024 * 1024 / PAGE);

	ws_pages = mem_pages * 3 / 2;
	if (wanted("swap_in", argc, argv))
		bench_swap_in(mem_pages);
	ws = map_anon(ws_pages * PAGE);
	if (wanted("swap_out", argc, argv) || wanted("thrash", argc, argv))
		bench_swap_out();
	if (wanted("thrash", argc, argv))
		bench_thrash();
	check(sys_munmap((unsigned long)ws, ws_pages * PAGE), "munmap");
}
