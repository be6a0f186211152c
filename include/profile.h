/*
 * readprofile-style sampling profiler and per-CPU cycle counters.
 *
 * Profiler: while started, every profiler interrupt (profile_hz() per
 * second of guest time: the timer tick, or a multiple of it) records where
 * the CPU was: the kernel function containing the interrupted RIP (the
 * kernel symbol table, include/ksyms.h), or "user mode". With stacks on it
 * also records the interrupted kernel stack (the frame-pointer chain), for
 * folded-stack output that flame-graph tools read.
 *
 * What runs under it (kernel command line, include/cmdline.h):
 *   profile=SUITES   those ktest suites, after the normal test run
 *   profile=user     the user program: from just before init (pid 1) first
 *                    runs until it has exited (its children and its exit,
 *                    address-space teardown included), then the table is
 *                    printed as one kernel report
 *   profile_hz=N     samples per second (a multiple of TIMER_HZ, 1000..100000;
 *                    default TIMER_HZ): the timer interrupt then fires N times
 *                    a second and the scheduler still ticks at TIMER_HZ
 *   profile_stacks=on   also print the folded stacks after the table
 *   profile_dither=off  sample at exactly profile_hz (default on: each
 *                    period moves within +-1/8 of the mean, see below)
 *   profile_entry=on    with stacks: root each kernel stack of a user task
 *                    at the user address it entered the kernel from
 *
 * profile_print() output (docs/profiling.md explains it in full):
 *     # profile-table begin
 *     # readprofile: S samples at H Hz (T s of guest time): kernel K (k%), user U (u%), unknown X
 *     # columns: ...legend...
 *     address          function                         ticks  %kernel    %all       load
 *     ffffffff8010a2c0 list_find                          812   23.10%   9.71%     1.8954
 *     ...
 *     0000000000000000 total                             3515  100.00%  42.05%     0.0111
 *     # profile-table end
 * sorted by ticks, descending; load = ticks / function size in bytes, as
 * readprofile -v prints it; the total line sums the kernel lines.
 * The folded stacks (profile_user_end, with profile_stacks=on) are
 * "# profile-folded begin", one line per distinct sampled stack,
 * "COMM;ROOT;...;LEAF COUNT" (COMM the task's name, user-mode samples as
 * "COMM;[user]"; with profile_entry=on a user task's kernel stacks as
 * "COMM;[user@0xRIP];ROOT;...;LEAF"), and "# profile-folded end".
 * profile=user also prints the user-mode samples by RIP ("# profile-user
 * begin" .. "end", profile_user_print below).
 *
 * Cycle counters: struct cycle_counter accumulates rdtsc deltas per CPU
 * between cycles_begin() and cycles_end() (no locks: each CPU writes its own
 * slot; call with preemption impossible, i.e. today always).
 *
 * Locking: the counters are updated with atomic adds from the timer
 * interrupt of any CPU; the stack table has its own spinlock. Start, stop
 * and print are called by one CPU at a time (boot code, init's exit, or a
 * system call of the measured program).
 */
#ifndef PROFILE_H
#define PROFILE_H

#include "types.h"
#include "kernel_hooks.h"      /* profile_tick, profile_timer_mult */
#include "arch.h"

struct vmk_prof_counts;
struct task;

/*
 * Set the sampling rate and whether stacks are kept (from the command line;
 * before timer_init). hz is rounded to a multiple of TIMER_HZ in
 * [TIMER_HZ, 100000] with a warning when it was not one.
 */
void profile_configure(unsigned hz, bool stacks);
/* Dither the sampling period or not (see profile_period); profile_start takes profile_dither= from the command line. */
void profile_set_dither(bool on);
/* Samples per second of guest time. */
unsigned profile_hz(void);

/* Allocate the counters (first call) and clear them, then start sampling. 0 or -ENOMEM. */
int profile_start(void);
/* Stop sampling; the counts stay until the next profile_start. */
void profile_stop(void);
/* True between profile_start and profile_stop. */
bool profile_active(void);
/* Print the table (see above). max_lines limits the function lines (0: all). */
void profile_print(unsigned max_lines);
/* Samples recorded for the function containing addr, since profile_start. */
uint64_t profile_hits_at(uintptr_t addr);
/* All samples since profile_start. */
uint64_t profile_total(void);
/* The totals as vmk_profile(VMK_PROF_COUNTS) reports them (zero when never started). */
void profile_counts(struct vmk_prof_counts *out);
/* profile_tick, profile_timer_mult: the timer's hooks, include/kernel_hooks.h. */

/*
 * profile=user: profile_user_begin() starts sampling just before init first
 * runs; profile_user_end() stops and prints the table (and the folded
 * stacks) once init has exited. Both do nothing without profile=user.
 */
void profile_user_begin(void);
void profile_user_end(void);
/* True when the command line asked for profile=user (the suites are then not run under it). */
bool profile_user_requested(void);

/* True when stacks are recorded (profile_stacks=on or profile_configure). */
bool profile_stacks_enabled(void);

/* Folded-stack store (kernel/profile/profile_stacks.c), used by the profiler above. */
/* Allocate (first call) and empty the table; entry: record profile_entry_rip too. 0 or -ENOMEM. */
int profile_stacks_reset(bool entry);
/*
 * The user address task t entered the kernel from (the rip of its user
 * frame, t->tf), or 0 when t has no user half (a kernel or idle thread) or
 * its frame is no user one (it has not been in user mode yet).
 */
uintptr_t profile_entry_rip(const struct task *t);
/* Count the stack interrupted at (rip, sp, fp) of the current task. Interrupts off. */
void profile_stacks_record(uintptr_t rip, uintptr_t sp, uintptr_t fp, bool user);
/* Print every recorded stack, one folded line each. */
void profile_stacks_print(void);
/* Kernel samples whose leaf function contains leaf and whose next frame contains caller. */
uint64_t profile_stacks_samples(uintptr_t leaf, uintptr_t caller);

/*
 * User-mode samples by (task name, RIP) (kernel/profile/profile_user.c),
 * for naming the program's own functions on the host.
 */
/* Allocate (first call) and empty the table. 0 or -ENOMEM. */
int profile_user_reset(void);
/* Count a user-mode sample at rip of the current task. Boot CPU's timer interrupt only. */
void profile_user_record(uintptr_t rip);
/* Print "# profile-user begin", one "COMM 0xRIP COUNT" line per pair, "# profile-user end". */
void profile_user_print(void);
/* User samples (any task) whose RIP lies in [start, end). */
uint64_t profile_user_samples_in(uintptr_t start, uintptr_t end);

/* profile_period (dithering of the sampling period): include/kernel_hooks.h. */

struct cycle_counter {
	const char *name;
	uint64_t start[NR_CPUS];
	uint64_t total[NR_CPUS];
	uint64_t count[NR_CPUS];
};

#define CYCLE_COUNTER_INIT(n) { .name = (n) }

static inline void cycles_begin(struct cycle_counter *c)
{
	c->start[arch_cpu_id()] = arch_cycles();
}

static inline void cycles_end(struct cycle_counter *c)
{
	unsigned cpu = arch_cpu_id();

	c->total[cpu] += arch_cycles() - c->start[cpu];
	c->count[cpu]++;
}

/* Sum over CPUs of the cycles / of the sections counted. */
uint64_t cycles_total(const struct cycle_counter *c);
uint64_t cycles_count(const struct cycle_counter *c);
/* Zero every CPU's slots. */
void cycles_reset(struct cycle_counter *c);
/* Print "name: N sections, C cycles, C/section (≈ ns)" (ns when the TSC rate is known). */
void cycles_print(const struct cycle_counter *c);

#endif
