/*
 * Process creation: clone with fork's flags, fork and vfork (Linux's
 * kernel_clone for processes and threads):
 *
 *   - a copy-on-write copy of the address space (mm_dup), or the same one
 *     with CLONE_VM (vfork, posix_spawn-style clones: the child then runs
 *     on the stack given as newsp);
 *   - a copy of the fd table, or the same one with CLONE_FILES;
 *   - the parent's registers (the child returns 0), FPU state, FS/GS base
 *     (CLONE_SETTLS: FS base = tls), signal actions and blocked set;
 *   - CLONE_PARENT_SETTID / CLONE_CHILD_SETTID write the child's tid to
 *     the parent's / the child's memory, CLONE_CHILD_CLEARTID makes exit
 *     clear it and wake a futex there (glibc's fork uses these);
 *   - the exit signal (flags & 0xff, SIGCHLD for fork) goes to the parent
 *     when the child ends;
 *   - CLONE_VFORK: the parent sleeps until the child execs or exits;
 *   - CLONE_SIGHAND shares the signal actions, CLONE_THREAD makes the child
 *     a thread of the parent's process (kernel/thread_group.c): the same
 *     process id, its own thread id, no parent of its own and no exit
 *     signal (pthread_create's flags: VM, FS, FILES, SIGHAND, THREAD,
 *     SYSVSEM, SETTLS, PARENT_SETTID, CHILD_CLEARTID).
 * CLONE_FS and CLONE_SYSVSEM are accepted: there is one root directory,
 * and no System V semaphores.
 * The number of live tasks (zombies included) is limited to TASK_MAX.
 */
#include "task.h"
#include "fs.h"
#include "syscall_internal.h"
#include "signal.h"
#include "wait.h"
#include "mm.h"
#include "x86.h"
#include "kstring.h"
#include "kerrno.h"
#include "uaccess.h"
#include "file.h"

#define CSIGNAL              0x000000ffUL
#define CLONE_VM             0x00000100UL
#define CLONE_FS             0x00000200UL
#define CLONE_FILES          0x00000400UL
#define CLONE_SIGHAND        0x00000800UL
#define CLONE_PIDFD          0x00001000UL
#define CLONE_PTRACE         0x00002000UL
#define CLONE_VFORK          0x00004000UL
#define CLONE_PARENT         0x00008000UL
#define CLONE_THREAD         0x00010000UL
#define CLONE_NEWNS          0x00020000UL
#define CLONE_SYSVSEM        0x00040000UL
#define CLONE_SETTLS         0x00080000UL
#define CLONE_PARENT_SETTID  0x00100000UL
#define CLONE_CHILD_CLEARTID 0x00200000UL
#define CLONE_DETACHED       0x00400000UL
#define CLONE_UNTRACED       0x00800000UL
#define CLONE_CHILD_SETTID   0x01000000UL
#define CLONE_IO             0x80000000UL
/* What this kernel does: everything else (namespaces, pidfd) is -EINVAL. */
#define CLONE_SUPPORTED (CSIGNAL | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | \
			 CLONE_PTRACE | CLONE_VFORK | \
			 CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | \
			 CLONE_DETACHED | CLONE_UNTRACED | CLONE_CHILD_SETTID | CLONE_IO)

/* Linux's argument checks, in its order (copy_process). */
static long clone_check(uint64_t flags)
{
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if (flags & ~CLONE_SUPPORTED)
		return -EINVAL;         /* namespaces, pidfd: not here */
	if (sched_task_count() >= TASK_MAX)
		return -EAGAIN;
	return 0;
}

/* The child's memory and files: shared or copied as flags say. 0 or -ENOMEM. */
static long clone_resources(struct task *child, struct task *parent, uint64_t flags)
{
	task_set_mm(child, (flags & CLONE_VM) ? mm_get(parent->mm) : mm_dup(parent->mm));
	if (!child->mm)
		return -ENOMEM;
	if (flags & CLONE_FILES) {
		child->fdt = parent->fdt;
		__atomic_add_fetch(&child->fdt->refs, 1, __ATOMIC_RELAXED);
	} else {
		child->fdt = fdtable_dup(parent->fdt);
	}
	if (!child->fdt) {
		mm_put(task_set_mm(child, NULL));
		return -ENOMEM;
	}
	return 0;
}

/* Registers, FPU, TLS, identity and signal state from the parent. */
static void clone_state(struct task *child, struct task *parent, struct trap_frame *tf,
			uint64_t flags, uint64_t newsp, uint64_t tls)
{
	*child->tf = *tf;
	child->tf->rax = 0;
	if (newsp)
		child->tf->rsp = newsp;
	arch_task_save_fpu(parent);
	memcpy(child->arch.fpu, parent->arch.fpu, sizeof(child->arch.fpu));
	child->arch.fs_base = (flags & CLONE_SETTLS) ? tls : parent->arch.fs_base;
	child->arch.gs_base = parent->arch.gs_base;
	signal_fork(child, parent);
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	child->exe = parent->exe;
	if (child->exe)
		dget(child->exe);
	child->cwd = parent->cwd;
	if (child->cwd)
		dget(child->cwd);
	child->umask = parent->umask;
	child->exit_signal = (flags & CLONE_THREAD) ? 0 : (int)(flags & CSIGNAL);
	child->pgid = parent->pgid;
	child->sid = parent->sid;
	child->parent = (flags & CLONE_THREAD) ? NULL : parent;     /* a thread is nobody's child */
}

/*
 * clone(flags, newsp, parent_tid, child_tid, tls): the child's pid; -EINVAL,
 * -EAGAIN, -ENOMEM, -EFAULT; -EINTR a thread of a process that is exiting
 * (the caller dies on its way out).
 */
long sys_clone(SYSCALL_ARGS)
{
	struct task *parent = current, *child;
	uint64_t flags = a0;
	long err = clone_check(flags);
	uint32_t tid;

	if (err)
		return err;
	thread_reap_dead();
	child = task_alloc();
	if (!child)
		return -ENOMEM;
	err = clone_resources(child, parent, flags);
	if (err) {
		task_free(child);
		return err;
	}
	clone_state(child, parent, tf, flags, a1, a4);
	tid = (uint32_t)child->tid;
	if ((flags & CLONE_CHILD_SETTID) && mm_copy_to(child->mm, a3, &tid, sizeof(tid)) < 0)
		err = -EFAULT;
	if (!err && (flags & CLONE_PARENT_SETTID) && copy_to_user((void *)a2, &tid, sizeof(tid)))
		err = -EFAULT;
	if (!err)
		err = thread_group_share(child, parent, flags & CLONE_SIGHAND, flags & CLONE_THREAD);
	if (err) {
		fdtable_put(child->fdt);
		mm_put(task_set_mm(child, NULL));
		if (child->exe)
			dput(child->exe);
		if (child->cwd)
			dput(child->cwd);
		task_free(child);
		return err;
	}
	if (flags & CLONE_CHILD_CLEARTID)
		child->clear_child_tid = a3;
	child->vfork_pending = flags & CLONE_VFORK;
	sched_start_task(child);
	if (flags & CLONE_VFORK)
		wait_event(&parent->child_wait, !child->vfork_pending);
	return tid;
}

/* fork(): clone(SIGCHLD). */
long sys_fork(SYSCALL_ARGS)
{
	return sys_clone(tf, SIGCHLD, 0, 0, 0, 0, 0);
}

/* vfork(): clone(CLONE_VM | CLONE_VFORK | SIGCHLD): the parent waits until the child execs or exits. */
long sys_vfork(SYSCALL_ARGS)
{
	return sys_clone(tf, CLONE_VM | CLONE_VFORK | SIGCHLD, 0, 0, 0, 0, 0);
}

void vfork_release(struct task *t)
{
	if (!t->vfork_pending)
		return;
	t->vfork_pending = false;
	if (t->parent)
		wake_up(&t->parent->child_wait);
}
