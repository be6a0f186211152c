/*
 * System-call numbers: Linux x86-64's (arch/x86/entry/syscalls/syscall_64.tbl)
 * for the calls this kernel implements or its user programs make. Shared by
 * the kernel's table (kernel/syscall.c, include/syscall.h) and the user libc
 * (user/include/usys.h); definitions only, no types. A program built against
 * them runs unchanged on Linux and here.
 */
#ifndef UAPI_SYSCALL_NR_H
#define UAPI_SYSCALL_NR_H

#define __NR_read             0
#define __NR_write            1
#define __NR_open             2
#define __NR_close            3
#define __NR_stat             4
#define __NR_fstat            5
#define __NR_lstat            6
#define __NR_poll             7
#define __NR_lseek            8
#define __NR_mmap             9
#define __NR_mprotect         10
#define __NR_munmap           11
#define __NR_brk              12
#define __NR_rt_sigaction     13
#define __NR_rt_sigprocmask   14
#define __NR_rt_sigreturn     15
#define __NR_ioctl            16
#define __NR_pread64          17
#define __NR_pwrite64         18
#define __NR_readv            19
#define __NR_writev           20
#define __NR_access           21
#define __NR_pipe             22
#define __NR_select           23
#define __NR_sched_yield      24
#define __NR_mremap           25
#define __NR_mincore          27
#define __NR_madvise          28
#define __NR_dup              32
#define __NR_dup2             33
#define __NR_pause            34
#define __NR_nanosleep        35
#define __NR_getitimer        36
#define __NR_alarm            37
#define __NR_setitimer        38
#define __NR_getpid           39
#define __NR_clone            56
#define __NR_fork             57
#define __NR_vfork            58
#define __NR_execve           59
#define __NR_exit             60
#define __NR_wait4            61
#define __NR_kill             62
#define __NR_uname            63
#define __NR_fcntl            72
#define __NR_getcwd           79
#define __NR_chdir            80
#define __NR_fchdir           81
#define __NR_readlink         89
#define __NR_gettimeofday     96
#define __NR_getrlimit        97
#define __NR_sysinfo          99
#define __NR_getuid           102
#define __NR_getgid           104
#define __NR_geteuid          107
#define __NR_getegid          108
#define __NR_setpgid          109
#define __NR_getppid          110
#define __NR_getpgrp          111
#define __NR_setsid           112
#define __NR_getgroups        115
#define __NR_getpgid          121
#define __NR_getsid           124
#define __NR_rt_sigpending    127
#define __NR_rt_sigqueueinfo  129
#define __NR_rt_sigsuspend    130
#define __NR_sigaltstack      131
#define __NR_prctl            157
#define __NR_arch_prctl       158
#define __NR_reboot           169
#define __NR_gettid           186
#define __NR_tkill            200
#define __NR_time             201
#define __NR_futex            202
#define __NR_sched_setaffinity 203
#define __NR_getdents64       217
#define __NR_set_tid_address  218
#define __NR_clock_gettime    228
#define __NR_clock_getres     229
#define __NR_clock_nanosleep  230
#define __NR_exit_group       231
#define __NR_tgkill           234
#define __NR_openat           257
#define __NR_newfstatat       262
#define __NR_readlinkat       267
#define __NR_faccessat        269
#define __NR_pselect6         270
#define __NR_ppoll            271
#define __NR_set_robust_list  273
#define __NR_get_robust_list  274
#define __NR_dup3             292
#define __NR_pipe2            293
#define __NR_prlimit64        302
#define __NR_getcpu           309
#define __NR_getrandom        318
#define __NR_statx            332
#define __NR_rseq             334
#define __NR_clone3           435
#define __NR_faccessat2       439

#endif
