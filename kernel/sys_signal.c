/* Signal system calls: rt_sigaction, rt_sigprocmask, kill, tkill, tgkill, sigaltstack. */
#include "syscall.h"
#include "signal.h"
#include "task.h"
#include "sched_internal.h"
#include "uaccess.h"
#include "kerrno.h"
#include "kstring.h"

#define SYSCALL_ARGS struct trap_frame *tf, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, \
	uint64_t a4, uint64_t a5
#define UNBLOCKABLE (sig_bit(SIGKILL) | sig_bit(SIGSTOP))

long sys_rt_sigaction(SYSCALL_ARGS);
long sys_rt_sigprocmask(SYSCALL_ARGS);
long sys_kill(SYSCALL_ARGS);
long sys_tkill(SYSCALL_ARGS);
long sys_tgkill(SYSCALL_ARGS);
long sys_sigaltstack(SYSCALL_ARGS);

/*
 * rt_sigaction(sig, act, oact, sigsetsize): -EINVAL bad sig (1..31 only),
 * SIGKILL/SIGSTOP with act, or sigsetsize != 8; -EFAULT bad pointers.
 */
long sys_rt_sigaction(SYSCALL_ARGS)
{
	int sig = (int)a0;
	struct k_sigaction act, old;
	struct task *t = current;
	unsigned long f;

	if (a3 != sizeof(ksigset_t) || sig < 1 || sig > NSIG_STD)
		return -EINVAL;
	if (a1) {
		if (sig == SIGKILL || sig == SIGSTOP)
			return -EINVAL;
		if (copy_from_user(&act, (const void *)a1, sizeof(act)))
			return -EFAULT;
		act.mask &= ~UNBLOCKABLE;
	}
	f = spin_lock_irqsave(&sched_lock);
	old = t->sig.action[sig];
	if (a1) {
		t->sig.action[sig] = act;
		/* setting SIG_IGN (or SIG_DFL of an ignored-by-default signal) discards a pending one */
		if (act.handler == SIG_IGN || (act.handler == SIG_DFL && (sig == SIGCHLD || sig == SIGURG ||
									 sig == SIGWINCH || sig == SIGCONT)))
			t->sig.pending &= ~sig_bit(sig);
	}
	spin_unlock_irqrestore(&sched_lock, f);
	if (a2 && copy_to_user((void *)a2, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/* rt_sigprocmask(how, set, oset, sigsetsize): -EINVAL bad how or size; -EFAULT. */
long sys_rt_sigprocmask(SYSCALL_ARGS)
{
	struct task *t = current;
	ksigset_t set = 0, old;
	unsigned long f;

	if (a3 != sizeof(ksigset_t))
		return -EINVAL;
	if (a1) {
		if (a0 != SIG_BLOCK && a0 != SIG_UNBLOCK && a0 != SIG_SETMASK)
			return -EINVAL;
		if (copy_from_user(&set, (const void *)a1, sizeof(set)))
			return -EFAULT;
	}
	f = spin_lock_irqsave(&sched_lock);
	old = t->sig.blocked;
	if (a1) {
		if (a0 == SIG_BLOCK)
			t->sig.blocked |= set;
		else if (a0 == SIG_UNBLOCK)
			t->sig.blocked &= ~set;
		else
			t->sig.blocked = set;
		t->sig.blocked &= ~UNBLOCKABLE;
		t->sig.blocked &= (1ULL << NSIG_STD) - 1;
	}
	spin_unlock_irqrestore(&sched_lock, f);
	if (a2 && copy_to_user((void *)a2, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/*
 * kill(pid, sig): pid > 0: that process. There are no process groups:
 * pid 0 (the caller's group) and -1 (everyone) both mean every live
 * process except init (pid 1), the caller included for 0, excluded for -1;
 * pid < -1 means the process -pid. -EINVAL bad sig; -ESRCH no such process.
 */
long sys_kill(SYSCALL_ARGS)
{
	int pid = (int)a0, sig = (int)a1;
	struct task *t;

	if (sig < 0 || sig > NSIG_STD)
		return -EINVAL;
	if (pid > 0) {
		t = task_find(pid);
		if (!t)
			return -ESRCH;
		return send_signal(t, sig, SI_USER, current->pid);
	}
	if (pid == 0 || pid == -1) {
		struct list_head *p;
		int n = 0;
		unsigned long f = spin_lock_irqsave(&sched_lock);

		/* under sched_lock: another CPU may reap (free) a task meanwhile */
		list_for_each(p, &task_list) {
			t = list_entry(p, struct task, all_link);
			if (t->state == TASK_ZOMBIE || t->pid == 1 || (pid == -1 && t == current) ||
			    t->kthread_fn)
				continue;
			send_signal_locked(t, sig, SI_USER, current->pid);
			n++;
		}
		spin_unlock_irqrestore(&sched_lock, f);
		if (pid == 0 && current->pid != 1)
			n++;
		return n ? 0 : -ESRCH;
	}
	t = task_find(-pid);            /* process group -pid: only its leader here */
	if (!t)
		return -ESRCH;
	return send_signal(t, sig, SI_USER, current->pid);
}

/* tkill(tid, sig): -EINVAL bad tid or sig; -ESRCH. */
long sys_tkill(SYSCALL_ARGS)
{
	struct task *t;

	if ((int)a0 <= 0 || (int)a1 < 0 || (int)a1 > NSIG_STD)
		return -EINVAL;
	t = task_find((int)a0);
	if (!t)
		return -ESRCH;
	return send_signal(t, (int)a1, SI_TKILL, current->pid);
}

/* tgkill(tgid, tid, sig): as tkill, and tid must belong to tgid (tid == tgid here). */
long sys_tgkill(SYSCALL_ARGS)
{
	if ((int)a0 <= 0 || (int)a1 <= 0)
		return -EINVAL;
	if (a0 != a1)
		return (int)a2 < 0 || (int)a2 > NSIG_STD ? -EINVAL : -ESRCH;
	return sys_tkill(tf, a1, a2, 0, 0, 0, 0);
}

/*
 * sigaltstack(ss, old_ss): alternate signal stacks are not supported:
 * old_ss reports SS_DISABLE; disabling is accepted; installing one gives
 * -ENOSYS (silently ignoring it would make a stack-overflow handler run on
 * the overflowed stack). -EFAULT bad pointers.
 */
long sys_sigaltstack(SYSCALL_ARGS)
{
	struct { uint64_t ss_sp; int32_t ss_flags; int32_t pad; uint64_t ss_size; } old = { 0, 2, 0, 0 };

	if (a1 && copy_to_user((void *)a1, &old, sizeof(old)))
		return -EFAULT;
	if (a0) {
		struct { uint64_t ss_sp; int32_t ss_flags; int32_t pad; uint64_t ss_size; } ss;

		if (copy_from_user(&ss, (const void *)a0, sizeof(ss)))
			return -EFAULT;
		if (ss.ss_flags & 2)    /* SS_DISABLE: nothing to do */
			return 0;
		return -ENOSYS;
	}
	return 0;
}
