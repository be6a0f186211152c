/*
 * Address spaces: creation, references, teardown and switching. Fork (Linux
 * dup_mmap) is mm/fork.c; the mmap_lock is mm/mmap_lock.c.
 *
 * Locking: see include/mm.h (lock order mmap_lock -> pt_lock -> object
 * lock -> pmm/slab). mm_list_lock protects the list of address spaces and
 * is taken alone (never with another lock held).
 */
#include "internal.h"
#include "lockless.h"
#include "anon_vma.h"
#include "slab.h"
#include "arch.h"
#include "kerrno.h"
#include "kstring.h"
#include "printk.h"

static struct kmem_cache *mm_cachep;
/* Every address space with page tables: mm_check_all, truncation's walk (mm/truncate.c). */
static struct list_head mm_list = LIST_HEAD_INIT(mm_list);
static struct spinlock mm_list_lock = SPINLOCK_INIT_CLASS("mm_list", LOCK_CLASS_MM_LIST);
static uint64_t mm_list_last_id;       /* [mm_list_lock] the last list_id given */
static unsigned long teardowns_running; /* [atomic] unlisted by mm_teardown, not yet freed */
/* [atomic] address spaces the OOM killer marked whose memory is not back yet (it waits for them). */
static unsigned long oom_victims;

struct mm *mm_create_backend(const struct vma_index_ops *backend)
{
	struct mm *mm;

	if (!kmem_cache_get_or_create(&mm_cachep, "mm", sizeof(struct mm), 0) || mm_zero_page_init())
		return NULL;
	mm = kmem_cache_alloc(mm_cachep);
	if (!mm)
		return NULL;
	if (mm_vma_init(mm, backend)) {
		kmem_cache_free(mm_cachep, mm);
		return NULL;
	}
	mm->mmu = arch_mmu_create();
	if (!mm->mmu) {
		mmap_write_lock(mm);
		mm_vma_destroy(mm);
		mmap_write_unlock(mm);
		kmem_cache_free(mm_cachep, mm);
		return NULL;
	}
	spin_init_class(&mm->pt_lock, "pt_lock", LOCK_CLASS_PT);
	mm->users = 1;
	vma_lockless_init(mm);
	{
		unsigned long f = spin_lock_irqsave(&mm_list_lock);

		mm->list_id = ++mm_list_last_id;
		list_add_tail(&mm->all_link, &mm_list);
		spin_unlock_irqrestore(&mm_list_lock, f);
	}
	return mm;
}

void mm_pt_wait_sharers(struct mm *mm)
{
	while (smp_load_acquire(&mm->pt_sharers) != 0)
		arch_cpu_relax();
}

struct mm *mm_create(void)
{
	return mm_create_backend(NULL);
}

struct mm *mm_get(struct mm *mm)
{
	__atomic_add_fetch(&mm->users, 1, __ATOMIC_RELAXED);
	return mm;
}

/* An OOM victim's memory is back: it leaves oom_victims (once per mark). */
static void oom_victim_done(struct mm *mm)
{
	if (__atomic_exchange_n(&mm->oom_victim, false, __ATOMIC_ACQ_REL))
		__atomic_sub_fetch(&oom_victims, 1, __ATOMIC_ACQ_REL);
}

/*
 * Unmap every VMA's pages, free the page tables below the top one and the
 * VMAs (and with them the frames, objects and anon identities only they
 * held); the index stays, empty. Waits for faults still inside a VMA (a
 * remote access's, under its VMA lock). mmap_lock held for writing.
 */
static void mm_unmap_all(struct mm *mm)
{
	struct tlb_batch tlb;
	struct unmap_window everything = { .tlb = &tlb, .floor = 0, .ceiling = 0 };
	struct vma *v;

	vma_write_lock_all(mm);
	mm_tlb_init(&tlb, mm, false);
	for (v = vma_first(mm); v; v = vma_next(mm, v))
		mm_zap_piece(mm, v, &everything);       /* no VMA stays: every table it empties goes */
	mm_tlb_finish(&tlb);
	thp_zero_put(mm);
	vma_lockless_set(mm, false);    /* nobody can fault in it any more */
	if (mm->rss || mm->swap_ents)
		panic("mm_put: rss %lu, swap entries %lu after unmapping everything", mm->rss, mm->swap_ents);
	mm_vma_remove_all(mm);
	mm->emptied = true;
	oom_victim_done(mm);    /* its memory is back: the OOM killer need not wait for the struct */
}

/* Unlist mm, empty it (unless its last task did), free the index, the tables and mm. */
static void mm_teardown(struct mm *mm)
{
	unsigned long f;

	__atomic_add_fetch(&teardowns_running, 1, __ATOMIC_RELAXED);
	f = spin_lock_irqsave(&mm_list_lock);
	list_del(&mm->all_link);
	spin_unlock_irqrestore(&mm_list_lock, f);
	mmap_write_lock(mm);
	if (!mm->emptied)
		mm_unmap_all(mm);
	mm_vma_destroy(mm);
	mmap_write_unlock(mm);
	arch_mmu_destroy(mm->mmu);
	mm->mmu = NULL;
	oom_victim_done(mm);    /* marked after it was emptied (the killer raced with the exit) */
	kmem_cache_free(mm_cachep, mm);
	__atomic_sub_fetch(&teardowns_running, 1, __ATOMIC_RELAXED);
}

void mm_enter(struct mm *mm)
{
	__atomic_add_fetch(&mm->tasks, 1, __ATOMIC_RELAXED);
}

void mm_leave(struct mm *mm)
{
	if (!mm)
		return;
	if (__atomic_sub_fetch(&mm->tasks, 1, __ATOMIC_ACQ_REL) == 0) {
		/*
		 * Even when this looks like the last reference: a scanner may
		 * take one (mm_get_unless_zero) before the mm_put below, and
		 * its put would then tear mm down after this task is gone.
		 */
		mmap_write_lock(mm);
		if (!mm->emptied)
			mm_unmap_all(mm);
		mmap_write_unlock(mm);
	}
	mm_put(mm);
}

bool mm_mark_oom_victim(struct mm *mm)
{
	if (__atomic_exchange_n(&mm->oom_victim, true, __ATOMIC_ACQ_REL))
		return false;
	__atomic_add_fetch(&oom_victims, 1, __ATOMIC_ACQ_REL);
	return true;
}

unsigned long mm_oom_victims_pending(void)
{
	return smp_load_acquire(&oom_victims);
}

void mm_put(struct mm *mm)
{
	int left;

	if (!mm)
		return;
	left = __atomic_sub_fetch(&mm->users, 1, __ATOMIC_ACQ_REL);
	BUG_ON(left < 0);
	if (left == 0)
		mm_teardown(mm);
}

static struct mm *deferred_puts;       /* [atomic] stack of address spaces left to tear down */

void mm_put_deferred(struct mm *mm)
{
	int left = __atomic_sub_fetch(&mm->users, 1, __ATOMIC_ACQ_REL);
	struct mm *head = READ_ONCE(deferred_puts);

	BUG_ON(left < 0);
	if (left)
		return;
	do
		mm->put_next = head;
	while (!__atomic_compare_exchange_n(&deferred_puts, &head, mm, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_RELAXED));
}

void mm_put_deferred_flush(void)
{
	struct mm *mm = __atomic_exchange_n(&deferred_puts, NULL, __ATOMIC_ACQ_REL);

	while (mm) {
		struct mm *next = mm->put_next;

		mm_teardown(mm);
		mm = next;
	}
}

bool mm_get_unless_zero(struct mm *mm)
{
	int users = READ_ONCE(mm->users);

	while (users > 0)
		if (__atomic_compare_exchange_n(&mm->users, &users, users + 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

struct mm *mm_list_next(struct mm *prev)
{
	struct list_head *pos;
	struct mm *next = NULL;
	unsigned long fl = spin_lock_irqsave(&mm_list_lock);

	/* prev is referenced, so still listed (teardown unlists first): its link leads on. */
	for (pos = prev ? prev->all_link.next : mm_list.next; pos != &mm_list; pos = pos->next) {
		struct mm *m = list_entry(pos, struct mm, all_link);

		if (mm_get_unless_zero(m)) {
			next = m;
			break;
		}
	}
	spin_unlock_irqrestore(&mm_list_lock, fl);
	if (prev)
		mm_put(prev);
	return next;
}

struct mm *mm_list_from(uint64_t id)
{
	struct list_head *pos;
	struct mm *found = NULL;
	unsigned long fl = spin_lock_irqsave(&mm_list_lock);

	list_for_each(pos, &mm_list) {
		struct mm *m = list_entry(pos, struct mm, all_link);

		if (m->list_id >= id && mm_get_unless_zero(m)) {
			found = m;
			break;
		}
	}
	spin_unlock_irqrestore(&mm_list_lock, fl);
	return found;
}

void mm_flush_deferred_all(void)
{
	for (struct mm *mm = mm_list_next(NULL); mm; mm = mm_list_next(mm)) {
		mmap_write_lock(mm);
		vma_lockless_flush(mm);
		mmap_write_unlock(mm);
	}
}

#define MM_CHECK_BATCH 32

int mm_check_all(unsigned *checked)
{
	struct mm *batch[MM_CHECK_BATCH];
	unsigned n = 0, bad = 0;
	struct list_head *p;
	unsigned long f;

	mm_put_deferred_flush();        /* a dead address space must not hold memory past the check */
	f = spin_lock_irqsave(&mm_list_lock);
	list_for_each(p, &mm_list) {
		struct mm *mm = list_entry(p, struct mm, all_link);

		if (n < MM_CHECK_BATCH && mm_get_unless_zero(mm))
			batch[n++] = mm;
	}
	spin_unlock_irqrestore(&mm_list_lock, f);
	for (unsigned i = 0; i < n; i++) {
		mmap_read_lock(batch[i]);
		bad += vma_check(batch[i]) != 0;
		mmap_read_unlock(batch[i]);
		mm_put(batch[i]);
	}
	if (checked)
		*checked = n;
	return bad ? -EINVAL : 0;
}

size_t mm_live_count(void)
{
	size_t n = 0;
	struct list_head *p;
	unsigned long f = spin_lock_irqsave(&mm_list_lock);

	list_for_each(p, &mm_list)
		n++;
	spin_unlock_irqrestore(&mm_list_lock, f);
	return n;
}

void mm_list_report(void)
{
	struct list_head *p;
	unsigned long f = spin_lock_irqsave(&mm_list_lock);

	list_for_each(p, &mm_list) {
		struct mm *m = list_entry(p, struct mm, all_link);

		printk("mm: address space %llu: %d users, rss %lu, rss_file %lu\n", (unsigned long long)m->list_id,
		       READ_ONCE(m->users), READ_ONCE(m->rss), READ_ONCE(m->rss_file));
	}
	spin_unlock_irqrestore(&mm_list_lock, f);
	printk("mm: %lu teardowns running (unlisted, not yet freed)\n",
	       READ_ONCE(teardowns_running));
}

void mm_activate(struct mm *mm)
{
	arch_mmu_activate(mm ? mm->mmu : NULL);
}

void mm_enter_lazy(void)
{
	arch_mmu_enter_lazy();
}
