/*
 * The syscall fuzzer (docs/fuzz.md): from a seed, random system calls with
 * arguments picked from a pool of resources the seed made (mappings in an
 * arena, fds of files, memfds, pipes and epoll instances, child processes,
 * threads, futex words), from several threads and processes at once.
 *
 * It is adversarial in its arguments but well behaved: it never does what
 * legitimately ends the run (signals with a fatal default action are only
 * sent where a handler is installed, SIGSEGV/SIGBUS are never blocked or
 * re-pointed, memory outside the arena is never unmapped or re-protected,
 * nothing blocks without a timeout), so any death, hang or failed kernel
 * check is a finding.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include "ulib.h"

#define FZ_ARENA_PAGES   4096           /* 16 MiB: every MAP_FIXED and range op stays inside */
#define FZ_MAX_ACTORS    8              /* threads of one process (slot 0: its first thread) */
#define FZ_STACK_SIZE    (256 * 1024)   /* nested signal frames (one per pending signal) fit */
#define FZ_ALTSTACK_SIZE (64 * 1024)
#define FZ_BUF_SIZE      (64 * 1024)    /* each actor's own read/write buffer */
#define FZ_MAX_FDS       24
#define FZ_MAX_KIDS      8              /* child processes a process keeps track of */
#define FZ_MAX_FILE      (8UL << 20)    /* ftruncate sizes stay below */
#define FZ_FUTEX_WORDS   16
#define FZ_FILES         6              /* DIR/f0 .. f5 */
#define FZ_MAX_DEPTH     2              /* forks of forks */

/* xorshift64*: one stream per actor, derived from the seed. */
static inline uint64_t fz_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Counters every process of a run sees: a MAP_SHARED page made by the driver. */
struct fz_stats {
	uint64_t syscalls;              /* system calls made as fuzz operations */
	int64_t ops_left;               /* the seed's operations not yet begun, all its processes together */
	uint64_t signals;               /* handlers run */
	uint64_t faults;                /* touches that faulted (SIGSEGV/SIGBUS caught) */
	uint64_t forks, threads;
	uint64_t unexpected;            /* a fault outside a touch, or another broken promise */
	char what[128];                 /* the first such, for the report */
};

/* One thread's state: its random stream and its own memory. */
struct actor {
	volatile int tid;               /* kernel-set (PARENT_SETTID), cleared at exit (CHILD_CLEARTID) */
	volatile int state;             /* ACTOR_FREE, ACTOR_STARTING, ACTOR_RUNNING */
	uint64_t rng;
	long budget;                    /* operations left */
	char *stack, *altstack, *buf;
	jmp_buf touch_jmp;
	volatile int touching;          /* a SIGSEGV/SIGBUS now jumps to touch_jmp */
};
enum { ACTOR_FREE, ACTOR_STARTING, ACTOR_RUNNING };

/* The pool of one process (its threads share it; a fork gets a copy). */
struct pool {
	char *arena;                    /* FZ_ARENA_PAGES pages, reserved PROT_NONE at the start */
	volatile int *futex;            /* FZ_FUTEX_WORDS words in a page shared across forks */
	volatile int fds[FZ_MAX_FDS];   /* -1: empty */
	volatile int kids[FZ_MAX_KIDS]; /* child pids, 0: empty */
	struct actor actors[FZ_MAX_ACTORS];
	int depth;                      /* 0: the seed's first process */
	int pgid;
	const char *dir;
};

extern struct fz_stats *fz_stats;
/*
 * Whether threads share the fd table (CLONE_FILES, default). --private-fds
 * clears it: the kernel's shared fd tables have no locking yet (a close in
 * one thread frees a file another thread's mmap is using; docs/fuzz.md,
 * "Bugs found"), and make test's stage must not fail on that known bug.
 */
extern bool fz_share_fds;
extern struct pool *fz_pool;

/* Count one fuzz system call and pass its result through. */
static inline long fz_count(long r)
{
	__atomic_add_fetch(&fz_stats->syscalls, 1, __ATOMIC_RELAXED);
	return r;
}

/* Record a broken promise (first one's text kept) and end this process with status 99. */
void fz_unexpected(const char *what) __attribute__((noreturn));

/* Random helpers on an actor's stream. */
uint64_t fz_rand(struct actor *a);
uint64_t fz_below(struct actor *a, uint64_t n);         /* 0 .. n-1 */
bool fz_chance(struct actor *a, unsigned percent);
/* A page-aligned address in the arena, sometimes just off it or misaligned. */
unsigned long fz_addr(struct actor *a);
/* A length for a range op: pages mostly, sometimes 0, odd or huge. */
unsigned long fz_len(struct actor *a);
/* An fd: one from the pool mostly, sometimes a bad number. */
int fz_fd(struct actor *a);
/* Put fd into the pool (closing a random old one when full). */
void fz_add_fd(struct actor *a, int fd);

/* The operation groups: each does one random call of its kind. */
void fz_op_mem(struct actor *a);        /* ops_mem.c: mmap, munmap, mprotect, madvise, mremap, brk, touch */
void fz_op_fd(struct actor *a);         /* ops_fd.c: open, read, write, lseek, ftruncate, dup, close, ... */
void fz_op_proc(struct actor *a);       /* ops_proc.c: fork, wait, kill, sigaction, sigaltstack, futex */
/* Start a thread in a free slot running fz_actor_loop (thread.c). */
void fz_op_thread(struct actor *a);

/* Run operations until a's budget is spent (any actor, any process). */
void fz_actor_loop(struct actor *a);
/* Install the signal handlers a seed's processes start with (seed.c). */
void fz_signals_init(void);
/* The seed's first process: set up, run, check, exit. Never returns. */
void fz_seed_main(uint64_t seed, long ops, int threads, const char *dir) __attribute__((noreturn));

#endif
