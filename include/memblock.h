/*
 * memblock: the boot-time physical memory allocator, used from the memory
 * map until pmm_init() takes over. It keeps two sorted, merged lists of
 * half-open ranges: memory (RAM) and reserved (kernel, boot info, modules,
 * early allocations). Free = memory minus reserved.
 * Boot CPU only, before interrupts are on; no locking.
 */
#ifndef MEMBLOCK_H
#define MEMBLOCK_H

#include "types.h"
#include "pmm.h"

#define MEMBLOCK_MAX_REGIONS 128

/* Add [start, end) as RAM / as reserved. Overlaps are merged. 0 or -ENOSPC (table full). */
int memblock_add(phys_addr_t start, phys_addr_t end);
int memblock_reserve(phys_addr_t start, phys_addr_t end);

/*
 * memblock_alloc: reserve and return size bytes aligned to align (a power of
 * two) from free memory in [MEMBLOCK_LOW, limit), lowest address first. Returns
 * the physical address, or 0 when nothing fits. The memory is not zeroed.
 */
phys_addr_t memblock_alloc(size_t size, size_t align);
/* Upper bound for memblock_alloc (e.g. the early direct map's end). */
void memblock_set_limit(phys_addr_t limit);

/* Free ranges (memory minus reserved), sorted; writes at most max. Returns how many exist. */
size_t memblock_free_ranges(struct mem_range *out, size_t max);
/* The RAM ranges, sorted and merged; returns how many exist (writes at most max). */
size_t memblock_memory(struct mem_range *out, size_t max);

phys_addr_t memblock_end_of_ram(void);          /* end of the highest RAM range */
size_t memblock_total_ram(void);                /* bytes of RAM */
size_t memblock_reserved_bytes(void);           /* bytes reserved inside RAM */

/* Print both lists. */
void memblock_dump(void);

#endif
