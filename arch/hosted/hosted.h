/* Hosted-build specifics: the simulated physical memory. */
#ifndef HOSTED_H
#define HOSTED_H

#include "types.h"


/* Allocate bytes of simulated RAM (filled with junk). Exits on failure. */
void hosted_ram_init(size_t bytes);

/* ---- the simulated MMU (arch/hosted/mmu.c) ---- */
struct mm;

/* Whether the simulated CPU keeps MMU_EXEC-only pages unreadable (protection keys); default false. */
extern bool hosted_exec_only;

/* One-byte user accesses through mm_soft_access (include/mm.h): FAULT_OK or the fault's result. */
int hosted_user_read8(struct mm *mm, uintptr_t va, uint8_t *val);
int hosted_user_write8(struct mm *mm, uintptr_t va, uint8_t val);

#endif
