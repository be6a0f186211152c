/* Threads for the user tests: uthread.h. */
#include "uthread.h"
#include "uclone.h"

long thread_start(struct thread *t)
{
	t->stack = (char *)sys_mmap(0, THREAD_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK((long)t->stack > 0);
	return clone_on_stack(CLONE_PTHREAD_FLAGS, t->stack + THREAD_STACK_SIZE, t->fn, t->arg, &t->tid);
}

void thread_join(struct thread *t)
{
	int tid;

	while ((tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE)) != 0)
		usys4(__NR_futex, (long)&t->tid, FUTEX_WAIT, tid, 0);
	sys_munmap((unsigned long)t->stack, THREAD_STACK_SIZE);
}

long futex(volatile int *w, int op, int val)
{
	return usys4(__NR_futex, (long)w, op, val, 0);
}

void futex_wait_while(volatile int *w, int val)
{
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == val)
		futex(w, FUTEX_WAIT, val);
}
