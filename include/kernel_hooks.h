/*
 * The calls arch/x86_64 makes into kernel/ and fs/, in one place: the
 * hooks of the timer tick, of the return to user mode and of a CPU's
 * start-up. Apart from these the architecture uses only the layers below
 * kernel/ (lib/'s printk, kernel.h's panic/BUG, mm/'s pmm.h, slab.h,
 * arch_mmu.h and the fault entry handle_mm_fault in mm.h) and the kernel
 * symbol table for backtraces (include/ksyms.h). Three arch files work on
 * a task itself and include task.h besides: traps.c (a user exception
 * becomes a signal to the current task: signal.h), process.c (the
 * context switch, a new task's frame, the SYSCALL entry) and smp.c (an
 * application processor's idle task and its KSTACK_SIZE stack). Nothing
 * else in arch/x86_64 includes a kernel/ header; a new call up goes here.
 *
 * The resched IPI needs no hook: its interrupt is the message, and the
 * idle loop or exit_to_user looks at the run queue afterwards; the TLB
 * shootdown IPI is arch/x86_64/x86_tlb.c's own.
 */
#ifndef KERNEL_HOOKS_H
#define KERNEL_HOOKS_H

#include "types.h"

struct trap_frame;

/* --- the timer tick (arch/x86_64/lapic.c, every CPU, interrupts off) --- */

/*
 * sched_tick (kernel/sched/sched.c): count the tick in the running task's
 * CPU time (user: it interrupted user mode), count down its slice, flag a
 * reschedule when it ends.
 */
void sched_tick(bool user);
/* ktimer_tick (kernel/time/ktimer.c): runs the ktimers whose deadline passed. */
void ktimer_tick(void);
/*
 * console_poll (fs/console_file.c): lets the architecture move data
 * (stdin arrivals, finished output) and wakes the tasks waiting for it.
 */
void console_poll(void);
/* profile_timer_mult (kernel/profile/profile.c): timer interrupts per scheduler tick: profile_hz() / TIMER_HZ (1 by default). */
unsigned profile_timer_mult(void);
/*
 * profile_tick (kernel/profile/profile.c): one profiling sample, called
 * from the timer interrupt with the interrupted RIP, stack pointer (RSP)
 * and frame pointer (RBP), and whether it interrupted user mode.
 */
void profile_tick(uintptr_t rip, uintptr_t sp, uintptr_t fp, bool user);
/*
 * Dithering (profile_dither=on, the default): while sampling, the boot
 * CPU's next timer period is the mean period moved by a pseudo-random
 * amount within +-1/8 of it, so samples cannot lock onto a loop whose
 * length divides the period (aliasing). The sequence is fixed (a seeded
 * xorshift), so runs under QEMU's -icount repeat exactly; the mean rate
 * stays profile_hz. profile_period returns the count for the next period
 * given the mean count; with dithering off or the profiler stopped, mean.
 */
uint32_t profile_period(uint32_t mean);

/* --- the way back to user mode (arch/x86_64/idt.c, process.c) --- */

/* exit_to_user (kernel/sched/sched.c): work before returning to user mode with tf: signals, reschedule. Interrupts off on return. */
void exit_to_user(struct trap_frame *tf);

/* --- a CPU's start-up (arch/x86_64/smp.c) --- */

/* sched_init_cpu (kernel/sched/sched.c): make the running application processor's start-up context (stack kstack) its idle task. */
void sched_init_cpu(unsigned cpu, void *kstack);
/* cpu_idle (kernel/sched/sched.c): an idle task's loop: run queued work, else hlt until an interrupt. Never returns. */
__attribute__((noreturn)) void cpu_idle(void);

#endif
