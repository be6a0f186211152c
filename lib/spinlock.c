/*
 * Ticket spinlocks: fair on SMP (CPUs are served in arrival order), taken with
 * interrupts disabled so an interrupt handler on the same CPU cannot deadlock
 * against the holder.
 */
#include "spinlock.h"
#include "arch.h"

void spin_init(struct spinlock *l, const char *name)
{
	l->next = 0;
	l->owner = 0;
	l->holder_cpu = -1;
	l->name = name;
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = arch_irq_save();
	unsigned cpu = arch_cpu_id();

	if (l->holder_cpu == (int)cpu)
		panic("spin_lock_irqsave: recursive acquisition of %s on cpu %u", l->name, cpu);
	uint32_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		arch_cpu_relax();
	l->holder_cpu = (int)cpu;
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	if (l->holder_cpu != (int)arch_cpu_id())
		panic("spin_unlock_irqrestore: %s released by cpu %u but held by %d",
		      l->name, arch_cpu_id(), l->holder_cpu);
	l->holder_cpu = -1;
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
	arch_irq_restore(flags);
}

bool spin_is_held(const struct spinlock *l)
{
	return l->holder_cpu == (int)arch_cpu_id();
}
