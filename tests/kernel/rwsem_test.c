/*
 * The sleeping fair rwsem (lib/rwsem.c, the mmap_lock) under contention
 * from kernel threads on several CPUs: readers hold it together, a writer
 * holds it alone, waiters are served first come first served (a reader
 * that arrives behind a waiting writer waits), a release hands the lock
 * to the waiters it wakes (they own it before they run), and a counter
 * incremented under the write lock by many threads ends exact. The tests
 * wait for states ("three waiters queued") by watching the rwsem's own
 * counters, never for time to pass. The hand-over tests run their waiters
 * on the test's own CPU: kernel code is not preempted, so none of them can
 * run between the release and the checks that follow it.
 */
#include "ktest.h"
#include "rwsem.h"
#include "task.h"
#include "lock_order.h"
#include "arch.h"
#include "lockless.h"
#include "printk.h"

static struct rwsem sem;

static unsigned cpu_for(unsigned i)
{
	unsigned n = arch_nr_cpus(), k = i % n;
	unsigned long m = arch_cpu_online_mask();

	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++)
		if ((m & (1UL << cpu)) && k-- == 0)
			return cpu;
	return 0;
}

/* Until *v reaches want: an rwsem statistic its waiters bump under wait_lock (not held here). */
static void wait_until(const unsigned long *v, unsigned long want)
{
	while (smp_load_acquire(v) < want)
		sched_yield();
}

/* ---- readers together */

static unsigned readers_inside;          /* [atomic]; plain reads after the joins */
static unsigned readers_expected;

static void reader_meets_others(void *arg)
{
	down_read(&sem);
	__atomic_add_fetch(&readers_inside, 1, __ATOMIC_ACQ_REL);
	/*
	 * Until all are inside; a reader that had to wait means they never will be (the test fails).
	 * Lockless: the other readers' down_read counts read_contended ([wait_lock]) meanwhile.
	 */
	while (smp_load_acquire(&readers_inside) < readers_expected &&
	       !smp_load_acquire(&sem.read_contended))
		sched_yield();
	up_read(&sem);
}

static void test_readers_share(struct ktest *t)
{
	struct task *th[4];

	rwsem_init(&sem, "test_rwsem", LOCK_CLASS_MMAP);
	readers_inside = 0;
	readers_expected = 4;
	for (unsigned i = 0; i < 4; i++) {
		th[i] = kthread_create(reader_meets_others, NULL, (int)cpu_for(i + 1), "rw_reader");
		ASSERT_TRUE(t, th[i] != NULL);
		kthread_start(th[i]);
	}
	for (unsigned i = 0; i < 4; i++)
		kthread_join(th[i]);
	/* All four were inside at once: none could leave before the last came in. */
	EXPECT_EQ(t, readers_inside, 4);
	EXPECT_EQ(t, sem.read_acquired, 4);
	EXPECT_EQ(t, sem.read_contended, 0);
	EXPECT_FALSE(t, rwsem_is_locked(&sem));
}

/* ---- FIFO order of service */

static unsigned order_next;              /* [atomic], bumped with the lock held */
static unsigned order[8];

struct role {
	bool write;
	unsigned id;
};

static void queued_role(void *arg)
{
	const struct role *r = arg;

	if (r->write)
		down_write(&sem);
	else
		down_read(&sem);
	order[__atomic_fetch_add(&order_next, 1, __ATOMIC_ACQ_REL)] = r->id;
	if (r->write)
		up_write(&sem);
	else
		up_read(&sem);
}

static struct task *start_role(struct role *r, unsigned cpu)
{
	struct task *th = kthread_create(queued_role, r, (int)cpu, "rw_role");

	if (th)
		kthread_start(th);
	return th;
}

/*
 * The test holds it for reading. A writer (1) queues; then a reader (2)
 * arrives: readers hold the lock, but a writer waits, so it queues too;
 * then another writer (3). The test's up_read hands the lock to 1 (which
 * has not run yet: it shares the test's CPU). Served: 1, then 2, then 3.
 */
static void test_fifo_behind_waiting_writer(struct ktest *t)
{
	struct role w1 = { true, 1 }, r2 = { false, 2 }, w3 = { true, 3 };
	struct task *th[3];

	rwsem_init(&sem, "test_rwsem", LOCK_CLASS_MMAP);
	order_next = 0;
	down_read(&sem);
	th[0] = start_role(&w1, arch_cpu_id());
	wait_until(&sem.write_contended, 1);
	th[1] = start_role(&r2, arch_cpu_id());
	wait_until(&sem.read_contended, 1);
	th[2] = start_role(&w3, arch_cpu_id());
	wait_until(&sem.write_contended, 2);
	ASSERT_TRUE(t, th[0] && th[1] && th[2]);
	EXPECT_EQ(t, order_next, 0);
	up_read(&sem);
	/* Handed over: 1 owns it already, so nobody (not even this CPU) can take it first. */
	EXPECT_TRUE(t, sem.writer && sem.owner == th[0]);
	EXPECT_EQ(t, sem.write_acquired, 1);
	EXPECT_FALSE(t, down_read_trylock(&sem) && (up_read(&sem), true));
	for (unsigned i = 0; i < 3; i++)
		kthread_join(th[i]);
	EXPECT_EQ(t, order_next, 3);
	EXPECT_EQ(t, order[0], 1);
	EXPECT_EQ(t, order[1], 2);
	EXPECT_EQ(t, order[2], 3);
}

/*
 * The test holds it for writing; three readers queue (on the test's CPU)
 * and up_write lets them all in together: all three hold it when it returns.
 */
static void test_writer_excludes_then_readers_together(struct ktest *t)
{
	struct role r[3] = { { false, 1 }, { false, 2 }, { false, 3 } };
	struct task *th[3];

	rwsem_init(&sem, "test_rwsem", LOCK_CLASS_MMAP);
	order_next = 0;
	down_write(&sem);
	EXPECT_TRUE(t, rwsem_is_write_locked_by_me(&sem));
	EXPECT_FALSE(t, down_read_trylock(&sem) && (up_read(&sem), true));
	for (unsigned i = 0; i < 3; i++)
		th[i] = start_role(&r[i], arch_cpu_id());
	wait_until(&sem.read_contended, 3);
	EXPECT_EQ(t, order_next, 0);
	up_write(&sem);
	EXPECT_EQ(t, sem.readers, 3);
	EXPECT_EQ(t, sem.read_acquired, 3);
	for (unsigned i = 0; i < 3; i++)
		kthread_join(th[i]);
	EXPECT_EQ(t, order_next, 3);
	EXPECT_EQ(t, sem.read_acquired, 3);
	EXPECT_TRUE(t, down_write_trylock(&sem));
	up_write(&sem);
}

/* ---- a writer's release to a waiting writer */

/* The test holds sem for writing, and writer w1, started on the test's CPU, waits for it. NULL: no thread. */
static struct task *held_with_waiting_writer(struct role *w1)
{
	struct task *th;

	rwsem_init(&sem, "test_rwsem", LOCK_CLASS_MMAP);
	order_next = 0;
	down_write(&sem);
	th = start_role(w1, arch_cpu_id());
	if (th)
		wait_until(&sem.write_contended, 1);
	return th;
}

/*
 * The test holds it for writing; a writer (1) queues on the test's CPU.
 * up_write does not hand it over: 1 is woken to take the lock itself, so
 * the lock is free, and the test, a writer that is running, takes it
 * first without waiting (Linux's writers do the same; lib/rwsem.c says
 * why). 1 gets it after.
 */
static void test_running_writer_overtakes_woken_writer(struct ktest *t)
{
	struct role w1 = { true, 1 };
	struct task *th = held_with_waiting_writer(&w1);

	ASSERT_TRUE(t, th != NULL);
	up_write(&sem);
	EXPECT_FALSE(t, sem.writer);
	down_write(&sem);
	EXPECT_TRUE(t, rwsem_is_write_locked_by_me(&sem));
	EXPECT_EQ(t, sem.write_contended, 1);   /* the test did not wait */
	EXPECT_EQ(t, order_next, 0);
	up_write(&sem);
	kthread_join(th);
	EXPECT_EQ(t, order_next, 1);
	EXPECT_EQ(t, sem.write_acquired, 3);
	EXPECT_FALSE(t, rwsem_is_locked(&sem));
}

/*
 * Bounded: the test releases and takes the lock again and again, and
 * yields between, so 1 runs each time and finds it taken. Once 1 has
 * waited RWSEM_HANDOFF_MS (4 ms) a release hands it the lock, and the
 * test's next down_write waits for 1. A lock that lets a running writer
 * go first every time starves 1 (the round limit is more than a thousand
 * times what 4 ms takes: a round is a few microseconds).
 */
#define STARVE_ROUNDS 200000

static void test_woken_writer_handed_over_in_time(struct ktest *t)
{
	struct role w1 = { true, 1 };
	struct task *th = held_with_waiting_writer(&w1);
	unsigned rounds = 0;

	ASSERT_TRUE(t, th != NULL);
	while (!smp_load_acquire(&order_next) && rounds++ < STARVE_ROUNDS) {
		up_write(&sem);
		down_write(&sem);
		sched_yield();
	}
	up_write(&sem);
	kthread_join(th);
	EXPECT_EQ(t, order_next, 1);
	EXPECT_TRUE(t, rounds < STARVE_ROUNDS);
	printk("# %s: the waiting writer had the lock after %u rounds\n", t->tcase->name, rounds);
}

/* ---- exclusion under contention */

#define COUNT_THREADS 6
#define COUNT_ROUNDS 300

static unsigned long counter;

static void count_under_write_lock(void *arg)
{
	for (unsigned i = 0; i < COUNT_ROUNDS; i++) {
		unsigned long v;

		down_write(&sem);
		v = counter;
		if (i % 16 == 0)
			sched_yield();  /* sleep with the lock held, now and then */
		counter = v + 1;
		up_write(&sem);
		if (i % 3 == 0) {
			down_read(&sem);
			up_read(&sem);
		}
	}
}

static void test_write_lock_excludes(struct ktest *t)
{
	struct task *th[COUNT_THREADS];

	rwsem_init(&sem, "test_rwsem", LOCK_CLASS_MMAP);
	counter = 0;
	for (unsigned i = 0; i < COUNT_THREADS; i++) {
		th[i] = kthread_create(count_under_write_lock, NULL, -1, "rw_count");
		ASSERT_TRUE(t, th[i] != NULL);
		kthread_start(th[i]);
	}
	for (unsigned i = 0; i < COUNT_THREADS; i++)
		kthread_join(th[i]);
	EXPECT_EQ(t, counter, COUNT_THREADS * COUNT_ROUNDS);
	EXPECT_EQ(t, sem.write_acquired, COUNT_THREADS * COUNT_ROUNDS);
	EXPECT_FALSE(t, rwsem_is_locked(&sem));
}

static const struct ktest_case rwsem_cases[] = {
	KTEST_CASE(test_readers_share),
	KTEST_CASE(test_fifo_behind_waiting_writer),
	KTEST_CASE(test_writer_excludes_then_readers_together),
	KTEST_CASE(test_running_writer_overtakes_woken_writer),
	KTEST_CASE(test_woken_writer_handed_over_in_time),
	KTEST_CASE(test_write_lock_excludes),
	{ 0 },
};
KTEST_SUITE(rwsem, rwsem_cases);
