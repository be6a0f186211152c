/*
 * The lock-order checker (lib/lockdep.c), a small lockdep: every lock has a
 * class from include/lock_order.h; each acquisition is checked against the
 * locks already held and a violation of the table is reported with the
 * stack of the acquisition, where the held lock was taken, and the stack
 * where the opposite order was first seen (if it was). Then the kernel
 * panics (tests can ask for a report only).
 *
 * Held locks are tracked per CPU for spinning locks (a spinning lock is
 * released on the CPU that took it, even sched_lock, which a context switch
 * hands from one task to the next) and per task for sleeping locks (held
 * across sleeps and migrations).
 *
 * Built in when LOCKDEP is defined (the kernel and host builds that make
 * test runs; `make LOCKDEP=0` leaves it out); otherwise every hook is an
 * empty inline.
 */
#ifndef LOCKDEP_H
#define LOCKDEP_H

#include "lock_order.h"

#define LOCKDEP_MAX_HELD 16
#define LOCKDEP_SITE_FRAMES 4         /* return addresses kept per held lock */

struct held_lock {
	const void *lock;
	uint8_t lclass;
	uint8_t flags;                /* LOCKDEP_* */
	uintptr_t site[LOCKDEP_SITE_FRAMES];   /* where it was taken (innermost first, 0-padded) */
};

/* One CPU's or one task's held locks, in acquisition order. */
struct lockdep_held {
	unsigned depth;
	struct held_lock locks[LOCKDEP_MAX_HELD];
};

#define LOCKDEP_NESTED 0x1            /* same class as a held lock, on purpose (fork's two mms) */
#define LOCKDEP_TRY    0x2            /* a trylock: cannot wait, so its order is not checked */

#ifdef LOCKDEP
/* lockdep_acquire: lock (of class lclass) is being taken; check it against what is held and record it. */
void lockdep_acquire(const void *lock, unsigned lclass, unsigned flags);
/* lockdep_release: lock is being released (in any order). */
void lockdep_release(const void *lock, unsigned lclass);
/* lockdep_is_held: the running CPU (spinning class) or task (sleeping class) holds lock. */
bool lockdep_is_held(const void *lock, unsigned lclass);
/* lockdep_might_sleep: the caller is about to sleep: reports if a spinning lock (other than allow) is held. */
void lockdep_might_sleep(const void *allow);
#else
static inline void lockdep_acquire(const void *lock, unsigned lclass, unsigned flags) { }
static inline void lockdep_release(const void *lock, unsigned lclass) { }
static inline bool lockdep_is_held(const void *lock, unsigned lclass) { return true; }
static inline void lockdep_might_sleep(const void *allow) { }
#endif

/* Violations reported since boot. With lockdep_report_only set (tests), a report does not panic. */
extern unsigned long lockdep_reports;
extern bool lockdep_report_only;

/*
 * Provided by the environment (kernel: arch/x86_64/cpu.c and kernel/sched/sched.c;
 * host tests: arch/hosted/hosted.c):
 */
/* The running CPU's held spinning locks (host: the thread's). */
struct lockdep_held *lockdep_cpu_held(void);
/* The running task's held sleeping locks (before the first task: a boot record). */
struct lockdep_held *lockdep_task_held(void);
/* Up to max return addresses of the caller's stack, innermost first; returns how many. */
unsigned arch_stack_trace(uintptr_t *buf, unsigned max);
/* Print addresses as a symbolized call trace. */
void arch_print_stack(const uintptr_t *buf, unsigned n);

#endif
