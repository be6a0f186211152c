/*
 * Inter-processor interrupts through the local APIC's interrupt command
 * register (physical destination mode; lapic_send_icr writes it in xAPIC
 * or x2APIC mode): fixed IPIs with a vector (reschedule, TLB shootdown,
 * backtrace), and the INIT and STARTUP IPIs that start an application
 * processor. A panic's NMIs are panic_stop.c's.
 */
#include "x86.h"
#include "arch.h"
#include "printk.h"
#include "kstring.h"

#define ICR_LEVEL_ASSERT     (1u << 14)
#define ICR_FIXED            (0u << 8)
#define ICR_INIT             (5u << 8)
#define ICR_STARTUP          (6u << 8)

void lapic_send_ipi(uint32_t apic_id, unsigned vector)
{
	lapic_send_icr(apic_id, ICR_FIXED | (vector & 0xff));
}

void lapic_send_init(uint32_t apic_id)
{
	lapic_send_icr(apic_id, ICR_INIT | ICR_LEVEL_ASSERT);
}

void lapic_send_startup(uint32_t apic_id, unsigned page)
{
	lapic_send_icr(apic_id, ICR_STARTUP | (page & 0xff));
}

/* arch_send_reschedule: wake CPU cpu (idle in hlt) to look at its run queue. */
void arch_send_reschedule(unsigned cpu)
{
	if (cpu != arch_cpu_id() && (arch_cpu_online_mask() & (1UL << cpu)))
		lapic_send_ipi(cpu_apic_id[cpu], VEC_RESCHED);
}

unsigned long ipi_resched_received[NR_CPUS];

/* The interrupt itself is the message: the idle loop or exit_to_user looks at the run queue. */
static void resched_interrupt(struct trap_frame *tf)
{
	ipi_resched_received[arch_cpu_id()]++;
	lapic_eoi();
}

/*
 * Print where the interrupted code was: its kernel call trace, or the user
 * address it ran at. Each line names the CPU: the other CPUs print theirs
 * at the same moment.
 */
static void backtrace_interrupt(struct trap_frame *tf)
{
	char prefix[16];

	ksnprintf(prefix, sizeof(prefix), "CPU %u: ", arch_cpu_id());
	x86_print_interrupted(prefix, tf);
	lapic_eoi();
}

void arch_backtrace_other_cpus(void)
{
	unsigned me = arch_cpu_id(), cpu;

	for_each_cpu(cpu, arch_cpu_online_mask() & ~(1UL << me))
		lapic_send_ipi(cpu_apic_id[cpu], VEC_BACKTRACE);
}

void ipi_init(void)
{
	irq_register(VEC_RESCHED, resched_interrupt);
	irq_register(VEC_BACKTRACE, backtrace_interrupt);
}
