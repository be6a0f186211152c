/*
 * The mmap_lock: one per address space, read for lookups and faults, write
 * for anything that changes the VMA set (include/mm.h says which call needs
 * which). A fair sleeping rwsem (lib/rwsem.c): waiters queue in arrival
 * order, so a waiting writer holds new readers back and is not starved.
 */
#include "internal.h"
#include "lockdep.h"
#include "sleep.h"

void mmap_lock_init(struct rwsem *l)
{
	rwsem_init(l, "mmap_lock", LOCK_CLASS_MMAP);
}

void mmap_read_lock(struct mm *mm)
{
	rwsem_spin_on_owner(&mm->mmap_lock);
	down_read(&mm->mmap_lock);
}

bool mmap_read_trylock(struct mm *mm)
{
	return down_read_trylock(&mm->mmap_lock);
}

void mmap_read_unlock(struct mm *mm)
{
	up_read(&mm->mmap_lock);
}

void mmap_write_lock(struct mm *mm)
{
	rwsem_spin_on_owner(&mm->mmap_lock);
	down_write(&mm->mmap_lock);
}

bool mmap_write_trylock(struct mm *mm)
{
	return down_write_trylock(&mm->mmap_lock);
}

void mmap_write_lock_nested(struct mm *mm)
{
	down_write_nested(&mm->mmap_lock);
}

/* The write section ends: lock-free faults get the new VMA set (mm/vma_lock.c). */
void mmap_write_unlock(struct mm *mm)
{
	vma_lockless_publish(mm);
	up_write(&mm->mmap_lock);
}

bool mmap_is_locked(struct mm *mm)
{
#ifdef LOCKDEP
	return lockdep_is_held(&mm->mmap_lock, LOCK_CLASS_MMAP);
#else
	return rwsem_is_locked(&mm->mmap_lock);
#endif
}

