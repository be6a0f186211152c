/*
 * Wait queues: the one way kernel code blocks (pipes, wait4, pause,
 * futex, nanosleep, the console's stdin and output back-pressure).
 *
 * A sleeper follows the pattern
 *
 *     struct waiter w = WAITER_INIT;
 *     long r = 0;
 *     for (;;) {
 *             wait_prepare(&wq, &w);          // queued, marked sleeping
 *             if (CONDITION) break;
 *             if (signal_pending(current)) { r = -ERESTARTSYS; break; }
 *             wait_schedule(&w);               // sleeps unless woken already
 *     }
 *     wait_finish(&wq, &w);
 *
 * or the macro wait_event_interruptible(wq, CONDITION), which is exactly
 * that. Because the task is queued and marked sleeping before it tests the
 * condition, a wake_up() between the test and the switch is never lost: it
 * just makes the switch return at once. Wakers change the state the
 * condition reads first, then call wake_up().
 *
 * Built on the scheduler's sleep/wake-up (kernel/sched/sched.c); callable from
 * process context with no spinlock held (wake_up also from interrupts).
 * Timed sleeps are in include/ktimer.h (sleep_until_ns).
 */
#ifndef WAIT_H
#define WAIT_H

#include "types.h"
#include "list.h"

struct task;

struct wait_queue {
	struct list_head waiters;       /* struct waiter.link; protected by sched_lock */
};

struct waiter {
	struct list_head link;
	struct task *task;
};

#define WAIT_QUEUE_INIT(name) { LIST_HEAD_INIT((name).waiters) }
/* A waiter starts unqueued: struct waiter w = WAITER_INIT. */
#define WAITER_INIT { .task = NULL }

/* wait_queue_init: an empty queue. */
void wait_queue_init(struct wait_queue *wq);
/* wait_prepare: queue current on wq (once) and mark it sleeping. */
void wait_prepare(struct wait_queue *wq, struct waiter *w);
/* wait_schedule: give up the CPU if still marked sleeping (not woken since wait_prepare). */
void wait_schedule(struct waiter *w);
/* wait_finish: current is runnable again and off wq. */
void wait_finish(struct wait_queue *wq, struct waiter *w);
/* wake_up: make every task sleeping on wq runnable (they re-check their conditions). */
void wake_up(struct wait_queue *wq);
/* wake_up_locked: wake_up for the scheduler's own code, which holds sched_lock. */
void wake_up_locked(struct wait_queue *wq);

/*
 * wait_event_interruptible: sleep on wq until cond holds (0) or a signal is
 * pending (-ERESTARTSYS: the system call returns -EINTR, or is restarted
 * for a handler with SA_RESTART, include/kerrno.h).
 */
#define wait_event_interruptible(wq, cond) ({                                  \
	struct waiter __w = WAITER_INIT; \
	long __r = 0;                                                           \
	for (;;) {                                                              \
		wait_prepare((wq), &__w);                                       \
		if (cond)                                                       \
			break;                                                  \
		if (signal_pending(current)) {                                  \
			__r = -ERESTARTSYS;                                     \
			break;                                                  \
		}                                                               \
		wait_schedule(&__w);                                            \
	}                                                                       \
	wait_finish((wq), &__w);                                                \
	__r;                                                                    \
})

/* wait_event: as wait_event_interruptible, but signals do not end the wait (kernel-internal waits). */
#define wait_event(wq, cond) ({                                                \
	struct waiter __w = WAITER_INIT; \
	for (;;) {                                                              \
		wait_prepare((wq), &__w);                                       \
		if (cond)                                                       \
			break;                                                  \
		wait_schedule(&__w);                                            \
	}                                                                       \
	wait_finish((wq), &__w);                                                \
})

#endif
