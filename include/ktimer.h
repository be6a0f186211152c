/*
 * The kernel's clock and timers (kernel/time/ktimer.c): CLOCK_MONOTONIC from the
 * TSC, functions run from the timer tick at a deadline, and timed sleeps
 * on top of the wait queues (include/wait.h). The tick is 1 ms, so a
 * deadline is met within one tick.
 */
#ifndef KTIMER_H
#define KTIMER_H

#include "types.h"
#include "kernel_hooks.h"      /* ktimer_tick */
#include "list.h"

struct wait_queue;

/* monotonic_ns: nanoseconds since boot (the TSC). cycles_to_ns: arch_cycles counts in ns (0 before calibration). */
uint64_t monotonic_ns(void);
uint64_t cycles_to_ns(uint64_t cycles);
/* clock_realtime_ns: CLOCK_REALTIME (the CMOS clock read once, UTC, plus monotonic time). */
uint64_t clock_realtime_ns(void);

/*
 * ktimer: a function run from the timer tick (interrupts off, no sleeping)
 * once CLOCK_MONOTONIC reaches expires_ns. ktimer_arm (re)arms, ktimer_cancel
 * disarms (no-op when idle) and waits while the tick runs the timer's
 * function on another CPU, so the timer may be freed once it returns (not
 * to be called from the timer's own function). Used by alarm/setitimer
 * and timed sleeps (the timer on the sleeper's stack).
 */
struct ktimer {
	struct list_head link;
	uint64_t expires_ns;
	void (*fn)(struct ktimer *t);
	bool armed;
};
void ktimer_arm(struct ktimer *t, uint64_t expires_ns);
void ktimer_cancel(struct ktimer *t);

/*
 * sleep_until_ns: sleep until CLOCK_MONOTONIC reaches deadline_ns, or a
 * signal is pending (-EINTR), or wake_up(wq) when wq is not NULL and cond
 * is not NULL and cond(arg) turned true (0). 0 when the deadline passed
 * (-ETIMEDOUT when cond was given and stayed false).
 */
long sleep_until_ns(uint64_t deadline_ns, struct wait_queue *wq, bool (*cond)(void *), void *arg);

/* deadline_after: the CLOCK_MONOTONIC deadline ns from now (UINT64_MAX when it would overflow). */
uint64_t deadline_after(uint64_t ns);
/*
 * user_timeout_deadline: the deadline of the relative struct timespec at
 * user address uts: UINT64_MAX for uts 0 (no timeout), 0 for a zero time
 * (do not wait). -EFAULT; -EINVAL a negative time or tv_nsec >= 10^9.
 */
long user_timeout_deadline(uint64_t uts, uint64_t *deadline);

#endif
