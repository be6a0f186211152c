/*
 * Sleeping, for portable code (lib/, mm/): the part of the scheduler that a
 * sleeping lock needs. The kernel implements it in kernel/sched/sched.c; host
 * tests in arch/hosted/hosted.c (a host thread plays a task and yields
 * while it waits).
 *
 * sched_wait_flag(flag) sleeps until *flag is non-zero, which
 * sched_wake_flag(t, flag) sets (and wakes t). The flag is checked and set
 * under the scheduler's lock, so no wake-up is lost, and the waker touches
 * the flag only under that lock, so the flag may live on the sleeper's
 * stack. The caller of sched_wait_flag holds no spinning lock. An idle task
 * (the boot context on CPU 0) polls instead of sleeping.
 */
#ifndef SLEEP_H
#define SLEEP_H

#include "types.h"

struct task;

/* The task running on this CPU (host tests: one per host thread). */
#if defined(KERNEL) && !defined(HOSTED)
/* x86-64: the cur_task field of the CPU's own struct percpu, at %gs:40 (one load, inline). */
static inline struct task *current_task(void)
{
	struct task *t;

	__asm__ volatile("movq %%gs:40, %0" : "=r"(t));
	return t;
}
#else
struct task *current_task(void);
#endif
void sched_wait_flag(int *flag);
void sched_wake_flag(struct task *t, int *flag);
/*
 * current_fatal_signal: the current task has SIGKILL pending (it dies on
 * its way back to user mode), so a long loop on its behalf (populating a
 * range) stops (Linux's fatal_signal_pending(current)). Host tests: false.
 */
bool current_fatal_signal(void);
/*
 * cond_resched: in a long loop on behalf of the current task (populating a
 * range), give up the CPU if its slice is over, as the way back to user
 * mode would (Linux cond_resched): kernel code is not preempted, so
 * without it one such loop keeps every other task off its CPU. Call with
 * no spinning lock held (sleeping locks may be held). Host tests: nothing.
 */
void cond_resched(void);

#endif
