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
#include "hosted.h"

unsigned char *hosted_ram;
size_t hosted_ram_size;

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
void arch_cpu_relax(void) { __builtin_ia32_pause(); }

/* Each host thread plays one CPU, numbered in order of first use. */
static unsigned next_cpu;
static __thread int my_cpu = -1;

unsigned arch_cpu_id(void)
{
	if (my_cpu < 0)
		my_cpu = (int)(__atomic_fetch_add(&next_cpu, 1, __ATOMIC_RELAXED) % NR_CPUS);
	return (unsigned)my_cpu;
}

uint64_t arch_cycles(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void arch_backtrace(void)
{
	void *frames[32];
	int n = backtrace(frames, 32);
	backtrace_symbols_fd(frames, n, STDOUT_FILENO);
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
