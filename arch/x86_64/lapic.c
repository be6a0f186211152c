/*
 * Local APIC and its timer. The timer's input clock is measured on the boot
 * CPU over 10 ms of a reference clock (clockref.c: the HPET, else the ACPI
 * PM timer, else PIT channel 2), which also gives the TSC frequency; then
 * the timer runs periodically at
 * TIMER_HZ on VEC_TIMER, on every CPU with the boot CPU's calibration
 * (each CPU's LAPIC has its own timer, programmed by lapic_init_cpu).
 * timer_ticks counts the boot CPU's ticks. The legacy 8259 PICs are
 * remapped to VEC_PIC_BASE and masked.
 */
#include "x86.h"
#include "kernel_hooks.h"
#include "x86_mmu.h"
#include "arch.h"
#include "printk.h"
#include "kernel.h"
#include "lockless.h"
#include "multiboot.h"

#define LAPIC_TPR      0x080
#define LAPIC_EOI      0x0B0
#define LAPIC_SVR      0x0F0
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR  0x390
#define LAPIC_TIMER_DIV  0x3E0

#define LVT_MASKED     (1u << 16)
#define LVT_PERIODIC   (1u << 17)

#define CALIBRATE_MS   10u

#define APIC_BASE_EXTD (1UL << 10)        /* x2APIC mode */
#define APIC_BASE_EN   (1UL << 11)        /* global enable */
#define X2APIC_MSR(reg) (0x800 + (reg) / 16)
#define ICR_DELIVERY_PENDING (1u << 12)   /* xAPIC only: x2APIC has no such bit */

static volatile uint32_t *lapic;
bool x2apic_enabled;
uint64_t timer_ticks;
uint64_t tsc_khz;
uint32_t lapic_timer_khz;
const char *timer_reference;

/* A register by its xAPIC offset: the MMIO word, or in x2APIC mode its MSR. */
static uint32_t lapic_read(unsigned reg)
{
	return x2apic_enabled ? (uint32_t)rdmsr(X2APIC_MSR(reg)) : lapic[reg / 4];
}

static void lapic_write(unsigned reg, uint32_t v)
{
	if (x2apic_enabled)
		wrmsr(X2APIC_MSR(reg), v);
	else
		lapic[reg / 4] = v;
}

/* lapic_id: the running CPU's local APIC id (32 bits in x2APIC mode, 8 in xAPIC mode). */
uint32_t lapic_id(void)
{
	return x2apic_enabled ? lapic_read(LAPIC_ID) : lapic_read(LAPIC_ID) >> 24;
}

/*
 * lapic_send_icr: write the interrupt command register, destination
 * apic_id; xAPIC: two MMIO words (destination in bits 56-63) after the
 * previous command's delivery; x2APIC: one MSR (destination in bits
 * 32-63). Interrupts are off across it so a handler cannot send in between.
 */
void lapic_send_icr(uint32_t apic_id, uint32_t low)
{
	unsigned long f = arch_irq_save();

	if (x2apic_enabled) {
		wrmsr(X2APIC_MSR(LAPIC_ICR_LOW), (uint64_t)apic_id << 32 | low);
	} else {
		while (lapic_read(LAPIC_ICR_LOW) & ICR_DELIVERY_PENDING)
			arch_cpu_relax();
		lapic_write(LAPIC_ICR_HIGH, apic_id << 24);
		lapic_write(LAPIC_ICR_LOW, low);
	}
	arch_irq_restore(f);
}

/*
 * Turn the running CPU's LAPIC on, in x2APIC mode when x2apic_enabled
 * (the boot CPU decided: timer_init): xAPIC first, then x2APIC, the
 * transitions the architecture allows.
 */
static void lapic_enable(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	if (!(base & APIC_BASE_EN))
		wrmsr(MSR_APIC_BASE, base |= APIC_BASE_EN);
	if (x2apic_enabled && !(base & APIC_BASE_EXTD))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_EXTD);
}

uint32_t lapic_timer_count(void)
{
	return lapic_read(LAPIC_TIMER_CUR);
}

void lapic_eoi(void)
{
	if (lapic || x2apic_enabled)
		lapic_write(LAPIC_EOI, 0);
}

static void pic_disable(void)
{
	/* ICW1..ICW4: remap to VEC_PIC_BASE / +8 so stray IRQs are not exceptions, then mask. */
	outb(0x20, 0x11);
	outb(0xA0, 0x11);
	outb(0x21, VEC_PIC_BASE);
	outb(0xA1, VEC_PIC_BASE + 8);
	outb(0x21, 4);
	outb(0xA1, 2);
	outb(0x21, 1);
	outb(0xA1, 1);
	outb(0x21, 0xff);
	outb(0xA1, 0xff);
}

/*
 * Measure the LAPIC timer's and the TSC's rates over CALIBRATE_MS of the
 * first reference clock that works: the HPET, the ACPI PM timer, the PIT.
 */
static void calibrate(const struct boot_info *bi, bool use_acpi)
{
	const struct clockref *refs[3];
	struct clock_calib c;
	size_t i;

	clockref_init(use_acpi, bi->rsdp, bi->rsdp_len);
	refs[0] = clockref_hpet();
	refs[1] = clockref_pm_timer();
	refs[2] = clockref_pit();
	lapic_write(LAPIC_TIMER_DIV, 0x3);      /* divide by 16 */
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VEC_TIMER);
	lapic_write(LAPIC_TIMER_INIT, 0xffffffff);
	for (i = 0; i < ARRAY_SIZE(refs); i++) {
		if (refs[i] && clockref_calibrate(refs[i], CALIBRATE_MS, &c))
			break;
		if (refs[i])
			printk("timer: the %s does not count or cannot be read; trying the next\n",
			       refs[i]->name);
	}
	if (i == ARRAY_SIZE(refs))
		panic("timer: no reference clock counts (HPET, ACPI PM timer, PIT channel 2)");
	lapic_write(LAPIC_TIMER_INIT, 0);
	timer_reference = refs[i]->name;
	printk("timer: calibrated against the %s (%llu Hz, %u-bit counter)\n",
	       refs[i]->name, (unsigned long long)refs[i]->hz, 64 - __builtin_clzll(refs[i]->mask));
	lapic_timer_khz = c.lapic_khz;
	tsc_khz = c.tsc_khz;
}

/*
 * The timer fires profile_timer_mult() times per scheduler tick
 * (profile_hz=), on every CPU. The profiler's counters are plain, so only
 * the boot CPU samples (kernel/profile/profile.c); it also keeps the tick count,
 * the kernel timers and the console polling; every CPU counts down the
 * slice of the task it runs.
 */
static unsigned timer_subticks[NR_CPUS];
/* The timer's initial count for one period at the configured rate (lapic_start). */
static uint32_t timer_period;
/* The boot CPU's current period: timer_period, or a dithered one while profiling. */
static uint32_t cpu0_period;

static void timer_interrupt(struct trap_frame *tf)
{
	unsigned cpu = arch_cpu_id();

	if (cpu == 0) {
		uint32_t next;

		profile_tick(tf->rip, tf->rsp, tf->rbp, (tf->cs & 3) != 0);
		next = profile_period(timer_period);
		if (next != cpu0_period) {
			/* (re)starts the periodic count with the new period */
			lapic_write(LAPIC_TIMER_INIT, next);
			cpu0_period = next;
		}
	}
	lapic_eoi();
	if (++timer_subticks[cpu] < profile_timer_mult())
		return;
	timer_subticks[cpu] = 0;
	if (cpu == 0) {
		WRITE_ONCE(timer_ticks, timer_ticks + 1);
		ktimer_tick();
		console_poll();
	}
	if (this_cpu()->cur_task)
		sched_tick((tf->cs & 3) != 0);
}

/* Enable the running CPU's LAPIC and start its periodic timer. */
static void lapic_start(void)
{
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_SVR, 0x100 | VEC_SPURIOUS);
	lapic_write(LAPIC_TIMER_DIV, 0x3);
	lapic_write(LAPIC_LVT_TIMER, LVT_PERIODIC | VEC_TIMER);
	timer_period = lapic_timer_khz * 1000 / (TIMER_HZ * profile_timer_mult());
	cpu0_period = timer_period;
	lapic_write(LAPIC_TIMER_INIT, timer_period);
}

/* lapic_init_cpu: an application processor's LAPIC and timer, as timer_init set up the boot CPU's. */
void lapic_init_cpu(void)
{
	lapic_enable();
	lapic_start();
}

/*
 * x2APIC mode when the CPU has it and want_x2apic (x2apic=on), or when the
 * firmware handed over in it (leaving it needs a disable, which loses the
 * LAPIC's state); otherwise xAPIC, its registers mapped.
 */
static void lapic_mode_init(bool want_x2apic)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);
	phys_addr_t pa = base & 0xfffff000UL;

	x2apic_enabled = (x86_cpu.x2apic && want_x2apic) || (base & APIC_BASE_EXTD);
	if (!x2apic_enabled) {
		lapic = kpgtable_map_mmio(pa, PAGE_SIZE);
		if (!lapic)
			panic("timer: cannot map the local APIC at %llx", (unsigned long long)pa);
	}
	lapic_enable();
	printk("lapic: %s mode%s\n", x2apic_enabled ? "x2APIC" : "xAPIC",
	       (base & APIC_BASE_EXTD) ? " (the firmware's)" : "");
}

/* timer_init: enable the LAPIC, calibrate, start the periodic tick. Interrupts stay off. */
void timer_init(const struct boot_info *bi, bool use_acpi, bool want_x2apic)
{
	pic_disable();
	lapic_mode_init(want_x2apic);
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_SVR, 0x100 | VEC_SPURIOUS);

	calibrate(bi, use_acpi);
	if (lapic_timer_khz == 0)
		panic("timer: LAPIC timer did not count during calibration");

	irq_register(VEC_TIMER, timer_interrupt);
	lapic_start();
	printk("timer: LAPIC id %u, timer clock %u kHz, TSC %llu kHz, tick %u Hz\n",
	       lapic_id(), lapic_timer_khz, (unsigned long long)tsc_khz, TIMER_HZ);
}
