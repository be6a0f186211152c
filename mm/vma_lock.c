/*
 * Per-VMA locks for page faults (Linux 6.4's CONFIG_PER_VMA_LOCK), the
 * kernel option fault_lock=vma: a fault finds its VMA without the
 * mmap_lock, read-locks only that VMA, and handles the fault under it (and
 * the page-table lock); on any doubt it falls back to the mmap_lock.
 *
 * Finding the VMA without the mmap_lock. A fault looks inside an RCU read
 * section (include/rcu.h; a few hundred instructions, never sleeping). The B-tree (the default index)
 * is searched there directly: its find_lockless validates each step
 * against the tree's write sequence (mm/vma_index/btree.c), at any VMA
 * count. The other backends move pointers in several steps with no such
 * check, so for them each address space publishes a snapshot instead: an
 * immutable sorted array of (start, end, vma), rebuilt by every writer
 * when it drops the mmap_lock and replaced with one pointer store, which
 * the fault binary-searches; an address space with more than
 * VMA_SNAPSHOT_MAX VMAs has none and its faults take the mmap_lock.
 * Either way a writer frees what a fault may still be reading (the old
 * snapshot, the VMAs it removed from the index, the B-tree's nodes that
 * left the tree) only after every read section that was running has
 * ended: a grace period (include/rcu.h), which the writer does not wait
 * for. What a write section takes away joins the open batch; at an
 * unlock with nothing waiting, the open batch closes and waits with the
 * cookie of a grace period that starts then; each unlock frees the
 * waiting batch when its grace period is over (usually at once: the
 * check moves the epoch on itself), and a closed batch never takes in
 * more, so memory waits for at most two grace periods. The B-tree's kept
 * nodes are not told apart by batch: they go back to the cache only when
 * a batch closed at this unlock is over at once (past VMA_INDEX_KEPT_MAX
 * of them, the writer waits for that). Switching lock-free faults off
 * (teardown) waits for both batches and frees everything.
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
 * merge may change them), or all VMAs (mremap, fork). A VMA the section
 * puts in the index comes in marked (vma_mark_new, as Linux write-locks a
 * VMA before it links it): the section may still change or free it (a
 * MAP_FIXED in the middle of a mapping splits off a tail that the new
 * range then merges away), and a fault that locked it meanwhile would
 * read it after its free. Debugging builds check every change of the
 * index against the marks (vma_assert_marked, mm/vma.c).
 *
 * Each task keeps the VMA its last lock-free fault found (struct
 * vma_cache, include/vma.h): while no write section of the address space
 * that freed a VMA has ended since, the next fault there takes it without
 * a search if it still covers the address (most faults land in the VMA of
 * the one before).
 *
 * A private VMA that has no anon identity yet falls back (preparing one
 * reads the neighbours through the index), as in Linux 6.4; so do stack
 * growth and addresses outside any snapshotted VMA.
 */
#include "internal.h"
#include "lockless.h"
#include "slab.h"
#include "lockdep.h"
#include "rcu.h"

/* Above this many VMAs an address space has no snapshot (its rebuild would cost too much per write). */
#define VMA_SNAPSHOT_MAX 80

struct vma_snapshot {
	struct vma_snapshot *next;      /* replaced and waiting to be freed: the next such (mm->snap_retired) */
	unsigned n;
	struct snap_entry {
		uintptr_t start, end;
		struct vma *vma;
	} e[];
};

/*
 * fault_lock='s default (kernel/cmdline.c starts from it): per-VMA locks,
 * as Linux 6.4 and later (docs/smp-bench.md says why: they win on every
 * row). The labs' trees start from the mmap_lock, which their handouts
 * describe; no lab's work is here.
 */
/* LAB smp: BEGIN fault_lock_default */
bool mm_fault_lock_vma = true;
/* LAB smp: END fault_lock_default */


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

/* mm->id's source: ids are never reused (struct vma_cache). */
static uint64_t mm_last_id;

void vma_lockless_init(struct mm *mm)
{
	mm->id = __atomic_add_fetch(&mm_last_id, 1, __ATOMIC_RELAXED);
	mm->vma_lockless = mm->index.lockless = mm_fault_lock_vma;
	mm->mm_lock_seq = 1;            /* never 0: a zeroed new VMA is not marked */
	mm->vma_snap = NULL;
	mm->vma_retired = NULL;
	mm->snap_retired = NULL;
	mm->vma_waiting = NULL;
	mm->snap_waiting = NULL;
	mm->gp_waiting = false;
}

/* Whether the index kept memory from lock-free readers (find_lockless) that it can free after a grace period. */
static bool index_has_deferred(struct mm *mm)
{
	const struct vma_index_ops *ops = mm->index.ops;

	return ops->deferred && ops->deferred(&mm->index);
}

/* Past this many kept objects (B-tree nodes) the writer waits for a grace period itself rather than keep more. */
#define VMA_INDEX_KEPT_MAX 1024

/* The waiting batch's grace period is over (sync: wait for it); free the batch. */
static bool waiting_done(struct mm *mm, bool sync)
{
	while (!rcu_gp_done(mm->gp_cookie)) {
		if (!sync)
			return false;
		arch_cpu_relax();       /* read sections are short and never sleep */
	}
	vma_retired_free(mm, mm->vma_waiting);
	while (mm->snap_waiting) {
		struct vma_snapshot *s = mm->snap_waiting;

		mm->snap_waiting = s->next;
		kfree(s);
	}
	mm->vma_waiting = NULL;
	mm->gp_waiting = false;
	return true;
}

/*
 * Publish a new snapshot (if the index needs one) and drop the section's
 * marks; then free what lock-free faults could still see, once they
 * cannot: the deferred frees of the file comment. sync: now, waiting for
 * the grace period (switching lock-free faults off).
 */
static void publish(struct mm *mm, bool sync)
{
	struct vma_snapshot *old = mm->vma_snap, *s = NULL;
	bool nodes;

	mmap_assert_write_locked(mm);
	if (mm->vma_lockless && !mm->index.ops->find_lockless)
		s = snapshot_build(mm);
	smp_store_release(&mm->vma_snap, s);
	if (mm->vma_freed) {
		smp_store_release(&mm->vma_free_seq, mm->vma_free_seq + 1);
		mm->vma_freed = false;
	}
	/* Every mark of this write section goes at once. */
	smp_store_release(&mm->mm_lock_seq, mm->mm_lock_seq + 1);
	if (old) {
		old->next = mm->snap_retired;
		mm->snap_retired = old;
	}
	nodes = index_has_deferred(mm);
	if (!mm->gp_waiting && !mm->vma_retired && !mm->snap_retired && !nodes)
		return;
	if (mm->gp_waiting && !waiting_done(mm, sync))
		return;                 /* what this section took away waits in the open batch */
	/* Close the open batch: everything taken away so far waits for the grace period from now. */
	mm->vma_waiting = mm->vma_retired;
	mm->snap_waiting = mm->snap_retired;
	mm->vma_retired = NULL;
	mm->snap_retired = NULL;
	mm->gp_cookie = rcu_gp_start();
	mm->gp_waiting = true;
	sync |= nodes && mm->index.ops->deferred(&mm->index) > VMA_INDEX_KEPT_MAX;
	if (waiting_done(mm, sync) && nodes)
		mm->index.ops->release_deferred(&mm->index);    /* every kept node left before the cookie */
}

void vma_lockless_publish(struct mm *mm)
{
	publish(mm, false);
}

void vma_lockless_flush(struct mm *mm)
{
	publish(mm, true);
}

void vma_lockless_set(struct mm *mm, bool on)
{
	bool was = mm->vma_lockless;

	mmap_assert_write_locked(mm);
	mm->vma_lockless = mm->index.lockless = on;
	mm->vma_freed = true;           /* off, VMAs are freed at once: no cache entry outlives a switch */
	/* Switched off: the index frees at once from now on, so no fault may still be inside it. */
	publish(mm, was && !on);
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

void vma_mark_new(struct mm *mm, struct vma *v)
{
	mmap_assert_write_locked(mm);
	/* Before the index publishes v (a release store): a fault that finds v sees the mark. */
	WRITE_ONCE(v->vm_lock_seq, (uint16_t)mm->mm_lock_seq);
}

bool vma_write_marked(const struct mm *mm, const struct vma *v)
{
	return !mm->vma_lockless || READ_ONCE(v->vm_lock_seq) == (uint16_t)mm->mm_lock_seq;
}

/* Which VMAs touching [start, end] a write_lock_* call marks. */
enum lock_which { LOCK_TOUCHING, LOCK_INSIDE, LOCK_MAP };

static void write_lock_range(struct mm *mm, uintptr_t start, uintptr_t end, enum lock_which which,
			     unsigned long flags, const struct vm_file *file)
{
	struct vma *v;

	if (!mm->vma_lockless)
		return;
	for (v = vma_find(mm, start ? start - 1 : 0); v && v->start <= end; v = vma_next(mm, v)) {
		bool inside = v->start < end && v->end > start;
		bool may_merge = ((v->flags ^ flags) & ~VM_SOFTDIRTY) == 0 && v->file == file;

		if (which == LOCK_TOUCHING || inside || (which == LOCK_MAP && may_merge))
			vma_start_write(mm, v);
	}
}

void vma_write_lock_range(struct mm *mm, uintptr_t start, uintptr_t end)
{
	write_lock_range(mm, start, end, LOCK_TOUCHING, 0, NULL);
}

void vma_write_lock_inside(struct mm *mm, uintptr_t start, uintptr_t end)
{
	write_lock_range(mm, start, end, LOCK_INSIDE, 0, NULL);
}

void vma_write_lock_map(struct mm *mm, uintptr_t start, uintptr_t end, unsigned long flags,
			const struct vm_file *file)
{
	write_lock_range(mm, start, end, LOCK_MAP, flags, file);
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

/* The VMA whose end is the first above addr, or NULL: the index's lock-free find or the snapshot. In a read section. */
static struct vma *find_lockless(struct mm *mm, uintptr_t addr)
{
	struct vma_snapshot *s;

	if (mm->index.ops->find_lockless)
		return mm->index.ops->find_lockless(&mm->index, addr);
	s = smp_load_acquire(&mm->vma_snap);
	return s ? snapshot_find(s, addr) : NULL;
}

#if defined(KERNEL) && !defined(HOSTED)
#include "task.h"

static struct vma_cache *my_vma_cache(void)
{
	return &current->vma_cache;
}
#else
/* Host tests: each host thread plays one task (arch/hosted/hosted.c). */
static __thread struct vma_cache host_vma_cache;

static struct vma_cache *my_vma_cache(void)
{
	return &host_vma_cache;
}
#endif

/*
 * The VMA this task's last lock-free fault in mm found, if it may still be
 * used: no write section of mm that freed a VMA has ended since
 * (vma_free_seq is seq), and it covers addr. Why that keeps it allocated,
 * inside a read section: a VMA is freed only after the section that
 * freed it ended (vma_free_seq moved on: publish), and after a grace
 * period that starts after that (rcu_gp_start in publish); this section
 * began before vma_free_seq moved on, so that grace period waits for it.
 * (When the VMA was found, the section that freed it had not ended: once
 * it has, the index no longer leads to it.) Why it is the VMA at addr:
 * a section takes a VMA out of the index only to put it back (its bounds
 * changed: checked here, and again once locked) or to free it, so outside
 * a running section a VMA not freed is in the index, whose VMAs do not
 * overlap. A section still running may have marked or removed it:
 * vma_read_trylock sees that (the mark, or detached once freed), as for a
 * VMA the index gave. Write sections that free nothing (mmap, mprotect,
 * a split) leave the cache valid: a mapper thread's mmap no longer costs
 * the other threads' faults a search.
 */
static struct vma *vma_cache_find(const struct vma_cache *c, const struct mm *mm, unsigned long seq,
				  uintptr_t addr)
{
	struct vma *v = c->vma;

	if (c->mm_id != mm->id || c->seq != seq || addr < READ_ONCE(v->start) || addr >= READ_ONCE(v->end))
		return NULL;
	return v;
}

struct vma *vma_lock_lookup(struct mm *mm, uintptr_t addr)
{
	struct vma_cache *c = my_vma_cache();
	unsigned long seq;
	struct vma *v;

	rcu_read_lock();
	/* Read inside the section (vma_cache_find says why). */
	seq = smp_load_acquire(&mm->vma_free_seq);
	v = vma_cache_find(c, mm, seq, addr);
	if (!v) {
		v = find_lockless(mm, addr);
		if (v)
			*c = (struct vma_cache){ .mm_id = mm->id, .seq = seq, .vma = v };
	}
	if (v && !vma_read_trylock(mm, v))
		v = NULL;
	rcu_read_unlock();
	if (!v)
		return NULL;
	/* Locked: its bounds are stable now. The snapshot or the tree may have been older than them. */
	BUG_ON(v->mm != mm);
	if (addr < v->start || addr >= v->end) {
		vma_read_unlock(v);
		return NULL;
	}
	return v;
}
