/*
 * The kernel's own symbol table: every text symbol of kernel.elf with its
 * address, generated at build time (tools/gensyms, second link pass), sorted
 * by address. Used by backtraces and the profiler.
 */
#ifndef KSYMS_H
#define KSYMS_H

#include "types.h"

struct ksym {
	uintptr_t addr;
	const char *name;
};

/* Generated (build/kernel/ksyms.c): ksyms_count entries sorted by addr, and the end of text. */
extern const struct ksym ksyms_table[];
extern const size_t ksyms_count;

/*
 * ksyms_index: index of the symbol containing addr (the last one with
 * addr >= its address, below the end of kernel text), or -1.
 */
long ksyms_index(uintptr_t addr);

/*
 * ksyms_lookup: name of the function containing addr, or NULL. *offset
 * (if non-NULL) = addr - symbol address; *size (if non-NULL) = distance to
 * the next symbol.
 */
const char *ksyms_lookup(uintptr_t addr, uintptr_t *offset, uintptr_t *size);

/* Size of symbol i in bytes (distance to the next symbol or to the end of text). */
uintptr_t ksyms_size(size_t i);

/* Address of the text symbol called name, or 0. Linear search. */
uintptr_t ksyms_addr(const char *name);

#endif
