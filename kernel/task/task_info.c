/*
 * What /proc shows of a process (include/task.h, struct task_info): a
 * snapshot of its scheduler-side fields taken under sched_lock, so that
 * fs/proc never holds a task that may be freed on another CPU, and the
 * list of process ids for readdir of /proc.
 */
#include "task.h"
#include "sched_internal.h"
#include "kstring.h"
#include "kerrno.h"

static char state_letter(const struct task *t)
{
	switch (t->state) {
	case TASK_RUNNABLE: return 'R';
	case TASK_ZOMBIE:   return 'Z';
	default:            return 'S';
	}
}

int task_info_get(int pid, struct task_info *out)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);
	struct task *t = task_find_any_locked(pid);
	struct list_head *p;

	if (!t || t->is_idle) {
		spin_unlock_irqrestore(&sched_lock, f);
		return -ESRCH;
	}
	memset(out, 0, sizeof(*out));
	out->pid = t->pid;
	out->tid = t->tid;
	out->ppid = t->parent ? t->parent->pid : 0;
	out->pgid = t->pgid;
	out->sid = t->sid;
	out->state = state_letter(t);
	memcpy(out->comm, t->comm, TASK_COMM_LEN);
	out->comm[TASK_COMM_LEN - 1] = 0;
	out->start_ns = t->start_ns;
	cputime_process_locked(t, &out->utime_ns, &out->stime_ns);
	cputime_children_locked(t, &out->cutime_ns, &out->cstime_ns);
	out->cpu = t->cpu < 0 ? 0 : t->cpu;
	out->exit_signal = t->exit_signal;
	out->umask = t->umask;
	out->cpus_allowed = t->cpus_allowed;
	out->blocked = t->sig.blocked;
	out->pending = t->sig.pending.set;
	if (t->group) {
		out->threads = t->group->live;
		out->shared_pending = t->group->pending.set;
		/* a process is running when one of its threads is (Linux's task_state of the leader) */
		list_for_each(p, &t->group->threads) {
			struct task *th = list_entry(p, struct task, group_link);

			if (th->state == TASK_RUNNABLE && out->state == 'S')
				out->state = 'R';
		}
	}
	if (t->sighand)
		for (int sig = 1; sig <= NSIG_STD; sig++) {
			uint64_t h = t->sighand->action[sig].handler;

			if (h == SIG_IGN)
				out->ignored |= sig_bit(sig);
			else if (h != SIG_DFL)
				out->caught |= sig_bit(sig);
		}
	spin_unlock_irqrestore(&sched_lock, f);
	return 0;
}

size_t task_pids(int *pids, size_t max)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);
	struct list_head *p;
	size_t n = 0;

	list_for_each(p, &task_list) {
		struct task *t = list_entry(p, struct task, all_link);

		if (t->tid != t->pid || t->is_idle)
			continue;
		if (n < max)
			pids[n] = t->pid;
		n++;
	}
	spin_unlock_irqrestore(&sched_lock, f);
	/* ascending, as Linux lists them (thousands at most: Shell sort) */
	for (size_t gap = MIN(n, max) / 2; gap > 0; gap /= 2)
		for (size_t i = gap; i < MIN(n, max); i++)
			for (size_t j = i; j >= gap && pids[j - gap] > pids[j]; j -= gap) {
				int x = pids[j];

				pids[j] = pids[j - gap];
				pids[j - gap] = x;
			}
	return n;
}
