/*
 * Spinlocks, correct on SMP: a ticket lock that saves and restores the
 * interrupt state. Lock order and the data each lock protects are documented
 * where the lock is declared.
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include "kernel.h"

struct spinlock {
	volatile uint32_t next;     /* next ticket to hand out */
	volatile uint32_t owner;    /* ticket now being served */
	int holder_cpu;             /* CPU holding it, -1 when free (for assertions) */
	const char *name;
};

#define SPINLOCK_INIT(n) { 0, 0, -1, (n) }

void spin_init(struct spinlock *l, const char *name);
/* Acquire l with interrupts disabled; returns the previous interrupt state for spin_unlock_irqrestore. */
unsigned long spin_lock_irqsave(struct spinlock *l);
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);
/* True when the running CPU holds l. */
bool spin_is_held(const struct spinlock *l);

#define assert_spin_held(l) BUG_ON(!spin_is_held(l))

#endif
