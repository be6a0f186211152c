/*
 * Read sections and grace periods (lib/rcu.c): the reclamation that lets
 * a reader walk a structure without its lock while writers change it, as
 * Linux's RCU does, in its simplest epoch-based form (a global epoch and,
 * per CPU, the epoch its read section began in).
 *
 *   rcu_read_lock / rcu_read_unlock   a read section: short, never sleeps,
 *                                     not nested; what the reader finds
 *                                     inside stays allocated until it leaves
 *   rcu_gp_start                      after unlinking objects: a cookie for
 *                                     the grace period that must pass before
 *                                     they are freed
 *   rcu_gp_done(cookie)               whether it has passed (every section
 *                                     that could have seen them has ended);
 *                                     never waits: a writer keeps the objects
 *                                     and asks again later (a deferred free,
 *                                     Linux's call_rcu / poll_state_synchronize_rcu)
 *   synchronize_rcu                   waits until it has (a writer that
 *                                     cannot keep the objects: teardown)
 *
 * Users: per-VMA fault locks (mm/vma_lock.c) and the B-tree's lock-free
 * lookup (mm/vma_index/btree.c).
 */
#ifndef RCU_H
#define RCU_H

#include "kernel.h"
#include "arch.h"                   /* arch_cpu_id, NR_CPUS */
#include "lockless.h"

/* lib/rcu.c's state, here for the inline read side (every lock-free fault has one section). */
extern unsigned long rcu_epoch;                 /* [atomic] */
extern unsigned long rcu_cpu[NR_CPUS];          /* [atomic] 0, or the epoch its section began in * 2 + 1 */

static inline void rcu_read_lock(void)
{
	/* Seq_cst (a locked store): the record is visible before the section's reads (lib/rcu.c). */
	__atomic_store_n(&rcu_cpu[arch_cpu_id()], READ_ONCE(rcu_epoch) * 2 + 1, __ATOMIC_SEQ_CST);
}

static inline void rcu_read_unlock(void)
{
	smp_store_release(&rcu_cpu[arch_cpu_id()], 0);
}

unsigned long rcu_gp_start(void);
bool rcu_gp_done(unsigned long cookie);
void synchronize_rcu(void);

#endif
