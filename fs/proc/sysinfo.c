/*
 * The files of /proc about the whole system, in Linux's formats:
 *
 *   meminfo  the fields free(1) and friends read (show_val_kb's layout;
 *            SReclaimable is 0: no slab is reclaimable here)
 *   vmstat   the VM's counters (include/vmstat.h)
 *   cpuinfo  one paragraph per online CPU, from CPUID (arch_cpu_identity)
 *   stat     "cpu" lines (the total, then each online CPU: glibc's
 *            get_nprocs counts them), btime, processes, procs_running
 *   uptime   seconds since boot, and idle seconds
 *   loadavg  the three averages, runnable/all tasks, the newest pid
 *   cmdline  the kernel's command line as the loader gave it, and a newline
 *
 * This kernel keeps no CPU time accounting and no load average yet, so
 * every CPU is shown idle for the whole uptime (user and system 0) and
 * the load averages are 0.00; processes (forks since boot) is the newest
 * process id, which is what it counts when ids are never reused.
 */
#include "internal.h"
#include "task.h"
#include "pmm.h"
#include "vmstat.h"
#include "vmscan.h"
#include "swap.h"
#include "lru.h"
#include "arch.h"
#include "arch_mmu_debug.h"
#include "ktimer.h"
#include "slab.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"
#include "cmdline.h"

#define PUT(...) PROC_PUT(n, buf, size, __VA_ARGS__)

/* Clock ticks (PROC_USER_HZ a second) since boot. */
static uint64_t proc_uptime_ticks(void)
{
	return monotonic_ns() / (1000000000ULL / PROC_USER_HZ);
}

static long meminfo_fill(int pid, char *buf, size_t size)
{
	/* every page cache is shmem here: Cached and Shmem are its pages in memory (not those in swap) */
	unsigned long total = pmm_total_frames(), free = pmm_free_frames(), cached = vm_stat_read(VM_NR_SHMEM);
	static const char *const names[] = {
		"MemTotal:       ", "MemFree:        ", "MemAvailable:   ", "Buffers:        ",
		"Cached:         ", "SwapCached:     ", "Active:         ", "Inactive:       ",
		"Active(anon):   ", "Inactive(anon): ", "Active(file):   ", "Inactive(file): ",
		"SwapTotal:      ", "SwapFree:       ",
		"AnonPages:      ", "Shmem:          ", "SReclaimable:   ", "AnonHugePages:  ",
	};
	unsigned long ia = lru_list_pages(LRU_INACTIVE_ANON), aa = lru_list_pages(LRU_ACTIVE_ANON);
	unsigned long ifl = lru_list_pages(LRU_INACTIVE_FILE), af = lru_list_pages(LRU_ACTIVE_FILE);
	unsigned long vals[] = { total, free, mm_available_frames(), 0, cached, swap_cache_pages(), aa + af, ia + ifl,
				 aa, ia, af, ifl, swap_total_pages(),
				 swap_free_pages(), vm_stat_read(VM_NR_ANON_PAGES), cached, 0,
				 thp_anon_blocks() << HUGE_ORDER };
	long n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		PUT("%s%8lu kB\n", names[i], vals[i] * (PAGE_SIZE >> 10));
	return n;
}

static long kernel_cmdline_fill(int pid, char *buf, size_t size)
{
	return ksnprintf(buf, size, "%s\n", kernel_cmdline);
}

static long vmstat_fill(int pid, char *buf, size_t size)
{
	return (long)vmstat_format(buf, size);
}

static long cpuinfo_fill(int pid, char *buf, size_t size)
{
	unsigned long online = arch_cpu_online_mask();
	unsigned ncpu = arch_nr_cpus(), c;
	struct cpu_identity *id = kmalloc(sizeof(*id));
	long n = 0;

	if (!id)
		return -ENOMEM;
	arch_cpu_identity(id);
	for_each_cpu(c, online) {
		PUT("processor\t: %u\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
		    "model name\t: %s\nstepping\t: %u\nphysical id\t: 0\nsiblings\t: %u\n"
		    "core id\t\t: %u\ncpu cores\t: %u\napicid\t\t: %u\ninitial apicid\t: %u\n"
		    "fpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: %u\nwp\t\t: yes\n"
		    "flags\t\t: %s\nclflush size\t: %u\ncache_alignment\t: %u\n"
		    "address sizes\t: %u bits physical, %u bits virtual\npower management:\n\n",
		    c, id->vendor, id->family, id->model, id->model_name, id->stepping, ncpu, c, ncpu, c, c,
		    id->cpuid_level, id->flags, id->clflush, id->clflush, id->phys_bits, id->virt_bits);
	}
	kfree(id);
	return n;
}

/* The newest process id and the runnable and all tasks (for stat and loadavg). */
static void task_counts(int *newest, int *running, int *all)
{
	size_t np = 0;
	int *pids = proc_pids(&np);
	struct task_info ti;

	*newest = 0;
	*running = 0;
	*all = 0;
	for (size_t i = 0; i < np; i++) {
		if (task_info_get(pids[i], &ti))
			continue;
		*newest = MAX(*newest, pids[i]);
		*all += ti.threads ? ti.threads : 1;
		*running += ti.state == 'R';
	}
	kfree(pids);
}

static long sysstat_fill(int pid, char *buf, size_t size)
{
	unsigned long online = arch_cpu_online_mask();
	uint64_t up = proc_uptime_ticks();
	uint64_t boot = (clock_realtime_ns() - monotonic_ns()) / 1000000000ULL;
	int newest, running, all;
	unsigned c;
	long n = 0;

	task_counts(&newest, &running, &all);
	PUT("cpu  0 0 0 %llu 0 0 0 0 0 0\n", (unsigned long long)(up * arch_nr_cpus()));
	for_each_cpu(c, online)
		PUT("cpu%u 0 0 0 %llu 0 0 0 0 0 0\n", c, (unsigned long long)up);
	PUT("intr 0\nctxt 0\nbtime %llu\nprocesses %d\nprocs_running %d\nprocs_blocked 0\n"
	    "softirq 0 0 0 0 0 0 0 0 0 0 0\n", (unsigned long long)boot, newest, MAX(running, 1));
	return n;
}

static long uptime_fill(int pid, char *buf, size_t size)
{
	uint64_t up = proc_uptime_ticks(), idle = up * arch_nr_cpus();

	return ksnprintf(buf, size, "%llu.%02llu %llu.%02llu\n", (unsigned long long)(up / 100),
			 (unsigned long long)(up % 100), (unsigned long long)(idle / 100),
			 (unsigned long long)(idle % 100));
}

static long loadavg_fill(int pid, char *buf, size_t size)
{
	int newest, running, all;

	task_counts(&newest, &running, &all);
	return ksnprintf(buf, size, "0.00 0.00 0.00 %d/%d %d\n", MAX(running, 1), all, newest);
}

PROC_TEXT_FILE(, proc_meminfo, meminfo_fill);
PROC_TEXT_FILE(, proc_vmstat, vmstat_fill);
PROC_TEXT_FILE(, proc_cpuinfo, cpuinfo_fill);
PROC_TEXT_FILE(, proc_sysstat, sysstat_fill);
PROC_TEXT_FILE(, proc_uptime, uptime_fill);
PROC_TEXT_FILE(, proc_kernel_cmdline, kernel_cmdline_fill);
PROC_TEXT_FILE(, proc_loadavg, loadavg_fill);
