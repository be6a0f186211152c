/*
 * The limit on live tasks (threads and processes, zombies included),
 * Linux's max_threads: by default as many kernel stacks as fit in an
 * eighth of RAM (RAM / (8 * KSTACK_SIZE): 8192 for 1 GiB), at least 20;
 * /proc/sys/kernel/threads-max reads and changes it. clone fails with
 * -EAGAIN at the limit (kernel/task/clone.c). RLIMIT_NPROC reads half the
 * boot-time value, as Linux gives its first process.
 */
#include "task.h"
#include "pmm.h"
#include "kerrno.h"
#include "lockless.h"

#define MIN_THREADS 20                  /* Linux's floor for the default */
#define MAX_THREADS 0x3fffffffL         /* Linux's ceiling: the futex word's thread id bits */

static unsigned long max_threads;       /* [atomic] 0: still the default */

/* The default from the RAM the allocator manages. */
static unsigned long default_max_threads(void)
{
	unsigned long n = pmm_total_frames() / (8 * (KSTACK_SIZE / PAGE_SIZE));

	return n < MIN_THREADS ? MIN_THREADS : (n > MAX_THREADS ? MAX_THREADS : n);
}

unsigned long task_max_threads(void)
{
	unsigned long n = READ_ONCE(max_threads);

	return n ? n : default_max_threads();
}

long task_set_max_threads(long n)
{
	if (n < 1 || n > MAX_THREADS)
		return -EINVAL;
	WRITE_ONCE(max_threads, (unsigned long)n);
	return 0;
}

unsigned long task_nproc_rlimit(void)
{
	return default_max_threads() / 2;
}
