/*
 * Wait queues (include/wait.h) on the scheduler's sleep and wake-up
 * (kernel/sched/sched.c). The queue lists are protected by sched_lock, so a
 * wake-up from an interrupt handler is safe.
 */
#include "wait.h"
#include "task.h"
#include "sched_internal.h"

void wait_queue_init(struct wait_queue *wq)
{
	list_init(&wq->waiters);
}

void wait_prepare(struct wait_queue *wq, struct waiter *w)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	if (w->task != current) {       /* first call of this wait: queue it */
		w->task = current;
		list_add_tail(&w->link, &wq->waiters);
	}
	current->state = TASK_SLEEPING;
	spin_unlock_irqrestore(&sched_lock, f);
}

void wait_schedule(struct waiter *w)
{
	(void)w;
	sched_sleep_if_sleeping();
}

void wait_finish(struct wait_queue *wq, struct waiter *w)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	(void)wq;
	if (current->state == TASK_SLEEPING)
		current->state = TASK_RUNNABLE;
	if (w->task == current)
		list_del(&w->link);
	w->task = NULL;
	spin_unlock_irqrestore(&sched_lock, f);
}

void wake_up(struct wait_queue *wq)
{
	struct list_head *p;
	unsigned long f = spin_lock_irqsave(&sched_lock);

	list_for_each(p, &wq->waiters)
		sched_wakeup_locked(list_entry(p, struct waiter, link)->task);
	spin_unlock_irqrestore(&sched_lock, f);
}

void wake_up_locked(struct wait_queue *wq)
{
	struct list_head *p;

	assert_spin_held(&sched_lock);
	list_for_each(p, &wq->waiters)
		sched_wakeup_locked(list_entry(p, struct waiter, link)->task);
}

