/*
 * The architecture interface that mm/, kernel/ and tests/ use. Implemented by
 * arch/x86_64 (the real kernel) and arch/hosted (a normal Linux process, for
 * host tests). Nothing outside arch/ sees a PTE bit or a port number.
 */
#ifndef ARCH_H
#define ARCH_H

#include "types.h"

/* Write len bytes to the console (serial port / stdout). Callable with interrupts off. */
void arch_console_write(const char *s, size_t len);

/*
 * The programs' console streams (include/console.h: 0 stdin, 1 stdout, 2
 * stderr), non-blocking; fs/console_file.c sleeps and retries.
 * arch_stream_present: the stream has its own channel (else stdout and
 * stderr go to arch_console_write and stdin is at its end).
 * arch_stream_write: take up to n bytes; returns how many (0: busy).
 * arch_stream_writable: the stream can take bytes now.
 * arch_stream_read: up to n bytes of stdin that have arrived; 0 when none.
 * arch_stream_readable: bytes are waiting, or stdin has ended.
 * arch_stream_ended: no byte is waiting and none will come (read gives 0).
 * arch_stream_poll: move data along (called from the timer tick); true when
 * something changed that a sleeper may wait for.
 */
bool arch_stream_present(unsigned stream);
size_t arch_stream_write(unsigned stream, const char *buf, size_t n);
bool arch_stream_writable(unsigned stream);
size_t arch_stream_read(char *buf, size_t n);
bool arch_stream_readable(void);
bool arch_stream_ended(void);
bool arch_stream_poll(void);
/* arch_streams_init: find the stream channels (before init starts). arch_streams_drained: all output left. */
void arch_streams_init(void);
bool arch_streams_drained(void);

/* Translate between physical addresses and their direct-map virtual addresses. */
#if defined(KERNEL) && !defined(HOSTED)
/* x86-64: the direct map's base (DIRECT_MAP_BASE in arch/x86_64/include/x86.h; arch.c checks they agree). */
#define ARCH_DIRECT_MAP_BASE 0xffff888000000000UL
static inline void *phys_to_virt(phys_addr_t pa)
{
	return (void *)(ARCH_DIRECT_MAP_BASE + pa);
}
#else
void *phys_to_virt(phys_addr_t pa);
#endif
phys_addr_t virt_to_phys(const void *va);

/*
 * Interrupt state of the running CPU: arch_irq_save() disables and returns
 * the previous state, arch_irq_restore() puts it back. arch_irq_disable /
 * arch_irq_enable turn interrupts off / on whatever they were (x86: cli /
 * sti), for code that knows the state it leaves: the scheduler's loops,
 * system-call entry, signal delivery.
 */
#if defined(KERNEL) && !defined(HOSTED)
/* x86-64, inline (every irqsave lock): RFLAGS.IF (0x200) is the state kept. */
static inline unsigned long arch_irq_save(void)
{
	unsigned long f;

	__asm__ volatile("pushfq; popq %0; cli" : "=r"(f) : : "memory");
	return f & 0x200;
}
static inline void arch_irq_restore(unsigned long flags)
{
	if (flags & 0x200)
		__asm__ volatile("sti" : : : "memory");
}
static inline void arch_irq_disable(void)
{
	__asm__ volatile("cli" : : : "memory");
}
static inline void arch_irq_enable(void)
{
	__asm__ volatile("sti" : : : "memory");
}
#else
/* (Host tests: arch_irq_save/restore only; the code that turns interrupts plainly off or on is the kernel's.) */
unsigned long arch_irq_save(void);
void arch_irq_restore(unsigned long flags);
#endif
bool arch_irqs_enabled(void);
/*
 * arch_kstack_alloc: a kernel stack of KSTACK_SIZE bytes (include/task.h),
 * its lowest address, with an unmapped guard below it so that an overflow
 * faults instead of overwriting memory (arch/x86_64/kstack.c); NULL when
 * out of memory. arch_kstack_free gives it back. Either may be called with
 * interrupts off; the allocation may wait for other CPUs when they are on.
 */
void *arch_kstack_alloc(void);
void arch_kstack_free(void *stack);

/* Hint inside spin loops. */
void arch_cpu_relax(void);

/*
 * arch_idle_wait: turn interrupts on and sleep until one arrives, as one
 * step: an interrupt already pending when the caller (interrupts off) last
 * looked for work, such as a wake-up IPI, ends the sleep instead of being
 * missed (x86: sti; hlt, hlt in sti's interrupt shadow). Returns with
 * interrupts on. The kernel only.
 */
void arch_idle_wait(void);

/* The running CPU's index (0 .. NR_CPUS-1). */
#if defined(KERNEL) && !defined(HOSTED)
/* x86-64: the cpu_id field of the CPU's own struct percpu, at %gs:8 (one load, inline: hot paths ask often). */
static inline unsigned arch_cpu_id(void)
{
	unsigned id;

	__asm__ volatile("movl %%gs:8, %0" : "=r"(id));
	return id;
}
#else
unsigned arch_cpu_id(void);
#endif

/*
 * Zero the 4 KiB page at va / copy the 4 KiB page at src to dst (page
 * aligned kernel addresses), with the fastest routine the CPU offers
 * (x86: chosen by CPU features, as Linux's clear_page and copy_page).
 */
void arch_clear_page(void *va);
void arch_copy_page(void *dst, const void *src);

/*
 * arch_cycles: a monotonic cycle counter (x86: the TSC, which QEMU starts at
 * 0 at reset; hosted: clock_gettime ns). arch_cycles_khz: its rate, counts
 * per millisecond; 0 until the kernel has calibrated it (timer setup).
 */
uint64_t arch_cycles(void);
uint64_t arch_cycles_khz(void);

/* Stop everything and report failure (QEMU exits non-zero; hosted: abort()). */
__attribute__((noreturn)) void arch_halt_failure(void);

/* Print a backtrace of the caller's stack to the console. */
void arch_backtrace(void);

/*
 * arch_task_stack_trace: up to max return addresses of task t's kernel
 * stack, t switched out (not running: sched_lock held), innermost first
 * (where it will resume); 0 when its saved stack pointer is not in its
 * kernel stack. Print them with arch_print_stack.
 */
struct task;
unsigned arch_task_stack_trace(const struct task *t, uintptr_t *buf, unsigned max);

/*
 * Panic recovery for tests (arch/x86_64/recover.c): arch_fault_catch_armed
 * says whether the running code is inside arch_fault_catch (a ktest case
 * in the kernel); arch_panic_recover then abandons the panicking code and
 * resumes there (it returns only when nothing is armed).
 */
bool arch_fault_catch_armed(void);
void arch_panic_recover(void);

/*
 * The most CPUs brought up (the rest are counted as ignored). At most the
 * bits of an unsigned long: the online mask, the TLB shootdown's target
 * sets and the affinity masks are one word, bit n for CPU n.
 */
#define NR_CPUS 64
_Static_assert(NR_CPUS <= 8 * sizeof(unsigned long), "CPU masks are one unsigned long");

/* CPUs that are up (bit n: CPU n), and how many; CPU 0 boots first. Hosted: one CPU per thread. */
unsigned long arch_cpu_online_mask(void);
/*
 * for_each_cpu(c, mask): c (an unsigned) over the set bits of mask, lowest
 * first; mask is read once. Loops over the CPUs go this way, over the
 * online mask, not over all NR_CPUS slots: the scheduler's walk at each
 * wake-up and idle check cost 64 iterations on a 4-CPU guest.
 */
#define for_each_cpu(c, mask) \
	for (unsigned long for_each_cpu_m_ = (mask); \
	     for_each_cpu_m_ && ((c) = (unsigned)__builtin_ctzl(for_each_cpu_m_), 1); \
	     for_each_cpu_m_ &= for_each_cpu_m_ - 1)
unsigned arch_nr_cpus(void);
/* What /proc/cpuinfo shows of the CPU (arch/x86_64/cpuinfo.c; the kernel only). */
struct cpu_identity {
	char vendor[13];
	char model_name[49];            /* the brand string, or empty */
	unsigned family, model, stepping, cpuid_level, clflush, phys_bits, virt_bits;
	char flags[512];                /* Linux's names of the features it has, space-separated */
};
void arch_cpu_identity(struct cpu_identity *id);
/* arch_send_reschedule: make CPU cpu look at its run queue soon (an IPI; nothing for the running CPU). */
void arch_send_reschedule(unsigned cpu);
/* arch_stop_other_cpus: halt every other CPU (panic), best effort. */
void arch_stop_other_cpus(void);
/*
 * arch_backtrace_other_cpus: every other CPU prints where it is (its
 * kernel call trace, or "in user mode"), without waiting for them: an
 * interrupt, so a CPU running with interrupts off says nothing. For a
 * hang report: a task looping in the kernel shows where.
 */
void arch_backtrace_other_cpus(void);

#endif
