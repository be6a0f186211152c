/* CPU feature detection and the per-CPU area reached through GS base. */
#include "x86.h"
#include "arch.h"
#include "kstring.h"

struct x86_features x86_cpu;
struct percpu percpu_area[NR_CPUS];

void percpu_init_cpu(unsigned cpu)
{
	struct percpu *p = &percpu_area[cpu];

	p->self = p;
	p->cpu_id = cpu;
	p->irq_depth = 0;
	p->fault_catch = NULL;
	wrmsr(MSR_GS_BASE, (uint64_t)p);
}

/* percpu_init_boot: point GS base at CPU 0's per-CPU area. Call first thing in kmain. */
void percpu_init_boot(void)
{
	percpu_init_cpu(0);
}

/* cpu_features_init: fill x86_cpu from CPUID. */
void cpu_features_init(void)
{
	uint32_t a, b, c, d, max_ext, max_std;

	cpuid(0, 0, &a, &b, &c, &d);
	memcpy(x86_cpu.vendor + 0, &b, 4);
	memcpy(x86_cpu.vendor + 4, &d, 4);
	memcpy(x86_cpu.vendor + 8, &c, 4);
	x86_cpu.vendor[12] = 0;

	max_std = a;
	cpuid(1, 0, &a, &b, &c, &d);
	x86_cpu.pge = d & (1u << 13);
	x86_cpu.hypervisor = c & (1u << 31);
	x86_cpu.family = (a >> 8) & 0xf;
	if (x86_cpu.family == 0xf)
		x86_cpu.family += (a >> 20) & 0xff;

	if (max_std >= 7) {
		cpuid(7, 0, &a, &b, &c, &d);
		x86_cpu.pku = c & (1u << 3);
		x86_cpu.erms = b & (1u << 9);
		x86_cpu.smep = b & (1u << 7);
		x86_cpu.smap = b & (1u << 20);
	}

	cpuid(0x80000000, 0, &max_ext, &b, &c, &d);
	if (max_ext >= 0x80000001) {
		cpuid(0x80000001, 0, &a, &b, &c, &d);
		x86_cpu.nx = (d & (1u << 20)) && (rdmsr(MSR_EFER) & (1u << 11));
		x86_cpu.pdpe1gb = d & (1u << 26);
	}
	if (max_ext >= 0x80000007) {
		cpuid(0x80000007, 0, &a, &b, &c, &d);
		x86_cpu.invariant_tsc = d & (1u << 8);
	}
}

struct lockdep_held *lockdep_cpu_held(void)
{
	return &this_cpu()->held;
}

bool x86_pku_enabled;

#define CR4_PKE (1UL << 22)

void x86_pku_init(bool allow)
{
	if (!x86_cpu.pku || !allow)
		return;
	x86_pku_enabled = true;
	x86_pku_init_cpu();
}

void x86_pku_init_cpu(void)
{
	if (!x86_pku_enabled)
		return;
	write_cr4(read_cr4() | CR4_PKE);
	wrpkru(PKRU_INIT);
}
