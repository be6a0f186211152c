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
 *     a thread of the parent's process (kernel/task/thread_group.c): the same
 *     process id, its own thread id, no parent of its own and no exit
 *     signal (pthread_create's flags: VM, FS, FILES, SIGHAND, THREAD,
 *     SYSVSEM, SETTLS, PARENT_SETTID, CHILD_CLEARTID).
 * CLONE_FS and CLONE_SYSVSEM are accepted: there is one root directory,
 * and no System V semaphores.
 * clone3 takes the same request as a struct clone_args, with the exit
 * signal in a field of its own, the stack as a base and a size, and
 * CLONE_CLEAR_SIGHAND (the child's handlers back to SIG_DFL).
 * The number of live tasks (zombies included) is limited by task_max_threads.
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
#define CLONE_NEWTIME        0x00000080UL      /* clone3 only: inside the CSIGNAL bits */
#define CLONE_CLEAR_SIGHAND  0x100000000UL     /* clone3 only */
#define CLONE_INTO_CGROUP    0x200000000UL     /* clone3 only */
/* What this kernel does: everything else (namespaces, pidfd) is -EINVAL. */
#define CLONE_SUPPORTED (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | \
			 CLONE_PTRACE | CLONE_VFORK | \
			 CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | \
			 CLONE_DETACHED | CLONE_UNTRACED | CLONE_CHILD_SETTID | CLONE_IO | CLONE_CLEAR_SIGHAND)

/* Linux's argument checks, in its order (copy_process). */
static long clone_check(uint64_t flags)
{
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if (flags & ~CLONE_SUPPORTED)
		return -EINVAL;         /* namespaces, pidfd: not here */
	if (sched_task_count() >= task_max_threads())
		return -EAGAIN;
	return 0;
}

/* The child's memory and files: shared or copied as flags say. 0 or -ENOMEM. */
static long clone_resources(struct task *child, struct task *parent, uint64_t flags)
{
	task_set_mm(child, (flags & CLONE_VM) ? mm_get(parent->mm) : mm_dup(parent->mm));
	if (!child->mm)
		return -ENOMEM;
	mm_enter(child->mm);            /* one of its tasks: mm_leave at exit, exec or clone_abort */
	if (flags & CLONE_FILES) {
		child->fdt = parent->fdt;
		__atomic_add_fetch(&child->fdt->refs, 1, __ATOMIC_RELAXED);
	} else {
		child->fdt = fdtable_dup(parent->fdt);
	}
	if (!child->fdt) {
		mm_leave(task_set_mm(child, NULL));
		return -ENOMEM;
	}
	return 0;
}

/* What the caller asked for: clone's arguments, or clone3's struct clone_args checked and decoded. */
struct clone_req {
	uint64_t flags;         /* CLONE_*, without an exit signal */
	int exit_signal;
	uint64_t sp;            /* the child's stack pointer, 0: the parent's */
	uint64_t parent_tid, child_tid, tls;
};

/* Registers, FPU, TLS, identity and signal state from the parent. */
static void clone_state(struct task *child, struct task *parent, struct trap_frame *tf,
			const struct clone_req *r)
{
	*child->tf = *tf;
	child->tf->rax = 0;
	if (r->sp)
		child->tf->rsp = r->sp;
	arch_task_save_fpu(parent);
	memcpy(child->arch.fpu, parent->arch.fpu, sizeof(child->arch.fpu));
	child->arch.fs_base = (r->flags & CLONE_SETTLS) ? r->tls : parent->arch.fs_base;
	child->arch.gs_base = parent->arch.gs_base;
	signal_fork(child, parent);
	if ((r->flags & (CLONE_VM | CLONE_VFORK)) == CLONE_VM)
		sigaltstack_set(child, 0, SS_DISABLE, 0, 0);   /* a new thread starts without one (Linux) */
	if (r->flags & CLONE_CLEAR_SIGHAND)
		signal_reset_handlers(child);
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	child->exe = parent->exe;
	if (child->exe)
		dget(child->exe);
	child->cwd = parent->cwd;
	if (child->cwd)
		dget(child->cwd);
	child->umask = parent->umask;
	child->cpus_allowed = parent->cpus_allowed;    /* sched_setaffinity's mask is inherited */
	child->exit_signal = (r->flags & CLONE_THREAD) ? 0 : r->exit_signal;
	child->pgid = parent->pgid;
	child->sid = parent->sid;
	child->parent = (r->flags & CLONE_THREAD) ? NULL : parent;  /* a thread is nobody's child */
}

/* Undo clone_resources and clone_state for a child that never ran. */
static void clone_abort(struct task *child)
{
	fdtable_put(child->fdt);
	mm_leave(task_set_mm(child, NULL));
	if (child->exe)
		dput(child->exe);
	if (child->cwd)
		dput(child->cwd);
	task_free(child);
}

/* Linux's kernel_clone for a checked request: the child's tid, or an errno (sys_clone's). */
static long clone_task(struct trap_frame *tf, const struct clone_req *r)
{
	struct task *parent = current, *child;
	long err = clone_check(r->flags);
	uint32_t tid;

	if (err)
		return err;
	child = task_alloc();
	if (!child)
		return -ENOMEM;
	err = clone_resources(child, parent, r->flags);
	if (err) {
		task_free(child);
		return err;
	}
	clone_state(child, parent, tf, r);
	tid = (uint32_t)child->tid;
	if ((r->flags & CLONE_CHILD_SETTID) && mm_copy_to(child->mm, r->child_tid, &tid, sizeof(tid)) < 0)
		err = -EFAULT;
	if (!err && (r->flags & CLONE_PARENT_SETTID) && copy_to_user((void *)r->parent_tid, &tid, sizeof(tid)))
		err = -EFAULT;
	if (!err)
		err = thread_group_share(child, parent, r->flags & CLONE_SIGHAND, r->flags & CLONE_THREAD);
	if (err) {
		clone_abort(child);
		return err;
	}
	if (r->flags & CLONE_CHILD_CLEARTID)
		child->clear_child_tid = r->child_tid;
	child->vfork_pending = r->flags & CLONE_VFORK;
	sched_start_task(child);
	if (r->flags & CLONE_VFORK)
		wait_event(&parent->child_wait, !child->vfork_pending);
	return tid;
}

/*
 * clone(flags, newsp, parent_tid, child_tid, tls): the child's pid; -EINVAL,
 * -EAGAIN, -ENOMEM, -EFAULT; -EINTR a thread of a process that is exiting
 * (the caller dies on its way out).
 */
long sys_clone(SYSCALL_ARGS)
{
	/* As Linux, the upper 32 bits of clone's flags are ignored (clone3's own flags live there). */
	struct clone_req r = {
		.flags = (uint32_t)a0 & ~CSIGNAL, .exit_signal = (int)(a0 & CSIGNAL),
		.sp = a1, .parent_tid = a2, .child_tid = a3, .tls = a4,
	};

	return clone_task(tf, &r);
}

/* clone3's struct clone_args: the first 64 bytes are version 0, cgroup makes version 2. */
struct clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	uint64_t set_tid, set_tid_size, cgroup;
};
#define CLONE_ARGS_SIZE_VER0 64
#define CLONE_ARGS_SIZE_VER2 88
#define SET_TID_MAX          32        /* MAX_PID_NS_LEVEL */

/*
 * Copy size bytes of clone_args from user memory (copy_struct_from_user):
 * fields past size read as 0; bytes past the kernel's struct must be 0
 * (-E2BIG), as must a size over a page; -EINVAL a size under version 0.
 */
static long clone_args_copy(struct clone_args *a, uint64_t uargs, uint64_t size)
{
	if (size > PAGE_SIZE)
		return -E2BIG;
	if (size < CLONE_ARGS_SIZE_VER0)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	for (uint64_t off = sizeof(*a); off < size; off++) {
		uint8_t byte;

		if (copy_from_user(&byte, (const void *)(uargs + off), 1))
			return -EFAULT;
		if (byte)
			return -E2BIG;
	}
	if (copy_from_user(a, (const void *)uargs, MIN(size, sizeof(*a))))
		return -EFAULT;
	return 0;
}

/* clone3's own checks, Linux's order (copy_clone_args_from_user, clone3_args_valid): 0 or -EINVAL. */
static long clone_args_check(const struct clone_args *a, uint64_t size)
{
	if (a->set_tid_size > SET_TID_MAX || (!a->set_tid) != (!a->set_tid_size))
		return -EINVAL;
	if (a->exit_signal > KNSIG)
		return -EINVAL;
	if ((a->flags & CLONE_INTO_CGROUP) && (a->cgroup > INT32_MAX || size < CLONE_ARGS_SIZE_VER2))
		return -EINVAL;
	if (a->flags & ~(0xffffffffUL | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP))
		return -EINVAL;
	if (a->flags & (CLONE_DETACHED | (CSIGNAL & ~CLONE_NEWTIME)))
		return -EINVAL;         /* the exit signal has its own field */
	if ((a->flags & CLONE_SIGHAND) && (a->flags & CLONE_CLEAR_SIGHAND))
		return -EINVAL;
	if ((a->flags & (CLONE_THREAD | CLONE_PARENT)) && a->exit_signal)
		return -EINVAL;
	if (!a->stack != !a->stack_size)
		return -EINVAL;         /* a stack has a base and a size, or neither */
	if (a->stack && (a->stack + a->stack_size < a->stack || a->stack + a->stack_size > TASK_SIZE))
		return -EINVAL;
	return 0;
}

/*
 * clone3(args, size): clone with a struct clone_args (flags, pidfd,
 * child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
 * set_tid_size, cgroup). The child's pid; clone's errors, and -E2BIG a
 * size over a page or nonzero bytes past the struct, -EINVAL a size under
 * 64 or a bad field, -EFAULT. Not here: pidfds (CLONE_PIDFD: -EINVAL, as
 * clone), choosing the child's pid (set_tid: -EPERM, an unprivileged
 * caller's answer) and cgroups (CLONE_INTO_CGROUP: -EBADF, no fd is a
 * cgroup directory).
 */
long sys_clone3(SYSCALL_ARGS)
{
	struct clone_args a;
	struct clone_req r;
	long err = clone_args_copy(&a, a0, a1);

	if (!err)
		err = clone_args_check(&a, a1);
	if (err)
		return err;
	if (a.set_tid)
		return -EPERM;
	if (a.flags & CLONE_INTO_CGROUP)
		return -EBADF;
	r = (struct clone_req){
		.flags = a.flags & ~CLONE_INTO_CGROUP, .exit_signal = (int)a.exit_signal,
		.sp = a.stack ? a.stack + a.stack_size : 0,
		.parent_tid = a.parent_tid, .child_tid = a.child_tid, .tls = a.tls,
	};
	return clone_task(tf, &r);
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
