/*
 * Epoch-based grace periods (include/rcu.h).
 *
 * A global epoch counts up. A CPU entering a read section records the
 * epoch it saw (rcu_cpu[cpu] = epoch * 2 + 1, odd: inside; 0 outside),
 * with a full fence before it reads anything the section protects. The
 * epoch moves from E to E + 1 only when no CPU is inside a section that
 * began in an earlier epoch (rcu_advance reads every CPU's record). So
 * when the epoch reaches E + 2, every section that was running when it was
 * E has ended: a writer that unlinked objects, then read E (rcu_gp_start,
 * a fence before the read), may free them once the epoch is E + 2 or more
 * (rcu_gp_done). A section that starts after the unlink cannot find them:
 * its record's store comes after the advance's scan that missed it, the
 * scan after the writer read E, the read after the unlink, and the
 * section's reads after its store (the fences make that one order), so
 * the section reads the structure without them. A section that read a
 * stale epoch only holds back later advances until it ends.
 *
 * Nothing runs on a timer: rcu_gp_done advances the epoch itself (twice
 * at most) when it can, so a writer's next call frees what it kept, and a
 * CPU that stays outside sections never holds anything back.
 */
#include "rcu.h"
#include "arch.h"
#include "lockless.h"

unsigned long rcu_epoch = 1;                    /* include/rcu.h */
unsigned long rcu_cpu[NR_CPUS];

unsigned long rcu_gp_start(void)
{
	/* The caller's unlinking stores come before this read (pairs with the section's store). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return READ_ONCE(rcu_epoch);
}

/* Move the epoch on by one if no CPU is inside a section begun in an earlier one. */
static void rcu_advance(void)
{
	unsigned long e = __atomic_load_n(&rcu_epoch, __ATOMIC_SEQ_CST);
	unsigned cpu;

	/* Only a CPU that is up can be inside a section. */
	for_each_cpu(cpu, arch_cpu_online_mask()) {
		unsigned long r = __atomic_load_n(&rcu_cpu[cpu], __ATOMIC_SEQ_CST);

		if ((r & 1) && r / 2 != e)
			return;
	}
	/* Another CPU may have moved it already: then it is on anyway. */
	__atomic_compare_exchange_n(&rcu_epoch, &e, e + 1, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

bool rcu_gp_done(unsigned long cookie)
{
	for (int i = 0; i < 2 && READ_ONCE(rcu_epoch) < cookie + 2; i++)
		rcu_advance();
	return __atomic_load_n(&rcu_epoch, __ATOMIC_SEQ_CST) >= cookie + 2;
}

void synchronize_rcu(void)
{
	unsigned long cookie = rcu_gp_start();

	while (!rcu_gp_done(cookie))
		arch_cpu_relax();       /* sections are short and never sleep */
}
