/*
 * Signals, Linux x86-64 ABI: numbers, the kernel's struct sigaction, the
 * per-task signal state and delivery (kernel/signal/signal.c).
 *
 * Delivery happens on the way back to user mode (exit_to_user): a handled
 * signal gets Linux's rt_sigframe on the user stack (return address =
 * sa_restorer, ucontext, siginfo, FXSAVE state), SIG_DFL terminates (or is
 * ignored for SIGCHLD, SIGURG, SIGWINCH, SIGCONT; stop signals are ignored:
 * there is no job control), SIG_IGN discards. Only standard signals 1..31
 * exist (no real-time queueing: one pending instance each).
 */
#ifndef SIGNAL_H
#define SIGNAL_H

#include "types.h"
#include "uapi/linux_signal.h"

#define NSIG_STD 31             /* signals 1..31 are supported */
#define KNSIG    64             /* the ABI's sigset has 64 bits */

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

/* A task's own signal state (actions: struct sighand; process-directed pending: struct thread_group). */
struct task_signals {
	ksigset_t blocked;
	ksigset_t pending;
	struct k_siginfo info[NSIG_STD + 1];            /* of the pending instance */
	uint64_t sas_sp, sas_size;                      /* sigaltstack; size 0: none */
	uint32_t sas_flags;                             /* SS_AUTODISARM or 0 */
	ksigset_t saved_mask;                           /* rt_sigsuspend: the set to restore */
	bool restore_mask;                              /* ... after the next handler (or syscall exit) */
};

struct task;
struct trap_frame;

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

/* signal_deliver: called on return to user mode: deliver one pending unblocked signal (or terminate). */
void signal_deliver(struct trap_frame *tf);
/* signal_pending: some unblocked signal is pending for t. */
bool signal_pending(const struct task *t);
/*
 * fatal_signal_pending: SIGKILL is pending for t (its own or its process's):
 * t dies on its way back to user mode, so a kernel loop that would keep it
 * from getting there gives up (a user copy retrying a fault). Lockless.
 */
bool fatal_signal_pending(const struct task *t);

/* on_sig_stack: sp lies on t's alternate signal stack. sas_flags: SS_DISABLE, SS_ONSTACK or 0 for sp. */
bool on_sig_stack(const struct task *t, uint64_t sp);
int sas_flags(const struct task *t, uint64_t sp);
/*
 * sigaltstack_set: install (or with SS_DISABLE remove) t's alternate
 * signal stack, sp being t's user stack pointer now. 0; -EPERM while on
 * it; -EINVAL bad flags; -ENOMEM smaller than MINSIGSTKSZ (2048).
 */
int sigaltstack_set(struct task *t, uint64_t ss_sp, int32_t ss_flags, uint64_t ss_size, uint64_t sp);

/* tf->error of a SYSCALL frame that must not be restarted (after rt_sigreturn, or a restart). */
#define SYSCALL_NO_RESTART (~0ULL)
/* syscall_restart_fixup: turn an -ERESTART* result into -EINTR or a restart (kernel/signal/signal.c). */
void syscall_restart_fixup(struct trap_frame *tf, bool handler, bool sa_restart);

/* The name of sig ("SIGSEGV"), or "SIG?" */
const char *signal_name(int sig);

#endif
