/*
 * Tasks (threads: a process is a thread group, kernel/task/thread_group.c) and the scheduler.
 *
 * A task owns a kernel stack (KSTACK_SIZE bytes); while it runs in user mode
 * the top of that stack is where the CPU (interrupts, exceptions) and the
 * SYSCALL entry save its user registers, as one struct trap_frame (task->tf).
 * The scheduler keeps a run queue per CPU, round-robin with a time slice of
 * SCHED_SLICE_TICKS timer ticks, and balances the queues (kernel/sched/sched.c);
 * a task is preempted when it returns to user mode after its slice ran out
 * (kernel code is not preempted: it sleeps or yields explicitly, so it
 * stays on its CPU between two calls that may schedule). Kernel threads
 * (kernel/sched/kthread.c) are tasks without a user half.
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
#include "vma.h"                /* struct vma_cache */
#include "signal.h"
#include "lockdep.h"
#include "sleep.h"
#include "wait.h"
#include "ktimer.h"
#include "kernel_hooks.h"      /* sched_tick, sched_init_cpu, cpu_idle, exit_to_user */

struct mm;
struct trap_frame;
struct fdtable;
struct dentry;

#define KSTACK_ORDER 2                          /* 16 KiB kernel stacks */
#define KSTACK_SIZE  (PAGE_SIZE << KSTACK_ORDER)
#define TASK_COMM_LEN 16
#define SCHED_SLICE_TICKS 10                    /* 10 ms at TIMER_HZ 1000 */

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
	void *fault_catch;              /* its armed arch_fault_catch while switched out (tests) */
	uint8_t fpu[512] __attribute__((aligned(16)));  /* FXSAVE image of the user FPU/SSE state */
};

/*
 * The signal actions, shared by the tasks of CLONE_SIGHAND (Linux's
 * sighand_struct). [sched]; freed with its last task.
 */
struct sighand {
	int refs;
	struct k_sigaction action[KNSIG + 1];           /* index = signal number */
};

/*
 * CPU time (kernel/time/cputime.c): the time run, exact (arch_cycles, counted
 * at every switch: Linux's sum_exec_runtime), and the timer ticks that found
 * the task in user mode and in the kernel, which only split it.
 */
struct cputime {
	uint64_t cycles;
	unsigned long user_ticks, sys_ticks;
};

/*
 * A time split in user mode and in the kernel, in ns: the last one a
 * reader was given (Linux's struct prev_cputime), so that neither part
 * ever goes down from one read to the next (kernel/time/cputime.c); or a
 * sum of such (RUSAGE_CHILDREN's).
 */
struct cputime_split {
	uint64_t user_ns, sys_ns;
};

/*
 * A thread group (Linux's signal_struct): the tasks sharing one process id
 * (CLONE_THREAD), their process-directed pending signals and the group
 * exit (kernel/task/thread_group.c). All fields [sched]. The leader (the task
 * whose tid is the process id) becomes a zombie that its parent can reap
 * only once every thread has exited and released the address space
 * (unreleased == 0, not merely live == 0); the other threads reap themselves.
 */
struct thread_group {
	int refs;                       /* tasks pointing here (freed with the last) */
	int live;                       /* threads that have not exited yet (left first thing in task_exit) */
	int unreleased;                 /* threads not yet at the end of task_exit: their mm may be held */
	struct task *leader;
	struct list_head threads;       /* its tasks, through task.group_link */
	bool exiting;                   /* exit_group or a fatal signal: every thread goes */
	int exit_status;                /* the status the process reports (group exit, or the last thread's) */
	struct sigpending_k pending;    /* process-directed signals (kill, sigqueue) */
	struct task *exec_task;         /* a thread in execve waiting for the others to end (de_thread) */
	bool notified;                  /* the parent has been told (exit signal) that the process ended */
	bool child_subreaper;           /* [sched] PR_SET_CHILD_SUBREAPER: its descendants' orphans come here */
	struct cputime dead;            /* its ended threads' CPU time (the leader's stays in it) */
	struct cputime_split self_split;        /* [sched] the process's time as last read (RUSAGE_SELF) */
	struct cputime_split children;  /* its reaped children's, theirs included, as wait4 reported them
	                                 * (RUSAGE_CHILDREN) */
};

struct task {
	int pid;                        /* [self] process id: the thread group's (its leader's tid) */
	int tid;                        /* [self] thread id, unique */
	enum task_state state;          /* [sched] */
	struct mm *mm;                  /* [self] address space; NULL for the idle task */
	void *kstack;                   /* [self] base of the kernel stack (KSTACK_SIZE bytes) */
	struct trap_frame *tf;          /* [self] the user frame at the top of kstack */
	struct arch_task arch;          /* [self] switch context, FS/GS base, FPU */
	struct task *parent;            /* [sched] NULL for the idle task */
	struct list_head children;      /* [sched] list of child tasks (their sibling links) */
	struct list_head sibling;       /* [sched] link in parent->children */
	struct list_head run_link;      /* [sched] link in its CPU's run queue while runnable and not running */
	struct list_head all_link;      /* [sched] link in the list of all tasks */
	int exit_status;                /* [sched] wait status (Linux encoding) once a zombie */
	unsigned slice;                 /* [sched] ticks left in this time slice */
	bool need_resched;              /* [sched] reschedule before returning to user mode */
	uintptr_t clear_child_tid;      /* [self] set_tid_address, CLONE_CHILD_CLEARTID */
	uintptr_t robust_list;          /* [self] set_robust_list: walked at exit (kernel/futex.c) */
	int exit_signal;                /* [self] sent to the parent at exit (SIGCHLD for fork; 0: none) */
	int pgid, sid;                  /* [sched] process group and session (init: 1, 1; fork inherits) */
	bool vfork_pending;             /* [self] a vfork parent waits for this child's exec or exit */
	struct ktimer it_real;          /* [self] ITIMER_REAL / alarm (kernel/time/itimer.c) */
	struct cputime cputime;         /* [sched] its CPU time until it last left its CPU; ticks [self] */
	struct cputime_split thread_split;      /* [sched] its time as last read (RUSAGE_THREAD) */
	uint64_t on_cpu_since;          /* [sched] arch_cycles when it last came on its CPU */
	uint64_t it_real_interval_ns;   /* [self] its interval */
	struct dentry *exe;             /* [self] the program's file (/proc/self/exe), a reference */
	struct dentry *cwd;             /* [self] the working directory, a reference */
	uint32_t umask;                 /* [self] file-creation mask (Linux's init: 022) */
	char comm[TASK_COMM_LEN];       /* [self] program name (basename), for reports */
	uint64_t start_ns;              /* [init] when it started (monotonic_ns; /proc/PID/stat) */
	struct fdtable *fdt;            /* [self] file descriptors (fs/fdtable.c) */
	struct wait_queue child_wait;   /* where this task waits for its children (wait4, vfork) */
	struct task_signals sig;        /* [sig] this thread's blocked and pending sets */
	struct sighand *sighand;        /* [sig] signal actions (shared with CLONE_SIGHAND) */
	struct thread_group *group;     /* [sched] its thread group (NULL: idle tasks) */
	struct list_head group_link;    /* [sched] in group->threads */
	int cpu;                        /* [sched] CPU it runs or is queued on (-1: never ran) */
	bool on_cpu;                    /* [sched] running on t->cpu now (until switched out) */
	bool free_at_switch;            /* [sched] ended and unlinked: freed once switched out (kernel/sched/sched.c) */
	bool is_idle;                   /* [self] a CPU's idle task */
	unsigned long cpus_allowed;     /* [sched] CPUs it may run on (bit n: CPU n) */
	void (*kthread_fn)(void *);     /* [self] kernel thread: its function (kernel/sched/kthread.c) */
	struct vma_cache vma_cache;     /* [self] its last lock-free fault's VMA (mm/vma_lock.c) */
	bool kthread_edits_user_mm;     /* [init] kernel thread that changes user address spaces (kswapd, khugepaged): cpu_may_run */
	void *kthread_arg;              /* [self] */
	struct task *joiner;            /* [sched] kernel thread: who waits in kthread_join */
	struct lockdep_held held_locks; /* [self] sleeping locks held (lib/lockdep.c) */
	bool uaccess_nofault;           /* [self] a user copy's fault fails at once (copy_from_user_nofault) */
};

/* The task running on this CPU (current_task: include/sleep.h). */
#define current (current_task())

/*
 * CPU time (kernel/time/cputime.c; clock_gettime's CPU-time clocks,
 * getrusage, wait4's rusage, /proc/PID/stat). cputime_switch_locked: prev
 * leaves its CPU and next comes on it (the scheduler, sched_lock held).
 * cputime_tick: a timer tick found t running, in user mode or not.
 * cputime_self_ns: the calling thread's time up to now (no lock: only its
 * own CPU changes it). cputime_thread_split: t's, split.
 * cputime_process / cputime_children: every thread of t's process,
 * ended ones included / its reaped children (and theirs), in ns, split in
 * user mode and in the kernel (_locked: sched_lock held). cputime_thread_gone_locked: an ended
 * thread's time goes to its group (before it leaves the group).
 * cputime_reaped_locked: a reaped child's process time and its children's
 * go to parent's group; *user_ns / *sys_ns: their sum, each split as
 * cputime_process and cputime_children would (wait4's RUSAGE_BOTH).
 * The splits never go down, in user or kernel time, from one read to the
 * next (Linux's cputime_adjust).
 */
void cputime_switch_locked(struct task *prev, struct task *next);
void cputime_tick(struct task *t, bool user);
uint64_t cputime_self_ns(void);
void cputime_thread_split(struct task *t, uint64_t *user_ns, uint64_t *sys_ns);
void cputime_process(struct task *t, uint64_t *user_ns, uint64_t *sys_ns);
void cputime_children(struct task *t, uint64_t *user_ns, uint64_t *sys_ns);
void cputime_process_locked(struct task *t, uint64_t *user_ns, uint64_t *sys_ns);
void cputime_children_locked(const struct task *t, uint64_t *user_ns, uint64_t *sys_ns);
void cputime_thread_gone_locked(struct task *t);
void cputime_reaped_locked(struct task *parent, struct task *child, uint64_t *user_ns, uint64_t *sys_ns);

/* sched_init: turn the boot context into CPU 0's idle task (pid 0). Once, before any task is made. */
void sched_init(void);

/*
 * task_alloc: a new task with a kernel stack, pid, zeroed state, not yet
 * runnable or linked anywhere; tf points at the top of the stack. NULL on
 * -ENOMEM. task_free releases what task_alloc gave (not the mm); t is off
 * every CPU. task_free_locked: the same with sched_lock held (the kernel
 * stack and the task go back under it: pmm and slab come after sched in
 * the lock order).
 */
struct task *task_alloc(void);
void task_free(struct task *t);
void task_free_locked(struct task *t);

/*
 * sched_start_task: make t (filled in: mm, tf, parent, ...) runnable; on its
 * first run it enters user mode with t->tf. Links it under its parent.
 */
void sched_start_task(struct task *t);

/* schedule: give the CPU to the next runnable task (round-robin); returns when this task runs again. */
void schedule(void);
/* sched_yield: end the current slice and schedule. */
void sched_yield(void);
/*
 * sched_sleep_if_sleeping: the second half of a sleep (include/wait.h
 * builds on it): once the caller has marked current TASK_SLEEPING under
 * sched_lock and re-checked its condition, switch away unless a
 * sched_wakeup came in between (which made it runnable again).
 */
void sched_sleep_if_sleeping(void);
/*
 * sched_task_running: is t the task running on some online CPU now? A
 * racy hint without sched_lock; t is only compared, never read, so it may
 * be a task that has exited (the answer is then false).
 */
bool sched_task_running(const struct task *t);
/* sched_wakeup: make a sleeping t runnable again, on a CPU chosen by the balancing rules (callable from interrupts). */
void sched_wakeup(struct task *t);
/* sched_wait_flag / sched_wake_flag: include/sleep.h. */
/*
 * sched_set_affinity: let t run on the CPUs of the mask cpus only (at least
 * one online); a queued t moves now, a running one at its next schedule.
 */
void sched_set_affinity(struct task *t, unsigned long cpus);
/* sched_set_affinity_locked: the same with sched_lock held (t found under it: sched_setaffinity). */
void sched_set_affinity_locked(struct task *t, unsigned long cpus);
/* sched_stats: context switches and tasks pulled from other CPUs by cpu since boot. */
void sched_stats(unsigned cpu, unsigned long *switches, unsigned long *pulls);

/* vfork_release: t no longer borrows its vfork parent's memory (exec or exit): wake the parent. */
void vfork_release(struct task *t);
/* task_exit_timers: disarm t's interval timer (exit). */
void task_exit_timers(struct task *t);
/* futex_wake_address: wake up to n futex waiters on the word at addr of current (shared key); how many. */
int futex_wake_address(uintptr_t addr, int n);
/* futex_exit_robust_list: t exits: release the robust futexes it holds (its list, set_robust_list). */
void futex_exit_robust_list(struct task *t);

/* Live tasks (zombies included), for fork's limit and leak checks. */
unsigned sched_task_count(void);
/*
 * kernel/task/task_limit.c: task_max_threads, how many tasks may be alive
 * at once (zombies included; Linux's threads-max, from RAM by default);
 * task_set_max_threads changes it (0, or -EINVAL outside 1..0x3fffffff);
 * task_nproc_rlimit, what getrlimit(RLIMIT_NPROC) reads.
 */
unsigned long task_max_threads(void);
long task_set_max_threads(long n);
unsigned long task_nproc_rlimit(void);
/*
 * task_find_any: as task_find, zombies included (kill of a zombie succeeds,
 * as Linux). task_find_any_locked: the same with sched_lock held, which
 * keeps the task allocated while the caller holds it (a thread that ends
 * is freed as soon as it has switched away).
 */
struct task *task_find_any(int pid);
struct task *task_find_any_locked(int pid);
/*
 * Find a live task by pid, or NULL. Caller holds no lock; the result stays
 * allocated until its parent reaps it, which with SMP may happen on another
 * CPU while the caller uses it (no reference is taken yet: a caller other
 * than the parent must not rely on it for long).
 */
struct task *task_find(int pid);
/*
 * task_get_mm: a reference to the address space of live task pid (NULL:
 * no such task, or it has none), its name copied to comm; the task may
 * exit meanwhile on another CPU. task_set_mm: t->mm = mm; returns the old
 * one for the caller to put: mm_leave for a user task's (counted in by
 * mm_enter at clone or exec), mm_put for a kernel thread's borrowed one
 * (the pair keeps task_get_mm from taking an mm being freed: both run
 * under sched_lock).
 */
struct mm *task_get_mm(int pid, char comm[TASK_COMM_LEN]);
struct mm *task_set_mm(struct task *t, struct mm *mm);

/* What /proc shows of a process (kernel/task/task_info.c): a snapshot. */
struct task_info {
	int pid, tid, ppid, pgid, sid;
	char state;                     /* 'R' (a thread runs or is runnable), 'S', 'Z' */
	char comm[TASK_COMM_LEN];
	int threads;                    /* live threads of its process */
	int cpu;                        /* where it last ran */
	int exit_signal;
	uint32_t umask;
	uint64_t start_ns;              /* monotonic_ns at its start */
	uint64_t utime_ns, stime_ns;    /* its process's CPU time in user mode and in the kernel */
	uint64_t cutime_ns, cstime_ns;  /* its reaped children's */
	unsigned long cpus_allowed;
	ksigset_t pending, shared_pending, blocked, ignored, caught;
};
/*
 * task_info_get: the snapshot of task pid (a thread id finds its thread,
 * as /proc/TID does; zombies included). 0, or -ESRCH. task_pids: the
 * process ids (thread-group leaders, kernel threads included) in
 * ascending order, at most max into pids; returns how many there are.
 */
int task_info_get(int pid, struct task_info *out);

/*
 * A task as a hang report shows it (kernel/sched/task_dump.c): its ids,
 * name, state, CPU and, when switched out, up to TASK_SNAP_DEPTH return
 * addresses of its kernel stack (innermost first). sched_tasks_snapshot
 * fills out[0..max) and returns how many tasks there are (more than max:
 * the rest were left out). sched_dump_tasks prints every task so to the
 * kernel log (0, or -ENOMEM); with other_cpus, every other CPU then
 * prints where it is (arch_backtrace_other_cpus), in the moments after
 * the call returns: lines in the middle of whatever the log shows next.
 */
#define TASK_SNAP_DEPTH 16
struct task_snap {
	int pid, tid, cpu;
	char comm[TASK_COMM_LEN];
	enum task_state state;
	bool on_cpu;                    /* running on cpu at the snapshot: no trace */
	unsigned depth;
	uintptr_t trace[TASK_SNAP_DEPTH];
};
size_t sched_tasks_snapshot(struct task_snap *out, size_t max);
int sched_dump_tasks(bool other_cpus);
size_t task_pids(int *pids, size_t max);

/*
 * task_exit: end the current task with wait status `status` (Linux
 * encoding: code << 8, or the signal number): release its address space,
 * reparent its children to init, wake its parent. Never returns. When
 * init (pid 1) exits, the kernel reports its status and stops QEMU
 * (kernel/task/init.c).
 */
__attribute__((noreturn)) void task_exit(int status);

/*
 * Thread groups (kernel/task/thread_group.c). thread_group_init: t's own group
 * and sighand (task_alloc); 0 or -ENOMEM. thread_group_share: the child of
 * clone takes the parent's sighand (CLONE_SIGHAND) and joins its group
 * (CLONE_THREAD: the parent's process id); 0, or -EINTR when that group is
 * exiting or execing (its other threads have been sent SIGKILL already). thread_group_put: t leaves both
 * (task_free; thread_group_put_locked with sched_lock held). thread_group_exiting: t's group is going (exit_group, fatal
 * signal). thread_group_leader: the task whose tid is t's process id.
 * task_reapable: a zombie whose whole group has exited (wait4 may take it).
 */
int thread_group_init(struct task *t);
int thread_group_share(struct task *child, struct task *parent, bool sighand, bool thread);
void thread_group_put(struct task *t);
void thread_group_put_locked(struct task *t);
bool thread_group_exiting(const struct task *t);
struct task *thread_group_leader(const struct task *t);
bool task_reapable(const struct task *t);
/*
 * group_exit: exit_group(2): end every thread of current's group with
 * status (the first group exit's status wins); never returns.
 */
__attribute__((noreturn)) void group_exit(int status);
/*
 * thread_group_alive_sibling_locked: a thread of t's group other than t
 * that has not exited (its children's new parent), or NULL.
 * thread_group_wake_waiters_locked: wake every thread of t's group waiting
 * in wait4 (or vfork) on its child_wait: any of them may reap t's children.
 * Both with sched_lock held.
 */
struct task *thread_group_alive_sibling_locked(const struct task *t);
void thread_group_wake_waiters_locked(struct task *t);
/*
 * thread_group_exec: execve's point of no return in current (Linux
 * de_thread): end every other thread of the process, wait until they have
 * exited, and take the leader's process id as current's thread id (the
 * leader's parent and place too); then give current its own copy of the
 * signal actions if another task still shares them (Linux's
 * unshare_sighand: CLONE_SIGHAND without CLONE_THREAD). 0; -ENOMEM (nothing
 * done); -EAGAIN when the process is exiting already (exit_group, a fatal
 * signal, another thread's execve): the caller fails and dies on its way
 * to user mode. Sleeps; no lock held.
 */
int thread_group_exec(void);
/*
 * thread_group_leave_locked: t starts to exit (first thing in task_exit,
 * as Linux decrements signal->live before the child-tid wake-up): it
 * leaves the live count; true when it was the group's last thread. *status
 * becomes the group exit's status, or the group's when t is last
 * (sched_lock held).
 * thread_release_dead_locked: t, an ended thread that is not (or no
 * longer) its group's leader and that nobody waits for, is unlinked from
 * the task list and freed: at once when it is off its CPU (an old leader
 * replaced by an execve), else by the next task on its CPU right after the
 * switch away from it (the end of task_exit; kernel/sched/sched.c). sched_lock held.
 */
bool thread_group_leave_locked(struct task *t, int *status);
void thread_release_dead_locked(struct task *t);


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

/*
 * out_of_memory (kernel/mm/oom_kill.c): a user page fault of current found no
 * page even after reclaim. Sends SIGKILL to the process with the largest
 * footprint (pid 1 last; maybe current's own, which then dies on its way
 * back to user mode), with a report, unless an earlier victim is still
 * exiting; when another process was chosen (or is exiting) current yields
 * so that it can free its memory. The caller returns to user mode, where
 * the fault is retried (or retries a kernel copy itself). Returns false when
 * nobody could be chosen (every process is exiting already): a retry would
 * find no more memory. No lock held.
 */
bool out_of_memory(void);

/*
 * Kernel threads (kernel/sched/kthread.c): kthread_create makes a task that runs
 * fn(arg) in the kernel, on CPU cpu only (or anywhere when cpu < 0), with
 * no address space; kthread_start makes it runnable. When fn returns (or
 * the thread calls kthread_exit) it becomes a zombie that kthread_join
 * frees. kthread_use_mm / kthread_unuse_mm let the running kernel thread
 * work in a user address space (its page tables loaded, user copies and
 * faults as a task of that mm); unuse before exiting.
 */
struct task *kthread_create(void (*fn)(void *), void *arg, int cpu, const char *name);
void kthread_start(struct task *t);
void kthread_join(struct task *t);
__attribute__((noreturn)) void kthread_exit(void);
void kthread_use_mm(struct mm *mm);
void kthread_unuse_mm(void);

/* Architecture hooks (arch/x86_64/process.c). */
void arch_task_setup_stack(struct task *t);     /* first switch-in enters user mode via t->tf */
void arch_task_setup_kthread(struct task *t);   /* first switch-in calls t->kthread_fn(t->kthread_arg) */
void arch_switch_to(struct task *prev, struct task *next);
void arch_set_current(struct task *t);
void arch_task_reset_fpu(struct task *t);       /* FPU image as after exec */
void arch_task_save_fpu(struct task *t);        /* live FPU -> t's image (t running) */
void arch_task_load_fpu(struct task *t);        /* t's image -> live FPU (t running) */
void arch_set_fs_base(struct task *t, uint64_t base);
void arch_set_gs_base(struct task *t, uint64_t base);

/* signal_pending_set: the signals pending for t, its own and its thread group's. */
static inline ksigset_t signal_pending_set(const struct task *t)
{
	return t->sig.pending.set | (t->group ? t->group->pending.set : 0);
}

/* signal_pending: some unblocked signal (or one rt_sigtimedwait waits for) is pending for t. */
static inline bool signal_pending(const struct task *t)
{
	return (signal_pending_set(t) & (~t->sig.blocked | t->sig.waiting)) != 0;
}

#endif
