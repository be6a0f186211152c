/*
 * Threads of the fuzzer: clone into a free actor slot, on the slot's own
 * stack, running fz_actor_loop on it. Most are made as pthread_create
 * makes them (CLONE_THREAD); some share only the address space and the
 * fd table (a separate process on the same mm, which exit(2) ends and the
 * driver reaps), so both kinds of sharing get fuzzed.
 */
#include "fuzz.h"

#include "uclone.h"

#define THREAD_FLAGS CLONE_PTHREAD_FLAGS
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
	return clone_on_stack(flags, a->stack + FZ_STACK_SIZE, thread_main, a, &a->tid);
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
