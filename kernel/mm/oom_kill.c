/*
 * The OOM killer (Linux mm/oom_kill.c): a user page fault found no page
 * even after direct reclaim (handle_mm_fault answered FAULT_OOM). Rather
 * than kill whoever happened to fault, kill the process whose death frees
 * the most: the largest footprint (Linux's oom_badness: resident pages,
 * swap entries and page-table pages; oom_score_adj is always 0 here),
 * never a kernel thread, pid 1 only when nothing else is left; with it
 * every other process that shares its address space. While a victim's
 * memory is not back yet (its last task has not emptied the address
 * space: mm_leave), nobody else is killed: the faulting task gives up the
 * CPU and retries its fault (Linux: out_of_memory aborts the choice when it meets
 * a victim whose mm has not got MMF_OOM_SKIP yet).
 *
 * Locking: the choice is made under sched_lock (the task list and each
 * task's mm pointer); an mm's counters are atomic and its page tables stay
 * while a task holds the mm; victims are counted by mm/mm.c (atomic).
 */
#include "task.h"
#include "lockless.h"
#include "sched_internal.h"
#include "signal.h"
#include "mm.h"
#include "arch_mmu.h"
#include "vmstat.h"
#include "printk.h"
#include "kstring.h"

struct oom_choice {
	struct task *task;            /* the chosen task (a thread of the victim process) */
	unsigned long points;         /* its footprint in pages */
	bool wait;                    /* a victim's memory is not back yet: kill nobody */
};

/* Linux oom_badness: resident pages + swap entries + page-table pages. */
static unsigned long oom_badness(struct mm *mm)
{
	return READ_ONCE(mm->rss) + READ_ONCE(mm->swap_ents) +
	       arch_mmu_table_pages(mm->mmu);
}

/* Look at task t (sched_lock held): a candidate or not. */
static void oom_evaluate(struct task *t, struct oom_choice *c, struct oom_choice *init)
{
	struct oom_choice *slot = t->pid == 1 ? init : c;
	unsigned long points;

	if (t->kthread_fn || !t->mm || t->state == TASK_ZOMBIE)
		return;
	if (thread_group_exiting(t))
		return;                         /* exiting anyway: killing it frees nothing more */
	points = oom_badness(t->mm);
	if (!slot->task || points > slot->points) {
		slot->task = t;
		slot->points = points;
	}
}

/*
 * The victim's memory comes back only once every task using its address
 * space has left it, so every other process sharing it (clone with
 * CLONE_VM but not CLONE_THREAD) is killed too, as Linux's
 * __oom_kill_process does; else the killer would wait for memory that
 * the sharer keeps, the sharer's own faults waiting with everyone else's.
 * pid 1 is never killed so: false when it shares the address space, which
 * then will not come back (Linux's MMF_OOM_SKIP), so nobody must wait.
 */
static bool kill_sharers_locked(const struct task *v, const struct k_siginfo *info)
{
	struct list_head *p;
	bool freed = true;

	list_for_each(p, &task_list) {
		struct task *t = list_entry(p, struct task, all_link);

		if (t->mm != v->mm || t->group == v->group || t->kthread_fn || t->state == TASK_ZOMBIE)
			continue;
		if (t->pid == 1) {
			printk("oom-kill: pid %d (%s) shares the victim's address space: it stays\n", t->pid, t->comm);
			freed = false;
			continue;
		}
		send_signal_info_locked(t, info, true);
	}
	return freed;
}

/* Print the kill (Linux's format, with the reason first) and send SIGKILL. sched_lock held. */
static void oom_kill_locked(struct task *v, const struct task *faulting)
{
	struct mm *mm = v->mm;
	unsigned long kb = PAGE_SIZE >> 10, file = READ_ONCE(mm->rss_file);
	unsigned long anon = READ_ONCE(mm->rss) - file;
	struct k_siginfo info;

	printk("%soom-kill: a fault of pid %d (%s) found no page after reclaim\n"
	       "Out of memory: Killed process %d (%s) anon-rss:%lukB, file-rss:%lukB, swap:%lukB, "
	       "pgtables:%lukB\n%s", report_begin(v), faulting->pid, faulting->comm, v->pid, v->comm,
	       anon * kb, file * kb, READ_ONCE(mm->swap_ents) * kb,
	       arch_mmu_table_pages(mm->mmu) * kb, report_end(v));
	memset(&info, 0, sizeof(info));
	info.si_signo = SIGKILL;
	info.si_code = SI_KERNEL;
	send_signal_info_locked(v, &info, true);
	if (kill_sharers_locked(v, &info))
		mm_mark_oom_victim(mm);
	count_vm_event(VM_OOM_KILL);
}

bool out_of_memory(void)
{
	struct oom_choice c = { 0 }, init = { 0 };
	struct task *victim;
	struct list_head *p;
	bool other;
	unsigned long f = spin_lock_irqsave(&sched_lock);

	list_for_each(p, &task_list)
		oom_evaluate(list_entry(p, struct task, all_link), &c, &init);
	/* A victim may have let go of its mm (even been reaped) before the memory is back: wait for that. */
	if (mm_oom_victims_pending())
		c.wait = true;
	victim = c.wait ? NULL : c.task ? c.task : init.task;
	if (victim)
		oom_kill_locked(victim, current);
	other = c.wait || (victim && victim->group != current->group);
	spin_unlock_irqrestore(&sched_lock, f);
	if (other)
		sched_yield();          /* let the victim run and free its memory; the fault is retried */
	return c.wait || victim;
}
