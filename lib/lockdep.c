/*
 * The lock-order checker (include/lockdep.h): held-lock records per CPU and
 * per task, a check of every acquisition against include/lock_order.h, and
 * the first stack seen for each pair of classes taken nested, so that a
 * report can show both orders.
 *
 * The records are changed with interrupts off: an interrupt handler that
 * takes a lock (printk) pushes and pops on the same CPU record.
 */
#include "lockdep.h"
#include "lockless.h"
#include "kernel.h"
#include "printk.h"
#include "arch.h"

#define CLASS_NAME(id, name, sleeping) name,
#define CLASS_SLEEPS(id, name, sleeping) sleeping,
static const char *const class_names[] = { LOCK_ORDER_TABLE(CLASS_NAME) };
static const bool class_sleeps[] = { LOCK_ORDER_TABLE(CLASS_SLEEPS) };
#undef CLASS_NAME
#undef CLASS_SLEEPS

const char *lock_class_name(unsigned c)
{
	return c < LOCK_CLASS_COUNT ? class_names[c] : "?";
}

bool lock_class_sleeping(unsigned c)
{
	return c < LOCK_CLASS_COUNT && class_sleeps[c];
}

unsigned long lockdep_reports;
bool lockdep_report_only;

#ifdef LOCKDEP

#define EDGE_FRAMES 12

/* The first time a lock of class `to` was taken while one of class `from` was held. */
struct edge {
	int seen;                     /* 0 free, 1 being written, 2 recorded */
	unsigned n;
	uintptr_t stack[EDGE_FRAMES];
};
static struct edge edges[LOCK_CLASS_COUNT][LOCK_CLASS_COUNT];
/* The CPU printing a report: its own acquisitions (printk's) are recorded unchecked meanwhile. */
static int reporting_cpu = -1;

static struct lockdep_held *held_for(unsigned lclass)
{
	return lock_class_sleeping(lclass) ? lockdep_task_held() : lockdep_cpu_held();
}

static void record_edge(unsigned from, unsigned to)
{
	struct edge *e = &edges[from][to];
	int expected = 0;

	if (smp_load_acquire(&e->seen) ||
	    !__atomic_compare_exchange_n(&e->seen, &expected, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	e->n = arch_stack_trace(e->stack, EDGE_FRAMES);
	smp_store_release(&e->seen, 2);
}

static void print_site(const struct held_lock *h)
{
	unsigned n = 0;

	while (n < LOCKDEP_SITE_FRAMES && h->site[n])
		n++;
	arch_print_stack(h->site, n);
}

/* Report one violation: acquiring (lock, lclass) while h is held. */
static void report(const void *lock, unsigned lclass, const struct held_lock *h, const char *why)
{
	const struct edge *e = h ? &edges[lclass][h->lclass] : NULL;
	uintptr_t now[EDGE_FRAMES];
	unsigned n = arch_stack_trace(now, EDGE_FRAMES);

	__atomic_add_fetch(&lockdep_reports, 1, __ATOMIC_RELAXED);
	WRITE_ONCE(reporting_cpu, (int)arch_cpu_id());
	printk("\nlockdep: lock order violation on cpu %u: %s\n", arch_cpu_id(), why);
	printk("lockdep: acquiring %s %p (class %s) here:\n", lock_class_name(lclass), lock,
	       lock_class_name(lclass));
	arch_print_stack(now, n);
	if (h) {
		printk("lockdep: while holding %p (class %s), taken at:\n", h->lock,
		       lock_class_name(h->lclass));
		print_site(h);
		if (e && smp_load_acquire(&e->seen) == 2) {
			printk("lockdep: the table's order, %s then %s, was first taken at:\n",
			       lock_class_name(lclass), lock_class_name(h->lclass));
			arch_print_stack(e->stack, e->n);
		}
	}
	printk("lockdep: the order is include/lock_order.h\n");
	WRITE_ONCE(reporting_cpu, -1);
	if (!lockdep_report_only)
		panic("lockdep: lock order violation (%s)", lock_class_name(lclass));
}

/* Check the new acquisition against one record; returns false after a report. */
static bool check_against(const struct lockdep_held *held, const void *lock, unsigned lclass,
			  unsigned flags)
{
	for (unsigned i = 0; i < held->depth; i++) {
		const struct held_lock *h = &held->locks[i];

		if (h->lock == lock) {
			report(lock, lclass, h, "the same lock taken twice");
			return false;
		}
		if (h->lclass < lclass)
			continue;
		if (h->lclass == lclass && (flags & LOCKDEP_NESTED))
			continue;
		report(lock, lclass, h, h->lclass == lclass ? "two locks of one class without _nested"
							    : "taken against the table's order");
		return false;
	}
	return true;
}

static void push(struct lockdep_held *held, const void *lock, unsigned lclass, unsigned flags)
{
	struct held_lock *h;
	unsigned n;

	if (held->depth >= LOCKDEP_MAX_HELD)
		panic("lockdep: more than %d locks held", LOCKDEP_MAX_HELD);
	h = &held->locks[held->depth];
	h->lock = lock;
	h->lclass = (uint8_t)lclass;
	h->flags = (uint8_t)flags;
	n = arch_stack_trace(h->site, LOCKDEP_SITE_FRAMES);
	while (n < LOCKDEP_SITE_FRAMES)
		h->site[n++] = 0;
	held->depth++;
}

void lockdep_acquire(const void *lock, unsigned lclass, unsigned flags)
{
	unsigned long irq = arch_irq_save();
	struct lockdep_held *cpu = lockdep_cpu_held(), *task = lockdep_task_held();
	bool ok = true;

	BUG_ON(lclass >= LOCK_CLASS_COUNT);
	if (READ_ONCE(reporting_cpu) == (int)arch_cpu_id()) {   /* vs. a report on another CPU */
		ok = false;
	} else if (!(flags & LOCKDEP_TRY)) {
		if (lock_class_sleeping(lclass) && cpu->depth)
			report(lock, lclass, &cpu->locks[cpu->depth - 1], "a sleeping lock under a spinning one");
		else
			ok = check_against(cpu, lock, lclass, flags) && check_against(task, lock, lclass, flags);
	}
	if (ok) {
		for (unsigned i = 0; i < cpu->depth; i++)
			if (cpu->locks[i].lclass != lclass)
				record_edge(cpu->locks[i].lclass, lclass);
		for (unsigned i = 0; i < task->depth; i++)
			if (task->locks[i].lclass != lclass)
				record_edge(task->locks[i].lclass, lclass);
	}
	push(held_for(lclass), lock, lclass, flags);
	arch_irq_restore(irq);
}

void lockdep_release(const void *lock, unsigned lclass)
{
	unsigned long irq = arch_irq_save();
	struct lockdep_held *held = held_for(lclass);

	for (unsigned i = held->depth; i-- > 0;) {
		if (held->locks[i].lock != lock)
			continue;
		for (unsigned j = i; j + 1 < held->depth; j++)
			held->locks[j] = held->locks[j + 1];
		held->depth--;
		arch_irq_restore(irq);
		return;
	}
	arch_irq_restore(irq);
	panic("lockdep: releasing %s %p, which is not held here", lock_class_name(lclass), lock);
}

bool lockdep_is_held(const void *lock, unsigned lclass)
{
	unsigned long irq = arch_irq_save();
	const struct lockdep_held *held = held_for(lclass);
	bool found = false;

	for (unsigned i = 0; i < held->depth && !found; i++)
		found = held->locks[i].lock == lock;
	arch_irq_restore(irq);
	return found;
}

void lockdep_might_sleep(const void *allow)
{
	const struct lockdep_held *cpu = lockdep_cpu_held();

	for (unsigned i = 0; i < cpu->depth; i++)
		if (cpu->locks[i].lock != allow)
			report(NULL, cpu->locks[i].lclass, &cpu->locks[i], "sleeping with a spinning lock held");
}

#endif
