/*
 * Several processes on several CPUs at once (threads: t_threadvm.c):
 * they meet in shared anonymous memory, fault private memory, fork and
 * break COW, all at the same time. Results are exact counts and contents,
 * never times, and hold on Linux too (each child is its own process; on a
 * machine with fewer CPUs than children they still finish because user
 * code is preempted).
 */
#include "uclone.h"
#include "utests.h"

#define NCHILD 4

static int my_cpu(void)
{
	unsigned cpu = ~0u;

	return usys3(__NR_getcpu, (long)&cpu, 0, 0) == 0 ? (int)cpu : -1;
}

static void *shared_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	return p;
}

/* Fork n children running fn(i, shared); each must exit 0. */
static void run_children(int n, void (*fn)(int i, volatile long *sh), volatile long *sh)
{
	int pids[NCHILD], st;

	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		CHECK(pids[i] >= 0);
		if (pids[i] == 0) {
			fn(i, sh);
			_exit(0);
		}
	}
	for (int i = 0; i < n; i++) {
		CHECK_EQ(waitpid(pids[i], &st, 0), pids[i]);
		CHECK_EQ(st, 0);
	}
}

/*
 * Every child waits in user mode, without a system call, until all have
 * arrived: only possible if they run at the same time on several CPUs, or
 * take turns because the timer preempts user code.
 */
static void meet(int i, volatile long *sh)
{
	__atomic_add_fetch(&sh[0], 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&sh[0], __ATOMIC_ACQUIRE) < NCHILD)
		;
	sh[1 + i] = my_cpu();
}

static void t_smp_processes_meet(void)
{
	volatile long *sh = shared_page();

	run_children(NCHILD, meet, sh);
	CHECK_EQ(sh[0], NCHILD);
	for (int i = 0; i < NCHILD; i++)
		CHECK(sh[1 + i] >= 0);  /* getcpu answered */
	munmap((void *)sh, 4096);
}

/* A counter in shared memory: atomic adds and a spinlock-protected plain add, from every child. */
#define ADDS 20000

static void count(int i __attribute__((unused)), volatile long *sh)
{
	for (int k = 0; k < ADDS; k++) {
		__atomic_add_fetch(&sh[0], 1, __ATOMIC_RELAXED);
		while (__atomic_exchange_n(&sh[1], 1, __ATOMIC_ACQUIRE))
			;
		sh[2] = sh[2] + 1;
		__atomic_store_n(&sh[1], 0, __ATOMIC_RELEASE);
	}
}

static void t_smp_shared_counter_exact(void)
{
	volatile long *sh = shared_page();

	run_children(NCHILD, count, sh);
	CHECK_EQ(sh[0], NCHILD * ADDS);
	CHECK_EQ(sh[2], NCHILD * ADDS);
	munmap((void *)sh, 4096);
}

/*
 * Private memory faulted, forked, written on both sides of the fork and
 * unmapped, by every child at once; each checks every byte it expects.
 */
#define STORM_PAGES 96
#define STORM_ROUNDS 3

static void fill(unsigned char *p, long tag)
{
	for (int pg = 0; pg < STORM_PAGES; pg++)
		for (int off = 0; off < 4096; off += 512)
			p[pg * 4096 + off] = (unsigned char)(tag + pg + off / 512);
}

static int check_fill(const unsigned char *p, long tag)
{
	for (int pg = 0; pg < STORM_PAGES; pg++)
		for (int off = 0; off < 4096; off += 512)
			if (p[pg * 4096 + off] != (unsigned char)(tag + pg + off / 512))
				return 0;
	return 1;
}

static void storm(int i, volatile long *sh)
{
	for (int r = 0; r < STORM_ROUNDS; r++) {
		unsigned char *p = mmap(NULL, STORM_PAGES * 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int pid, st;

		if (p == MAP_FAILED)
			_exit(10);
		fill(p, i * 16 + r);
		pid = fork();
		if (pid < 0)
			_exit(11);
		if (pid == 0) {
			/* The grandchild sees the parent's bytes, then writes its own (COW breaks). */
			if (!check_fill(p, i * 16 + r))
				_exit(12);
			fill(p, 100 + i);
			_exit(check_fill(p, 100 + i) ? 0 : 13);
		}
		fill(p + 0, i * 16 + r);        /* the parent writes too: COW breaks on its side */
		if (waitpid(pid, &st, 0) != pid || st != 0)
			_exit(14);
		if (!check_fill(p, i * 16 + r))
			_exit(15);
		if (mprotect(p, STORM_PAGES * 4096, PROT_READ) || !check_fill(p, i * 16 + r))
			_exit(16);
		if (munmap(p, STORM_PAGES * 4096))
			_exit(17);
	}
	__atomic_add_fetch(&sh[0], 1, __ATOMIC_ACQ_REL);
}

static void t_smp_fault_fork_storm(void)
{
	volatile long *sh = shared_page();

	run_children(NCHILD, storm, sh);
	CHECK_EQ(sh[0], NCHILD);
	munmap((void *)sh, 4096);
}

/*
 * Two processes in one address space (clone with CLONE_VM, as posix_spawn
 * does; not threads: each has its own signal handlers and is waited for as
 * a child). The child touches a page, so the CPU it runs on caches the
 * translation, and spins in user mode (no system call, so nothing switches
 * or flushes its TLB) until the parent has unmapped the page or made it
 * read-only; then it touches the page again. That access must fault
 * (SIGSEGV kills the child): the parent's change has to reach the child's
 * CPU (a TLB shootdown), or the child goes on through its stale entry. A
 * new process starts on an idle CPU, so parent and child run on two CPUs
 * when there are two. On Linux the same holds.
 */
#define SIGCHLD_NR 17
#define SIGSEGV_NR 11
#define CHILD_STACK (16 * 4096)

struct vm_child {
	volatile long *page;
	int write;                      /* touch by writing (else by reading) */
	volatile int ready, go;
	volatile long seen;
};

static int vm_child_main(void *arg)
{
	struct vm_child *c = arg;

	if (c->write)
		c->page[0] = 2;
	else
		c->seen = c->page[0];
	__atomic_store_n(&c->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&c->go, __ATOMIC_ACQUIRE))
		;
	if (c->write)
		c->page[0] = 3;         /* must fault: the page is read-only now */
	else
		c->seen = c->page[0];   /* must fault: the page is gone */
	return 0;
}

/* clone(CLONE_VM | SIGCHLD) with the child running fn(arg) on stack_top, then exiting with its value. */
static long clone_vm(int (*fn)(void *), void *arg, void *stack_top)
{
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
	long ret;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "mov %[arg], %%rdi\n\t"         /* the child, on its own stack */
			 "call *%[fn]\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov $60, %%eax\n\t"           /* exit */
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "0"((long)__NR_clone), "D"((long)(CLONE_VM | SIGCHLD_NR)), "S"(stack_top),
			   "d"(0L), "r"(r10), "r"(r8), [fn] "r"(fn), [arg] "r"(arg)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The child touches the page, the parent changes it (change), the child touches it again: SIGSEGV. */
static void shared_mm_case(int write, int (*change)(void *page))
{
	char *stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct vm_child c = { 0 };
	long pid;
	int st = 0, changed;

	CHECK(stack != MAP_FAILED);
	c.page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(c.page != MAP_FAILED);
	c.page[0] = 1;
	c.write = write;
	pid = clone_vm(vm_child_main, &c, stack + CHILD_STACK);
	CHECK(pid > 0);
	while (!__atomic_load_n(&c.ready, __ATOMIC_ACQUIRE))
		usys0(__NR_sched_yield);
	changed = change((void *)c.page);
	__atomic_store_n(&c.go, 1, __ATOMIC_RELEASE);     /* (before any check: the child must end) */
	CHECK_EQ(changed, 0);
	CHECK_EQ(waitpid((int)pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGSEGV_NR);
	if (!write)
		CHECK_EQ(c.seen, 1);    /* the first read only */
	else
		CHECK_EQ(c.page[0], 2);         /* the first write only */
	CHECK_EQ(munmap(stack, CHILD_STACK), 0);
	munmap((void *)c.page, 4096);
}

static int unmap_page(void *page)
{
	return munmap(page, 4096);
}

static int protect_page(void *page)
{
	return mprotect(page, 4096, PROT_READ);
}

static void t_smp_shared_mm_munmap(void)
{
	shared_mm_case(0, unmap_page);
}

static void t_smp_shared_mm_mprotect(void)
{
	shared_mm_case(1, protect_page);
}

const struct utest ut_smp_tests[] = {
	{ "smp_processes_meet", t_smp_processes_meet },
	{ "smp_shared_counter_exact", t_smp_shared_counter_exact },
	{ "smp_fault_fork_storm", t_smp_fault_fork_storm },
	{ "smp_shared_mm_munmap", t_smp_shared_mm_munmap },
	{ "smp_shared_mm_mprotect", t_smp_shared_mm_mprotect },
	{ NULL, NULL },
};
