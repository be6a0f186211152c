/*
 * vmprint: a small address space printed by the kernel (vmk_vmdump,
 * include/uapi/vmk.h): three private pages mapped at a fixed address in
 * the mmscript window, the first written, the second read, the third left
 * alone, then the VMAs and the page-table tree on stderr (tools/run shows
 * kernel reports there). The page-table lab (docs/labs/pgtbl.md) uses it.
 *
 *   tools/run build/user/vmprint [vmas|pages|all]      (default: all)
 *
 * On Linux the dump call fails with ENOSYS and the program says so.
 */
#include "ulib.h"

#define BASE 0x600000000000UL

int main(int argc, char **argv)
{
	unsigned what = VMDUMP_VMAS | VMDUMP_PAGES;
	char *p;
	long r;

	if (argc > 1 && strcmp(argv[1], "vmas") == 0)
		what = VMDUMP_VMAS;
	else if (argc > 1 && strcmp(argv[1], "pages") == 0)
		what = VMDUMP_PAGES;
	p = mmap((void *)BASE, 3 * 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED) {
		printf("vmprint: mmap failed\n");
		return 1;
	}
	p[0] = 1;                               /* a page of its own, written */
	printf("vmprint: read %d from the second page\n", ((volatile char *)p)[4096]);
	r = sys_vmk_vmdump(0, what);
	if (r < 0) {
		printf("vmprint: vmk_vmdump failed (%ld): not on vmkernel?\n", r);
		return 1;
	}
	return 0;
}
