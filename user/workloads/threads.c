/*
 * Threads for the workloads (wl.h): what pthread_create does underneath,
 * without a pthread library. A thread is a clone with the flags glibc's
 * pthread_create passes (shared memory, files, signal handlers, one thread
 * group); the kernel writes its id into wl_thread.tid at creation
 * (CLONE_PARENT_SETTID) and clears the word and wakes a futex waiter on it
 * when the thread exits (CLONE_CHILD_CLEARTID): that is the join. The same
 * code runs on Linux and on vmkernel.
 */
#include "wl.h"

#define WL_CLONE_THREAD_FLAGS (0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | \
			       0x100000 | 0x200000)   /* VM FS FILES SIGHAND THREAD SYSVSEM
							 PARENT_SETTID CHILD_CLEARTID */
#define WL_FUTEX_WAIT 0
#define WL_FUTEX_WAIT_PRIVATE (0 | 128)
#define WL_FUTEX_WAKE_PRIVATE (1 | 128)
#define WL_THREAD_STACK (64 * 1024UL)

/*
 * long wl_clone_raw(flags, stack_top, ptid, ctid, fn, arg): clone(2); the
 * new thread starts on stack_top, calls fn(arg) and exits (this thread
 * only) with its return value. Returns the new thread's id, or -errno.
 * Written in assembly because the child must not return into C frames it
 * does not have.
 */
long wl_clone_raw(unsigned long flags, void *stack_top, volatile int *ptid, volatile int *ctid,
		  int (*fn)(void *), void *arg);
__asm__(".text\n"
	".globl wl_clone_raw\n"
	".type wl_clone_raw, @function\n"
	"wl_clone_raw:\n"
	"	sub $16, %rsi\n"                /* fn and arg wait on the child's stack */
	"	mov %r8, (%rsi)\n"
	"	mov %r9, 8(%rsi)\n"
	"	mov %rcx, %r10\n"               /* child_tid: the 4th system-call argument */
	"	xor %r8d, %r8d\n"               /* tls: none */
	"	mov $56, %eax\n"                /* __NR_clone */
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jz 1f\n"
	"	ret\n"                          /* the parent (or an error) */
	"1:	pop %rax\n"                     /* the child: fn(arg), then exit(2) */
	"	pop %rdi\n"
	"	call *%rax\n"
	"	mov %eax, %edi\n"
	"	mov $60, %eax\n"
	"	syscall\n"
	"	ud2\n"
	".size wl_clone_raw, . - wl_clone_raw\n");

void wl_thread_start(struct wl_thread *t, int (*fn)(void *), void *arg)
{
	long tid;

	t->stack = wl_map(NULL, WL_THREAD_STACK, PROT_READ | PROT_WRITE, 0);
	tid = wl_clone_raw(WL_CLONE_THREAD_FLAGS, t->stack + WL_THREAD_STACK, &t->tid, &t->tid, fn, arg);
	if (tid < 0)
		wl_die("clone of a thread failed: errno %ld", -tid);
}

void wl_thread_join(struct wl_thread *t)
{
	int tid;

	/* not a private futex: the kernel's wake at thread exit is a shared one (as glibc's join) */
	while ((tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE)) != 0)
		usys4(__NR_futex, (long)&t->tid, WL_FUTEX_WAIT, tid, 0);
	wl_unmap(t->stack, WL_THREAD_STACK);
}

void wl_futex_wait_while(volatile int *word, int value)
{
	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == value)
		usys4(__NR_futex, (long)word, WL_FUTEX_WAIT_PRIVATE, value, 0);
}

void wl_futex_set_wake_all(volatile int *word, int value)
{
	__atomic_store_n(word, value, __ATOMIC_RELEASE);
	usys4(__NR_futex, (long)word, WL_FUTEX_WAKE_PRIVATE, 0x7fffffff, 0);
}

uint64_t wl_now_ns(void)
{
	long ts[2] = { 0, 0 };

	usys2(__NR_clock_gettime, 1 /* CLOCK_MONOTONIC */, (long)ts);
	return (uint64_t)ts[0] * 1000000000ULL + (uint64_t)ts[1];
}
