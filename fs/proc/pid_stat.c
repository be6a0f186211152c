/*
 * /proc/PID/stat, statm and status in Linux's formats (fs/proc/array.c:
 * do_task_stat, proc_pid_statm, proc_pid_status), as procps and busybox
 * parse them. What this kernel does not keep is printed as Linux prints
 * it for a process that has none of it: CPU times 0 (no accounting yet),
 * no tty (tty_nr 0, tpgid -1), nice 0, uid and gid 0, every capability,
 * no context switch counts; VmPeak and VmHWM are the current VmSize and
 * VmRSS (no high-water marks are kept). Sizes come from the VMAs and the
 * mm's counters (include/mm.h); the text, data and stack sizes follow
 * Linux's rules for classifying VMAs (task_mem).
 */
#include "internal.h"
#include "lockless.h"
#include "task.h"
#include "mm.h"
#include "vma.h"
#include "ktimer.h"
#include "arch.h"
#include "arch_mmu_debug.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"

#define PF_RANDOMIZE 0x00400000         /* Linux's flag for a process with ASLR: what ps sees of a user process */
#define PF_KTHREAD   0x00200000

/* What the VMAs of a process add up to, in pages (task_mem's classes). */
struct mem_use {
	unsigned long total, data, stack, text, rss, rss_file, swap;
	unsigned long tables;           /* page-table pages below the root (Linux's mm_pgtables_bytes) */
	uintptr_t start_code, end_code;
	uintptr_t start_stack, start_brk, arg_start, arg_end;
};

static void mem_use(struct mm *mm, struct mem_use *u)
{
	memset(u, 0, sizeof(*u));
	mmap_read_lock(mm);
	for (struct vma *v = vma_first(mm); v; v = vma_next(mm, v)) {
		unsigned long pages = (v->end - v->start) >> PAGE_SHIFT;

		u->total += pages;
		if (v->flags & VM_GROWSDOWN)
			u->stack += pages;
		else if ((v->flags & (VM_WRITE | VM_MAYSHARE)) == VM_WRITE)
			u->data += pages;
		else if ((v->flags & (VM_EXEC | VM_WRITE)) == VM_EXEC) {
			u->text += pages;
			if (!u->start_code) {   /* the program's code: its first executable VMA */
				u->start_code = v->start;
				u->end_code = v->end;
			}
		}
	}
	u->start_stack = mm->start_stack;
	u->start_brk = mm->start_brk;
	u->arg_start = mm->arg_start;
	u->arg_end = mm->arg_end;
	mmap_read_unlock(mm);
	u->rss = READ_ONCE(mm->rss);
	u->rss_file = READ_ONCE(mm->rss_file);
	u->swap = READ_ONCE(mm->swap_ents);
	u->tables = arch_mmu_table_pages(mm->mmu) - 1;
}

/* The snapshot and memory of process pid; false when it is gone. *has_mm: it has an address space. */
static bool gather(int pid, struct task_info *ti, struct mem_use *u, bool *has_mm)
{
	char comm[TASK_COMM_LEN];
	struct mm *mm;

	if (task_info_get(pid, ti))
		return false;
	mm = task_get_mm(ti->pid, comm);
	*has_mm = mm != NULL;
	if (mm) {
		mem_use(mm, u);
		mm_put(mm);
	} else {
		memset(u, 0, sizeof(*u));
	}
	return true;
}

/* ns in clock ticks (USER_HZ, PROC_USER_HZ a second), as /proc/PID/stat counts times. */
static unsigned long long clock_ticks(uint64_t ns)
{
	return ns / (1000000000ULL / PROC_USER_HZ);
}

long proc_pid_stat_fill(int pid, char *buf, size_t size)
{
	struct task_info ti;
	struct mem_use u;
	bool has_mm;
	uint64_t start = 0;

	if (!gather(pid, &ti, &u, &has_mm))
		return -ESRCH;
	start = clock_ticks(ti.start_ns);
	return ksnprintf(buf, size,
		"%d (%s) %c %d %d %d 0 -1 %u 0 0 0 0 %llu %llu %llu %llu 20 0 %d 0 %llu %lu %lu 18446744073709551615 "
		"%lu %lu %lu 0 0 %llu %llu %llu %llu 0 0 0 %d %d 0 0 0 0 0 %lu %lu %lu %lu %lu %lu %lu 0\n",
		ti.tid, ti.comm, ti.state, ti.ppid, ti.pgid, ti.sid,
		has_mm ? PF_RANDOMIZE : PF_KTHREAD, clock_ticks(ti.utime_ns), clock_ticks(ti.stime_ns),
		clock_ticks(ti.cutime_ns), clock_ticks(ti.cstime_ns), ti.threads, (unsigned long long)start,
		u.total << PAGE_SHIFT, u.rss,
		(unsigned long)u.start_code, (unsigned long)u.end_code, (unsigned long)u.start_stack,
		(unsigned long long)(ti.pending | ti.shared_pending), (unsigned long long)ti.blocked,
		(unsigned long long)ti.ignored, (unsigned long long)ti.caught,
		ti.exit_signal, ti.cpu,
		0UL, 0UL, (unsigned long)u.start_brk, (unsigned long)u.arg_start, (unsigned long)u.arg_end,
		(unsigned long)u.arg_end, (unsigned long)u.arg_end);
}

long proc_pid_statm_fill(int pid, char *buf, size_t size)
{
	struct task_info ti;
	struct mem_use u;
	bool has_mm;

	if (!gather(pid, &ti, &u, &has_mm))
		return -ESRCH;
	return ksnprintf(buf, size, "%lu %lu %lu %lu 0 %lu 0\n", u.total, u.rss, u.rss_file, u.text,
			 u.data + u.stack);
}

static const char *state_name(char s)
{
	return s == 'R' ? "R (running)" : s == 'Z' ? "Z (zombie)" : "S (sleeping)";
}

/* "0-3" for CPUs 0..3 (Linux's %*pbl of a contiguous mask; gaps listed as ranges). */
static int cpu_list(char *buf, size_t size, unsigned long mask)
{
	int n = 0;

	for (int c = 0; c < 64 && (size_t)n < size; c++) {
		int e = c;

		if (!(mask & (1UL << c)))
			continue;
		while (e + 1 < 64 && (mask & (1UL << (e + 1))))
			e++;
		n += ksnprintf(buf + n, size - (size_t)n, e > c ? "%s%d-%d" : "%s%d", n ? "," : "", c, e);
		c = e;
	}
	return n;
}

#define KB(pages) ((pages) << (PAGE_SHIFT - 10))

long proc_pid_status_fill(int pid, char *buf, size_t size)
{
	struct task_info ti;
	struct mem_use u;
	bool has_mm;
	char cpus[64];
	long n;
	unsigned long mask;

	if (!gather(pid, &ti, &u, &has_mm))
		return -ESRCH;
	mask = ti.cpus_allowed & arch_cpu_online_mask();
	cpu_list(cpus, sizeof(cpus), mask);
#define PUT(...) PROC_PUT(n, buf, size, __VA_ARGS__)
	n = 0;
	PUT("Name:\t%s\nUmask:\t%04o\nState:\t%s\nTgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\n"
	    "TracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t%d\nGroups:\t \n"
	    "NStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\nKthread:\t%d\n",
	    ti.comm, ti.umask, state_name(ti.state), ti.pid, ti.tid, ti.ppid,
	    64, ti.pid, ti.tid, ti.pgid, ti.sid, has_mm ? 0 : 1);
	if (has_mm) {
		PUT("VmPeak:\t%8lu kB\nVmSize:\t%8lu kB\nVmLck:\t%8lu kB\nVmPin:\t%8lu kB\n"
		    "VmHWM:\t%8lu kB\nVmRSS:\t%8lu kB\nRssAnon:\t%8lu kB\nRssFile:\t%8lu kB\n"
		    "RssShmem:\t%8lu kB\nVmData:\t%8lu kB\nVmStk:\t%8lu kB\nVmExe:\t%8lu kB\n"
		    "VmLib:\t%8lu kB\nVmPTE:\t%8lu kB\nVmSwap:\t%8lu kB\nHugetlbPages:\t%8lu kB\n",
		    KB(u.total), KB(u.total), 0UL, 0UL, KB(u.rss), KB(u.rss), KB(u.rss - u.rss_file),
		    KB(u.rss_file), 0UL, KB(u.data), KB(u.stack), KB(u.text), 0UL, KB(u.tables), KB(u.swap), 0UL);
	}
	PUT("CoreDumping:\t0\nTHP_enabled:\t%d\nuntag_mask:\t0xffffffffffffffff\nThreads:\t%d\n"
	    "SigQ:\t0/%d\nSigPnd:\t%016llx\nShdPnd:\t%016llx\nSigBlk:\t%016llx\nSigIgn:\t%016llx\n"
	    "SigCgt:\t%016llx\n",
	    has_mm, ti.threads, 0, (unsigned long long)ti.pending, (unsigned long long)ti.shared_pending,
	    (unsigned long long)ti.blocked, (unsigned long long)ti.ignored, (unsigned long long)ti.caught);
	PUT("CapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\n"
	    "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\nSeccomp:\t0\n"
	    "Seccomp_filters:\t0\nSpeculation_Store_Bypass:\tvulnerable\n"
	    "SpeculationIndirectBranch:\talways enabled\nCpus_allowed:\t%lx\nCpus_allowed_list:\t%s\n"
	    "Mems_allowed:\t00000001\nMems_allowed_list:\t0\nvoluntary_ctxt_switches:\t0\n"
	    "nonvoluntary_ctxt_switches:\t0\n", mask, cpus);
	return n;
}
