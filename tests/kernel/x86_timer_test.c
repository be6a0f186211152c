/*
 * The LAPIC timer tick and the interrupt-state primitives. Time is measured
 * with the TSC (calibrated against the PIT at boot); bounds are wide because
 * QEMU without KVM runs the guest at a varying speed.
 */
#include "ktest.h"
#include "x86.h"
#include "lockless.h"
#include "arch.h"

/* Spin with interrupts on for ms milliseconds of TSC time; returns ticks seen. */
static uint64_t ticks_during(unsigned ms)
{
	uint64_t t0 = READ_ONCE(timer_ticks), start = rdtsc();

	while (rdtsc() - start < tsc_khz * ms)
		arch_cpu_relax();
	return READ_ONCE(timer_ticks) - t0;
}

static void test_calibration_sane(struct ktest *t)
{
	EXPECT_GT(t, tsc_khz, 10000);           /* > 10 MHz */
	EXPECT_GT(t, lapic_timer_khz, 100);     /* > 100 kHz after the divider */
}

static void test_interrupts_on_during_tests(struct ktest *t)
{
	EXPECT_TRUE(t, arch_irqs_enabled());
}

/*
 * 50 ms at TIMER_HZ = 1000 is 50 ticks. At most 5x that; but only "some"
 * as the lower bound: when the host does not run the vCPU's thread for a
 * while, QEMU delivers the periodic timer's missed expirations as one
 * interrupt, so a loaded host shows fewer ticks than TSC time (6 in 50 ms
 * at load 10, in check-labs), and no rate can be demanded.
 */
static void test_ticks_advance(struct ktest *t)
{
	uint64_t n = ticks_during(50);

	EXPECT_GE(t, n, 1);
	EXPECT_LE(t, n, 50 * TIMER_HZ / 1000 * 5);
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
