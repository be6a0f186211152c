/* Private to kernel/sys_*.c and kernel/syscall.c: the handler prototypes. */
#ifndef SYSCALL_INTERNAL_H
#define SYSCALL_INTERNAL_H

#include "syscall.h"

#define SYSCALL_ARGS struct trap_frame *tf, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, \
	uint64_t a4, uint64_t a5
#define DECLARE_SYSCALL(name) long sys_##name(SYSCALL_ARGS)

DECLARE_SYSCALL(read);
DECLARE_SYSCALL(write);
DECLARE_SYSCALL(open);
DECLARE_SYSCALL(close);
DECLARE_SYSCALL(fstat);
DECLARE_SYSCALL(readv);
DECLARE_SYSCALL(writev);
DECLARE_SYSCALL(ioctl);
DECLARE_SYSCALL(mmap);
DECLARE_SYSCALL(mprotect);
DECLARE_SYSCALL(munmap);
DECLARE_SYSCALL(brk);
DECLARE_SYSCALL(mremap);
DECLARE_SYSCALL(mincore);
DECLARE_SYSCALL(madvise);
DECLARE_SYSCALL(rt_sigaction);
DECLARE_SYSCALL(rt_sigprocmask);
DECLARE_SYSCALL(rt_sigreturn);
DECLARE_SYSCALL(sigaltstack);
DECLARE_SYSCALL(kill);
DECLARE_SYSCALL(tkill);
DECLARE_SYSCALL(tgkill);
DECLARE_SYSCALL(sched_yield);
DECLARE_SYSCALL(nanosleep);
DECLARE_SYSCALL(clock_nanosleep);
DECLARE_SYSCALL(getpid);
DECLARE_SYSCALL(gettid);
DECLARE_SYSCALL(getppid);
DECLARE_SYSCALL(getuid);
DECLARE_SYSCALL(fork);
DECLARE_SYSCALL(execve);
DECLARE_SYSCALL(exit);
DECLARE_SYSCALL(exit_group);
DECLARE_SYSCALL(wait4);
DECLARE_SYSCALL(uname);
DECLARE_SYSCALL(prctl);
DECLARE_SYSCALL(arch_prctl);
DECLARE_SYSCALL(set_tid_address);
DECLARE_SYSCALL(clock_gettime);
DECLARE_SYSCALL(clock_getres);
DECLARE_SYSCALL(gettimeofday);
DECLARE_SYSCALL(time);
DECLARE_SYSCALL(getrandom);
DECLARE_SYSCALL(vmk_memstat);
DECLARE_SYSCALL(vmk_profile);
DECLARE_SYSCALL(vmk_vmdump);
DECLARE_SYSCALL(getrlimit);
DECLARE_SYSCALL(lseek);
DECLARE_SYSCALL(openat);
DECLARE_SYSCALL(prlimit64);

#endif
