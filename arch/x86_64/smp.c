/*
 * Starting the application processors. smp_init finds the CPUs
 * (cpu_enum.c), copies the real-mode trampoline (boot/ap_trampoline.asm)
 * to AP_TRAMPOLINE_BASE with page tables after it, and starts one AP at a
 * time with INIT, STARTUP, STARTUP (the delays of Intel's MP start-up
 * algorithm, by the TSC, on CPUs that need them: init_wait_needed). Each AP enters ap_main on a kernel stack of its
 * own, which becomes its idle task's stack: it loads the kernel page
 * tables, its per-CPU area (GS base), GDT, TSS and IST stacks, the IDT,
 * the SYSCALL MSRs, protection keys, its LAPIC and timer, reports itself
 * online and enters the idle loop (kernel/sched/sched.c).
 *
 * An AP that does not report in within AP_START_TIMEOUT_MS is given up
 * (and halts itself if it starts later). The low pages used are below
 * 1 MiB, which the boot keeps out of the page allocator; they must not
 * hold a boot module.
 */
#include "x86.h"
#include "lockless.h"
#include "x86_mmu.h"
#include "multiboot.h"
#include "arch.h"
#include "pmm.h"
#include "task.h"
#include "kstring.h"
#include "printk.h"

#define AP_TRAMPOLINE_BASE 0x8000UL     /* boot/ap_trampoline.asm: the same value */
#define TRAMP_PML4 0x9000UL
#define TRAMP_PDPT 0xA000UL
#define TRAMP_PD   0xB000UL
#define TRAMP_END  0xC000UL
#define AP_START_TIMEOUT_MS 5000

extern const char ap_trampoline_start[], ap_trampoline_end[];
extern uint32_t ap_tramp_cr3, ap_tramp_efer, ap_tramp_cpu;
extern uint64_t ap_tramp_stack, ap_tramp_entry;

uint32_t cpu_apic_id[NR_CPUS];
static unsigned long online_mask = 1;
static bool ap_given_up[NR_CPUS];      /* written by the boot CPU, read by the late AP */
/* An application processor's first C code, on its idle stack (the trampoline jumps here). */
static __attribute__((noreturn)) void ap_main(unsigned cpu);

unsigned long arch_cpu_online_mask(void)
{
	return smp_load_acquire(&online_mask);
}

unsigned arch_nr_cpus(void)
{
	unsigned long m = arch_cpu_online_mask();
	unsigned n = 0;

	for (; m; m &= m - 1)
		n++;
	return n;
}

/* Busy-wait us microseconds by the TSC (AP start-up delays; not for tests or I/O). */
static void tsc_delay_us(unsigned us)
{
	uint64_t end = rdtsc() + (uint64_t)us * (tsc_khz ? tsc_khz : 1000000) / 1000;

	while (rdtsc() < end)
		arch_cpu_relax();
}

/* The trampoline copy's word at the same offset as sym in the template. */
static void *tramp_word(const void *sym)
{
	return phys_to_virt(AP_TRAMPOLINE_BASE + ((const char *)sym - ap_trampoline_start));
}

/* Copy the trampoline and build its page tables: low 2 MiB identity mapped, the kernel half shared. */
static void trampoline_setup(void)
{
	uint64_t *pml4 = phys_to_virt(TRAMP_PML4), *pdpt = phys_to_virt(TRAMP_PDPT);
	uint64_t *pd = phys_to_virt(TRAMP_PD);
	const uint64_t *kpml4 = phys_to_virt(kernel_cr3 & PTE_ADDR_MASK);

	memcpy(phys_to_virt(AP_TRAMPOLINE_BASE), ap_trampoline_start,
	       ap_trampoline_end - ap_trampoline_start);
	memset(pml4, 0, PAGE_SIZE);
	memset(pdpt, 0, PAGE_SIZE);
	memset(pd, 0, PAGE_SIZE);
	pd[0] = 0 | PTE_P | PTE_W | PTE_PS;
	pdpt[0] = TRAMP_PD | PTE_P | PTE_W;
	pml4[0] = TRAMP_PDPT | PTE_P | PTE_W;
	for (unsigned i = PT_ENTRIES / 2; i < PT_ENTRIES; i++)
		pml4[i] = kpml4[i];
	*(uint32_t *)tramp_word(&ap_tramp_cr3) = (uint32_t)TRAMP_PML4;
	*(uint32_t *)tramp_word(&ap_tramp_efer) = (1u << 8) | (x86_cpu.nx ? 1u << 11 : 0);
	*(uint64_t *)tramp_word(&ap_tramp_entry) = (uint64_t)ap_main;
}

/* The trampoline pages must not hold a boot module (the rest of [0, 1 MiB) is the firmware's or free). */
static bool trampoline_area_free(const struct boot_info *bi)
{
	for (size_t i = 0; i < bi->nmodules; i++)
		if (bi->modules[i].start < TRAMP_END && bi->modules[i].end > AP_TRAMPOLINE_BASE)
			return false;
	return true;
}

/* The top of a fresh 2^order-page block, or 0. */
static uint64_t stack_alloc(unsigned order)
{
	struct page *p = pmm_alloc(order, 0);

	return p ? (uint64_t)page_address(p) + (PAGE_SIZE << order) : 0;
}

struct ap_stacks {
	uint64_t kstack, df, nmi;       /* tops */
};
static struct ap_stacks ap_stacks[NR_CPUS];

/*
 * Does this CPU need the MP specification's 10 ms wait after INIT? Not
 * under a hypervisor, nor on Intel family 6 and later or AMD family 0xf and
 * later (Linux's smp_quirk_init_udelay). Under QEMU -icount the wait is a
 * busy loop on the TSC, each read of which ends a translation block: with
 * 16 CPUs, 150 ms of guest time that took minutes of host time.
 */
static bool init_wait_needed(void)
{
	if (x86_cpu.hypervisor)
		return false;
	if (strcmp(x86_cpu.vendor, "GenuineIntel") == 0)
		return x86_cpu.family < 6;
	if (strcmp(x86_cpu.vendor, "AuthenticAMD") == 0)
		return x86_cpu.family < 0xf;
	return true;
}

/* INIT-SIPI-SIPI CPU cpu and wait for it to come online. */
static bool start_ap(unsigned cpu)
{
	bool legacy = init_wait_needed();
	uint64_t deadline;
	char *k = arch_kstack_alloc();          /* the idle stack, with a guard below (kstack.c) */

	ap_stacks[cpu].kstack = k ? (uint64_t)k + KSTACK_SIZE : 0;
	ap_stacks[cpu].df = stack_alloc(1);
	ap_stacks[cpu].nmi = stack_alloc(1);
	if (!ap_stacks[cpu].kstack || !ap_stacks[cpu].df || !ap_stacks[cpu].nmi) {
		printk("smp: no memory for cpu %u's stacks\n", cpu);
		return false;
	}
	*(uint64_t *)tramp_word(&ap_tramp_stack) = ap_stacks[cpu].kstack;
	*(uint32_t *)tramp_word(&ap_tramp_cpu) = cpu;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	lapic_send_init(cpu_apic_id[cpu]);
	if (legacy)
		tsc_delay_us(10000);
	for (int i = 0; i < 2; i++) {
		lapic_send_startup(cpu_apic_id[cpu], AP_TRAMPOLINE_BASE >> PAGE_SHIFT);
		tsc_delay_us(legacy ? 200 : 10);
	}
	deadline = rdtsc() + (uint64_t)AP_START_TIMEOUT_MS * tsc_khz;
	while (!(arch_cpu_online_mask() & (1UL << cpu))) {
		if (rdtsc() > deadline) {
			WRITE_ONCE(ap_given_up[cpu], true);
			printk("smp: cpu %u (APIC id %u) did not start; going on without it\n",
			       cpu, cpu_apic_id[cpu]);
			return false;
		}
		arch_cpu_relax();
	}
	return true;
}

void smp_init(const struct boot_info *bi, bool use_acpi, unsigned max_cpus)
{
	struct cpu_enum e;
	unsigned up = 1;

	cpu_enumerate(&e, lapic_id(), use_acpi, bi->rsdp, bi->rsdp_len);
	cpu_apic_id[0] = e.apic_id[0];
	if (max_cpus && e.n > max_cpus)
		e.n = max_cpus;
	if (e.n > 1 && !trampoline_area_free(bi)) {
		printk("smp: a boot module covers the AP trampoline at %#lx; running on one CPU\n",
		       AP_TRAMPOLINE_BASE);
		e.n = 1;
	}
	if (e.n > 1)
		trampoline_setup();
	for (unsigned cpu = 1; cpu < e.n; cpu++) {
		cpu_apic_id[cpu] = e.apic_id[cpu];
		if (e.apic_id[cpu] > 0xff && !x2apic_enabled) {
			printk("smp: cpu %u's APIC id %u needs x2APIC mode; not started\n",
			       cpu, e.apic_id[cpu]);
			continue;
		}
		up += start_ap(cpu);
	}
	printk("smp: %u CPU%s found (%s)%s, %u online\n", e.n, e.n == 1 ? "" : "s", e.source,
	       e.ignored ? ", more than NR_CPUS ignored" : "", up);
}

/* ap_main: an application processor's first C code (boot/ap_trampoline.asm). */
static __attribute__((noreturn)) void ap_main(unsigned cpu)
{
	write_cr3(kernel_cr3);
	if (READ_ONCE(ap_given_up[cpu]))
		for (;;)
			hlt();
	if (x86_cpu.pge)
		write_cr4(read_cr4() | (1UL << 7));
	percpu_init_cpu(cpu);
	gdt_init_cpu(cpu, ap_stacks[cpu].df, ap_stacks[cpu].nmi);
	idt_load();
	syscall_init_cpu();
	x86_pku_init_cpu();
	x86_smap_init_cpu();
	lapic_init_cpu();
	sched_init_cpu(cpu, (void *)(ap_stacks[cpu].kstack - KSTACK_SIZE));
	__atomic_fetch_or(&online_mask, 1UL << cpu, __ATOMIC_RELEASE);
	cpu_idle();
}
