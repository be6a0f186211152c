/*
 * getrusage, and the rusage wait4 returns: what this kernel counts of a
 * process's use of the machine. The CPU times are real
 * (kernel/time/cputime.c: the time run, split between user mode and the
 * kernel as the timer's ticks found it); so are the page faults of the
 * address space (handle_mm_fault calls, Linux's minor faults: there is no
 * disk to make one major) and its resident set now (a lower bound of the
 * peak Linux reports as ru_maxrss). A thread reports its process's address
 * space (Linux counts the thread's own faults). RUSAGE_CHILDREN and wait4
 * give the reaped children's times only. docs/abi.md.
 */
#include "syscall_internal.h"
#include "lockless.h"
#include "task.h"
#include "mm.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"

#define RUSAGE_SELF      0
#define RUSAGE_CHILDREN  (-1)
#define RUSAGE_THREAD    1

/* Linux's struct rusage on x86-64 (144 bytes). */
struct rusage_k {
	int64_t utime[2], stime[2];
	int64_t maxrss, ixrss, idrss, isrss, minflt, majflt, nswap, inblock, oublock;
	int64_t msgsnd, msgrcv, nsignals, nvcsw, nivcsw;
};
_Static_assert(sizeof(struct rusage_k) == 144, "struct rusage is 144 bytes on x86-64");

/* A struct timeval (seconds, microseconds) of ns. */
static void timeval_of(int64_t tv[2], uint64_t ns)
{
	tv[0] = (int64_t)(ns / 1000000000ULL);
	tv[1] = (int64_t)(ns % 1000000000ULL / 1000);
}

long rusage_times_to_user(void *uru, uint64_t user_ns, uint64_t sys_ns)
{
	struct rusage_k ru;

	memset(&ru, 0, sizeof(ru));
	timeval_of(ru.utime, user_ns);
	timeval_of(ru.stime, sys_ns);
	return copy_to_user(uru, &ru, sizeof(ru)) ? -EFAULT : 0;
}

/* getrusage(who, usage): RUSAGE_SELF, RUSAGE_THREAD, RUSAGE_CHILDREN; else -EINVAL; -EFAULT. */
long sys_getrusage(SYSCALL_ARGS)
{
	struct rusage_k ru;
	int who = (int)a0;
	struct mm *mm = current->mm;
	uint64_t user, sys;

	if (who != RUSAGE_SELF && who != RUSAGE_THREAD && who != RUSAGE_CHILDREN)
		return -EINVAL;
	memset(&ru, 0, sizeof(ru));
	if (who == RUSAGE_SELF)
		cputime_process(current, &user, &sys);
	else if (who == RUSAGE_THREAD)
		cputime_thread_split(current, &user, &sys);
	else
		cputime_children(current, &user, &sys);
	timeval_of(ru.utime, user);
	timeval_of(ru.stime, sys);
	if (who != RUSAGE_CHILDREN && mm) {
		ru.maxrss = (int64_t)(READ_ONCE(mm->rss) * (PAGE_SIZE / 1024));
		ru.minflt = (int64_t)READ_ONCE(mm->faults);
	}
	return copy_to_user((void *)a1, &ru, sizeof(ru)) ? -EFAULT : 0;
}
