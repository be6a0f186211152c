/* Hosted-build specifics: the simulated physical memory. */
#ifndef HOSTED_H
#define HOSTED_H

#include "types.h"


/* Allocate bytes of simulated RAM (filled with junk). Exits on failure. */
void hosted_ram_init(size_t bytes);

/* ---- the simulated MMU (arch/hosted/hosted_mmu.c) ---- */
struct mm;

/* Whether the simulated CPU keeps MMU_EXEC-only pages unreadable (protection keys); default false. */
extern bool hosted_exec_only;

/* One-byte user accesses through mm_soft_access (include/mm.h): FAULT_OK or the fault's result. */
int hosted_user_read8(struct mm *mm, uintptr_t va, uint8_t *val);
int hosted_user_write8(struct mm *mm, uintptr_t va, uint8_t val);

/*
 * Called by arch_cpu_relax, each time a busy-wait loop goes round (NULL:
 * nothing): a host test's way to let the CPU being waited for act.
 */
extern void (*hosted_relax_hook)(void);

/*
 * Called by arch_mmu_walk right
 * after it read the present leaf *pte of va, before its visitor sees it
 * (NULL: nothing): a host test's way to land another CPU's access in
 * that window, as the hardware would (a locked update of the entry's
 * ACCESSED/DIRTY bits, then the store to the frame).
 */
extern void (*hosted_walk_hook)(uint64_t *pte, uintptr_t va);

/*
 * The hardware's side of a one-byte store to va through a TLB entry that
 * is not dirty, from a hook: when the leaf *pte is present and writable,
 * set its ACCESSED and DIRTY bits with a locked update and store val in
 * the frame; otherwise false (the CPU would fault and retry after the
 * page-table lock is free).
 */
bool hosted_hw_write8(uint64_t *pte, uintptr_t va, uint8_t val);

#endif
