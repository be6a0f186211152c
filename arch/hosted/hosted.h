/* Hosted-build specifics: the simulated physical memory. */
#ifndef HOSTED_H
#define HOSTED_H

#include "types.h"

extern unsigned char *hosted_ram;     /* physical address 0 lives here */
extern size_t hosted_ram_size;

/* Allocate bytes of simulated RAM (filled with junk). Exits on failure. */
void hosted_ram_init(size_t bytes);

/* ---- the simulated MMU (arch/hosted/mmu.c) ---- */
struct mm;

/*
 * hosted_user_access: perform a user-mode access as the CPU would through
 * mm's page tables (walked in software): access is FAULT_READ, FAULT_WRITE
 * or FAULT_EXEC (include/mm.h). Each page of [va, va + len) is translated;
 * a missing entry or one that forbids the access (x86 rules: every present
 * entry reads, W needed to write, no NX to execute) calls
 * handle_mm_fault(mm, va, access | FAULT_USER [| FAULT_PROT when present])
 * and retries, as the hardware would after the fault handler returns.
 * Loads copy into buf, stores copy from buf, fetches copy into buf (buf may
 * be NULL for fetches). Sets the entry's ACCESSED bit, and DIRTY on stores.
 * Returns FAULT_OK (an enum fault_result value), or the result of the
 * first fault that failed (earlier pages were accessed), or -1 when a
 * fault returned FAULT_OK without fixing the entry (a kernel bug).
 */
int hosted_user_access(struct mm *mm, uintptr_t va, unsigned access, void *buf, size_t len);

/* Whether the simulated CPU keeps MMU_EXEC-only pages unreadable (protection keys); default false. */
extern bool hosted_exec_only;

/* One-byte helpers over hosted_user_access. */
int hosted_user_read8(struct mm *mm, uintptr_t va, uint8_t *val);
int hosted_user_write8(struct mm *mm, uintptr_t va, uint8_t val);

#endif
