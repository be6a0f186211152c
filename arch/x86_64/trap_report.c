/* The exception report: vector name, error code, CR2, registers, backtrace. */
#include "x86.h"
#include "printk.h"
#include "ksyms.h"
#include "arch.h"

static const char *const exc_names[32] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow", "bound range",
	"invalid opcode", "device not available", "double fault",
	"coprocessor segment overrun", "invalid TSS", "segment not present",
	"stack-segment fault", "general protection fault", "page fault", "reserved",
	"x87 floating-point", "alignment check", "machine check", "SIMD floating-point",
	"virtualization", "control protection", "reserved", "reserved", "reserved",
	"reserved", "reserved", "reserved", "hypervisor injection", "VMM communication",
	"security", "reserved",
};

/* x86_exception_name: a human name for exception vector v (< 32), else "interrupt". */
const char *x86_exception_name(unsigned v)
{
	return v < 32 ? exc_names[v] : "interrupt";
}

/* trap_report: print everything known about the trap in tf. */
void trap_report(const struct trap_frame *tf)
{
	unsigned v = tf->vector;
	uintptr_t off = 0;
	const char *sym = ksyms_lookup(tf->rip, &off, NULL);

	printk("x86: EXCEPTION %u (%s) error 0x%llx cr2 0x%016llx cpu %u\n", v,
	       x86_exception_name(v), (unsigned long long)tf->error,
	       (unsigned long long)read_cr2(), arch_cpu_id());
	if (v == VEC_PF)
		printk("x86: page fault: %s %s in %s mode%s\n",
		       (tf->error & PF_P) ? "protection violation on" : "not-present page on",
		       (tf->error & PF_I) ? "instruction fetch" : (tf->error & PF_W) ? "write" : "read",
		       (tf->error & PF_U) ? "user" : "kernel",
		       (tf->error & PF_RSVD) ? " (reserved bit set)" : "");
	if (x86_fault_violation(tf, read_cr2()))
		printk("x86: %s: kernel access to user address 0x%016llx outside the copy helpers\n",
		       x86_fault_violation(tf, read_cr2()), (unsigned long long)read_cr2());
	printk("RIP: %04llx:%016llx %s+0x%lx\n", (unsigned long long)tf->cs,
	       (unsigned long long)tf->rip, sym ? sym : "?", (unsigned long)off);
	printk("RSP: %04llx:%016llx RFLAGS: %08llx\n", (unsigned long long)tf->ss,
	       (unsigned long long)tf->rsp, (unsigned long long)tf->rflags);
	printk("RAX: %016llx RBX: %016llx RCX: %016llx\n", (unsigned long long)tf->rax,
	       (unsigned long long)tf->rbx, (unsigned long long)tf->rcx);
	printk("RDX: %016llx RSI: %016llx RDI: %016llx\n", (unsigned long long)tf->rdx,
	       (unsigned long long)tf->rsi, (unsigned long long)tf->rdi);
	printk("RBP: %016llx R08: %016llx R09: %016llx\n", (unsigned long long)tf->rbp,
	       (unsigned long long)tf->r8, (unsigned long long)tf->r9);
	printk("R10: %016llx R11: %016llx R12: %016llx\n", (unsigned long long)tf->r10,
	       (unsigned long long)tf->r11, (unsigned long long)tf->r12);
	printk("R13: %016llx R14: %016llx R15: %016llx\n", (unsigned long long)tf->r13,
	       (unsigned long long)tf->r14, (unsigned long long)tf->r15);
	printk("CR0: %016llx CR3: %016llx CR4: %016llx\n", (unsigned long long)read_cr0(),
	       (unsigned long long)read_cr3(), (unsigned long long)read_cr4());
	if (tf->cs & 3)
		return;                 /* user mode: no kernel backtrace */
	x86_backtrace_from(tf->rip, tf->rbp);
}
