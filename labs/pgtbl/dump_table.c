/*
 * LAB pgtbl: print the entries of the table at physical address pa, at
 * level lvl (4 = the PML4 .. 1 = a page table), whose first entry covers
 * the virtual addresses from base. For each present entry whose range
 * overlaps [d->start, d->end): a table line (levels 4 to 2), then the
 * table below it; at level 1 a leaf line with the state arch_mmu_query
 * reports (and count it in d->leaves). Only the user half of the PML4
 * (entries 0 to 255). The format is in docs/labs/pgtbl.md; dump_line
 * indents and emits a line.
 */
static void dump_table(struct dump_ctx *d, phys_addr_t pa, int lvl, uintptr_t base)
{
	/* TODO */
	(void)d;
	(void)pa;
	(void)lvl;
	(void)base;
}
