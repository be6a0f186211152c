/*
 * System-call dispatch (include/syscall.h): the table of implemented calls
 * (Linux x86-64 numbers), everything else -ENOSYS. docs/abi.md documents
 * each call's behaviour and where it differs from Linux.
 */
#include "syscall_internal.h"
#include "task.h"
#include "mm.h"
#include "x86.h"
#include "kerrno.h"


static const syscall_fn syscall_table[NR_SYSCALLS] = {
	[__NR_read] = sys_read,
	[__NR_write] = sys_write,
	[__NR_open] = sys_open,
	[__NR_close] = sys_close,
	[__NR_fstat] = sys_fstat,
	[__NR_mmap] = sys_mmap,
	[__NR_mprotect] = sys_mprotect,
	[__NR_munmap] = sys_munmap,
	[__NR_brk] = sys_brk,
	[__NR_rt_sigaction] = sys_rt_sigaction,
	[__NR_rt_sigprocmask] = sys_rt_sigprocmask,
	[__NR_rt_sigreturn] = sys_rt_sigreturn,
	[__NR_ioctl] = sys_ioctl,
	[__NR_readv] = sys_readv,
	[__NR_writev] = sys_writev,
	[__NR_sched_yield] = sys_sched_yield,
	[__NR_mremap] = sys_mremap,
	[__NR_mincore] = sys_mincore,
	[__NR_madvise] = sys_madvise,
	[__NR_nanosleep] = sys_nanosleep,
	[__NR_getpid] = sys_getpid,
	[__NR_fork] = sys_fork,
	[__NR_vfork] = sys_fork,
	[__NR_execve] = sys_execve,
	[__NR_exit] = sys_exit,
	[__NR_wait4] = sys_wait4,
	[__NR_kill] = sys_kill,
	[__NR_uname] = sys_uname,
	[__NR_gettimeofday] = sys_gettimeofday,
	[__NR_getuid] = sys_getuid,
	[__NR_getgid] = sys_getuid,
	[__NR_geteuid] = sys_getuid,
	[__NR_getegid] = sys_getuid,
	[__NR_getppid] = sys_getppid,
	[__NR_sigaltstack] = sys_sigaltstack,
	[__NR_prctl] = sys_prctl,
	[__NR_arch_prctl] = sys_arch_prctl,
	[__NR_gettid] = sys_gettid,
	[__NR_time] = sys_time,
	[__NR_tkill] = sys_tkill,
	[__NR_set_tid_address] = sys_set_tid_address,
	[__NR_clock_gettime] = sys_clock_gettime,
	[__NR_clock_getres] = sys_clock_getres,
	[__NR_clock_nanosleep] = sys_clock_nanosleep,
	[__NR_exit_group] = sys_exit,
	[__NR_tgkill] = sys_tgkill,
	[__NR_getrandom] = sys_getrandom,
	[__NR_getrlimit] = sys_getrlimit,
	[__NR_lseek] = sys_lseek,
	[__NR_openat] = sys_openat,
	[__NR_prlimit64] = sys_prlimit64,
};

int syscall_dispatch(struct trap_frame *tf)
{
	uint64_t nr = tf->rax;
	syscall_fn fn = NULL;
	long ret;

	current->tf = tf;
	sti();
	if (nr < NR_SYSCALLS)
		fn = syscall_table[nr];
	else if (nr == __NR_vmk_memstat)
		fn = sys_vmk_memstat;
	else if (nr == __NR_vmk_profile)
		fn = sys_vmk_profile;
	else if (nr == __NR_vmk_vmdump)
		fn = sys_vmk_vmdump;
	ret = fn ? fn(tf, tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9) : -ENOSYS;
	tf->rax = (uint64_t)ret;
	exit_to_user(tf);
	/* SYSRET only when it restores exactly what IRET would, at a canonical user rip */
	return tf->rcx == tf->rip && tf->r11 == tf->rflags && tf->rip < TASK_SIZE &&
	       tf->cs == USER_CS && tf->ss == USER_DS &&
	       (tf->rflags & (RFLAGS_IF | RFLAGS_TF | RFLAGS_RF)) == RFLAGS_IF;
}
