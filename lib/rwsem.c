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
 *
 * One case is not handed over: a writer's release to a writer at the
 * head. That writer is woken to take the free lock itself, and a writer
 * that is running may take it first: the woken one then goes back to the
 * head, and once it has waited RWSEM_HANDOFF_MS the next release hands
 * the lock to it. Linux does the same (a woken writer competes, and sets
 * RWSEM_FLAG_HANDOFF after 4 ms). With a hand-over every time, threads that only map and unmap
 * (malloc and free of big blocks, with faults under per-VMA locks) move
 * in lock-step: the queue serves every thread's unmap, then every
 * thread's map, so whole 2 MiB ranges empty and refill together and each
 * refill takes a huge page (threadbench malloc1 at 16 threads: 552 huge
 * pages in 8,000 operations, 45k guest instructions each; with this
 * rule 8 and 16k; docs/smp-bench.md). A writer that unmaps and maps at
 * once reuses its own hole, as on Linux.
 */
#include "rwsem.h"
#include "sleep.h"
#include "lockdep.h"
#include "lockless.h"
#include "task.h"
#include "arch.h"

/*
 * A woken writer overtaken after this long in the queue is handed the lock
 * next (Linux: 4 ms). Counted in arch_cycles; before the boot has measured
 * their rate, at once.
 */
#define RWSEM_HANDOFF_MS 4

struct rwsem_waiter {
	struct list_head link;
	struct task *task;
	bool write;
	bool compete;                   /* woken to take the free lock itself (a writer woken by a writer) */
	bool handoff;                   /* waited RWSEM_HANDOFF_MS: the next release hands the lock to it */
	uint64_t since;                 /* when it queued (arch_cycles) */
	int granted;                    /* set (under the scheduler lock) when woken */
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
/*
 * Hand the free lock to the head writer, or to the run of readers at the
 * head. A writer's release (by_writer) wakes a head writer that was not
 * overtaken yet to compete for the lock instead. wait_lock held.
 */
static void grant_locked(struct rwsem *s, bool by_writer)
{
	while (!list_empty(&s->waiters)) {
		struct rwsem_waiter *w = list_entry(s->waiters.next, struct rwsem_waiter, link);

		if (w->write && (s->readers || s->writer))
			return;
		if (!w->write && s->writer)
			return;
		list_del(&w->link);
		if (w->write && by_writer && !w->handoff) {
			w->compete = true;
			sched_wake_flag(w->task, &w->granted);
			return;
		}
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

/* The free lock to the running task for writing. wait_lock held. */
static void take_write_locked(struct rwsem *s)
{
	s->writer = true;
	s->owner = current_task();
	s->write_acquired++;
}

/*
 * Queue as a waiter and sleep until granted. A writer woken to compete
 * takes the lock if it is still free, else goes back to the head, to be
 * handed the lock at the next release. wait_lock held on entry, released.
 */
static void wait_for_grant(struct rwsem *s, bool write)
{
	struct rwsem_waiter w = { .task = current_task(), .write = write };

	list_add_tail(&w.link, &s->waiters);
	if (write) {
		w.since = arch_cycles();
		s->write_contended++;
	} else {
		s->read_contended++;
	}
	spin_unlock(&s->wait_lock);
	sched_wait_flag(&w.granted);
	while (w.compete) {
		spin_lock(&s->wait_lock);
		if (!s->writer && !s->readers) {
			take_write_locked(s);
			spin_unlock(&s->wait_lock);
			return;
		}
		w.compete = false;
		w.handoff = arch_cycles() - w.since >= RWSEM_HANDOFF_MS * arch_cycles_khz();
		w.granted = 0;
		list_add(&w.link, &s->waiters);
		spin_unlock(&s->wait_lock);
		sched_wait_flag(&w.granted);
	}
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

/*
 * The lock is free with tasks queued only while a writer woken to compete
 * has not run yet: a writer that comes then takes it (see the top).
 */
static void down_write_flags(struct rwsem *s, unsigned flags)
{
	lockdep_acquire(s, s->lclass, flags);
	spin_lock(&s->wait_lock);
	if (!s->writer && !s->readers) {
		take_write_locked(s);
		spin_unlock(&s->wait_lock);
		return;
	}
	BUG_ON(s->writer && s->owner == current_task());
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

	if (ok)
		take_write_locked(s);
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
		grant_locked(s, false);
	spin_unlock(&s->wait_lock);
}

void up_write(struct rwsem *s)
{
	lockdep_release(s, s->lclass);
	spin_lock(&s->wait_lock);
	BUG_ON(!s->writer || s->owner != current_task());
	s->writer = false;
	s->owner = NULL;
	grant_locked(s, true);
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

