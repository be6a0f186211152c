/*
 * Kernel threads (include/task.h): tasks that run a kernel function, with
 * no user half, optionally pinned to one CPU. The SMP test suites use them
 * to run work on several CPUs at once, in one address space
 * (kthread_use_mm) or several.
 */
#include "task.h"
#include "sched_internal.h"
#include "mm.h"
#include "kstring.h"
#include "arch.h"

struct task *kthread_create(void (*fn)(void *), void *arg, int cpu, const char *name)
{
	struct task *t = task_alloc();
	size_t n;

	if (!t)
		return NULL;
	t->kthread_fn = fn;
	t->kthread_arg = arg;
	t->cpus_allowed = cpu < 0 ? ~0UL : 1UL << cpu;
	n = MIN(strlen(name), (size_t)TASK_COMM_LEN - 1);
	memcpy(t->comm, name, n);
	t->comm[n] = 0;
	return t;
}

void kthread_start(struct task *t)
{
	sched_start_task(t);
}

void kthread_exit(void)
{
	struct task *t = current;
	unsigned long f;

	BUG_ON(!t->kthread_fn || t->mm);
	f = spin_lock_irqsave(&sched_lock);
	t->state = TASK_ZOMBIE;
	if (t->joiner)
		sched_wakeup_locked(t->joiner);
	__schedule();
	panic("kthread_exit: zombie %d ran again", t->pid);
	(void)f;
}

/* kthread_join: wait until t has exited, then free it. Not for a thread that is joined elsewhere. */
void kthread_join(struct task *t)
{
	struct task *self = current;
	unsigned long f;

	lockdep_might_sleep(NULL);
	f = spin_lock_irqsave(&sched_lock);
	while (t->state != TASK_ZOMBIE) {
		t->joiner = self;
		self->state = TASK_SLEEPING;
		__schedule();
		self->state = TASK_RUNNABLE;
		if (self->is_idle && t->state != TASK_ZOMBIE) {
			spin_unlock_irqrestore(&sched_lock, f);
			idle_pause();           /* the idle task waits here */
			f = spin_lock_irqsave(&sched_lock);
		}
	}
	sched_task_unlink(t);
	spin_unlock_irqrestore(&sched_lock, f);
	task_free(t);
}

void kthread_use_mm(struct mm *mm)
{
	struct task *t = current;

	BUG_ON(!t->kthread_fn || t->mm);
	task_set_mm(t, mm_get(mm));
	mm_activate(mm);
}

void kthread_unuse_mm(void)
{
	struct task *t = current;

	BUG_ON(!t->kthread_fn || !t->mm);
	mm_activate(NULL);
	mm_put(task_set_mm(t, NULL));        /* borrowed: not one of its tasks (mm_enter) */
}
