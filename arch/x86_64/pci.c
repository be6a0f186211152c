/* PCI configuration space through ports 0xcf8/0xcfc (mechanism 1), bus 0, function 0; MSI-X routing. */
#include "x86.h"
#include "x86_mmu.h"

#define PCI_ADDR 0xcf8
#define PCI_DATA 0xcfc

static uint32_t pci_address(unsigned dev, unsigned off)
{
	return 0x80000000U | (dev & 31) << 11 | (off & 0xfc);
}

uint32_t pci_read32(unsigned dev, unsigned off)
{
	outl(PCI_ADDR, pci_address(dev, off));
	return inl(PCI_DATA);
}

void pci_write32(unsigned dev, unsigned off, uint32_t v)
{
	outl(PCI_ADDR, pci_address(dev, off));
	outl(PCI_DATA, v);
}

#define PCI_STATUS_CAP_LIST 0x10        /* status register (0x06): a capability list at 0x34 */
#define PCI_CAP_MSIX        0x11
#define MSIX_ENABLE         (1U << 31)  /* message control (bits 16-31 of the capability's first dword) */
#define MSIX_FUNCTION_MASK  (1U << 30)
#define MSI_ADDRESS_BASE    0xfee00000U /* the local APICs' message window; destination id in bits 12-19 */

/* The offset of capability id in dev's configuration space, or 0. */
static unsigned pci_find_cap(unsigned dev, unsigned id)
{
	unsigned off, guard = 48;

	if (!((pci_read32(dev, 0x04) >> 16) & PCI_STATUS_CAP_LIST))
		return 0;
	off = pci_read32(dev, 0x34) & 0xfc;
	while (off >= 0x40 && guard--) {
		uint32_t head = pci_read32(dev, off);

		if ((head & 0xff) == id)
			return off;
		off = (head >> 8) & 0xfc;
	}
	return 0;
}

/* The physical address of memory BAR bar of dev, or 0 (an I/O BAR, or one the firmware left unassigned). */
static uint64_t pci_mem_bar(unsigned dev, unsigned bar)
{
	uint32_t lo = pci_read32(dev, 0x10 + 4 * bar);
	uint64_t pa = lo & ~0xfULL;

	if (lo & 1)
		return 0;
	if (((lo >> 1) & 3) == 2 && bar < 5)    /* 64-bit BAR: the next one holds the high half */
		pa |= (uint64_t)pci_read32(dev, 0x10 + 4 * (bar + 1)) << 32;
	return pa;
}

int pci_msix_route(unsigned dev, unsigned entry, unsigned vector, uint32_t apic_id)
{
	unsigned cap = pci_find_cap(dev, PCI_CAP_MSIX);
	uint32_t ctl, table, size;
	uint64_t bar;
	volatile uint32_t *e;

	if (!cap || apic_id > 0xff)
		return -1;
	ctl = pci_read32(dev, cap);
	size = ((ctl >> 16) & 0x7ff) + 1;
	table = pci_read32(dev, cap + 4);
	bar = pci_mem_bar(dev, table & 7);
	if (entry >= size || !bar)
		return -1;
	pci_write32(dev, 0x04, pci_read32(dev, 0x04) | 0x2);       /* memory space decoding */
	e = kpgtable_map_mmio(bar + (table & ~7U) + 16 * entry, 16);
	if (!e)
		return -1;
	e[0] = MSI_ADDRESS_BASE | apic_id << 12;
	e[1] = 0;
	e[2] = vector;                          /* fixed delivery, edge */
	e[3] = 0;                               /* unmasked */
	pci_write32(dev, cap, (ctl | MSIX_ENABLE) & ~MSIX_FUNCTION_MASK);
	return 0;
}
