/*
 * The fair sleeping reader-writer semaphore (include/rwsem.h). The fast
 * paths take wait_lock for a few instructions; a task that must wait puts a
 * waiter record on its own stack into the FIFO and sleeps on the record's
 * flag (include/sleep.h). Release grants the lock to the head of the queue
 * under wait_lock and wakes the new owners; wait_lock comes before the
 * scheduler's lock in include/lock_order.h, so waking while holding it is
 * allowed. wait_lock is taken with interrupts left on (spin_lock): no
 * interrupt handler takes an rwsem, and a CPU waiting for it keeps
 * answering TLB shootdowns; the fault path's read side then costs no
 * interrupt save and restore (Linux's rwsem fast path is one atomic).
 */
#include "rwsem.h"
#include "sleep.h"
#include "lockdep.h"
#include "lockless.h"
#include "task.h"
#include "arch.h"

struct rwsem_waiter {
	struct list_head link;
	struct task *task;
	bool write;
	int granted;                    /* set (under the scheduler lock) when the lock is ours */
};

void rwsem_init(struct rwsem *s, const char *name, unsigned lclass)
{
	spin_init_class(&s->wait_lock, name, LOCK_CLASS_RWSEM);
	s->readers = 0;
	s->writer = false;
	s->owner = NULL;
	list_init(&s->waiters);
	s->lclass = lclass;
	s->read_acquired = s->write_acquired = 0;
	s->read_contended = s->write_contended = 0;
}

/* LAB smp: BEGIN rwsem */
/* Hand the free lock to the head writer, or to the run of readers at the head. wait_lock held. */
static void grant_locked(struct rwsem *s)
{
	while (!list_empty(&s->waiters)) {
		struct rwsem_waiter *w = list_entry(s->waiters.next, struct rwsem_waiter, link);

		if (w->write && (s->readers || s->writer))
			return;
		if (!w->write && s->writer)
			return;
		list_del(&w->link);
		if (w->write) {
			s->writer = true;
			s->owner = w->task;
			s->write_acquired++;
		} else {
			s->readers++;
			s->read_acquired++;
		}
		/* w lives on the waiter's stack: not touched after this call. */
		sched_wake_flag(w->task, &w->granted);
		if (s->writer)
			return;
	}
}

/* Queue as a waiter and sleep until granted. wait_lock held on entry, released. */
static void wait_for_grant(struct rwsem *s, bool write)
{
	struct rwsem_waiter w;

	w.task = current_task();
	w.write = write;
	w.granted = 0;
	list_add_tail(&w.link, &s->waiters);
	if (write)
		s->write_contended++;
	else
		s->read_contended++;
	spin_unlock(&s->wait_lock);
	sched_wait_flag(&w.granted);
}

void down_read(struct rwsem *s)
{
	lockdep_acquire(s, s->lclass, 0);
	spin_lock(&s->wait_lock);
	if (!s->writer && list_empty(&s->waiters)) {
		s->readers++;
		s->read_acquired++;
		spin_unlock(&s->wait_lock);
		return;
	}
	BUG_ON(s->writer && s->owner == current_task());
	wait_for_grant(s, false);
}

static void down_write_flags(struct rwsem *s, unsigned flags)
{
	struct task *self = current_task();

	lockdep_acquire(s, s->lclass, flags);
	spin_lock(&s->wait_lock);
	if (!s->writer && !s->readers && list_empty(&s->waiters)) {
		s->writer = true;
		s->owner = self;
		s->write_acquired++;
		spin_unlock(&s->wait_lock);
		return;
	}
	BUG_ON(s->writer && s->owner == self);
	wait_for_grant(s, true);
}

void down_write(struct rwsem *s)
{
	down_write_flags(s, 0);
}

void down_write_nested(struct rwsem *s)
{
	down_write_flags(s, LOCKDEP_NESTED);
}

bool down_read_trylock(struct rwsem *s)
{
	bool ok;

	spin_lock(&s->wait_lock);
	ok = !s->writer && list_empty(&s->waiters);

	if (ok) {
		s->readers++;
		s->read_acquired++;
	}
	spin_unlock(&s->wait_lock);
	if (ok)
		lockdep_acquire(s, s->lclass, LOCKDEP_TRY);
	return ok;
}

bool down_write_trylock(struct rwsem *s)
{
	bool ok;

	spin_lock(&s->wait_lock);
	ok = !s->writer && !s->readers && list_empty(&s->waiters);

	if (ok) {
		s->writer = true;
		s->owner = current_task();
		s->write_acquired++;
	}
	spin_unlock(&s->wait_lock);
	if (ok)
		lockdep_acquire(s, s->lclass, LOCKDEP_TRY);
	return ok;
}

void up_read(struct rwsem *s)
{
	lockdep_release(s, s->lclass);
	spin_lock(&s->wait_lock);
	BUG_ON(s->readers <= 0 || s->writer);
	if (--s->readers == 0)
		grant_locked(s);
	spin_unlock(&s->wait_lock);
}

void up_write(struct rwsem *s)
{
	lockdep_release(s, s->lclass);
	spin_lock(&s->wait_lock);
	BUG_ON(!s->writer || s->owner != current_task());
	s->writer = false;
	s->owner = NULL;
	grant_locked(s);
	spin_unlock(&s->wait_lock);
}
/* LAB smp: END rwsem */

/*
 * A writer's hold is short next to what a sleep costs (a context switch
 * away, a wake-up IPI, a switch back), so while the holder runs the
 * waiter spins (pause: a hyperthread sibling or a vCPU's turn goes on).
 * It stops, and the caller's down_* takes the lock or queues as before,
 * when: the lock has no writer (free, or readers only: they have no
 * owner to watch), the holder is not running (it sleeps with the lock
 * held), a task sleeps in the queue (the FIFO order stays theirs: a
 * spinner only ever goes before tasks that came after it), or this CPU
 * must run something else (need_resched). Everything is read without
 * wait_lock: a stale read costs one more turn, and the owner is only
 * compared (sched_task_running), never read through.
 */
void rwsem_spin_on_writer(struct rwsem *s)
{
	struct task *self = current_task();

	for (;;) {
		struct task *owner = READ_ONCE(s->owner);

		if (!READ_ONCE(s->writer) || !owner || owner == self)
			return;
		if (READ_ONCE(s->waiters.next) != &s->waiters || !sched_task_running(owner))
			return;
		if (READ_ONCE(self->need_resched))
			return;
		arch_cpu_relax();
	}
}

/* Without wait_lock: races with lock and unlock on other CPUs (a hint, or an assertion by a holder). */
bool rwsem_is_locked(const struct rwsem *s)
{
	return READ_ONCE(s->writer) || READ_ONCE(s->readers) > 0;
}

bool rwsem_is_write_locked_by_me(const struct rwsem *s)
{
	/* Without wait_lock: only this task makes it true or false for itself. */
	return READ_ONCE(s->writer) && READ_ONCE(s->owner) == current_task();
}
