/*
 * Reference clocks for calibrating the TSC and the LAPIC timer at boot:
 * clocks of known frequency that the firmware describes, tried in this
 * order by lapic.c:
 *
 * - the HPET's main counter (ACPI "HPET" table: its registers' address;
 *   the period in femtoseconds is in the capabilities register), turned on
 *   if the firmware left it off;
 * - the ACPI PM timer (FADT: X_PM_TMR_BLK or PM_TMR_BLK, an I/O port),
 *   3.579545 MHz, 24 bits wide or 32 (FADT flag TMR_VAL_EXT);
 * - the PIT's channel 2 (gate through port 0x61), which every PC had but
 *   some UEFI-only machines no longer have: a one-shot from 65536 (mode
 *   0) whose count is latched and read; its output, which rises when the
 *   count wraps (after 55 ms), tells a span that wrapped, measured again.
 *
 * A measurement reads the reference, the TSC and the LAPIC timer's count,
 * and the reference again, and keeps the narrowest of several such
 * brackets, stopping at one at most CLOCKREF_BRACKET_US wide (a vCPU or an
 * SMI interrupted between them: read again), so each end of a span is
 * known to within its bracket whatever the machine's load; the result
 * says how wide the brackets were (a slow hypervisor's reads may all be
 * wider). A reference that does not count fails the calibration and
 * lapic.c tries the next.
 */
#include "x86.h"
#include "x86_mmu.h"
#include "arch.h"
#include "kstring.h"
#include "kernel.h"
#include "printk.h"

#define PM_TIMER_HZ     3579545u
#define PIT_HZ          1193182u
#define FADT_PM_TMR_BLK 76
#define FADT_PM_TMR_LEN 91
#define FADT_FLAGS      112
#define FADT_X_PM_TMR   208             /* generic address structure, ACPI 2+ */
#define FADT_TMR_VAL_EXT (1u << 8)
#define HPET_TABLE_ADDR 40              /* generic address structure */
#define HPET_CAP        0x000
#define HPET_CONF       0x010
#define HPET_COUNTER    0x0F0
#define HPET_CAP_64BIT  (1u << 13)
#define HPET_CONF_ENABLE 1u
#define HPET_PERIOD_MAX 100000000u      /* fs: 100 ns, the spec's bound */
#define GAS_MEMORY      0
#define GAS_IO          1
#define CLOCKREF_BRACKET_US 100
#define SAMPLE_TRIES    1000
#define CALIBRATE_TRIES 5
/* A counter that does not count (no PIT): given up after 1 s at 10 GHz, the TSC's rate unknown yet. */
#define WAIT_TSC_MAX    10000000000ULL

static struct clockref hpet, pm_timer;
/* The PIT's channel 2 counter, latched and read; counting down from 65536, so negated. */
static struct clockref pit = { .name = "PIT", .hz = PIT_HZ, .mask = 0xffff };

uint64_t clockref_read(const struct clockref *r)
{
	if (r->hpet) {
		volatile uint32_t *regs = r->hpet;

		return r->mask == UINT32_MAX ? regs[HPET_COUNTER / 4] :
		       *(volatile uint64_t *)&regs[HPET_COUNTER / 4];
	}
	if (r == &pit) {
		uint16_t v;

		outb(0x43, 0x80);               /* latch channel 2's count */
		v = inb(0x42);
		v |= (uint16_t)inb(0x42) << 8;
		return -(uint32_t)v & r->mask;
	}
	return inl(r->port) & r->mask;
}

/* A generic address structure at off in t: its space and address, if t holds it. */
static bool gas_at(const struct sdt_header *t, size_t off, uint8_t *space, uint64_t *addr)
{
	if (t->length < off + 12)
		return false;
	*space = ((const uint8_t *)t)[off];
	memcpy(addr, (const uint8_t *)t + off + 4, 8);
	return *addr != 0;
}

static void find_hpet(const void *rsdp, size_t rsdp_len)
{
	const struct sdt_header *t = acpi_find_table("HPET", rsdp, rsdp_len);
	volatile uint32_t *regs;
	uint64_t addr, cap;
	uint8_t space;
	uint32_t period;

	if (!t || !gas_at(t, HPET_TABLE_ADDR, &space, &addr) || space != GAS_MEMORY)
		return;
	regs = kpgtable_map_mmio(addr, PAGE_SIZE);
	if (!regs)
		return;
	cap = regs[HPET_CAP / 4] | (uint64_t)regs[HPET_CAP / 4 + 1] << 32;
	period = cap >> 32;
	if (period == 0 || period > HPET_PERIOD_MAX)
		return;
	regs[HPET_CONF / 4] |= HPET_CONF_ENABLE;
	hpet = (struct clockref){
		.name = "HPET", .hz = 1000000000000000ULL / period,
		.mask = (cap & HPET_CAP_64BIT) ? UINT64_MAX : UINT32_MAX, .hpet = (void *)regs,
	};
}

static void find_pm_timer(const void *rsdp, size_t rsdp_len)
{
	const struct sdt_header *t = acpi_find_table("FACP", rsdp, rsdp_len);
	const uint8_t *f = (const uint8_t *)t;
	uint64_t addr = 0;
	uint32_t blk = 0, flags = 0;
	uint8_t space;

	if (!t || t->length < FADT_FLAGS + 4)
		return;
	memcpy(&blk, f + FADT_PM_TMR_BLK, 4);
	memcpy(&flags, f + FADT_FLAGS, 4);
	if (gas_at(t, FADT_X_PM_TMR, &space, &addr) && space == GAS_IO && addr <= 0xffff)
		blk = addr;
	else if (f[FADT_PM_TMR_LEN] != 4)
		blk = 0;
	if (blk == 0 || blk > 0xffff)
		return;
	pm_timer = (struct clockref){
		.name = "ACPI PM timer", .hz = PM_TIMER_HZ, .port = blk,
		.mask = (flags & FADT_TMR_VAL_EXT) ? UINT32_MAX : 0xffffff,
	};
}

/* clockref_init: find the HPET and the PM timer in the ACPI tables (none when use_acpi is false). */
void clockref_init(bool use_acpi, const void *rsdp, size_t rsdp_len)
{
	if (!use_acpi)
		return;
	find_hpet(rsdp, rsdp_len);
	find_pm_timer(rsdp, rsdp_len);
}

const struct clockref *clockref_hpet(void) { return hpet.hz ? &hpet : NULL; }
const struct clockref *clockref_pm_timer(void) { return pm_timer.hz ? &pm_timer : NULL; }
const struct clockref *clockref_pit(void) { return &pit; }

/*
 * The reference (the midpoint of the two reads around them), the TSC and
 * the LAPIC timer read together: the narrowest of up to SAMPLE_TRIES
 * tries, the first at most CLOCKREF_BRACKET_US wide; s->width says how
 * wide (the reference's time of the TSC read is known within width / 2).
 */
static void sample(const struct clockref *r, struct clock_sample *s)
{
	uint64_t good = r->hz * CLOCKREF_BRACKET_US / 1000000 + 1;

	s->width = UINT64_MAX;
	for (unsigned i = 0; i < SAMPLE_TRIES && s->width > good; i++) {
		uint64_t a = clockref_read(r), tsc = rdtsc(), w;
		uint32_t lapic = lapic_timer_count();

		w = (clockref_read(r) - a) & r->mask;
		if (w < s->width)
			*s = (struct clock_sample){
				.ref = (a + w / 2) & r->mask, .tsc = tsc, .lapic = lapic, .width = w,
			};
	}
}

/* PIT channel 2 as a one-shot from 65536 (mode 0): its output rises when the count wraps. */
static void pit_start(void)
{
	uint8_t gate = (inb(0x61) & ~0x02) | 0x01;     /* speaker off, gate on */

	outb(0x61, gate);
	outb(0x43, 0xB0);                       /* channel 2, lo/hi byte, mode 0 */
	outb(0x42, 0);
	outb(0x42, 0);
	/* restart the count: gate low then high */
	outb(0x61, gate & ~0x01);
	outb(0x61, gate);
}

static bool pit_wrapped(void)
{
	return inb(0x61) & 0x20;
}

/* One measurement; false if the reference did not count or the PIT's count wrapped during it. */
static bool calibrate_once(const struct clockref *r, unsigned ms, struct clock_calib *c)
{
	uint64_t want = r->hz * ms / 1000, ref_ticks;
	struct clock_sample s0, s1;

	if (r == &pit)
		pit_start();
	sample(r, &s0);
	while (((clockref_read(r) - s0.ref) & r->mask) < want)
		if (rdtsc() - s0.tsc > WAIT_TSC_MAX)
			return false;
	sample(r, &s1);
	if (r == &pit && pit_wrapped())
		return false;
	ref_ticks = (s1.ref - s0.ref) & r->mask;
	if (ref_ticks == 0)
		return false;
	c->tsc_khz = (s1.tsc - s0.tsc) * r->hz / ref_ticks / 1000;
	c->lapic_khz = (uint64_t)(s0.lapic - s1.lapic) * r->hz / ref_ticks / 1000;
	c->ref_ticks = ref_ticks;
	c->bracket = MAX(s0.width, s1.width);
	return true;
}

bool clockref_calibrate(const struct clockref *r, unsigned ms, struct clock_calib *c)
{
	for (unsigned i = 0; i < CALIBRATE_TRIES; i++)
		if (calibrate_once(r, ms, c))
			return true;
	return false;
}
