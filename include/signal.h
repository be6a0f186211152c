/*
 * Signals, Linux x86-64 ABI: numbers, the kernel's struct sigaction, the
 * per-task signal state and delivery (kernel/signal/signal.c).
 *
 * Delivery happens on the way back to user mode (exit_to_user): a handled
 * signal gets Linux's rt_sigframe on the user stack (return address =
 * sa_restorer, ucontext, siginfo, FXSAVE state), SIG_DFL terminates (or is
 * ignored for SIGCHLD, SIGURG, SIGWINCH, SIGCONT; stop signals are ignored:
 * there is no job control), SIG_IGN discards. Signals 1..64 exist, as on
 * Linux: a standard signal (1..31) is pending at most once (a second one
 * sent meanwhile is merged into it), a real-time one (32..64) queues every
 * instance with its own siginfo, delivered oldest first
 * (kernel/signal/sigqueue.c).
 */
#ifndef SIGNAL_H
#define SIGNAL_H

#include "types.h"
#include "list.h"
#include "uapi/linux_signal.h"

#define NSIG_STD 31             /* standard signals 1..31: one pending instance each */
#define SIGRTMIN_K 32           /* real-time signals 32..64: queued */
#define KNSIG    64             /* the ABI's sigset has 64 bits: signals 1..64 */
#define SIGQUEUE_MAX 1024       /* queued real-time signals per pending set (Linux: RLIMIT_SIGPENDING) */

#define SIG_DFL 0UL
#define SIG_IGN 1UL


typedef uint64_t ksigset_t;
#define sig_bit(sig) (1ULL << ((sig) - 1))

/* struct sigaction as rt_sigaction passes it on x86-64 (sa_mask last). */
struct k_sigaction {
	uint64_t handler;       /* SIG_DFL, SIG_IGN or a user address */
	uint64_t flags;
	uint64_t restorer;
	ksigset_t mask;
};

/* The kernel's siginfo_t: 128 bytes. */
struct k_siginfo {
	int32_t si_signo;
	int32_t si_errno;
	int32_t si_code;
	int32_t pad0;
	union {
		uint64_t addr;                          /* SIGSEGV/SIGBUS/SIGILL/SIGFPE: fault address */
		struct { int32_t pid; uint32_t uid; } kill;     /* kill/tkill */
		struct {                                        /* SIGCHLD */
			int32_t pid;
			uint32_t uid;
			int32_t status;                         /* exit code, or the signal */
			int32_t pad;
			int64_t utime, stime;
		} chld;
		uint8_t raw[128 - 16];
	};
};

/* One queued real-time signal (kernel/signal/sigqueue.c). */
struct sigqueue_k {
	struct list_head link;
	struct k_siginfo info;
};

/*
 * A set of pending signals, a thread's own or its process's [sched]: bit
 * sig - 1 of set while sig is pending; a standard signal's siginfo in
 * info[sig], a real-time signal's instances in rt (oldest first, nqueued
 * of them). A real-time bit without an entry: an instance whose siginfo
 * was lost (queue full on a kill), delivered as SI_USER with no sender.
 */
struct sigpending_k {
	ksigset_t set;
	struct k_siginfo info[NSIG_STD + 1];
	struct list_head rt;
	int nqueued;
};

/* A task's own signal state (actions: struct sighand; process-directed pending: struct thread_group). */
struct task_signals {
	ksigset_t blocked;
	struct sigpending_k pending;                    /* thread-directed (tkill, tgkill, faults) */
	uint64_t sas_sp, sas_size;                      /* sigaltstack; size 0: none */
	uint32_t sas_flags;                             /* SS_AUTODISARM or 0 */
	ksigset_t saved_mask;                           /* rt_sigsuspend: the set to restore */
	bool restore_mask;                              /* ... after the next handler (or syscall exit) */
	ksigset_t waiting;                              /* rt_sigtimedwait: its set wakes it, blocked or not */
};

struct task;
struct trap_frame;

/* sigpending_init: an empty set (list heads linked). */
void sigpending_init(struct sigpending_k *p);
/* sigpending_flush: drop every pending signal, freeing the queued entries. sched_lock held or p unshared. */
void sigpending_flush(struct sigpending_k *p);
/*
 * sigpending_add_locked: make info->si_signo pending in p: a standard
 * signal already pending is merged (its first siginfo kept), a real-time
 * one queued. 0, or -EAGAIN when a real-time signal finds the queue full
 * (or no memory) and is not from kill (SI_USER: then it is still made
 * pending, without its siginfo, as Linux). sched_lock held.
 */
int sigpending_add_locked(struct sigpending_k *p, const struct k_siginfo *info);
/* sigpending_take_locked: take the oldest instance of sig (pending in p) into *info. sched_lock held. */
void sigpending_take_locked(struct sigpending_k *p, int sig, struct k_siginfo *info);
/* sigpending_discard_locked: drop every pending instance of sig (its action became "ignore"). */
void sigpending_discard_locked(struct sigpending_k *p, int sig);

/* signal_init_task: default actions, nothing blocked or pending (exec keeps blocked; see signal_exec). */
void signal_init_task(struct task *t);
/* signal_fork: the child inherits actions and the blocked set, nothing pending. */
void signal_fork(struct task *child, const struct task *parent);
/* signal_exec: handlers reset (signal_reset_handlers), the alternate stack dropped, blocked and pending kept. */
void signal_exec(struct task *t);
/*
 * signal_reset_handlers: every action back to SIG_DFL with no flags, mask
 * or restorer, except that an ignored signal stays ignored (Linux's
 * flush_signal_handlers without force: execve and clone3's
 * CLONE_CLEAR_SIGHAND).
 */
void signal_reset_handlers(struct task *t);

/*
 * send_signal: queue sig for t alone (group false: tkill, tgkill, SIGPIPE)
 * or for t's whole thread group (group true: kill, SIGALRM; any thread not
 * blocking it takes it); 0, -EINVAL bad sig. sig 0: just 0. Wakes t (or
 * the group's threads) when sleeping, and makes one running on another CPU
 * enter the kernel.
 */
int send_signal(struct task *t, int sig, int code, int sender_pid, bool group);
/* send_signal_info: queue info->si_signo with that siginfo (SIGCHLD, rt_sigqueueinfo); as send_signal. */
int send_signal_info(struct task *t, const struct k_siginfo *info, bool group);

/*
 * force_sig_fault: a synchronous fault signal for the current task (from an
 * exception in user mode): if the signal is blocked or ignored it is
 * unblocked and reset to SIG_DFL (Linux force_sig_info_to_task). Delivered
 * on the way back to user mode.
 */
void force_sig_fault(int sig, int code, uintptr_t addr);
/* signal_fatal: forcing sig on t now would kill it (no handler would run). */
bool signal_fatal(const struct task *t, int sig);

/*
 * Console reports while user programs run (fault lines, "killed by
 * signal", OOM) are framed by REPORT_BEGIN/REPORT_END bytes so that
 * tools/run can send them to stderr and keep stdout for the program.
 */
#define REPORT_BEGIN "\x02"
#define REPORT_END   "\x03"
/*
 * report_begin/report_end: the framing for a report about t: REPORT_BEGIN/
 * REPORT_END for init (pid 1, the program tools/run ran: its reports reach
 * stderr), "" for any other process (the kernel log only, as Linux's
 * dmesg: a program's stderr stays what it is on Linux).
 */
const char *report_begin(const struct task *t);
const char *report_end(const struct task *t);

/*
 * signal_deliver: called on return to user mode: deliver one pending
 * unblocked signal (or terminate). When the handler's frame cannot be
 * written, SIGSEGV is forced instead (Linux's force_sigsegv), for the next call.
 */
void signal_deliver(struct trap_frame *tf);
/*
 * signal_dequeue_locked: take a pending signal of set (blocked or not) off
 * t, its own pending signals before its process's, synchronous fault
 * signals first, else the lowest number; its siginfo in *info. The signal,
 * or 0 when none of set is pending. sched_lock held.
 */
int signal_dequeue_locked(struct task *t, ksigset_t set, struct k_siginfo *info);
/* signal_pending: in include/task.h (inline: every return to user mode asks). */
/*
 * fatal_signal_pending: SIGKILL is pending for t (its own or its process's):
 * t dies on its way back to user mode, so a kernel loop that would keep it
 * from getting there gives up (a user copy retrying a fault). Lockless.
 */
bool fatal_signal_pending(const struct task *t);

/* sas_flags: SS_DISABLE, SS_ONSTACK (sp lies on t's alternate signal stack) or 0 for sp. */
int sas_flags(const struct task *t, uint64_t sp);
/*
 * sigaltstack_set: install (or with SS_DISABLE remove) t's alternate
 * signal stack, sp being t's user stack pointer now. 0; -EPERM while on
 * it; -EINVAL bad flags; -ENOMEM smaller than MINSIGSTKSZ (2048).
 */
int sigaltstack_set(struct task *t, uint64_t ss_sp, int32_t ss_flags, uint64_t ss_size, uint64_t sp);

/*
 * signal_temp_mask_user: install the user's sigset at umask (size bytes; 0:
 * none) as the blocked set until the system call ends or a handler runs
 * (ppoll, pselect6, epoll_pwait; restored as for sigsuspend). 0, -EINVAL
 * size != 8, -EFAULT.
 */
long signal_temp_mask_user(uint64_t umask, uint64_t size);

/* tf->error of a SYSCALL frame that must not be restarted (after rt_sigreturn, or a restart). */
#define SYSCALL_NO_RESTART (~0ULL)
/* syscall_restart_fixup: turn an -ERESTART* result into -EINTR or a restart (kernel/signal/signal.c). */
void syscall_restart_fixup(struct trap_frame *tf, bool handler, bool sa_restart);

/* The name of sig ("SIGSEGV"), or "SIG?" */
const char *signal_name(int sig);

#endif
