/*
 * One address space, several CPUs at once: kernel threads on different CPUs
 * work in the same mm (kthread_use_mm) and fault through their own MMUs
 * while others fault, unmap, write-protect or fork it. Run twice: with
 * faults under the mmap_lock (fault_lock=mmap) and under per-VMA locks
 * (fault_lock=vma). What is checked never depends on timing:
 *   - the same page faulted by every CPU at once ends as one page holding
 *     every CPU's byte; different pages end with their own contents;
 *   - a page read while another CPU unmaps and remaps it shows either its
 *     own contents or a fault, never another page's or stale bytes, and a
 *     read that began and ended while the page was unmapped faults;
 *   - a write that began and ended while the range was read-only faults;
 *   - a reader of a page that forks and breaks COW never sees the values
 *     go backwards, and the child keeps the old ones;
 *   - a page a write fault reuses (re-tags with its VMA's identity) is
 *     never re-tagged under a reference reclaim's isolation took without
 *     pt_lock: the fault copies instead, or the isolation backs off;
 *   - a page written while another CPU reclaims holds the write; read
 *     back after MADV_FREE, its value or zero (or, the copy being
 *     bytewise, its first bytes then zeros), nothing else;
 *   - with per-VMA locks, a fault in one VMA completes while another task
 *     holds the mmap_lock for writing (a fault that needed it would wait
 *     forever: the test would hang), and a fault in a VMA a writer has
 *     marked waits for the mmap_lock instead;
 * and every test ends with vma_check and an exact frame count. The munmap
 * and mprotect races also check that the changes were shot down to the
 * workers' CPUs (which have the address space loaded): without that, a
 * worker could go on through a stale TLB entry, which the checks above
 * catch only when the timing shows it.
 */
#include "ktest.h"
#include "task.h"
#include "mm.h"
#include "uaccess.h"
#include "arch.h"
#include "kerrno.h"
#include "kstring.h"
#include "printk.h"
#include "tests/unit/test_mm_util.h"
#include "vmscan.h"
#include "vmstat.h"
#include "lockless.h"
#include "sleep.h"

#define A 0x40000000UL
#define NPAGES 16

static const char *mode_name(unsigned i)
{
	return i == 0 ? "fault_lock=mmap" : i == 1 ? "fault_lock=vma" : NULL;
}

/* An mm with a private RW mapping of npages at A, each page's first word = its index + 1. */
static struct mm *make_mm(struct ktest *t, unsigned npages, bool write_pages)
{
	struct mm *mm = mm_create();

	if (!mm)
		return NULL;
	mmap_write_lock(mm);
	vma_lockless_set(mm, t->param == 1);
	mmap_write_unlock(mm);
	if (vm_mmap(mm, A, npages * PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) != (long)A) {
		mm_put(mm);
		return NULL;
	}
	for (unsigned i = 0; write_pages && i < npages; i++) {
		uint64_t v = i + 1;

		if (mm_copy_to(mm, A + i * PAGE_SIZE, &v, sizeof(v))) {
			mm_put(mm);
			return NULL;
		}
	}
	return mm;
}

static void check_and_put(struct ktest *t, struct mm *mm)
{
	mmap_read_lock(mm);
	EXPECT_EQ(t, vma_check(mm), 0);
	mmap_read_unlock(mm);
	mm_put(mm);
}

/* ---- workers: a kernel thread per CPU in the test's mm */

struct worker;
typedef void (*work_fn)(struct worker *w);

struct shared {
	struct mm *mm;
	/* [atomic] all: the workers and the controller race on them; plain reads after the joins */
	unsigned long epoch;            /* odd while the controller's change is in effect */
	int stop;
	unsigned started;
	unsigned long errors;           /* impossible results seen */
	unsigned long faults, hits;
};

struct worker {
	struct shared *s;
	unsigned id;
	work_fn fn;
	struct task *th;
};

static void worker_main(void *arg)
{
	struct worker *w = arg;

	kthread_use_mm(w->s->mm);
	__atomic_add_fetch(&w->s->started, 1, __ATOMIC_ACQ_REL);
	w->fn(w);
	kthread_unuse_mm();
}

/*
 * Workers on CPUs 1..MAX_WORKERS (CPU 0 runs the test itself); with one
 * CPU, two workers share it with the test. At most MAX_WORKERS: the 2-core
 * machine runs the guest CPUs as threads, and more busy guest CPUs than
 * host cores only make every lock hand-over wait for a host time slice.
 */
#define MAX_WORKERS 3

static unsigned start_workers(struct worker *w, struct shared *s, work_fn fn)
{
	unsigned long m = arch_cpu_online_mask() & ~1UL;
	unsigned n = 0, started = 0;

	for (unsigned cpu = 1; cpu < NR_CPUS && n < MAX_WORKERS; cpu++)
		if (m & (1UL << cpu))
			n++;
	if (!m)
		n = 2;
	for (unsigned i = 0, cpu = 0; i < n; i++) {
		w[i] = (struct worker){ s, i, fn, NULL };
		while (m && !(m & (1UL << ++cpu)))
			;
		w[i].th = kthread_create(worker_main, &w[i], m ? (int)cpu : 0, "mm_smp");
		if (w[i].th) {
			kthread_start(w[i].th);
			started++;
		}
	}
	while (smp_load_acquire(&s->started) < started)
		sched_yield();
	return started;
}

static unsigned long shootdowns_so_far(void)
{
	struct tlb_stats st;

	arch_tlb_stats(&st);
	return st.shootdowns;
}

static void stop_workers(struct worker *w, unsigned n, struct shared *s)
{
	smp_store_release(&s->stop, 1);
	for (unsigned i = 0; i < n; i++)
		if (w[i].th)
			kthread_join(w[i].th);
}

/* ---- the same page, and different pages, faulted from every CPU */

static void write_own_byte(struct worker *w)
{
	uint8_t b = (uint8_t)(0x40 + w->id);

	/* Every worker's first touch of the page is a write fault, all at about the same time. */
	if (copy_to_user((void *)(A + 64 + w->id), &b, 1))
		__atomic_add_fetch(&w->s->errors, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < 8; i++) {
		uint64_t v = ((uint64_t)w->id << 32) | i;
		uintptr_t page = A + (1 + w->id * 8 + i) * PAGE_SIZE;

		if (copy_to_user((void *)page, &v, sizeof(v)))
			__atomic_add_fetch(&w->s->errors, 1, __ATOMIC_RELAXED);
	}
}

/* Pages of [start, start + npages pages) that are mapped. */
static unsigned long present_pages(struct mm *mm, uintptr_t start, unsigned npages)
{
	unsigned long n = 0;

	mm_pt_lock(mm);
	for (unsigned i = 0; i < npages; i++)
		n += arch_mmu_query(mm->mmu, start + i * PAGE_SIZE, NULL, NULL) == 0;
	mm_pt_unlock(mm);
	return n;
}

static void test_same_and_different_pages(struct ktest *t)
{
	struct shared s = { 0 };
	struct worker w[NR_CPUS];
	unsigned n;
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	s.mm = make_mm(t, 1 + NR_CPUS * 8, false);
	ASSERT_TRUE(t, s.mm != NULL);
	n = start_workers(w, &s, write_own_byte);
	stop_workers(w, n, &s);
	EXPECT_EQ(t, s.errors, 0);
	for (unsigned i = 0; i < n; i++) {
		uint8_t b = 0;
		uint64_t v = 0;

		EXPECT_EQ(t, mm_copy_from(s.mm, &b, A + 64 + i, 1), 0);
		EXPECT_EQ(t, b, 0x40 + i);
		for (unsigned k = 0; k < 8; k++) {
			EXPECT_EQ(t, mm_copy_from(s.mm, &v, A + (1 + i * 8 + k) * PAGE_SIZE, sizeof(v)), 0);
			EXPECT_EQ(t, v, ((uint64_t)i << 32) | k);
		}
	}
	/* One shared page, eight of each worker's own (more if faults fill ahead), each counted once. */
	EXPECT_EQ(t, s.mm->rss, present_pages(s.mm, A, 1 + NR_CPUS * 8));
	EXPECT_GE(t, s.mm->rss, 1 + n * 8);
	check_and_put(t, s.mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

/* ---- first writes into a 2 MiB block with no page table yet, from every CPU */

#define LINK_BLOCKS 8
static unsigned link_workers, link_arrived[LINK_BLOCKS];        /* [atomic] */

/*
 * Block by block, every worker waits for the others, then writes its own
 * page of the block: the writes race to link the block's page table
 * (arch_mmu_link_tables in pt_lock's shared mode), one wins.
 */
static void write_new_blocks(struct worker *w)
{
	unsigned n;

	while (!(n = smp_load_acquire(&link_workers)))
		sched_yield();          /* the controller counts the workers started */

	for (unsigned b = 1; b < LINK_BLOCKS; b++) {
		uint64_t v = ((uint64_t)w->id << 32) | b;

		__atomic_add_fetch(&link_arrived[b], 1, __ATOMIC_ACQ_REL);
		while (smp_load_acquire(&link_arrived[b]) < n)
			sched_yield();  /* with one CPU, the workers share it */
		if (copy_to_user((void *)(A + b * HUGE_SIZE + (w->id + 1) * PAGE_SIZE), &v, sizeof(v)))
			__atomic_add_fetch(&w->s->errors, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Where no huge page may go (MADV_NOHUGEPAGE), a VMA's write into a block
 * without a page table links the table in shared mode. With every worker
 * writing into each new block at once: every value lands, every write
 * took the shared mode, each block has exactly one page table (the root,
 * PDPT and page directory, and one per block: a table linked twice, or a
 * loser's table kept, would show), and every frame comes back (a loser's
 * table not freed would not).
 */
static void test_table_link_races(struct ktest *t)
{
	struct shared s = { 0 };
	struct worker w[NR_CPUS];
	unsigned long shared0;
	unsigned n;
	size_t frames;
	uint8_t one = 1;

	ut_warm_up();
	frames = ut_free_frames();
	s.mm = make_mm(t, LINK_BLOCKS * (HUGE_SIZE / PAGE_SIZE), false);
	ASSERT_TRUE(t, s.mm != NULL);
	ASSERT_EQ(t, vm_madvise(s.mm, A, LINK_BLOCKS * HUGE_SIZE, MADV_NOHUGEPAGE), 0);
	ASSERT_EQ(t, mm_copy_to(s.mm, A, &one, 1), 0);         /* the anon identity, block 0's table */
	shared0 = s.mm->faults_pt_shared;
	memset(link_arrived, 0, sizeof(link_arrived));
	link_workers = 0;
	n = start_workers(w, &s, write_new_blocks);
	smp_store_release(&link_workers, n);
	stop_workers(w, n, &s);
	EXPECT_EQ(t, s.errors, 0);
	for (unsigned i = 0; i < n; i++)
		for (unsigned b = 1; b < LINK_BLOCKS; b++) {
			uint64_t v = 0;

			EXPECT_EQ(t, mm_copy_from(s.mm, &v, A + b * HUGE_SIZE + (i + 1) * PAGE_SIZE, sizeof(v)), 0);
			EXPECT_EQ(t, v, ((uint64_t)i << 32) | b);
		}
	EXPECT_EQ(t, s.mm->faults_pt_shared - shared0, (unsigned long)n * (LINK_BLOCKS - 1));
	EXPECT_EQ(t, s.mm->rss, present_pages(s.mm, A, LINK_BLOCKS * (HUGE_SIZE / PAGE_SIZE)));
	EXPECT_EQ(t, arch_mmu_table_pages(s.mm->mmu), 3 + LINK_BLOCKS);
	check_and_put(t, s.mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

/* ---- munmap/mmap racing with faults */

#define RACE_ROUNDS 60

/*
 * A progress line every 10 rounds of a race (# diagnostics). The workers
 * never sleep, so on a loaded host, where the guest's CPUs share few host
 * cores, the test's own CPU gets a small share and a case can run for
 * minutes; tools/qemu-run takes 120 s without output for a hang. (Every
 * round completes: measured with every guest CPU on one host core, the
 * longest round took about 9 s, the slowest case about 2.5 min.)
 */
static void race_progress(const struct ktest *t, unsigned r)
{
	if ((r + 1) % 10 == 0)
		printk("# %s/%s: round %u of %u\n", t->tcase->name, mode_name(t->param), r + 1, RACE_ROUNDS);
}

/*
 * Read page k; it holds k + 1 while mapped. An epoch unchanged and odd
 * around the read means the page was unmapped for all of it: it must fault.
 */
static void read_while_unmapped(struct worker *w)
{
	for (unsigned i = 0; !smp_load_acquire(&w->s->stop); i++) {
		unsigned k = (i * 7 + w->id) % NPAGES;
		unsigned long e0 = smp_load_acquire(&w->s->epoch), e1;
		uint64_t v = 0;
		int err = copy_from_user(&v, (const void *)(A + k * PAGE_SIZE), sizeof(v));

		e1 = smp_load_acquire(&w->s->epoch);
		if (err == 0 && v != k + 1 && v != 0)
			__atomic_add_fetch(&w->s->errors, 1, __ATOMIC_RELAXED);     /* another page's bytes */
		if (err == 0 && k == 3 && e0 == e1 && (e0 & 1))
			__atomic_add_fetch(&w->s->errors, 1, __ATOMIC_RELAXED);     /* read while unmapped */
		__atomic_add_fetch(err ? &w->s->faults : &w->s->hits, 1, __ATOMIC_RELAXED);
		if (i % 64 == 0)
			sched_yield();
	}
}

static void test_munmap_races_faults(struct ktest *t)
{
	struct shared s = { 0 };
	struct worker w[NR_CPUS];
	unsigned long sd;
	unsigned n;
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	s.mm = make_mm(t, NPAGES, true);
	ASSERT_TRUE(t, s.mm != NULL);
	n = start_workers(w, &s, read_while_unmapped);
	sd = shootdowns_so_far();
	for (unsigned r = 0; r < RACE_ROUNDS; r++) {
		uint64_t v = 4;     /* page 3's contents */

		/* Pages 3 and r % NPAGES go; page 3 comes back written, the other comes back zero. */
		EXPECT_EQ(t, vm_munmap(s.mm, A + 3 * PAGE_SIZE, PAGE_SIZE), 0);
		__atomic_add_fetch(&s.epoch, 1, __ATOMIC_ACQ_REL);
		if (r % NPAGES != 3)            /* (page 3 is unmapped now: -ENOMEM) */
			EXPECT_EQ(t, vm_madvise(s.mm, A + (r % NPAGES) * PAGE_SIZE, PAGE_SIZE, MADV_DONTNEED), 0);
		sched_yield();
		__atomic_add_fetch(&s.epoch, 1, __ATOMIC_ACQ_REL);
		EXPECT_EQ(t, vm_mmap(s.mm, A + 3 * PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), (long)(A + 3 * PAGE_SIZE));
		EXPECT_EQ(t, mm_copy_to(s.mm, A + 3 * PAGE_SIZE, &v, sizeof(v)), 0);
		if (r % NPAGES != 3) {
			v = r % NPAGES + 1;
			EXPECT_EQ(t, mm_copy_to(s.mm, A + (r % NPAGES) * PAGE_SIZE, &v, sizeof(v)), 0);
		}
		race_progress(t, r);
	}
	/* At least the first munmap: the workers' CPUs had the address space loaded (active or lazily). */
	if (arch_nr_cpus() > 1)         /* (with one CPU the workers share the test's: no other CPU) */
		EXPECT_GT(t, shootdowns_so_far(), sd);
	stop_workers(w, n, &s);
	EXPECT_EQ(t, s.errors, 0);
	EXPECT_GT(t, s.hits, 0);
	check_and_put(t, s.mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

/* ---- mprotect racing with writes */

static void write_while_readonly(struct worker *w)
{
	for (unsigned i = 0; !smp_load_acquire(&w->s->stop); i++) {
		unsigned long e0 = smp_load_acquire(&w->s->epoch), e1;
		uint64_t v = ((uint64_t)w->id << 32) | i;
		int err = copy_to_user((void *)(A + (i % NPAGES) * PAGE_SIZE + 8 * (1 + w->id)), &v,
				       sizeof(v));

		e1 = smp_load_acquire(&w->s->epoch);
		if (err == 0 && e0 == e1 && (e0 & 1))
			__atomic_add_fetch(&w->s->errors, 1, __ATOMIC_RELAXED);     /* wrote read-only memory */
		__atomic_add_fetch(err ? &w->s->faults : &w->s->hits, 1, __ATOMIC_RELAXED);
		if (i % 64 == 0)
			sched_yield();
	}
}

static void test_mprotect_races_writes(struct ktest *t)
{
	struct shared s = { 0 };
	struct worker w[NR_CPUS];
	unsigned long sd;
	unsigned n;

	s.mm = make_mm(t, NPAGES, true);
	ASSERT_TRUE(t, s.mm != NULL);
	n = start_workers(w, &s, write_while_readonly);
	sd = shootdowns_so_far();
	for (unsigned r = 0; r < RACE_ROUNDS; r++) {
		EXPECT_EQ(t, vm_mprotect(s.mm, A, NPAGES * PAGE_SIZE, PROT_READ), 0);
		__atomic_add_fetch(&s.epoch, 1, __ATOMIC_ACQ_REL);
		sched_yield();
		__atomic_add_fetch(&s.epoch, 1, __ATOMIC_ACQ_REL);
		/* Half the range writable again: two VMAs, then one after the next round's change. */
		EXPECT_EQ(t, vm_mprotect(s.mm, A + (r % 2) * (NPAGES / 2) * PAGE_SIZE,
					 NPAGES / 2 * PAGE_SIZE, PROT_READ | PROT_WRITE), 0);
		EXPECT_EQ(t, vm_mprotect(s.mm, A, NPAGES * PAGE_SIZE, PROT_READ | PROT_WRITE), 0);
		race_progress(t, r);
	}
	if (arch_nr_cpus() > 1)
		EXPECT_GT(t, shootdowns_so_far(), sd);  /* at least the first write-protection */
	stop_workers(w, n, &s);
	EXPECT_EQ(t, s.errors, 0);
	EXPECT_GT(t, s.hits, 0);
	check_and_put(t, s.mm);
}

/* ---- COW breaks while other CPUs read */

/* Page 0's first word only grows (the controller writes 1, 2, 3, ... through COW breaks). */
static void read_monotonic(struct worker *w)
{
	uint64_t last = 0;

	while (!smp_load_acquire(&w->s->stop)) {
		uint64_t v = 0;

		if (copy_from_user(&v, (const void *)A, sizeof(v)) || v < last)
			__atomic_add_fetch(&w->s->errors, 1, __ATOMIC_RELAXED);
		last = v;
		__atomic_add_fetch(&w->s->hits, 1, __ATOMIC_RELAXED);
		sched_yield();
	}
}

static void test_cow_breaks_while_reading(struct ktest *t)
{
	struct shared s = { 0 };
	struct worker w[NR_CPUS];
	struct mm *children[8];
	unsigned n;

	s.mm = make_mm(t, NPAGES, true);
	ASSERT_TRUE(t, s.mm != NULL);
	n = start_workers(w, &s, read_monotonic);
	for (unsigned r = 0; r < 8; r++) {
		uint64_t v = r + 2;     /* page 0 held 1 */

		children[r] = mm_dup(s.mm);     /* page 0 becomes COW-shared */
		ASSERT_TRUE(t, children[r] != NULL);
		EXPECT_EQ(t, mm_copy_to(s.mm, A, &v, sizeof(v)), 0);   /* the parent's COW break */
	}
	stop_workers(w, n, &s);
	EXPECT_EQ(t, s.errors, 0);
	for (unsigned r = 0; r < 8; r++) {
		uint64_t v = 0;

		/* Each child kept the value page 0 had when it was forked. */
		EXPECT_EQ(t, mm_copy_from(children[r], &v, A, sizeof(v)), 0);
		EXPECT_EQ(t, v, r + 1);
		check_and_put(t, children[r]);
	}
	check_and_put(t, s.mm);
}

/* ---- a write fault's reuse racing reclaim's isolation */

/*
 * The page the controller's write is about to reuse (NULL: none), and
 * how many workers may be touching it: a worker counts itself in before
 * it loads the pointer, the controller clears the pointer and waits for
 * the count to drop before the page's address space goes (both
 * sequentially consistent: each side's store comes before its load).
 */
static struct page *reuse_target;       /* [atomic] */
static unsigned reuse_watchers;         /* [atomic] */

#define REUSE_ROUNDS 2000

/*
 * A worker: reclaim's isolation of the published page, over and over: a
 * reference taken as lru_isolate takes it (unless the count is 0, with
 * no page-table lock), the page's identity read, a short wait, read
 * again, the reference dropped. While the reference is held, a write
 * fault must not re-tag the page (anon_page_move): a reverse-map walk
 * would read an identity that is being replaced and may be freed.
 * Kernel threads are not preempted: with one CPU the workers share it
 * with the controller, so every 64th turn yields (once with the
 * reference held: the controller's write then meets it and must copy).
 */
static void isolate_and_watch(struct worker *w)
{
	for (unsigned i = 0; !smp_load_acquire(&w->s->stop); i++) {
		struct page *p;
		int32_t r;

		__atomic_add_fetch(&reuse_watchers, 1, __ATOMIC_SEQ_CST);
		p = __atomic_load_n(&reuse_target, __ATOMIC_SEQ_CST);      /* pairs with the controller's clear */
		r = p ? READ_ONCE(p->refcount) : 0;
		while (r > 0 && !__atomic_compare_exchange_n(&p->refcount, &r, r + 1, false, __ATOMIC_ACQUIRE,
							      __ATOMIC_RELAXED))
			;
		if (r > 0) {
			void *tag = READ_ONCE(p->private);
			unsigned long idx = READ_ONCE(p->index);

			for (unsigned k = 0; k < 32; k++)
				arch_cpu_relax();
			if (i % 128 == 0)
				sched_yield();
			if (READ_ONCE(p->private) != tag || READ_ONCE(p->index) != idx)
				__atomic_add_fetch(&w->s->errors, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&w->s->hits, 1, __ATOMIC_RELAXED);
			user_page_put(p);       /* the last one when the write copied the page meanwhile */
		}
		__atomic_sub_fetch(&reuse_watchers, 1, __ATOMIC_SEQ_CST);
		if (i % 64 == 0)
			sched_yield();
	}
}

/*
 * The controller's write of v at A in mm while the workers isolate p (a
 * frame the write fault may reuse): p published, the write, p withdrawn,
 * and no worker still holding it when this returns.
 */
static void write_while_isolated(struct ktest *t, struct mm *mm, struct page *p, uint64_t v)
{
	__atomic_store_n(&reuse_target, p, __ATOMIC_SEQ_CST);
	sched_yield();                  /* one CPU: let the workers take their reference */
	EXPECT_EQ(t, mm_copy_to(mm, A, &v, sizeof(v)), 0);
	__atomic_store_n(&reuse_target, NULL, __ATOMIC_SEQ_CST);  /* pairs with the workers' load */
	while (__atomic_load_n(&reuse_watchers, __ATOMIC_SEQ_CST))
		sched_yield();          /* a worker may be waiting for this CPU */
}

/*
 * Round after round, the address space forks and the parent goes: the
 * child's page is read-only, mapped and held by it alone, tagged with
 * the parent's identity; the controller writes it (wp_fault: reuse,
 * re-tagged with the child's identity, or a copy when a worker holds the
 * page) while the workers isolate it. No worker sees the page re-tagged
 * under its reference; the value written is there; nothing leaks.
 */
static void test_reuse_races_isolation(struct ktest *t)
{
	struct shared s = { 0 };
	struct worker w[NR_CPUS];
	struct mm *cur;
	unsigned long reused = 0;
	unsigned n;
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	s.mm = make_mm(t, 1, false);            /* the workers' (they touch no user memory) */
	cur = make_mm(t, 1, true);
	ASSERT_TRUE(t, s.mm != NULL && cur != NULL);
	n = start_workers(w, &s, isolate_and_watch);
	for (unsigned r = 0; r < REUSE_ROUNDS; r++) {
		struct mm *child = mm_dup(cur);
		uint64_t v = r + 2, reuses;
		phys_addr_t pa = 0;

		ASSERT_TRUE(t, child != NULL);
		mm_put(cur);
		cur = child;
		mm_pt_lock(cur);
		EXPECT_EQ(t, arch_mmu_query(cur->mmu, A, &pa, NULL), 0);
		mm_pt_unlock(cur);
		reuses = cur->cow_reuses;
		write_while_isolated(t, cur, phys_to_page(pa), v);
		reused += cur->cow_reuses - reuses;
		if ((r + 1) % 500 == 0)
			printk("# %s/%s: round %u of %u\n", t->tcase->name, mode_name(t->param), r + 1, REUSE_ROUNDS);
	}
	stop_workers(w, n, &s);
	printk("# %s: %lu reuses, %lu isolations\n", mode_name(t->param), reused, s.hits);
	EXPECT_EQ(t, s.errors, 0);
	{
		uint64_t v = 0;

		EXPECT_EQ(t, mm_copy_from(cur, &v, A, sizeof(v)), 0);
		EXPECT_EQ(t, v, REUSE_ROUNDS + 1);
	}
	check_and_put(t, cur);
	check_and_put(t, s.mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

#define THP_REUSE_ROUNDS 300

/*
 * The same race on a huge page (thp_wp_fault reuses all 512 frames):
 * each round a new address space with one 2 MiB page written at A
 * (thp=always), forked, the parent gone; the child's write reuses the
 * read-only leaf (every frame re-tagged) while the workers isolate the
 * frame at A + 0x5000, or splits it and copies 4 KiB when a worker holds
 * that frame. No worker sees its frame re-tagged under its reference;
 * the value is there; every frame comes back.
 */
static void test_thp_reuse_races_isolation(struct ktest *t)
{
	enum thp_mode saved = thp_mode;
	struct shared s = { 0 };
	struct worker w[NR_CPUS];
	unsigned long reused = 0;
	unsigned n;
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	thp_mode = THP_ALWAYS;
	s.mm = make_mm(t, 1, false);
	ASSERT_TRUE(t, s.mm != NULL);
	n = start_workers(w, &s, isolate_and_watch);
	for (unsigned r = 0; r < THP_REUSE_ROUNDS; r++) {
		struct mm *parent = make_mm(t, HUGE_SIZE / PAGE_SIZE, false), *child;
		uint64_t v = r + 1, got = 0, reuses;
		phys_addr_t pa = 0;
		unsigned st = 0;

		ASSERT_TRUE(t, parent != NULL);
		EXPECT_EQ(t, mm_copy_to(parent, A, &v, sizeof(v)), 0);
		child = mm_dup(parent);
		ASSERT_TRUE(t, child != NULL);
		mm_put(parent);
		mm_pt_lock(child);
		EXPECT_EQ(t, arch_mmu_query(child->mmu, A + 0x5000, &pa, &st), 0);
		mm_pt_unlock(child);
		EXPECT_TRUE(t, st & MMU_HUGE);
		reuses = child->cow_reuses;
		write_while_isolated(t, child, phys_to_page(pa), v + 1);
		reused += child->cow_reuses - reuses;
		EXPECT_EQ(t, mm_copy_from(child, &got, A, sizeof(got)), 0);
		EXPECT_EQ(t, got, v + 1);
		check_and_put(t, child);
		if ((r + 1) % 100 == 0)
			printk("# %s/%s: round %u of %u\n", t->tcase->name, mode_name(t->param), r + 1,
			       THP_REUSE_ROUNDS);
	}
	stop_workers(w, n, &s);
	printk("# %s: %lu huge reuses, %lu isolations\n", mode_name(t->param), reused, s.hits);
	EXPECT_EQ(t, s.errors, 0);
	EXPECT_TRUE(t, reused > 0);
	check_and_put(t, s.mm);
	thp_mode = saved;
	EXPECT_EQ(t, ut_free_frames(), frames);
}

/* ---- per-VMA locks: progress without the mmap_lock, and the fallback */

struct one_fault {
	struct mm *mm;
	uintptr_t addr;
	int done;                       /* [atomic] set (release) once err is */
	int err;
};

static void fault_once(void *arg)
{
	struct one_fault *f = arg;
	uint64_t v = 0x77;

	kthread_use_mm(f->mm);
	f->err = copy_to_user((void *)f->addr, &v, sizeof(v));
	kthread_unuse_mm();
	smp_store_release(&f->done, 1);
}

static unsigned some_cpu(void)
{
	unsigned long m = arch_cpu_online_mask() & ~1UL;

	return m ? (unsigned)__builtin_ctzl(m) : 0;
}

/*
 * Two VMAs far apart (X at A, Y at A + 1 GiB); X has its anon identity.
 * The test holds the mmap_lock for writing with Y marked; a fault in a new
 * page of X completes meanwhile (with fault_lock=mmap it could not).
 */
static void test_fault_while_mmap_lock_held(struct ktest *t)
{
	struct one_fault f = { 0 };
	struct task *th;
	const uintptr_t y = A + (1UL << 30);
	unsigned long lf, rc;

	if (t->param != 1) {
		ktest_skip(t, "faults take the mmap_lock with fault_lock=mmap");
		return;
	}
	f.mm = make_mm(t, NPAGES, false);
	ASSERT_TRUE(t, f.mm != NULL);
	ASSERT_EQ(t, vm_mmap(f.mm, y, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED),
		  (long)y);
	/* X's identity (later faults can be lock-free) from its last page: A stays unmapped. */
	ASSERT_EQ(t, ut_write8(f.mm, A + (NPAGES - 1) * PAGE_SIZE, 1), FAULT_OK);
	f.addr = A;
	lf = f.mm->faults_lockless;
	mmap_write_lock(f.mm);
	rc = f.mm->mmap_lock.read_contended;
	vma_write_lock_range(f.mm, y, y + PAGE_SIZE);
	th = kthread_create(fault_once, &f, (int)some_cpu(), "vma_fault");
	ASSERT_TRUE(t, th != NULL);
	kthread_start(th);
	/* Lockless: read_contended is [wait_lock]; fault_once's down_read would count it meanwhile. */
	while (!smp_load_acquire(&f.done) &&
	       smp_load_acquire(&f.mm->mmap_lock.read_contended) == rc)
		sched_yield();          /* done, or (a failure) queued for the mmap_lock */
	EXPECT_EQ(t, f.mm->mmap_lock.read_contended, rc);
	mmap_write_unlock(f.mm);
	kthread_join(th);
	EXPECT_EQ(t, f.err, 0);
	EXPECT_EQ(t, f.mm->faults_lockless, lf + 1);
	EXPECT_EQ(t, ut_read8(f.mm, A), 0x77);
	check_and_put(t, f.mm);
}

/* A fault in a VMA the writer marked falls back and waits for the mmap_lock. */
static void test_fault_in_marked_vma_waits(struct ktest *t)
{
	struct one_fault f = { 0 };
	struct task *th;
	unsigned long fb, rc;

	if (t->param != 1) {
		ktest_skip(t, "faults take the mmap_lock with fault_lock=mmap");
		return;
	}
	f.mm = make_mm(t, NPAGES, false);
	ASSERT_TRUE(t, f.mm != NULL);
	ASSERT_EQ(t, ut_write8(f.mm, A + (NPAGES - 1) * PAGE_SIZE, 1), FAULT_OK);
	f.addr = A;
	fb = f.mm->faults_fallback;
	mmap_write_lock(f.mm);
	rc = f.mm->mmap_lock.read_contended;
	vma_write_lock_range(f.mm, A, A + PAGE_SIZE);
	th = kthread_create(fault_once, &f, (int)some_cpu(), "vma_fault");
	ASSERT_TRUE(t, th != NULL);
	kthread_start(th);
	/* Lockless, as in the test above: fault_once's down_read counts read_contended ([wait_lock]). */
	while (smp_load_acquire(&f.mm->mmap_lock.read_contended) == rc &&
	       !smp_load_acquire(&f.done))
		sched_yield();          /* it queues for the mmap_lock (done: it did not, a failure) */
	EXPECT_EQ(t, f.done, 0);
	mmap_write_unlock(f.mm);
	kthread_join(th);
	EXPECT_EQ(t, f.err, 0);
	EXPECT_EQ(t, f.mm->faults_fallback, fb + 1);
	check_and_put(t, f.mm);
}

/* ---- the lock-free VMA lookup while the tree changes */

/*
 * LOOKUP_STABLE one-page VMAs, read-write, every LOOKUP_STRIDE pages from
 * A; the three pages after each are the churn slot, where the test maps,
 * splits and unmaps read-only VMAs (read-only: they never merge with the
 * stable ones). 400 VMAs: the B-tree is three levels deep, far beyond the
 * 80 VMAs above which the old snapshot gave up.
 */
#define LOOKUP_STABLE 400
#define LOOKUP_STRIDE 4
#define LOOKUP_SLOT(i) (A + (uintptr_t)(i) * LOOKUP_STRIDE * PAGE_SIZE)

/*
 * vma_lock_lookup from a worker: a stable page's lookup gives that page's
 * VMA or NULL (the fault would take the mmap_lock), never another; a churn
 * page's gives NULL or a VMA inside the slot. hits and faults: stable pages'
 * lookups that found their VMA, and that gave up (a writer marked the VMA,
 * or changed the tree through all of BT_LOCKLESS_TRIES tries).
 */
static void lookup_while_changing(struct worker *w)
{
	uint32_t x = 0x9e3779b9u * (w->id + 1);

	while (!smp_load_acquire(&w->s->stop)) {
		unsigned i;
		uintptr_t slot, addr;
		bool churn;
		struct vma *v;

		sched_yield();          /* kernel threads are not preempted: with one CPU the test must run */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		i = x % LOOKUP_STABLE;
		churn = x & (1u << 20);
		slot = LOOKUP_SLOT(i);
		addr = slot + (churn ? (1 + (x >> 24) % 3) * PAGE_SIZE : 0) + 8;
		v = vma_lock_lookup(w->s->mm, addr);
		if (!churn)
			__atomic_add_fetch(v ? &w->s->hits : &w->s->faults, 1, __ATOMIC_RELAXED);
		if (!v)
			continue;
		if (churn ? v->start < slot + PAGE_SIZE || v->end > slot + LOOKUP_STRIDE * PAGE_SIZE
			  : v->start != slot || v->end != slot + PAGE_SIZE)
			__atomic_add_fetch(&w->s->errors, 1, __ATOMIC_RELAXED);
		vma_read_unlock(v);
	}
}

/*
 * With per-VMA locks the B-tree is searched without the mmap_lock
 * (mm/vma_index/btree.c's find_lockless) while the test maps, splits and
 * unmaps VMAs among the ones the workers look up: every VMA found is the
 * right one. Then, with nothing changing, every stable page's lookup
 * succeeds: at 400 VMAs no fault needs the mmap_lock to find its VMA.
 */
static void test_lockless_lookup_races_changes(struct ktest *t)
{
	struct shared s = { 0 };
	struct worker w[NR_CPUS];
	unsigned n, found = 0;
	size_t frames;

	if (t->param != 1) {
		ktest_skip(t, "faults take the mmap_lock with fault_lock=mmap");
		return;
	}
	ut_warm_up();
	frames = ut_free_frames();
	s.mm = mm_create();
	ASSERT_TRUE(t, s.mm != NULL);
	mmap_write_lock(s.mm);
	vma_lockless_set(s.mm, true);
	mmap_write_unlock(s.mm);
	for (unsigned i = 0; i < LOOKUP_STABLE; i++)
		ASSERT_EQ(t, vm_mmap(s.mm, LOOKUP_SLOT(i), PAGE_SIZE, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), (long)LOOKUP_SLOT(i));
	n = start_workers(w, &s, lookup_while_changing);
	for (unsigned r = 0; r < RACE_ROUNDS; r++) {
		/* Forty slots a round: map three pages, split them in three, unmap them. */
		for (unsigned k = 0; k < 40; k++) {
			uintptr_t c = LOOKUP_SLOT((r * 40 + k) * 7 % LOOKUP_STABLE) + PAGE_SIZE;

			EXPECT_EQ(t, vm_mmap(s.mm, c, 3 * PAGE_SIZE, PROT_READ,
					     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), (long)c);
			EXPECT_EQ(t, vm_mprotect(s.mm, c + PAGE_SIZE, PAGE_SIZE, PROT_NONE), 0);
			if (k % 2)
				EXPECT_EQ(t, vm_munmap(s.mm, c, 3 * PAGE_SIZE), 0);
		}
		for (unsigned k = 0; k < 40; k += 2)
			EXPECT_EQ(t, vm_munmap(s.mm, LOOKUP_SLOT((r * 40 + k) * 7 % LOOKUP_STABLE) + PAGE_SIZE,
					       3 * PAGE_SIZE), 0);
		race_progress(t, r);
	}
	stop_workers(w, n, &s);
	EXPECT_EQ(t, s.errors, 0);
	for (unsigned i = 0; i < LOOKUP_STABLE; i++) {
		struct vma *v = vma_lock_lookup(s.mm, LOOKUP_SLOT(i));

		if (v && v->start == LOOKUP_SLOT(i))
			found++;
		if (v)
			vma_read_unlock(v);
	}
	EXPECT_EQ(t, found, LOOKUP_STABLE);
	printk("# lookups of stable VMAs while the tree changed: %lu found, %lu gave up\n", s.hits, s.faults);
	check_and_put(t, s.mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

/* ---- reclaim racing faults, MADV_FREE and munmap */

/*
 * Worker 0 reclaims (mm_reclaim, kswapd's way) over and over; the others
 * each own 4 pages (1 + 4 * id ..): write a value and read it back (a
 * page written is data, whether it was lazily freed before or dropped and
 * faulted in again: reclaim must keep it, so the read shows the value
 * exactly), MADV_FREE the page, read it again. That read may see the
 * value (kept) or zero (dropped by the reclaimer in between), or a mix of
 * the two (lazy_read_ok); the next write makes the page data again.
 */
static unsigned long reclaimed_total;

/*
 * Can a read of a lazily freed page that held v return got? v, zero, or
 * v's first k bytes then zeros: copy_from_user copies byte by byte (rep
 * movsb, which takes interrupts and TLB shootdowns between bytes), so
 * reclaim may drop the page between two bytes, and the bytes after come
 * from the zero page the next byte's fault maps.
 */
static bool lazy_read_ok(uint64_t v, uint64_t got)
{
	for (unsigned k = 0; k < 8; k++)
		if (got == (v & ((1ULL << (8 * k)) - 1)))
			return true;
	return got == v;
}

static void free_and_check(struct worker *w)
{
	uintptr_t base = A + (1 + 4 * (w->id - 1)) * PAGE_SIZE;

	for (unsigned i = 0; !smp_load_acquire(&w->s->stop); i++) {
		uintptr_t page = base + (i % 4) * PAGE_SIZE;
		uint64_t v = ((uint64_t)(w->id + 1) << 32) | (i + 1), got = ~0UL, back = ~0UL;

		int e1 = copy_to_user((void *)page, &v, sizeof(v));
		int e0 = copy_from_user(&back, (void *)page, sizeof(back));
		int e2 = vm_madvise(w->s->mm, page, PAGE_SIZE, MADV_FREE);
		int e3 = copy_from_user(&got, (void *)page, sizeof(got));

		if (e1 || e0 || e2 || e3 || back != v || !lazy_read_ok(v, got)) {
			printk("# worker %u page %#lx: copy_to %d copy_from %d madvise %d copy_from %d "
			       "wrote %#llx read %#llx, after MADV_FREE %#llx\n", w->id, (unsigned long)page,
			       e1, e0, e2, e3, (unsigned long long)v, (unsigned long long)back,
			       (unsigned long long)got);
			__atomic_add_fetch(&w->s->errors, 1, __ATOMIC_RELAXED);
		}
		__atomic_add_fetch(got == 0 ? &w->s->faults : &w->s->hits, 1, __ATOMIC_RELAXED);
		if (i % 64 == 0)
			sched_yield();
	}
}

static void reclaim_or_check(struct worker *w)
{
	if (w->id != 0) {
		free_and_check(w);
		return;
	}
	while (!smp_load_acquire(&w->s->stop)) {
		__atomic_add_fetch(&reclaimed_total, mm_reclaim(~0UL, RECLAIM_KSWAPD), __ATOMIC_RELAXED);
		sched_yield();
	}
}

/*
 * Meanwhile the test itself frees, reclaims and unmaps page 13 and maps it
 * again. Every page reclaim dropped is counted once in pglazyfreed (no
 * MADV_PAGEOUT here, and kswapd sleeps: memory is plentiful); nothing
 * leaks.
 */
static void test_reclaim_races_faults_body(struct ktest *t)
{
	struct shared s = { 0 };
	struct worker w[NR_CPUS];
	unsigned long lazyfreed = vm_event_sum(VM_PGLAZYFREED), mine = 0;
	unsigned n;
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	reclaimed_total = 0;
	s.mm = make_mm(t, NPAGES, true);
	ASSERT_TRUE(t, s.mm != NULL);
	n = start_workers(w, &s, reclaim_or_check);
	for (unsigned r = 0; r < RACE_ROUNDS; r++) {
		uint64_t v = r + 1;
		uintptr_t p13 = A + 13 * PAGE_SIZE;

		EXPECT_EQ(t, mm_copy_to(s.mm, p13, &v, sizeof(v)), 0);
		EXPECT_EQ(t, vm_madvise(s.mm, p13, PAGE_SIZE, MADV_FREE), 0);
		if (r % 2)
			mine += mm_reclaim(~0UL, RECLAIM_DIRECT);
		EXPECT_EQ(t, vm_munmap(s.mm, p13, PAGE_SIZE), 0);
		EXPECT_EQ(t, vm_mmap(s.mm, p13, PAGE_SIZE, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), (long)p13);
		sched_yield();
		race_progress(t, r);
	}
	stop_workers(w, n, &s);
	EXPECT_EQ(t, s.errors, 0);
	EXPECT_GT(t, s.hits + s.faults, 0);
	EXPECT_EQ(t, vm_event_sum(VM_PGLAZYFREED) - lazyfreed, reclaimed_total + mine);
	check_and_put(t, s.mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

/*
 * RACE_CASE_WITHOUT_SWAP(name): the case name runs name_body with the
 * kernel's own swap area held off (ut_swap_hold). Skipped where TLB
 * flushes stay on their CPU (the smp lab's skeleton: reclaim's unmaps
 * would leave the workers' CPUs stale entries), and where an area a
 * failed mm_swap test left (a lab skeleton's) is still on: the reclaim
 * race counts assume no swap, the swap race makes an area of its own.
 */
#define RACE_CASE_WITHOUT_SWAP(name)                                                    \
	static void name(struct ktest *t)                                               \
	{                                                                               \
		struct blockdev *held;                                                  \
											\
		if (!arch_tlb_flush_reaches_all()) {                                    \
			ktest_skip(t, "TLB flushes stay on their CPU (the smp lab's skeleton)"); \
			return;                                                         \
		}                                                                       \
		held = ut_swap_hold();                                                  \
		if (swap_total_pages())                                                 \
			ktest_skip(t, "a swap area a failed test left is still on");    \
		else                                                                    \
			name##_body(t);                                                 \
		ut_swap_release(held);                                                  \
	}

RACE_CASE_WITHOUT_SWAP(test_reclaim_races_faults)

/* ---- swap-out and the swap cache racing writes, fork and munmap */

/*
 * Worker 0 reclaims with a RAM-disk swap area on, swapping whatever has
 * no second chance left; the others each own 4 pages (as above) and
 * write a value, then read it back: it must be the value (the page may
 * have gone to swap and come back in between). Meanwhile the test forks
 * the address space (mm_dup) so that reclaim meets pages mapped twice,
 * which go through the swap cache, reads the child's copy of every
 * worker page (a value that worker wrote, or the page's first value:
 * never anything else, whether it reads from the page, the cache or the
 * slot), drops the child, and unmaps and maps page 13. At the end every
 * slot is free and no frame leaks.
 */
static void write_and_check(struct worker *w)
{
	uintptr_t base = A + (1 + 4 * (w->id - 1)) * PAGE_SIZE;

	for (unsigned i = 0; !smp_load_acquire(&w->s->stop); i++) {
		uintptr_t page = base + (i % 4) * PAGE_SIZE;
		uint64_t v = ((uint64_t)(w->id + 1) << 32) | (i + 1), got = 0;

		int e1 = copy_to_user((void *)page, &v, sizeof(v)), e2 = copy_from_user(&got, (void *)page, sizeof(got));

		if (e1 || e2 || got != v) {
			printk("# worker %u page %#lx: copy_to %d copy_from %d wrote %#llx read %#llx\n", w->id,
			       (unsigned long)page, e1, e2, (unsigned long long)v, (unsigned long long)got);
			__atomic_add_fetch(&w->s->errors, 1, __ATOMIC_RELAXED);
		}
		__atomic_add_fetch(&w->s->hits, 1, __ATOMIC_RELAXED);
		if (i % 16 == 0)
			sched_yield();
	}
}

static void swap_or_check(struct worker *w)
{
	if (w->id != 0) {
		write_and_check(w);
		return;
	}
	while (!smp_load_acquire(&w->s->stop)) {
		mm_reclaim(64, RECLAIM_KSWAPD);
		sched_yield();
	}
}

/* Is v what page k of a worker page held at some time: its first value (k + 1) or one a worker wrote there? */
static bool worker_value_ok(unsigned k, uint64_t v)
{
	unsigned owner = (k - 1) / 4 + 1;       /* pages 1..4: worker 1, 5..8: worker 2, ... */

	return v == k + 1 || (v >> 32) == owner + 1;
}

static void test_swap_races_writes_fork_body(struct ktest *t)
{
	struct shared s = { 0 };
	struct worker w[NR_CPUS];
	struct blockdev *dev;
	int type;
	unsigned n;
	unsigned long out0 = vm_event_sum(VM_PSWPOUT);
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	dev = ramdisk_create(256 * SWAP_SECTORS_PER_SLOT);
	ASSERT_TRUE(t, dev != NULL);
	type = swap_on(dev);
	ASSERT_GE(t, type, 0);
	s.mm = make_mm(t, NPAGES, true);
	ASSERT_TRUE(t, s.mm != NULL);
	n = start_workers(w, &s, swap_or_check);
	for (unsigned r = 0; r < RACE_ROUNDS; r++) {
		uintptr_t p13 = A + 13 * PAGE_SIZE;
		struct mm *child = mm_dup(s.mm);

		EXPECT_TRUE(t, child != NULL);
		for (unsigned k = 1; child && k <= 4 * (n - 1) && k < NPAGES; k++) {
			uint64_t v = 0;

			EXPECT_EQ(t, mm_copy_from(child, &v, A + k * PAGE_SIZE, sizeof(v)), 0);
			if (k != 13 && !worker_value_ok(k, v)) {
				printk("# child page %u: %#llx\n", k, (unsigned long long)v);
				__atomic_add_fetch(&s.errors, 1, __ATOMIC_RELAXED);
			}
		}
		if (child)
			mm_put(child);
		EXPECT_EQ(t, vm_munmap(s.mm, p13, PAGE_SIZE), 0);
		EXPECT_EQ(t, vm_mmap(s.mm, p13, PAGE_SIZE, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), (long)p13);
		sched_yield();
		race_progress(t, r);
	}
	stop_workers(w, n, &s);
	EXPECT_EQ(t, s.errors, 0);
	EXPECT_GT(t, s.hits, 0);
	EXPECT_GT(t, vm_event_sum(VM_PSWPOUT) - out0, 0);      /* it did swap */
	check_and_put(t, s.mm);
	EXPECT_EQ(t, swap_off((unsigned)type), 0);              /* every slot free again */
	ramdisk_destroy(dev);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

RACE_CASE_WITHOUT_SWAP(test_swap_races_writes_fork)

/* ---- a fault's direct reclaim waits for an address space another task holds */

struct lock_holder {
	struct mm *mm;
	unsigned long contended;      /* the lock's read_contended before the test's reclaim */
	int held;                     /* [atomic] 1 once the holder has the lock */
	int done;                     /* [atomic] 1: the test is past its reclaims (let go in any case) */
};

/* Hold mm's mmap_lock for writing until a reader has had to wait for it (or the test is done). */
static void hold_until_read_waits(void *arg)
{
	struct lock_holder *h = arg;

	mmap_write_lock(h->mm);
	smp_store_release(&h->held, 1);
	while (READ_ONCE(h->mm->mmap_lock.read_contended) == h->contended &&
	       !smp_load_acquire(&h->done))
		sched_yield();
	mmap_write_unlock(h->mm);
}

/*
 * Another task holds (for writing) the mmap_lock of the only address space
 * with pages to reclaim: 8 lazily freed, clean and not referenced since.
 * Direct reclaim for a caller that may hold locks (may_wait false) skips
 * that address space and frees nothing; a fault's (may_wait true) waits
 * for the lock (the holder lets go once a reader has waited: the lock's
 * read_contended count moved) and then frees all 8 (its target is at
 * least 32 pages, Linux's SWAP_CLUSTER_MAX). Before this, a fault whose
 * reclaim met kswapd holding the address space failed with FAULT_OOM
 * while kswapd was freeing the very pages it needed.
 */
static void test_direct_reclaim_waits_for_mmap_lock_body(struct ktest *t)
{
	struct lock_holder h = { 0 };
	struct task *th;
	unsigned long lazy0 = vm_stat_read(VM_NR_LAZYFREE);

	if (t->param == 1) {
		ktest_skip(t, "the same as with fault_lock=mmap: no fault here");
		return;
	}
	h.mm = make_mm(t, 8, true);
	ASSERT_TRUE(t, h.mm != NULL);
	EXPECT_EQ(t, vm_madvise(h.mm, A, 8 * PAGE_SIZE, MADV_FREE), 0);
	if (vm_stat_read(VM_NR_LAZYFREE) == lazy0) {
		/* MADV_FREE and its reclaim are the madvise lab's (mm_mremap.test_madv_free checks them) */
		ktest_skip(t, "MADV_FREE marks no page here (the madvise lab's skeleton)");
		check_and_put(t, h.mm);
		return;
	}
	EXPECT_EQ(t, vm_stat_read(VM_NR_LAZYFREE) - lazy0, 8);
	h.contended = h.mm->mmap_lock.read_contended;
	th = kthread_create(hold_until_read_waits, &h, -1, "lock_holder");
	ASSERT_TRUE(t, th != NULL);
	kthread_start(th);
	while (!smp_load_acquire(&h.held))
		sched_yield();
	EXPECT_FALSE(t, mm_reclaim_direct(false));
	EXPECT_EQ(t, vm_stat_read(VM_NR_LAZYFREE) - lazy0, 8);
	EXPECT_TRUE(t, mm_reclaim_direct(true));
	EXPECT_EQ(t, vm_stat_read(VM_NR_LAZYFREE), lazy0);
	smp_store_release(&h.done, 1);
	kthread_join(th);
	check_and_put(t, h.mm);
}

RACE_CASE_WITHOUT_SWAP(test_direct_reclaim_waits_for_mmap_lock)

/* ---- the checker while first faults link VMAs to anon identities */

#define CHECK_VMAS 48
#define CHECK_ROUNDS 40
#define CHECKS_PER_ROUND 8
/* Slot i of round r: one-page VMAs with a page between them (none merge), each round at new addresses. */
#define CHECK_SLOT(r, i) (A + (2 * (uintptr_t)(r) * CHECK_VMAS + 2 * (uintptr_t)(i)) * PAGE_SIZE)

/* Write every slot of the round s->epoch names, again and again: the first write to each is its first fault. */
static void first_faults(struct worker *w)
{
	while (!smp_load_acquire(&w->s->stop)) {
		unsigned long r = smp_load_acquire(&w->s->epoch);

		for (unsigned i = w->id; i < CHECK_VMAS; i++) {
			uint64_t v = i + 1;

			/* mapped before the round was published, and never unmapped */
			if (copy_to_user((void *)CHECK_SLOT(r, i), &v, sizeof(v)))
				__atomic_add_fetch(&w->s->errors, 1, __ATOMIC_RELAXED);
		}
		cond_resched();         /* with one CPU the test shares it: once all is faulted, nothing here sleeps */
	}
}

/*
 * vma_check (what vmk_check and the fuzzer's seed-end check run) under
 * the mmap_lock for reading while other CPUs fault: a first fault links
 * its VMA to an anon identity (vma_anon_prepare) with the same read lock,
 * under pt_lock. Each round maps CHECK_VMAS new VMAs (unfaulted, no
 * identity) at addresses no round used before, then checks while the
 * workers fault them. Every check must pass: a checker that counts the
 * identities' VMAs without pt_lock saw a VMA linked after its walk had
 * passed it ("anon N: 0 VMAs point at it, vma_refs 1"), as the fuzzer's
 * seed-end check did in long runs (docs/fuzz.md). New addresses each
 * round, and nothing unmapped, so that no worker can go on through a TLB
 * entry of an earlier round (the smp lab's skeleton sends no shootdowns);
 * at most CHECKS_PER_ROUND checks, then waiting without the lock (its
 * skeleton rwsem is exclusive and lets the releaser take it again first:
 * a checker that never let go would starve the faults).
 */
static void test_check_races_first_faults(struct ktest *t)
{
	struct shared s = { 0 };
	struct worker w[NR_CPUS];
	unsigned n, failed = 0, checks = 0;
	size_t frames;

	ut_warm_up();
	frames = ut_free_frames();
	s.mm = make_mm(t, 1, false);
	ASSERT_TRUE(t, s.mm != NULL);
	EXPECT_EQ(t, vm_munmap(s.mm, A, PAGE_SIZE), 0);
	for (unsigned i = 0; i < CHECK_VMAS; i++)
		ASSERT_EQ(t, vm_mmap(s.mm, CHECK_SLOT(0, i), PAGE_SIZE, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), (long)CHECK_SLOT(0, i));
	n = start_workers(w, &s, first_faults);
	for (unsigned r = 0; r < CHECK_ROUNDS; r++) {
		if (r) {
			for (unsigned i = 0; i < CHECK_VMAS; i++)
				EXPECT_EQ(t, vm_mmap(s.mm, CHECK_SLOT(r, i), PAGE_SIZE, PROT_READ | PROT_WRITE,
						     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), (long)CHECK_SLOT(r, i));
			smp_store_release(&s.epoch, r);
		}
		for (unsigned k = 0; READ_ONCE(s.mm->rss) < (r + 1) * CHECK_VMAS; k++) {
			if (k >= CHECKS_PER_ROUND) {
				sched_yield();
				continue;
			}
			mmap_read_lock(s.mm);
			failed += vma_check(s.mm) != 0;
			mmap_read_unlock(s.mm);
			checks++;
		}
		if ((r + 1) % 10 == 0)
			printk("# %s/%s: round %u of %u\n", t->tcase->name, mode_name(t->param), r + 1, CHECK_ROUNDS);
	}
	stop_workers(w, n, &s);
	EXPECT_EQ(t, s.errors, 0);
	EXPECT_EQ(t, failed, 0);
	printk("# %s: %u checks, %u failed\n", mode_name(t->param), checks, failed);
	check_and_put(t, s.mm);
	EXPECT_EQ(t, ut_free_frames(), frames);
}

static const struct ktest_case mm_smp_cases[] = {
	KTEST_CASE(test_same_and_different_pages),
	KTEST_CASE(test_table_link_races),
	KTEST_CASE(test_munmap_races_faults),
	KTEST_CASE(test_mprotect_races_writes),
	KTEST_CASE(test_cow_breaks_while_reading),
	KTEST_CASE(test_reuse_races_isolation),
	KTEST_CASE(test_thp_reuse_races_isolation),
	KTEST_CASE(test_reclaim_races_faults),
	KTEST_CASE(test_swap_races_writes_fork),
	KTEST_CASE(test_fault_while_mmap_lock_held),
	KTEST_CASE(test_fault_in_marked_vma_waits),
	KTEST_CASE(test_lockless_lookup_races_changes),
	KTEST_CASE(test_direct_reclaim_waits_for_mmap_lock),
	KTEST_CASE(test_check_races_first_faults),
	{ NULL, NULL },
};

static const struct ktest_suite mm_smp_suite = {
	.name = "mm_smp",
	.cases = mm_smp_cases,
	.nparams = 2,
	.param_name = mode_name,
};
KTEST_REGISTER(mm_smp_suite);
