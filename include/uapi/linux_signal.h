/*
 * Linux x86-64 signal numbers and sigaction constants of the system-call
 * ABI. Shared by the kernel (include/signal.h) and the user libc
 * (user/include/usignal.h); definitions only, no types.
 */
#ifndef UAPI_LINUX_SIGNAL_H
#define UAPI_LINUX_SIGNAL_H

#define SIGHUP     1
#define SIGINT     2
#define SIGQUIT    3
#define SIGILL     4
#define SIGTRAP    5
#define SIGABRT    6
#define SIGBUS     7
#define SIGFPE     8
#define SIGKILL    9
#define SIGUSR1   10
#define SIGSEGV   11
#define SIGUSR2   12
#define SIGPIPE   13
#define SIGALRM   14
#define SIGTERM   15
#define SIGSTKFLT 16
#define SIGCHLD   17
#define SIGCONT   18
#define SIGSTOP   19
#define SIGTSTP   20
#define SIGTTIN   21
#define SIGTTOU   22
#define SIGURG    23
#define SIGXCPU   24
#define SIGXFSZ   25
#define SIGVTALRM 26
#define SIGPROF   27
#define SIGWINCH  28
#define SIGIO     29
#define SIGPWR    30
#define SIGSYS    31

#define SA_NOCLDSTOP 0x00000001UL
#define SA_NOCLDWAIT 0x00000002UL
#define SA_SIGINFO   0x00000004UL
#define SA_RESTORER  0x04000000UL
#define SA_ONSTACK   0x08000000UL
#define SA_RESTART   0x10000000UL
#define SA_NODEFER   0x40000000UL
#define SA_RESETHAND 0x80000000UL

/* sigaltstack */
#define SS_ONSTACK    1
#define SS_DISABLE    2
#define SS_AUTODISARM (1U << 31)

#define SIG_BLOCK   0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

/* si_code values */
#define SI_USER     0
#define SI_KERNEL   0x80
#define SI_QUEUE    (-1)
#define SI_TKILL    (-6)
#define CLD_EXITED  1
#define CLD_KILLED  2
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define SEGV_PKUERR 4
#define BUS_ADRERR  2
#define ILL_ILLOPN  2
#define FPE_INTDIV  1
#define TRAP_BRKPT  1

#endif
