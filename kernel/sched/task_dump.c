/*
 * The tasks as the scheduler sees them, for a hang report: each task's
 * ids, name and state and, for one that is switched out, where its kernel
 * stack will resume (arch_task_stack_trace); for the running ones, every
 * other CPU prints its own call trace (arch_backtrace_other_cpus). vmk_check's VMK_CHECK_TASKS
 * prints it; the syscall fuzzer asks for it when a seed stops making
 * progress, before it kills the seed, so that the log says where every
 * task waited.
 *
 * The snapshot is taken under sched_lock, which keeps every task where it
 * is (a switch takes it), and printed after the lock is dropped.
 */
#include "sched_internal.h"
#include "arch.h"
#include "lockdep.h"
#include "printk.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"

size_t sched_tasks_snapshot(struct task_snap *out, size_t max)
{
	struct list_head *p;
	size_t n = 0;
	unsigned long f = spin_lock_irqsave(&sched_lock);

	list_for_each(p, &task_list) {
		struct task *t = list_entry(p, struct task, all_link);
		struct task_snap *s;

		if (n++ >= max)
			continue;
		s = &out[n - 1];
		s->pid = t->pid;
		s->tid = t->tid;
		memcpy(s->comm, t->comm, TASK_COMM_LEN);
		s->state = t->state;
		s->on_cpu = t->on_cpu;
		s->cpu = t->cpu;
		s->depth = t->on_cpu || t->state == TASK_ZOMBIE ? 0 :
			   arch_task_stack_trace(t, s->trace, TASK_SNAP_DEPTH);
	}
	spin_unlock_irqrestore(&sched_lock, f);
	return n;
}

static const char *snap_state(const struct task_snap *s)
{
	if (s->on_cpu)
		return "running";
	return s->state == TASK_SLEEPING ? "sleeping" : s->state == TASK_ZOMBIE ? "zombie" : "runnable";
}

int sched_dump_tasks(bool other_cpus)
{
	size_t max = sched_task_count() + 16, n;
	struct task_snap *snap = kmalloc(max * sizeof(*snap));

	if (!snap)
		return -ENOMEM;
	n = sched_tasks_snapshot(snap, max);
	printk("tasks: %zu\n", n);
	for (size_t i = 0; i < MIN(n, max); i++) {
		const struct task_snap *s = &snap[i];

		printk("task pid %d tid %d (%s): %s, CPU %d\n", s->pid, s->tid, s->comm, snap_state(s), s->cpu);
		if (s->depth)
			arch_print_stack(s->trace, s->depth);
	}
	if (n > max)
		printk("tasks: %zu more not shown (the list grew meanwhile)\n", n - max);
	kfree(snap);
	if (other_cpus)
		arch_backtrace_other_cpus();    /* the running ones: where each CPU is, printed meanwhile */
	return 0;
}
