/*
 * Read sections and grace periods (lib/rcu.c), with a second host thread
 * playing a second CPU (arch/hosted: each thread is one CPU). The reader
 * thread enters and leaves its section only when the test says so, so
 * every expected answer follows from where the reader is, not from timing:
 *   - a grace period that began while a section was running is not over
 *     until that section ends, and is then;
 *   - with no section running, one is over at once (rcu_gp_done moves the
 *     epoch on itself), and a section begun afterwards changes nothing;
 *   - synchronize_rcu returns only after the running section ended.
 */
#include "ktest.h"
#include "rcu.h"
#ifdef HOSTED
#include "hosted.h"
#include "lockless.h"
#include <pthread.h>

/* The reader's steps, each waited for by the other side; leaving is set just before its unlock. */
static int reader_in, reader_may_leave, reader_leaving;

static void *reader(void *arg)
{
	(void)arg;
	rcu_read_lock();
	smp_store_release(&reader_in, 1);
	while (!smp_load_acquire(&reader_may_leave))
		__builtin_ia32_pause();
	smp_store_release(&reader_leaving, 1);
	rcu_read_unlock();
	return NULL;
}

static bool reader_start(struct ktest *t, pthread_t *th)
{
	reader_in = reader_may_leave = reader_leaving = 0;
	if (pthread_create(th, NULL, reader, NULL)) {
		ktest_fail(t, __FILE__, __LINE__, "pthread_create failed");
		return false;
	}
	while (!smp_load_acquire(&reader_in))
		__builtin_ia32_pause();
	return true;
}

static void reader_finish(pthread_t th)
{
	smp_store_release(&reader_may_leave, 1);
	pthread_join(th, NULL);
}

static void test_gp_waits_for_running_section(struct ktest *t)
{
	pthread_t th;
	unsigned long c;

	if (!reader_start(t, &th))
		return;
	c = rcu_gp_start();
	EXPECT_EQ(t, rcu_gp_done(c), false);
	EXPECT_EQ(t, rcu_gp_done(c), false);    /* asking again does not end it either */
	reader_finish(th);
	EXPECT_EQ(t, rcu_gp_done(c), true);
}

static void test_gp_without_sections(struct ktest *t)
{
	pthread_t th;
	unsigned long c = rcu_gp_start();

	EXPECT_EQ(t, rcu_gp_done(c), true);
	if (!reader_start(t, &th))
		return;
	EXPECT_EQ(t, rcu_gp_done(c), true);     /* a later section cannot hold back an ended one */
	reader_finish(th);
}

static unsigned relax_rounds;

/* Where synchronize_rcu waits: the first time, let the reader leave. */
static void let_reader_leave(void)
{
	if (relax_rounds++ == 0)
		smp_store_release(&reader_may_leave, 1);
}

static void test_synchronize_waits_for_section(struct ktest *t)
{
	pthread_t th;

	if (!reader_start(t, &th))
		return;
	relax_rounds = 0;
	hosted_relax_hook = let_reader_leave;
	synchronize_rcu();
	hosted_relax_hook = NULL;
	EXPECT_EQ(t, smp_load_acquire(&reader_leaving), 1);      /* it returned after the section ended */
	EXPECT_GT(t, relax_rounds, 0u);
	pthread_join(th, NULL);
}

static const struct ktest_case rcu_cases[] = {
	KTEST_CASE(test_gp_waits_for_running_section),
	KTEST_CASE(test_gp_without_sections),
	KTEST_CASE(test_synchronize_waits_for_section),
	{ 0 },
};
KTEST_SUITE(rcu, rcu_cases);
#endif
