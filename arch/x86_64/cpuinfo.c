/*
 * What /proc/cpuinfo says of a CPU (include/arch.h, arch_cpu_identity),
 * from CPUID: the vendor, family, model and stepping as Linux computes
 * them (extended family and model folded in), the brand string, and the
 * feature flags of a small table, under Linux's names.
 */
#include "arch.h"
#include "x86.h"
#include "kstring.h"
#include "printk.h"
#include "kernel.h"

struct cpu_flag {
	uint8_t reg;            /* 0: leaf 1 edx, 1: leaf 1 ecx, 2: leaf 7 ebx, 3: 0x80000001 edx, 4: 0x80000001 ecx */
	uint8_t bit;
	const char *name;
};

/* In Linux's order (the X86_FEATURE_ words), the ones user programs look for. */
#define F(r, b, n) { .reg = (r), .bit = (b), .name = (n) }
static const struct cpu_flag flags[] = {
	F(0, 0, "fpu"), F(0, 1, "vme"), F(0, 2, "de"), F(0, 3, "pse"), F(0, 4, "tsc"),
	F(0, 5, "msr"), F(0, 6, "pae"), F(0, 7, "mce"), F(0, 8, "cx8"), F(0, 9, "apic"),
	F(0, 11, "sep"), F(0, 12, "mtrr"), F(0, 13, "pge"), F(0, 14, "mca"), F(0, 15, "cmov"),
	F(0, 16, "pat"), F(0, 17, "pse36"), F(0, 19, "clflush"), F(0, 23, "mmx"),
	F(0, 24, "fxsr"), F(0, 25, "sse"), F(0, 26, "sse2"), F(0, 28, "ht"),
	F(3, 11, "syscall"), F(3, 20, "nx"), F(3, 27, "rdtscp"), F(3, 29, "lm"),
	F(1, 0, "pni"), F(1, 1, "pclmulqdq"), F(1, 9, "ssse3"), F(1, 12, "fma"), F(1, 13, "cx16"),
	F(1, 19, "sse4_1"), F(1, 20, "sse4_2"), F(1, 22, "movbe"), F(1, 23, "popcnt"),
	F(1, 25, "aes"), F(1, 26, "xsave"), F(1, 28, "avx"), F(1, 29, "f16c"), F(1, 30, "rdrand"),
	F(1, 31, "hypervisor"), F(4, 0, "lahf_lm"), F(4, 5, "abm"),
	F(2, 0, "fsgsbase"), F(2, 3, "bmi1"), F(2, 5, "avx2"), F(2, 7, "smep"), F(2, 8, "bmi2"),
	F(2, 9, "erms"), F(2, 16, "avx512f"), F(2, 18, "rdseed"), F(2, 19, "adx"), F(2, 20, "smap"),
	F(2, 29, "sha_ni"),
};
#undef F

void arch_cpu_identity(struct cpu_identity *id)
{
	uint32_t a, b, c, d, regs[5] = { 0 }, max, maxext;
	uint32_t fam, model;
	size_t n = 0;

	memset(id, 0, sizeof(*id));
	cpuid(0, 0, &max, &b, &c, &d);
	memcpy(id->vendor, &b, 4);
	memcpy(id->vendor + 4, &d, 4);
	memcpy(id->vendor + 8, &c, 4);
	id->cpuid_level = max;
	cpuid(1, 0, &a, &b, &regs[1], &regs[0]);
	fam = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (fam == 0xf)
		fam += (a >> 20) & 0xff;
	if (fam >= 6)
		model += ((a >> 16) & 0xf) << 4;
	id->family = fam;
	id->model = model;
	id->stepping = a & 0xf;
	id->clflush = ((b >> 8) & 0xff) * 8;
	if (max >= 7)
		cpuid(7, 0, &a, &regs[2], &c, &d);
	cpuid(0x80000000, 0, &maxext, &b, &c, &d);
	if (maxext >= 0x80000001)
		cpuid(0x80000001, 0, &a, &b, &regs[4], &regs[3]);
	if (maxext >= 0x80000004) {
		uint32_t *w = (uint32_t *)id->model_name;

		for (uint32_t leaf = 0; leaf < 3; leaf++)
			cpuid(0x80000002 + leaf, 0, &w[leaf * 4], &w[leaf * 4 + 1], &w[leaf * 4 + 2],
			      &w[leaf * 4 + 3]);
		id->model_name[48] = 0;
	}
	if (maxext >= 0x80000008) {
		cpuid(0x80000008, 0, &a, &b, &c, &d);
		id->phys_bits = a & 0xff;
		id->virt_bits = (a >> 8) & 0xff;
	}
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (!(regs[flags[i].reg] & (1U << flags[i].bit)))
			continue;
		n += (size_t)ksnprintf(id->flags + MIN(n, sizeof(id->flags)),
				       n < sizeof(id->flags) ? sizeof(id->flags) - n : 0, "%s%s",
				       n ? " " : "", flags[i].name);
	}
}
