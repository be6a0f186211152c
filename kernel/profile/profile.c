/* The sampling profiler and cycle counters (include/profile.h). */
#include "profile.h"
#include "lockless.h"
#include "ksyms.h"
#include "printk.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "kernel.h"
#include "cmdline.h"
#include "signal.h"
#include "x86.h"
#include "uapi/vmk_profile.h"

#define PROFILE_HZ_MAX 100000u

extern const char __text_start[], __text_end[];

static uint32_t *prof_hits;             /* ksyms_count counters */
static bool prof_on;                    /* read by the sampling interrupt on every CPU */
static uint64_t prof_total, prof_user, prof_unknown;
static unsigned prof_hz = TIMER_HZ;
static bool prof_stacks;
static bool prof_dither = true;
#define DITHER_SEED 0x2545f4914f6cdd1dULL      /* any nonzero value */
static uint64_t prof_dither_state = DITHER_SEED;

void profile_configure(unsigned hz, bool stacks)
{
	unsigned want = hz;

	if (hz < TIMER_HZ)
		hz = TIMER_HZ;
	if (hz > PROFILE_HZ_MAX)
		hz = PROFILE_HZ_MAX;
	hz -= hz % TIMER_HZ;
	if (hz != want)
		printk("profile: warning: profile_hz=%u is not a multiple of %u in [%u, %u]; using %u\n",
		       want, TIMER_HZ, TIMER_HZ, PROFILE_HZ_MAX, hz);
	prof_hz = hz;
	prof_stacks = stacks;
}

void profile_set_dither(bool on)
{
	prof_dither = on;
}

uint32_t profile_period(uint32_t mean)
{
	uint64_t x = prof_dither_state;
	uint32_t span = mean / 4;

	if (!READ_ONCE(prof_on) || !prof_dither || span == 0)
		return mean;
	x ^= x << 13;                   /* xorshift64 */
	x ^= x >> 7;
	x ^= x << 17;
	prof_dither_state = x;
	return mean - span / 2 + (uint32_t)((x >> 11) % span);
}

unsigned profile_hz(void) { return prof_hz; }
bool profile_stacks_enabled(void) { return prof_stacks; }
unsigned profile_timer_mult(void) { return prof_hz / TIMER_HZ; }

int profile_start(void)
{
	if (!prof_hits) {
		prof_hits = kzalloc(ksyms_count * sizeof(*prof_hits) + 1);
		if (!prof_hits)
			return -ENOMEM;
	}
	WRITE_ONCE(prof_on, false);
	if (prof_stacks && profile_stacks_reset(kparams.profile_entry))
		return -ENOMEM;
	if (profile_user_reset())
		return -ENOMEM;
	memset(prof_hits, 0, ksyms_count * sizeof(*prof_hits));
	/* each run with one profile_seed draws the same periods (xorshift wants a nonzero state) */
	prof_dither_state = DITHER_SEED ^ ((uint64_t)kparams.profile_seed * 0x9e3779b97f4a7c15ULL);
	if (!prof_dither_state)
		prof_dither_state = DITHER_SEED;
	prof_dither = kparams.profile_dither;
	prof_total = prof_user = prof_unknown = 0;
	__asm__ volatile("" : : : "memory");
	WRITE_ONCE(prof_on, true);
	return 0;
}

void profile_stop(void)
{
	WRITE_ONCE(prof_on, false);
}

bool profile_active(void)
{
	return READ_ONCE(prof_on);
}

static inline void count(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

void profile_tick(uintptr_t rip, uintptr_t sp, uintptr_t fp, bool user)
{
	long i;

	if (!READ_ONCE(prof_on))
		return;
	count(&prof_total);
	i = user ? -1 : ksyms_index(rip);
	if (user) {
		count(&prof_user);
		profile_user_record(rip);
	} else if (i < 0)
		count(&prof_unknown);
	else
		__atomic_fetch_add(&prof_hits[i], 1, __ATOMIC_RELAXED);
	if (prof_stacks)
		profile_stacks_record(rip, sp, fp, user);
}

uint64_t profile_hits_at(uintptr_t addr)
{
	long i = ksyms_index(addr);

	return (i < 0 || !prof_hits) ? 0 : prof_hits[i];
}

uint64_t profile_total(void) { return prof_total; }

void profile_counts(struct vmk_prof_counts *out)
{
	out->hz = prof_hz;
	out->total = prof_total;
	out->user = prof_user;
	out->kernel = prof_total - prof_user - prof_unknown;
	out->vmas = 0;
}

/* a / b as a decimal with `places` digits after the point (b == 0: 0). */
static void print_ratio(char *buf, size_t n, uint64_t a, uint64_t b, unsigned places)
{
	uint64_t scale = 1;

	for (unsigned i = 0; i < places; i++)
		scale *= 10;
	uint64_t scaled = b ? a * scale / b : 0;

	ksnprintf(buf, n, "%llu.%0*llu", (unsigned long long)(scaled / scale), (int)places,
		  (unsigned long long)(scaled % scale));
}

/* One table line: address, name, ticks, % of kernel samples, % of all samples, load. */
static void print_line(uintptr_t addr, const char *name, uint64_t ticks, uint64_t size,
		       uint64_t kernel)
{
	char pk[24], pa[24], load[32];

	print_ratio(pk, sizeof(pk), ticks * 100, kernel, 2);
	print_ratio(pa, sizeof(pa), ticks * 100, prof_total, 2);
	print_ratio(load, sizeof(load), ticks, size, 4);
	printk("%016lx %-40s %7llu %7s%% %7s%% %10s\n", (unsigned long)addr, name,
	       (unsigned long long)ticks, pk, pa, load);
}

static void print_header(uint64_t kernel)
{
	char secs[24], pk[24], pu[24];

	print_ratio(secs, sizeof(secs), prof_total, prof_hz, 3);
	print_ratio(pk, sizeof(pk), kernel * 100, prof_total, 1);
	print_ratio(pu, sizeof(pu), prof_user * 100, prof_total, 1);
	printk("# profile-table begin\n");
	printk("# readprofile: %llu samples at %u Hz (%s s of guest time): kernel %llu (%s%%), "
	       "user %llu (%s%%), unknown %llu\n", (unsigned long long)prof_total, prof_hz, secs,
	       (unsigned long long)kernel, pk, (unsigned long long)prof_user, pu,
	       (unsigned long long)prof_unknown);
	printk("# columns: address = start of the kernel function; function = its symbol;\n"
	       "#   ticks = samples that interrupted an instruction in it (1 tick = 1/%u s);\n"
	       "#   %%kernel = ticks / kernel samples; %%all = ticks / all samples;\n"
	       "#   load = ticks / function size in bytes (readprofile -v's fourth column);\n"
	       "#   total = the sum of the kernel lines (the whole kernel, no line limit)\n", prof_hz);
	printk("%-16s %-40s %7s %8s %8s %10s\n", "address", "function", "ticks", "%kernel",
	       "%all", "load");
}

/* The largest count below `below` (0 when none is left). */
static uint32_t next_count_below(uint32_t below)
{
	uint32_t best = 0;

	for (size_t i = 0; i < ksyms_count; i++)
		if (prof_hits[i] < below && prof_hits[i] > best)
			best = prof_hits[i];
	return best;
}

void profile_print(unsigned max_lines)
{
	uint64_t kernel = prof_total - prof_user - prof_unknown;
	unsigned lines = 0;
	bool was_on = READ_ONCE(prof_on);

	WRITE_ONCE(prof_on, false);
	print_header(kernel);
	if (!prof_hits)
		goto out;
	/*
	 * Sorted by ticks, descending, without extra memory: repeatedly find the
	 * largest count below the previous one (O(n * distinct counts); fine for
	 * a printout at the end of a run).
	 */
	for (uint32_t c = next_count_below(UINT32_MAX); c; c = next_count_below(c)) {
		for (size_t i = 0; i < ksyms_count; i++) {
			if (prof_hits[i] != c)
				continue;
			if (!max_lines || lines < max_lines)
				print_line(ksyms_table[i].addr, ksyms_table[i].name, c, ksyms_size(i),
					   kernel);
			lines++;
		}
	}
	print_line(0, "total", kernel, (uint64_t)(__text_end - __text_start), kernel);
out:
	printk("# profile-table end\n");
	WRITE_ONCE(prof_on, was_on);
}

/* Print the folded stacks (include/profile.h); only a header saying so when stacks are off. */
static void profile_print_folded(void)
{
	bool was_on = READ_ONCE(prof_on);

	WRITE_ONCE(prof_on, false);
	printk("# profile-folded begin\n");
	if (prof_stacks)
		profile_stacks_print();
	else
		printk("# no stacks recorded (boot with profile_stacks=on)\n");
	printk("# profile-folded end\n");
	WRITE_ONCE(prof_on, was_on);
}

bool profile_user_requested(void)
{
	return strcmp(kparams.profile, "user") == 0;
}

void profile_user_begin(void)
{
	if (!profile_user_requested())
		return;
	if (profile_start())
		printk("profile: no memory for the counters; profile=user ignored\n");
}

void profile_user_end(void)
{
	if (!profile_user_requested() || !READ_ONCE(prof_on))
		return;
	profile_stop();
	printk(REPORT_BEGIN);
	profile_print(0);
	profile_user_print();
	if (prof_stacks)
		profile_print_folded();
	printk(REPORT_END);
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
	uint64_t per = n ? total / n : 0, khz = arch_cycles_khz();

	if (khz)
		printk("cycles %s: %llu sections, %llu cycles, %llu cycles/section (%llu ns)\n",
		       c->name, (unsigned long long)n, (unsigned long long)total,
		       (unsigned long long)per, (unsigned long long)(per * 1000000 / khz));
	else
		printk("cycles %s: %llu sections, %llu cycles, %llu cycles/section\n",
		       c->name, (unsigned long long)n, (unsigned long long)total,
		       (unsigned long long)per);
}
