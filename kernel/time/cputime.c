/*
 * CPU time: what each thread has run, exactly, and how that splits between
 * user mode and the kernel (include/task.h, struct cputime).
 *
 * The exact part is Linux's sum_exec_runtime: at every switch the task
 * leaving a CPU adds the cycles since it came on (arch_cycles, the TSC),
 * and a running task's time adds the cycles since then. The split comes
 * from the timer: each tick counts, for the task it interrupts, a user or
 * a kernel tick; the exact time is then shared out in that proportion, as
 * Linux's cputime_adjust does with its tick-sampled utime and stime (a
 * process that ran less than a tick has only a guess of a split, and all
 * of it counts as user time when no tick saw it), each part held from
 * going down between two reads (split_monotonic).
 *
 * A process's time is its threads' plus what its ended threads left in
 * the group (cputime_thread_gone_locked); RUSAGE_CHILDREN's is the sum of
 * what wait4 reported for its reaped children, theirs included
 * (cputime_reaped_locked). Under -icount the cycles are guest instructions.
 */
#include "task.h"
#include "sched_internal.h"
#include "ktimer.h"
#include "arch.h"
#include "lockless.h"

static void cputime_add(struct cputime *to, const struct cputime *c)
{
	to->cycles += c->cycles;
	to->user_ticks += c->user_ticks;
	to->sys_ticks += c->sys_ticks;
}

void cputime_switch_locked(struct task *prev, struct task *next)
{
	uint64_t now = arch_cycles();

	assert_spin_held(&sched_lock);
	prev->cputime.cycles += now - prev->on_cpu_since;
	next->on_cpu_since = now;
}

void cputime_tick(struct task *t, bool user)
{
	if (user)
		t->cputime.user_ticks++;
	else
		t->cputime.sys_ticks++;
}

/* t's time, the cycles since it came on its CPU included when it runs. sched_lock held, or t the caller. */
static struct cputime thread_time(const struct task *t)
{
	struct cputime c = t->cputime;

	if (t->on_cpu)
		c.cycles += arch_cycles() - t->on_cpu_since;
	return c;
}

/* c's time in ns, shared out between user mode and the kernel as its ticks were (cputime_adjust). */
static void split(const struct cputime *c, uint64_t *user_ns, uint64_t *sys_ns)
{
	uint64_t ns = cycles_to_ns(c->cycles), ticks = c->user_ticks + c->sys_ticks;

	/* ns * user_ticks / ticks without overflow (the remainder's product is below ticks squared). */
	*user_ns = ticks ? ns / ticks * c->user_ticks + ns % ticks * c->user_ticks / ticks : ns;
	*sys_ns = ns - *user_ns;
}

/*
 * c's split, kept from going down against what prev last gave (Linux's
 * cputime_adjust): the shares follow the ticks, which can move time from
 * one side to the other between two reads (a thread that made system
 * calls, then spins in user mode: its kernel share shrinks), yet a
 * program takes differences of two reads (getrusage before and after),
 * and each part must only grow. The total is exact; the kernel part is
 * held at least where it was, the user part then too.
 */
static void split_monotonic(const struct cputime *c, struct cputime_split *prev, uint64_t *user_ns,
			    uint64_t *sys_ns)
{
	uint64_t user, sys, total;

	split(c, &user, &sys);
	total = user + sys;
	if (total > prev->user_ns + prev->sys_ns) {
		sys = MAX(sys, prev->sys_ns);
		user = total - sys;
		if (user < prev->user_ns) {
			user = prev->user_ns;
			sys = total - user;
		}
		prev->user_ns = user;
		prev->sys_ns = sys;
	}
	*user_ns = prev->user_ns;
	*sys_ns = prev->sys_ns;
}

uint64_t cputime_self_ns(void)
{
	/* Only this CPU changes the running task's times (its ticks, its switch away): no sched_lock. */
	unsigned long f = arch_irq_save();
	struct cputime c = thread_time(current);

	arch_irq_restore(f);
	return cycles_to_ns(c.cycles);
}

void cputime_thread_split(struct task *t, uint64_t *user_ns, uint64_t *sys_ns)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);
	struct cputime c = thread_time(t);

	split_monotonic(&c, &t->thread_split, user_ns, sys_ns);
	spin_unlock_irqrestore(&sched_lock, f);
}

/* Every thread of t's group, and what its ended threads left. sched_lock held. */
static struct cputime process_time_locked(const struct task *t)
{
	struct cputime c = { 0 };
	struct list_head *p;

	if (!t->group)
		return thread_time(t);
	c = t->group->dead;
	list_for_each(p, &t->group->threads) {
		struct cputime th = thread_time(list_entry(p, struct task, group_link));

		cputime_add(&c, &th);
	}
	return c;
}

void cputime_process_locked(struct task *t, uint64_t *user_ns, uint64_t *sys_ns)
{
	struct cputime c = process_time_locked(t);
	struct cputime_split none = { 0, 0 };

	split_monotonic(&c, t->group ? &t->group->self_split : &none, user_ns, sys_ns);
}

void cputime_children_locked(const struct task *t, uint64_t *user_ns, uint64_t *sys_ns)
{
	*user_ns = t->group ? t->group->children.user_ns : 0;
	*sys_ns = t->group ? t->group->children.sys_ns : 0;
}

void cputime_process(struct task *t, uint64_t *user_ns, uint64_t *sys_ns)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	cputime_process_locked(t, user_ns, sys_ns);
	spin_unlock_irqrestore(&sched_lock, f);
}

void cputime_children(struct task *t, uint64_t *user_ns, uint64_t *sys_ns)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	cputime_children_locked(t, user_ns, sys_ns);
	spin_unlock_irqrestore(&sched_lock, f);
}

void cputime_thread_gone_locked(struct task *t)
{
	assert_spin_held(&sched_lock);
	if (t->group)
		cputime_add(&t->group->dead, &t->cputime);
	t->cputime = (struct cputime){ 0 };
}

void cputime_reaped_locked(struct task *parent, struct task *child, uint64_t *user_ns, uint64_t *sys_ns)
{
	uint64_t cuser, csys;

	assert_spin_held(&sched_lock);
	cputime_process_locked(child, user_ns, sys_ns);
	cputime_children_locked(child, &cuser, &csys);
	*user_ns += cuser;
	*sys_ns += csys;
	if (!parent->group)
		return;
	parent->group->children.user_ns += *user_ns;
	parent->group->children.sys_ns += *sys_ns;
}
