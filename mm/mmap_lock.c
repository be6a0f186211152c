/*
 * The mmap_lock: one per address space, read for lookups and faults, write
 * for anything that changes the VMA set (include/mm.h says which call needs
 * which). Writers are preferred: a waiting writer holds new readers back.
 */
#include "internal.h"
#include "arch.h"

void mmap_lock_init(struct mmap_lock *l)
{
	spin_init(&l->lock, "mmap_lock");
	l->readers = 0;
	l->writer = false;
	l->writers_waiting = 0;
	l->writer_cpu = -1;
}

void mmap_read_lock(struct mm *mm)
{
	struct mmap_lock *l = &mm->mmap_lock;

	for (;;) {
		unsigned long fl = spin_lock_irqsave(&l->lock);

		if (!l->writer && !l->writers_waiting) {
			l->readers++;
			l->read_acquired++;
			spin_unlock_irqrestore(&l->lock, fl);
			return;
		}
		BUG_ON(l->writer && l->writer_cpu == (int)arch_cpu_id());
		spin_unlock_irqrestore(&l->lock, fl);
		arch_cpu_relax();
	}
}

void mmap_read_unlock(struct mm *mm)
{
	struct mmap_lock *l = &mm->mmap_lock;
	unsigned long fl = spin_lock_irqsave(&l->lock);

	BUG_ON(l->readers <= 0);
	l->readers--;
	spin_unlock_irqrestore(&l->lock, fl);
}

void mmap_write_lock(struct mm *mm)
{
	struct mmap_lock *l = &mm->mmap_lock;
	bool waiting = false;

	for (;;) {
		unsigned long fl = spin_lock_irqsave(&l->lock);

		if (!l->writer && l->readers == 0) {
			if (waiting)
				l->writers_waiting--;
			l->writer = true;
			l->writer_cpu = (int)arch_cpu_id();
			l->write_acquired++;
			spin_unlock_irqrestore(&l->lock, fl);
			return;
		}
		BUG_ON(l->writer && l->writer_cpu == (int)arch_cpu_id());
		if (!waiting) {
			l->writers_waiting++;
			waiting = true;
		}
		spin_unlock_irqrestore(&l->lock, fl);
		arch_cpu_relax();
	}
}

void mmap_write_unlock(struct mm *mm)
{
	struct mmap_lock *l = &mm->mmap_lock;
	unsigned long fl = spin_lock_irqsave(&l->lock);

	BUG_ON(!l->writer || l->writer_cpu != (int)arch_cpu_id());
	l->writer = false;
	l->writer_cpu = -1;
	spin_unlock_irqrestore(&l->lock, fl);
}

bool mmap_is_locked(struct mm *mm)
{
	return mm->mmap_lock.writer || mm->mmap_lock.readers > 0;
}

bool mmap_is_write_locked(struct mm *mm)
{
	return mm->mmap_lock.writer && mm->mmap_lock.writer_cpu == (int)arch_cpu_id();
}
