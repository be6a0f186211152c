/* Signal system calls: rt_sigaction, rt_sigprocmask, kill, tkill, tgkill, sigaltstack, rt_sigsuspend, rt_sigtimedwait. */
#include "syscall.h"
#include "signal.h"
#include "task.h"
#include "sched_internal.h"
#include "uaccess.h"
#include "kerrno.h"
#include "kstring.h"
#include "wait.h"
#include "signal_frame.h"
#include "ktimer.h"

#define SYSCALL_ARGS struct trap_frame *tf, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, \
	uint64_t a4, uint64_t a5
#define UNBLOCKABLE (sig_bit(SIGKILL) | sig_bit(SIGSTOP))

long sys_rt_sigaction(SYSCALL_ARGS);
long sys_rt_sigprocmask(SYSCALL_ARGS);
long sys_kill(SYSCALL_ARGS);
long sys_tkill(SYSCALL_ARGS);
long sys_tgkill(SYSCALL_ARGS);
long sys_sigaltstack(SYSCALL_ARGS);
long sys_rt_sigsuspend(SYSCALL_ARGS);
long sys_rt_sigtimedwait(SYSCALL_ARGS);
long sys_rt_sigpending(SYSCALL_ARGS);
long sys_rt_sigqueueinfo(SYSCALL_ARGS);

/* Drop a pending sig of t and of its thread group (its action became "ignore"). sched_lock held. */
static void discard_pending_locked(struct task *t, int sig)
{
	sigpending_discard_locked(&t->sig.pending, sig);
	sigpending_discard_locked(&t->group->pending, sig);
}

/*
 * rt_sigaction(sig, act, oact, sigsetsize): -EINVAL bad sig (1..64),
 * SIGKILL/SIGSTOP with act, or sigsetsize != 8; -EFAULT bad pointers.
 */
long sys_rt_sigaction(SYSCALL_ARGS)
{
	int sig = (int)a0;
	struct k_sigaction act, old;
	struct task *t = current;
	unsigned long f;

	if (a3 != sizeof(ksigset_t) || sig < 1 || sig > KNSIG)
		return -EINVAL;
	if (a1) {
		if (sig == SIGKILL || sig == SIGSTOP)
			return -EINVAL;
		if (copy_from_user(&act, (const void *)a1, sizeof(act)))
			return -EFAULT;
		act.mask &= ~UNBLOCKABLE;
	}
	f = spin_lock_irqsave(&sched_lock);
	old = t->sighand->action[sig];
	if (a1) {
		t->sighand->action[sig] = act;
		/* setting SIG_IGN (or SIG_DFL of an ignored-by-default signal) discards a pending one */
		if (act.handler == SIG_IGN || (act.handler == SIG_DFL && (sig == SIGCHLD || sig == SIGURG ||
									 sig == SIGWINCH || sig == SIGCONT)))
			discard_pending_locked(t, sig);
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
		/* Linux copies the set before it looks at how: a bad set wins (-EFAULT) */
		if (copy_from_user(&set, (const void *)a1, sizeof(set)))
			return -EFAULT;
		if (a0 != SIG_BLOCK && a0 != SIG_UNBLOCK && a0 != SIG_SETMASK)
			return -EINVAL;
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
	}
	spin_unlock_irqrestore(&sched_lock, f);
	if (a2 && copy_to_user((void *)a2, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/*
 * A process that still has a live thread: the leader t, even a zombie, of
 * a group some thread of which runs on (Linux signals it through the
 * leader). sched_lock held.
 */
static bool process_alive_locked(const struct task *t)
{
	if (t->group)
		return t->group->live > 0;
	return t->state != TASK_ZOMBIE;
}

/*
 * Send sig to the task whose thread id is tid (in process tgid when tgid >
 * 0), which may be a zombie: nothing happens then (as Linux), unless a
 * process-directed signal (not SI_TKILL) goes to a process whose other
 * threads live on. Found and signalled under one sched_lock hold: another
 * CPU may reap it, and a thread is freed as soon as it has ended. -ESRCH
 * no such task (before the signal number is checked, as Linux); -EINVAL bad sig.
 */
static long kill_one(int tid, int tgid, int sig, int code)
{
	struct k_siginfo info;
	struct task *t;
	unsigned long f;
	long r = 0;

	memset(&info, 0, sizeof(info));
	info.si_signo = sig;
	info.si_code = code;
	info.kill.pid = current->pid;
	f = spin_lock_irqsave(&sched_lock);
	t = task_find_any_locked(tid);
	if (!t || (tgid > 0 && t->pid != tgid))
		r = -ESRCH;
	else if (sig < 0 || sig > KNSIG)
		r = -EINVAL;
	else if (code == SI_TKILL ? t->state != TASK_ZOMBIE : process_alive_locked(t))
		r = send_signal_info_locked(t, &info, code != SI_TKILL);
	spin_unlock_irqrestore(&sched_lock, f);
	return r;
}

/*
 * Signal every live process in group pgid (all: every process but init
 * and the caller's).
 */
static long kill_group(int pgid, int sig, bool all)
{
	struct list_head *p;
	struct k_siginfo info;
	long r = -ESRCH;
	unsigned long f;

	if (sig < 0 || sig > KNSIG)
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	info.si_signo = sig;
	info.si_code = SI_USER;
	info.kill.pid = current->pid;
	/* under sched_lock: another CPU may reap (free) a task meanwhile */
	f = spin_lock_irqsave(&sched_lock);
	list_for_each(p, &task_list) {
		struct task *t = list_entry(p, struct task, all_link);

		/* once per process, through its leader (a zombie while other threads run) */
		if (t->kthread_fn || t != thread_group_leader(t) || !process_alive_locked(t))
			continue;
		if (all ? (t->pid == 1 || t->pid == current->pid) : t->pgid != pgid)
			continue;
		send_signal_info_locked(t, &info, true);
		r = 0;
	}
	spin_unlock_irqrestore(&sched_lock, f);
	return r;
}

/*
 * kill(pid, sig): pid > 0: that process (a zombie too: 0); 0: the caller's
 * process group; -1: every process but init and the caller; < -1: group
 * -pid. -ESRCH no such process or group (checked before the signal
 * number, as Linux); -EINVAL bad sig.
 */
long sys_kill(SYSCALL_ARGS)
{
	int pid = (int)a0, sig = (int)a1;

	if (pid == 0)
		return kill_group(current->pgid, sig, false);
	if (pid == -1)
		return kill_group(0, sig, true);
	if (pid == INT32_MIN)
		return -ESRCH;
	if (pid < 0)
		return kill_group(-pid, sig, false);
	return kill_one(pid, 0, sig, SI_USER);
}

/* tkill(tid, sig): -EINVAL tid <= 0; -ESRCH no such task; -EINVAL bad sig. */
long sys_tkill(SYSCALL_ARGS)
{
	if ((int)a0 <= 0)
		return -EINVAL;
	return kill_one((int)a0, 0, (int)a1, SI_TKILL);
}

/* tgkill(tgid, tid, sig): as tkill, and thread tid must belong to process tgid (-ESRCH). */
long sys_tgkill(SYSCALL_ARGS)
{
	if ((int)a0 <= 0 || (int)a1 <= 0)
		return -EINVAL;
	return kill_one((int)a1, (int)a0, (int)a2, SI_TKILL);
}

/*
 * rt_sigsuspend(mask, size): wait for a signal with mask as the blocked
 * set; the old set comes back when the handler returns (or at once when
 * none runs). Returns -EINTR. -EINVAL size != 8; -EFAULT.
 */
long sys_rt_sigsuspend(SYSCALL_ARGS)
{
	struct task *t = current;
	struct wait_queue never = WAIT_QUEUE_INIT(never);
	ksigset_t set;
	unsigned long f;

	if (a1 != sizeof(ksigset_t))
		return -EINVAL;
	if (copy_from_user(&set, (const void *)a0, sizeof(set)))
		return -EFAULT;
	f = spin_lock_irqsave(&sched_lock);
	t->sig.saved_mask = t->sig.blocked;
	t->sig.restore_mask = true;
	t->sig.blocked = set & ~UNBLOCKABLE;
	spin_unlock_irqrestore(&sched_lock, f);
	wait_event_interruptible(&never, false);
	return -ERESTARTNOHAND;
}

/*
 * rt_sigtimedwait(set, info, timeout, sigsetsize): take a pending signal of
 * set (SIGKILL and SIGSTOP left out; normally blocked by the caller) and
 * return its number, its siginfo copied to info (unless NULL). Without one,
 * wait for one (or another signal's handler), up to the relative timeout (NULL: no limit; zero:
 * do not wait). -EAGAIN the time ran out; -EINTR another signal's handler
 * is to run (never restarted, as Linux); -EINVAL sigsetsize != 8 or a bad
 * timeout; -EFAULT.
 */
long sys_rt_sigtimedwait(SYSCALL_ARGS)
{
	struct task *t = current;
	struct k_siginfo info;
	uint64_t deadline;
	ksigset_t set;
	unsigned long f;
	long r = 0;
	int sig;

	if (a3 != sizeof(ksigset_t))
		return -EINVAL;
	if (copy_from_user(&set, (const void *)a0, sizeof(set)))
		return -EFAULT;
	if ((r = user_timeout_deadline(a2, &deadline)))
		return r;
	set &= ~UNBLOCKABLE;
	f = spin_lock_irqsave(&sched_lock);
	sig = signal_dequeue_locked(t, set, &info);
	if (!sig && deadline) {
		t->sig.waiting = set;           /* a signal of set now wakes the sleep below */
		spin_unlock_irqrestore(&sched_lock, f);
		r = sleep_until_ns(deadline, NULL, NULL, NULL);
		f = spin_lock_irqsave(&sched_lock);
		t->sig.waiting = 0;
		sig = signal_dequeue_locked(t, set, &info);
	}
	spin_unlock_irqrestore(&sched_lock, f);
	if (!sig)
		return r == -EINTR ? -EINTR : -EAGAIN;
	if (a1 && copy_to_user((void *)a1, &info, sizeof(info)))
		return -EFAULT;
	return sig;
}

/* rt_sigpending(set, size): the pending signals that are blocked. -EINVAL size > 8; -EFAULT. */
long sys_rt_sigpending(SYSCALL_ARGS)
{
	ksigset_t p;

	if (a1 > sizeof(ksigset_t))
		return -EINVAL;
	p = (current->sig.pending.set | current->group->pending.set) & current->sig.blocked;
	return copy_to_user((void *)a0, &p, a1) ? -EFAULT : 0;
}

/*
 * rt_sigqueueinfo(pid, sig, info): send sig with the caller's siginfo.
 * Linux's rule: a non-negative si_code (or SI_TKILL) may only be sent to
 * oneself (-EPERM). -EINVAL sig not in 0..64; -EAGAIN its queue is full.
 */
long sys_rt_sigqueueinfo(SYSCALL_ARGS)
{
	struct k_siginfo info;
	struct task *t;

	if (copy_from_user(&info, (const void *)a2, sizeof(info)))
		return -EFAULT;
	t = task_find_any((int)a0);
	if ((info.si_code >= 0 || info.si_code == SI_TKILL) && (int)a0 != current->pid)
		return -EPERM;
	if ((int)a0 <= 0 || !t)
		return -ESRCH;
	if ((int)a1 < 0 || (int)a1 > KNSIG)
		return -EINVAL;
	if (!a1 || t->state == TASK_ZOMBIE)
		return 0;
	info.si_signo = (int)a1;
	return send_signal_info(t, &info, true);
}

long signal_temp_mask_user(uint64_t umask, uint64_t size)
{
	ksigset_t set;

	if (!umask)
		return 0;
	if (size != sizeof(ksigset_t))
		return -EINVAL;
	if (copy_from_user(&set, (const void *)umask, sizeof(set)))
		return -EFAULT;
	current->sig.saved_mask = current->sig.blocked;
	current->sig.restore_mask = true;
	current->sig.blocked = set & ~UNBLOCKABLE;
	return 0;
}

/*
 * sigaltstack(ss, old_ss): install or remove the alternate signal stack
 * (used by handlers with SA_ONSTACK), report the current one. -EFAULT;
 * -EPERM while running on it; -EINVAL bad flags; -ENOMEM ss_size < 2048.
 */
long sys_sigaltstack(SYSCALL_ARGS)
{
	struct stack_k { uint64_t ss_sp; int32_t ss_flags; int32_t pad; uint64_t ss_size; } ss, old;
	struct task *t = current;
	uint64_t sp = arch_user_sp(tf);
	int err = 0;

	if (a0 && copy_from_user(&ss, (const void *)a0, sizeof(ss)))
		return -EFAULT;
	old = (struct stack_k){ .ss_sp = t->sig.sas_sp,
				.ss_flags = sas_flags(t, sp) | (int32_t)t->sig.sas_flags,
				.ss_size = t->sig.sas_size };
	if (a0)
		err = sigaltstack_set(t, ss.ss_sp, ss.ss_flags, ss.ss_size, sp);
	if (!err && a1 && copy_to_user((void *)a1, &old, sizeof(old)))
		err = -EFAULT;
	return err;
}
