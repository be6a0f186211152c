/* The sampling profiler and cycle counters (include/profile.h). */
#include "profile.h"
#include "ksyms.h"
#include "printk.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "kernel.h"

extern uint64_t tsc_khz;
extern const char __text_start[], __text_end[];

static uint32_t *prof_hits;             /* ksyms_count counters */
static volatile bool prof_on;
static volatile uint64_t prof_total, prof_outside;

int profile_start(void)
{
	if (!prof_hits) {
		prof_hits = kzalloc(ksyms_count * sizeof(*prof_hits) + 1);
		if (!prof_hits)
			return -ENOMEM;
	}
	prof_on = false;
	memset(prof_hits, 0, ksyms_count * sizeof(*prof_hits));
	prof_total = prof_outside = 0;
	__asm__ volatile("" : : : "memory");
	prof_on = true;
	return 0;
}

void profile_stop(void)
{
	prof_on = false;
}

bool profile_active(void)
{
	return prof_on;
}

void profile_tick(uintptr_t rip, bool user)
{
	long i;

	if (!prof_on)
		return;
	prof_total++;
	i = user ? -1 : ksyms_index(rip);
	if (i < 0)
		prof_outside++;
	else
		prof_hits[i]++;
}

uint64_t profile_hits_at(uintptr_t addr)
{
	long i = ksyms_index(addr);

	return (i < 0 || !prof_hits) ? 0 : prof_hits[i];
}

uint64_t profile_total(void) { return prof_total; }
uint64_t profile_outside(void) { return prof_outside; }

/* ticks / size as a decimal with 4 places, like readprofile's %8.4f. */
static void print_load(char *buf, size_t n, uint64_t ticks, uint64_t size)
{
	uint64_t scaled = size ? ticks * 10000 / size : 0;

	ksnprintf(buf, n, "%llu.%04llu", (unsigned long long)(scaled / 10000),
		  (unsigned long long)(scaled % 10000));
}

void profile_print(unsigned max_lines)
{
	uint64_t shown_total = 0;
	unsigned lines = 0;
	char load[32];
	uint32_t last = UINT32_MAX;
	bool was_on = prof_on;

	prof_on = false;
	printk("# readprofile: %llu samples at %u Hz (%llu outside kernel text)\n",
	       (unsigned long long)prof_total, 1000u, (unsigned long long)prof_outside);
	if (!prof_hits)
		goto out;
	/*
	 * Sorted by ticks, descending, without extra memory: repeatedly find the
	 * largest count below the previous one (O(n * distinct counts); fine for
	 * a printout at the end of a run).
	 */
	for (;;) {
		uint32_t best = 0;

		for (size_t i = 0; i < ksyms_count; i++)
			if (prof_hits[i] < last && prof_hits[i] > best)
				best = prof_hits[i];
		if (best == 0)
			break;
		for (size_t i = 0; i < ksyms_count; i++) {
			if (prof_hits[i] != best)
				continue;
			if (!max_lines || lines < max_lines) {
				print_load(load, sizeof(load), best, ksyms_size(i));
				printk("%016lx %-40s %6u %10s\n", (unsigned long)ksyms_table[i].addr,
				       ksyms_table[i].name, best, load);
			}
			lines++;
			shown_total += best;
		}
		last = best;
	}
	print_load(load, sizeof(load), shown_total, (uint64_t)(__text_end - __text_start));
	printk("%016lx %-40s %6llu %10s\n", 0UL, "total", (unsigned long long)shown_total, load);
out:
	prof_on = was_on;
}

uint64_t cycles_total(const struct cycle_counter *c)
{
	uint64_t t = 0;

	for (unsigned i = 0; i < NR_CPUS; i++)
		t += c->total[i];
	return t;
}

uint64_t cycles_count(const struct cycle_counter *c)
{
	uint64_t t = 0;

	for (unsigned i = 0; i < NR_CPUS; i++)
		t += c->count[i];
	return t;
}

void cycles_reset(struct cycle_counter *c)
{
	memset(c->start, 0, sizeof(c->start));
	memset(c->total, 0, sizeof(c->total));
	memset(c->count, 0, sizeof(c->count));
}

void cycles_print(const struct cycle_counter *c)
{
	uint64_t total = cycles_total(c), n = cycles_count(c);
	uint64_t per = n ? total / n : 0;

	if (tsc_khz)
		printk("cycles %s: %llu sections, %llu cycles, %llu cycles/section (%llu ns)\n",
		       c->name, (unsigned long long)n, (unsigned long long)total,
		       (unsigned long long)per, (unsigned long long)(per * 1000000 / tsc_khz));
	else
		printk("cycles %s: %llu sections, %llu cycles, %llu cycles/section\n",
		       c->name, (unsigned long long)n, (unsigned long long)total,
		       (unsigned long long)per);
}
