/*
 * IDT and trap dispatch. Every vector enters through entry.asm. Exceptions
 * (0..31) from user mode go to user_page_fault or user_exception (traps.c:
 * page faults, signals); in kernel mode a fault inside a user copy is fixed up (traps.c),
 * else the test-only recovery path (recover.c) or a fatal report. Other
 * vectors go to the handler registered with irq_register(). Anything that
 * interrupted user mode leaves through exit_to_user (signals, preemption). Double fault and NMI run on their own IST stacks.
 * A kernel stack that runs into the guard below it (kstack.c) faults with
 * no room for the page fault's frame: the CPU raises a double fault, which
 * runs on its IST stack and reports a kernel stack overflow naming the task.
 * The page fault itself stays on the task's stack: it may sleep (a fault in
 * a user copy), which a per-CPU IST stack cannot allow.
 */
#include "x86.h"
#include "arch.h"
#include "printk.h"
#include "kernel.h"
#include "kernel_hooks.h"
#include "task.h"

void user_exception(struct trap_frame *tf);
void user_page_fault(struct trap_frame *tf);
int kernel_uaccess_fault(struct trap_frame *tf);

struct idt_entry {
	uint16_t off_lo;
	uint16_t sel;
	uint8_t ist;
	uint8_t type;
	uint16_t off_mid;
	uint32_t off_hi;
	uint32_t zero;
} __attribute__((packed));

static struct idt_entry idt[256] __attribute__((aligned(16)));
static irq_handler_t irq_handlers[256];
extern const uint64_t isr_stub_table[256];

static void idt_set(unsigned v, uint64_t fn, unsigned ist)
{
	idt[v].off_lo = fn & 0xffff;
	idt[v].sel = KERNEL_CS;
	idt[v].ist = ist;
	/* present, 64-bit interrupt gate; DPL 3 for int3 so that user code gets #BP (SIGTRAP), not #GP */
	idt[v].type = v == VEC_BP ? 0xEE : 0x8E;
	idt[v].off_mid = (fn >> 16) & 0xffff;
	idt[v].off_hi = fn >> 32;
	idt[v].zero = 0;
}

/* idt_load: load the (shared) IDT on the running CPU. Interrupts off. */
void idt_load(void)
{
	struct { uint16_t limit; uint64_t base; } __attribute__((packed)) p;

	p.limit = sizeof(idt) - 1;
	p.base = (uint64_t)idt;
	__asm__ volatile("lidt %0" : : "m"(p) : "memory");
}

/* idt_init: install all 256 vectors and load the IDT. Interrupts off. */
void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++)
		idt_set(v, isr_stub_table[v], v == VEC_DF ? 1 : v == VEC_NMI ? 2 : 0);
	idt_load();
}

/* irq_register: route vector (>= 32) to fn. Replaces any previous handler. */
void irq_register(unsigned vector, irq_handler_t fn)
{
	BUG_ON(vector < 32 || vector > 255);
	irq_handlers[vector] = fn;
}

/* The line naming a kernel stack overflow, when the fault (CR2) or rsp lies in a stack's guard. */
static void stack_overflow_report(const struct trap_frame *tf)
{
	uint64_t cr2 = read_cr2();
	struct task *t = current;

	if (tf->vector != VEC_DF && tf->vector != VEC_PF)
		return;
	if (!kstack_guard_hit(cr2) && !kstack_guard_hit(tf->rsp))
		return;
	printk("x86: kernel stack overflow in task %s[%d] on cpu %u: guard page hit at 0x%016llx, rsp 0x%016llx",
	       t ? t->comm : "?", t ? t->pid : -1, arch_cpu_id(), (unsigned long long)cr2,
	       (unsigned long long)tf->rsp);
	if (t && t->kstack)
		printk(", stack [0x%016llx-0x%016llx)", (unsigned long long)(uintptr_t)t->kstack,
		       (unsigned long long)(uintptr_t)t->kstack + KSTACK_SIZE);
	printk("\n");
}

static void exception_fatal(struct trap_frame *tf)
{
	static int in_fatal;            /* [atomic] a report is under way (this CPU or another) */

	cli();
	if (__atomic_exchange_n(&in_fatal, 1, __ATOMIC_RELAXED)) {
		printk("\nx86: exception %llu while reporting an exception; giving up\n",
		       (unsigned long long)tf->vector);
		qemu_exit(QEMU_EXIT_PANIC);
	}
	printk("\n");
	stack_overflow_report(tf);
	trap_report(tf);
	arch_stop_other_cpus();         /* each says where it was */
	printk("x86: unexpected exception, stopping the kernel\n");
	qemu_exit(QEMU_EXIT_PANIC);
}

void trap_dispatch(struct trap_frame *tf);

/* Every trap but a user page fault (trap_dispatch). */
static __noinline void trap_dispatch_other(struct trap_frame *tf)
{
	unsigned v = tf->vector;
	bool user = tf->cs & 3;
	irq_handler_t fn;

	if (v == VEC_NMI && nmi_stop_handler(tf))
		return;         /* (never: it halts) */
	if (v < 32) {
		if (user && v != VEC_NMI && v != VEC_DF && v != 18 /* #MC */) {
			user_exception(tf);
			exit_to_user(tf);
			return;
		}
		if ((v == VEC_PF || v == VEC_GP) && kernel_uaccess_fault(tf))
			return;
		if (fault_recover(tf))
			return;
		exception_fatal(tf);
	}
	fn = irq_handlers[v];
	if (fn) {
		this_cpu()->irq_depth++;
		fn(tf);
		this_cpu()->irq_depth--;
	} else if (v == VEC_SPURIOUS || (v >= VEC_PIC_BASE && v < VEC_PIC_BASE + 16)) {
		/* spurious LAPIC / masked 8259 interrupts need no EOI */
	} else {
		printk("x86: unexpected interrupt vector %u ignored\n", v);
		lapic_eoi();
	}
	if (user)
		exit_to_user(tf);
}

/* trap_dispatch: called by entry.asm with the saved frame, interrupts off. */
void trap_dispatch(struct trap_frame *tf)
{
	if (likely(tf->vector == VEC_PF && (tf->cs & 3))) {    /* the most common trap */
		user_page_fault(tf);
		exit_to_user(tf);
		return;
	}
	trap_dispatch_other(tf);
}
