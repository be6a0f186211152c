/*
 * fork (and vfork, implemented as fork): a new process with a copy-on-write
 * copy of the address space (mm_dup), the parent's registers (the child
 * returns 0), FPU state, FS/GS base, signal actions and blocked set.
 * The number of live tasks (zombies included) is limited to TASK_MAX.
 */
#include "task.h"
#include "syscall_internal.h"
#include "signal.h"
#include "mm.h"
#include "x86.h"
#include "kstring.h"
#include "kerrno.h"
#include "file.h"

/* fork(): the child's pid; -EAGAIN at the task limit; -ENOMEM. */
long sys_fork(SYSCALL_ARGS)
{
	struct task *parent = current, *child;

	if (sched_task_count() >= TASK_MAX)
		return -EAGAIN;
	child = task_alloc();
	if (!child)
		return -ENOMEM;
	child->mm = mm_dup(parent->mm);
	if (!child->mm) {
		task_free(child);
		return -ENOMEM;
	}
	*child->tf = *tf;
	child->tf->rax = 0;
	arch_task_save_fpu(parent);
	memcpy(child->arch.fpu, parent->arch.fpu, sizeof(child->arch.fpu));
	child->arch.fs_base = parent->arch.fs_base;
	child->arch.gs_base = parent->arch.gs_base;
	signal_fork(child, parent);
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	memcpy(child->exe_path, parent->exe_path, sizeof(child->exe_path));
	memcpy(child->exe_seg, parent->exe_seg, sizeof(child->exe_seg));
	child->exe_nseg = parent->exe_nseg;
	files_fork(child, parent);
	child->parent = parent;
	sched_start_task(child);
	return child->pid;
}
