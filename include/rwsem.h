/*
 * A sleeping, fair reader-writer semaphore (lib/rwsem.c): the mmap_lock.
 *
 * Fair means first come, first served: a task that cannot have the lock at
 * once joins one FIFO queue, readers and writers alike, and a reader that
 * arrives while anyone waits queues behind them (so a waiting writer is
 * never starved by a stream of readers, nor readers by writers). Release
 * hands the lock over: the queue's head writer, or the run of readers at
 * its head, are given the lock (the counts are updated on their behalf)
 * and woken; a woken task owns the lock when it returns. Except a
 * writer's release to a writer at the head: that writer is woken to take
 * the lock itself, a running writer may take it first, and once the
 * woken one has waited RWSEM_HANDOFF_MS (4 ms, as Linux) a release hands
 * it over (lib/rwsem.c says why).
 *
 * Not recursive, in either mode. The holder may sleep. Callers hold no
 * spinning lock when they take it (the lock-order checker says so).
 */
#ifndef RWSEM_H
#define RWSEM_H

#include "spinlock.h"
#include "list.h"
#include "lockless.h"
#include "sleep.h"

struct task;

/* The lock-order checker knows the rwsem by its address, its wait_lock by the lock's (not the first field). */
struct rwsem {
	int readers;                    /* [wait_lock] tasks holding it for reading */
	bool writer;                    /* [wait_lock] a task holds it for writing */
	struct task *owner;             /* [wait_lock] that task (assertions), NULL when none */
	struct list_head waiters;       /* [wait_lock] FIFO of struct rwsem_waiter */
	unsigned lclass;                /* the lock's own class (include/lock_order.h) */
	struct spinlock wait_lock;      /* protects the fields tagged [wait_lock] (class RWSEM) */
	/* Statistics, [wait_lock]: acquisitions, and those that had to wait. */
	unsigned long read_acquired, write_acquired;
	unsigned long read_contended, write_contended;
};

/* rwsem_init: unlocked, with lock class lclass (a sleeping class). */
void rwsem_init(struct rwsem *s, const char *name, unsigned lclass);
/* down_read / down_write: take s, sleeping while others have it or wait before us. */
void down_read(struct rwsem *s);
void down_write(struct rwsem *s);
/* down_write_nested: down_write of a second rwsem of a class already held (fork's two mms). */
void down_write_nested(struct rwsem *s);
/* Take s only if that needs no wait: true when taken. */
bool down_read_trylock(struct rwsem *s);
bool down_write_trylock(struct rwsem *s);
void up_read(struct rwsem *s);
void up_write(struct rwsem *s);
/* Someone holds s (either mode) / the running task holds it for writing. */
/*
 * rwsem_spin_on_owner: before taking s, wait spinning while a writer that
 * is running on a CPU holds it and no task sleeps in its queue (Linux's
 * optimistic spinning, simplified: lib/rwsem.c says when it stops). The
 * caller then takes s as usual. A task that may sleep, holding no
 * spinning lock. Inline: a lock without a writer costs one load.
 */
void rwsem_spin_on_writer(struct rwsem *s);
static inline void rwsem_spin_on_owner(struct rwsem *s)
{
	if (READ_ONCE(s->writer))
		rwsem_spin_on_writer(s);
}
/* Inline: the mmap_lock's assertions (every VMA lookup, every mark) call them. */
static inline bool rwsem_is_locked(const struct rwsem *s)
{
	/* Without wait_lock: races with lock and unlock on other CPUs (a hint, or an assertion by a holder). */
	return READ_ONCE(s->writer) || READ_ONCE(s->readers) > 0;
}

static inline bool rwsem_is_write_locked_by_me(const struct rwsem *s)
{
	/* Without wait_lock: only this task makes it true or false for itself. */
	return READ_ONCE(s->writer) && READ_ONCE(s->owner) == current_task();
}

#endif
