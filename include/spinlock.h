/*
 * Spinlocks, correct on SMP: test-and-test-and-set locks (whichever waiting
 * CPU sees the lock free first takes it; no arrival order). Each lock has a
 * class of include/lock_order.h, which the lock-order checker
 * (include/lockdep.h) enforces.
 *
 * Why not tickets (fair, and what this kernel had): a guest CPU is a host
 * thread, which a loaded host deschedules for milliseconds. A ticket lock
 * hands the lock to the next CPU in line even when that CPU is not
 * running, and every CPU behind it spins until it runs again (waiter
 * preemption); here the lock goes to a CPU that is running. Linux does the
 * same in guests without paravirtual spinlocks (virt_spin_lock).
 *
 * Two ways to take one:
 *   spin_lock_irqsave / spin_unlock_irqrestore: interrupts off while held
 *     (and while waiting), for locks an interrupt handler may take too;
 *   spin_lock / spin_unlock: interrupts left as they are, for locks only
 *     taken outside interrupt handlers. A CPU waiting for such a lock keeps
 *     answering IPIs (TLB shootdowns), which is why the page-table lock is
 *     one. The kernel is not preempted, so a holder keeps its CPU.
 * The data each lock protects is documented where the lock is declared.
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include "kernel.h"
#include "lock_order.h"
#include "arch.h"
#include "lockless.h"

struct spinlock {
	uint32_t locked;            /* [atomic] 1 while held */
	int holder_cpu;             /* CPU holding it, -1 when free (for assertions; read lockless) */
	const char *name;
	unsigned lclass;            /* enum lock_class */
};

#define SPINLOCK_INIT(n) { 0, -1, (n), LOCK_CLASS_DEFAULT }
#define SPINLOCK_INIT_CLASS(n, c) { 0, -1, (n), (c) }

/* spin_init: an unlocked lock of class LOCK_CLASS_DEFAULT; spin_init_class: of class c. */
void spin_init(struct spinlock *l, const char *name);
void spin_init_class(struct spinlock *l, const char *name, unsigned c);
/* Acquire l with interrupts disabled; returns the previous interrupt state for spin_unlock_irqrestore. */
#ifdef LOCKDEP
unsigned long spin_lock_irqsave(struct spinlock *l);
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);
#endif
/*
 * spin_lock / spin_unlock: acquire / release l leaving the interrupt state
 * alone (l is never taken by an interrupt handler). spin_trylock: take l
 * if it is free now, without waiting; whether it did. A fast path that
 * must not wait in place (a call there costs its caller saved registers)
 * tries, and on failure hands over to a slow path that takes the lock
 * with spin_lock.
 */
#ifdef LOCKDEP
void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
bool spin_trylock(struct spinlock *l);
#else
/*
 * Without the lock checker the free lock's path is inline (one exchange,
 * two stores); lib/spinlock.c has the rest: a recursive acquisition
 * (panic), waiting, a release by the wrong CPU (panic).
 */
void spin_lock_wait(struct spinlock *l, unsigned cpu);
__noreturn void spin_unlock_bad(struct spinlock *l);

static inline void spin_lock(struct spinlock *l)
{
	unsigned cpu = arch_cpu_id();

	if (__builtin_expect(READ_ONCE(l->holder_cpu) == (int)cpu ||
			     __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE), 0))
		spin_lock_wait(l, cpu);
	WRITE_ONCE(l->holder_cpu, (int)cpu);
}

static inline void spin_unlock(struct spinlock *l)
{
	if (__builtin_expect(l->holder_cpu != (int)arch_cpu_id(), 0))
		spin_unlock_bad(l);
	WRITE_ONCE(l->holder_cpu, -1);
	smp_store_release(&l->locked, 0);
}

static inline bool spin_trylock(struct spinlock *l)
{
	if (READ_ONCE(l->locked) || __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		return false;
	WRITE_ONCE(l->holder_cpu, (int)arch_cpu_id());
	return true;
}

static inline unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = arch_irq_save();

	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	spin_unlock(l);
	arch_irq_restore(flags);
}
#endif
/* spin_lock_nested: spin_lock of a second lock of a class already held, on purpose. */
void spin_lock_nested(struct spinlock *l);
/* True when the running CPU holds l. */
bool spin_is_held(const struct spinlock *l);
/* True when some CPU holds l (a snapshot, sequentially consistent with the caller's atomics). */
static inline bool spin_is_locked(const struct spinlock *l)
{
	return __atomic_load_n(&l->locked, __ATOMIC_SEQ_CST) != 0;
}

#define assert_spin_held(l) BUG_ON(!spin_is_held(l))

#endif
