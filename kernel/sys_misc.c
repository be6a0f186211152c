/*
 * Identity, time and small process-state system calls: getpid & co., uname,
 * arch_prctl, set_tid_address, prctl, sched_yield, nanosleep,
 * clock_gettime/getres, gettimeofday, time, getrandom, vmk_memstat, vmk_vmdump.
 *
 * Clocks: CLOCK_MONOTONIC (and BOOTTIME and the coarse clocks) is the TSC
 * since boot; CLOCK_REALTIME adds the CMOS clock read at the first call
 * (UTC assumed); CLOCK_PROCESS_CPUTIME_ID and CLOCK_THREAD_CPUTIME_ID are
 * the CPU time of the caller's process and thread (kernel/time/cputime.c).
 */
#include "syscall_internal.h"
#include "task.h"
#include "signal.h"
#include "sched_internal.h"
#include "uaccess.h"
#include "mm.h"
#include "pmm.h"
#include "slab.h"
#include "x86.h"
#include "arch_mmu.h"
#include "prng.h"
#include "uapi/linux_prctl.h"
#include "kstring.h"
#include "kerrno.h"
#include "printk.h"
#include "file.h"
#include "ktimer.h"
#include "lockless.h"

#define CLOCK_REALTIME 0
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID 3
#define CLOCK_REALTIME_COARSE 5
#define CLOCK_MAX 11
#define CLOCK_SGI_CYCLE 10     /* removed from Linux: -EINVAL */
#define CLOCK_REALTIME_ALARM 8
#define CLOCK_BOOTTIME_ALARM 9
#define TIMER_ABSTIME 1
#define NSEC 1000000000ULL


struct timespec_k {
	int64_t tv_sec;
	int64_t tv_nsec;
};

long sys_getpid(SYSCALL_ARGS) { return current->pid; }
long sys_gettid(SYSCALL_ARGS) { return current->tid; }
long sys_getuid(SYSCALL_ARGS) { return 0; }

long sys_getppid(SYSCALL_ARGS)
{
	struct task *p = thread_group_leader(current)->parent;      /* a thread's: its process's */

	return p ? p->pid : 0;
}

long sys_sched_yield(SYSCALL_ARGS)
{
	sched_yield();
	return 0;
}

/* set_tid_address(ptr): remembered; exit writes 0 there. Returns the tid. */
long sys_set_tid_address(SYSCALL_ARGS)
{
	current->clear_child_tid = a0;
	return current->tid;
}

/* arch_prctl(code, addr): ARCH_SET_FS/GS (-EPERM addr >= TASK_SIZE), ARCH_GET_FS/GS (-EFAULT); -EINVAL other codes. */
long sys_arch_prctl(SYSCALL_ARGS)
{
	struct task *t = current;

	switch (a0) {
	case ARCH_SET_FS:
		if (a1 >= TASK_SIZE)
			return -EPERM;
		arch_set_fs_base(t, a1);
		return 0;
	case ARCH_SET_GS:
		if (a1 >= TASK_SIZE)
			return -EPERM;
		arch_set_gs_base(t, a1);
		return 0;
	case ARCH_GET_FS:
		return copy_to_user((void *)a1, &t->arch.fs_base, 8) ? -EFAULT : 0;
	case ARCH_GET_GS:
		return copy_to_user((void *)a1, &t->arch.gs_base, 8) ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}

/*
 * prctl: PR_SET_NAME/PR_GET_NAME, PR_SET/GET_THP_DISABLE (the mm's
 * huge-page switch, mm/thp.c), PR_SET/GET_CHILD_SUBREAPER (the process's
 * flag: kernel/task/exit.c gives its descendants' orphans to it); -EINVAL
 * others.
 */
long sys_prctl(SYSCALL_ARGS)
{
	struct task *t = current;
	char name[TASK_COMM_LEN];
	long n;

	switch (a0) {
	case PR_SET_NAME:
		memset(name, 0, sizeof(name));  /* the bytes after the NUL are PR_GET_NAME's too */
		n = strncpy_from_user(name, (const char *)a1, sizeof(name));
		if (n < 0)
			return n;
		name[sizeof(name) - 1] = 0;
		memcpy(t->comm, name, sizeof(name));
		return 0;
	case PR_GET_NAME:
		return copy_to_user((void *)a1, t->comm, sizeof(t->comm)) ? -EFAULT : 0;
	case PR_SET_THP_DISABLE:
		if (a2 || a3 || a4)
			return -EINVAL;
		mmap_write_lock(t->mm);
		t->mm->thp_disabled = a1 != 0;
		mmap_write_unlock(t->mm);
		return 0;
	case PR_GET_THP_DISABLE:
		return t->mm->thp_disabled;
	case PR_SET_CHILD_SUBREAPER: {
		unsigned long f = spin_lock_irqsave(&sched_lock);

		t->group->child_subreaper = a1 != 0;
		spin_unlock_irqrestore(&sched_lock, f);
		return 0;
	}
	case PR_GET_CHILD_SUBREAPER: {
		int on = READ_ONCE(t->group->child_subreaper);

		return copy_to_user((void *)a1, &on, sizeof(on)) ? -EFAULT : 0;
	}
	default:
		return -EINVAL;
	}
}

/*
 * uname(buf): sysname "Linux" (the ABI programs check for: configure
 * scripts, uname -s), nodename "vmkernel", release "6.18.0-vmkernel"
 * (Linux-like, for libcs that parse it; the name says which kernel this
 * is), machine "x86_64".
 */
long sys_uname(SYSCALL_ARGS)
{
	static const char *const fields[6] = {
		"Linux", "vmkernel", "6.18.0-vmkernel", "#1 SMP vmkernel", "x86_64", "(none)",
	};
	char u[6][65];

	memset(u, 0, sizeof(u));
	for (int i = 0; i < 6; i++)
		memcpy(u[i], fields[i], strlen(fields[i]));
	return copy_to_user((void *)a0, u, sizeof(u)) ? -EFAULT : 0;
}


static uint64_t clock_ns(uint64_t clk)
{
	uint64_t user, sys;

	if (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE)
		return clock_realtime_ns();
	if (clk == CLOCK_THREAD_CPUTIME_ID)
		return cputime_self_ns();
	if (clk == CLOCK_PROCESS_CPUTIME_ID) {
		cputime_process(current, &user, &sys);
		return user + sys;
	}
	return monotonic_ns();
}

/*
 * The clocks there are: 0..7 and CLOCK_TAI (11). CLOCK_SGI_CYCLE (10) is
 * gone from Linux; the alarm clocks (8, 9) need an RTC alarm device, which
 * this machine lacks (Linux answers -EINVAL then too); negative ids are
 * other processes' CPU clocks (not here).
 */
static bool clock_valid(uint64_t clk)
{
	return clk <= CLOCK_MAX && clk != CLOCK_SGI_CYCLE && clk != CLOCK_REALTIME_ALARM &&
	       clk != CLOCK_BOOTTIME_ALARM;
}

/* clock_gettime(clk, ts): -EINVAL unknown clock; -EFAULT. */
long sys_clock_gettime(SYSCALL_ARGS)
{
	struct timespec_k ts;
	uint64_t ns;

	if (!clock_valid(a0))
		return -EINVAL;
	ns = clock_ns(a0);
	ts.tv_sec = ns / NSEC;
	ts.tv_nsec = ns % NSEC;
	return copy_to_user((void *)a1, &ts, sizeof(ts)) ? -EFAULT : 0;
}

long sys_clock_getres(SYSCALL_ARGS)
{
	struct timespec_k ts = { 0, 1 };

	if (!clock_valid(a0))
		return -EINVAL;
	return a1 && copy_to_user((void *)a1, &ts, sizeof(ts)) ? -EFAULT : 0;
}

long sys_gettimeofday(SYSCALL_ARGS)
{
	uint64_t ns = clock_ns(CLOCK_REALTIME);
	int64_t tv[2] = { (int64_t)(ns / NSEC), (int64_t)(ns % NSEC / 1000) };

	if (a0 && copy_to_user((void *)a0, tv, sizeof(tv)))
		return -EFAULT;
	if (a1 && clear_user((void *)a1, 8))
		return -EFAULT;
	return 0;
}

long sys_time(SYSCALL_ARGS)
{
	int64_t t = (int64_t)(clock_ns(CLOCK_REALTIME) / NSEC);

	if (a0 && copy_to_user((void *)a0, &t, sizeof(t)))
		return -EFAULT;
	return t;
}

/* Sleep until clock clk reaches deadline ns; -EINTR when a signal arrives first. */
static long sleep_until(uint64_t clk, uint64_t deadline)
{
	uint64_t now = clock_ns(clk);

	if (now >= deadline)
		return 0;
	return sleep_until_ns(monotonic_ns() + (deadline - now), NULL, NULL, NULL);
}

static long read_timespec(uint64_t u, uint64_t *ns)
{
	struct timespec_k ts;

	if (copy_from_user(&ts, (const void *)u, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || (uint64_t)ts.tv_nsec >= NSEC)
		return -EINVAL;
	*ns = (uint64_t)ts.tv_sec > UINT64_MAX / NSEC / 2 ? UINT64_MAX / 2 : ts.tv_sec * NSEC + ts.tv_nsec;
	return 0;
}

static void write_remaining(uint64_t urem, uint64_t clk, uint64_t deadline)
{
	uint64_t now = clock_ns(clk), left = deadline > now ? deadline - now : 0;
	struct timespec_k ts = { (int64_t)(left / NSEC), (int64_t)(left % NSEC) };

	if (urem)
		copy_to_user((void *)urem, &ts, sizeof(ts));
}

/* nanosleep(req, rem): -EINVAL bad time; -EFAULT; -EINTR (rem written). */
long sys_nanosleep(SYSCALL_ARGS)
{
	uint64_t ns, deadline;
	long r = read_timespec(a0, &ns);

	if (r)
		return r;
	deadline = clock_ns(1) + ns;
	r = sleep_until(1, deadline);
	if (r == -EINTR)
		write_remaining(a1, 1, deadline);
	return r;
}

/* clock_nanosleep(clk, flags, req, rem): TIMER_ABSTIME or relative. -EINVAL; -EFAULT; -EINTR (rem written if relative). */
long sys_clock_nanosleep(SYSCALL_ARGS)
{
	uint64_t ns, deadline;
	long r;

	if (!clock_valid(a0))
		return -EINVAL;
	r = read_timespec(a2, &ns);
	if (r)
		return r;
	deadline = (a1 & TIMER_ABSTIME) ? ns : clock_ns(a0) + ns;
	r = sleep_until(a0, deadline);
	if (r == -EINTR && !(a1 & TIMER_ABSTIME))
		write_remaining(a3, a0, deadline);
	return r;
}

/* getrandom(buf, len, flags): not cryptographic (xorshift seeded by the TSC). -EFAULT; -EINVAL bad flags. */
long sys_getrandom(SYSCALL_ARGS)
{
	uint64_t len = MIN(a1, (uint64_t)0x1ffffff);

	if (a2 & ~7UL)
		return -EINVAL;
	if (!access_ok(a0, len))
		return -EFAULT;         /* Linux checks the whole range first */
	return random_to_user(a0, len);
}

/* vmk_memstat(out, size): this kernel's counters (struct vmk_memstat, a prefix of size bytes). */
long sys_vmk_memstat(SYSCALL_ARGS)
{
	struct mm *mm = current->mm;
	struct vmk_memstat st;
	struct tlb_stats tlb;

	procfs_shrink();                /* the counts hold no /proc names cached at their first lookup */
	sysfs_shrink();                 /* nor /sys names (usertests' leak check) */
	slab_shrink_all();              /* empty slabs do not count as used memory */
	arch_tlb_stats(&tlb);
	/* Read without their locks, racing with the caller's other threads, which
	 * fault, map and count meanwhile (the mm's [atomic] counters and the rwsem's
	 * [wait_lock] statistics): each value is whole, at most a moment old. */
	st = (struct vmk_memstat){
		.free_frames = pmm_free_frames(),
		.rss = READ_ONCE(mm->rss) - READ_ONCE(mm->rss_file),       /* anonymous pages: the uapi field's meaning */
		.faults = READ_ONCE(mm->faults),
		.cow_copies = READ_ONCE(mm->cow_copies),
		.zero_maps = READ_ONCE(mm->zero_maps),
		.tasks = sched_task_count(),
		.cow_reuses = READ_ONCE(mm->cow_reuses),
		.cpus = arch_nr_cpus(),
		.faults_lockless = READ_ONCE(mm->faults_lockless),
		.faults_fallback = READ_ONCE(mm->faults_fallback),
		.faults_pt_shared = READ_ONCE(mm->faults_pt_shared),
		.mmap_read_acquired = READ_ONCE(mm->mmap_lock.read_acquired),
		.mmap_write_acquired = READ_ONCE(mm->mmap_lock.write_acquired),
		.mmap_read_contended = READ_ONCE(mm->mmap_lock.read_contended),
		.mmap_write_contended = READ_ONCE(mm->mmap_lock.write_contended),
		.tlb_flushes = tlb.flushes,
		.tlb_shootdowns = tlb.shootdowns,
		.tlb_ipis = tlb.ipis,
		.tlb_pages = tlb.pages,
		.tlb_full_flushes = tlb.full_flushes,
	};

	return copy_to_user((void *)a0, &st, MIN(a1, sizeof(st))) ? -EFAULT : 0;
}

/* getcpu(cpu, node, tcache): the CPU running the caller now, node 0 (one NUMA node). -EFAULT. */
long sys_getcpu(SYSCALL_ARGS)
{
	unsigned cpu = arch_cpu_id(), node = 0;

	if (a0 && copy_to_user((void *)a0, &cpu, sizeof(cpu)))
		return -EFAULT;
	if (a1 && copy_to_user((void *)a1, &node, sizeof(node)))
		return -EFAULT;
	return 0;
}

/* A dump is collected here and written in one piece (other output must not land inside the report). */
#define VMDUMP_ORDER 4                  /* 64 KiB */

struct vmdump_buf {
	char *text;
	size_t len, size;
	bool truncated;
};

static void vmdump_line(void *arg, const char *line)
{
	struct vmdump_buf *b = arg;
	size_t n = strlen(line);

	if (b->truncated || b->len + n + 1 > b->size - 32) {
		b->truncated = true;
		return;
	}
	memcpy(b->text + b->len, line, n);
	b->text[b->len + n] = '\n';
	b->len += n + 1;
}

/* vmk_vmdump(pid, what): mm_dump of pid's address space (0: the caller's) as one kernel report. */
long sys_vmk_vmdump(SYSCALL_ARGS)
{
	int pid = a0 ? (int)a0 : current->pid;
	struct vmdump_buf b = { NULL, 0, PAGE_SIZE << VMDUMP_ORDER, false };
	char comm[TASK_COMM_LEN];
	struct page *pg;
	struct mm *mm;

	if (!a1 || (a1 & ~(uint64_t)(VMDUMP_VMAS | VMDUMP_PAGES)))
		return -EINVAL;
	mm = task_get_mm(pid, comm);    /* the task may exit on another CPU while the dump runs */
	if (!mm)
		return -ESRCH;
	pg = pmm_alloc(VMDUMP_ORDER, 0);
	if (!pg) {
		mm_put(mm);
		return -ENOMEM;
	}
	b.text = page_address(pg);
	b.len = (size_t)ksnprintf(b.text, b.size, REPORT_BEGIN "vmdump: pid %d (%s)\n", pid, comm);
	mm_dump(mm, (unsigned)a1 & (MM_DUMP_VMAS | MM_DUMP_PAGES), vmdump_line, &b);
	mm_put(mm);
	b.len += (size_t)ksnprintf(b.text + b.len, b.size - b.len, "%s" REPORT_END,
				   b.truncated ? "vmdump: (truncated)\n" : "");
	printk_write(b.text, b.len);
	pmm_free(pg, VMDUMP_ORDER);
	return 0;
}

#define RLIMIT_STACK 3
#define RLIMIT_NOFILE 7
#define RLIMIT_NPROC 6
#define RLIM_INFINITY (~0UL)

static void rlimit_of(uint64_t res, uint64_t r[2])
{
	r[0] = r[1] = RLIM_INFINITY;
	if (res == RLIMIT_STACK)
		r[0] = STACK_RLIMIT_DEFAULT;
	else if (res == RLIMIT_NOFILE) {
		r[0] = FD_LIMIT_SOFT;
		r[1] = FD_LIMIT_HARD;
	}
	else if (res == RLIMIT_NPROC)
		r[0] = r[1] = task_nproc_rlimit();
}

/* getrlimit(res, rlim): the fixed limits (stack 8 MiB soft, tasks task_nproc_rlimit(), fds 1024/4096 as Linux, else infinite). -EINVAL res >= 16; -EFAULT. */
long sys_getrlimit(SYSCALL_ARGS)
{
	uint64_t r[2];

	if (a0 >= 16)
		return -EINVAL;
	rlimit_of(a0, r);
	return copy_to_user((void *)a1, r, sizeof(r)) ? -EFAULT : 0;
}

/*
 * prlimit64(pid, res, new, old): pid 0 or self only (-ESRCH); -EINVAL res
 * >= 16 or a new soft limit over its hard one; the limits are fixed, so a
 * new pair that is not the current one is refused (-EPERM; root could on
 * Linux), and the current one again is accepted; -EFAULT.
 */
long sys_prlimit64(SYSCALL_ARGS)
{
	uint64_t r[2], n[2];

	if (a0 && (int)a0 != current->pid)
		return -ESRCH;
	if (a1 >= 16)
		return -EINVAL;
	rlimit_of(a1, r);
	if (a2) {
		if (copy_from_user(n, (const void *)a2, sizeof(n)))
			return -EFAULT;
		if (n[0] > n[1])
			return -EINVAL;
		if (n[0] != r[0] || n[1] != r[1])
			return -EPERM;
	}
	return a3 && copy_to_user((void *)a3, r, sizeof(r)) ? -EFAULT : 0;
}

/* rseq(...): restartable sequences are not supported: -ENOSYS, as Linux built without CONFIG_RSEQ (libcs go on). */
long sys_rseq(SYSCALL_ARGS)
{
	return -ENOSYS;
}

/* sysinfo(info): uptime, memory (free frames), number of tasks; loads 0. -EFAULT. */
long sys_sysinfo(SYSCALL_ARGS)
{
	struct {
		int64_t uptime;
		uint64_t loads[3];
		uint64_t totalram, freeram, sharedram, bufferram, totalswap, freeswap;
		uint16_t procs, pad;
		uint32_t pad2;
		uint64_t totalhigh, freehigh;
		uint32_t mem_unit;
		char reserved[4];
	} si;

	_Static_assert(sizeof(si) == 112, "struct sysinfo is 112 bytes on x86-64");
	memset(&si, 0, sizeof(si));
	si.uptime = (int64_t)(monotonic_ns() / NSEC);
	si.totalram = pmm_total_frames() * PAGE_SIZE;
	si.freeram = pmm_free_frames() * PAGE_SIZE;
	si.procs = (uint16_t)sched_task_count();
	si.mem_unit = 1;
	return copy_to_user((void *)a0, &si, sizeof(si)) ? -EFAULT : 0;
}

/*
 * Process groups and sessions, as Linux keeps them (there is no terminal,
 * so no job control beyond them): getpgid/getsid of 0 or a pid (-ESRCH),
 * setpgid(pid, pgid) for the caller or a child in its session (-ESRCH,
 * -EINVAL pgid < 0, -EPERM a session leader or a group of another
 * session), setsid (-EPERM for a group leader).
 */
static struct task *pid_or_self(uint64_t pid)
{
	if ((int)pid < 0)
		return NULL;
	return pid ? task_find_any((int)pid) : current;
}

long sys_getpgrp(SYSCALL_ARGS) { return current->pgid; }

long sys_getpgid(SYSCALL_ARGS)
{
	struct task *t = pid_or_self(a0);

	return t ? t->pgid : -ESRCH;
}

long sys_getsid(SYSCALL_ARGS)
{
	struct task *t = pid_or_self(a0);

	return t ? t->sid : -ESRCH;
}

/* A live process in group pgid of session sid exists. */
static bool group_in_session(int pgid, int sid)
{
	struct list_head *p;
	bool found = false;
	unsigned long f = spin_lock_irqsave(&sched_lock);   /* another CPU may reap a task meanwhile */

	list_for_each(p, &task_list) {
		struct task *t = list_entry(p, struct task, all_link);

		if (t->state != TASK_ZOMBIE && t->pgid == pgid && t->sid == sid) {
			found = true;
			break;
		}
	}
	spin_unlock_irqrestore(&sched_lock, f);
	return found;
}

long sys_setpgid(SYSCALL_ARGS)
{
	struct task *t = pid_or_self(a0);
	int pgid = (int)a1;

	if (pgid < 0)
		return -EINVAL;
	if (!t || t->state == TASK_ZOMBIE || (t != current && t->parent != current))
		return -ESRCH;
	if (t->sid != current->sid || t->pid == t->sid)
		return -EPERM;
	if (pgid == 0)
		pgid = t->pid;
	if (pgid != t->pid && !group_in_session(pgid, current->sid))
		return -EPERM;
	t->pgid = pgid;
	return 0;
}

long sys_setsid(SYSCALL_ARGS)
{
	struct task *t = current;

	if (t->pgid == t->pid)
		return -EPERM;
	t->pgid = t->sid = t->pid;
	return t->pid;
}

/* getgroups(size, list): no supplementary groups (as Linux's init): 0. -EINVAL size < 0. */
long sys_getgroups(SYSCALL_ARGS)
{
	return (int)a0 < 0 ? -EINVAL : 0;
}
