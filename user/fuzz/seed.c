/*
 * One seed's first process: the pool (arena, futex page, the actors'
 * stacks and buffers), the signal handlers, the first threads; then
 * operations until the budget is spent, the kernel's checks while the
 * seed's processes still live, and exit (joining the threads first, or
 * not: exit_group then ends them wherever they are).
 */
#include "fuzz.h"

#define FUTEX_WAIT 0
#define ACTOR_MEM (FZ_STACK_SIZE + FZ_ALTSTACK_SIZE + FZ_BUF_SIZE)

static struct pool pool_storage;
struct pool *fz_pool = &pool_storage;

void fz_unexpected(const char *what)
{
	uint64_t first = __atomic_fetch_add(&fz_stats->unexpected, 1, __ATOMIC_ACQ_REL);

	if (first == 0)
		snprintf(fz_stats->what, sizeof(fz_stats->what), "pid %ld: %s", sys_getpid(), what);
	usys1(__NR_exit_group, 99);
	__builtin_unreachable();
}

/* The actor whose stack (or signal stack) holds the caller's stack; else slot 0. */
static struct actor *actor_of_stack(void)
{
	char here;

	for (int i = 1; i < FZ_MAX_ACTORS; i++) {
		struct actor *a = &fz_pool->actors[i];

		if ((&here >= a->stack && &here < a->stack + FZ_STACK_SIZE) ||
		    (&here >= a->altstack && &here < a->altstack + FZ_ALTSTACK_SIZE))
			return a;
	}
	return &fz_pool->actors[0];
}

static void on_signal(int sig)
{
	(void)sig;
	__atomic_add_fetch(&fz_stats->signals, 1, __ATOMIC_RELAXED);
}

/* SIGSEGV/SIGBUS: expected only inside a touch (ops_mem.c), which it abandons. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	struct actor *a = actor_of_stack();
	char what[96];

	if (a->touching) {
		a->touching = 0;
		__atomic_add_fetch(&fz_stats->faults, 1, __ATOMIC_RELAXED);
		longjmp(a->touch_jmp, 1);
	}
	snprintf(what, sizeof(what), "signal %d (code %d) at %p, rip %#lx, outside a touch", sig, si->si_code,
		 si->si_addr, ((unsigned long *)uc)[21]);
	fz_unexpected(what);
}

void fz_signals_init(void)
{
	static const int handled[] = { SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD, SIGURG, SIGWINCH, SIGPROF, 34, 35, 40 };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);          /* writes to a pipe without readers: EPIPE only */
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	for (unsigned i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		sigaction(handled[i], &sa, NULL);
}

/* The handler the fuzzed sigaction installs (ops_proc.c uses it). */
void (*const fz_handler)(int) = on_signal;

static void pool_init(uint64_t seed, int threads, long ops, const char *dir)
{
	long arena = sys_mmap(0, FZ_ARENA_PAGES * UPAGE_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	long fut = sys_mmap(0, UPAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long mem = sys_mmap(0, FZ_MAX_ACTORS * ACTOR_MEM, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (usys_is_err(arena) || usys_is_err(fut) || usys_is_err(mem))
		fz_unexpected("the pool's mappings failed");
	fz_pool->arena = (char *)arena;
	fz_pool->futex = (volatile int *)fut;
	fz_pool->dir = dir;
	fz_pool->pgid = (int)sys_getpid();
	for (int i = 0; i < FZ_MAX_FDS; i++)
		fz_pool->fds[i] = -1;
	for (int i = 0; i < FZ_MAX_ACTORS; i++) {
		struct actor *a = &fz_pool->actors[i];

		a->stack = (char *)mem + (size_t)i * ACTOR_MEM;
		a->altstack = a->stack + FZ_STACK_SIZE;
		a->buf = a->altstack + FZ_ALTSTACK_SIZE;
		a->rng = (seed + 1) * 0x9E3779B97F4A7C15ULL + (uint64_t)i * 0xBF58476D1CE4E5B9ULL;
		if (!a->rng)
			a->rng = 1;
		a->budget = i < threads ? ops : 0;      /* the seed's ops_left ends them */
	}
}

/* Wait (with timeouts: a thread never woken still ends) until every thread has exited. */
static void join_threads(void)
{
	struct timespec_fz { long s, ns; } ts = { 0, 10 * 1000 * 1000 };

	for (int i = 1; i < FZ_MAX_ACTORS; i++) {
		struct actor *a = &fz_pool->actors[i];
		int tid;

		while (a->state != ACTOR_FREE && (tid = a->tid) != 0)
			usys4(__NR_futex, (long)&a->tid, FUTEX_WAIT, tid, (long)&ts);
	}
}

/* The kernel's checks now, while the seed's processes live (vmk_check; -ENOSYS on Linux). */
static void check_live(void)
{
	struct vmk_check r;
	long e = usys3(__NR_vmk_check, (long)&r, sizeof(r), 0);
	char what[64];

	if (e == 0 || e == -38)
		return;
	snprintf(what, sizeof(what), "vmk_check at the seed's end: %ld, failed %#lx", e, (unsigned long)r.failed);
	fz_unexpected(what);
}

void fz_seed_main(uint64_t seed, long ops, int threads, const char *dir)
{
	struct actor *first;

	usys2(__NR_setpgid, 0, 0);
	if (threads < 1)
		threads = 1;
	if (threads > FZ_MAX_ACTORS)
		threads = FZ_MAX_ACTORS;
	pool_init(seed, threads, ops, dir);
	fz_signals_init();
	first = &fz_pool->actors[0];
	first->state = ACTOR_RUNNING;
	for (int i = 1; i < threads; i++)
		fz_op_thread(first);            /* takes the next free slot, which has its budget */
	fz_actor_loop(first);
	if (fz_chance(first, 50))
		join_threads();
	check_live();
	usys1(__NR_exit_group, 0);
	__builtin_unreachable();
}
