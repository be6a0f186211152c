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

/* Translate between physical addresses and their direct-map virtual addresses. */
void *phys_to_virt(phys_addr_t pa);
phys_addr_t virt_to_phys(const void *va);

/* Interrupt state: arch_irq_save() disables and returns the previous state. */
unsigned long arch_irq_save(void);
void arch_irq_restore(unsigned long flags);
bool arch_irqs_enabled(void);

/* Hint inside spin loops. */
void arch_cpu_relax(void);

/* The running CPU's index (0 .. NR_CPUS-1). */
unsigned arch_cpu_id(void);

/* A monotonic cycle counter (rdtsc in the kernel, clock_gettime ns in hosted builds). */
uint64_t arch_cycles(void);

/* Stop everything and report failure (QEMU exits non-zero; hosted: abort()). */
__attribute__((noreturn)) void arch_halt_failure(void);

/* Print a backtrace of the caller's stack to the console. */
void arch_backtrace(void);

#define NR_CPUS 16

/* CPUs that are up (bit n: CPU n), and how many; CPU 0 boots first. Hosted: one CPU per thread. */
unsigned long arch_cpu_online_mask(void);
unsigned arch_nr_cpus(void);
/* arch_send_reschedule: make CPU cpu look at its run queue soon (an IPI; nothing for the running CPU). */
void arch_send_reschedule(unsigned cpu);
/* arch_stop_other_cpus: halt every other CPU (panic), best effort. */
void arch_stop_other_cpus(void);

#endif
