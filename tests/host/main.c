/*
 * Host test driver: 32 MiB of simulated RAM, the buddy allocator and slab on
 * top of it, then the ktest suites named on the command line (default: every
 * non-slow suite). Exit status 0 when nothing failed.
 */
#include <stdio.h>
#include <string.h>

#include "pmm.h"
#include "slab.h"
#include "ktest.h"
#include "hosted.h"

#define HOSTED_RAM (32UL << 20)

int main(int argc, char **argv)
{
	static struct page pages[HOSTED_RAM >> PAGE_SHIFT];
	/* Frame 0 stays reserved, like the real-mode IVT page on a PC. */
	struct mem_range free = { PAGE_SIZE, HOSTED_RAM };
	char filter[1024] = "";

	hosted_ram_init(HOSTED_RAM);
	pmm_init(pages, HOSTED_RAM >> PAGE_SHIFT, &free, 1);
	slab_init();

	for (int i = 1; i < argc; i++) {
		if (i > 1)
			strncat(filter, ",", sizeof(filter) - strlen(filter) - 1);
		strncat(filter, argv[i], sizeof(filter) - strlen(filter) - 1);
	}
	return ktest_run(filter[0] ? filter : "default") ? 1 : 0;
}
