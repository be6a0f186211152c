/*
 * Finding the CPUs: the local APIC ids of the enabled processors, from the
 * ACPI MADT ("APIC" table: processor local APIC and x2APIC entries), or,
 * without ACPI (or with acpi=off), from the Intel MultiProcessor
 * Specification tables ("_MP_" floating pointer, "PCMP" configuration
 * table, processor entries). The ACPI RSDP is the loader's copy when it
 * gave one (multiboot2 ACPI tags: the only way on UEFI); otherwise it and
 * the MP floating pointer are found by scanning the BIOS areas the
 * specifications name: the first KiB of the EBDA and 0xE0000-0xFFFFF.
 *
 * Firmware tables are read through the direct map; a table outside it
 * (not in a RAM range) is mapped uncached first.
 */
#include "x86.h"
#include "x86_mmu.h"
#include "arch.h"
#include "kstring.h"
#include "printk.h"

#define MADT_LAPIC   0
#define MADT_X2APIC  9
#define MADT_ENABLED 0x1

struct mp_float {
	char sig[4];
	uint32_t config;
	uint8_t length, spec_rev, checksum, features[5];
} __attribute__((packed));

struct mp_config {
	char sig[4];
	uint16_t base_len;
	uint8_t spec_rev, checksum;
	char oem[8], product[12];
	uint32_t oem_table;
	uint16_t oem_size, entries;
	uint32_t lapic;
	uint16_t ext_len;
	uint8_t ext_checksum, reserved;
} __attribute__((packed));

#define MP_PROCESSOR 0
#define MP_CPU_ENABLED 0x1

static void add_cpu(struct cpu_enum *e, uint32_t apic_id)
{
	for (unsigned i = 0; i < e->n; i++)
		if (e->apic_id[i] == apic_id)
			return;
	if (e->n < NR_CPUS)
		e->apic_id[e->n++] = apic_id;
	else
		e->ignored++;
}

static bool from_madt(struct cpu_enum *e, const void *rsdp, size_t rsdp_len)
{
	const struct sdt_header *m = acpi_find_table("APIC", rsdp, rsdp_len);
	const uint8_t *p, *end;

	if (!m)
		return false;
	p = (const uint8_t *)m + sizeof(*m) + 8;        /* local APIC address, flags */
	end = (const uint8_t *)m + m->length;
	for (; p + 2 <= end && p[1] >= 2 && p + p[1] <= end; p += p[1]) {
		uint32_t flags, id;

		if (p[0] == MADT_LAPIC && p[1] >= 8) {
			memcpy(&flags, p + 4, 4);
			id = p[3];
		} else if (p[0] == MADT_X2APIC && p[1] >= 16) {
			memcpy(&flags, p + 8, 4);
			memcpy(&id, p + 4, 4);
		} else {
			continue;
		}
		if (flags & MADT_ENABLED)
			add_cpu(e, id);
	}
	e->source = "ACPI MADT";
	return e->n > 0;
}

static bool from_mp_tables(struct cpu_enum *e)
{
	const struct mp_float *f = fw_scan_bios("_MP_", 4, 16);
	const struct mp_config *c;
	const uint8_t *p, *end;

	if (!f || f->features[0] || !f->config)
		return false;           /* none, or a default configuration without a table */
	c = fw_map(f->config, sizeof(*c));
	if (!c || memcmp(c->sig, "PCMP", 4) || !(c = fw_map(f->config, c->base_len)) ||
	    !fw_sum_ok(c, c->base_len))
		return false;
	p = (const uint8_t *)(c + 1);
	end = (const uint8_t *)c + c->base_len;
	for (unsigned i = 0; i < c->entries && p < end; i++) {
		if (p[0] == MP_PROCESSOR) {
			if (p + 20 > end)
				break;
			if (p[3] & MP_CPU_ENABLED)
				add_cpu(e, p[1]);
			p += 20;
		} else {
			p += 8;
		}
	}
	e->source = "MP tables";
	return e->n > 0;
}

/*
 * cpu_enumerate: fill e with the APIC ids of the enabled CPUs, the boot
 * CPU's (boot_apic_id) first; from the MADT unless use_acpi is false or
 * there is none, then from the MP tables; with neither, the boot CPU
 * alone. Ids beyond NR_CPUS CPUs are counted in e->ignored. rsdp: the
 * loader's copy of the ACPI RSDP (rsdp_len bytes), or rsdp_len 0 to scan
 * the BIOS areas for it.
 */
void cpu_enumerate(struct cpu_enum *e, uint32_t boot_apic_id, bool use_acpi,
		   const void *rsdp, size_t rsdp_len)
{
	memset(e, 0, sizeof(*e));
	add_cpu(e, boot_apic_id);
	if ((use_acpi && from_madt(e, rsdp, rsdp_len)) || from_mp_tables(e))
		return;
	e->n = 1;
	e->source = "no ACPI or MP table: boot CPU only";
}
