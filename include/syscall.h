/*
 * The system-call table (Linux x86-64 numbers). Entry: SYSCALL with the
 * number in rax and arguments in rdi, rsi, rdx, r10, r8, r9; result in rax
 * (-errno in [-4095, -1]); rcx and r11 are clobbered (docs/abi.md lists the
 * calls this kernel implements and how each differs from Linux).
 *
 * Handlers are long sys_NAME(struct trap_frame *tf, uint64_t a0 .. a5);
 * most ignore tf; fork, execve, rt_sigreturn and arch_prctl use it.
 */
#ifndef SYSCALL_H
#define SYSCALL_H

#include "types.h"

struct trap_frame;

typedef long (*syscall_fn)(struct trap_frame *tf, uint64_t a0, uint64_t a1, uint64_t a2,
			   uint64_t a3, uint64_t a4, uint64_t a5);

#define __NR_read            0
#define __NR_write           1
#define __NR_open            2
#define __NR_close           3
#define __NR_fstat           5
#define __NR_lseek           8
#define __NR_mmap            9
#define __NR_mprotect        10
#define __NR_munmap          11
#define __NR_brk             12
#define __NR_rt_sigaction    13
#define __NR_rt_sigprocmask  14
#define __NR_rt_sigreturn    15
#define __NR_ioctl           16
#define __NR_readv           19
#define __NR_writev          20
#define __NR_sched_yield     24
#define __NR_mremap          25
#define __NR_mincore         27
#define __NR_madvise         28
#define __NR_nanosleep       35
#define __NR_getpid          39
#define __NR_fork            57
#define __NR_vfork           58
#define __NR_execve          59
#define __NR_exit            60
#define __NR_wait4           61
#define __NR_kill            62
#define __NR_uname           63
#define __NR_getrlimit       97
#define __NR_gettimeofday    96
#define __NR_getuid          102
#define __NR_getgid          104
#define __NR_geteuid         107
#define __NR_getegid         108
#define __NR_getppid         110
#define __NR_sigaltstack     131
#define __NR_prctl           157
#define __NR_arch_prctl      158
#define __NR_gettid          186
#define __NR_time            201
#define __NR_tkill           200
#define __NR_set_tid_address 218
#define __NR_clock_gettime   228
#define __NR_clock_getres    229
#define __NR_clock_nanosleep 230
#define __NR_exit_group      231
#define __NR_openat          257
#define __NR_tgkill          234
#define __NR_prlimit64       302
#define __NR_getrandom       318
#define NR_SYSCALLS          512

/*
 * This kernel's own calls, above Linux's range (Linux answers -ENOSYS, so
 * programs can tell where they run): memory statistics for the user tests,
 * and the profiler's counters (include/uapi/vmk_profile.h).
 */
#define __NR_vmk_memstat     1000
#define __NR_vmk_profile     1001
#define NR_SYSCALLS_VMK      1002

/* What vmk_memstat(struct vmk_memstat *out, size) fills in (a prefix if size is smaller). */
struct vmk_memstat {
	uint64_t free_frames;           /* pmm_free_frames() */
	uint64_t rss;                   /* the caller's resident anonymous pages (mm counter) */
	uint64_t faults;                /* page faults of the caller's mm */
	uint64_t cow_copies;            /* COW copies made in the caller's mm */
	uint64_t zero_maps;             /* shared-zero-page maps in the caller's mm */
	uint64_t tasks;                 /* live tasks */
};

/*
 * syscall_dispatch: called by the SYSCALL entry with the saved frame
 * (interrupts off): enables interrupts, runs the handler, stores the result
 * in tf->rax, runs exit_to_user. Returns 1 when the frame can return with
 * SYSRET (rcx == rip, r11 == rflags, rip canonical user), 0 for IRET.
 */
int syscall_dispatch(struct trap_frame *tf);

#endif
