/*
 * The kernel page tables (see arch/x86_64/include/x86_mmu.h for the contract):
 *
 *   0xffff888000000000 + pa   direct map of RAM, 2 MiB / 1 GiB pages, RW NX G
 *   0xffffffff80000000 + pa   kernel image, 4 KiB pages:
 *                               [__text_start, __text_end)    R X G
 *                               [__rodata_start, __rodata_end) R NX G
 *                               [__data_start, __kernel_end)   RW NX G
 *                               except the boot stack's guard page (not present)
 *   0xffffc90000000000        kernel stacks with guard pages (kstack.c), 4 KiB pages
 *   everything else           not present (the NULL page, the boot identity map)
 */
#include "x86_mmu.h"
#include "x86.h"
#include "arch.h"
#include "pmm.h"
#include "kstring.h"
#include "printk.h"
#include "kernel.h"

extern const char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern const char __data_start[], __kernel_end[];
extern const char boot_stack_guard[];

uint64_t kernel_cr3;
static uint64_t *kernel_pml4;
static phys_addr_t (*pt_alloc_fn)(void);

static phys_addr_t pt_alloc_pmm(void)
{
	void *va = pmm_alloc_frame(GFP_ZERO);

	return va ? virt_to_phys(va) : 0;
}

void kpgtable_use_pmm(void)
{
	pt_alloc_fn = pt_alloc_pmm;
}

/* The table below entry e at *slot, allocating it if absent. NULL when out of memory. */
static uint64_t *pt_next(uint64_t *slot)
{
	phys_addr_t pa;

	if (*slot & PTE_P) {
		BUG_ON(*slot & PTE_PS);
		return phys_to_virt(*slot & PTE_ADDR_MASK);
	}
	pa = pt_alloc_fn();
	if (!pa)
		return NULL;
	memset(phys_to_virt(pa), 0, PAGE_SIZE);
	/* intermediate entries are permissive; leaves decide W and NX */
	*slot = pa | PTE_P | PTE_W;
	return phys_to_virt(pa);
}

/*
 * Map [va, va + size) to [pa, ...) with flags, using the largest page size
 * that alignment and max_level (1: 4K, 2: 2M, 3: 1G) allow. 0 or -1 (no memory).
 */
static int map_range(uintptr_t va, phys_addr_t pa, size_t size, uint64_t flags, int max_level)
{
	while (size) {
		uint64_t *pml4e = &kernel_pml4[pt_index(va, 4)];
		uint64_t *pdpt = pt_next(pml4e), *pd, *pt;

		if (!pdpt)
			return -1;
		if (max_level >= 3 && IS_ALIGNED(va | pa, PAGE_SIZE_1G) && size >= PAGE_SIZE_1G) {
			pdpt[pt_index(va, 3)] = pa | flags | PTE_PS;
			va += PAGE_SIZE_1G, pa += PAGE_SIZE_1G, size -= PAGE_SIZE_1G;
			continue;
		}
		pd = pt_next(&pdpt[pt_index(va, 3)]);
		if (!pd)
			return -1;
		if (max_level >= 2 && IS_ALIGNED(va | pa, PAGE_SIZE_2M) && size >= PAGE_SIZE_2M) {
			pd[pt_index(va, 2)] = pa | flags | PTE_PS;
			va += PAGE_SIZE_2M, pa += PAGE_SIZE_2M, size -= PAGE_SIZE_2M;
			continue;
		}
		pt = pt_next(&pd[pt_index(va, 2)]);
		if (!pt)
			return -1;
		pt[pt_index(va, 1)] = pa | flags;
		va += PAGE_SIZE, pa += PAGE_SIZE, size -= PAGE_SIZE;
	}
	return 0;
}

static void map_image(const char *start, const char *end, uint64_t flags)
{
	uintptr_t s = ALIGN_DOWN((uintptr_t)start, PAGE_SIZE);
	uintptr_t e = ALIGN_UP((uintptr_t)end, PAGE_SIZE);

	if (e > s && map_range(s, s - KERNEL_VMA, e - s, flags, 1))
		panic("kpgtable: out of memory mapping the kernel image");
}

void kpgtable_init(const struct mem_range *ram, size_t nram, phys_addr_t (*alloc_pt)(void))
{
	uint64_t g = x86_cpu.pge ? PTE_G : 0;
	phys_addr_t mapped_end = 0, pml4;
	int max_level = x86_cpu.pdpe1gb ? 3 : 2;
	size_t direct = 0;

	pte_nx = x86_cpu.nx ? PTE_NX : 0;
	pt_alloc_fn = alloc_pt;
	pml4 = pt_alloc_fn();
	if (!pml4)
		panic("kpgtable: no memory for the PML4");
	kernel_pml4 = phys_to_virt(pml4);
	memset(kernel_pml4, 0, PAGE_SIZE);

	/* Direct map: each RAM range rounded out to 2 MiB (ranges are sorted). */
	for (size_t i = 0; i < nram; i++) {
		phys_addr_t s = ALIGN_DOWN(ram[i].start, PAGE_SIZE_2M);
		phys_addr_t e = ALIGN_UP(ram[i].end, PAGE_SIZE_2M);

		if (s < mapped_end)
			s = mapped_end;
		if (e <= s)
			continue;
		/* 1 GiB pages only for the 1 GiB-aligned middle of the range */
		while (s < e) {
			phys_addr_t chunk_end = e;
			int lvl = max_level;

			if (lvl == 3 && !IS_ALIGNED(s, PAGE_SIZE_1G)) {
				chunk_end = MIN(e, ALIGN_UP(s, PAGE_SIZE_1G));
				lvl = 2;
			} else if (lvl == 3) {
				chunk_end = s + ALIGN_DOWN(e - s, PAGE_SIZE_1G);
				if (chunk_end == s) {
					chunk_end = e;
					lvl = 2;
				}
			}
			if (map_range(DIRECT_MAP_BASE + s, s, chunk_end - s, PTE_P | PTE_W | pte_nx | g, lvl))
				panic("kpgtable: out of memory building the direct map");
			direct += chunk_end - s;
			s = chunk_end;
		}
		mapped_end = e;
	}

	map_image(__text_start, __text_end, PTE_P | g);
	map_image(__rodata_start, __rodata_end, PTE_P | pte_nx | g);
	/* data+bss, minus the boot stack's guard page */
	map_image(__data_start, boot_stack_guard, PTE_P | PTE_W | pte_nx | g);
	map_image(boot_stack_guard + PAGE_SIZE, __kernel_end, PTE_P | PTE_W | pte_nx | g);

	kernel_cr3 = pml4;
	write_cr3(kernel_cr3);
	if (x86_cpu.pge)
		write_cr4(read_cr4() | (1UL << 7));     /* CR4.PGE */
	printk("kpgtable: direct map %zu MiB (%s pages), kernel image W^X, NX %s\n",
	       direct >> 20, max_level == 3 ? "1G/2M" : "2M", pte_nx ? "on" : "unavailable");
}

uint64_t *kpgtable_pte(uintptr_t va)
{
	uint64_t *pdpt = pt_next(&kernel_pml4[pt_index(va, 4)]), *pd, *pt;

	if (!pdpt)
		return NULL;
	pd = pt_next(&pdpt[pt_index(va, 3)]);
	if (!pd)
		return NULL;
	pt = pt_next(&pd[pt_index(va, 2)]);
	return pt ? &pt[pt_index(va, 1)] : NULL;
}

void *kpgtable_map_mmio(phys_addr_t pa, size_t size)
{
	phys_addr_t s = ALIGN_DOWN(pa, PAGE_SIZE), e = ALIGN_UP(pa + size, PAGE_SIZE);
	uint64_t pte, eff;
	int level;

	/* Already covered (e.g. by a large direct-map page): leave it alone. */
	if (x86_pt_walk(kernel_cr3, DIRECT_MAP_BASE + s, &pte, &level, &eff) == 0 && level > 1) {
		printk("kpgtable: warning: MMIO %llx inside a large RAM mapping\n", (unsigned long long)pa);
		return phys_to_virt(pa);
	}
	if (map_range(DIRECT_MAP_BASE + s, s, e - s, PTE_P | PTE_W | PTE_PCD | PTE_PWT | pte_nx, 1))
		return NULL;
	for (phys_addr_t a = s; a < e; a += PAGE_SIZE)
		x86_invlpg(DIRECT_MAP_BASE + a);
	return phys_to_virt(pa);
}
