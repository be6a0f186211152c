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

void rcu_read_lock(void);
void rcu_read_unlock(void);
unsigned long rcu_gp_start(void);
bool rcu_gp_done(unsigned long cookie);
void synchronize_rcu(void);

#endif
