/*
 * The hosted arch_mmu: arch/x86_64/user_mmu.c compiled for the host (the
 * same 4-level table format, with tables in simulated RAM and no kernel
 * half). User accesses through those tables are mm_soft_access
 * (mm/soft_access.c), the software "CPU" that calls the fault handler the
 * way the hardware would.
 */
#include "../x86_64/user_mmu.c"

#include "hosted.h"
#include "mm.h"

int hosted_user_read8(struct mm *mm, uintptr_t va, uint8_t *val)
{
	return mm_soft_access(mm, va, FAULT_READ, val, 1);
}

int hosted_user_write8(struct mm *mm, uintptr_t va, uint8_t val)
{
	return mm_soft_access(mm, va, FAULT_WRITE, &val, 1);
}
