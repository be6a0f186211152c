/*
 * usignal.h - signals for user programs (Linux x86-64 kernel ABI).
 *
 * sigaction() always installs our SA_RESTORER trampoline (__urestore_rt,
 * which calls rt_sigreturn), as Linux x86-64 requires of user space.
 */
#ifndef USIGNAL_H
#define USIGNAL_H

#include <stdint.h>
#include "linux_signal.h"

#define SIG_DFL ((void (*)(int))0)
#define SIG_IGN ((void (*)(int))1)

/* The kernel's 64-bit signal set (what rt_sigprocmask takes, size 8). */
typedef uint64_t sigset_t;

/* The kernel's siginfo_t (128 bytes); only the common fields are named. */
typedef struct {
	int si_signo;
	int si_errno;
	int si_code;
	int __pad0;
	void *si_addr;          /* fault address for SIGSEGV/SIGBUS */
	char __rest[128 - 24];
} siginfo_t;

/* User-facing sigaction (the layout of the kernel's struct for x86-64). */
struct sigaction {
	union {
		void (*sa_handler)(int);
		void (*sa_sigaction)(int, siginfo_t *, void *);
	};
	unsigned long sa_flags;
	void (*sa_restorer)(void);
	sigset_t sa_mask;
};

#define sigmask_of(sig) (1ULL << ((sig) - 1))

/*
 * sigaction - install act (if not NULL) for sig and return the previous
 * action in old (if not NULL). SA_RESTORER and our trampoline are added.
 * Returns 0 or -1 with errno set.
 */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* sigprocmask - rt_sigprocmask on a 64-bit set. Returns 0 or -1 (errno). */
int sigprocmask(int how, const sigset_t *set, sigset_t *old);

/* The SA_RESTORER trampoline: issues rt_sigreturn. Never call it directly. */
void __urestore_rt(void);

#endif
