/*
 * Private to kernel/ (kernel/sched/, kernel/task/, kernel/signal/, sys_misc.c;
 * found through -Ikernel): the scheduler lock and its _locked helpers.
 */
#ifndef SCHED_INTERNAL_H
#define SCHED_INTERNAL_H

#include "task.h"
#include "spinlock.h"

/* Protects the run queue, every task's state, the task list and the parent/child links. */
extern struct spinlock sched_lock;
extern struct list_head task_list;              /* [sched_lock] all tasks but idle */
extern struct task idle_task;
/*
 * init_task [sched]: pid 1's leader once kernel/task/init.c has started it
 * (orphans go to it), else NULL. A thread of pid 1 other than the leader
 * that execs takes the leader's place, and this pointer with it
 * (take_leader_place_locked): read it under sched_lock.
 */
extern struct task *init_task;

/* __schedule: switch to the next runnable task; sched_lock held (interrupts off), still held on return. */
void __schedule(void);
/* sched_wakeup_locked: sched_wakeup with sched_lock held. */
void sched_wakeup_locked(struct task *t);
/* idle_pause: an idle task with nothing to run waits for an interrupt (sti; hlt). No lock held. */
void idle_pause(void);
/* send_signal_info_locked: send_signal_info (include/signal.h) with sched_lock held. */
struct k_siginfo;
int send_signal_info_locked(struct task *t, const struct k_siginfo *info, bool group);
/* sched_task_unlink: drop a reaped zombie from the task list and its parent's children. */
void sched_task_unlink(struct task *t);

#endif
