/* Lookups in the generated kernel symbol table (include/ksyms.h). */
#include "ksyms.h"
#include "kstring.h"

extern const char __text_start[], __text_end[];

long ksyms_index(uintptr_t addr)
{
	size_t lo = 0, hi = ksyms_count;

	if (addr < (uintptr_t)__text_start || addr >= (uintptr_t)__text_end || ksyms_count == 0)
		return -1;
	if (addr < ksyms_table[0].addr)
		return -1;
	/* invariant: table[lo].addr <= addr, and table[hi].addr > addr (or hi == count) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (ksyms_table[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return (long)lo;
}

uintptr_t ksyms_size(size_t i)
{
	uintptr_t end = i + 1 < ksyms_count ? ksyms_table[i + 1].addr : (uintptr_t)__text_end;
	return end - ksyms_table[i].addr;
}

const char *ksyms_lookup(uintptr_t addr, uintptr_t *offset, uintptr_t *size)
{
	long i = ksyms_index(addr);

	if (i < 0)
		return NULL;
	if (offset)
		*offset = addr - ksyms_table[i].addr;
	if (size)
		*size = ksyms_size(i);
	return ksyms_table[i].name;
}

uintptr_t ksyms_addr(const char *name)
{
	for (size_t i = 0; i < ksyms_count; i++)
		if (strcmp(ksyms_table[i].name, name) == 0)
			return ksyms_table[i].addr;
	return 0;
}
