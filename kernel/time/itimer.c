/*
 * The real-time interval timer of a process: alarm, setitimer and
 * getitimer with ITIMER_REAL (SIGALRM when it expires, re-armed by its
 * interval), and pause. The timer is a ktimer (include/ktimer.h) in the
 * task; it survives execve, is not inherited by fork, and ends with the
 * task. ITIMER_VIRTUAL and ITIMER_PROF (CPU-time timers) are not kept:
 * -EINVAL.
 */
#include "syscall_internal.h"
#include "task.h"
#include "signal.h"
#include "wait.h"
#include "ktimer.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"

#define ITIMER_REAL 0
#define NSEC 1000000000ULL
#define USEC 1000000ULL

struct timeval_k {
	int64_t sec, usec;
};

struct itimerval_k {
	struct timeval_k interval, value;
};

static void it_real_fire(struct ktimer *kt)
{
	struct task *t = container_of(kt, struct task, it_real);
	uint64_t now = monotonic_ns();

	send_signal(t, SIGALRM, SI_KERNEL, 0, true);
	if (t->it_real_interval_ns) {
		uint64_t next = kt->expires_ns + t->it_real_interval_ns;

		ktimer_arm(kt, next > now ? next : now + t->it_real_interval_ns);
	}
}

void task_exit_timers(struct task *t)
{
	ktimer_cancel(&t->it_real);
}

static uint64_t tv_to_ns(const struct timeval_k *tv)
{
	return (uint64_t)tv->sec * NSEC + (uint64_t)tv->usec * 1000;
}

static struct timeval_k ns_to_tv(uint64_t ns)
{
	/* Linux rounds a remaining value up to whole microseconds, so an armed timer never reads 0 */
	uint64_t us = (ns + 999) / 1000;

	return (struct timeval_k){ .sec = (int64_t)(us / USEC), .usec = (int64_t)(us % USEC) };
}

/* The current setting of t's ITIMER_REAL. */
static struct itimerval_k it_real_get(struct task *t)
{
	struct itimerval_k v = { ns_to_tv(t->it_real_interval_ns), { 0, 0 } };
	uint64_t now = monotonic_ns();

	if (t->it_real.armed)
		v.value = ns_to_tv(t->it_real.expires_ns > now ? t->it_real.expires_ns - now : 1);
	return v;
}

static void it_real_set(struct task *t, uint64_t value_ns, uint64_t interval_ns)
{
	t->it_real.fn = it_real_fire;
	ktimer_cancel(&t->it_real);
	t->it_real_interval_ns = interval_ns;
	if (value_ns)
		ktimer_arm(&t->it_real, monotonic_ns() + value_ns);
}

static bool tv_valid(const struct timeval_k *tv)
{
	return tv->sec >= 0 && tv->usec >= 0 && (uint64_t)tv->usec < USEC &&
	       (uint64_t)tv->sec < UINT64_MAX / NSEC / 4;
}

/* getitimer(which, value): ITIMER_REAL; -EINVAL other timers; -EFAULT. */
long sys_getitimer(SYSCALL_ARGS)
{
	struct itimerval_k v;

	if ((int)a0 != ITIMER_REAL)
		return -EINVAL;
	v = it_real_get(current);
	return copy_to_user((void *)a1, &v, sizeof(v)) ? -EFAULT : 0;
}

/* setitimer(which, new, old): ITIMER_REAL (new NULL disarms, as Linux); -EINVAL bad timer or time; -EFAULT. */
long sys_setitimer(SYSCALL_ARGS)
{
	struct itimerval_k nv = { { 0, 0 }, { 0, 0 } }, old;

	if (a1 && copy_from_user(&nv, (const void *)a1, sizeof(nv)))
		return -EFAULT;
	if ((int)a0 != ITIMER_REAL)
		return -EINVAL;
	if (!tv_valid(&nv.value) || !tv_valid(&nv.interval))
		return -EINVAL;
	old = it_real_get(current);
	it_real_set(current, tv_to_ns(&nv.value), tv_to_ns(&nv.interval));
	if (a2 && copy_to_user((void *)a2, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/* alarm(seconds): SIGALRM after that many seconds (0 cancels); returns the seconds the previous alarm had left (rounded as Linux). */
long sys_alarm(SYSCALL_ARGS)
{
	struct itimerval_k old = it_real_get(current);
	uint32_t secs = (uint32_t)a0;

	it_real_set(current, (uint64_t)secs * NSEC, 0);
	if ((old.value.sec == 0 && old.value.usec) || old.value.usec >= 500000)
		old.value.sec++;
	return old.value.sec;
}

/* pause(): sleep until a signal is delivered; -EINTR once its handler ran (restarted when none runs). */
long sys_pause(SYSCALL_ARGS)
{
	struct wait_queue never = WAIT_QUEUE_INIT(never);

	wait_event_interruptible(&never, false);
	return -ERESTARTNOHAND;
}
