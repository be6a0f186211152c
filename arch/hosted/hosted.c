/*
 * The arch interface for a normal Linux process, so that mm/ and the shared
 * tests run on the host under ASan/UBSan. "Physical memory" is one big
 * allocation: physical address pa lives at hosted_ram + pa.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <execinfo.h>

#include "arch.h"
#include "lockless.h"
#include "hosted.h"
#include "lockdep.h"
#include "printk.h"
#include "sleep.h"
#include <sched.h>

static unsigned char *hosted_ram;     /* physical address 0 lives here */
static size_t hosted_ram_size;

void hosted_ram_init(size_t bytes)
{
	/* 4 MiB alignment so buddy blocks of the top order are naturally aligned in memory too. */
	hosted_ram = aligned_alloc(4UL << 20, bytes);
	if (!hosted_ram) {
		perror("hosted_ram_init");
		exit(2);
	}
	memset(hosted_ram, 0xa5, bytes);
	hosted_ram_size = bytes;
}

void arch_console_write(const char *s, size_t len)
{
	fwrite(s, 1, len, stdout);
	fflush(stdout);
}

void *phys_to_virt(phys_addr_t pa)
{
	if (pa > hosted_ram_size) {
		fprintf(stderr, "phys_to_virt: 0x%llx outside hosted RAM\n", (unsigned long long)pa);
		abort();
	}
	return hosted_ram + pa;
}

phys_addr_t virt_to_phys(const void *va)
{
	const unsigned char *p = va;
	if (p < hosted_ram || p > hosted_ram + hosted_ram_size) {
		fprintf(stderr, "virt_to_phys: %p outside hosted RAM\n", va);
		abort();
	}
	return (phys_addr_t)(p - hosted_ram);
}

void arch_clear_page(void *va) { memset(va, 0, PAGE_SIZE); }
void arch_copy_page(void *dst, const void *src) { memcpy(dst, src, PAGE_SIZE); }

/* Interrupts do not exist here; the state is tracked only so assertions can read it. */
static __thread bool irqs_on = true;

unsigned long arch_irq_save(void)
{
	unsigned long was = irqs_on;
	irqs_on = false;
	return was;
}

void arch_irq_restore(unsigned long flags) { irqs_on = flags != 0; }
bool arch_irqs_enabled(void) { return irqs_on; }
void (*hosted_relax_hook)(void);

void arch_cpu_relax(void)
{
	if (hosted_relax_hook)
		hosted_relax_hook();
	__builtin_ia32_pause();
}

/* Each host thread plays one CPU, numbered in order of first use. */
static unsigned next_cpu;
static __thread int my_cpu = -1;

unsigned arch_cpu_id(void)
{
	if (my_cpu < 0)
		my_cpu = (int)(__atomic_fetch_add(&next_cpu, 1, __ATOMIC_RELAXED) % NR_CPUS);
	return (unsigned)my_cpu;
}

/* The CPUs threads have played so far (all of them once NR_CPUS threads have). */
unsigned long arch_cpu_online_mask(void)
{
	unsigned n = READ_ONCE(next_cpu);     /* [atomic] raced by threads first calling arch_cpu_id */

	return n >= NR_CPUS ? ~0UL : (1UL << n) - 1;
}

uint64_t arch_cycles(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* arch_cycles counts nanoseconds: a million per millisecond. */
uint64_t arch_cycles_khz(void)
{
	return 1000000;
}

void arch_backtrace(void)
{
	void *frames[32];
	int n = backtrace(frames, 32);
	backtrace_symbols_fd(frames, n, STDOUT_FILENO);
}

/* Sleeping (include/sleep.h): each host thread plays one task, which yields while it waits. */
static __thread char thread_task;

struct task *current_task(void)
{
	return (struct task *)&thread_task;
}

/* No signals on the host: nothing is ever killed. */
bool current_fatal_signal(void)
{
	return false;
}

/* No scheduler ticks on the host: nothing to give way to. */
void cond_resched(void)
{
}

void sched_wait_flag(int *flag)
{
	while (!smp_load_acquire(flag))
		sched_yield();
}

void sched_wake_flag(struct task *t, int *flag)
{
	smp_store_release(flag, 1);
}

/* Host threads take turns by yielding: a lock holder is never watched running (no rwsem spinning). */
bool sched_task_running(const struct task *t)
{
	return false;
}

/* Lock-order records: each host thread plays one CPU and one task. */
static __thread struct lockdep_held thread_cpu_held, thread_task_held;

struct lockdep_held *lockdep_cpu_held(void)
{
	return &thread_cpu_held;
}

struct lockdep_held *lockdep_task_held(void)
{
	return &thread_task_held;
}

/*
 * The frame-pointer chain (the host build keeps frame pointers), while each
 * frame lies above the previous one and within 64 KiB of the first: cheap
 * enough for every lock acquisition, unlike backtrace().
 */
__attribute__((noinline, no_sanitize_address)) unsigned arch_stack_trace(uintptr_t *buf, unsigned max)
{
	uintptr_t *fp = __builtin_frame_address(0), *base = fp;
	unsigned n = 0;

	while (n < max && fp && ((uintptr_t)fp & 7) == 0 && (uintptr_t)fp - (uintptr_t)base < 65536) {
		if (!fp[1])
			break;
		buf[n++] = fp[1];
		if ((uintptr_t *)fp[0] <= fp)
			break;
		fp = (uintptr_t *)fp[0];
	}
	return n;
}

/* Through printk, so that the lines get the console's prefix (KTAP diagnostics in tests). */
void arch_print_stack(const uintptr_t *buf, unsigned n)
{
	char **names = backtrace_symbols((void *const *)buf, (int)n);

	for (unsigned i = 0; i < n; i++)
		printk(" %s\n", names ? names[i] : "?");
	free(names);
}

void arch_halt_failure(void)
{
	fflush(stdout);
	abort();
}

void panic(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stdout, "PANIC: ");
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fprintf(stdout, "\n");
	arch_backtrace();
	arch_halt_failure();
}
