/*
 * The end of processes: exit and wait4 (Linux status encoding: exit code
 * << 8, or the number of the signal that killed it). Orphans are reparented
 * to init (kernel/init.c); a zombie is freed by the wait4 that reaps it.
 */
#include "task.h"
#include "sched_internal.h"
#include "syscall_internal.h"
#include "uaccess.h"
#include "signal.h"
#include "mm.h"
#include "x86.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"
#include "file.h"
#include "uapi/linux_wait.h"

#define RUSAGE_SIZE 144


void task_exit(int status)
{
	struct task *t = current;
	struct list_head *p, *tmp;
	unsigned long f;

	sti();
	if (t->clear_child_tid) {
		uint32_t zero = 0;
		copy_to_user((void *)t->clear_child_tid, &zero, sizeof(zero));
	}
	files_close_all(t);
	if (t->mm) {
		struct mm *mm = t->mm;

		mm_activate(NULL);
		t->mm = NULL;
		mm_put(mm);
	}
	f = spin_lock_irqsave(&sched_lock);
	list_for_each_safe(p, tmp, &t->children) {
		struct task *c = list_entry(p, struct task, sibling);

		list_del(&c->sibling);
		if (init_task && t != init_task && init_task->state != TASK_ZOMBIE) {
			c->parent = init_task;
			list_add_tail(&c->sibling, &init_task->children);
			if (c->state == TASK_ZOMBIE)
				sched_wakeup_locked(init_task);
		} else {
			c->parent = &idle_task;
			list_add_tail(&c->sibling, &idle_task.children);
		}
	}
	t->exit_status = status;
	t->state = TASK_ZOMBIE;
	if (t->parent)
		sched_wakeup_locked(t->parent);
	__schedule();
	panic("task_exit: zombie %d ran again", t->pid);
	(void)f;
}

/* exit(code), exit_group(code): end the calling process with status code << 8; never returns. */
long sys_exit(SYSCALL_ARGS)
{
	task_exit(((int)a0 & 0xff) << 8);
}

static bool wait_matches(const struct task *c, int pid)
{
	if (pid == -1 || pid == 0)
		return true;            /* no process groups: 0 means any child too */
	return c->pid == (pid > 0 ? pid : -pid);
}

/*
 * wait4(pid, status, options, rusage): reap a zombie child. pid -1/0: any
 * child, > 0 that child (< -1: child -pid, no process groups). options:
 * WNOHANG; WUNTRACED/WCONTINUED accepted (nothing stops). rusage, if not
 * NULL, is zeroed. Returns the pid; 0 (WNOHANG, none exited yet);
 * -ECHILD no such child; -EINVAL bad options; -EINTR a signal arrived;
 * -EFAULT bad status/rusage pointer (the child is reaped anyway, as Linux).
 */
long sys_wait4(SYSCALL_ARGS)
{
	int pid = (int)a0, options = (int)a2;
	struct task *self = current;

	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WALL | __WCLONE))
		return -EINVAL;
	if (pid == INT32_MIN)
		return -ESRCH;
	for (;;) {
		struct task *zombie = NULL;
		bool found = false;
		struct list_head *p;
		unsigned long f = spin_lock_irqsave(&sched_lock);

		list_for_each(p, &self->children) {
			struct task *c = list_entry(p, struct task, sibling);

			if (!wait_matches(c, pid))
				continue;
			found = true;
			if (c->state == TASK_ZOMBIE) {
				zombie = c;
				break;
			}
		}
		if (zombie) {
			int status = zombie->exit_status, zpid = zombie->pid;
			long ret = zpid;

			sched_task_unlink(zombie);
			spin_unlock_irqrestore(&sched_lock, f);
			task_free(zombie);
			if (a1 && copy_to_user((void *)a1, &status, sizeof(status)))
				ret = -EFAULT;
			if (a3 && clear_user((void *)a3, RUSAGE_SIZE))
				ret = -EFAULT;
			return ret;
		}
		if (!found || (options & WNOHANG) || signal_pending(self)) {
			spin_unlock_irqrestore(&sched_lock, f);
			return !found ? -ECHILD : (options & WNOHANG) ? 0 : -EINTR;
		}
		self->state = TASK_SLEEPING;
		__schedule();
		spin_unlock_irqrestore(&sched_lock, f);
	}
}
