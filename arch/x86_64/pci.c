/* PCI configuration space through ports 0xcf8/0xcfc (mechanism 1), bus 0, function 0. */
#include "x86.h"

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
