/* panic(): report and stop the kernel with a failure exit (include/kernel.h). */
#include "kernel.h"
#include "lockless.h"
#include "printk.h"
#include "arch.h"

void panic(const char *fmt, ...)
{
	static int panicking;
	va_list ap;

	arch_irq_save();
	if (!READ_ONCE(panicking) && arch_fault_catch_armed()) {     /* vs. a panic on another CPU */
		/* In a test case (kernel/ktest_catch.c): the case fails, the run goes on. */
		printk("panic in a test case: ");
		va_start(ap, fmt);
		vprintk(fmt, ap);
		va_end(ap);
		printk("\n");
		arch_backtrace();
		arch_panic_recover();
	}
	printk_set_line_prefix(NULL);           /* a panic is never a test diagnostic */
	if (__atomic_fetch_add(&panicking, 1, __ATOMIC_SEQ_CST)) {
		printk("\nnested panic; stopping\n");
		arch_halt_failure();
	}
	arch_stop_other_cpus();
	printk("\nKERNEL PANIC: ");
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	printk("\n");
	arch_backtrace();
	printk("KERNEL PANIC: stopping the kernel\n");
	arch_halt_failure();
}
