/*
 * Process, signal and futex operations: fork (a child runs a short budget
 * of its own and exits), wait4, kill and tgkill, sigaction, sigaltstack,
 * rt_sigprocmask, setitimer, futex, and a few calls that only ask.
 *
 * Signals are sent only from the "safe" set below: for each of them the
 * seed installs a handler, and the fuzzed sigaction only ever installs the
 * handler or SIG_IGN (SIG_DFL and SA_RESETHAND only where the default is
 * to ignore), so none can end a process. SIGKILL and SIGSTOP go to the
 * seed's own children only; SIGSEGV and SIGBUS are never blocked or
 * re-pointed (a touch's fault must reach seed.c's handler).
 */
#include "fuzz.h"

#define WNOHANG 1
#define WALL 0x40000000
#define FUTEX_WAKE 1
#define FUTEX_REQUEUE 3
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_PRIVATE 128

struct fz_timespec { long sec, nsec; };
struct fz_stack { void *sp; int flags; size_t size; };

extern void (*const fz_handler)(int);

static const int safe_sigs[] = { SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD, SIGURG, SIGWINCH, SIGPROF, 34, 35, 40,
				 SIGCONT, 0 };
#define NSAFE (sizeof(safe_sigs) / sizeof(safe_sigs[0]))

static int safe_sig(struct actor *a)
{
	return safe_sigs[fz_below(a, NSAFE)];
}

/* Signals whose default action is to ignore: SIG_DFL and SA_RESETHAND are harmless there. */
static bool ignored_by_default(int sig)
{
	return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT;
}

/* A new child: its own stream, no children, no other threads, a short budget; then exit. */
static void child_main(struct actor *a)
{
	fz_pool->depth++;
	for (int i = 0; i < FZ_MAX_KIDS; i++)
		fz_pool->kids[i] = 0;
	for (int i = 0; i < FZ_MAX_ACTORS; i++) {
		struct actor *o = &fz_pool->actors[i];

		if (o != a) {
			o->state = ACTOR_FREE;
			o->tid = 0;
			o->budget = 0;
		}
	}
	a->tid = (int)sys_getpid();
	a->rng = (a->rng ^ 0xD1B54A32D192ED03ULL) * 0x9E3779B97F4A7C15ULL | 1;
	a->budget = 16 + (long)fz_below(a, 240);
	fz_actor_loop(a);
	usys1(__NR_exit_group, 0);
}

static void op_fork(struct actor *a)
{
	int slot = -1;
	long pid;

	for (int i = 0; i < FZ_MAX_KIDS && slot < 0; i++)
		if (fz_pool->kids[i] == 0)
			slot = i;
	if (slot < 0 || fz_pool->depth >= FZ_MAX_DEPTH)
		return;
	pid = fz_count(sys_fork());
	if (pid == 0)
		child_main(a);
	if (pid > 0) {
		fz_pool->kids[slot] = (int)pid;
		__atomic_add_fetch(&fz_stats->forks, 1, __ATOMIC_RELAXED);
	}
}

/* Reap a child if one is done; a child killed by anything but SIGKILL broke a promise. */
static void op_wait(struct actor *a)
{
	int st = 0, i = (int)fz_below(a, FZ_MAX_KIDS), who = fz_chance(a, 50) ? fz_pool->kids[i] : -1;
	long pid = fz_count(sys_wait4(who ? who : -1, &st, WNOHANG | (fz_chance(a, 50) ? WALL : 0), NULL));
	char what[64];

	if (pid <= 0)
		return;
	for (int k = 0; k < FZ_MAX_KIDS; k++)
		if (fz_pool->kids[k] == pid)
			fz_pool->kids[k] = 0;
	if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) {
		snprintf(what, sizeof(what), "child %ld killed by signal %d", pid, WTERMSIG(st));
		fz_unexpected(what);
	}
}

static void op_kill(struct actor *a)
{
	int kid = fz_pool->kids[fz_below(a, FZ_MAX_KIDS)];
	struct actor *t = &fz_pool->actors[fz_below(a, FZ_MAX_ACTORS)];
	int tid = t->tid;

	switch (fz_below(a, 7)) {
	case 0:
		if (kid > 0) {
			fz_count(sys_kill(kid, safe_sig(a)));
		}
		break;
	case 1: fz_count(sys_kill(0, safe_sig(a))); break;
	case 2: fz_count(sys_kill((int)sys_getpid(), safe_sig(a))); break;
	case 3:
		if (tid > 0)
			fz_count(usys3(__NR_tgkill, sys_getpid(), tid, safe_sig(a)));
		break;
	case 4: fz_count(sys_kill((1 << 22) + (int)fz_below(a, 1000), safe_sig(a))); break;   /* no such pid */
	case 5:
		if (fz_pool->depth > 0 && fz_chance(a, 20))     /* a child ends (or pauses) by a signal of its own */
			fz_count(sys_kill((int)sys_getpid(), fz_chance(a, 70) ? SIGKILL : SIGSTOP));
		break;
	default: fz_count(sys_kill((int)sys_getpid(), fz_chance(a, 50) ? 65 : -3)); break;    /* bad signal */
	}
}

static void op_sigaction(struct actor *a)
{
	static const unsigned long flag_bits[] = { SA_RESTART, SA_ONSTACK, SA_SIGINFO, SA_NOCLDSTOP,
						   SA_NOCLDWAIT };
	struct sigaction sa, old;
	int sig = safe_sig(a);

	memset(&sa, 0, sizeof(sa));
	if (fz_chance(a, 5))
		sig = fz_chance(a, 50) ? SIGKILL : 65;          /* -EINVAL */
	if (sig == 0 || fz_chance(a, 15)) {
		fz_count(sigaction(sig, NULL, &old));
		return;
	}
	sa.sa_handler = fz_chance(a, 80) ? fz_handler : SIG_IGN;
	if (ignored_by_default(sig) && fz_chance(a, 20))
		sa.sa_handler = SIG_DFL;
	for (unsigned i = 0; i < sizeof(flag_bits) / sizeof(flag_bits[0]); i++)
		if (fz_chance(a, 30))
			sa.sa_flags |= flag_bits[i];
	if (ignored_by_default(sig) && fz_chance(a, 10))
		sa.sa_flags |= SA_RESETHAND;
	sa.sa_mask = fz_rand(a) & ~(sigmask_of(SIGSEGV) | sigmask_of(SIGBUS));
	fz_count(sigaction(sig, &sa, fz_chance(a, 50) ? &old : NULL));
}

static void op_sigstate(struct actor *a)
{
	struct fz_stack ss = { a->altstack, 0, 8192 + fz_below(a, FZ_ALTSTACK_SIZE - 8192 + 1) };
	uint64_t set = fz_rand(a) & ~(sigmask_of(SIGSEGV) | sigmask_of(SIGBUS));
	unsigned r = (unsigned)fz_below(a, 100);

	if (r < 40) {
		if (r < 5)
			ss.size = 1000;                         /* below MINSIGSTKSZ: -ENOMEM */
		ss.flags = r < 10 ? SS_DISABLE : r < 13 ? 77 : r < 20 ? (int)SS_AUTODISARM : 0;
		fz_count(usys2(__NR_sigaltstack, r < 30 ? (long)&ss : 0, (long)a->buf));
	} else if (r < 85) {
		fz_count(usys4(__NR_rt_sigprocmask, fz_chance(a, 95) ? (long)fz_below(a, 3) : 9, (long)&set,
			       (long)a->buf, 8));
	} else if (r < 90) {
		fz_count(usys2(__NR_rt_sigpending, (long)a->buf, 8));
	} else {
		/* ITIMER_REAL every 0-3 ms (SIGALRM, handled), or off */
		long it[4] = { 0, (long)fz_below(a, 3000), 0, (long)fz_below(a, 3000) };

		fz_count(usys3(__NR_setitimer, 0, (long)it, 0));
	}
}

/* A futex word: the shared page mostly, else arena memory (may fault) or a misaligned one. */
static volatile int *futex_word(struct actor *a)
{
	unsigned r = (unsigned)fz_below(a, 100);

	if (r < 85)
		return &fz_pool->futex[fz_below(a, FZ_FUTEX_WORDS)];
	if (r < 97)
		return (volatile int *)(fz_pool->arena + fz_below(a, FZ_ARENA_PAGES) * UPAGE_SIZE);
	return (volatile int *)((char *)fz_pool->futex + 1);
}

static void op_futex(struct actor *a)
{
	volatile int *w = futex_word(a), *w2 = futex_word(a);
	int priv = fz_chance(a, 50) ? FUTEX_PRIVATE : 0, val = (int)fz_below(a, 4);
	struct fz_timespec ts = { 0, (long)fz_below(a, 2000000) };

	switch (fz_below(a, 7)) {
	case 0:
		if (w >= fz_pool->futex && w < fz_pool->futex + FZ_FUTEX_WORDS)
			__atomic_add_fetch(w, 1, __ATOMIC_RELAXED);
		/* fallthrough */
	case 1:
		fz_count(usys4(__NR_futex, (long)w, FUTEX_WAKE | priv, 1 + (long)fz_below(a, 8), 0));
		break;
	case 2:
		if (w >= fz_pool->futex && w < fz_pool->futex + FZ_FUTEX_WORDS && fz_chance(a, 70))
			val = *w;                               /* the value it has: a real sleep */
		fz_count(usys4(__NR_futex, (long)w, 0 | priv, val, (long)&ts));
		break;
	case 3:
		fz_count(usys6(__NR_futex, (long)w, (fz_chance(a, 50) ? FUTEX_REQUEUE : FUTEX_CMP_REQUEUE) | priv,
			       (long)fz_below(a, 3), (long)fz_below(a, 3), (long)w2, val));
		break;
	case 4: {
		struct fz_timespec past = { 0, 0 };     /* absolute: already over */

		fz_count(usys6(__NR_futex, (long)w, FUTEX_WAIT_BITSET | priv, val, (long)&past, 0, -1));
		break;
	}
	case 5:
		fz_count(usys6(__NR_futex, (long)w, FUTEX_WAKE_BITSET | priv, 1 + (long)fz_below(a, 4), 0, 0,
			       (long)fz_rand(a) | 1));
		break;
	default:
		fz_count(usys4(__NR_futex, (long)w, 99, 0, 0));        /* no such op */
		break;
	}
}

static void op_misc(struct actor *a)
{
	struct fz_timespec ts = { 0, (long)fz_below(a, 100000) };

	switch (fz_below(a, 4)) {
	case 0: fz_count(usys0(__NR_sched_yield)); break;
	case 1: fz_count(usys2(__NR_nanosleep, (long)&ts, 0)); break;
	case 2: fz_count(usys0(__NR_getppid)); break;
	default: fz_count(usys2(__NR_clock_gettime, 1, (long)a->buf)); break;
	}
}

void fz_op_proc(struct actor *a)
{
	switch (fz_below(a, 14)) {
	case 0: op_fork(a); break;
	case 1: case 2: op_wait(a); break;
	case 3: case 4: op_kill(a); break;
	case 5: op_sigaction(a); break;
	case 6: case 7: op_sigstate(a); break;
	case 8: case 9: case 10: op_futex(a); break;
	default: op_misc(a); break;
	}
}
