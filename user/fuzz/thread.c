/*
 * Threads of the fuzzer: clone into a free actor slot, on the slot's own
 * stack, running fz_actor_loop on it. Most are made as pthread_create
 * makes them (CLONE_THREAD); some share only the address space and the
 * fd table (a separate process on the same mm, which exit(2) ends and the
 * driver reaps), so both kinds of sharing get fuzzed.
 */
#include "fuzz.h"

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
#define SHARED_MM_FLAGS (CLONE_VM | CLONE_FILES | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

/* The new thread's first code: its slot is the argument; returns into exit(2). */
static int thread_main(void *arg)
{
	struct actor *a = arg;

	a->state = ACTOR_RUNNING;
	fz_actor_loop(a);
	return 0;
}

/* clone(flags) onto a's stack; the child calls thread_main(a), then exit(2). Returns clone's result. */
static long clone_on(struct actor *a, long flags)
{
	uint64_t *sp = (uint64_t *)(a->stack + FZ_STACK_SIZE) - 2;
	long ret;

	sp[0] = (uint64_t)thread_main;
	sp[1] = (uint64_t)a;
	register long r10 __asm__("r10") = (long)&a->tid;
	register long r8 __asm__("r8") = 0;
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "pop %%rax\n\t"
			 "pop %%rdi\n\t"
			 "call *%%rax\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov $60, %%eax\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "0"((long)__NR_clone), "D"(flags), "S"(sp), "d"(&a->tid), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}

/* A slot no thread uses: never started, or its thread gone (tid cleared by the kernel). Claimed. */
static struct actor *claim_slot(void)
{
	for (int i = 1; i < FZ_MAX_ACTORS; i++) {
		struct actor *s = &fz_pool->actors[i];
		int st = s->state;

		if (st == ACTOR_STARTING || (st == ACTOR_RUNNING && s->tid != 0))
			continue;
		if (__atomic_compare_exchange_n(&s->state, &st, ACTOR_STARTING, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return s;
	}
	return NULL;
}

void fz_op_thread(struct actor *a)
{
	struct actor *t = claim_slot();
	long flags = fz_chance(a, 85) ? THREAD_FLAGS : SHARED_MM_FLAGS;

	if (!fz_share_fds)
		flags &= ~(long)CLONE_FILES;            /* each thread a copy of the fd table */
	long r;

	if (!t)
		return;
	if (t->budget <= 0) {
		t->budget = 16 + (long)fz_below(a, 240);
		t->rng = fz_rand(a) | 1;
	}
	t->touching = 0;
	t->tid = 0;
	r = fz_count(clone_on(t, flags));
	if (r < 0) {
		t->budget = 0;
		t->state = ACTOR_FREE;
		return;
	}
	__atomic_add_fetch(&fz_stats->threads, 1, __ATOMIC_RELAXED);
}
