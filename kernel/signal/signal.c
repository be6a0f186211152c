/*
 * Signal state and delivery (include/signal.h): handlers, rt_sigreturn,
 * default actions, the fault signals.
 *
 * The frame on the user stack and rt_sigreturn's register restore are the
 * architecture's (include/signal_frame.h); here: which signal, which stack,
 * which mask. The handler runs with the blocked set plus sa_mask plus sig
 * (unless SA_NODEFER).
 */
#include "signal.h"
#include "signal_frame.h"
#include "lockless.h"
#include "task.h"
#include "sched_internal.h"
#include "uaccess.h"
#include "x86.h"
#include "mm.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"

#define MINSIGSTKSZ_K         2048

static const char *const sig_names[NSIG_STD + 1] = {
	"SIG0", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS",
	"SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM",
	"SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN",
	"SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",
	"SIGIO", "SIGPWR", "SIGSYS",
};

const char *signal_name(int sig)
{
	if (sig >= SIGRTMIN_K && sig <= KNSIG)
		return "a real-time signal";
	return sig > 0 && sig <= NSIG_STD ? sig_names[sig] : "SIG?";
}

/* Default action ignores it (no job control: stop signals are ignored too). */
static bool default_ignored(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return true;
	default:
		return false;
	}
}

/*
 * Linux's SIGNAL_UNKILLABLE: init (pid 1) does not get a signal it left at
 * SIG_DFL, except SIGKILL and SIGSTOP the kernel itself sends (si_code
 * SI_KERNEL: the OOM killer, a thread group's exit). Sent from user space,
 * even by init itself, they are dropped, whatever their default action.
 */
static bool init_drops(const struct task *t, const struct k_siginfo *info)
{
	int sig = info->si_signo;

	return t->pid == 1 && t->sighand->action[sig].handler == SIG_DFL &&
	       !(info->si_code == SI_KERNEL && (sig == SIGKILL || sig == SIGSTOP));
}

/* The synchronous fault signals: they end init too (force_sig_fault drops SIGNAL_UNKILLABLE). */
static bool fault_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGTRAP || sig == SIGFPE ||
	       sig == SIGSYS;
}

/* At delivery, SIG_DFL does nothing: an ignored default, or init (queued while it had a handler). */
static bool default_action_ignores(const struct task *t, int sig)
{
	return sig != SIGKILL && (default_ignored(sig) || (t->pid == 1 && !fault_signal(sig)));
}

void signal_init_task(struct task *t)
{
	memset(&t->sig, 0, sizeof(t->sig));
	sigpending_init(&t->sig.pending);
}

void signal_fork(struct task *child, const struct task *parent)
{
	memcpy(child->sighand->action, parent->sighand->action, sizeof(child->sighand->action));
	child->sig.blocked = parent->sig.blocked;
	sigpending_flush(&child->sig.pending);
	child->sig.sas_sp = parent->sig.sas_sp;
	child->sig.sas_size = parent->sig.sas_size;
	child->sig.sas_flags = parent->sig.sas_flags;
}

void signal_reset_handlers(struct task *t)
{
	for (int s = 1; s <= KNSIG; s++) {
		struct k_sigaction *a = &t->sighand->action[s];
		uint64_t handler = a->handler == SIG_IGN ? SIG_IGN : SIG_DFL;

		memset(a, 0, sizeof(*a));       /* flags, restorer and mask go, ignored or not */
		a->handler = handler;
	}
}

void signal_exec(struct task *t)
{
	t->sig.sas_sp = 0;              /* execve drops the alternate stack, as Linux */
	t->sig.sas_size = 0;
	t->sig.sas_flags = 0;
	signal_reset_handlers(t);
}

bool fatal_signal_pending(const struct task *t)
{
	/* Lockless read (sched_lock guards the sets): a signal sent meanwhile is seen by the next call. */
	ksigset_t own = READ_ONCE(t->sig.pending.set);
	ksigset_t group = t->group ? READ_ONCE(t->group->pending.set) : 0;

	return ((own | group) & sig_bit(SIGKILL)) != 0;
}

bool current_fatal_signal(void)
{
	return fatal_signal_pending(current);
}

/* Make t notice a pending signal: wake it if it sleeps, interrupt it if it runs elsewhere. */
static void signal_wake_locked(struct task *t)
{
	if (!signal_pending(t))
		return;
	sched_wakeup_locked(t);
	if (t->on_cpu && t->cpu >= 0 && (unsigned)t->cpu != arch_cpu_id())
		arch_send_reschedule((unsigned)t->cpu);
}

int send_signal_info_locked(struct task *t, const struct k_siginfo *info, bool group)
{
	int sig = info->si_signo;
	struct sigpending_k *pending = group && t->group ? &t->group->pending : &t->sig.pending;
	struct list_head *p;
	uint64_t h;
	int r;

	assert_spin_held(&sched_lock);
	if (sig < 0 || sig > KNSIG)
		return -EINVAL;
	if (sig == 0)
		return 0;
	h = t->sighand->action[sig].handler;
	/* an ignored signal is discarded, as Linux does, unless blocked (it may be waited for) */
	if (sig != SIGKILL && !(t->sig.blocked & sig_bit(sig)) &&
	    (h == SIG_IGN || (h == SIG_DFL && default_ignored(sig))))
		return 0;
	if (init_drops(t, info))
		return 0;
	if ((r = sigpending_add_locked(pending, info)))
		return r;
	if (!group || !t->group) {
		signal_wake_locked(t);
		return 0;
	}
	list_for_each(p, &t->group->threads)
		signal_wake_locked(list_entry(p, struct task, group_link));
	return 0;
}

int send_signal_info(struct task *t, const struct k_siginfo *info, bool group)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);
	int r = send_signal_info_locked(t, info, group);

	spin_unlock_irqrestore(&sched_lock, f);
	return r;
}

int send_signal(struct task *t, int sig, int code, int sender_pid, bool group)
{
	struct k_siginfo info;

	memset(&info, 0, sizeof(info));
	info.si_signo = sig;
	info.si_code = code;
	info.kill.pid = sender_pid;
	return send_signal_info(t, &info, group);
}

bool signal_fatal(const struct task *t, int sig)
{
	uint64_t h = t->sighand->action[sig].handler;

	if (sig == SIGKILL || (t->sig.blocked & sig_bit(sig)) || h == SIG_IGN)
		return true;            /* forced back to SIG_DFL; fault signals kill by default */
	return h == SIG_DFL && !default_ignored(sig);
}

/*
 * Make sig pending for the current task with that siginfo, so that nothing
 * stops it: blocked or ignored, it is unblocked and reset to SIG_DFL, and so
 * it is when to_default (its handler is not to run). sched_lock held.
 */
static void force_sig_locked(int sig, int code, uintptr_t addr, bool to_default)
{
	struct task *t = current;
	struct k_siginfo *info = &t->sig.pending.info[sig];

	assert_spin_held(&sched_lock);
	if (to_default || (t->sig.blocked & sig_bit(sig)) || t->sighand->action[sig].handler == SIG_IGN) {
		t->sig.blocked &= ~sig_bit(sig);
		memset(&t->sighand->action[sig], 0, sizeof(t->sighand->action[sig]));
	}
	memset(info, 0, sizeof(*info));
	info->si_signo = sig;
	info->si_code = code;
	info->addr = addr;
	t->sig.pending.set |= sig_bit(sig);
}

void force_sig_fault(int sig, int code, uintptr_t addr)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	force_sig_locked(sig, code, addr, false);
	spin_unlock_irqrestore(&sched_lock, f);
}

const char *report_begin(const struct task *t)
{
	return t->pid == 1 ? REPORT_BEGIN : "";
}

const char *report_end(const struct task *t)
{
	return t->pid == 1 ? REPORT_END : "";
}

/*
 * Terminate the current task's process by sig, with the "killed by signal"
 * report (once per process: a thread going because its group exits says
 * nothing).
 */
__attribute__((noreturn)) static void kill_current(int sig)
{
	struct task *t = current;

	if (!thread_group_exiting(t))
		printk("%svmkernel: pid %d (%s) killed by signal %d (%s)\n%s", report_begin(t), t->pid,
		       t->comm, sig, signal_name(sig), report_end(t));
	group_exit(sig);
}

/* sp lies on t's alternate signal stack. */
static bool on_sig_stack(const struct task *t, uint64_t sp)
{
	return sp > t->sig.sas_sp && sp - t->sig.sas_sp <= t->sig.sas_size;
}

int sas_flags(const struct task *t, uint64_t sp)
{
	if (!t->sig.sas_size)
		return SS_DISABLE;
	return on_sig_stack(t, sp) ? SS_ONSTACK : 0;
}

int sigaltstack_set(struct task *t, uint64_t ss_sp, int32_t ss_flags, uint64_t ss_size, uint64_t sp)
{
	int mode = ss_flags & ~(int32_t)SS_AUTODISARM;

	if (on_sig_stack(t, sp))
		return -EPERM;
	if (mode != SS_DISABLE && mode != SS_ONSTACK && mode != 0)
		return -EINVAL;
	if (mode == SS_DISABLE) {
		ss_sp = 0;
		ss_size = 0;
	} else if (ss_size < MINSIGSTKSZ_K) {
		return -ENOMEM;
	}
	t->sig.sas_sp = ss_sp;
	t->sig.sas_size = ss_size;
	t->sig.sas_flags = (uint32_t)ss_flags & SS_AUTODISARM;
	return 0;
}

/*
 * A system call that a signal interrupted (include/kerrno.h): -EINTR, or
 * restart it (rip back over the 2-byte SYSCALL, rax = its number, kept in
 * tf->error by syscall_dispatch). handler: a handler will run (with
 * sa_restart: it has SA_RESTART). Once per system call.
 */
void syscall_restart_fixup(struct trap_frame *tf, bool handler, bool sa_restart)
{
	long r = (long)tf->rax;

	if (!handler && current->sig.restore_mask) {     /* sigsuspend ended without a handler */
		current->sig.blocked = current->sig.saved_mask;
		current->sig.restore_mask = false;
	}
	if (tf->vector != VEC_SYSCALL || tf->error == SYSCALL_NO_RESTART)
		return;
	if (r != -ERESTARTSYS && r != -ERESTARTNOINTR && r != -ERESTARTNOHAND)
		return;
	if (handler && (r == -ERESTARTNOHAND || (r == -ERESTARTSYS && !sa_restart))) {
		tf->rax = (uint64_t)-EINTR;
	} else {
		tf->rax = tf->error;
		tf->rip -= 2;
	}
	tf->error = SYSCALL_NO_RESTART;
}

/* The top of the alternate signal stack when ka's handler runs on it from sp, else 0. */
static uint64_t altstack_top(const struct task *t, const struct k_sigaction *ka, uint64_t sp)
{
	if ((ka->flags & SA_ONSTACK) && sas_flags(t, sp) == 0)
		return t->sig.sas_sp + t->sig.sas_size;
	return 0;
}

/* Enter ka's handler for sig: the frame on the chosen stack; 0 or -EFAULT. */
static int setup_rt_frame(struct trap_frame *tf, int sig, const struct k_sigaction *ka,
			  const struct k_siginfo *info, ksigset_t oldmask)
{
	struct task *t = current;
	uint64_t sp = arch_user_sp(tf), top = altstack_top(t, ka, sp);
	struct signal_stack ss = { .sp = t->sig.sas_sp, .flags = sas_flags(t, sp) | (int32_t)t->sig.sas_flags,
				   .size = t->sig.sas_size };

	if (arch_signal_frame_setup(tf, sig, ka, info, oldmask, &ss, top))
		return -EFAULT;
	if ((ka->flags & SA_ONSTACK) && (t->sig.sas_flags & SS_AUTODISARM)) {
		t->sig.sas_sp = 0;      /* SS_AUTODISARM: off while the handler runs on it */
		t->sig.sas_size = 0;
		t->sig.sas_flags = 0;
	}
	return 0;
}

/* Take sig off t's own pending set, else its group's; its siginfo. sched_lock held. */
static struct k_siginfo dequeue_locked(struct task *t, int sig)
{
	struct k_siginfo info;

	sigpending_take_locked(t->sig.pending.set & sig_bit(sig) ? &t->sig.pending : &t->group->pending,
			       sig, &info);
	return info;
}

#define SYNCHRONOUS_SIGNALS (sig_bit(SIGSEGV) | sig_bit(SIGBUS) | sig_bit(SIGILL) | sig_bit(SIGTRAP) | \
			     sig_bit(SIGFPE) | sig_bit(SIGSYS))

/* The signal of ready (non-empty) to take first: synchronous fault signals, then the lowest (Linux's order). */
static int next_signal(ksigset_t ready)
{
	if (ready & SYNCHRONOUS_SIGNALS)
		ready &= SYNCHRONOUS_SIGNALS;
	return __builtin_ctzll(ready) + 1;
}

int signal_dequeue_locked(struct task *t, ksigset_t set, struct k_siginfo *info)
{
	ksigset_t own = t->sig.pending.set & set, group = t->group->pending.set & set;
	int sig;

	if (!own && !group)
		return 0;
	sig = next_signal(own ? own : group);   /* the thread's own first, as Linux */
	*info = dequeue_locked(t, sig);
	return sig;
}

/*
 * The frame for sig's handler ka could not be written (Linux's
 * force_sigsegv): the delivery is undone but for its dequeue and
 * SA_RESETHAND (the mask goes back to blocked, sigsuspend's restore_mask
 * too), and SIGSEGV is forced (SI_KERNEL): a SIGSEGV handler that can run
 * takes it on the next pass of exit_to_user; when the failed signal was
 * SIGSEGV itself, its action goes back to SIG_DFL, so that kills.
 */
static void frame_failed(struct trap_frame *tf, int sig, const struct k_sigaction *ka, ksigset_t blocked,
			 bool restore_mask)
{
	struct task *t = current;
	uint64_t sp = arch_user_sp(tf), top = altstack_top(t, ka, sp);
	unsigned long f;

	printk("%svmkernel: pid %d (%s): cannot deliver %s (bad handler, or stack %#llx not writable): "
	       "forcing SIGSEGV\n%s", report_begin(t), t->pid, t->comm, signal_name(sig),
	       (unsigned long long)(top ? top : sp), report_end(t));
	f = spin_lock_irqsave(&sched_lock);
	t->sig.blocked = blocked;
	t->sig.restore_mask = restore_mask;
	force_sig_locked(SIGSEGV, SI_KERNEL, 0, sig == SIGSEGV);
	spin_unlock_irqrestore(&sched_lock, f);
}

void signal_deliver(struct trap_frame *tf)
{
	struct task *t = current;
	struct k_sigaction ka;
	struct k_siginfo info;
	ksigset_t ready, oldmask, blocked;
	unsigned long f;
	bool restore_mask;
	int sig;

	f = spin_lock_irqsave(&sched_lock);
	ready = signal_pending_set(t) & ~t->sig.blocked;
	if (!ready) {
		spin_unlock_irqrestore(&sched_lock, f);
		return;
	}
	sig = ready & sig_bit(SIGKILL) ? SIGKILL : next_signal(ready);
	info = dequeue_locked(t, sig);
	ka = t->sighand->action[sig];
	oldmask = blocked = t->sig.blocked;
	restore_mask = t->sig.restore_mask;
	if (ka.handler > SIG_IGN && sig != SIGKILL && t->sig.restore_mask) {
		oldmask = t->sig.saved_mask;    /* sigsuspend: the handler returns to the old set */
		t->sig.blocked = oldmask;
		t->sig.restore_mask = false;
	}
	if (ka.handler > SIG_IGN && sig != SIGKILL) {
		t->sig.blocked |= ka.mask & ~(sig_bit(SIGKILL) | sig_bit(SIGSTOP));
		if (!(ka.flags & SA_NODEFER))
			t->sig.blocked |= sig_bit(sig);
		if (ka.flags & SA_RESETHAND)
			memset(&t->sighand->action[sig], 0, sizeof(t->sighand->action[sig]));
	}
	spin_unlock_irqrestore(&sched_lock, f);

	if (sig == SIGKILL || ka.handler == SIG_DFL) {
		if (default_action_ignores(t, sig))
			return;
		kill_current(sig);
	}
	if (ka.handler == SIG_IGN)
		return;
	syscall_restart_fixup(tf, true, ka.flags & SA_RESTART);
	arch_irq_enable();
	if (setup_rt_frame(tf, sig, &ka, &info, oldmask)) {
		arch_irq_disable();
		frame_failed(tf, sig, &ka, blocked, restore_mask);
	}
	arch_irq_disable();
}

/* rt_sigreturn: restore the context saved by setup_rt_frame (include/signal_frame.h). */
long sys_rt_sigreturn(struct trap_frame *tf, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		      uint64_t a4, uint64_t a5);
long sys_rt_sigreturn(struct trap_frame *tf, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		      uint64_t a4, uint64_t a5)
{
	struct task *t = current;
	struct signal_stack ss;
	ksigset_t mask;
	unsigned long f;
	long ret;

	if (arch_signal_frame_restore(tf, &mask, &ss, &ret)) {
		force_sig_fault(SIGSEGV, SI_KERNEL, 0);
		return -EFAULT;
	}
	sigaltstack_set(t, ss.sp, ss.flags, ss.size, arch_user_sp(tf));
	f = spin_lock_irqsave(&sched_lock);
	t->sig.blocked = mask & ~(sig_bit(SIGKILL) | sig_bit(SIGSTOP));
	spin_unlock_irqrestore(&sched_lock, f);
	return ret;                     /* the restored return-value register, unchanged */
}
