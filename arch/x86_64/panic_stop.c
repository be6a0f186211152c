/*
 * Stopping the other CPUs at a panic or a fatal kernel exception, each
 * saying where it was. A kernel bug that another CPU's work caused (a
 * freed object still in use, a lock left held) is found from what that
 * CPU was doing, which the panicking CPU's own trap frame does not show.
 *
 * Each other CPU gets an NMI, which arrives with interrupts off too (a
 * CPU spinning on a lock with them off still answers), prints its task
 * and the system call or exception that entered the kernel, with its
 * kernel call trace, and halts. The panicking CPU waits for their reports
 * for at most STOP_REPORT_WAIT_NS (by the clock, not a spin count: a CPU
 * that cannot answer, already halted or wedged in a double fault, costs
 * only that), then takes the console even from a CPU that the NMI caught
 * inside printk (printk_bust_lock), and reports itself.
 */
#include "x86.h"
#include "arch.h"
#include "printk.h"
#include "kstring.h"
#include "lockless.h"
#include "task.h"
#include "ktimer.h"

#define ICR_NMI              (4u << 8)
#define STOP_REPORT_WAIT_NS  (2 * 1000 * 1000 * 1000ULL)

static int stop_requested;              /* [atomic] a panicking CPU sent the NMIs */
static unsigned stopped_cpus;           /* [atomic] how many have reported and halted */

/* The running task, and what brought it into the kernel: a system call (its number) or an exception. */
static void task_line(const char *prefix)
{
	struct task *t = current;

	if (!t) {
		printk("%sno task\n", prefix);
	} else if (t->tf && t->tf->vector == VEC_SYSCALL) {
		printk("%spid %d tid %d (%s), system call %llu\n", prefix, t->pid, t->tid, t->comm,
		       (unsigned long long)t->tf->rax);
	} else if (t->tf) {
		printk("%spid %d tid %d (%s), entered by vector %llu at user %#llx\n", prefix, t->pid, t->tid,
		       t->comm, (unsigned long long)t->tf->vector, (unsigned long long)t->tf->rip);
	} else {
		printk("%spid %d tid %d (%s), a kernel thread\n", prefix, t->pid, t->tid, t->comm);
	}
}

/* One CPU's report: its task and where the CPU was. */
static void stop_report(const struct trap_frame *tf)
{
	char prefix[16];

	ksnprintf(prefix, sizeof(prefix), "CPU %u: ", arch_cpu_id());
	task_line(prefix);
	x86_print_interrupted(prefix, tf);
}

bool nmi_stop_handler(const struct trap_frame *tf)
{
	if (!READ_ONCE(stop_requested))
		return false;
	if (!printk_held_here())        /* else printk would wait for this CPU itself */
		stop_report(tf);
	__atomic_add_fetch(&stopped_cpus, 1, __ATOMIC_RELEASE);
	for (;;) {
		cli();
		hlt();
	}
}

void arch_stop_other_cpus(void)
{
	unsigned me = arch_cpu_id(), cpu, sent = 0;
	uint64_t t0 = monotonic_ns();
	char prefix[16];

	if (__atomic_exchange_n(&stop_requested, 1, __ATOMIC_ACQ_REL))
		return;                 /* another CPU is stopping everyone (this one included) */
	printk("\nCPU %u stops the other CPUs; where each was:\n", me);
	for_each_cpu(cpu, arch_cpu_online_mask() & ~(1UL << me)) {
		lapic_send_icr(cpu_apic_id[cpu], ICR_NMI);
		sent++;
	}
	while (smp_load_acquire(&stopped_cpus) < sent && monotonic_ns() - t0 < STOP_REPORT_WAIT_NS)
		arch_cpu_relax();
	if (smp_load_acquire(&stopped_cpus) < sent)
		printk_bust_lock();
	printk("CPU %u: %u of %u other CPUs reported; this one ran:\n", me, smp_load_acquire(&stopped_cpus), sent);
	ksnprintf(prefix, sizeof(prefix), "CPU %u: ", me);
	task_line(prefix);
}
