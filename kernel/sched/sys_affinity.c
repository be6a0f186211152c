/*
 * sched_getaffinity and sched_setaffinity, as Linux: a task's CPU mask is
 * task.cpus_allowed limited to the online CPUs (arch_cpu_online_mask);
 * user space sees it as a bitmap of unsigned longs, of which Linux
 * (CONFIG_CPUMASK_OFFSTACK, nr_cpu_ids <= 64) copies one: 8 bytes.
 */
#include "syscall_internal.h"
#include "task.h"
#include "sched_internal.h"
#include "arch.h"
#include "uaccess.h"
#include "kerrno.h"


#define CPUMASK_BYTES sizeof(unsigned long)     /* Linux's cpumask_size() for up to 64 CPUs */

/* Linux's nr_cpu_ids: one past the highest possible CPU; here the online ones. */
static unsigned nr_cpu_ids(void)
{
	unsigned long online = arch_cpu_online_mask();

	return online ? 64 - (unsigned)__builtin_clzl(online) : 1;
}

/* pid 0: the caller; else the task with that thread id (zombies too, as Linux). NULL: none. sched_lock held. */
static struct task *affinity_task_locked(int pid)
{
	return pid == 0 ? current : task_find_any_locked(pid);
}

/*
 * sched_getaffinity(pid, len, mask): the task's CPUs into mask; returns
 * the bytes written (8). -EINVAL len smaller than the CPU count in bits or
 * not a multiple of 8; -ESRCH no such task; -EFAULT.
 */
long sys_sched_getaffinity(SYSCALL_ARGS)
{
	unsigned long mask = 0;
	struct task *t;
	unsigned long f;

	if (a1 * 8 < nr_cpu_ids() || (a1 & (sizeof(unsigned long) - 1)))
		return -EINVAL;
	f = spin_lock_irqsave(&sched_lock);
	t = affinity_task_locked((int)a0);
	if (t)
		mask = t->cpus_allowed & arch_cpu_online_mask();
	spin_unlock_irqrestore(&sched_lock, f);
	if (!t)
		return -ESRCH;
	if (copy_to_user((void *)a2, &mask, CPUMASK_BYTES))
		return -EFAULT;
	return CPUMASK_BYTES;
}

/*
 * sched_setaffinity(pid, len, mask): let the task run on mask's online
 * CPUs only (a shorter mask is zero-extended, a longer one's extra bytes
 * ignored). -EFAULT; -ESRCH no such task; -EINVAL no online CPU in mask
 * (or a kernel thread: Linux's PF_NO_SETAFFINITY).
 */
long sys_sched_setaffinity(SYSCALL_ARGS)
{
	unsigned long mask = 0;
	struct task *t;
	unsigned long f;

	if (copy_from_user(&mask, (const void *)a2, a1 < CPUMASK_BYTES ? a1 : CPUMASK_BYTES))
		return -EFAULT;
	mask &= arch_cpu_online_mask();
	f = spin_lock_irqsave(&sched_lock);
	t = affinity_task_locked((int)a0);
	if (t && mask && !t->kthread_fn) {
		sched_set_affinity_locked(t, mask);
		if (t == current && !(mask & (1UL << arch_cpu_id())))
			t->need_resched = true;         /* off this CPU before returning, as Linux */
	}
	spin_unlock_irqrestore(&sched_lock, f);
	if (!t)
		return -ESRCH;
	return mask && !t->kthread_fn ? 0 : -EINVAL;
}
