/*
 * LAB smp, part 1: this is a plain exclusive sleeping lock, not yet a
 * reader-writer semaphore. Both modes exclude everyone else (a reader
 * holds it alone: readers = 1), and a task that finds it taken sleeps on
 * the waiter list until a release wakes every waiter; the woken tasks then
 * race for the lock, and any task that arrives meanwhile may take it first
 * (barging). The kernel works, one fault or mmap at a time per address
 * space.
 *
 * Make it the fair rwsem include/rwsem.h describes: readers share it; a
 * task that cannot have it at once joins the FIFO (a reader too, when
 * anyone waits, so a waiting writer is not starved); the release hands the
 * lock over, under wait_lock: to the head writer, or to the whole run of
 * readers at the head, counting them as holders before it wakes them, so
 * a woken task already owns the lock and nobody can barge in between;
 * except a writer's release to a head writer, which wakes it to compete
 * and hands over only once it has waited RWSEM_HANDOFF_MS. The
 * statistics stay as they are: *_acquired per acquisition, *_contended
 * once per acquisition that had to wait (the tests watch them).
 * docs/labs/smp.md.
 */

/* Take s in the given mode if nobody holds it. wait_lock held. */
static bool take_if_free(struct rwsem *s, bool write)
{
	if (s->writer || s->readers)
		return false;
	if (write) {
		s->writer = true;
		s->owner = current_task();
		s->write_acquired++;
	} else {
		s->readers = 1;
		s->read_acquired++;
	}
	return true;
}

/* Sleep on the waiter list until a release wakes us. wait_lock held on entry, released. */
static void wait_for_release(struct rwsem *s, bool write, unsigned long fl)
{
	struct rwsem_waiter w;

	w.task = current_task();
	w.write = write;
	w.granted = 0;
	list_add_tail(&w.link, &s->waiters);
	spin_unlock_irqrestore(&s->wait_lock, fl);
	sched_wait_flag(&w.granted);
}

/* Wake every waiter; they try again. wait_lock held. */
static void wake_all(struct rwsem *s)
{
	while (!list_empty(&s->waiters)) {
		struct rwsem_waiter *w = list_entry(s->waiters.next, struct rwsem_waiter, link);

		list_del(&w->link);
		/* w lives on the waiter's stack: not touched after this call. */
		sched_wake_flag(w->task, &w->granted);
	}
}

static void lock_exclusive(struct rwsem *s, bool write, unsigned flags)
{
	bool waited = false;

	lockdep_acquire(s, s->lclass, flags);
	for (;;) {
		unsigned long fl = spin_lock_irqsave(&s->wait_lock);

		if (take_if_free(s, write)) {
			spin_unlock_irqrestore(&s->wait_lock, fl);
			return;
		}
		BUG_ON(s->writer && s->owner == current_task());
		if (!waited) {
			waited = true;
			if (write)
				s->write_contended++;
			else
				s->read_contended++;
		}
		wait_for_release(s, write, fl);
	}
}

void down_read(struct rwsem *s)
{
	lock_exclusive(s, false, 0);
}

void down_write(struct rwsem *s)
{
	lock_exclusive(s, true, 0);
}

void down_write_nested(struct rwsem *s)
{
	lock_exclusive(s, true, LOCKDEP_NESTED);
}

static bool trylock(struct rwsem *s, bool write)
{
	unsigned long fl = spin_lock_irqsave(&s->wait_lock);
	bool ok = take_if_free(s, write);

	spin_unlock_irqrestore(&s->wait_lock, fl);
	if (ok)
		lockdep_acquire(s, s->lclass, LOCKDEP_TRY);
	return ok;
}

bool down_read_trylock(struct rwsem *s)
{
	return trylock(s, false);
}

bool down_write_trylock(struct rwsem *s)
{
	return trylock(s, true);
}

void up_read(struct rwsem *s)
{
	unsigned long fl;

	lockdep_release(s, s->lclass);
	fl = spin_lock_irqsave(&s->wait_lock);
	BUG_ON(s->readers != 1 || s->writer);
	s->readers = 0;
	wake_all(s);
	spin_unlock_irqrestore(&s->wait_lock, fl);
}

void up_write(struct rwsem *s)
{
	unsigned long fl;

	lockdep_release(s, s->lclass);
	fl = spin_lock_irqsave(&s->wait_lock);
	BUG_ON(!s->writer || s->owner != current_task());
	s->writer = false;
	s->owner = NULL;
	wake_all(s);
	spin_unlock_irqrestore(&s->wait_lock, fl);
}
