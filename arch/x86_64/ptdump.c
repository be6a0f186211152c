/*
 * arch_mmu_dump (include/arch_mmu.h): the page-table tree of a user address
 * space as text, one line per present entry, depth first in address order,
 * in the spirit of xv6's vmprint:
 *
 *   page table 0x1e3000
 *    .. L4[0] va 0x0 -> table 0x1e4000
 *    .. .. L3[0] va 0x0 -> table 0x1e5000
 *    .. .. .. L2[2] va 0x400000 -> table 0x1e6000
 *    .. .. .. .. L1[0] va 0x400000 -> page 0x1e7000 r-x a-
 *
 * A table line names the level (L4 = the PML4 .. L1 = a page table), the
 * entry's index in its table, the first virtual address it covers and the
 * physical address of the table below. A leaf line ends with the frame and
 * its state as arch_mmu_query reports it: r, w, x (or '-') for MMU_READ,
 * MMU_WRITE, MMU_EXEC, then a (accessed) and d (dirty); a PROT_NONE leaf
 * shows "---". A 2 MiB leaf is an L2 line "-> huge page" with the same
 * state. Only the user half is walked, and only the entries whose
 * range overlaps [start, end) are shown (a table line may then have
 * nothing below it). Numbers are hexadecimal with "0x", 0 too.
 * Shared by the hosted build (arch/hosted/hosted_ptdump.c), where the tables live
 * in simulated RAM. Locking: as arch_mmu_walk (the caller keeps the tables
 * from changing).
 */
#include "arch_mmu.h"
#include "arch_mmu_debug.h"
#include "x86_mmu.h"
#include "arch.h"
#include "kstring.h"
#include "printk.h"

struct dump_ctx {
	struct arch_mmu *m;
	uintptr_t start, end;
	mmu_dump_fn emit;
	void *arg;
	unsigned long leaves;
};

/* Emit one line: depth " .." groups, then the formatted text. */
__printf(3, 4) static void dump_line(struct dump_ctx *d, int depth, const char *fmt, ...)
{
	char line[160];
	int n = 0;
	va_list ap;

	for (int i = 0; i < depth && n < 40; i++)
		n += ksnprintf(line + n, sizeof(line) - n, " ..");
	if (depth)
		line[n++] = ' ';
	va_start(ap, fmt);
	kvsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	d->emit(d->arg, line);
}

/* LAB pgtbl: BEGIN dump_table */
/* The leaf at va: its frame and state come from arch_mmu_query, as every other user sees them. */
static void dump_leaf(struct dump_ctx *d, unsigned index, uintptr_t va)
{
	phys_addr_t pa;
	unsigned st;

	if (arch_mmu_query(d->m, va, &pa, &st))
		return;
	d->leaves++;
	dump_line(d, st & MMU_HUGE ? 3 : 4, "L%c[%u] va 0x%lx -> %spage 0x%llx %c%c%c %c%c",
		  st & MMU_HUGE ? '2' : '1', index, (unsigned long)va, st & MMU_HUGE ? "huge " : "",
		  (unsigned long long)pa, st & MMU_READ ? 'r' : '-', st & MMU_WRITE ? 'w' : '-',
		  st & MMU_EXEC ? 'x' : '-', st & MMU_ACCESSED ? 'a' : '-', st & MMU_DIRTY ? 'd' : '-');
}

/* The entries of the table at physical address pa, at level lvl (4 = PML4), covering from base. */
static void dump_table(struct dump_ctx *d, phys_addr_t pa, int lvl, uintptr_t base)
{
	const uint64_t *t = phys_to_virt(pa);
	uintptr_t span = (uintptr_t)1 << (PAGE_SHIFT + 9 * (lvl - 1));
	unsigned n = lvl == 4 ? PT_ENTRIES / 2 : PT_ENTRIES;       /* the PML4's user half */

	for (unsigned i = 0; i < n; i++) {
		uintptr_t va = base + (uintptr_t)i * span;

		if (!t[i] || va + span <= d->start || va >= d->end)
			continue;
		if (lvl == 1 || (lvl == 2 && (t[i] & PTE_PS))) {
			dump_leaf(d, i, va);
			continue;
		}
		dump_line(d, 5 - lvl, "L%d[%u] va 0x%lx -> table 0x%llx", lvl, i, (unsigned long)va,
			  (unsigned long long)(t[i] & PTE_ADDR_MASK));
		dump_table(d, t[i] & PTE_ADDR_MASK, lvl - 1, va);
	}
}
/* LAB pgtbl: END dump_table */

unsigned long arch_mmu_dump(struct arch_mmu *m, uintptr_t start, uintptr_t end, mmu_dump_fn emit,
			    void *arg)
{
	struct dump_ctx d = { .m = m, .start = start, .end = end, .emit = emit, .arg = arg };

	dump_line(&d, 0, "page table 0x%llx", (unsigned long long)arch_mmu_root(m));
	dump_table(&d, arch_mmu_root(m), 4, 0);
	return d.leaves;
}
