/*
 * The hang report's task snapshot (kernel/sched/task_dump.c, printed by
 * vmk_check's VMK_CHECK_TASKS): a kernel thread asleep in sched_wait_flag
 * is listed as sleeping, with a kernel call trace through sched_wait_flag
 * and its own function (read from its saved stack); the test's own task
 * is listed as running, without a trace; each task is listed once.
 */
#include "ktest.h"
#include "task.h"
#include "sleep.h"
#include "ksyms.h"
#include "kstring.h"
#include "slab.h"
#include "lockless.h"

static int dump_flag;                   /* the sleeper's wake-up */
static int dump_woken;                  /* [atomic] set after it: the wait is no tail call */

static void dump_sleeper(void *arg)
{
	(void)arg;
	sched_wait_flag(&dump_flag);
	smp_store_release(&dump_woken, 1);
}

static const struct task_snap *snap_of(const struct task_snap *s, size_t n, int tid)
{
	const struct task_snap *found = NULL;

	for (size_t i = 0; i < n; i++)
		if (s[i].tid == tid) {
			if (found)
				return NULL;    /* twice: as bad as never */
			found = &s[i];
		}
	return found;
}

static bool trace_has(const struct task_snap *s, const char *fn)
{
	for (unsigned i = 0; i < s->depth; i++) {
		uintptr_t off, size;
		const char *name = ksyms_lookup(s->trace[i] - 1, &off, &size);

		if (name && !strcmp(name, fn))
			return true;
	}
	return false;
}

#define SNAP_MAX 512

static void test_sleeper_traced(struct ktest *t)
{
	struct task_snap *snap = kmalloc(SNAP_MAX * sizeof(*snap));
	const struct task_snap *s = NULL, *self;
	struct task *th;
	size_t n = 0;

	ASSERT_TRUE(t, snap != NULL);
	dump_flag = dump_woken = 0;
	th = kthread_create(dump_sleeper, NULL, -1, "dump_sleeper");
	ASSERT_TRUE(t, th != NULL);
	kthread_start(th);
	for (;;) {              /* until it has gone to sleep (and is switched out) */
		n = sched_tasks_snapshot(snap, SNAP_MAX);
		s = snap_of(snap, MIN(n, SNAP_MAX), th->tid);
		if (!s || (s->state == TASK_SLEEPING && !s->on_cpu))
			break;
		sched_yield();
	}
	ASSERT_TRUE(t, n <= SNAP_MAX);
	ASSERT_TRUE(t, s != NULL);
	EXPECT_STREQ(t, s->comm, "dump_sleeper");
	EXPECT_GT(t, s->depth, 2);
	EXPECT_TRUE(t, trace_has(s, "sched_wait_flag"));
	EXPECT_TRUE(t, trace_has(s, "dump_sleeper"));
	self = snap_of(snap, n, current_task()->tid);
	ASSERT_TRUE(t, self != NULL);
	EXPECT_TRUE(t, self->on_cpu);
	EXPECT_EQ(t, self->depth, 0);
	/* without the other CPUs' reports: they would come after the case, in the middle of the KTAP output */
	EXPECT_EQ(t, sched_dump_tasks(false), 0);
	sched_wake_flag(th, &dump_flag);
	kthread_join(th);
	EXPECT_EQ(t, smp_load_acquire(&dump_woken), 1);
	kfree(snap);
}

static const struct ktest_case task_dump_cases[] = {
	KTEST_CASE(test_sleeper_traced),
	{ 0 },
};
KTEST_SUITE(task_dump, task_dump_cases);
