/* x86-64 page-table walking (arch/x86_64/include/x86_mmu.h). */
#include "x86_mmu.h"
#include "arch.h"
#include "kerrno.h"

uint64_t pte_nx;

int x86_pt_walk(uint64_t cr3, uintptr_t va, uint64_t *pte, int *level, uint64_t *eff)
{
	const uint64_t *table = phys_to_virt(cr3 & PTE_ADDR_MASK);
	uint64_t e = 0, perm = PTE_W | PTE_U;

	for (int lvl = 4; lvl >= 1; lvl--) {
		e = table[pt_index(va, lvl)];
		*level = lvl;
		if (!(e & PTE_P))
			return -ENOENT;
		perm &= e | ~(PTE_W | PTE_U);
		perm |= e & PTE_NX;
		if (lvl == 1 || (lvl <= 3 && (e & PTE_PS)))
			break;
		table = phys_to_virt(e & PTE_ADDR_MASK);
	}
	*pte = e;
	*eff = perm;
	return 0;
}
