/*
 * The scheduler: round-robin over one run queue, preemption by the timer
 * tick when a task's slice ends (taken on the way back to user mode, see
 * exit_to_user), explicit sleep/wake-up for wait4. The boot context becomes
 * the idle task (pid 0), which runs when nothing else can.
 *
 * Locking: sched_lock (interrupts off) protects everything tagged [sched]
 * in include/task.h. A switch happens with sched_lock held; the task
 * switched to releases it (in schedule(), or sched_tail for a new task).
 */
#include "sched_internal.h"
#include "x86.h"
#include "mm.h"
#include "pmm.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "printk.h"

struct spinlock sched_lock = SPINLOCK_INIT("sched");
struct list_head task_list = LIST_HEAD_INIT(task_list);
struct task idle_task;
static struct list_head run_queue = LIST_HEAD_INIT(run_queue);
static int next_pid = 1;
static unsigned ntasks;                         /* [sched] tasks on task_list */

void sched_init(void)
{
	struct task *t = &idle_task;

	memset(t, 0, sizeof(*t));
	t->pid = t->tid = 0;
	t->state = TASK_RUNNABLE;
	list_init(&t->children);
	list_init(&t->sibling);
	list_init(&t->run_link);
	list_init(&t->all_link);
	wait_queue_init(&t->child_wait);
	memcpy(t->comm, "idle", 5);
	signal_init_task(t);
	arch_task_reset_fpu(t);
	arch_set_current(t);
}

struct task *task_alloc(void)
{
	struct task *t = kzalloc(sizeof(*t));
	struct page *stack;
	unsigned long f;

	if (!t)
		return NULL;
	stack = pmm_alloc(KSTACK_ORDER, 0);
	if (!stack) {
		kfree(t);
		return NULL;
	}
	t->kstack = page_address(stack);
	t->tf = (struct trap_frame *)((char *)t->kstack + KSTACK_SIZE) - 1;
	memset(t->tf, 0, sizeof(*t->tf));
	list_init(&t->children);
	list_init(&t->sibling);
	list_init(&t->run_link);
	list_init(&t->all_link);
	wait_queue_init(&t->child_wait);
	signal_init_task(t);
	arch_task_reset_fpu(t);
	f = spin_lock_irqsave(&sched_lock);
	t->pid = t->tid = next_pid++;
	spin_unlock_irqrestore(&sched_lock, f);
	return t;
}

void task_free(struct task *t)
{
	pmm_free(virt_to_page(t->kstack), KSTACK_ORDER);
	kfree(t);
}

void sched_start_task(struct task *t)
{
	unsigned long f;

	arch_task_setup_stack(t);
	f = spin_lock_irqsave(&sched_lock);
	t->state = TASK_RUNNABLE;
	t->slice = SCHED_SLICE_TICKS;
	list_add_tail(&t->all_link, &task_list);
	ntasks++;
	if (t->parent)
		list_add_tail(&t->sibling, &t->parent->children);
	list_add_tail(&t->run_link, &run_queue);
	t->on_rq = true;
	spin_unlock_irqrestore(&sched_lock, f);
}

void __schedule(void)
{
	struct task *prev = current, *next;

	assert_spin_held(&sched_lock);
	prev->need_resched = false;
	if (prev->on_rq && prev->state != TASK_RUNNABLE) {
		list_del(&prev->run_link);      /* woken, then slept or exited again */
		prev->on_rq = false;
	}
	if (prev->state == TASK_RUNNABLE && prev != &idle_task && !prev->on_rq) {
		list_add_tail(&prev->run_link, &run_queue);
		prev->on_rq = true;
	}
	if (list_empty(&run_queue)) {
		next = &idle_task;
	} else {
		next = list_first_entry(&run_queue, struct task, run_link);
		list_del(&next->run_link);
		next->on_rq = false;
	}
	if (next == prev)
		return;
	next->slice = SCHED_SLICE_TICKS;
	if (next->mm && next->mm != prev->mm)
		mm_activate(next->mm);
	else if (!next->mm && prev->mm)
		mm_activate(NULL);
	arch_switch_to(prev, next);
}

/* sched_tail: a new task's first code (ret_from_fork): release the lock schedule() held; interrupts stay off. */
void sched_tail(void);
void sched_tail(void)
{
	spin_unlock_irqrestore(&sched_lock, 0);
}

void schedule(void)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	__schedule();
	spin_unlock_irqrestore(&sched_lock, f);
}

void sched_yield(void)
{
	schedule();
}

void sched_tick(void)
{
	struct task *t = current;

	if (t == &idle_task) {
		t->need_resched = !list_empty(&run_queue);
		return;
	}
	if (t->slice > 0)
		t->slice--;
	if (t->slice == 0)
		t->need_resched = true;
}

void sched_set_sleeping(void)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	current->state = TASK_SLEEPING;
	spin_unlock_irqrestore(&sched_lock, f);
}

void sched_set_running(void)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	if (current->state == TASK_SLEEPING)
		current->state = TASK_RUNNABLE;
	spin_unlock_irqrestore(&sched_lock, f);
}

void sched_sleep_if_sleeping(void)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	if (current->state == TASK_SLEEPING)
		__schedule();
	spin_unlock_irqrestore(&sched_lock, f);
}

/*
 * A task woken while it still runs (between sched_set_sleeping and its
 * switch) is put on the run queue too; __schedule then finds it there and
 * keeps running it, or runs it again in turn. on_rq keeps it queued once.
 */
void sched_wakeup_locked(struct task *t)
{
	assert_spin_held(&sched_lock);
	if (t->state != TASK_SLEEPING)
		return;
	t->state = TASK_RUNNABLE;
	if (!t->on_rq) {
		list_add_tail(&t->run_link, &run_queue);
		t->on_rq = true;
	}
}

void sched_wakeup(struct task *t)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	sched_wakeup_locked(t);
	spin_unlock_irqrestore(&sched_lock, f);
}

unsigned sched_task_count(void)
{
	return ntasks;
}

void sched_task_unlink(struct task *t)
{
	assert_spin_held(&sched_lock);
	list_del(&t->all_link);
	list_del(&t->sibling);
	ntasks--;
}

struct task *task_find_any(int pid)
{
	struct list_head *p;
	struct task *found = NULL;
	unsigned long f = spin_lock_irqsave(&sched_lock);

	list_for_each(p, &task_list) {
		struct task *t = list_entry(p, struct task, all_link);
		if (t->pid == pid) {
			found = t;
			break;
		}
	}
	spin_unlock_irqrestore(&sched_lock, f);
	return found;
}

struct task *task_find(int pid)
{
	struct task *t = task_find_any(pid);

	return t && t->state != TASK_ZOMBIE ? t : NULL;
}

/* exit_to_user: see task.h. */
void exit_to_user(struct trap_frame *tf)
{
	for (;;) {
		cli();
		if (current->need_resched) {
			schedule();
			continue;
		}
		if (signal_pending(current)) {
			signal_deliver(tf);
			continue;
		}
		break;
	}
}
