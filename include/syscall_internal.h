/* The system-call handler prototypes, for the table (kernel/syscall.c) and the handlers in kernel/ and fs/ (sys_*.c and others). */
#ifndef SYSCALL_INTERNAL_H
#define SYSCALL_INTERNAL_H

#include "syscall.h"

#define SYSCALL_ARGS struct trap_frame *tf, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, \
	uint64_t a4, uint64_t a5
#define DECLARE_SYSCALL(name) long sys_##name(SYSCALL_ARGS)

/* rusage_times_to_user: a struct rusage with these CPU times and nothing else at uru (wait4's); 0 or -EFAULT. */
long rusage_times_to_user(void *uru, uint64_t user_ns, uint64_t sys_ns);

DECLARE_SYSCALL(read);
DECLARE_SYSCALL(write);
DECLARE_SYSCALL(open);
DECLARE_SYSCALL(close);
DECLARE_SYSCALL(fstat);
DECLARE_SYSCALL(getxattr);
DECLARE_SYSCALL(lgetxattr);
DECLARE_SYSCALL(fgetxattr);
DECLARE_SYSCALL(listxattr);
DECLARE_SYSCALL(llistxattr);
DECLARE_SYSCALL(flistxattr);
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
DECLARE_SYSCALL(sched_setaffinity);
DECLARE_SYSCALL(sched_getaffinity);
DECLARE_SYSCALL(epoll_create);
DECLARE_SYSCALL(epoll_create1);
DECLARE_SYSCALL(epoll_ctl);
DECLARE_SYSCALL(epoll_wait);
DECLARE_SYSCALL(epoll_pwait);
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
DECLARE_SYSCALL(vmk_check);
DECLARE_SYSCALL(getrlimit);
DECLARE_SYSCALL(lseek);
DECLARE_SYSCALL(openat);
DECLARE_SYSCALL(prlimit64);
DECLARE_SYSCALL(getdents64);
DECLARE_SYSCALL(getgroups);

DECLARE_SYSCALL(poll);
DECLARE_SYSCALL(select);
DECLARE_SYSCALL(ppoll);
DECLARE_SYSCALL(pselect6);

DECLARE_SYSCALL(readlink);
DECLARE_SYSCALL(readlinkat);
DECLARE_SYSCALL(getpgrp);
DECLARE_SYSCALL(getpgid);
DECLARE_SYSCALL(getsid);
DECLARE_SYSCALL(setpgid);
DECLARE_SYSCALL(setsid);

DECLARE_SYSCALL(vfork);
DECLARE_SYSCALL(clone);
DECLARE_SYSCALL(futex);
DECLARE_SYSCALL(set_robust_list);
DECLARE_SYSCALL(get_robust_list);
DECLARE_SYSCALL(rseq);
DECLARE_SYSCALL(alarm);
DECLARE_SYSCALL(getitimer);
DECLARE_SYSCALL(setitimer);
DECLARE_SYSCALL(pause);
DECLARE_SYSCALL(sysinfo);
DECLARE_SYSCALL(rt_sigsuspend);
DECLARE_SYSCALL(rt_sigtimedwait);
DECLARE_SYSCALL(rt_sigqueueinfo);
DECLARE_SYSCALL(rt_sigpending);
DECLARE_SYSCALL(clone3);

DECLARE_SYSCALL(stat);
DECLARE_SYSCALL(lstat);
DECLARE_SYSCALL(creat);
DECLARE_SYSCALL(memfd_create);
DECLARE_SYSCALL(ftruncate);
DECLARE_SYSCALL(truncate);
DECLARE_SYSCALL(fsync);
DECLARE_SYSCALL(umask);
DECLARE_SYSCALL(chmod);
DECLARE_SYSCALL(fchmod);
DECLARE_SYSCALL(fchmodat);
DECLARE_SYSCALL(mkdir);
DECLARE_SYSCALL(mkdirat);
DECLARE_SYSCALL(rmdir);
DECLARE_SYSCALL(unlink);
DECLARE_SYSCALL(unlinkat);
DECLARE_SYSCALL(rename);
DECLARE_SYSCALL(renameat);
DECLARE_SYSCALL(renameat2);
DECLARE_SYSCALL(symlink);
DECLARE_SYSCALL(symlinkat);
DECLARE_SYSCALL(link);
DECLARE_SYSCALL(linkat);
DECLARE_SYSCALL(msync);
DECLARE_SYSCALL(pread64);
DECLARE_SYSCALL(pwrite64);
DECLARE_SYSCALL(access);
DECLARE_SYSCALL(pipe);
DECLARE_SYSCALL(dup);
DECLARE_SYSCALL(dup2);
DECLARE_SYSCALL(fcntl);
DECLARE_SYSCALL(getcwd);
DECLARE_SYSCALL(chdir);
DECLARE_SYSCALL(fchdir);
DECLARE_SYSCALL(newfstatat);
DECLARE_SYSCALL(faccessat);
DECLARE_SYSCALL(dup3);
DECLARE_SYSCALL(pipe2);
DECLARE_SYSCALL(statx);
DECLARE_SYSCALL(faccessat2);

DECLARE_SYSCALL(getcpu);

/* random_to_user (fs/devices.c): len pseudo-random bytes to user ubuf; bytes, or -EFAULT. */
long random_to_user(uint64_t ubuf, uint64_t len);

/* file attributes, credentials, resource use, file locks */
DECLARE_SYSCALL(utimensat);
DECLARE_SYSCALL(chown);
DECLARE_SYSCALL(fchown);
DECLARE_SYSCALL(lchown);
DECLARE_SYSCALL(fchownat);
DECLARE_SYSCALL(setuid);
DECLARE_SYSCALL(setreuid);
DECLARE_SYSCALL(setresuid);
DECLARE_SYSCALL(getresuid);
DECLARE_SYSCALL(setfsuid);
DECLARE_SYSCALL(setgroups);
DECLARE_SYSCALL(getrusage);
DECLARE_SYSCALL(flock);

#endif
