/*
 * futex: FUTEX_WAIT / FUTEX_WAKE (and their _BITSET forms) for tasks that
 * share an address space (CLONE_VM) or wait on themselves; Linux's
 * checks: a misaligned address -EINVAL, an unreadable one -EFAULT, a value
 * that differs -EAGAIN, a bad timeout -EINVAL, a wait that times out
 * -ETIMEDOUT, a signal -EINTR (restarted with SA_RESTART for waits without
 * timeout), unknown operations -ENOSYS. A futex is keyed by (address
 * space, address): private and shared futexes are the same here, so a
 * shared futex in MAP_SHARED memory is not matched across processes with
 * different address spaces (none of the programs we run needs that yet).
 * Waiters sleep on one wait queue and recheck their own key.
 */
#include "syscall_internal.h"
#include "task.h"
#include "signal.h"
#include "wait.h"
#include "ktimer.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"

#define FUTEX_WAIT            0
#define FUTEX_WAKE            1
#define FUTEX_WAIT_BITSET     9
#define FUTEX_WAKE_BITSET     10
#define FUTEX_PRIVATE_FLAG    128
#define FUTEX_CLOCK_REALTIME  256
#define FUTEX_BITSET_ANY      0xffffffffU
#define NSEC 1000000000ULL

struct futex_waiter {
	struct list_head link;
	struct mm *mm;
	uintptr_t addr;
	uint32_t bitset;
	bool woken;
};

static struct list_head futex_waiters = LIST_HEAD_INIT(futex_waiters);
static struct wait_queue futex_wq = WAIT_QUEUE_INIT(futex_wq);

int futex_wake_address(uintptr_t addr, int n)
{
	return futex_wake_mm(current->mm, addr, n, FUTEX_BITSET_ANY);
}

int futex_wake_mm(struct mm *mm, uintptr_t addr, int n, uint32_t bitset)
{
	struct list_head *p;
	int woken = 0;

	list_for_each(p, &futex_waiters) {
		struct futex_waiter *w = list_entry(p, struct futex_waiter, link);

		if (woken >= n)
			break;
		if (w->woken || w->mm != mm || w->addr != addr || !(w->bitset & bitset))
			continue;
		w->woken = true;
		woken++;
	}
	if (woken)
		wake_up(&futex_wq);
	return woken;
}

static bool futex_woken(void *arg)
{
	return ((struct futex_waiter *)arg)->woken;
}

/* Read a timespec: relative (FUTEX_WAIT) or absolute (WAIT_BITSET); *deadline in monotonic ns. */
static long futex_deadline(uint64_t uts, bool absolute, bool realtime, uint64_t *deadline)
{
	struct { int64_t sec, nsec; } ts;
	uint64_t ns;

	if (copy_from_user(&ts, (const void *)uts, sizeof(ts)))
		return -EFAULT;
	if (ts.sec < 0 || ts.nsec < 0 || (uint64_t)ts.nsec >= NSEC)
		return -EINVAL;
	ns = (uint64_t)ts.sec > UINT64_MAX / NSEC / 2 ? UINT64_MAX / 2 : ts.sec * NSEC + ts.nsec;
	if (!absolute) {
		*deadline = monotonic_ns() + ns;
		return 0;
	}
	if (realtime) {
		uint64_t now_rt = clock_realtime_ns(), now = monotonic_ns();

		*deadline = ns > now_rt ? now + (ns - now_rt) : now;
		return 0;
	}
	*deadline = ns;
	return 0;
}

static long futex_wait(uintptr_t addr, uint32_t val, uint64_t uts, uint32_t bitset, bool absolute,
		       bool realtime)
{
	struct futex_waiter w = { .mm = current->mm, .addr = addr, .bitset = bitset };
	uint64_t deadline = UINT64_MAX;
	uint32_t cur;
	long r;

	if (uts && (r = futex_deadline(uts, absolute, realtime, &deadline)))
		return r;
	if (!bitset || (addr & 3))
		return -EINVAL;
	if (copy_from_user(&cur, (const void *)addr, sizeof(cur)))
		return -EFAULT;
	if (cur != val)
		return -EAGAIN;
	list_add_tail(&w.link, &futex_waiters);
	if (uts) {
		r = sleep_until_ns(deadline, &futex_wq, futex_woken, &w);
	} else {
		r = wait_event_interruptible(&futex_wq, w.woken);
	}
	list_del(&w.link);
	if (w.woken)
		return 0;
	return r == -EINTR && !uts ? -ERESTARTSYS : r;
}

/* futex(uaddr, op, val, timeout, uaddr2, val3): WAIT, WAKE, WAIT_BITSET, WAKE_BITSET; others -ENOSYS. */
long sys_futex(SYSCALL_ARGS)
{
	unsigned op = (unsigned)a1 & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	bool realtime = a1 & FUTEX_CLOCK_REALTIME;
	uint32_t bitset = (uint32_t)a5;

	if (realtime && op != FUTEX_WAIT_BITSET)
		return -ENOSYS;
	switch (op) {
	case FUTEX_WAIT:
		bitset = FUTEX_BITSET_ANY;
		/* fall through */
	case FUTEX_WAIT_BITSET:
		return futex_wait(a0, (uint32_t)a2, a3, bitset, op == FUTEX_WAIT_BITSET, realtime);
	case FUTEX_WAKE:
		bitset = FUTEX_BITSET_ANY;
		/* fall through */
	case FUTEX_WAKE_BITSET:
		if (a0 & 3)
			return -EINVAL;
		if (!bitset)
			return -EINVAL;
		if (!access_ok(a0, 4))
			return -EFAULT;
		if (!(a1 & FUTEX_PRIVATE_FLAG)) {
			uint32_t v;     /* a shared futex must be mapped (Linux looks its page up) */

			if (copy_from_user(&v, (const void *)a0, sizeof(v)))
				return -EFAULT;
		}
		return futex_wake_mm(current->mm, a0, (int)MIN(a2, (uint64_t)INT32_MAX), bitset);
	default:
		return -ENOSYS;
	}
}

/* set_robust_list(head, len): remembered (one thread per process: nothing to walk at exit). -EINVAL len != 24. */
long sys_set_robust_list(SYSCALL_ARGS)
{
	if (a1 != 24)
		return -EINVAL;
	current->robust_list = a0;
	return 0;
}

/* get_robust_list(pid, head_ptr, len_ptr): pid 0 or self; -ESRCH others; -EFAULT. */
long sys_get_robust_list(SYSCALL_ARGS)
{
	uint64_t len = 24;

	if (a0 && (int)a0 != current->pid)
		return task_find((int)a0) ? -EPERM : -ESRCH;
	if (copy_to_user((void *)a1, &current->robust_list, 8) || copy_to_user((void *)a2, &len, 8))
		return -EFAULT;
	return 0;
}
