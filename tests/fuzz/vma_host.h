/*
 * Host-only setup shared by the VMA soak run, the libFuzzer target and
 * tools/vmabench: simulated RAM, the buddy allocator and slab (arch/hosted).
 */
#ifndef VMA_HOST_H
#define VMA_HOST_H

#include "types.h"

/* Set up ram_bytes of simulated RAM, pmm and slab. Exits on failure. Call once. */
void vma_host_init(size_t ram_bytes);

#endif
