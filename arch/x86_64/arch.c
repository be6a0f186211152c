/* The include/arch.h interface for x86-64. */
#include "arch.h"
#include "x86.h"
#include "fbcon.h"
#include "spinlock.h"

/* One writer at a time, so that the screen and the serial port show the same bytes in the same order. */
static struct spinlock console_dev_lock = SPINLOCK_INIT_CLASS("console_dev", LOCK_CLASS_CONSOLE_DEV);

/* The framebuffer first: once a line is on the serial port, it is on the screen too (tools/test-fbcon). */
void arch_console_write(const char *s, size_t len)
{
	unsigned long flags = spin_lock_irqsave(&console_dev_lock);

	fbcon_write(s, len);
	for (size_t i = 0; i < len; i++)
		uart_putc(s[i]);
	spin_unlock_irqrestore(&console_dev_lock, flags);
}

_Static_assert(ARCH_DIRECT_MAP_BASE == DIRECT_MAP_BASE, "phys_to_virt (include/arch.h) uses ARCH_DIRECT_MAP_BASE");

/* virt_to_phys: works for direct-map addresses and for the kernel image. */
phys_addr_t virt_to_phys(const void *va)
{
	uintptr_t v = (uintptr_t)va;

	if (v >= KERNEL_VMA)
		return v - KERNEL_VMA;
	return v - DIRECT_MAP_BASE;
}

_Static_assert(RFLAGS_IF == 0x200, "arch_irq_save (include/arch.h) keeps 0x200");

bool arch_irqs_enabled(void)
{
	return read_rflags() & RFLAGS_IF;
}

void arch_cpu_relax(void)
{
	__asm__ volatile("pause" : : : "memory");
}

void arch_idle_wait(void)
{
	__asm__ volatile("sti; hlt" : : : "memory");
}

_Static_assert(__builtin_offsetof(struct percpu, cpu_id) == 8, "arch_cpu_id (include/arch.h) reads %gs:8");

uint64_t arch_cycles(void)
{
	return rdtsc();
}

uint64_t arch_cycles_khz(void)
{
	return tsc_khz;
}

void arch_halt_failure(void)
{
	qemu_exit(QEMU_EXIT_PANIC);
}
