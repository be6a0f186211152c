/*
 * Signals, Linux x86-64 ABI: numbers, the kernel's struct sigaction, the
 * per-task signal state and delivery (kernel/signal.c).
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

#define SIGHUP    1
#define SIGINT    2
#define SIGQUIT   3
#define SIGILL    4
#define SIGTRAP   5
#define SIGABRT   6
#define SIGBUS    7
#define SIGFPE    8
#define SIGKILL   9
#define SIGUSR1  10
#define SIGSEGV  11
#define SIGUSR2  12
#define SIGPIPE  13
#define SIGALRM  14
#define SIGTERM  15
#define SIGSTKFLT 16
#define SIGCHLD  17
#define SIGCONT  18
#define SIGSTOP  19
#define SIGTSTP  20
#define SIGTTIN  21
#define SIGTTOU  22
#define SIGURG   23
#define SIGXCPU  24
#define SIGXFSZ  25
#define SIGVTALRM 26
#define SIGPROF  27
#define SIGWINCH 28
#define SIGIO    29
#define SIGPWR   30
#define SIGSYS   31
#define NSIG_STD 31             /* signals 1..31 are supported */
#define KNSIG    64             /* the ABI's sigset has 64 bits */

#define SA_SIGINFO   0x00000004UL
#define SA_RESTORER  0x04000000UL
#define SA_ONSTACK   0x08000000UL
#define SA_RESTART   0x10000000UL
#define SA_NODEFER   0x40000000UL
#define SA_RESETHAND 0x80000000UL

#define SIG_BLOCK   0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

#define SIG_DFL 0UL
#define SIG_IGN 1UL

/* si_code values. */
#define SI_USER     0
#define SI_KERNEL   0x80
#define SI_TKILL    (-6)
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define BUS_ADRERR  2
#define ILL_ILLOPN  2
#define FPE_INTDIV  1
#define TRAP_BRKPT  1

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
	};
	uint8_t rest[128 - 24];
};

struct task_signals {
	struct k_sigaction action[NSIG_STD + 1];        /* index = signal number */
	ksigset_t blocked;
	ksigset_t pending;
	struct k_siginfo info[NSIG_STD + 1];            /* of the pending instance */
};

struct task;
struct trap_frame;

/* signal_init_task: default actions, nothing blocked or pending (exec keeps blocked; see signal_exec). */
void signal_init_task(struct task *t);
/* signal_fork: the child inherits actions and the blocked set, nothing pending. */
void signal_fork(struct task *child, const struct task *parent);
/* signal_exec: handlers reset to SIG_DFL (ignored ones stay ignored), blocked and pending kept. */
void signal_exec(struct task *t);

/* send_signal: queue sig for t (kill/tkill); 0, -EINVAL bad sig. sig 0: just 0. Wakes a sleeping t. */
int send_signal(struct task *t, int sig, int code, int sender_pid);

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


/* signal_deliver: called on return to user mode: deliver one pending unblocked signal (or terminate). */
void signal_deliver(struct trap_frame *tf);
/* signal_pending: some unblocked signal is pending for t. */
bool signal_pending(const struct task *t);

/* The name of sig ("SIGSEGV"), or "SIG?" */
const char *signal_name(int sig);

#endif
