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

/*
 * Zero the 4 KiB page at va / copy the 4 KiB page at src to dst (page
 * aligned kernel addresses), with the fastest routine the CPU offers
 * (x86: chosen by CPU features, as Linux's clear_page and copy_page).
 */
void arch_clear_page(void *va);
void arch_copy_page(void *dst, const void *src);

/* A monotonic cycle counter (rdtsc in the kernel, clock_gettime ns in hosted builds). */
uint64_t arch_cycles(void);

/* Stop everything and report failure (QEMU exits non-zero; hosted: abort()). */
__attribute__((noreturn)) void arch_halt_failure(void);

/* Print a backtrace of the caller's stack to the console. */
void arch_backtrace(void);

#define NR_CPUS 16

#endif
