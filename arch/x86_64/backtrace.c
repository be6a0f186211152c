/*
 * Frame-pointer backtraces (the kernel is built with -fno-omit-frame-pointer;
 * the boot code starts the chain with rbp = 0). Each frame is checked to be
 * mapped before it is read, so a corrupt chain ends the trace, not the kernel.
 */
#include "x86.h"
#include "x86_mmu.h"
#include "arch.h"
#include "printk.h"
#include "ksyms.h"
#include "kernel.h"
#include "task.h"

#define BACKTRACE_MAX 32

static bool frame_readable(uint64_t addr)
{
	uint64_t pte, eff;
	int level;

	if (addr < 0xffff800000000000UL || !IS_ALIGNED(addr, 8))
		return false;
	return x86_pt_walk(read_cr3(), addr, &pte, &level, &eff) == 0 &&
	       x86_pt_walk(read_cr3(), addr + 15, &pte, &level, &eff) == 0;
}

static void print_addr(const char *prefix, uint64_t addr, bool is_return)
{
	uintptr_t off = 0, size = 0;
	/* a return address may be just past the end of a noreturn call's function */
	const char *name = ksyms_lookup(addr - (is_return ? 1 : 0), &off, &size);

	if (name)
		printk("%s [<%016llx>] %s+0x%lx/0x%lx\n", prefix, (unsigned long long)addr, name,
		       (unsigned long)(off + (is_return ? 1 : 0)), (unsigned long)size);
	else
		printk("%s [<%016llx>] ?\n", prefix, (unsigned long long)addr);
}

static void x86_backtrace_prefixed(const char *prefix, uint64_t rip, uint64_t rbp)
{
	printk("%sCall Trace:\n", prefix);
	if (rip)
		print_addr(prefix, rip, false);
	for (int depth = 0; rbp && depth < BACKTRACE_MAX; depth++) {
		const uint64_t *frame = (const uint64_t *)rbp;

		if (!frame_readable(rbp)) {
			printk("%s <bad frame pointer %016llx>\n", prefix, (unsigned long long)rbp);
			return;
		}
		if (!frame[1])
			return;
		print_addr(prefix, frame[1], true);
		if (frame[0] && frame[0] <= rbp) {
			printk("%s <frame pointer going backwards>\n", prefix);
			return;
		}
		rbp = frame[0];
	}
}

/* x86_backtrace_from: print rip (if non-zero), then the return addresses of the rbp chain. */
void x86_backtrace_from(uint64_t rip, uint64_t rbp)
{
	x86_backtrace_prefixed("", rip, rbp);
}

/*
 * Append to buf[n..max) the return addresses of the frame-pointer chain
 * from rbp, while the frames lie in [lo, hi) and go up; each page of
 * frames is checked to be mapped once. Returns the new count.
 */
static unsigned walk_chain(uint64_t rbp, uint64_t lo, uint64_t hi, uintptr_t *buf, unsigned n, unsigned max)
{
	uint64_t page = 0;

	while (n < max && rbp >= lo && rbp + 16 <= hi && IS_ALIGNED(rbp, 8)) {
		const uint64_t *frame = (const uint64_t *)rbp;

		if (ALIGN_DOWN(rbp + 15, PAGE_SIZE) != page) {
			if (!frame_readable(rbp))
				break;
			page = ALIGN_DOWN(rbp + 15, PAGE_SIZE);
		}
		if (!frame[1])
			break;
		buf[n++] = frame[1];
		if (frame[0] <= rbp)
			break;
		rbp = frame[0];
	}
	return n;
}

/*
 * arch_stack_trace: the return addresses of the caller's frame-pointer
 * chain. Cheap enough for every lock acquisition (lib/lockdep.c): a frame is
 * read only while it lies above the previous one and within 16 KiB of the
 * first (one kernel stack), and its page is checked once.
 */
__attribute__((noinline)) unsigned arch_stack_trace(uintptr_t *buf, unsigned max)
{
	uint64_t rbp = (uint64_t)__builtin_frame_address(0);

	return rbp ? walk_chain(rbp, rbp, rbp + 16384, buf, 0, max) : 0;
}

/*
 * arch_task_stack_trace: the return addresses of a switched-out task's
 * kernel stack. x86_switch left [r15 r14 r13 r12 rbx rbp ret] at its saved
 * stack pointer: ret is where it will resume (in arch_switch_to), rbp that
 * function's frame; the chain is followed while it stays inside the task's
 * kernel stack and goes up. sched_lock held, so the task cannot run.
 */
unsigned arch_task_stack_trace(const struct task *t, uintptr_t *buf, unsigned max)
{
	uint64_t lo = (uint64_t)t->kstack, hi = lo + KSTACK_SIZE;
	const uint64_t *saved = (const uint64_t *)t->arch.ksp;

	if (!t->kstack || t->arch.ksp < lo || t->arch.ksp + 7 * 8 > hi || max == 0)
		return 0;
	buf[0] = saved[6];
	return walk_chain(saved[5], lo, hi, buf, 1, max);
}

void arch_print_stack(const uintptr_t *buf, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		print_addr("", buf[i], true);
	if (!n)
		printk(" (no frames)\n");
}

__attribute__((noinline)) void arch_backtrace(void)
{
	x86_backtrace_from(0, (uint64_t)__builtin_frame_address(0));
}

void x86_print_interrupted(const char *prefix, const struct trap_frame *tf)
{
	if ((tf->cs & 3) == 0)
		x86_backtrace_prefixed(prefix, tf->rip, tf->rbp);
	else
		printk("%s in user mode at %#llx\n", prefix, (unsigned long long)tf->rip);
}
