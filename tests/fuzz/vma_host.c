/* Host-only setup for the VMA soak, fuzz and bench programs (see vma_host.h). */
#include <stdio.h>
#include <stdlib.h>

#include "vma_host.h"
#include "pmm.h"
#include "slab.h"
#include "hosted.h"

void vma_host_init(size_t ram_bytes)
{
	size_t npages = ram_bytes >> PAGE_SHIFT;
	struct page *pages = calloc(npages, sizeof(*pages));
	/* Frame 0 stays reserved, as in tests/host/main.c. */
	struct mem_range free = { PAGE_SIZE, ram_bytes };

	if (!pages) {
		fprintf(stderr, "vma_host_init: no memory for %zu struct pages\n", npages);
		exit(2);
	}
	hosted_ram_init(ram_bytes);
	pmm_init(pages, npages, &free, 1);
	slab_init();
}
