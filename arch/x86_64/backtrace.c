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

static void print_addr(uint64_t addr, bool is_return)
{
	uintptr_t off = 0, size = 0;
	/* a return address may be just past the end of a noreturn call's function */
	const char *name = ksyms_lookup(addr - (is_return ? 1 : 0), &off, &size);

	if (name)
		printk(" [<%016llx>] %s+0x%lx/0x%lx\n", (unsigned long long)addr, name,
		       (unsigned long)(off + (is_return ? 1 : 0)), (unsigned long)size);
	else
		printk(" [<%016llx>] ?\n", (unsigned long long)addr);
}

/* x86_backtrace_from: print rip (if non-zero), then the return addresses of the rbp chain. */
void x86_backtrace_from(uint64_t rip, uint64_t rbp)
{
	printk("Call Trace:\n");
	if (rip)
		print_addr(rip, false);
	for (int depth = 0; rbp && depth < BACKTRACE_MAX; depth++) {
		const uint64_t *frame = (const uint64_t *)rbp;

		if (!frame_readable(rbp)) {
			printk(" <bad frame pointer %016llx>\n", (unsigned long long)rbp);
			return;
		}
		if (!frame[1])
			return;
		print_addr(frame[1], true);
		if (frame[0] && frame[0] <= rbp) {
			printk(" <frame pointer going backwards>\n");
			return;
		}
		rbp = frame[0];
	}
}

/*
 * arch_stack_trace: the return addresses of the caller's frame-pointer
 * chain. Cheap enough for every lock acquisition (lib/lockdep.c): a frame is
 * read only while it lies above the previous one and within 16 KiB of the
 * first (one kernel stack), and its page is checked once.
 */
__attribute__((noinline)) unsigned arch_stack_trace(uintptr_t *buf, unsigned max)
{
	uint64_t rbp = (uint64_t)__builtin_frame_address(0), base = rbp, page = 0;
	unsigned n = 0;

	while (n < max && rbp && IS_ALIGNED(rbp, 8) && rbp - base < 16384) {
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

void arch_print_stack(const uintptr_t *buf, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		print_addr(buf[i], true);
	if (!n)
		printk(" (no frames)\n");
}

__attribute__((noinline)) void arch_backtrace(void)
{
	x86_backtrace_from(0, (uint64_t)__builtin_frame_address(0));
}
