/*
 * The per-VMA lock of fault_lock=vma (mm/vma_lock.c): a writer marks a
 * VMA with the low 16 bits of its write section's number, then waits for
 * the faults inside it. The case here is the wrap: a VMA marked 65,536
 * write sections ago (and untouched since) carries the current section's
 * number already, yet a fault that came in before this section may still
 * be inside, so the writer must wait for it all the same.
 */
#include "test_mm_util.h"
#ifdef HOSTED
#include "hosted.h"
#include "rcu.h"

#define B 0x40000000UL

static struct vma *waited_on;
static unsigned relax_rounds;

/* The fault inside leaves while the writer waits for it. */
static void fault_leaves(void)
{
	relax_rounds++;
	__atomic_store_n(&waited_on->vm_readers, 0, __ATOMIC_SEQ_CST);
}

static void test_stale_mark_still_waits(struct ktest *t)
{
	bool was = mm_fault_lock_vma;
	struct mm *mm;
	struct vma *v;

	mm_fault_lock_vma = true;
	mm = mm_create();
	mm_fault_lock_vma = was;
	if (!mm)
		return;
	EXPECT_EQ(t, vm_mmap(mm, B, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)B);
	mmap_write_lock(mm);
	v = vma_find(mm, B);
	vma_start_write(mm, v);                 /* marked in section S */
	mmap_write_unlock(mm);                  /* section S + 1 from here */
	mm->mm_lock_seq += 65535;               /* 65,535 more sections that left v alone */
	mmap_write_lock(mm);                    /* section S + 65,536: the same low 16 bits */
	EXPECT_EQ(t, v->vm_lock_seq, (uint16_t)mm->mm_lock_seq);
	v->vm_readers = 1;                      /* a fault that came in during an earlier section */
	waited_on = v;
	relax_rounds = 0;
	hosted_relax_hook = fault_leaves;
	vma_start_write(mm, v);
	hosted_relax_hook = NULL;
	EXPECT_GT(t, relax_rounds, 0u);           /* the writer waited for it */
	EXPECT_EQ(t, v->vm_readers, 0);
	mmap_write_unlock(mm);
	mm_put(mm);
}

/* An mm with per-VMA locks (fault_lock=vma), or NULL. */
static struct mm *vma_lock_mm(void)
{
	bool was = mm_fault_lock_vma;
	struct mm *mm;

	mm_fault_lock_vma = true;
	mm = mm_create();
	mm_fault_lock_vma = was;
	return mm;
}

/* Was the VMA at addr marked by the write section that just ended (mmap_write_unlock moved the number on)? */
static bool marked_last_section(struct mm *mm, uintptr_t addr)
{
	struct vma *v;
	bool marked;

	mmap_read_lock(mm);
	v = vma_find(mm, addr);
	marked = v && v->start <= addr && v->vm_lock_seq == (uint16_t)(mm->mm_lock_seq - 1);
	mmap_read_unlock(mm);
	return marked;
}

/*
 * Which VMAs a write section marks, so which faults must wait or fall back
 * to the mmap_lock: munmap marks what it unmaps and not the VMAs beside it
 * (it changes none of them); mmap marks a neighbour only when the new
 * mapping may merge with it (the same flags, as a merge needs), as Linux
 * write-locks the VMA a merge expands. A faulting thread whose VMA lies
 * next to another thread's mmap and munmap of unmergeable memory (mixed1
 * of tools/bench/threadbench.c) then keeps faulting under its VMA lock.
 */
static void test_writers_mark_what_they_change(struct ktest *t)
{
	struct mm *mm = vma_lock_mm();

	if (!mm)
		return;
	EXPECT_EQ(t, vm_mmap(mm, B, 2 * PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)B);
	EXPECT_EQ(t, vm_mmap(mm, B + 2 * PAGE_SIZE, PAGE_SIZE, PROT_READ, UT_PA | MAP_FIXED),
		  (long)(B + 2 * PAGE_SIZE));
	EXPECT_FALSE(t, marked_last_section(mm, B));            /* read-only beside read-write: no merge */
	EXPECT_EQ(t, vm_munmap(mm, B + 2 * PAGE_SIZE, PAGE_SIZE), 0);
	EXPECT_FALSE(t, marked_last_section(mm, B));            /* the unmapped VMA's neighbour */
	EXPECT_EQ(t, vm_mmap(mm, B + 2 * PAGE_SIZE, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED),
		  (long)(B + 2 * PAGE_SIZE));
	/*
	 * The same flags beside it: it may merge (it does, but for a lab
	 * skeleton whose merge rules are still stubs: the mark comes from
	 * the flags either way).
	 */
	EXPECT_TRUE(t, marked_last_section(mm, B));
	EXPECT_EQ(t, vm_munmap(mm, B + PAGE_SIZE, PAGE_SIZE), 0);
	EXPECT_TRUE(t, marked_last_section(mm, B));             /* the VMA unmapped in (split or trimmed) */
	mm_put(mm);
}

/* A fault that comes in on the tail while the section works: does it get the tail's lock? */
struct tail_fault {
	uintptr_t addr;
	struct vma *locked;
};

static void fault_on_tail(struct mm *mm, const struct vma *piece, void *arg)
{
	struct tail_fault *f = arg;

	(void)piece;
	f->locked = vma_lock_lookup(mm, f->addr);
	if (f->locked)
		vma_read_unlock(f->locked);
}

/*
 * A VMA that a write section puts in the index comes in marked, so no
 * fault locks it before the section ends: the section may still free it.
 * The fuzzer's case (seed 171, 2026-12-05, a general protection fault in
 * a file fault's fault-around reading a freed VMA): MAP_FIXED over the
 * middle of a mapping with the same flags first unmaps the hole, which
 * splits off the tail as a new VMA, then maps the hole, which merges head,
 * hole and tail into one: the tail is freed in the same section. A fault
 * on the tail in between (here the unmap's callback, called after the
 * split) must fall back to the mmap_lock; had it locked the tail, the
 * tail would be freed a grace period later with the fault still inside
 * (the writer waits only for the faults in the VMAs it marked). The
 * plain split of mprotect and madvise is the same case without the free.
 */
static void test_new_vma_comes_in_marked(struct ktest *t)
{
	struct mm *mm = vma_lock_mm();
	struct tail_fault f = { B + 3 * PAGE_SIZE, NULL };
	struct vma *v, *nv = NULL;

	if (!mm)
		return;
	EXPECT_EQ(t, vm_mmap(mm, B, 4 * PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)B);
	mmap_write_lock(mm);
	v = vma_find(mm, B);
	/* mmap_region's marks, then its replace with the unmap's callback */
	vma_write_lock_map(mm, B + PAGE_SIZE, B + 2 * PAGE_SIZE, v->flags, NULL);
	EXPECT_EQ(t, vma_map_replace(mm, B + PAGE_SIZE, B + 2 * PAGE_SIZE, v->flags, NULL,
				     (B + PAGE_SIZE) >> PAGE_SHIFT, fault_on_tail, &f, &nv), 0);
	EXPECT_TRUE(t, f.locked == NULL);       /* the split-off tail was closed to it */
	mmap_write_unlock(mm);                  /* (merged into one VMA again, by the merge rules) */

	mmap_write_lock(mm);
	v = vma_find(mm, B + 3 * PAGE_SIZE);
	vma_start_write(mm, v);
	EXPECT_EQ(t, vma_split(mm, v, B + 3 * PAGE_SIZE, false, &nv), 0);
	EXPECT_TRUE(t, vma_write_marked(mm, nv));
	EXPECT_TRUE(t, vma_lock_lookup(mm, B + 3 * PAGE_SIZE) == NULL);
	mmap_write_unlock(mm);
	/* After the section its faults lock it as any other. */
	v = vma_lock_lookup(mm, B + 3 * PAGE_SIZE);
	EXPECT_TRUE(t, v == nv);
	if (v)
		vma_read_unlock(v);
	mm_put(mm);
}

/*
 * What waits for a grace period is freed by mm_flush_deferred_all, which
 * the leak check (vmk_check) runs before it counts frames. An munmap's
 * VMA is freed at the unlock only when the grace period it waits for has
 * already passed; a lookup begun before it (here this CPU's own read
 * section) keeps it waiting until the address space's next unlock, which
 * in a process that then stays quiet (the fuzzer's driver between seeds)
 * may come after the count: the count then depended on timing.
 */
static void test_flush_frees_what_waits(struct ktest *t)
{
	struct mm *mm = vma_lock_mm();
	size_t before;

	if (!mm)
		return;
	EXPECT_EQ(t, vm_mmap(mm, B, 2 * PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)B);
	before = vma_objects_inuse();
	rcu_read_lock();                        /* a fault's lookup, begun before the munmap */
	EXPECT_EQ(t, vm_munmap(mm, B, 2 * PAGE_SIZE), 0);
	rcu_read_unlock();
	EXPECT_EQ(t, vma_objects_inuse(), before);      /* the VMA still waits */
	mm_flush_deferred_all();
	EXPECT_EQ(t, vma_objects_inuse(), before - 1);
	if (mm->index.ops->deferred)            /* nor does an index node the munmap replaced */
		EXPECT_EQ(t, mm->index.ops->deferred(&mm->index), 0u);
	mm_put(mm);
}

/* vma_lock_lookup's VMA at addr (unlocked again at once), or NULL. */
static struct vma *lookup_once(struct mm *mm, uintptr_t addr)
{
	struct vma *v = vma_lock_lookup(mm, addr);

	if (v)
		vma_read_unlock(v);
	return v;
}

/* The VMA at addr as the index has it (under the mmap_lock). */
static struct vma *index_vma(struct mm *mm, uintptr_t addr)
{
	struct vma *v;

	mmap_read_lock(mm);
	v = vma_lookup(mm, addr);
	mmap_read_unlock(mm);
	return v;
}

/*
 * The task's cached VMA of the last lock-free fault (struct vma_cache)
 * is used only while it is right. The second lookup of an address gives
 * the same VMA (from the cache). Then the VMA is unmapped, and another
 * address space maps the same range: the slab hands it the freed VMA's
 * memory (the last object freed is the first given), so the stale cache
 * entry now points at a VMA of the other mm that covers the address. Only
 * the count of sections that freed a VMA (vma_free_seq, moved on by the
 * munmap) tells it is stale: the lookup in the first mm must find nothing
 * (a cache checked by address alone would lock the other mm's VMA: the
 * lookup's BUG_ON). Last, the two address spaces at the same count with
 * VMAs at the same address: each lookup gets its own mm's VMA, as the
 * cache is keyed on mm->id.
 */
static void test_vma_cache_follows_the_index(struct ktest *t)
{
	struct mm *mm = vma_lock_mm(), *other = vma_lock_mm();
	struct vma *first;

	if (!mm || !other) {
		if (mm)
			mm_put(mm);
		if (other)
			mm_put(other);
		return;
	}
	EXPECT_EQ(t, vm_mmap(mm, B, 2 * PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)B);
	first = lookup_once(mm, B);
	EXPECT_TRUE(t, first != NULL && first == index_vma(mm, B));
	EXPECT_TRUE(t, lookup_once(mm, B + PAGE_SIZE) == first);
	EXPECT_EQ(t, vm_munmap(mm, B, 2 * PAGE_SIZE), 0);
	EXPECT_EQ(t, vm_mmap(other, B, 2 * PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)B);
	EXPECT_TRUE(t, lookup_once(mm, B) == NULL);
	EXPECT_TRUE(t, lookup_once(other, B) == index_vma(other, B));

	EXPECT_EQ(t, vm_mmap(mm, B, 2 * PAGE_SIZE, PROT_READ, UT_PA | MAP_FIXED), (long)B);
	while (other->vma_free_seq < mm->vma_free_seq)          /* sections that free a VMA elsewhere */
		if (vm_mmap(other, B + 16 * PAGE_SIZE, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED) < 0 ||
		    vm_munmap(other, B + 16 * PAGE_SIZE, PAGE_SIZE))
			break;
	EXPECT_EQ(t, other->vma_free_seq, mm->vma_free_seq);
	EXPECT_TRUE(t, lookup_once(mm, B) == index_vma(mm, B));
	EXPECT_TRUE(t, lookup_once(other, B) == index_vma(other, B));
	EXPECT_TRUE(t, lookup_once(mm, B) == index_vma(mm, B));
	mm_put(other);
	mm_put(mm);
}

/*
 * The cache outlives write sections that free no VMA (a thread's mmap
 * leaves the other threads' caches alone), so what they changed is
 * checked by the bounds. A split leaves the cached VMA with one half and
 * a new VMA with the other: a lookup in each half must get that half's
 * VMA (a cache trusted without its bounds gives the old VMA for one of
 * them). A mapping just below with the same flags (where the merge rules
 * are in, the VMA above grows down to take it; the merge lab's skeletons
 * have none, and the lookup must then find the new VMA). Last, a
 * MAP_FIXED mapping over the cached VMA's range frees it in the section
 * that puts another VMA there: the count must move (the check that fails
 * when vma_free does not count: then the cache stays on the freed VMA,
 * and whether the lookup still comes out right depends on what the freed
 * memory holds; test_vma_cache_follows_the_index shows it going wrong),
 * and the lookup must get the new VMA.
 */
static void test_vma_cache_after_sections_that_free_nothing(struct ktest *t)
{
	struct mm *mm = vma_lock_mm();
	struct vma *whole, *high, *nv = NULL;
	unsigned long seq;

	if (!mm)
		return;
	EXPECT_EQ(t, vm_mmap(mm, B, 2 * PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)B);
	whole = lookup_once(mm, B);
	EXPECT_TRUE(t, whole != NULL && whole == index_vma(mm, B));
	seq = mm->vma_free_seq;
	mmap_write_lock(mm);
	vma_start_write(mm, whole);
	EXPECT_EQ(t, vma_split(mm, whole, B + PAGE_SIZE, false, &nv), 0);
	mmap_write_unlock(mm);
	EXPECT_EQ(t, mm->vma_free_seq, seq);
	EXPECT_TRUE(t, nv != NULL && nv == index_vma(mm, B + PAGE_SIZE) && whole == index_vma(mm, B));
	EXPECT_TRUE(t, lookup_once(mm, B + PAGE_SIZE) == nv);
	EXPECT_TRUE(t, lookup_once(mm, B) == whole);
	EXPECT_EQ(t, vm_mmap(mm, B - PAGE_SIZE, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)(B - PAGE_SIZE));
	EXPECT_EQ(t, mm->vma_free_seq, seq);
	EXPECT_TRUE(t, lookup_once(mm, B - PAGE_SIZE) == index_vma(mm, B - PAGE_SIZE));
	high = lookup_once(mm, B + PAGE_SIZE);
	EXPECT_TRUE(t, high == nv);
	EXPECT_EQ(t, vm_mmap(mm, B + PAGE_SIZE, PAGE_SIZE, UT_RW, UT_PA | MAP_FIXED), (long)(B + PAGE_SIZE));
	EXPECT_TRUE(t, mm->vma_free_seq != seq);
	EXPECT_TRUE(t, index_vma(mm, B + PAGE_SIZE) != NULL && index_vma(mm, B + PAGE_SIZE) != high);
	EXPECT_TRUE(t, lookup_once(mm, B + PAGE_SIZE) == index_vma(mm, B + PAGE_SIZE));
	mm_put(mm);
}

static const struct ktest_case vma_lock_cases[] = {
	KTEST_CASE(test_stale_mark_still_waits),
	KTEST_CASE(test_writers_mark_what_they_change),
	KTEST_CASE(test_new_vma_comes_in_marked),
	KTEST_CASE(test_flush_frees_what_waits),
	KTEST_CASE(test_vma_cache_follows_the_index),
	KTEST_CASE(test_vma_cache_after_sections_that_free_nothing),
	{ 0 },
};
KTEST_SUITE(vma_lock, vma_lock_cases);
#endif
