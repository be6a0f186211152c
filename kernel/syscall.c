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
#include "signal.h"
#include "cmdline.h"
#include "printk.h"


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
	[__NR_sched_setaffinity] = sys_sched_setaffinity,
	[__NR_sched_getaffinity] = sys_sched_getaffinity,
	[__NR_epoll_create] = sys_epoll_create,
	[__NR_epoll_create1] = sys_epoll_create1,
	[__NR_epoll_ctl] = sys_epoll_ctl,
	[__NR_epoll_wait] = sys_epoll_wait,
	[__NR_epoll_pwait] = sys_epoll_pwait,
	[__NR_mremap] = sys_mremap,
	[__NR_mincore] = sys_mincore,
	[__NR_madvise] = sys_madvise,
	[__NR_nanosleep] = sys_nanosleep,
	[__NR_getpid] = sys_getpid,
	[__NR_fork] = sys_fork,
	[__NR_vfork] = sys_vfork,
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
	[__NR_exit_group] = sys_exit_group,
	[__NR_tgkill] = sys_tgkill,
	[__NR_getrandom] = sys_getrandom,
	[__NR_getrlimit] = sys_getrlimit,
	[__NR_lseek] = sys_lseek,
	[__NR_openat] = sys_openat,
	[__NR_prlimit64] = sys_prlimit64,
	[__NR_getdents64] = sys_getdents64,
	[__NR_getxattr] = sys_getxattr,
	[__NR_lgetxattr] = sys_lgetxattr,
	[__NR_fgetxattr] = sys_fgetxattr,
	[__NR_listxattr] = sys_listxattr,
	[__NR_llistxattr] = sys_llistxattr,
	[__NR_flistxattr] = sys_flistxattr,
	[__NR_getgroups] = sys_getgroups,
	[__NR_poll] = sys_poll,
	[__NR_select] = sys_select,
	[__NR_ppoll] = sys_ppoll,
	[__NR_pselect6] = sys_pselect6,
	[__NR_readlink] = sys_readlink,
	[__NR_readlinkat] = sys_readlinkat,
	[__NR_getpgrp] = sys_getpgrp,
	[__NR_getpgid] = sys_getpgid,
	[__NR_getsid] = sys_getsid,
	[__NR_setpgid] = sys_setpgid,
	[__NR_setsid] = sys_setsid,
	[__NR_clone] = sys_clone,
	[__NR_futex] = sys_futex,
	[__NR_set_robust_list] = sys_set_robust_list,
	[__NR_get_robust_list] = sys_get_robust_list,
	[__NR_rseq] = sys_rseq,
	[__NR_alarm] = sys_alarm,
	[__NR_getitimer] = sys_getitimer,
	[__NR_setitimer] = sys_setitimer,
	[__NR_pause] = sys_pause,
	[__NR_sysinfo] = sys_sysinfo,
	[__NR_rt_sigsuspend] = sys_rt_sigsuspend,
	[__NR_rt_sigtimedwait] = sys_rt_sigtimedwait,
	[__NR_rt_sigqueueinfo] = sys_rt_sigqueueinfo,
	[__NR_rt_sigpending] = sys_rt_sigpending,
	[__NR_clone3] = sys_clone3,
	[__NR_stat] = sys_stat,
	[__NR_lstat] = sys_lstat,
	[__NR_creat] = sys_creat,
	[__NR_memfd_create] = sys_memfd_create,
	[__NR_ftruncate] = sys_ftruncate,
	[__NR_truncate] = sys_truncate,
	[__NR_fsync] = sys_fsync,
	[__NR_umask] = sys_umask,
	[__NR_chmod] = sys_chmod,
	[__NR_fchmod] = sys_fchmod,
	[__NR_fchmodat] = sys_fchmodat,
	[__NR_mkdir] = sys_mkdir,
	[__NR_mkdirat] = sys_mkdirat,
	[__NR_rmdir] = sys_rmdir,
	[__NR_unlink] = sys_unlink,
	[__NR_unlinkat] = sys_unlinkat,
	[__NR_rename] = sys_rename,
	[__NR_renameat] = sys_renameat,
	[__NR_renameat2] = sys_renameat2,
	[__NR_symlink] = sys_symlink,
	[__NR_symlinkat] = sys_symlinkat,
	[__NR_link] = sys_link,
	[__NR_linkat] = sys_linkat,
	[__NR_msync] = sys_msync,
	[__NR_fdatasync] = sys_fsync,
	[__NR_pread64] = sys_pread64,
	[__NR_pwrite64] = sys_pwrite64,
	[__NR_access] = sys_access,
	[__NR_pipe] = sys_pipe,
	[__NR_dup] = sys_dup,
	[__NR_dup2] = sys_dup2,
	[__NR_fcntl] = sys_fcntl,
	[__NR_getcwd] = sys_getcwd,
	[__NR_chdir] = sys_chdir,
	[__NR_fchdir] = sys_fchdir,
	[__NR_newfstatat] = sys_newfstatat,
	[__NR_faccessat] = sys_faccessat,
	[__NR_dup3] = sys_dup3,
	[__NR_pipe2] = sys_pipe2,
	[__NR_statx] = sys_statx,
	[__NR_faccessat2] = sys_faccessat2,
	[__NR_getcpu] = sys_getcpu,
	/* file attributes, credentials (root only: the *gid calls are the *uid ones), resource use, file locks */
	[__NR_utimensat] = sys_utimensat,
	[__NR_chown] = sys_chown,
	[__NR_fchown] = sys_fchown,
	[__NR_lchown] = sys_lchown,
	[__NR_fchownat] = sys_fchownat,
	[__NR_setuid] = sys_setuid,
	[__NR_setgid] = sys_setuid,
	[__NR_setreuid] = sys_setreuid,
	[__NR_setregid] = sys_setreuid,
	[__NR_setresuid] = sys_setresuid,
	[__NR_setresgid] = sys_setresuid,
	[__NR_getresuid] = sys_getresuid,
	[__NR_getresgid] = sys_getresuid,
	[__NR_setfsuid] = sys_setfsuid,
	[__NR_setfsgid] = sys_setfsuid,
	[__NR_setgroups] = sys_setgroups,
	[__NR_getrusage] = sys_getrusage,
	[__NR_flock] = sys_flock,
};

static const char *syscall_name(uint64_t nr)
{
	if (nr == __NR_vmk_memstat)
		return "vmk_memstat";
	if (nr == __NR_vmk_check)
		return "vmk_check";
	return nr <= SYSCALL_NAMES_MAX && syscall_names[nr] ? syscall_names[nr] : "unknown";
}

/* Each unimplemented call is named once in the kernel log (the program gets -ENOSYS). */
static void report_unimplemented(uint64_t nr)
{
	static uint64_t seen[(SYSCALL_NAMES_MAX + 64) / 64];

	if (nr <= SYSCALL_NAMES_MAX) {
		if (seen[nr / 64] & (1ULL << (nr % 64)))
			return;
		seen[nr / 64] |= 1ULL << (nr % 64);
	}
	printk("syscall: pid %d (%s) called %s (%llu), not implemented: -ENOSYS\n", current->pid,
	       current->comm, syscall_name(nr), (unsigned long long)nr);
}

/* strace=1: one line per call, after it returned. */
static void strace_line(const struct trap_frame *tf, uint64_t nr, long ret)
{
	printk("strace: pid %d %s(%#llx, %#llx, %#llx, %#llx, %#llx, %#llx) = %ld%s%s\n", current->pid,
	       syscall_name(nr), (unsigned long long)tf->rdi, (unsigned long long)tf->rsi,
	       (unsigned long long)tf->rdx, (unsigned long long)tf->r10, (unsigned long long)tf->r8,
	       (unsigned long long)tf->r9, ret, ret < 0 && ret >= -4095 && errno_name(-ret) ? " " : "",
	       ret < 0 && ret >= -4095 && errno_name(-ret) ? errno_name(-ret) : "");
}

int syscall_dispatch(struct trap_frame *tf)
{
	uint64_t nr = tf->rax;
	syscall_fn fn = NULL;
	long ret;

	current->tf = tf;
	tf->error = nr;                 /* kept for a restart (kernel/signal/signal.c) */
	arch_irq_enable();
	if (nr < NR_SYSCALLS)
		fn = syscall_table[nr];
	else if (nr == __NR_vmk_memstat)
		fn = sys_vmk_memstat;
	else if (nr == __NR_vmk_profile)
		fn = sys_vmk_profile;
	else if (nr == __NR_vmk_vmdump)
		fn = sys_vmk_vmdump;
	else if (nr == __NR_vmk_check)
		fn = sys_vmk_check;
	if (!fn)
		report_unimplemented(nr);
	if (kparams.strace && (nr == __NR_exit || nr == __NR_exit_group))
		strace_line(tf, nr, 0);         /* they do not return: logged as they start */
	ret = fn ? fn(tf, tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9) : -ENOSYS;
	if (kparams.strace)
		strace_line(tf, nr, ret);
	tf->rax = (uint64_t)ret;
	exit_to_user(tf);
	syscall_restart_fixup(tf, false, false);        /* interrupted, no handler ran: restart */
	/* SYSRET only when it restores exactly what IRET would, at a canonical user rip */
	return tf->rcx == tf->rip && tf->r11 == tf->rflags && tf->rip < TASK_SIZE &&
	       tf->cs == USER_CS && tf->ss == USER_DS &&
	       (tf->rflags & (RFLAGS_IF | RFLAGS_TF | RFLAGS_RF)) == RFLAGS_IF;
}
