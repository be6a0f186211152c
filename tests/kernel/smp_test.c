/*
 * The CPUs and the scheduler on all of them: every online CPU runs a kernel
 * thread pinned to it; all CPUs run at the same time (a barrier that only
 * completes when every thread is inside it at once, each on its own CPU);
 * a thread queued for an idle CPU wakes it with a reschedule IPI; tasks
 * queued on one CPU are pulled by the idle ones; sleep/wake-up hand-offs
 * between CPUs lose no wake-up; each CPU's LAPIC is in the mode the boot
 * chose (x2APIC when the CPU has it) with the APIC id the firmware gave; a
 * spinlock taken on every CPU at once excludes. Nothing here measures time: a broken
 * mechanism makes a test hang (the QEMU timeout fails the run) or count
 * wrong, never pass by luck.
 */
#include "ktest.h"
#include "task.h"
#include "x86.h"
#include "arch.h"
#include "lockless.h"
#include "spinlock.h"

static unsigned online_cpus(void)
{
	return arch_nr_cpus();
}

/* The n-th online CPU. */
static unsigned nth_cpu(unsigned n)
{
	unsigned long m = arch_cpu_online_mask();

	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++)
		if ((m & (1UL << cpu)) && n-- == 0)
			return cpu;
	return 0;
}

/* Written by the thread, read by the test after kthread_join (which orders them): no race. */
struct where {
	unsigned cpu;
	int ran;
	uint32_t apic_id;               /* the LAPIC's own id register */
	bool x2apic;                    /* IA32_APIC_BASE's x2APIC-mode bit */
};

static void record_cpu(void *arg)
{
	struct where *w = arg;

	w->cpu = arch_cpu_id();
	w->apic_id = lapic_id();
	w->x2apic = rdmsr(MSR_APIC_BASE) & (1UL << 10);
	w->ran = 1;
}

static void test_thread_on_each_cpu(struct ktest *t)
{
	struct where w[NR_CPUS];
	struct task *th[NR_CPUS];
	unsigned n = online_cpus();

	EXPECT_GE(t, n, 1);
	EXPECT_TRUE(t, arch_cpu_online_mask() & 1);
	for (unsigned i = 0; i < n; i++) {
		w[i].cpu = ~0u;
		w[i].ran = 0;
		th[i] = kthread_create(record_cpu, &w[i], (int)nth_cpu(i), "smp_where");
		ASSERT_TRUE(t, th[i] != NULL);
		kthread_start(th[i]);
	}
	for (unsigned i = 0; i < n; i++) {
		kthread_join(th[i]);
		EXPECT_EQ(t, w[i].ran, 1);
		EXPECT_EQ(t, w[i].cpu, nth_cpu(i));
		/* each CPU's LAPIC in the boot CPU's mode, its id the firmware's for that CPU */
		EXPECT_EQ(t, w[i].x2apic, x2apic_enabled);
		EXPECT_EQ(t, w[i].apic_id, cpu_apic_id[nth_cpu(i)]);
	}
}

/*
 * A spinlock excludes: one thread per CPU adds 1 to a plain counter
 * ROUNDS times, reading and writing it in two steps under the lock (half
 * the rounds with interrupts off, spin_lock_irqsave). Any two CPUs inside
 * at once lose an increment, so the total is exact only if the lock works;
 * each holder also finds itself the lock's holder.
 */
#define LOCK_ROUNDS 20000

struct lock_counter {
	struct spinlock lock;
	unsigned long count;            /* [lock] */
	unsigned long wrong_holder;     /* [lock] */
};

static void lock_counter_party(void *arg)
{
	struct lock_counter *c = arg;

	for (unsigned i = 0; i < LOCK_ROUNDS; i++) {
		unsigned long flags = 0, v;

		if (i & 1)
			flags = spin_lock_irqsave(&c->lock);
		else
			spin_lock(&c->lock);
		c->wrong_holder += !spin_is_held(&c->lock);
		v = READ_ONCE(c->count);
		arch_cpu_relax();               /* widen the window a second CPU would need */
		WRITE_ONCE(c->count, v + 1);
		if (i & 1)
			spin_unlock_irqrestore(&c->lock, flags);
		else
			spin_unlock(&c->lock);
	}
}

static void test_spinlock_excludes(struct ktest *t)
{
	static struct lock_counter c = { .lock = SPINLOCK_INIT_CLASS("ktest_counter", LOCK_CLASS_TEST_OUTER) };
	struct task *th[NR_CPUS];
	unsigned n = online_cpus();

	c.count = c.wrong_holder = 0;
	for (unsigned i = 0; i < n; i++) {
		th[i] = kthread_create(lock_counter_party, &c, (int)nth_cpu(i), "smp_lock");
		ASSERT_TRUE(t, th[i] != NULL);
		kthread_start(th[i]);
	}
	for (unsigned i = 0; i < n; i++)
		kthread_join(th[i]);
	EXPECT_EQ(t, c.count, (unsigned long)n * LOCK_ROUNDS);
	EXPECT_EQ(t, c.wrong_holder, 0);
	EXPECT_FALSE(t, spin_is_held(&c.lock));
}

/* A barrier that spins without yielding: it completes only if every party runs at the same time. */
struct spin_barrier {
	unsigned arrived;               /* [atomic] the parties inside; plain reads after the joins */
	unsigned parties;
	unsigned long cpus_seen;        /* [atomic] the parties' CPUs; plain reads after the joins */
};

static void barrier_party(void *arg)
{
	struct spin_barrier *b = arg;

	__atomic_fetch_or(&b->cpus_seen, 1UL << arch_cpu_id(), __ATOMIC_RELAXED);
	__atomic_fetch_add(&b->arrived, 1, __ATOMIC_ACQ_REL);
	while (smp_load_acquire(&b->arrived) < b->parties)
		arch_cpu_relax();
}

/* Start one barrier party per online CPU, each pinned there (or unpinned), and join them. */
static unsigned long run_barrier(struct ktest *t, bool pinned)
{
	struct spin_barrier b = { 0, online_cpus(), 0 };
	struct task *th[NR_CPUS];

	for (unsigned i = 0; i < b.parties; i++) {
		th[i] = kthread_create(barrier_party, &b, pinned ? (int)nth_cpu(i) : -1, "smp_barrier");
		if (!th[i])
			return 0;
		kthread_start(th[i]);
	}
	for (unsigned i = 0; i < b.parties; i++)
		kthread_join(th[i]);
	EXPECT_EQ(t, b.arrived, b.parties);
	return b.cpus_seen;
}

static void test_all_cpus_at_once(struct ktest *t)
{
	EXPECT_EQ(t, run_barrier(t, true), arch_cpu_online_mask());
}

/* Unpinned threads started while every CPU idles land one per CPU (else the barrier never completes). */
static void test_placement_spreads(struct ktest *t)
{
	EXPECT_EQ(t, run_barrier(t, false), arch_cpu_online_mask());
}

/*
 * All parties queued on one CPU, then unpinned: the barrier completes only
 * if the idle CPUs pull them (the party running there never yields).
 */
static void test_idle_cpus_pull(struct ktest *t)
{
	unsigned n = online_cpus(), last = nth_cpu(n - 1);
	struct spin_barrier b = { 0, n, 0 };
	struct task *th[NR_CPUS];
	unsigned long pulls_before = 0, pulls_after = 0, sw;

	if (n < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned long p;

		sched_stats(nth_cpu(i), &sw, &p);
		pulls_before += p;
	}
	for (unsigned i = 0; i < n; i++) {
		th[i] = kthread_create(barrier_party, &b, (int)last, "smp_pull");
		ASSERT_TRUE(t, th[i] != NULL);
		kthread_start(th[i]);
	}
	for (unsigned i = 0; i < n; i++)
		sched_set_affinity(th[i], ~0UL);
	for (unsigned i = 0; i < n; i++)
		kthread_join(th[i]);
	for (unsigned i = 0; i < n; i++) {
		unsigned long p;

		sched_stats(nth_cpu(i), &sw, &p);
		pulls_after += p;
	}
	EXPECT_EQ(t, b.cpus_seen, arch_cpu_online_mask());
	/* All n queued on one CPU, one running on each at the end: at least n - 1 were pulled. */
	EXPECT_GE(t, pulls_after - pulls_before, n - 1);
}

static void test_idle_cpu_woken_by_ipi(struct ktest *t)
{
	unsigned n = online_cpus(), cpu = nth_cpu(n - 1);
	unsigned long before;
	struct where w = { .cpu = ~0u };
	struct task *th;

	if (n < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	/* Lockless: cpu's reschedule-IPI handler increments it at any time. */
	before = READ_ONCE(ipi_resched_received[cpu]);
	th = kthread_create(record_cpu, &w, (int)cpu, "smp_ipi");
	ASSERT_TRUE(t, th != NULL);
	kthread_start(th);              /* cpu idles: the start sends it a reschedule IPI */
	kthread_join(th);
	EXPECT_EQ(t, w.cpu, cpu);
	/* Its timer may have woken it first; the IPI still arrives (a lost one hangs the run). */
	while (READ_ONCE(ipi_resched_received[cpu]) == before)
		arch_cpu_relax();
	EXPECT_GT(t, READ_ONCE(ipi_resched_received[cpu]), before);
}

/* Two threads on two CPUs hand a token back and forth through sched_wait_flag. */
#define PINGPONG_ROUNDS 2000

struct pingpong {
	int flag[2][PINGPONG_ROUNDS];                   /* sched_wait_flag's flags */
	struct task *th[2];
	unsigned count[2];              /* side i's rounds, written by it alone; read after the joins */
};

static struct pingpong pp;

/* Side 0 plays round r, then side 1; side 1 then hands round r + 1 back. */
static void pingpong_side(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;

	for (unsigned r = 0; r < PINGPONG_ROUNDS; r++) {
		if (me == 1 || r > 0)
			sched_wait_flag(&pp.flag[me][r]);
		pp.count[me]++;
		if (me == 0)
			sched_wake_flag(pp.th[1], &pp.flag[1][r]);
		else if (r + 1 < PINGPONG_ROUNDS)
			sched_wake_flag(pp.th[0], &pp.flag[0][r + 1]);
	}
}

static void test_no_lost_wakeups(struct ktest *t)
{
	unsigned n = online_cpus();

	for (unsigned i = 0; i < 2; i++)
		for (unsigned r = 0; r < PINGPONG_ROUNDS; r++)
			pp.flag[i][r] = 0;
	pp.count[0] = pp.count[1] = 0;
	for (unsigned i = 0; i < 2; i++) {
		pp.th[i] = kthread_create(pingpong_side, (void *)(uintptr_t)i,
					  (int)nth_cpu(n > 2 ? i + 1 : i % n), "smp_pingpong");
		ASSERT_TRUE(t, pp.th[i] != NULL);
	}
	kthread_start(pp.th[0]);
	kthread_start(pp.th[1]);
	kthread_join(pp.th[0]);
	kthread_join(pp.th[1]);
	EXPECT_EQ(t, pp.count[0], PINGPONG_ROUNDS);
	EXPECT_EQ(t, pp.count[1], PINGPONG_ROUNDS);
}

static const struct ktest_case smp_cases[] = {
	KTEST_CASE(test_thread_on_each_cpu),
	KTEST_CASE(test_all_cpus_at_once),
	KTEST_CASE(test_spinlock_excludes),
	KTEST_CASE(test_placement_spreads),
	KTEST_CASE(test_idle_cpus_pull),
	KTEST_CASE(test_idle_cpu_woken_by_ipi),
	KTEST_CASE(test_no_lost_wakeups),
	{ 0 },
};
KTEST_SUITE(smp, smp_cases);
