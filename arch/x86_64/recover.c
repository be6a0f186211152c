/*
 * Test-only fault recovery (arch_fault_catch in arch/x86_64/include/x86.h). A test arms
 * a jump buffer for the running task (arch_switch_to saves and restores it
 * with the task, so a sleep in a case moves it along); an exception in
 * kernel mode while it is armed is reported in one line, recorded, and
 * resumed at the saved context through x86_fault_resume (entry.asm), so the
 * test sees arch_fault_catch return 1. A panic on another CPU (a worker
 * thread of the case) is not caught: it stops the kernel.
 * A panic while it is armed resumes there too (arch_panic_recover). Catches
 * nest: the innermost armed one takes the fault, and the outer one is armed
 * again when it returns (the ktest runner wraps every kernel case in one,
 * kernel/ktest_catch.c, and some cases arm their own inside).
 * Outside arch_fault_catch every exception is fatal.
 */
#include "x86.h"
#include "printk.h"
#include "ksyms.h"
#include "arch.h"

struct fault_catch {
	uint64_t jb[8];
	struct arch_fault_info *info;
	struct fault_catch *outer;    /* the catch armed when this one was (nesting) */
};

int x86_setjmp(uint64_t jb[8]) __attribute__((returns_twice));
__attribute__((noreturn)) void x86_longjmp(uint64_t jb[8], int val);
extern const char x86_fault_resume[];

int arch_fault_catch(void (*fn)(void *), void *arg, struct arch_fault_info *info)
{
	struct fault_catch fc;
	struct percpu *cpu = this_cpu();
	bool irqs = arch_irqs_enabled();

	fc.info = info;
	fc.outer = cpu->fault_catch;
	info->vector = ~0u;
	info->violation = NULL;
	if (x86_setjmp(fc.jb)) {
		this_cpu()->fault_catch = fc.outer;
		if (irqs)
			sti();          /* a panic, or a fault with interrupts off, left them off */
		return 1;
	}
	cpu->fault_catch = &fc;
	fn(arg);
	cpu->fault_catch = fc.outer;
	return 0;
}

bool arch_fault_catch_armed(void)
{
	return this_cpu()->fault_catch != NULL;
}

void arch_panic_recover(void)
{
	struct fault_catch *fc = this_cpu()->fault_catch;

	if (!fc)
		return;
	fc->info->vector = ARCH_FAULT_PANIC;
	fc->info->rip = 0;
	x86_longjmp(fc->jb, 1);
}

int fault_recover(struct trap_frame *tf)
{
	struct fault_catch *fc = this_cpu()->fault_catch;
	uintptr_t off = 0;
	const char *sym;

	if (!fc || (tf->cs & 3) || tf->vector == VEC_NMI || tf->vector == VEC_DF)
		return 0;
	fc->info->vector = tf->vector;
	fc->info->error = tf->error;
	fc->info->cr2 = read_cr2();
	fc->info->rip = tf->rip;
	fc->info->violation = x86_fault_violation(tf, fc->info->cr2);
	sym = ksyms_lookup(tf->rip, &off, NULL);
	if (fc->info->violation) {
		printk("# x86: caught %s: kernel access to user address 0x%llx at %016llx %s+0x%lx\n",
		       fc->info->violation, (unsigned long long)fc->info->cr2,
		       (unsigned long long)tf->rip, sym ? sym : "?", (unsigned long)off);
		x86_backtrace_from(tf->rip, tf->rbp);
	} else if (tf->vector == VEC_PF)
		printk("# x86: caught page fault, error 0x%llx cr2 0x%llx at %016llx %s+0x%lx\n",
		       (unsigned long long)tf->error, (unsigned long long)fc->info->cr2,
		       (unsigned long long)tf->rip, sym ? sym : "?", (unsigned long)off);
	else
		printk("# x86: caught exception %u (%s), error 0x%llx at %016llx %s+0x%lx\n",
		       (unsigned)tf->vector, x86_exception_name(tf->vector),
		       (unsigned long long)tf->error, (unsigned long long)tf->rip, sym ? sym : "?",
		       (unsigned long)off);
	this_cpu()->fault_catch = NULL;
	tf->rdi = (uint64_t)fc->jb;
	tf->rip = (uint64_t)x86_fault_resume;
	return 1;
}
