/*
 * Test-and-test-and-set spinlocks (include/spinlock.h says why not tickets),
 * in two flavours, with
 * interrupts off while held (an interrupt handler on the same CPU cannot
 * deadlock against the holder) or left alone (the waiter keeps taking IPIs).
 */
#include "spinlock.h"
#include "lockless.h"
#include "lockdep.h"
#include "arch.h"

void spin_init_class(struct spinlock *l, const char *name, unsigned c)
{
	l->locked = 0;
	l->holder_cpu = -1;
	l->name = name;
	l->lclass = c;
}

void spin_init(struct spinlock *l, const char *name)
{
	spin_init_class(l, name, LOCK_CLASS_DEFAULT);
}

/*
 * Take l: one atomic exchange when it is free; else wait reading it (the
 * cache line stays shared while it is held) and try again when it looks
 * free. The caller has chosen the interrupt state.
 */
static void lock_acquire(struct spinlock *l, unsigned flags)
{
	unsigned cpu = arch_cpu_id();

	if (READ_ONCE(l->holder_cpu) == (int)cpu)      /* only this CPU stores its own id */
		panic("spinlock: recursive acquisition of %s on cpu %u", l->name, cpu);
	lockdep_acquire(l, l->lclass, flags);
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (READ_ONCE(l->locked))
			arch_cpu_relax();
	WRITE_ONCE(l->holder_cpu, (int)cpu);
}

#ifdef LOCKDEP
static void lock_release(struct spinlock *l)
{
	if (l->holder_cpu != (int)arch_cpu_id())
		panic("spinlock: %s released by cpu %u but held by %d",
		      l->name, arch_cpu_id(), l->holder_cpu);
	WRITE_ONCE(l->holder_cpu, -1);
	lockdep_release(l, l->lclass);
	smp_store_release(&l->locked, 0);
}
#endif

#ifdef LOCKDEP
unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = arch_irq_save();

	lock_acquire(l, 0);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	lock_release(l);
	arch_irq_restore(flags);
}
#endif

#ifdef LOCKDEP
void spin_lock(struct spinlock *l)
{
	lock_acquire(l, 0);
}
#else
void spin_lock_wait(struct spinlock *l, unsigned cpu)
{
	if (READ_ONCE(l->holder_cpu) == (int)cpu)
		panic("spinlock: recursive acquisition of %s on cpu %u", l->name, cpu);
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (READ_ONCE(l->locked))
			arch_cpu_relax();
}

void spin_unlock_bad(struct spinlock *l)
{
	panic("spinlock: %s released by cpu %u but held by %d", l->name, arch_cpu_id(), l->holder_cpu);
}
#endif

void spin_lock_nested(struct spinlock *l)
{
	lock_acquire(l, LOCKDEP_NESTED);
}

#ifdef LOCKDEP
void spin_unlock(struct spinlock *l)
{
	lock_release(l);
}

bool spin_trylock(struct spinlock *l)
{
	if (READ_ONCE(l->locked) || __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		return false;
	lockdep_acquire(l, l->lclass, LOCKDEP_TRY);
	WRITE_ONCE(l->holder_cpu, (int)arch_cpu_id());
	return true;
}
#endif

bool spin_is_held(const struct spinlock *l)
{
	return READ_ONCE(l->holder_cpu) == (int)arch_cpu_id();  /* races as lock_acquire's check */
}
