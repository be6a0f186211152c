/*
 * The end of processes: exit and wait4 (Linux status encoding: exit code
 * << 8, or the number of the signal that killed it). A thread's children
 * go to another live thread of its process, the last thread's to init
 * (kernel/task/init.c); a zombie is freed by the wait4 that reaps it, which any
 * thread of the parent process may call.
 */
#include "task.h"
#include "fs.h"
#include "sched_internal.h"
#include "syscall_internal.h"
#include "uaccess.h"
#include "signal.h"
#include "mm.h"
#include "arch.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"
#include "file.h"
#include "uapi/linux_wait.h"



/* The process a task belongs to is the child of its leader's parent (a thread is nobody's child). */
static struct task *process_parent(const struct task *t)
{
	return t->group ? t->group->leader->parent : t->parent;
}

/*
 * A live thread of t's nearest ancestor process that asked for its
 * descendants' orphans (PR_SET_CHILD_SUBREAPER) and is not exiting, or
 * NULL (Linux's find_new_reaper). sched_lock held.
 */
static struct task *subreaper_locked(const struct task *t)
{
	for (struct task *a = process_parent(t); a && a != init_task && a != &idle_task; a = process_parent(a)) {
		const struct thread_group *g = a->group;

		if (g && g->child_subreaper && !g->exiting && g->live > 0)
			return a->state != TASK_ZOMBIE ? a : thread_group_alive_sibling_locked(a);
	}
	return NULL;
}

/*
 * Give t's children to a live thread of its process (Linux reparents within
 * the thread group), else to the nearest subreaper, else to init (or to the
 * idle task when init itself is going). sched_lock held.
 */
static void reparent_children(struct task *t)
{
	struct list_head *p, *tmp;
	struct task *to = thread_group_alive_sibling_locked(t);

	assert_spin_held(&sched_lock);
	if (!to)
		to = subreaper_locked(t);
	if (!to)
		to = init_task && t != init_task && init_task->state != TASK_ZOMBIE ? init_task : &idle_task;
	list_for_each_safe(p, tmp, &t->children) {
		struct task *c = list_entry(p, struct task, sibling);

		list_del(&c->sibling);
		c->parent = to;
		list_add_tail(&c->sibling, &to->children);
		if (c->state == TASK_ZOMBIE)
			thread_group_wake_waiters_locked(to);
	}
}

/* The exit signal (SIGCHLD for fork) of process leader to its parent, with Linux's siginfo. sched_lock held. */
static void notify_parent_locked(struct task *leader, int status)
{
	struct k_siginfo info;

	if (!leader->parent || leader->parent == &idle_task || !leader->exit_signal)
		return;
	memset(&info, 0, sizeof(info));
	info.si_signo = leader->exit_signal;
	info.si_code = (status & 0x7f) ? CLD_KILLED : CLD_EXITED;
	info.chld.pid = leader->pid;
	info.chld.status = (status & 0x7f) ? (status & 0x7f) : (status >> 8) & 0xff;
	send_signal_info_locked(leader->parent, &info, true);
}

/*
 * The end of t's thread, which has left its group's live count already
 * and released its address space (task_exit): a zombie now; once every
 * thread has come here (the unreleased count is 0: the last thread to
 * leave the live count may come here after the leader) and the leader is
 * a zombie, the leader gets the group's status and the parent is told,
 * once: wait4 must not return while a thread still holds the memory.
 * Another thread than the leader is parked for the kernel to free.
 * sched_lock held.
 */
static void thread_end_locked(struct task *t, int status)
{
	struct task *leader = thread_group_leader(t);
	struct thread_group *g = t->group;

	reparent_children(t);
	t->exit_status = status;
	t->state = TASK_ZOMBIE;
	if (g)
		g->unreleased--;
	if (g && g->exec_task)
		wake_up_locked(&g->exec_task->child_wait);      /* de_thread waits for the others' ends */
	if (leader->state == TASK_ZOMBIE && (!g || (g->unreleased == 0 && !g->notified))) {
		if (g) {
			g->notified = true;
			leader->exit_status = g->exit_status;
		}
		notify_parent_locked(leader, leader->exit_status);
		if (leader->parent)
			thread_group_wake_waiters_locked(leader->parent);
	}
	if (t != leader)
		thread_release_dead_locked(t);
}

/* The user-memory side of a thread's end (Linux mm_release): robust futexes, then the child-tid word. */
static void release_user_words(struct task *t)
{
	if (!t->mm)
		return;
	futex_exit_robust_list(t);
	if (t->clear_child_tid && t->mm->users > 1) {      /* Linux: only a shared mm */
		uint32_t zero = 0;

		if (!copy_to_user((void *)t->clear_child_tid, &zero, sizeof(zero)))
			futex_wake_address(t->clear_child_tid, 1);
	}
}

void task_exit(int status)
{
	struct task *t = current;
	unsigned long f;

	arch_irq_enable();
	/* Leave the live count first, as Linux: the child-tid wake-up below may let the last thread go. */
	f = spin_lock_irqsave(&sched_lock);
	thread_group_leave_locked(t, &status);
	spin_unlock_irqrestore(&sched_lock, f);
	release_user_words(t);
	task_exit_timers(t);
	vfork_release(t);
	fdtable_put(t->fdt);
	t->fdt = NULL;
	if (t->cwd)
		dput(t->cwd);
	if (t->exe)
		dput(t->exe);
	t->cwd = t->exe = NULL;
	if (t->mm) {
		mm_activate(NULL);
		mm_leave(task_set_mm(t, NULL));  /* (a kernel thread ends in kthread_exit, its mm given back) */
	}
	f = spin_lock_irqsave(&sched_lock);
	thread_end_locked(t, status);
	__schedule();
	panic("task_exit: zombie %d ran again", t->pid);
	(void)f;
}

/* exit(code): end the calling thread (the process with its last thread) with status code << 8. */
long sys_exit(SYSCALL_ARGS)
{
	task_exit(((int)a0 & 0xff) << 8);
}

/* exit_group(code): end every thread of the calling process with status code << 8; never returns. */
long sys_exit_group(SYSCALL_ARGS)
{
	group_exit(((int)a0 & 0xff) << 8);
}

/* pid -1: any child; 0: one in the caller's process group; < -1: one in group -pid; > 0: that one. */
static bool wait_matches(const struct task *c, int pid)
{
	if (pid == -1)
		return true;
	if (pid == 0)
		return c->pgid == current->pgid;
	return pid > 0 ? c->pid == pid : c->pgid == -pid;
}

/*
 * A reapable child of thread t matching pid, unlinked from the task list
 * (NULL if none); *found set when some child matches. sched_lock held.
 */
static struct task *take_zombie_of(struct task *t, int pid, bool *found)
{
	struct list_head *p;

	list_for_each(p, &t->children) {
		struct task *c = list_entry(p, struct task, sibling);

		if (!wait_matches(c, pid))
			continue;
		*found = true;
		if (task_reapable(c)) {
			sched_task_unlink(c);
			return c;
		}
	}
	return NULL;
}

/* A reaped child's CPU time, its reaped children's included (wait4's rusage). */
struct reaped_time {
	uint64_t user_ns, sys_ns;
};

/*
 * A zombie child of the caller's process (of the calling thread only with
 * __WNOTHREAD) matching pid, unlinked (NULL if none), its time counted in
 * the caller's children's and in *rt; *found: some child matches.
 */
static struct task *take_zombie(struct task *self, int pid, int options, bool *found, struct reaped_time *rt)
{
	struct list_head *p;
	struct task *zombie = NULL;
	unsigned long f = spin_lock_irqsave(&sched_lock);

	*found = false;
	if ((options & __WNOTHREAD) || !self->group) {
		zombie = take_zombie_of(self, pid, found);
	} else {
		list_for_each(p, &self->group->threads) {
			zombie = take_zombie_of(list_entry(p, struct task, group_link), pid, found);
			if (zombie)
				break;
		}
	}
	if (zombie)
		cputime_reaped_locked(self, zombie, &rt->user_ns, &rt->sys_ns);    /* RUSAGE_CHILDREN counts it from now */
	spin_unlock_irqrestore(&sched_lock, f);
	return zombie;
}

/*
 * wait4(pid, status, options, rusage): reap a zombie child of any thread
 * of the caller's process (__WNOTHREAD: of the caller). pid -1: any
 * child, 0: one in the caller's group, < -1: one in group -pid, > 0 that child. options:
 * WNOHANG; WUNTRACED/WCONTINUED accepted (nothing stops). rusage, if not
 * NULL: the child's CPU times, its reaped children's included (Linux's
 * RUSAGE_BOTH), the rest 0. Returns the pid; 0 (WNOHANG, none exited yet);
 * -ECHILD no such child; -EINVAL bad options; -EINTR a signal arrived;
 * -EFAULT bad status/rusage pointer (the child is reaped anyway, as Linux).
 */
long sys_wait4(SYSCALL_ARGS)
{
	int pid = (int)a0, options = (int)a2;
	struct task *self = current, *zombie = NULL;
	struct reaped_time rt;
	bool found;
	long r;

	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WALL | __WCLONE))
		return -EINVAL;
	if (pid == INT32_MIN)
		return -ESRCH;
	found = true;
	r = wait_event_interruptible(&self->child_wait,
				     (zombie = take_zombie(self, pid, options, &found, &rt)) || !found || (options & WNOHANG));
	if (zombie) {
		int status = zombie->exit_status;
		long ret = zombie->pid;

		task_free(zombie);
		procfs_forget((int)ret);
		if (a1 && copy_to_user((void *)a1, &status, sizeof(status)))
			ret = -EFAULT;
		if (a3 && rusage_times_to_user((void *)a3, rt.user_ns, rt.sys_ns))
			ret = -EFAULT;
		return ret;
	}
	if (!found)
		return -ECHILD;
	return (options & WNOHANG) ? 0 : r;
}
