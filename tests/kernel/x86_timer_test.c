/*
 * The LAPIC timer tick, the reference clocks it is calibrated against, and
 * the interrupt-state primitives. Time is measured with the TSC (calibrated
 * at boot against the HPET, the ACPI PM timer or the PIT); bounds on tick
 * counts are wide because QEMU without KVM runs the guest at a varying
 * speed. The reference clocks are compared with each other through the
 * TSC, each reading bracketed (clockref.c), so load does not widen the
 * error: see test_references_agree.
 */
#include "ktest.h"
#include "x86.h"
#include "lockless.h"
#include "arch.h"
#include "kstring.h"
#include "printk.h"
#include "cmdline.h"

/* Spin with interrupts on for ms milliseconds of TSC time (until the first tick, if first); returns ticks seen. */
static uint64_t ticks_during(unsigned ms, bool first)
{
	uint64_t t0 = READ_ONCE(timer_ticks), start = rdtsc();

	while (rdtsc() - start < tsc_khz * ms && !(first && READ_ONCE(timer_ticks) != t0))
		arch_cpu_relax();
	return READ_ONCE(timer_ticks) - t0;
}

static void test_calibration_sane(struct ktest *t)
{
	EXPECT_GT(t, tsc_khz, 10000);           /* > 10 MHz */
	EXPECT_GT(t, lapic_timer_khz, 100);     /* > 100 kHz after the divider */
}

/*
 * The boot calibrated against the first reference found that counts, in
 * the order HPET, ACPI PM timer, PIT (QEMU's pc and q35 have all three;
 * -no-hpet removes the first, acpi=off hides the first two).
 */
static void test_reference_order(struct ktest *t)
{
	const char *want = clockref_hpet() ? "HPET" : clockref_pm_timer() ? "ACPI PM timer" : "PIT";

	EXPECT_STREQ(t, timer_reference, want);
}

/* The reference's counter advances, and wraps within its mask. */
static void test_references_count(struct ktest *t)
{
	const struct clockref *refs[] = { clockref_hpet(), clockref_pm_timer() };

	for (size_t i = 0; i < ARRAY_SIZE(refs); i++) {
		uint64_t a, b, start = rdtsc();

		if (!refs[i])
			continue;
		a = clockref_read(refs[i]);
		EXPECT_EQ(t, a & ~refs[i]->mask, 0);
		do      /* a tick is 10 ns (QEMU's HPET) to 280 ns: 1 s is ample */
			b = clockref_read(refs[i]);
		while (b == a && rdtsc() - start < tsc_khz * 1000);
		EXPECT_NE(t, b, a);
	}
}

/*
 * The TSC's rate measured against each reference found (the PIT too,
 * which QEMU always has) over 40 ms. Each end of a span is read within
 * half its bracket of the reference's time (clockref_calibrate retries
 * while the vCPU is interrupted; c.bracket says how wide it got), so a
 * rate is off by at most bracket / (span - bracket) < 2 * bracket / span
 * (the bracket at most a tenth of the span), plus 1 kHz of rounding,
 * whatever the host's load: the TSC runs at a constant rate (under TCG
 * it is the host's, and QEMU's HPET, PM timer and PIT count the host's
 * monotonic clock). Two references' rates differ by at most the sum of
 * their bounds (0.5% each with brackets of 100 us). A reference with a
 * wrong period, width or frequency (a PM timer taken as 24-bit when it is
 * 32, the HPET's femtoseconds misread) is off by far more.
 */
static void test_references_agree(struct ktest *t)
{
	const struct clockref *refs[] = { clockref_hpet(), clockref_pm_timer(), clockref_pit() };
	uint64_t khz[ARRAY_SIZE(refs)] = { 0 }, tol[ARRAY_SIZE(refs)] = { 0 };
	unsigned n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(refs); i++) {
		struct clock_calib c;

		if (!refs[i])
			continue;
		ASSERT_TRUE(t, clockref_calibrate(refs[i], 40, &c));
		ASSERT_LE(t, c.bracket * 10, c.ref_ticks);
		khz[i] = c.tsc_khz;
		tol[i] = c.tsc_khz * 2 * c.bracket / c.ref_ticks + 1;
		n++;
		printk("# x86_timer: TSC %llu kHz against the %s (+-%llu kHz)\n",
		       (unsigned long long)c.tsc_khz, refs[i]->name, (unsigned long long)tol[i]);
	}
	if (n < 2) {
		ktest_skip(t, "fewer than two reference clocks");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(refs); i++)
		for (size_t j = 0; j < ARRAY_SIZE(refs); j++)
			if (khz[i] && khz[j])
				EXPECT_LE(t, khz[i], khz[j] + tol[i] + tol[j]);
}

/*
 * x2APIC mode exactly when the CPU has it and x2apic=off was not given
 * (or the firmware left it on): IA32_APIC_BASE's EXTD bit says the mode
 * the hardware is in, and the id read back is the boot CPU's.
 */
static void test_lapic_mode(struct ktest *t)
{
	bool extd = rdmsr(MSR_APIC_BASE) & (1UL << 10);

	EXPECT_EQ(t, extd, x2apic_enabled);
	if (x86_cpu.x2apic && kparams.x2apic)
		EXPECT_TRUE(t, x2apic_enabled);
	if (!x86_cpu.x2apic)
		EXPECT_FALSE(t, x2apic_enabled);
	EXPECT_EQ(t, lapic_id(), cpu_apic_id[0]);
}

static void test_interrupts_on_during_tests(struct ktest *t)
{
	EXPECT_TRUE(t, arch_irqs_enabled());
}

/*
 * 50 ms at TIMER_HZ = 1000 is 50 ticks. At most 5x that; no lower bound
 * on the rate: when the host does not run QEMU's threads for a while, the
 * periodic timer's missed expirations come as one interrupt, so a loaded
 * host shows fewer ticks than TSC time (6 in 50 ms at load 10, in
 * check-labs; none in 50 ms at load 12 in make test-kernel). That ticks
 * come at all is checked by waiting for one, up to 10 s of TSC time.
 */
static void test_ticks_advance(struct ktest *t)
{
	EXPECT_LE(t, ticks_during(50, false), 50 * TIMER_HZ / 1000 * 5);
	EXPECT_GE(t, ticks_during(10000, true), 1);
}

static void test_no_ticks_with_irqs_off(struct ktest *t)
{
	unsigned long flags = arch_irq_save();
	uint64_t t0 = READ_ONCE(timer_ticks), start = rdtsc();

	EXPECT_FALSE(t, arch_irqs_enabled());
	while (rdtsc() - start < tsc_khz * 10)
		arch_cpu_relax();
	EXPECT_EQ(t, READ_ONCE(timer_ticks), t0);
	arch_irq_restore(flags);
	EXPECT_TRUE(t, arch_irqs_enabled());
	/*
	 * The pending tick arrives once interrupts are back on. Waited for
	 * with hlt (each wakes at the next interrupt), not for a span of
	 * time: on a loaded host QEMU may inject it long after the TSC says
	 * it was due. The suite's timeout catches a tick that never comes.
	 */
	while (READ_ONCE(timer_ticks) == t0)
		hlt();
	EXPECT_GT(t, READ_ONCE(timer_ticks), t0);
}

static void test_irq_save_nests(struct ktest *t)
{
	unsigned long outer = arch_irq_save();
	unsigned long inner = arch_irq_save();

	EXPECT_FALSE(t, arch_irqs_enabled());
	arch_irq_restore(inner);                /* inner saw "off": stays off */
	EXPECT_FALSE(t, arch_irqs_enabled());
	arch_irq_restore(outer);
	EXPECT_TRUE(t, arch_irqs_enabled());
}

static void test_cpu_id(struct ktest *t)
{
	EXPECT_EQ(t, arch_cpu_id(), 0u);        /* one CPU for now */
	EXPECT_TRUE(t, this_cpu() == &percpu_area[0]);
}

static const struct ktest_case x86_timer_cases[] = {
	KTEST_CASE(test_calibration_sane),
	KTEST_CASE(test_reference_order),
	KTEST_CASE(test_references_count),
	KTEST_CASE(test_references_agree),
	KTEST_CASE(test_lapic_mode),
	KTEST_CASE(test_interrupts_on_during_tests),
	KTEST_CASE(test_ticks_advance),
	KTEST_CASE(test_no_ticks_with_irqs_off),
	KTEST_CASE(test_irq_save_nests),
	KTEST_CASE(test_cpu_id),
	{ NULL, NULL },
};

static const struct ktest_suite x86_timer_suite = {
	"x86_timer", x86_timer_cases, 0, NULL, NULL, NULL, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(x86_timer_suite);
