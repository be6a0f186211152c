/* The include/arch.h interface for x86-64. */
#include "arch.h"
#include "x86.h"


void arch_console_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		uart_putc(s[i]);
}

void *phys_to_virt(phys_addr_t pa)
{
	return (void *)(DIRECT_MAP_BASE + pa);
}

/* virt_to_phys: works for direct-map addresses and for the kernel image. */
phys_addr_t virt_to_phys(const void *va)
{
	uintptr_t v = (uintptr_t)va;

	if (v >= KERNEL_VMA)
		return v - KERNEL_VMA;
	return v - DIRECT_MAP_BASE;
}

unsigned long arch_irq_save(void)
{
	unsigned long flags = read_rflags();

	cli();
	return flags & RFLAGS_IF;
}

void arch_irq_restore(unsigned long flags)
{
	if (flags & RFLAGS_IF)
		sti();
}

bool arch_irqs_enabled(void)
{
	return read_rflags() & RFLAGS_IF;
}

void arch_cpu_relax(void)
{
	__asm__ volatile("pause" : : : "memory");
}

unsigned arch_cpu_id(void)
{
	unsigned id;

	__asm__ volatile("movl %%gs:8, %0" : "=r"(id));
	return id;
}

uint64_t arch_cycles(void)
{
	return rdtsc();
}

void arch_halt_failure(void)
{
	qemu_exit(QEMU_EXIT_PANIC);
}
