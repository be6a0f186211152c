/*
 * Thread groups (CLONE_THREAD) and shared signal actions (CLONE_SIGHAND):
 * Linux's signal_struct and sighand_struct, include/task.h.
 *
 * Every user task has a group and a sighand from task_alloc; clone with
 * CLONE_THREAD joins the parent's group instead (same process id, no
 * parent link: a thread is nobody's child), CLONE_SIGHAND shares the
 * parent's actions. A thread that exits leaves the group's live count
 * first (the last one to leave fixes the group's status: the exit_group
 * status, the fatal signal, or, as Linux reports it, the exit status of
 * the thread that left last), and the unreleased count at the end of its
 * exit, once it has let go of the address space; the last one to leave
 * that, with the leader a zombie, makes the leader reapable and tells the
 * leader's parent, so that a wait4 that returns finds the memory free.
 * Threads other than the leader are reaped by the kernel at their end:
 * unlinked, and freed by the next task on their CPU right after the
 * switch away from them (thread_release_dead_locked, kernel/sched/sched.c), so
 * nothing of a thread is left once wait4 has reported its process.
 *
 * exit_group (and a fatal signal, which ends the whole process) marks the
 * group exiting and sends SIGKILL to every other thread: a sleeping thread
 * wakes (interruptible sleeps end with -EINTR), a running one is
 * interrupted by an IPI, and each exits on its way back to user mode.
 *
 * execve in a multi-threaded process (Linux de_thread): the execing thread
 * ends the others the same way, waits until it is the last one alive, and,
 * when it is not the leader, takes the leader's place: the process id as
 * its thread id, the leader's parent and place among that parent's
 * children; the old leader, a zombie by then, gets the execing thread's
 * old id and is freed like any other exited thread. If the signal actions
 * are still shared then (CLONE_SIGHAND without CLONE_THREAD), the execing
 * task gets its own copy first (Linux's unshare_sighand), so that the
 * reset of handled signals to SIG_DFL does not touch the other process.
 *
 * The children of a thread are the process's: when the thread exits they
 * go to a live thread of its group (kernel/task/exit.c), and wait4 in any
 * thread reaps the children of every thread, so a child's end wakes every
 * thread of its parent's group (thread_group_wake_waiters_locked).
 * Everything here runs under sched_lock.
 */
#include "task.h"
#include "lockless.h"
#include "sched_internal.h"
#include "signal.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"

int thread_group_init(struct task *t)
{
	t->sighand = kzalloc(sizeof(*t->sighand));
	t->group = kzalloc(sizeof(*t->group));
	if (!t->sighand || !t->group) {
		kfree(t->sighand);
		kfree(t->group);
		t->sighand = NULL;
		t->group = NULL;
		return -ENOMEM;
	}
	t->sighand->refs = 1;
	t->group->refs = 1;
	t->group->live = 1;
	t->group->unreleased = 1;
	t->group->leader = t;
	sigpending_init(&t->group->pending);
	list_init(&t->group->threads);
	list_add_tail(&t->group_link, &t->group->threads);
	return 0;
}

int thread_group_share(struct task *child, struct task *parent, bool sighand, bool thread)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	if (thread && parent->group->exiting) {
		spin_unlock_irqrestore(&sched_lock, f);
		return -EINTR;          /* the SIGKILLs went out already: a new thread would escape them */
	}
	if (sighand) {
		kfree(child->sighand);
		child->sighand = parent->sighand;
		child->sighand->refs++;
	}
	if (thread) {
		list_del(&child->group_link);
		kfree(child->group);
		child->group = parent->group;
		child->group->refs++;
		child->group->live++;
		child->group->unreleased++;
		list_add_tail(&child->group_link, &child->group->threads);
		child->pid = parent->pid;
	}
	spin_unlock_irqrestore(&sched_lock, f);
	return 0;
}

void thread_group_put_locked(struct task *t)
{
	assert_spin_held(&sched_lock);
	sigpending_flush(&t->sig.pending);     /* the task goes: its queued signals with it */
	if (t->sighand && --t->sighand->refs == 0)
		kfree(t->sighand);
	if (t->group) {
		cputime_thread_gone_locked(t);  /* its time stays the process's */
		list_del(&t->group_link);
		if (--t->group->refs == 0) {
			sigpending_flush(&t->group->pending);
			kfree(t->group);
		}
	}
	t->sighand = NULL;
	t->group = NULL;
}

void thread_group_put(struct task *t)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	thread_group_put_locked(t);
	spin_unlock_irqrestore(&sched_lock, f);
}

bool thread_group_exiting(const struct task *t)
{
	return t->group && smp_load_acquire(&t->group->exiting);
}

struct task *thread_group_leader(const struct task *t)
{
	return t->group ? t->group->leader : (struct task *)t;
}

/*
 * Not merely live == 0: the last thread leaves the live count first thing
 * in task_exit and gives the leader the group's status only at its end
 * (thread_end_locked, which sets notified); a wait4 in between took the
 * leader with the status of its own exit (kill after the main thread's
 * exit(4) reported exit 4, not SIGTERM).
 */
bool task_reapable(const struct task *t)
{
	return t->state == TASK_ZOMBIE && (!t->group || t->group->notified);
}

/* SIGKILL to every thread of g but self that has not exited yet. sched_lock held. */
static void kill_other_threads_locked(struct thread_group *g, struct task *self)
{
	struct list_head *p;

	list_for_each(p, &g->threads) {
		struct task *u = list_entry(p, struct task, group_link);

		if (u != self && u->state != TASK_ZOMBIE)
			send_signal_info_locked(u, &(struct k_siginfo){ .si_signo = SIGKILL, .si_code = SI_KERNEL },
						false);
	}
}

void group_exit(int status)
{
	struct task *self = current;
	struct thread_group *g = self->group;
	unsigned long f = spin_lock_irqsave(&sched_lock);

	if (g->exiting) {
		status = g->exit_status;        /* the first exit_group or fatal signal decides */
	} else {
		smp_store_release(&g->exiting, true);
		g->exit_status = status;
		kill_other_threads_locked(g, self);
	}
	spin_unlock_irqrestore(&sched_lock, f);
	task_exit(status);
}

struct task *thread_group_alive_sibling_locked(const struct task *t)
{
	struct list_head *p;

	assert_spin_held(&sched_lock);
	if (!t->group)
		return NULL;
	list_for_each(p, &t->group->threads) {
		struct task *u = list_entry(p, struct task, group_link);

		if (u != t && u->state != TASK_ZOMBIE)
			return u;
	}
	return NULL;
}

void thread_group_wake_waiters_locked(struct task *t)
{
	struct list_head *p;

	assert_spin_held(&sched_lock);
	if (!t->group) {
		wake_up_locked(&t->child_wait);
		return;
	}
	list_for_each(p, &t->group->threads)
		wake_up_locked(&list_entry(p, struct task, group_link)->child_wait);
}

/* self (the last live thread) becomes its group's leader in place of the zombie old. sched_lock held. */
static void take_leader_place_locked(struct task *self, struct task *old)
{
	int tid = self->tid;

	self->tid = old->tid;                   /* the process id */
	old->tid = tid;
	self->parent = old->parent;
	old->parent = NULL;
	list_add(&self->sibling, &old->sibling);        /* old's place among its parent's children */
	list_del(&old->sibling);
	self->exit_signal = SIGCHLD;            /* as Linux's de_thread */
	self->pgid = old->pgid;
	self->sid = old->sid;
	self->group->leader = self;
	if (init_task == old)
		init_task = self;       /* kernel/task/init.c waits for pid 1's leader */
	thread_release_dead_locked(old);
}

/*
 * Every other thread of g has ended (a zombie: parked for freeing, or the
 * old leader). The live count alone is not enough: a thread leaves it
 * first thing in task_exit and stays findable by tgkill until its end, and
 * Linux's execve returns only once the others are gone.
 */
static bool exec_alone(struct thread_group *g, struct task *self)
{
	struct list_head *p;
	bool alone = true;
	unsigned long f = spin_lock_irqsave(&sched_lock);

	list_for_each(p, &g->threads) {
		struct task *u = list_entry(p, struct task, group_link);

		if (u != self && u->state != TASK_ZOMBIE)
			alone = false;
	}
	spin_unlock_irqrestore(&sched_lock, f);
	return alone;
}

/*
 * Give self its own copy of the signal actions when another task shares
 * them (CLONE_SIGHAND without CLONE_THREAD, or threads not yet freed), as
 * Linux's unshare_sighand in de_thread: execve then resets the handled
 * signals to SIG_DFL in the copy only. spare: a zeroed sighand, taken
 * (*spare = NULL) when used. sched_lock held.
 */
static void unshare_sighand_locked(struct task *self, struct sighand **spare)
{
	struct sighand *old = self->sighand;

	assert_spin_held(&sched_lock);
	if (old->refs == 1)
		return;
	memcpy((*spare)->action, old->action, sizeof(old->action));
	(*spare)->refs = 1;
	old->refs--;
	self->sighand = *spare;
	*spare = NULL;
}

int thread_group_exec(void)
{
	struct task *self = current;
	struct thread_group *g = self->group;
	struct sighand *spare = kzalloc(sizeof(*spare));   /* before anything: nothing to undo */
	unsigned long f;

	if (!spare)
		return -ENOMEM;
	f = spin_lock_irqsave(&sched_lock);
	if (g->exiting) {
		spin_unlock_irqrestore(&sched_lock, f);
		kfree(spare);
		return -EAGAIN;                 /* exit_group or another execve first: this thread dies */
	}
	if (g->live == 1 && g->leader == self) {
		unshare_sighand_locked(self, &spare);
		spin_unlock_irqrestore(&sched_lock, f);
		kfree(spare);
		return 0;
	}
	g->exec_task = self;
	smp_store_release(&g->exiting, true);
	g->exit_status = SIGKILL;
	kill_other_threads_locked(g, self);
	spin_unlock_irqrestore(&sched_lock, f);
	wait_event(&self->child_wait, exec_alone(g, self));  /* woken by each thread's end */
	f = spin_lock_irqsave(&sched_lock);
	g->exec_task = NULL;
	smp_store_release(&g->exiting, false);
	if (g->leader != self)
		take_leader_place_locked(self, g->leader);
	unshare_sighand_locked(self, &spare);
	spin_unlock_irqrestore(&sched_lock, f);
	kfree(spare);
	return 0;
}

bool thread_group_leave_locked(struct task *t, int *status)
{
	struct thread_group *g = t->group;

	assert_spin_held(&sched_lock);
	if (!g)
		return true;
	if (g->exiting)
		*status = g->exit_status;
	else
		g->exit_status = *status;       /* without a group exit the last thread's status counts (Linux) */
	if (--g->live > 0)
		return false;
	*status = g->exit_status;
	return true;
}

void thread_release_dead_locked(struct task *t)
{
	assert_spin_held(&sched_lock);
	sched_task_unlink(t);
	if (t->on_cpu)
		t->free_at_switch = true;       /* the end of its task_exit: its stack is in use */
	else
		task_free_locked(t);            /* off its CPU for good: switched away under sched_lock */
}
