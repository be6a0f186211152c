/*
 * Identity, time and small process-state system calls: getpid & co., uname,
 * arch_prctl, set_tid_address, prctl, sched_yield, nanosleep,
 * clock_gettime/getres, gettimeofday, time, getrandom, vmk_memstat, vmk_vmdump.
 *
 * Clocks: CLOCK_MONOTONIC (and BOOTTIME, the CPU-time and coarse clocks) is
 * the TSC since boot; CLOCK_REALTIME adds the CMOS clock read at the first
 * call (UTC assumed).
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
#include "prng.h"
#include "uapi/linux_prctl.h"
#include "kstring.h"
#include "kerrno.h"
#include "printk.h"

#define CLOCK_REALTIME 0
#define CLOCK_REALTIME_COARSE 5
#define CLOCK_MAX 11
#define TIMER_ABSTIME 1
#define NSEC 1000000000ULL

uint64_t rtc_read_epoch(void);

struct timespec_k {
	int64_t tv_sec;
	int64_t tv_nsec;
};

long sys_getpid(SYSCALL_ARGS) { return current->pid; }
long sys_gettid(SYSCALL_ARGS) { return current->tid; }
long sys_getuid(SYSCALL_ARGS) { return 0; }

long sys_getppid(SYSCALL_ARGS)
{
	struct task *p = current->parent;

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
		t->arch.gs_base = a1;
		wrmsr(MSR_KERNEL_GS_BASE, a1);  /* the user's GS base while in the kernel */
		return 0;
	case ARCH_GET_FS:
		return copy_to_user((void *)a1, &t->arch.fs_base, 8) ? -EFAULT : 0;
	case ARCH_GET_GS:
		return copy_to_user((void *)a1, &t->arch.gs_base, 8) ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}

/* prctl: PR_SET_NAME/PR_GET_NAME, PR_SET/GET_THP_DISABLE (accepted: there are no huge pages); -EINVAL others. */
long sys_prctl(SYSCALL_ARGS)
{
	struct task *t = current;
	char name[TASK_COMM_LEN];
	long n;

	switch (a0) {
	case PR_SET_NAME:
		n = strncpy_from_user(name, (const char *)a1, sizeof(name));
		if (n < 0)
			return n;
		name[sizeof(name) - 1] = 0;
		memcpy(t->comm, name, sizeof(name));
		return 0;
	case PR_GET_NAME:
		return copy_to_user((void *)a1, t->comm, sizeof(t->comm)) ? -EFAULT : 0;
	case PR_SET_THP_DISABLE:
		return a2 || a3 || a4 ? -EINVAL : 0;
	case PR_GET_THP_DISABLE:
		return 0;
	default:
		return -EINVAL;
	}
}

/* uname(buf): sysname "vmkernel", release "6.18.0-vmkernel" (Linux-like, for libcs that parse it), machine "x86_64". */
long sys_uname(SYSCALL_ARGS)
{
	static const char *const fields[6] = {
		"vmkernel", "vmkernel", "6.18.0-vmkernel", "#1 SMP vmkernel", "x86_64", "(none)",
	};
	char u[6][65];

	memset(u, 0, sizeof(u));
	for (int i = 0; i < 6; i++)
		memcpy(u[i], fields[i], strlen(fields[i]));
	return copy_to_user((void *)a0, u, sizeof(u)) ? -EFAULT : 0;
}

static uint64_t tsc_boot, epoch_boot;

static uint64_t monotonic_ns(void)
{
	uint64_t c, per_sec;

	if (!tsc_boot)
		tsc_boot = rdtsc();
	c = rdtsc() - tsc_boot;
	per_sec = tsc_khz * 1000;
	if (!per_sec)
		return 0;
	return c / per_sec * NSEC + (c % per_sec) * 1000000ULL / tsc_khz;
}

static uint64_t clock_ns(uint64_t clk)
{
	uint64_t ns = monotonic_ns();

	if (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE) {
		if (!epoch_boot)
			epoch_boot = rtc_read_epoch() * NSEC - ns;
		ns += epoch_boot;
	}
	return ns;
}

/* clock_gettime(clk, ts): -EINVAL unknown clock; -EFAULT. */
long sys_clock_gettime(SYSCALL_ARGS)
{
	struct timespec_k ts;
	uint64_t ns;

	if (a0 > CLOCK_MAX)
		return -EINVAL;
	ns = clock_ns(a0);
	ts.tv_sec = ns / NSEC;
	ts.tv_nsec = ns % NSEC;
	return copy_to_user((void *)a1, &ts, sizeof(ts)) ? -EFAULT : 0;
}

long sys_clock_getres(SYSCALL_ARGS)
{
	struct timespec_k ts = { 0, 1 };

	if (a0 > CLOCK_MAX)
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
	while (clock_ns(clk) < deadline) {
		if (signal_pending(current))
			return -EINTR;
		sched_yield();
		__asm__ volatile("sti; hlt" : : : "memory");
	}
	return 0;
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

	if (a0 > CLOCK_MAX)
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
	static struct prng rng;
	uint64_t len = MIN(a1, (uint64_t)0x1ffffff), done = 0;

	if (a2 & ~7UL)
		return -EINVAL;
	if (!rng.s)
		prng_seed(&rng, rdtsc());
	while (done < len) {
		uint64_t v = prng_next(&rng) ^ rdtsc();
		size_t n = MIN(len - done, (uint64_t)8);

		if (copy_to_user((void *)(a0 + done), &v, n))
			return done ? (long)done : -EFAULT;
		done += n;
	}
	return (long)done;
}

/* vmk_memstat(out, size): this kernel's counters (struct vmk_memstat, a prefix of size bytes). */
long sys_vmk_memstat(SYSCALL_ARGS)
{
	struct mm *mm = current->mm;
	struct vmk_memstat st;

	slab_shrink_all();              /* empty slabs do not count as used memory */
	st = (struct vmk_memstat){
		.free_frames = pmm_free_frames(),
		.rss = mm->rss,
		.faults = mm->faults,
		.cow_copies = mm->cow_copies,
		.zero_maps = mm->zero_maps,
		.tasks = sched_task_count(),
		.cow_reuses = mm->cow_reuses,
	};

	return copy_to_user((void *)a0, &st, MIN(a1, sizeof(st))) ? -EFAULT : 0;
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
	struct task *t = a0 ? task_find((int)a0) : current;
	struct vmdump_buf b = { NULL, 0, PAGE_SIZE << VMDUMP_ORDER, false };
	struct page *pg;
	struct mm *mm;

	if (!a1 || (a1 & ~(uint64_t)(VMDUMP_VMAS | VMDUMP_PAGES)))
		return -EINVAL;
	if (!t || !t->mm)
		return -ESRCH;
	pg = pmm_alloc(VMDUMP_ORDER, 0);
	if (!pg)
		return -ENOMEM;
	b.text = page_address(pg);
	mm = mm_get(t->mm);             /* the task may exit while the dump runs */
	b.len = (size_t)ksnprintf(b.text, b.size, REPORT_BEGIN "vmdump: pid %d (%s)\n", t->pid, t->comm);
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
	else if (res == RLIMIT_NOFILE)
		r[0] = r[1] = 3;
	else if (res == RLIMIT_NPROC)
		r[0] = r[1] = TASK_MAX;
}

/* getrlimit(res, rlim): the fixed limits (stack 8 MiB soft, tasks TASK_MAX, 3 fds, else infinite). -EINVAL res >= 16; -EFAULT. */
long sys_getrlimit(SYSCALL_ARGS)
{
	uint64_t r[2];

	if (a0 >= 16)
		return -EINVAL;
	rlimit_of(a0, r);
	return copy_to_user((void *)a1, r, sizeof(r)) ? -EFAULT : 0;
}

/* prlimit64(pid, res, new, old): pid 0 or self only (-ESRCH); limits cannot be changed (-EPERM). */
long sys_prlimit64(SYSCALL_ARGS)
{
	uint64_t r[2];

	if (a0 && (int)a0 != current->pid)
		return -ESRCH;
	if (a1 >= 16)
		return -EINVAL;
	if (a2)
		return -EPERM;
	rlimit_of(a1, r);
	return a3 && copy_to_user((void *)a3, r, sizeof(r)) ? -EFAULT : 0;
}
