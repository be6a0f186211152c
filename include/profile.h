/*
 * readprofile-style sampling profiler and per-CPU cycle counters.
 *
 * Profiler: while started, every timer tick (TIMER_HZ) records the
 * interrupted kernel RIP against the function containing it (the kernel
 * symbol table, include/ksyms.h). profile_print() prints, like Linux's
 * `readprofile -v`, one line per function with samples, sorted by ticks:
 *     address          function                         ticks   load
 * where load = ticks / function size in bytes, then a "total" line.
 * The kernel command line profile=SUITES runs those ktest suites under the
 * profiler after the normal test run and prints the table.
 *
 * Cycle counters: struct cycle_counter accumulates rdtsc deltas per CPU
 * between cycles_begin() and cycles_end() (no locks: each CPU writes its own
 * slot; call with preemption impossible, i.e. today always).
 */
#ifndef PROFILE_H
#define PROFILE_H

#include "types.h"
#include "arch.h"

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
/* All samples / samples outside kernel text (user mode or unknown) since profile_start. */
uint64_t profile_total(void);
uint64_t profile_outside(void);
/* Called from the timer interrupt with the interrupted RIP. */
void profile_tick(uintptr_t rip, bool user);

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
