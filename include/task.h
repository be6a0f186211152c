/*
 * Tasks (processes; one thread each for now) and the scheduler.
 *
 * A task owns a kernel stack (KSTACK_SIZE bytes); while it runs in user mode
 * the top of that stack is where the CPU (interrupts, exceptions) and the
 * SYSCALL entry save its user registers, as one struct trap_frame (task->tf).
 * The scheduler is round-robin with a time slice of SCHED_SLICE_TICKS timer
 * ticks; a task is preempted when it returns to user mode after its slice
 * ran out (kernel code is not preempted: it sleeps or yields explicitly).
 * One CPU runs tasks; the data below are written for SMP (one lock).
 *
 * Lock legend:
 *   [sched]  sched_lock (a spinlock taken with interrupts off): run queue,
 *            state, the task list, parent/children links, exit status
 *   [self]   only the task itself changes it (or its creator, before the
 *            task is visible)
 *   [sig]    the task's signal state: sched_lock as well
 */
#ifndef TASK_H
#define TASK_H

#include "types.h"
#include "list.h"
#include "signal.h"
#include "wait.h"
#include "ktimer.h"

struct mm;
struct trap_frame;
struct fdtable;
struct dentry;

#define KSTACK_ORDER 2                          /* 16 KiB kernel stacks */
#define KSTACK_SIZE  (PAGE_SIZE << KSTACK_ORDER)
#define TASK_COMM_LEN 16
#define SCHED_SLICE_TICKS 10                    /* 10 ms at TIMER_HZ 1000 */
#define TASK_MAX 64                             /* live tasks (zombies included): fork's limit */

enum task_state {
	TASK_RUNNABLE,          /* on the run queue, or running */
	TASK_SLEEPING,          /* waiting for a wake-up (include/wait.h) */
	TASK_ZOMBIE,            /* exited; its parent has not reaped it */
};

/* Architecture context saved across a switch (arch/x86_64/process.c). */
struct arch_task {
	uint64_t ksp;                   /* saved kernel stack pointer while switched out */
	uint64_t fs_base;               /* user FS base (arch_prctl ARCH_SET_FS) */
	uint64_t gs_base;               /* user GS base */
	uint32_t pkru;                  /* user PKRU (protection keys on only) */
	uint8_t fpu[512] __attribute__((aligned(16)));  /* FXSAVE image of the user FPU/SSE state */
};

struct task {
	int pid;                        /* [self] process id (== tid: one thread per process) */
	int tid;                        /* [self] */
	enum task_state state;          /* [sched] */
	struct mm *mm;                  /* [self] address space; NULL for the idle task */
	void *kstack;                   /* [self] base of the kernel stack (KSTACK_SIZE bytes) */
	struct trap_frame *tf;          /* [self] the user frame at the top of kstack */
	struct arch_task arch;          /* [self] switch context, FS/GS base, FPU */
	struct task *parent;            /* [sched] NULL for the idle task */
	struct list_head children;      /* [sched] list of child tasks (their sibling links) */
	struct list_head sibling;       /* [sched] link in parent->children */
	struct list_head run_link;      /* [sched] link in the run queue (on_rq) */
	bool on_rq;                     /* [sched] on the run queue: a task woken while it still runs may be */
	struct list_head all_link;      /* [sched] link in the list of all tasks */
	int exit_status;                /* [sched] wait status (Linux encoding) once a zombie */
	unsigned slice;                 /* [sched] ticks left in this time slice */
	bool need_resched;              /* [sched] reschedule before returning to user mode */
	uintptr_t clear_child_tid;      /* [self] set_tid_address, CLONE_CHILD_CLEARTID */
	uintptr_t robust_list;          /* [self] set_robust_list (remembered only) */
	int exit_signal;                /* [self] sent to the parent at exit (SIGCHLD for fork; 0: none) */
	int pgid, sid;                  /* [sched] process group and session (init: 1, 1; fork inherits) */
	bool vfork_pending;             /* [self] a vfork parent waits for this child's exec or exit */
	struct ktimer it_real;          /* [self] ITIMER_REAL / alarm (kernel/itimer.c) */
	uint64_t it_real_interval_ns;   /* [self] its interval */
	struct dentry *exe;             /* [self] the program's file (/proc/self/exe), a reference */
	struct dentry *cwd;             /* [self] the working directory, a reference */
	uint32_t umask;                 /* [self] file-creation mask (Linux's init: 022) */
	char comm[TASK_COMM_LEN];       /* [self] program name (basename), for reports */
	struct fdtable *fdt;            /* [self] file descriptors (kernel/fdtable.c) */
	struct wait_queue child_wait;   /* where this task waits for its children (wait4, vfork) */
	struct task_signals sig;        /* [sig] handlers, blocked and pending sets */
};

/* The task running on this CPU. */
struct task *current_task(void);
#define current (current_task())

/* sched_init: turn the boot context into the idle task (pid 0). Once, before any task is made. */
void sched_init(void);

/*
 * task_alloc: a new task with a kernel stack, pid, zeroed state, not yet
 * runnable or linked anywhere; tf points at the top of the stack. NULL on
 * -ENOMEM. task_free releases what task_alloc gave (not the mm).
 */
struct task *task_alloc(void);
void task_free(struct task *t);

/*
 * sched_start_task: make t (filled in: mm, tf, parent, ...) runnable; on its
 * first run it enters user mode with t->tf. Links it under its parent.
 */
void sched_start_task(struct task *t);

/* schedule: give the CPU to the next runnable task (round-robin); returns when this task runs again. */
void schedule(void);
/* sched_yield: end the current slice and schedule. */
void sched_yield(void);
/* sched_tick: timer-interrupt hook: count down the slice, flag a reschedule when it ends. */
void sched_tick(void);
/*
 * sched_set_sleeping / sched_sleep_if_sleeping: the two halves of a sleep
 * (include/wait.h builds on them): mark current sleeping, then, after the
 * caller re-checked its condition, switch away unless a sched_wakeup came
 * in between (which made it runnable again).
 */
void sched_set_sleeping(void);
void sched_sleep_if_sleeping(void);
/* sched_set_running: current is runnable (ends a sleep that did not switch). */
void sched_set_running(void);
/* sched_wakeup: make a sleeping t runnable again (callable from interrupts). */
void sched_wakeup(struct task *t);

/* vfork_release: t no longer borrows its vfork parent's memory (exec or exit): wake the parent. */
void vfork_release(struct task *t);
/* task_exit_timers: disarm t's interval timer (exit). */
void task_exit_timers(struct task *t);
/* futex_wake_address: wake up to n futex waiters at addr in current's address space; how many. */
int futex_wake_address(uintptr_t addr, int n);
/* futex_wake_mm: the same for mm and a FUTEX_WAKE_BITSET mask. */
int futex_wake_mm(struct mm *mm, uintptr_t addr, int n, uint32_t bitset);

/* Live tasks (zombies included), for fork's limit and leak checks. */
unsigned sched_task_count(void);
/* task_find_any: as task_find, zombies included (kill of a zombie succeeds, as Linux). */
struct task *task_find_any(int pid);
/* Find a live task by pid, or NULL. Caller holds no lock; the result may die later (one CPU: safe until it sleeps). */
struct task *task_find(int pid);

/*
 * task_exit: end the current task with wait status `status` (Linux
 * encoding: code << 8, or the signal number): release its address space,
 * reparent its children to init, wake its parent. Never returns. When
 * init (pid 1) exits, the kernel reports its status and stops QEMU
 * (kernel/init.c).
 */
__attribute__((noreturn)) void task_exit(int status);

/* exit_to_user: work before returning to user mode with tf: signals, reschedule. Interrupts off on return. */
void exit_to_user(struct trap_frame *tf);

/*
 * Console protocol for tools/run: the kernel writes CONSOLE_USER_START once,
 * right before init first runs; after it, the console carries the
 * programs' output, except kernel reports framed by REPORT_BEGIN ..
 * REPORT_END (include/signal.h), the last of which is "init exited with
 * status N".
 */
#define CONSOLE_USER_START "\x01"

/*
 * user_init_start: create pid 1 from the first boot module (argv from its
 * command line), run it, and when it exits print "init exited with status N"
 * and stop QEMU (status 0 -> pass, else fail). Returns only if init could not
 * be started (with an errno, after printing why).
 */
int user_init_start(void);

/* Architecture hooks (arch/x86_64/process.c). */
void arch_task_setup_stack(struct task *t);     /* first switch-in enters user mode via t->tf */
void arch_switch_to(struct task *prev, struct task *next);
void arch_set_current(struct task *t);
void arch_task_reset_fpu(struct task *t);       /* FPU image as after exec */
void arch_task_save_fpu(struct task *t);        /* live FPU -> t's image (t running) */
void arch_task_load_fpu(struct task *t);        /* t's image -> live FPU (t running) */
void arch_set_fs_base(struct task *t, uint64_t base);

#endif
