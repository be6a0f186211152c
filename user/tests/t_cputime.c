/*
 * CPU time (kernel/time/cputime.c): CLOCK_THREAD_CPUTIME_ID and
 * CLOCK_PROCESS_CPUTIME_ID, getrusage's and wait4's ru_utime and
 * ru_stime, /proc/self/stat's utime and stime. The same binary on Linux
 * (make test's user-linux stage) holds every check. No check measures
 * speed: a spin runs until the clock under test has advanced by a set
 * amount of CPU time (with a bound in CLOCK_MONOTONIC, so a clock that
 * never moves fails instead of hanging), and each expectation follows
 * from what CPU time is: a thread's time cannot pass the wall clock,
 * grows while it runs and not while it sleeps, and a process's time holds
 * its threads' (ended ones too); the children's holds the reaped ones'.
 */
#include "utests.h"
#include "uthread.h"

#define CLOCK_MONOTONIC_ID 1
#define CLOCK_PROCESS_CPUTIME 2
#define CLOCK_THREAD_CPUTIME 3
#define MS 1000000L
#define SPIN_LIMIT_NS (20000 * MS)     /* a spin that takes longer: the clock does not move */

struct crusage {
	int64_t utime[2], stime[2];
	int64_t rest[14];
};

static long clock_of(int id)
{
	long ts[2] = { 0, 0 };

	CHECK_EQ(usys2(__NR_clock_gettime, id, (long)ts), 0);
	return ts[0] * 1000000000L + ts[1];
}

/*
 * Spin in user mode until clock id has advanced by ns (true), or
 * CLOCK_MONOTONIC by SPIN_LIMIT_NS first (false). Between two reads of the
 * clock (system calls) a loop of user code, so most of the time is user
 * time.
 */
static bool spin_cpu(int id, long ns)
{
	long start = clock_of(id), wall = clock_of(CLOCK_MONOTONIC_ID);

	while (clock_of(id) - start < ns) {
		for (volatile int i = 0; i < 20000; i++)
			;
		if (clock_of(CLOCK_MONOTONIC_ID) - wall > SPIN_LIMIT_NS)
			return false;
	}
	return true;
}

static long rusage_ns(int who, long *user)
{
	struct crusage ru;

	CHECK_EQ(usys2(__NR_getrusage, who, (long)&ru), 0);
	*user = ru.utime[0] * 1000000000L + ru.utime[1] * 1000;
	return *user + ru.stime[0] * 1000000000L + ru.stime[1] * 1000;
}

/* A thread's CPU time grows while it runs, by no more than the wall clock, and not while it sleeps. */
static void t_cputime_thread(void)
{
	long m0 = clock_of(CLOCK_MONOTONIC_ID), t0 = clock_of(CLOCK_THREAD_CPUTIME), t1, m1, t2;
	long nap[2] = { 0, 50 * MS };

	/* [t0, t1] lies inside [m0, m1]: the wall clock is read first and last */
	CHECK(spin_cpu(CLOCK_THREAD_CPUTIME, 20 * MS));
	t1 = clock_of(CLOCK_THREAD_CPUTIME);
	m1 = clock_of(CLOCK_MONOTONIC_ID);
	CHECK(t1 - t0 >= 20 * MS);
	CHECK(t1 - t0 <= m1 - m0);
	CHECK_EQ(usys2(35 /* nanosleep */, (long)nap, 0), 0);
	t2 = clock_of(CLOCK_THREAD_CPUTIME);
	/* 50 ms asleep: the wake-up and the system calls cost microseconds, not 25 ms */
	CHECK(t2 - t1 < 25 * MS);
}

static volatile long worker_ns;

static int spin_worker(void *arg)
{
	long t0 = clock_of(CLOCK_THREAD_CPUTIME);

	(void)arg;
	if (spin_cpu(CLOCK_THREAD_CPUTIME, 30 * MS))
		worker_ns = clock_of(CLOCK_THREAD_CPUTIME) - t0;
	return 0;
}

/* The process's time holds a thread's that ran 30 ms and ended, while the caller slept in the join. */
static void t_cputime_process_sums_threads(void)
{
	struct thread t = { .fn = spin_worker };
	long p0 = clock_of(CLOCK_PROCESS_CPUTIME), self0 = clock_of(CLOCK_THREAD_CPUTIME), p1, self1;

	worker_ns = 0;
	CHECK(thread_start(&t) > 0);
	thread_join(&t);
	/*
	 * This thread's [self0, self1] inside the process's [p0, p1]: read
	 * the other way round, the time between the two last reads counted
	 * on the right and not the left (a host that stops the vCPU there for
	 * milliseconds made it fail once under a loaded make test).
	 */
	self1 = clock_of(CLOCK_THREAD_CPUTIME);
	p1 = clock_of(CLOCK_PROCESS_CPUTIME);
	CHECK(worker_ns >= 30 * MS);
	CHECK(p1 - p0 >= worker_ns + (self1 - self0));
}

/* getrusage: a 30 ms spin in user mode shows in RUSAGE_SELF and RUSAGE_THREAD, most of it as user time. */
static void t_cputime_rusage_self(void)
{
	long u0, u1, tu0, tu1;
	long all0 = rusage_ns(0, &u0), th0 = rusage_ns(1, &tu0), all1, th1;

	CHECK(spin_cpu(CLOCK_THREAD_CPUTIME, 30 * MS));
	all1 = rusage_ns(0, &u1);
	th1 = rusage_ns(1, &tu1);
	CHECK(all1 - all0 >= 20 * MS);
	CHECK(th1 - th0 >= 20 * MS);
	/* user time, as the ticks found it: the spin is mostly a loop of user code */
	CHECK(u1 - u0 >= (all1 - all0) / 4);
	CHECK(tu1 - tu0 <= th1 - th0);
}

/*
 * RUSAGE_CHILDREN counts a child once it is reaped; wait4 reports the
 * child's own times, which are what RUSAGE_CHILDREN grew by (Linux's
 * wait_task_zombie adds the child's times to the parent's children's and
 * reports getrusage(RUSAGE_BOTH) of the child: the same sums). Both come
 * in microseconds, each figure truncated: the growth, a difference of two
 * truncated sums, may differ from wait4's by 1 us in user and in system
 * time.
 */
static void t_cputime_rusage_children(void)
{
	struct crusage ru;
	long u, c0 = rusage_ns(-1, &u), c1, c2, reported;
	int st = -1;
	long pid = sys_fork();

	CHECK(pid >= 0);
	if (pid == 0)
		_exit(spin_cpu(CLOCK_PROCESS_CPUTIME, 30 * MS) ? 0 : 1);
	c1 = rusage_ns(-1, &u);
	CHECK_EQ(c1, c0);                       /* not reaped yet, whatever it has run */
	CHECK_EQ(usys4(__NR_wait4, pid, (long)&st, 0, (long)&ru), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	reported = ru.utime[0] * 1000000000L + ru.utime[1] * 1000 + ru.stime[0] * 1000000000L + ru.stime[1] * 1000;
	CHECK(reported >= 30 * MS);
	c2 = rusage_ns(-1, &u);
	CHECK(c2 - c0 >= 30 * MS);
	CHECK(c2 - c0 - reported <= 2000 && reported - (c2 - c0) <= 2000);
}

/*
 * Time in the kernel for this thread: 1 MiB written and unmapped at a
 * time (the kernel zeroes and frees each page), until getrusage's system
 * time has grown by ns (true), or CLOCK_MONOTONIC by SPIN_LIMIT_NS first.
 */
static bool spend_kernel_time(long ns)
{
	long u, sys0 = rusage_ns(1, &u), wall = clock_of(CLOCK_MONOTONIC_ID);

	sys0 -= u;
	for (;;) {
		char *p = mmap(NULL, 256 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long all;

		CHECK(p != MAP_FAILED);
		for (int i = 0; i < 256; i++)
			p[i * 4096] = 1;
		CHECK_EQ(munmap(p, 256 * 4096), 0);
		all = rusage_ns(1, &u);
		if (all - u - sys0 >= ns)
			return true;
		if (clock_of(CLOCK_MONOTONIC_ID) - wall > SPIN_LIMIT_NS)
			return false;
	}
}

/*
 * Neither part of a thread's split goes down from one read to the next.
 * The split follows the ticks (most of 10 ms in the kernel, then a spin
 * in user mode: the user ticks add up), and shared out afresh at each read
 * the kernel part would shrink a little after each user tick; Linux's
 * cputime_adjust keeps each part from going down, and so does this
 * kernel since 2026-12-05 (before, cputime_rusage_self's check that the
 * user time grew by no more than the whole failed now and then: the
 * kernel part had gone down).
 */
static void t_cputime_split_monotonic(void)
{
	long u0, u1, all0, all1, start, wall;

	CHECK(spend_kernel_time(10 * MS));
	all0 = rusage_ns(1, &u0);
	start = clock_of(CLOCK_THREAD_CPUTIME);
	wall = clock_of(CLOCK_MONOTONIC_ID);
	while (clock_of(CLOCK_THREAD_CPUTIME) - start < 50 * MS) {
		for (volatile int i = 0; i < 20000; i++)
			;
		all1 = rusage_ns(1, &u1);
		CHECK(u1 >= u0);                        /* user time */
		CHECK(all1 - u1 >= all0 - u0);          /* system time */
		all0 = all1;
		u0 = u1;
		CHECK(clock_of(CLOCK_MONOTONIC_ID) - wall < SPIN_LIMIT_NS);
	}
}

/* /proc/self/stat's utime + stime (fields 14 and 15, clock ticks of 10 ms) hold a 50 ms spin. */
static void t_cputime_proc_stat(void)
{
	char buf[1024];
	unsigned long before[2], after[2];
	const char *p;

	for (int round = 0; round < 2; round++) {
		unsigned long *v = round ? after : before;

		if (round)
			CHECK(spin_cpu(CLOCK_PROCESS_CPUTIME, 50 * MS));
		CHECK(ut_read_file("/proc/self/stat", buf, sizeof(buf)) > 0);
		p = strrchr(buf, ')');          /* the name may hold spaces; the fields follow it */
		CHECK(p != NULL);
		/* ") S ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime" */
		for (int field = 2; field < 14; field++) {
			p = strchr(p + 1, ' ');
			CHECK(p != NULL);
		}
		v[0] = strtoul(p + 1, (char **)&p, 10);
		v[1] = strtoul(p + 1, NULL, 10);
	}
	CHECK(after[0] + after[1] - before[0] - before[1] >= 4);        /* 50 ms: at least 4 whole ticks */
}

const struct utest ut_cputime_tests[] = {
	{ "cputime_thread", t_cputime_thread },
	{ "cputime_process_sums_threads", t_cputime_process_sums_threads },
	{ "cputime_rusage_self", t_cputime_rusage_self },
	{ "cputime_rusage_children", t_cputime_rusage_children },
	{ "cputime_proc_stat", t_cputime_proc_stat },
	{ "cputime_split_monotonic", t_cputime_split_monotonic },
	{ NULL, NULL },
};
