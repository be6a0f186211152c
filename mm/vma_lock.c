/*
 * Per-VMA locks for page faults (Linux 6.4's CONFIG_PER_VMA_LOCK), the
 * kernel option fault_lock=vma: a fault finds its VMA without the
 * mmap_lock, read-locks only that VMA, and handles the fault under it (and
 * the page-table lock); on any doubt it falls back to the mmap_lock.
 *
 * Finding the VMA without the mmap_lock: the VMA index is not written for
 * readers running alongside a writer (its backends move pointers in
 * several steps), so faults never read it. Instead each address space
 * publishes a snapshot: an immutable sorted array of (start, end, vma),
 * rebuilt by every writer when it drops the mmap_lock and replaced with
 * one pointer store. A fault binary-searches the snapshot inside a
 * "lock-free section" (a per-CPU counter, odd while inside). A writer
 * frees the old snapshot, and the VMAs it removed from the index, only
 * after every CPU that was inside a section has left it (vma_lockless
 * _sync: an RCU grace period in its simplest form, waited for by the
 * writer; the sections are a few hundred instructions and never sleep).
 * An address space with more than VMA_SNAPSHOT_MAX VMAs has no snapshot:
 * its faults always take the mmap_lock.
 *
 * The VMA lock: vm_readers counts the faults inside the VMA; a writer marks
 * a VMA it is about to change (vma_start_write: vm_lock_seq = the mm's
 * mm_lock_seq, low 16 bits, then waits for vm_readers to drain), and every mark is
 * dropped at once when mm_lock_seq moves on at mmap_write_unlock. A fault
 * increments vm_readers and only then checks the mark (and that the VMA is
 * still in the index, and still covers the address): the writer's store of
 * the mark and the reader's increment are both sequentially consistent, so
 * one of them sees the other. Writers mark every VMA touching the range an
 * operation works on (vma_write_lock_range: neighbours included, since a
 * merge may change them), or all VMAs (mremap, fork).
 *
 * A private VMA that has no anon identity yet falls back (preparing one
 * reads the neighbours through the index), as in Linux 6.4; so do stack
 * growth and addresses outside any snapshotted VMA.
 */
#include "internal.h"
#include "lockless.h"
#include "slab.h"
#include "lockdep.h"

/* Above this many VMAs an address space has no snapshot (its rebuild would cost too much per write). */
#define VMA_SNAPSHOT_MAX 80

struct vma_snapshot {
	unsigned n;
	struct snap_entry {
		uintptr_t start, end;
		struct vma *vma;
	} e[];
};

bool mm_fault_lock_vma;

/* Per CPU: odd while the CPU is inside a lock-free section. */
static unsigned long lockless_gen[NR_CPUS];

static void lockless_enter(void)
{
	/* A full fence: the snapshot is read after the section is visible as entered. */
	__atomic_add_fetch(&lockless_gen[arch_cpu_id()], 1, __ATOMIC_SEQ_CST);
}

static void lockless_leave(void)
{
	__atomic_add_fetch(&lockless_gen[arch_cpu_id()], 1, __ATOMIC_RELEASE);
}

/* Wait until every CPU inside a lock-free section now has left it. */
static void vma_lockless_sync(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++) {
		unsigned long g = smp_load_acquire(&lockless_gen[cpu]);

		if (g & 1)
			while (smp_load_acquire(&lockless_gen[cpu]) == g)
				arch_cpu_relax();
	}
}

/* ------------------------------------------------------------ snapshots */

static struct vma_snapshot *snapshot_build(struct mm *mm)
{
	struct vma_snapshot *s;
	struct vma *v;
	unsigned i = 0;

	if (mm->map_count > VMA_SNAPSHOT_MAX)
		return NULL;
	s = kmalloc(sizeof(*s) + (size_t)mm->map_count * sizeof(s->e[0]));
	if (!s)
		return NULL;
	for (v = vma_first(mm); v; v = vma_next(mm, v), i++) {
		s->e[i].start = v->start;
		s->e[i].end = v->end;
		s->e[i].vma = v;
	}
	s->n = i;
	return s;
}

/* The VMA whose snapshot entry contains addr, or NULL. */
static struct vma *snapshot_find(const struct vma_snapshot *s, uintptr_t addr)
{
	unsigned lo = 0, hi = s->n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (addr < s->e[mid].start)
			hi = mid;
		else if (addr >= s->e[mid].end)
			lo = mid + 1;
		else
			return s->e[mid].vma;
	}
	return NULL;
}

void vma_lockless_init(struct mm *mm)
{
	mm->vma_lockless = mm_fault_lock_vma;
	mm->mm_lock_seq = 1;            /* never 0: a zeroed new VMA is not marked */
	mm->vma_snap = NULL;
	mm->vma_retired = NULL;
}

void vma_lockless_publish(struct mm *mm)
{
	struct vma_snapshot *old = mm->vma_snap, *s = NULL;

	mmap_assert_write_locked(mm);
	if (mm->vma_lockless)
		s = snapshot_build(mm);
	smp_store_release(&mm->vma_snap, s);
	/* Every mark of this write section goes at once. */
	smp_store_release(&mm->mm_lock_seq, mm->mm_lock_seq + 1);
	if (!old && !mm->vma_retired)
		return;
	vma_lockless_sync();
	kfree(old);
	vma_retired_free(mm);
}

void vma_lockless_disable(struct mm *mm)
{
	mmap_assert_write_locked(mm);
	mm->vma_lockless = false;
	vma_lockless_publish(mm);
}

/* ------------------------------------------------------------- the lock */

/*
 * A VMA already marked with this section's number still waits for its
 * readers: the mark may be 65,536 sections old (16 bits wrap), and then
 * faults that came in before this section are still inside. Marked in
 * this section, its readers only pass through (they see the mark and leave).
 */
void vma_start_write(struct mm *mm, struct vma *v)
{
	mmap_assert_write_locked(mm);
	if (!mm->vma_lockless)
		return;
	lockdep_acquire(v, LOCK_CLASS_VMA, 0);
	/* Seq_cst store, then load (not release/acquire): pairs with vma_read_trylock (file comment). */
	if (v->vm_lock_seq != (uint16_t)mm->mm_lock_seq)
		__atomic_store_n(&v->vm_lock_seq, (uint16_t)mm->mm_lock_seq, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&v->vm_readers, __ATOMIC_SEQ_CST))
		arch_cpu_relax();       /* faults inside never sleep: they leave soon */
	lockdep_release(v, LOCK_CLASS_VMA);
}

void vma_write_lock_range(struct mm *mm, uintptr_t start, uintptr_t end)
{
	struct vma *v;

	if (!mm->vma_lockless)
		return;
	for (v = vma_find(mm, start ? start - 1 : 0); v && v->start <= end; v = vma_next(mm, v))
		vma_start_write(mm, v);
}

void vma_write_lock_all(struct mm *mm)
{
	vma_write_lock_range(mm, 0, TASK_SIZE);
}

/* Take v's read lock unless a writer marked it or it left the index. */
static bool vma_read_trylock(struct mm *mm, struct vma *v)
{
	__atomic_add_fetch(&v->vm_readers, 1, __ATOMIC_SEQ_CST);
	/* Seq_cst: races with vma_start_write's store of the mark (file comment). */
	if (__atomic_load_n(&v->vm_lock_seq, __ATOMIC_SEQ_CST) ==
		    (uint16_t)smp_load_acquire(&mm->mm_lock_seq) ||
	    smp_load_acquire(&v->detached)) {
		__atomic_sub_fetch(&v->vm_readers, 1, __ATOMIC_RELEASE);
		return false;
	}
	lockdep_acquire(v, LOCK_CLASS_VMA, LOCKDEP_TRY);
	return true;
}

void vma_read_unlock(struct vma *v)
{
	lockdep_release(v, LOCK_CLASS_VMA);
	__atomic_sub_fetch(&v->vm_readers, 1, __ATOMIC_RELEASE);
}

struct vma *vma_lock_lookup(struct mm *mm, uintptr_t addr)
{
	struct vma_snapshot *s;
	struct vma *v = NULL;

	lockless_enter();
	s = smp_load_acquire(&mm->vma_snap);
	if (s)
		v = snapshot_find(s, addr);
	if (v && !vma_read_trylock(mm, v))
		v = NULL;
	lockless_leave();
	if (!v)
		return NULL;
	/* Locked: its bounds are stable now. The snapshot may have been older than them. */
	BUG_ON(v->mm != mm);
	if (addr < v->start || addr >= v->end) {
		vma_read_unlock(v);
		return NULL;
	}
	return v;
}
