/* CPU feature detection and the per-CPU area reached through GS base. */
#include "x86.h"
#include "arch.h"
#include "kstring.h"
#include "printk.h"
#include "x86_mmu.h"

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
	x86_cpu.pcid = c & (1u << 17);
	x86_cpu.x2apic = c & (1u << 21);
	x86_cpu.family = (a >> 8) & 0xf;
	if (x86_cpu.family == 0xf)
		x86_cpu.family += (a >> 20) & 0xff;

	if (max_std >= 7) {
		cpuid(7, 0, &a, &b, &c, &d);
		x86_cpu.pku = c & (1u << 3);
		x86_cpu.erms = b & (1u << 9);
		x86_cpu.smep = b & (1u << 7);
		x86_cpu.smap = b & (1u << 20);
		x86_cpu.invpcid = b & (1u << 10);
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

void cpu_features_report(void)
{
	const struct { const char *name; bool found, used; } f[] = {
		/* NX: found and EFER.NXE set */
		{ .name = "NX", .found = x86_cpu.nx, .used = x86_cpu.nx },
		{ .name = "1G-pages", .found = x86_cpu.pdpe1gb, .used = x86_cpu.pdpe1gb }, /* direct map */
		{ .name = "PGE", .found = x86_cpu.pge, .used = x86_cpu.pge },
		{ .name = "PCID", .found = x86_cpu.pcid, .used = false },
		{ .name = "INVPCID", .found = x86_cpu.invpcid, .used = false },
		{ .name = "PKU", .found = x86_cpu.pku, .used = x86_pku_enabled },
		{ .name = "SMEP", .found = x86_cpu.smep, .used = x86_smep_enabled },
		{ .name = "SMAP", .found = x86_cpu.smap, .used = x86_smap_enabled },
		{ .name = "ERMS", .found = x86_cpu.erms, .used = x86_cpu.erms },  /* page_ops.c */
		{ .name = "x2APIC", .found = x86_cpu.x2apic, .used = x2apic_enabled },
		{ .name = "invariant-TSC", .found = x86_cpu.invariant_tsc, .used = false },
	};
	char found[128], used[128];
	size_t nf = 0, nu = 0;

	found[0] = used[0] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		if (f[i].found && nf < sizeof(found))
			nf += ksnprintf(found + nf, sizeof(found) - nf, " %s", f[i].name);
		if (f[i].used && nu < sizeof(used))
			nu += ksnprintf(used + nu, sizeof(used) - nu, " %s", f[i].name);
	}
	printk("cpu: features found:%s\n", nf ? found : " none");
	printk("cpu: features used:%s\n", nu ? used : " none");
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
