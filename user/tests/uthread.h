/*
 * Threads for the user tests, made as pthread_create makes them (clone
 * with CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
 * CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID) and joined
 * through the child-tid futex, plus a raw futex call. Used by t_thread.c,
 * t_tgroup.c and t_threadvm.c; the same code runs on Linux and here.
 */
#ifndef UTHREAD_H
#define UTHREAD_H

#include "utests.h"

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_REQUEUE 3
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_PRIVATE 128
#define THREAD_STACK_SIZE (64 * 1024)

struct thread {
	volatile int tid;             /* set by the kernel (PARENT_SETTID), cleared at exit (CHILD_CLEARTID) */
	int (*fn)(void *);
	void *arg;
	char *stack;
};

/*
 * thread_start: clone a thread running t->fn(t->arg) on a fresh
 * THREAD_STACK_SIZE stack; its return value goes to exit(2) (this thread
 * only). Returns the thread id, or a negative errno.
 */
long thread_start(struct thread *t);
/* thread_join: wait until t has exited (its tid word cleared and woken by the kernel), free its stack. */
void thread_join(struct thread *t);
/* futex(w, op, val) with no timeout: the raw system call's result. */
long futex(volatile int *w, int op, int val);
/* futex_wait_while: sleep on w while it holds val (FUTEX_WAIT in a loop: returns once it differs). */
void futex_wait_while(volatile int *w, int val);

#endif
