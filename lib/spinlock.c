/*
 * Ticket spinlocks (include/spinlock.h): fair on SMP, in two flavours, with
 * interrupts off while held (an interrupt handler on the same CPU cannot
 * deadlock against the holder) or left alone (the waiter keeps taking IPIs).
 */
#include "spinlock.h"
#include "lockless.h"
#include "lockdep.h"
#include "arch.h"

void spin_init_class(struct spinlock *l, const char *name, unsigned c)
{
	l->next = 0;
	l->owner = 0;
	l->holder_cpu = -1;
	l->name = name;
	l->lclass = c;
}

void spin_init(struct spinlock *l, const char *name)
{
	spin_init_class(l, name, LOCK_CLASS_DEFAULT);
}

/* Take a ticket and wait for it; the caller has chosen the interrupt state. */
static void ticket_acquire(struct spinlock *l, unsigned flags)
{
	unsigned cpu = arch_cpu_id();
	uint32_t ticket;

	if (READ_ONCE(l->holder_cpu) == (int)cpu)      /* only this CPU stores its own id */
		panic("spinlock: recursive acquisition of %s on cpu %u", l->name, cpu);
	lockdep_acquire(l, l->lclass, flags);
	ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (smp_load_acquire(&l->owner) != ticket)
		arch_cpu_relax();
	WRITE_ONCE(l->holder_cpu, (int)cpu);
}

static void ticket_release(struct spinlock *l)
{
	if (l->holder_cpu != (int)arch_cpu_id())
		panic("spinlock: %s released by cpu %u but held by %d",
		      l->name, arch_cpu_id(), l->holder_cpu);
	WRITE_ONCE(l->holder_cpu, -1);
	lockdep_release(l, l->lclass);
	smp_store_release(&l->owner, l->owner + 1);
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = arch_irq_save();

	ticket_acquire(l, 0);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	ticket_release(l);
	arch_irq_restore(flags);
}

void spin_lock(struct spinlock *l)
{
	ticket_acquire(l, 0);
}

void spin_lock_nested(struct spinlock *l)
{
	ticket_acquire(l, LOCKDEP_NESTED);
}

void spin_unlock(struct spinlock *l)
{
	ticket_release(l);
}

bool spin_is_held(const struct spinlock *l)
{
	return READ_ONCE(l->holder_cpu) == (int)arch_cpu_id();  /* races as ticket_acquire's check */
}
