/* Threads for the user tests: uthread.h. */
#include "uthread.h"

#define CLONE_VM 0x100
#define CLONE_FS 0x200
#define CLONE_FILES 0x400
#define CLONE_SIGHAND 0x800
#define CLONE_THREAD 0x10000
#define CLONE_SYSVSEM 0x40000
#define CLONE_PARENT_SETTID 0x100000
#define CLONE_CHILD_CLEARTID 0x200000
#define THREAD_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
		      CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

long thread_start(struct thread *t)
{
	uint64_t *sp;
	long ret;

	t->stack = (char *)sys_mmap(0, THREAD_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK((long)t->stack > 0);
	sp = (uint64_t *)(t->stack + THREAD_STACK_SIZE) - 2;
	sp[0] = (uint64_t)t->fn;
	sp[1] = (uint64_t)t->arg;
	/* Set right before the syscall: a call in between (the mmap above) may use these registers. */
	register long r10 __asm__("r10") = (long)&t->tid;
	register long r8 __asm__("r8") = 0;
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "pop %%rax\n\t"
			 "pop %%rdi\n\t"
			 "call *%%rax\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov $60, %%eax\n\t"   /* exit: this thread only */
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "0"((long)__NR_clone), "D"((long)THREAD_FLAGS), "S"(sp), "d"(&t->tid), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
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
