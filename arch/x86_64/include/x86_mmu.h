/*
 * x86-64 4-level paging: PTE format, CR3/INVLPG, a software walk of live
 * tables, and the kernel's own page tables (direct map + W^X image).
 * Only arch/x86_64 (and, for its software walk, arch/hosted) and
 * kernel-only tests use this; mm/ sees the arch-independent interface of
 * include/arch_mmu.h built on top of it (arch/x86_64/user_mmu.c).
 */
#ifndef X86_MMU_H
#define X86_MMU_H

#include "types.h"
#include "list.h"

#define PTE_P     (1UL << 0)
#define PTE_W     (1UL << 1)
#define PTE_U     (1UL << 2)
#define PTE_PWT   (1UL << 3)
#define PTE_PCD   (1UL << 4)
#define PTE_A     (1UL << 5)
#define PTE_D     (1UL << 6)
#define PTE_PS    (1UL << 7)        /* large page, in a PDPT or PD entry */
#define PTE_G     (1UL << 8)
#define PTE_NX    (1UL << 63)
#define PTE_ADDR_MASK 0x000ffffffffff000UL

#define PT_ENTRIES 512
#define PAGE_SIZE_2M (1UL << 21)
#define PAGE_SIZE_1G (1UL << 30)

/* Index of va in the table at level (4 = PML4 .. 1 = PT). */
static inline unsigned pt_index(uintptr_t va, int level)
{
	return (va >> (PAGE_SHIFT + 9 * (level - 1))) & 511;
}

/* The NX bit when the CPU supports it, else 0 (set by kpgtable_init). */
extern uint64_t pte_nx;
/* Protection keys are on (CR4.PKE): execute-only user pages use key 1 (user_mmu.c). */
extern bool x86_pku_enabled;

/*
 * x86_pt_walk: look up va in the page tables rooted at physical address
 * cr3. On success returns 0 with *pte = the leaf entry and *level = 1 (4 KiB),
 * 2 (2 MiB) or 3 (1 GiB), and *eff = the effective permission: PTE_W and
 * PTE_U only if every level allows them, PTE_NX if any level sets it.
 * Returns -ENOENT when va is not mapped (*level = the level where the walk
 * stopped). Reads the tables through the direct map; takes no lock.
 */
int x86_pt_walk(uint64_t cr3, uintptr_t va, uint64_t *pte, int *level, uint64_t *eff);

/*
 * One user address space's page tables (include/arch_mmu.h's opaque
 * struct arch_mmu): user_mmu.c builds them, x86_tlb.c switches and flushes them.
 */
struct arch_mmu {
	phys_addr_t root;             /* PML4 frame */
	uint64_t *pml4;               /* its direct-map address */
	size_t tables;                /* [atomic] table pages, root included */
	unsigned long cpus;           /* [atomic] CPUs with it loaded, active or lazy (bit n: CPU n) */
	size_t huge;                  /* 2 MiB leaves mapped */
	struct list_head deposit;     /* one table page per 2 MiB leaf, set aside for its split
	                               *   (struct page lru; counted in tables) */
	/* The fault path's remembered page table (arch_mmu_query_near), under mm's pt_lock:
	 * the table of the 2 MiB block near_block, or near_table NULL. */
	uint64_t *near_table;
	struct page *near_page;       /* near_table's struct page (counts its entries) */
	uintptr_t near_block;
};

/*
 * The x86 half of TLB maintenance (x86_tlb.c; the hosted build's counting
 * stand-ins: arch/hosted/hosted_tlb.c): switching a CPU's address space
 * (and its bit in m->cpus), and flushing a batch on every CPU where its
 * address space is loaded (IPIs, waited for). leave: CPUs that have m
 * loaded switch to the kernel tables (arch_mmu_destroy).
 */
struct tlb_batch;
void x86_mm_switch(struct arch_mmu *m);
void x86_tlb_flush(struct arch_mmu *m, const uintptr_t *va, unsigned n, bool full, bool local_only,
		   bool leave);
/* x86_mm_loaded_here: the running CPU's CR3 holds m (whatever its bit in m->cpus says). */
bool x86_mm_loaded_here(const struct arch_mmu *m);
/* tlb_init: install the shootdown IPI handler (once, on the boot CPU). */
void tlb_init(void);

/* Invalidate the TLB entry for va on this CPU. */
static inline void x86_invlpg(uintptr_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

/* Physical address of the kernel PML4 (valid after kpgtable_init). */
extern uint64_t kernel_cr3;

/*
 * kpgtable_init: build the kernel page tables and switch to them: the
 * direct map of every RAM range in ram[0..nram) at DIRECT_MAP_BASE (2 MiB
 * pages, 1 GiB where the CPU has them and alignment allows; RW, NX, global),
 * and the kernel image at KERNEL_VMA (text RX, rodata R+NX, data/bss RW+NX,
 * 4 KiB pages). Nothing else is mapped: no identity map, no NULL page.
 * Page-table pages come from alloc_pt (physical, zeroed, 4 KiB, below 4 GiB
 * while the early tables are live). Panics if alloc_pt fails.
 */
struct mem_range;
void kpgtable_init(const struct mem_range *ram, size_t nram, phys_addr_t (*alloc_pt)(void));

/*
 * kpgtable_map_mmio: map [pa, pa+size) uncached at its direct-map address
 * (4 KiB pages, RW, NX). Returns the virtual address, or NULL if a table
 * page could not be allocated. After pmm_init, table pages come from pmm.
 */
void *kpgtable_map_mmio(phys_addr_t pa, size_t size);

/*
 * kpgtable_pte: the 4 KiB page-table entry of va in the kernel tables,
 * allocating the tables above it when absent (va must not lie in a large
 * page). NULL when out of memory. The caller owns the entry: changing it is
 * the caller's business, flushing it from TLBs too.
 */
uint64_t *kpgtable_pte(uintptr_t va);

/* Switch the page-table allocator to pmm once it is up. */
void kpgtable_use_pmm(void);

#endif
