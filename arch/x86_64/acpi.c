/*
 * Firmware tables in memory: mapping them (through the direct map, or
 * uncached where they are outside RAM), their byte checksums, the BIOS
 * areas the ACPI and MP specifications say to scan (the first KiB of the
 * EBDA and 0xE0000-0xFFFFF), and the ACPI tables found from the RSDP
 * through the XSDT (ACPI 2+) or the RSDT. Users: cpu_enum.c (MADT, MP
 * tables) and clockref.c (HPET, FADT).
 */
#include "x86.h"
#include "x86_mmu.h"
#include "arch.h"
#include "kstring.h"

struct rsdp {
	char sig[8];
	uint8_t checksum;
	char oem[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length;
	uint64_t xsdt;
	uint8_t ext_checksum, reserved[3];
} __attribute__((packed));


/* A firmware table at pa, len bytes readable, or NULL. */
const void *fw_map(phys_addr_t pa, size_t len)
{
	uint64_t pte, eff;
	int level;

	if (!len || pa + len < pa)
		return NULL;
	for (phys_addr_t a = ALIGN_DOWN(pa, PAGE_SIZE); a < pa + len; a += PAGE_SIZE)
		if (x86_pt_walk(kernel_cr3, DIRECT_MAP_BASE + a, &pte, &level, &eff))
			return kpgtable_map_mmio(pa, len);
	return phys_to_virt(pa);
}

bool fw_sum_ok(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t s = 0;

	for (size_t i = 0; i < len; i++)
		s += b[i];
	return s == 0;
}

/* Scan [start, start + len) in 16-byte steps for sig with a valid checksum over sumlen bytes. */
static const void *scan(phys_addr_t start, size_t len, const char *sig, size_t siglen, size_t sumlen)
{
	const uint8_t *p = fw_map(start, len);

	for (size_t off = 0; p && off + sumlen <= len; off += 16)
		if (memcmp(p + off, sig, siglen) == 0 && fw_sum_ok(p + off, sumlen))
			return p + off;
	return NULL;
}

/* The EBDA (its segment is at 0x40E) then the BIOS ROM area. */
const void *fw_scan_bios(const char *sig, size_t siglen, size_t sumlen)
{
	const uint16_t *ebda_seg = fw_map(0x40E, 2);
	const void *r = NULL;

	if (ebda_seg && *ebda_seg)
		r = scan((phys_addr_t)*ebda_seg << 4, 1024, sig, siglen, sumlen);
	return r ? r : scan(0xE0000, 0x20000, sig, siglen, sumlen);
}

static const struct sdt_header *sdt_at(phys_addr_t pa)
{
	const struct sdt_header *h = fw_map(pa, sizeof(*h));

	if (!h || h->length < sizeof(*h))
		return NULL;
	h = fw_map(pa, h->length);
	return h && fw_sum_ok(h, h->length) ? h : NULL;
}

const struct sdt_header *acpi_find_table(const char *sig, const void *rsdp_copy, size_t len)
{
	const struct rsdp *r = len >= 20 ? rsdp_copy : fw_scan_bios("RSD PTR ", 8, 20);
	const struct sdt_header *root;
	bool x;

	if (!r || memcmp(r->sig, "RSD PTR ", 8) || !fw_sum_ok(r, 20))
		return NULL;
	x = r->revision >= 2 && (len == 0 || len >= sizeof(*r)) && r->xsdt;
	root = sdt_at(x ? r->xsdt : r->rsdt);
	if (!root)
		return NULL;
	for (size_t off = sizeof(*root); off + (x ? 8 : 4) <= root->length; off += x ? 8 : 4) {
		uint64_t pa = 0;
		const struct sdt_header *t;

		memcpy(&pa, (const char *)root + off, x ? 8 : 4);
		t = sdt_at(pa);
		if (t && memcmp(t->sig, sig, 4) == 0)
			return t;
	}
	return NULL;
}

