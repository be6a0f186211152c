/*
 * CLOCK_MONOTONIC, timers run from the tick, and timed sleeps
 * (include/ktimer.h). The armed timers are one unsorted list: there are
 * few (one per sleeping task and per armed alarm), and the tick walks it.
 */
#include "ktimer.h"
#include "wait.h"
#include "task.h"
#include "signal.h"
#include "spinlock.h"
#include "arch.h"
#include "kerrno.h"
#include "uaccess.h"

#define NSEC 1000000000ULL

static struct list_head armed = LIST_HEAD_INIT(armed);
static struct spinlock timer_lock = SPINLOCK_INIT("ktimer");
static struct ktimer *running;  /* [timer_lock] the timer whose function the tick runs now */
static uint64_t cycles_boot;     /* arch_cycles() at the first call */

uint64_t cycles_to_ns(uint64_t c)
{
	uint64_t khz = arch_cycles_khz(), per_sec = khz * 1000;

	if (!per_sec)
		return 0;
	return c / per_sec * NSEC + (c % per_sec) * 1000000ULL / khz;
}

uint64_t monotonic_ns(void)
{
	if (!cycles_boot)
		cycles_boot = arch_cycles();
	return cycles_to_ns(arch_cycles() - cycles_boot);
}

uint64_t rtc_read_epoch(void);

uint64_t clock_realtime_ns(void)
{
	static uint64_t epoch_boot;     /* CLOCK_REALTIME - CLOCK_MONOTONIC, from the CMOS clock */
	uint64_t ns = monotonic_ns();

	if (!epoch_boot)
		epoch_boot = rtc_read_epoch() * NSEC - ns;
	return ns + epoch_boot;
}

void ktimer_arm(struct ktimer *t, uint64_t expires_ns)
{
	unsigned long f = spin_lock_irqsave(&timer_lock);

	if (!t->armed)
		list_add_tail(&t->link, &armed);
	t->armed = true;
	t->expires_ns = expires_ns;
	spin_unlock_irqrestore(&timer_lock, f);
}

/*
 * Also waits while the tick (on CPU 0) runs t's function, which may still
 * use t and re-arm it: after the return nothing touches t any more, so it
 * may be freed or, for a timed sleep, its stack frame reused. Never called
 * from a timer's own function (it would wait for itself).
 */
void ktimer_cancel(struct ktimer *t)
{
	unsigned long f = spin_lock_irqsave(&timer_lock);

	for (;;) {
		if (t->armed)
			list_del(&t->link);
		t->armed = false;
		if (running != t)
			break;
		spin_unlock_irqrestore(&timer_lock, f);
		arch_cpu_relax();
		f = spin_lock_irqsave(&timer_lock);
	}
	spin_unlock_irqrestore(&timer_lock, f);
}

void ktimer_tick(void)
{
	uint64_t now = monotonic_ns();
	struct list_head *p, *tmp;
	unsigned long f = spin_lock_irqsave(&timer_lock);

	list_for_each_safe(p, tmp, &armed) {
		struct ktimer *t = list_entry(p, struct ktimer, link);

		if (t->expires_ns > now)
			continue;
		list_del(&t->link);
		t->armed = false;
		running = t;            /* ktimer_cancel(t) waits until fn is done with t */
		spin_unlock_irqrestore(&timer_lock, f);
		t->fn(t);               /* may re-arm t (interval timers) */
		f = spin_lock_irqsave(&timer_lock);
		running = NULL;
		tmp = armed.next;       /* the list may have changed: start over */
	}
	spin_unlock_irqrestore(&timer_lock, f);
}

struct sleep_timer {
	struct ktimer kt;
	struct task *task;
};

static void sleep_timer_fire(struct ktimer *kt)
{
	sched_wakeup(container_of(kt, struct sleep_timer, kt)->task);
}

long sleep_until_ns(uint64_t deadline_ns, struct wait_queue *wq, bool (*cond)(void *), void *arg)
{
	struct sleep_timer st = { .kt = { .fn = sleep_timer_fire }, .task = current };
	struct wait_queue own = WAIT_QUEUE_INIT(own);
	struct waiter w = WAITER_INIT;
	long r = 0;

	if (!wq)
		wq = &own;
	ktimer_arm(&st.kt, deadline_ns);
	for (;;) {
		wait_prepare(wq, &w);
		if (cond && cond(arg))
			break;
		if (monotonic_ns() >= deadline_ns) {
			r = cond ? -ETIMEDOUT : 0;
			break;
		}
		if (signal_pending(current)) {
			r = -EINTR;
			break;
		}
		wait_schedule(&w);
	}
	wait_finish(wq, &w);
	ktimer_cancel(&st.kt);
	return r;
}

/* deadline_after: see include/ktimer.h. */
uint64_t deadline_after(uint64_t ns)
{
	uint64_t now = monotonic_ns();

	return ns >= UINT64_MAX - now ? UINT64_MAX : now + ns;
}

/* user_timeout_deadline: see include/ktimer.h. */
long user_timeout_deadline(uint64_t uts, uint64_t *deadline)
{
	struct { int64_t sec, nsec; } ts;

	if (!uts) {
		*deadline = UINT64_MAX;
		return 0;
	}
	if (copy_from_user(&ts, (const void *)uts, sizeof(ts)))
		return -EFAULT;
	if (ts.sec < 0 || ts.nsec < 0 || (uint64_t)ts.nsec >= NSEC)
		return -EINVAL;
	*deadline = (uint64_t)ts.sec > UINT64_MAX / NSEC / 2 ? UINT64_MAX :
		    (ts.sec == 0 && ts.nsec == 0) ? 0 : deadline_after((uint64_t)ts.sec * NSEC + (uint64_t)ts.nsec);
	return 0;
}
