/*
 * The scheduler: one run queue per CPU, round-robin on each, preemption by
 * the timer tick when a task's slice ends (taken on the way back to user
 * mode, see exit_to_user), explicit sleep/wake-up, and simple balancing:
 *   - a task made runnable (new, or woken) goes to an idle CPU it may run
 *     on (its previous one first), else to the least loaded one, and an
 *     idle target CPU is woken by an IPI;
 *   - at every schedule, a CPU whose queue is empty, or whose load is
 *     smaller by two or more than another's, pulls one queued task from
 *     the busiest CPU (load = queued tasks + the running one).
 * Each CPU has an idle task (pid 0) that runs when nothing else can: the
 * boot context on CPU 0 (which also runs the boot tests and waits for
 * init), the start-up stack on the others (cpu_idle: hlt until work).
 *
 * Locking: sched_lock (interrupts off) protects every run queue and
 * everything tagged [sched] in include/task.h. One lock for all CPUs keeps
 * the switch protocol simple: a switch happens with sched_lock held and the
 * task switched to releases it (in schedule(), or sched_tail for a new
 * task), so no other CPU can pick a task, or free a zombie, before its
 * registers are saved. (Linux has a lock per run queue; with 16 CPUs at
 * most, one lock held for a few hundred instructions per switch is enough.)
 */
#include "sched_internal.h"
#include "lockless.h"
#include "x86.h"
#include "mm.h"
#include "pmm.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "printk.h"
#include "arch_mmu.h"

struct spinlock sched_lock = SPINLOCK_INIT_CLASS("sched", LOCK_CLASS_SCHED);
struct list_head task_list = LIST_HEAD_INIT(task_list);
struct task idle_task;
static struct task ap_idle_tasks[NR_CPUS];
static int next_pid = 1;
static unsigned ntasks;                         /* [sched] tasks on task_list */

struct rq {
	struct list_head queue;                 /* [sched] runnable tasks waiting for this CPU */
	unsigned nr_queued;                     /* [sched] tasks on queue */
	struct task *curr;                      /* [sched] the task running here */
	struct task *idle;                      /* this CPU's idle task */
	unsigned long switches;                 /* [sched] context switches */
	unsigned long pulls;                    /* [sched] tasks taken from other queues */
	struct task *dead;                      /* [sched] switched away from for good: freed after the switch */
};
static struct rq runqueues[NR_CPUS];

/* Sleeping locks taken before the first task exists (lockdep). */
static struct lockdep_held boot_held_locks;

struct lockdep_held *lockdep_task_held(void)
{
	struct task *t = current;

	return t ? &t->held_locks : &boot_held_locks;
}

static void task_links_init(struct task *t)
{
	list_init(&t->children);
	list_init(&t->sibling);
	list_init(&t->run_link);
	list_init(&t->all_link);
	list_init(&t->group_link);
	wait_queue_init(&t->child_wait);
}

/* Make t the idle task of cpu, running now on the stack kstack (NULL: the boot stack). */
static void idle_init(struct task *t, unsigned cpu, void *kstack)
{
	struct rq *rq = &runqueues[cpu];

	memset(t, 0, sizeof(*t));
	t->state = TASK_RUNNABLE;
	t->is_idle = true;
	t->on_cpu = true;
	t->cpu = (int)cpu;
	t->cpus_allowed = 1UL << cpu;
	t->kstack = kstack;
	task_links_init(t);
	ksnprintf(t->comm, sizeof(t->comm), cpu ? "idle/%u" : "idle", cpu);
	signal_init_task(t);
	arch_task_reset_fpu(t);
	list_init(&rq->queue);
	rq->curr = rq->idle = t;
	arch_set_current(t);
}

void sched_init(void)
{
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++)
		list_init(&runqueues[cpu].queue);
	idle_init(&idle_task, 0, NULL);
}

void sched_init_cpu(unsigned cpu, void *kstack)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	idle_init(&ap_idle_tasks[cpu], cpu, kstack);
	spin_unlock_irqrestore(&sched_lock, f);
}

struct task *task_alloc(void)
{
	struct task *t = kzalloc(sizeof(*t));
	unsigned long f;

	if (!t)
		return NULL;
	t->kstack = arch_kstack_alloc();
	if (!t->kstack) {
		kfree(t);
		return NULL;
	}
	t->tf = (struct trap_frame *)((char *)t->kstack + KSTACK_SIZE) - 1;
	memset(t->tf, 0, sizeof(*t->tf));
	task_links_init(t);
	if (thread_group_init(t)) {
		arch_kstack_free(t->kstack);
		kfree(t);
		return NULL;
	}
	t->cpus_allowed = ~0UL;
	signal_init_task(t);
	arch_task_reset_fpu(t);
	f = spin_lock_irqsave(&sched_lock);
	t->pid = t->tid = next_pid++;
	spin_unlock_irqrestore(&sched_lock, f);
	return t;
}

void task_free(struct task *t)
{
	BUG_ON(t->is_idle || t->on_cpu);
	thread_group_put(t);
	arch_kstack_free(t->kstack);
	kfree(t);
}

void task_free_locked(struct task *t)
{
	assert_spin_held(&sched_lock);
	BUG_ON(t->is_idle || t->on_cpu);
	thread_group_put_locked(t);
	arch_kstack_free(t->kstack);
	kfree(t);
}

/* ------------------------------------------------------------ run queues */

/*
 * A kernel whose TLB flush stays on its own CPU (the smp lab's skeleton:
 * arch_tlb_flush_reaches_all) runs every user task on CPU 0: a change to
 * an address space (a thread's munmap, a truncation that zaps another
 * process's mapping of the file) can then leave no stale entry on another
 * CPU. User tasks take turns there, and so do the kernel threads that
 * change user address spaces (kswapd's reclaim, khugepaged's collapse: on
 * another CPU, their flush would miss the user task running on CPU 0;
 * user test thp_khugepaged_under_writes). Other kernel threads run
 * anywhere.
 */
static bool cpu_may_run(const struct task *t, unsigned cpu)
{
	bool user_side = !t->kthread_fn || t->kthread_edits_user_mm;

	if (cpu != 0 && user_side && !t->is_idle && !arch_tlb_flush_reaches_all())
		return false;
	return (t->cpus_allowed & arch_cpu_online_mask() & (1UL << cpu)) != 0;
}

/* Tasks running or waiting on cpu. */
static unsigned rq_load(unsigned cpu)
{
	const struct rq *rq = &runqueues[cpu];

	return rq->nr_queued + (rq->curr && !rq->curr->is_idle);
}

static void enqueue(struct task *t, unsigned cpu)
{
	struct rq *rq = &runqueues[cpu];

	list_add_tail(&t->run_link, &rq->queue);
	rq->nr_queued++;
	t->cpu = (int)cpu;
}

static void dequeue(struct task *t)
{
	runqueues[t->cpu].nr_queued--;
	list_del(&t->run_link);
}

/* Where a task made runnable goes: an idle allowed CPU (its last first), else the least loaded. */
static unsigned select_cpu(const struct task *t)
{
	unsigned best = NR_CPUS, best_load = ~0u, cpu;

	if (t->cpu >= 0 && cpu_may_run(t, (unsigned)t->cpu) && rq_load((unsigned)t->cpu) == 0)
		return (unsigned)t->cpu;
	for_each_cpu(cpu, t->cpus_allowed & arch_cpu_online_mask()) {
		unsigned load;

		if (!cpu_may_run(t, cpu))
			continue;
		load = rq_load(cpu);
		if (load < best_load) {
			best = cpu;
			best_load = load;
		}
	}
	BUG_ON(best == NR_CPUS);
	return best;
}

/* Queue t on a chosen CPU and wake that CPU if it idles. sched_lock held. */
static void make_runnable(struct task *t)
{
	unsigned cpu = select_cpu(t);

	enqueue(t, cpu);
	if (runqueues[cpu].curr->is_idle)
		arch_send_reschedule(cpu);
}

/* The first task on cpu's queue that may run on here, or NULL. */
static struct task *first_movable(unsigned from, unsigned here)
{
	struct list_head *p;

	list_for_each(p, &runqueues[from].queue) {
		struct task *t = list_entry(p, struct task, run_link);

		if (cpu_may_run(t, here))
			return t;
	}
	return NULL;
}

/* Pull one task to cpu from the busiest CPU when cpu is idle-bound or two tasks behind. */
static void balance(unsigned cpu, unsigned my_load)
{
	unsigned busiest = NR_CPUS, most = 0, c;
	struct task *t;

	for_each_cpu(c, arch_cpu_online_mask()) {
		unsigned load = rq_load(c);

		if (c != cpu && runqueues[c].nr_queued && load > most) {
			busiest = c;
			most = load;
		}
	}
	if (busiest == NR_CPUS || (my_load && most < my_load + 2))
		return;
	t = first_movable(busiest, cpu);
	if (!t)
		return;
	dequeue(t);
	enqueue(t, cpu);
	runqueues[cpu].pulls++;
}

void sched_start_task(struct task *t)
{
	unsigned long f;

	if (t->kthread_fn)
		arch_task_setup_kthread(t);
	else
		arch_task_setup_stack(t);
	t->start_ns = monotonic_ns();
	f = spin_lock_irqsave(&sched_lock);
	t->state = TASK_RUNNABLE;
	t->slice = SCHED_SLICE_TICKS;
	t->cpu = -1;
	list_add_tail(&t->all_link, &task_list);
	ntasks++;
	if (t->parent)
		list_add_tail(&t->sibling, &t->parent->children);
	make_runnable(t);
	spin_unlock_irqrestore(&sched_lock, f);
}

/*
 * Point this CPU's MMU at next's address space; a kernel thread or the idle
 * task keeps the last one loaded (lazy TLB: no CR3 switch, and none on the
 * way back if the same address space comes back).
 */
static void switch_mm(struct task *prev, struct task *next)
{
	if (next->mm)
		mm_activate(next->mm);
	else
		mm_enter_lazy();
}

/*
 * Right after a switch, in the task switched to (sched_lock still held):
 * free the task switched away from if it ended for good
 * (thread_release_dead_locked). Its registers are saved and this CPU is
 * off its stack now, as Linux's finish_task_switch.
 */
static void finish_switch(void)
{
	struct rq *rq = &runqueues[arch_cpu_id()];
	struct task *dead = rq->dead;

	if (dead) {
		rq->dead = NULL;
		task_free_locked(dead);
	}
}

void __schedule(void)
{
	unsigned cpu = arch_cpu_id();
	struct rq *rq = &runqueues[cpu];
	struct task *prev = current, *next;
	bool prev_runs = prev->state == TASK_RUNNABLE && !prev->is_idle;

	assert_spin_held(&sched_lock);
	prev->need_resched = false;
	balance(cpu, rq->nr_queued + prev_runs);
	if (prev_runs) {
		if (cpu_may_run(prev, cpu))
			enqueue(prev, cpu);
		else
			make_runnable(prev);
	}
	if (list_empty(&rq->queue)) {
		next = rq->idle;
	} else {
		next = list_first_entry(&rq->queue, struct task, run_link);
		dequeue(next);
	}
	if (next == prev)
		return;
	if (prev->free_at_switch)
		rq->dead = prev;        /* an ended thread: its stack is in use until the switch */
	next->slice = SCHED_SLICE_TICKS;
	next->cpu = (int)cpu;
	cputime_switch_locked(prev, next);
	prev->on_cpu = false;
	next->on_cpu = true;
	rq->curr = next;
	rq->switches++;
	switch_mm(prev, next);
	arch_switch_to(prev, next);
	finish_switch();
}

/* sched_tail: a new task's first code (ret_from_fork): release the lock schedule() held; interrupts stay off. */
void sched_tail(void);
void sched_tail(void)
{
	finish_switch();
	spin_unlock_irqrestore(&sched_lock, 0);
}

void schedule(void)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	__schedule();
	spin_unlock_irqrestore(&sched_lock, f);
}

void sched_yield(void)
{
	schedule();
}

/* Work an idle cpu could pick up: its own queue, or a task waiting behind a running one elsewhere (a hint: no lock). */
static bool work_hint(unsigned cpu)
{
	unsigned c;

	for_each_cpu(c, arch_cpu_online_mask())
		if (runqueues[c].nr_queued && (c == cpu || rq_load(c) > 1))
			return true;
	return false;
}

/* work_hint, exactly: the task could run here. sched_lock held. */
static bool has_work_locked(unsigned cpu)
{
	unsigned c;

	if (runqueues[cpu].nr_queued)
		return true;
	for_each_cpu(c, arch_cpu_online_mask())
		if (c != cpu && rq_load(c) > 1 && first_movable(c, cpu))
			return true;
	return false;
}

void idle_pause(void)
{
	/* Woken by the next tick, or at once by the IPI a wake-up of an idle task sends. */
	arch_idle_wait();
}

void sched_tick(bool user)
{
	struct task *t = current;

	if (t->is_idle)
		return;
	cputime_tick(t, user);
	if (t->slice > 0)
		t->slice--;
	if (t->slice == 0)
		t->need_resched = true;
}

void cpu_idle(void)
{
	unsigned cpu = arch_cpu_id();

	for (;;) {
		arch_irq_disable();
		if (work_hint(cpu)) {
			unsigned long f = spin_lock_irqsave(&sched_lock);

			if (has_work_locked(cpu)) {
				__schedule();
				spin_unlock_irqrestore(&sched_lock, f);
				continue;
			}
			spin_unlock_irqrestore(&sched_lock, f);
		}
		arch_idle_wait();
	}
}

/*
 * A task woken between its wait_prepare and here is runnable again (and,
 * still on its CPU, was not queued): it goes on. An idle task never leaves
 * its CPU: it waits for an interrupt instead.
 */
void sched_sleep_if_sleeping(void)
{
	struct task *self = current;
	unsigned long f = spin_lock_irqsave(&sched_lock);

	if (self->state == TASK_SLEEPING)
		__schedule();
	if (self->is_idle && self->state == TASK_SLEEPING) {
		spin_unlock_irqrestore(&sched_lock, f);
		idle_pause();
		return;
	}
	spin_unlock_irqrestore(&sched_lock, f);
}

/*
 * A task woken while it still runs on its CPU (between wait_prepare
 * and its switch) only becomes runnable again: it is not queued (on_cpu),
 * and __schedule keeps running it, or queues it when it switches away.
 */
void sched_wakeup_locked(struct task *t)
{
	assert_spin_held(&sched_lock);
	if (t->state != TASK_SLEEPING)
		return;
	t->state = TASK_RUNNABLE;
	if (t->is_idle) {
		arch_send_reschedule((unsigned)t->cpu);
		return;
	}
	if (!t->on_cpu)
		make_runnable(t);
}

bool sched_task_running(const struct task *t)
{
	unsigned cpu;

	for_each_cpu(cpu, arch_cpu_online_mask())
		if (READ_ONCE(runqueues[cpu].curr) == t)
			return true;
	return false;
}

void sched_wakeup(struct task *t)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	sched_wakeup_locked(t);
	spin_unlock_irqrestore(&sched_lock, f);
}

void sched_wait_flag(int *flag)
{
	struct task *self = current;

	lockdep_might_sleep(NULL);
	for (;;) {
		unsigned long f = spin_lock_irqsave(&sched_lock);

		if (smp_load_acquire(flag)) {
			self->state = TASK_RUNNABLE;
			spin_unlock_irqrestore(&sched_lock, f);
			return;
		}
		self->state = TASK_SLEEPING;
		__schedule();
		spin_unlock_irqrestore(&sched_lock, f);
		if (self->is_idle)
			idle_pause();           /* the idle task never leaves the CPU: wait here */
	}
}

void sched_wake_flag(struct task *t, int *flag)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	smp_store_release(flag, 1);
	sched_wakeup_locked(t);
	spin_unlock_irqrestore(&sched_lock, f);
}

unsigned sched_task_count(void)
{
	return ntasks;
}

void sched_task_unlink(struct task *t)
{
	assert_spin_held(&sched_lock);
	list_del(&t->all_link);
	list_del(&t->sibling);
	ntasks--;
}

struct task *task_find_any_locked(int pid)
{
	struct list_head *p;

	assert_spin_held(&sched_lock);
	list_for_each(p, &task_list) {
		struct task *t = list_entry(p, struct task, all_link);
		if (t->tid == pid)      /* a process id is its leader's thread id */
			return t;
	}
	return NULL;
}

struct task *task_find_any(int pid)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);
	struct task *found = task_find_any_locked(pid);

	spin_unlock_irqrestore(&sched_lock, f);
	return found;
}

struct task *task_find(int pid)
{
	struct task *t = task_find_any(pid);

	return t && t->state != TASK_ZOMBIE ? t : NULL;
}

struct mm *task_get_mm(int pid, char comm[TASK_COMM_LEN])
{
	struct mm *mm = NULL;
	struct list_head *p;
	unsigned long f = spin_lock_irqsave(&sched_lock);

	list_for_each(p, &task_list) {
		struct task *t = list_entry(p, struct task, all_link);
		if (t->pid == pid && t->state != TASK_ZOMBIE && t->mm) {
			mm = mm_get(t->mm);
			memcpy(comm, t->comm, TASK_COMM_LEN);
			break;
		}
	}
	spin_unlock_irqrestore(&sched_lock, f);
	return mm;
}

struct mm *task_set_mm(struct task *t, struct mm *mm)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);
	struct mm *old = t->mm;

	t->mm = mm;
	spin_unlock_irqrestore(&sched_lock, f);
	return old;
}

void sched_set_affinity_locked(struct task *t, unsigned long cpus)
{
	assert_spin_held(&sched_lock);
	t->cpus_allowed = cpus;
	if (t->state == TASK_RUNNABLE && !t->on_cpu && t->cpu >= 0 && !cpu_may_run(t, (unsigned)t->cpu)) {
		dequeue(t);
		make_runnable(t);
	}
}

void sched_set_affinity(struct task *t, unsigned long cpus)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);

	sched_set_affinity_locked(t, cpus);
	spin_unlock_irqrestore(&sched_lock, f);
}

void sched_stats(unsigned cpu, unsigned long *switches, unsigned long *pulls)
{
	*switches = runqueues[cpu].switches;
	*pulls = runqueues[cpu].pulls;
}

void cond_resched(void)
{
	if (READ_ONCE(current->need_resched))
		schedule();
}

/* exit_to_user: see task.h. */
void exit_to_user(struct trap_frame *tf)
{
	for (;;) {
		arch_irq_disable();
		if (current->need_resched) {
			schedule();
			continue;
		}
		if (signal_pending(current)) {
			signal_deliver(tf);
			continue;
		}
		break;
	}
}
