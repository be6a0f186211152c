/*
 * User page tables for include/arch_mmu.h, x86-64 4-level format.
 *
 *   PML4[0..255]    user half, private to the address space: tables are
 *                   pmm frames marked PG_pgtable, allocated on first map,
 *                   freed only by arch_mmu_free_tables, when empty and
 *                   inside the window the caller gives (Linux's
 *                   free_pgtables; walks leave emptied tables in place);
 *                   the mapcount of a table below the PML4 counts its
 *                   non-zero entries, so "empty" is known without
 *                   scanning 512 entries (a table is never mapped into
 *                   user space, the field is free)
 *   PML4[256..511]  kernel half, copied from kernel_cr3 at creation (the
 *                   PDPTs below are shared, so later kernel mappings in an
 *                   existing PML4 slot are seen by every address space)
 *
 * Entries: intermediate levels are P|W|U (leaves decide); a leaf is
 * pa|P|U, W for MMU_WRITE, NX (when the CPU has it) without MMU_EXEC, A
 * and D for MMU_ACCESSED/MMU_DIRTY. A PROT_NONE leaf (no permission bit)
 * keeps its frame with P clear and the software bit PTE_SW_PROTNONE (bit
 * 9, ignored by the hardware), like Linux's _PAGE_PROTNONE. A guard
 * marker (MADV_GUARD_INSTALL) is the entry PTE_SW_GUARD alone: bit 10, no
 * frame, P clear, so every access faults (Linux's PTE_MARKER_GUARD, a
 * swap-format entry); walks of mappings skip it, arch_mmu_walk_guards
 * visits only markers. A swap entry (a page written to a swap slot) is
 * PTE_SW_SWAP (bit 11) with the slot's value in bits 12..63, P clear
 * (Linux's swap PTE); arch_mmu_walk_swap visits those.
 *
 * The same code builds for the hosted arch (arch/hosted/hosted_mmu.c
 * includes this file with HOSTED defined): there the tables live in
 * simulated RAM, are walked only in software (mm_soft_access, which caches
 * nothing), NX is always "supported" and there is no kernel half; the
 * x86_mm_switch and x86_tlb_flush it calls are arch/hosted/hosted_tlb.c's,
 * which only count flushes.
 *
 * TLB: walks record changed and cleared leaves in a struct tlb_batch, and
 * arch_mmu_free_tables queues the page-table pages it unlinks there (with
 * an address under each, for the paging-structure caches); arch_tlb_flush invalidates
 * them wherever m is loaded (x86_tlb.c: INVLPG per page, or a CR3 reload past
 * TLB_BATCH_PAGES, locally and by IPI on the other CPUs) and only then
 * frees the tables, which a CPU's page-walk caches may still hold.
 *
 * Locking: none here; see arch_mmu.h.
 */
#include "arch_mmu.h"
#include "arch_mmu_debug.h"
#include "x86_mmu.h"
#include "arch.h"
#include "pmm.h"
#include "slab.h"
#include "kerrno.h"
#include "kstring.h"
#include "kernel.h"
#include "lockless.h"
#include "vmstat.h"
#ifdef HOSTED
#include "hosted.h"
#endif

#define PTE_SW_PROTNONE (1UL << 9)
#define PTE_SW_GUARD    (1UL << 10)
#define PTE_SW_SWAP     (1UL << 11)
#define SWAP_VAL_SHIFT  12
/*
 * Execute-only pages (MMU_EXEC alone) carry protection key 1, whose access
 * is disabled in every task's PKRU (Linux's execute_only_pkey): instruction
 * fetches work, loads and stores fault with PF_PK. Only when the CPU has
 * protection keys; otherwise an MMU_EXEC page is readable, as on any x86.
 */
#define PTE_PKEY_SHIFT  59
#define PTE_PKEY_MASK   (0xfUL << PTE_PKEY_SHIFT)
#define EXEC_ONLY_PKEY  1UL
#define USER_HALF_END   (1UL << 47)          /* first address of the non-canonical hole */
#define PT_TABLE_FLAGS  (PTE_P | PTE_W | PTE_U)

#ifdef HOSTED
#define UMM_NX PTE_NX
#define UMM_EXEC_ONLY hosted_exec_only
#else
#define UMM_NX pte_nx
#define UMM_EXEC_ONLY x86_pku_enabled
#endif

bool arch_mmu_exec_only(void)
{
	return UMM_EXEC_ONLY;
}


void tlb_batch_init(struct tlb_batch *b, struct arch_mmu *m, bool local_only)
{
	b->m = m;
	b->n = 0;
	b->full = false;
	b->local_only = local_only;
	b->changed = 0;
	b->nputs = 0;
	list_init(&b->free_tables);
	list_init(&b->free_pages);
}

static bool leaf_exists(uint64_t e) { return (e & (PTE_P | PTE_SW_PROTNONE)) != 0; }
static bool leaf_is_guard(uint64_t e) { return e == PTE_SW_GUARD; }
static bool leaf_is_swap(uint64_t e) { return (e & (PTE_P | PTE_SW_PROTNONE | PTE_SW_SWAP)) == PTE_SW_SWAP; }
static unsigned long swap_val(uint64_t e) { return (unsigned long)(e >> SWAP_VAL_SHIFT); }

static uint64_t swap_leaf(unsigned long val)
{
	BUG_ON(val >> (64 - SWAP_VAL_SHIFT));
	return PTE_SW_SWAP | ((uint64_t)val << SWAP_VAL_SHIFT);
}

static uint64_t *table_va(uint64_t e) { return phys_to_virt(e & PTE_ADDR_MASK); }

/* A page-table page (zeroed with gfp GFP_ZERO), or 0 when memory is exhausted. */
static phys_addr_t table_alloc(struct arch_mmu *m, unsigned gfp)
{
	struct page *p = pmm_alloc(0, gfp);

	if (!p)
		return 0;
	p->flags |= PG_pgtable;
	__atomic_add_fetch(&m->tables, 1, __ATOMIC_RELAXED);
	return page_to_phys(p);
}

static void table_free(struct arch_mmu *m, phys_addr_t pa)
{
	struct page *p = phys_to_page(pa);

	BUG_ON(!p || !(p->flags & PG_pgtable));
	p->flags &= ~PG_pgtable;
	pmm_free(p, 0);
	__atomic_sub_fetch(&m->tables, 1, __ATOMIC_RELAXED);   /* also after the flush, outside pt_lock */
}

/*
 * The page table that arch_mmu_query_near and arch_mmu_map_near remember:
 * forgotten whenever a table of m leaves the tree (unlinked, replaced by
 * a 2 MiB leaf, freed), so that a remembered table is always in the tree
 * at its block. All of it under mm's pt_lock, as every table change.
 */
static void near_forget(struct arch_mmu *m)
{
	m->near_table = NULL;
}

/* A table page unlinked from the tree: freed by arch_tlb_flush, after every CPU's flush. */
static void table_defer_free(struct tlb_batch *b, phys_addr_t pa)
{
	struct page *p = phys_to_page(pa);

	BUG_ON(!p || !(p->flags & PG_pgtable));
	near_forget(b->m);
	list_add_tail(&p->lru, &b->free_tables);
}

void arch_tlb_flush(struct tlb_batch *b)
{
	if (b->n || b->full)
		x86_tlb_flush(b->m, b->va, b->n, b->full, b->local_only, false);
	while (!list_empty(&b->free_tables)) {
		struct page *p = list_first_entry(&b->free_tables, struct page, lru);

		list_del(&p->lru);
		table_free(b->m, page_to_phys(p));
	}
	b->n = 0;
	b->full = false;
}

/* The struct page of the table an entry points to (its entry count). */
static struct page *table_page(uint64_t e)
{
	return phys_to_page(e & PTE_ADDR_MASK);
}

/* Remember te, the level-2 entry of the page table of va's block. */
static void near_remember(struct arch_mmu *m, uintptr_t va, uint64_t te)
{
	m->near_block = ALIGN_DOWN(va, HUGE_SIZE);
	m->near_table = table_va(te);
	m->near_page = table_page(te);
}

/* va's slot in the remembered table, or NULL when va is not in its block. */
static uint64_t *near_slot(const struct arch_mmu *m, uintptr_t va)
{
	if (m->near_table && m->near_block == ALIGN_DOWN(va, HUGE_SIZE))
		return &m->near_table[pt_index(va, 1)];
	return NULL;
}

#ifdef KDEBUG
/* Every entry of t is zero (a check of the entry counts in debug builds). */
static bool table_empty(const uint64_t *t)
{
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		if (t[i])
			return false;
	return true;
}
#endif

/* The leaf bits for prot (MMU_* permission and state bits). */
static inline uint64_t leaf_bits(unsigned prot)
{
	uint64_t e = 0;

	if (prot & MMU_PROT_MASK) {
		e = PTE_P | PTE_U;
		if (prot & MMU_WRITE)
			e |= PTE_W;
		if (!(prot & MMU_EXEC))
			e |= UMM_NX;
		else if ((prot & MMU_PROT_MASK) == MMU_EXEC && UMM_EXEC_ONLY)
			e |= EXEC_ONLY_PKEY << PTE_PKEY_SHIFT;
	} else {
		e = PTE_SW_PROTNONE;
	}
	if (prot & MMU_ACCESSED)
		e |= PTE_A;
	if (prot & MMU_DIRTY)
		e |= PTE_D;
	return e;
}

/* MMU_* state of an existing leaf. */
static inline unsigned leaf_state(uint64_t e)
{
	unsigned s = 0;

	if (e & PTE_P) {
		if (!(e & PTE_PKEY_MASK))
			s = MMU_READ;
		if (e & PTE_W)
			s |= MMU_WRITE;
		if (!(e & UMM_NX))
			s |= MMU_EXEC;
	}
	if (e & PTE_A)
		s |= MMU_ACCESSED;
	if (e & PTE_D)
		s |= MMU_DIRTY;
	return s;
}

struct arch_mmu *arch_mmu_create(void)
{
	struct arch_mmu *m = kzalloc(sizeof(*m));

	if (!m)
		return NULL;
	m->root = table_alloc(m, GFP_ZERO);
	if (!m->root) {
		kfree(m);
		return NULL;
	}
	m->pml4 = phys_to_virt(m->root);
	list_init(&m->deposit);
#ifndef HOSTED
	{
		const uint64_t *k = phys_to_virt(kernel_cr3 & PTE_ADDR_MASK);

		for (unsigned i = PT_ENTRIES / 2; i < PT_ENTRIES; i++)
			m->pml4[i] = k[i];
	}
#endif
	return m;
}

/* Free the tables below entry e at level lvl (4 = the PML4's entries); every leaf must be gone. */
static void free_below(struct arch_mmu *m, uint64_t e, int lvl, uintptr_t va)
{
	uint64_t *t = table_va(e);
	int32_t left = table_page(e)->mapcount;         /* entries in use: the scan stops after them */

#ifdef KDEBUG
	BUG_ON(left < 0 || (left == 0) != table_empty(t));
#endif
	for (unsigned i = 0; i < PT_ENTRIES && left > 0; i++) {
		uintptr_t sub = va + ((uintptr_t)i << (PAGE_SHIFT + 9 * (lvl - 2)));

		if (!t[i])
			continue;
		left--;
		if (lvl == 2 || (lvl == 3 && (t[i] & PTE_PS)))
			panic("arch_mmu_destroy: user page 0x%lx still mapped (pte 0x%llx)",
			      (unsigned long)sub, (unsigned long long)t[i]);
		free_below(m, t[i], lvl - 1, sub);
	}
	table_free(m, e & PTE_ADDR_MASK);
}

void arch_mmu_destroy(struct arch_mmu *m)
{
	if (!m)
		return;
	/* Lazy holders (this CPU included) switch away; nobody may be running on it. */
	x86_tlb_flush(m, NULL, 0, true, false, true);
	BUG_ON(x86_mm_loaded_here(m) || READ_ONCE(m->cpus));  /* a CPU still switching to m: the bug */
	for (unsigned i = 0; i < PT_ENTRIES / 2; i++) {
		if (m->pml4[i]) {
			free_below(m, m->pml4[i], 4, (uintptr_t)i << 39);
			m->pml4[i] = 0;
		}
	}
	BUG_ON(m->huge || !list_empty(&m->deposit));
	table_free(m, m->root);
	BUG_ON(m->tables != 0);
	kfree(m);
}

void arch_mmu_activate(struct arch_mmu *m)
{
	x86_mm_switch(m);
}

unsigned long arch_mmu_cpus(const struct arch_mmu *m)
{
	return smp_load_acquire(&m->cpus);
}

static void check_user_va(const char *fn, uintptr_t va)
{
	if (va >= USER_HALF_END || !IS_ALIGNED(va, PAGE_SIZE))
		panic("%s: bad user address 0x%lx", fn, (unsigned long)va);
}

/*
 * Point the empty slot of the table te points to (te 0: the PML4, whose
 * entries are not counted) at a new table. 0 or -ENOMEM.
 */
static int table_link(struct arch_mmu *m, uint64_t *slot, uint64_t te)
{
	phys_addr_t n = table_alloc(m, GFP_ZERO);

	if (!n)
		return -ENOMEM;
	*slot = n | PT_TABLE_FLAGS;
	if (te)
		table_page(te)->mapcount++;
	return 0;
}

static void huge_split(struct arch_mmu *m, uint64_t *pmd, uintptr_t va);

/*
 * The slot of va at level lowest - 1 (1: the leaf slot of a 4 KiB page, 2:
 * of a 2 MiB leaf), allocating the tables on the way and splitting a 2 MiB
 * leaf met above a 4 KiB slot; *owner = the entry of the table holding it
 * (whose struct page counts its entries). NULL on -ENOMEM, with the tables
 * this call added freed again.
 */
static uint64_t *slot_alloc(struct arch_mmu *m, uintptr_t va, uint64_t *owner, int lowest)
{
	uint64_t *t = m->pml4, *slots[3], te = 0, owners[3];
	int nfresh = 0;

	check_user_va(__func__, va);
	for (int lvl = 4; lvl >= lowest; lvl--) {
		uint64_t *slot = &t[pt_index(va, lvl)];

		if (!*slot) {
			if (table_link(m, slot, te)) {
				/* Undo: unlink and free the tables this call added (they are empty). */
				near_forget(m);
				while (nfresh-- > 0) {
					table_free(m, *slots[nfresh] & PTE_ADDR_MASK);
					*slots[nfresh] = 0;
					if (owners[nfresh])
						table_page(owners[nfresh])->mapcount--;
				}
				return NULL;
			}
			slots[nfresh] = slot;
			owners[nfresh++] = te;
		}
		if (lvl == 2 && (*slot & PTE_PS))
			huge_split(m, slot, ALIGN_DOWN(va, HUGE_SIZE));
		BUG_ON(*slot & PTE_PS);
		te = *slot;
		t = table_va(te);
	}
	*owner = te;
	return &t[pt_index(va, lowest - 1)];
}

static uint64_t *leaf_slot_alloc(struct arch_mmu *m, uintptr_t va, uint64_t *owner)
{
	return slot_alloc(m, va, owner, 2);
}

/* Fill the slot pte, of the table whose struct page is tp, with no present entry. */
static void map_leaf(uint64_t *pte, struct page *tp, phys_addr_t pa, unsigned prot)
{
	BUG_ON(pa & ~PTE_ADDR_MASK);
	BUG_ON(leaf_exists(*pte));      /* a present entry changes through replace or a walk (flushed) */
	if (!*pte)
		tp->mapcount++;
	*pte = pa | leaf_bits(prot);
}

int arch_mmu_map(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned prot)
{
	uint64_t te, *pte = leaf_slot_alloc(m, va, &te);

	if (!pte)
		return -ENOMEM;
	map_leaf(pte, table_page(te), pa, prot);
	return 0;
}

int arch_mmu_map_near(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned prot)
{
	uint64_t te, *pte = near_slot(m, va);

	if (!pte) {
		pte = leaf_slot_alloc(m, va, &te);
		if (!pte)
			return -ENOMEM;
		near_remember(m, va, te);
	}
	map_leaf(pte, m->near_page, pa, prot);
	return 0;
}

int arch_mmu_set_guard(struct arch_mmu *m, uintptr_t va)
{
	uint64_t te, *pte = leaf_slot_alloc(m, va, &te);

	if (!pte)
		return -ENOMEM;
	if (leaf_exists(*pte))
		panic("arch_mmu_set_guard: page 0x%lx is mapped (pte 0x%llx)", (unsigned long)va,
		      (unsigned long long)*pte);
	if (!*pte)
		table_page(te)->mapcount++;
	*pte = PTE_SW_GUARD;
	return 0;
}

int arch_mmu_set_swap(struct arch_mmu *m, uintptr_t va, unsigned long val)
{
	uint64_t te, *pte = leaf_slot_alloc(m, va, &te);

	if (!pte)
		return -ENOMEM;
	if (*pte && !leaf_is_swap(*pte))
		panic("arch_mmu_set_swap: page 0x%lx has an entry (pte 0x%llx)", (unsigned long)va,
		      (unsigned long long)*pte);
	if (!*pte)
		table_page(te)->mapcount++;
	*pte = swap_leaf(val);
	return 0;
}

/*
 * The slot of the leaf mapping va: a 4 KiB entry, or the 2 MiB leaf
 * covering va (split first when split); NULL when a table on the way is
 * missing. *te (when te is not NULL): the level-2 entry of the page table
 * holding a 4 KiB slot, else 0.
 */
static uint64_t *leaf_slot_at(struct arch_mmu *m, uintptr_t va, bool split, uint64_t *te)
{
	uint64_t *t = m->pml4;

	if (te)
		*te = 0;
	for (int lvl = 4; lvl >= 2; lvl--) {
		uint64_t *slot = &t[pt_index(va, lvl)];

		if (lvl == 2 && (*slot & PTE_PS)) {
			if (!split)
				return slot;
			huge_split(m, slot, ALIGN_DOWN(va, HUGE_SIZE));
		}
		if (!(*slot & PTE_P))
			return NULL;
		if (lvl == 2 && te)
			*te = *slot;
		t = table_va(*slot);
	}
	return &t[pt_index(va, 1)];
}

/* The 4 KiB leaf slot of va (a 2 MiB leaf there is split), or NULL. */
static uint64_t *leaf_slot(struct arch_mmu *m, uintptr_t va)
{
	return leaf_slot_at(m, va, true, NULL);
}

/* arch_mmu_query's answer for slot, the leaf slot of va (NULL: no table there). */
static int leaf_query(const uint64_t *slot, uintptr_t va, phys_addr_t *pa, unsigned *state)
{
	if (slot && (*slot & PTE_PS) && leaf_exists(*slot)) {
		if (pa)
			*pa = (*slot & PTE_ADDR_MASK) + (ALIGN_DOWN(va, PAGE_SIZE) & (HUGE_SIZE - 1));
		if (state)
			*state = leaf_state(*slot) | MMU_HUGE;
		return 0;
	}
	if (slot && leaf_is_guard(*slot))
		return -EFAULT;
	if (slot && leaf_is_swap(*slot)) {
		if (pa)
			*pa = swap_val(*slot);
		return -EAGAIN;
	}
	if (!slot || !leaf_exists(*slot))
		return -ENOENT;
	if (pa)
		*pa = *slot & PTE_ADDR_MASK;
	if (state)
		*state = leaf_state(*slot);
	return 0;
}

int arch_mmu_query(struct arch_mmu *m, uintptr_t va, phys_addr_t *pa, unsigned *state)
{
	if (va >= USER_HALF_END)
		return -ENOENT;
	va = ALIGN_DOWN(va, PAGE_SIZE);
	return leaf_query(leaf_slot_at(m, va, false, NULL), va, pa, state);
}

int arch_mmu_query_near(struct arch_mmu *m, uintptr_t va, phys_addr_t *pa, unsigned *state)
{
	uint64_t te, *slot;

	if (va >= USER_HALF_END)
		return -ENOENT;
	va = ALIGN_DOWN(va, PAGE_SIZE);
	slot = near_slot(m, va);
	if (!slot) {
		slot = leaf_slot_at(m, va, false, &te);
		if (te)
			near_remember(m, va, te);
	}
	return leaf_query(slot, va, pa, state);
}

bool arch_mmu_find_empty(struct arch_mmu *m, uintptr_t va, struct mmu_empty_slot *s)
{
	uint64_t e, *pte;

	if (va >= USER_HALF_END)
		return false;
	/* leaf_slot_at's walk without its cases: the fault's hot path (user tables have no 1 GiB leaves) */
	e = READ_ONCE(m->pml4[pt_index(va, 4)]);
	for (int lvl = 3; lvl >= 2; lvl--) {
		if (!(e & PTE_P))
			return false;
		e = READ_ONCE(table_va(e)[pt_index(va, lvl)]);
	}
	if ((e & (PTE_P | PTE_PS)) != PTE_P)
		return false;           /* no page table: none, or a 2 MiB leaf (present or PROT_NONE) */
	pte = &table_va(e)[pt_index(va, 1)];
	if (READ_ONCE(*pte))
		return false;
	s->pte = pte;
	s->table = table_page(e);
	return true;
}

int arch_mmu_link_tables(struct arch_mmu *m, uintptr_t va)
{
	uint64_t *slot;
	struct page *owner = NULL;      /* the table holding slot; NULL: the PML4, whose entries are not counted */

	if (va >= USER_HALF_END)
		return -EEXIST;
	slot = &m->pml4[pt_index(va, 4)];
	for (int lvl = 4; lvl >= 2; lvl--) {
		uint64_t e = READ_ONCE(*slot);

		if (!e) {
			phys_addr_t n = table_alloc(m, GFP_ZERO);

			if (!n)
				return -ENOMEM;
			/* release: the zeroed table before its link; a lost race leaves the winner's in e */
			if (__atomic_compare_exchange_n(slot, &e, n | PT_TABLE_FLAGS, false, __ATOMIC_RELEASE,
							__ATOMIC_ACQUIRE)) {
				e = n | PT_TABLE_FLAGS;
				if (owner)
					__atomic_add_fetch(&owner->mapcount, 1, __ATOMIC_RELAXED);
			} else {
				table_free(m, n);
			}
		}
		if ((e & (PTE_P | PTE_PS)) != PTE_P)
			return -EEXIST;         /* a 2 MiB leaf, present or PROT_NONE */
		owner = table_page(e);
		slot = &table_va(e)[pt_index(va, lvl - 1)];
	}
	return 0;
}

bool arch_mmu_fill_empty(const struct mmu_empty_slot *s, phys_addr_t pa, unsigned prot)
{
	uint64_t empty = 0;

	BUG_ON(pa & ~PTE_ADDR_MASK);
	if (!__atomic_compare_exchange_n(s->pte, &empty, pa | leaf_bits(prot), false, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		return false;
	/* other sharers count too; the exclusive mode's plain ++ never runs beside this */
	__atomic_add_fetch(&s->table->mapcount, 1, __ATOMIC_RELAXED);
	return true;
}

struct walk_ctx {
	struct arch_mmu *m;
	uintptr_t start, end;
	mmu_visit_fn visit;           /* entries with a frame, or */
	mmu_guard_fn guard_visit;     /* guard markers, or */
	mmu_swap_fn swap_visit;       /* swap entries (exactly one of the three is set) */
	mmu_visit_fn huge_visit;      /* with visit: 2 MiB leaves wholly inside (else split) */
	void *ctx;
	unsigned long visited;
	struct tlb_batch *tlb;        /* where changes and freed tables go */
	/* Tables left empty are freed when they are of level free_top or below
	 * (1: page tables; 0: none) and their whole block lies in [floor, ceiling). */
	int free_top;
	uintptr_t floor, ceiling;
};

/* Span of one entry at level lvl. */
static uintptr_t entry_span(int lvl) { return (uintptr_t)1 << (PAGE_SHIFT + 9 * (lvl - 1)); }

/*
 * Can a CPU change *pte's entry e behind the page-table lock? Only the
 * hardware does, setting ACCESSED and DIRTY with a locked update. A lost
 * ACCESSED only ages a page early; a lost DIRTY loses a write (reclaim
 * would drop a lazily freed page written since MADV_FREE; a shared file
 * page's write would never be written back). DIRTY can appear only on a
 * present, writable, clean entry.
 */
static inline bool leaf_may_get_dirty(uint64_t e)
{
	return (e & (PTE_P | PTE_W | PTE_D)) == (PTE_P | PTE_W);
}

/*
 * Store the visitor's new entry ne over e (hardware may have set
 * ACCESSED since e was read: kept, it is a reference made after the look).
 */
static inline void leaf_update(uint64_t *pte, uint64_t e, uint64_t ne)
{
	uint64_t cur = e;

	while (!__atomic_compare_exchange_n(pte, &cur, ne, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		ne |= cur & ~e & (PTE_A | PTE_D);
}

/*
 * Show the present leaf *pte (at va) to the visitor and apply its verdict.
 * True when cleared. An entry that may get dirty is taken out first
 * (Linux's ptep_get_and_clear): from then on a CPU that writes through a
 * clean TLB entry must set DIRTY in the entry, finds it not present and
 * faults (waiting for the page-table lock this walk holds), so the state
 * the visitor sees is final until its verdict is in.
 */
static inline bool walk_leaf(struct walk_ctx *w, uint64_t *pte, uintptr_t va)
{
	uint64_t e = *pte;
	bool held;
	unsigned old, state;
	enum mmu_action act;

#ifdef HOSTED
	if (hosted_walk_hook)
		hosted_walk_hook(pte, va);
#endif
	held = leaf_may_get_dirty(e);
	if (held)
		e = __atomic_exchange_n(pte, 0, __ATOMIC_SEQ_CST);
	old = state = leaf_state(e);
	w->visited++;
	act = w->visit(w->ctx, va, e & PTE_ADDR_MASK, &state);
	/* Stores below stay seq_cst, as the exchange: the CPU's walker sets A/D (hosted_hw_write8). */
	if (act == MMU_KEEP) {
		if (held)
			__atomic_store_n(pte, e, __ATOMIC_SEQ_CST);     /* unchanged: nothing to flush */
		return false;
	}
	if (act == MMU_CLEAR) {
		__atomic_store_n(pte, 0, __ATOMIC_SEQ_CST);
	} else {
		uint64_t ne;

		if (state == (old & ~(MMU_ACCESSED | MMU_DIRTY)))
			ne = e & ~(PTE_A | PTE_D);      /* hardware state cleared (MADV_FREE, reclaim) */
		else
			ne = (e & PTE_ADDR_MASK) | leaf_bits(state);
		if (ne == e && !held)
			return false;
		if (held)
			__atomic_store_n(pte, ne, __ATOMIC_SEQ_CST);
		else
			leaf_update(pte, e, ne);
		if (ne == e)
			return false;
	}
	tlb_batch_add(w->tlb, va);
	return act == MMU_CLEAR;
}

/* Show the guard marker *pte (at va) to the visitor. True when cleared. */
static bool walk_guard(struct walk_ctx *w, uint64_t *pte, uintptr_t va)
{
	enum mmu_action act;

	w->visited++;
	act = w->guard_visit(w->ctx, va);
	BUG_ON(act == MMU_UPDATE);
	if (act != MMU_CLEAR)
		return false;
	*pte = 0;
	return true;
}

/* Show the swap entry *pte (at va) to the visitor. True when cleared. */
static bool walk_swap(struct walk_ctx *w, uint64_t *pte, uintptr_t va)
{
	enum mmu_action act;

	w->visited++;
	act = w->swap_visit(w->ctx, va, swap_val(*pte));
	BUG_ON(act == MMU_UPDATE);
	if (act != MMU_CLEAR)
		return false;
	*pte = 0;
	return true;
}

/* ------------------------------------------------------- 2 MiB leaves */

static size_t huge_all;                  /* [atomic] 2 MiB blocks that at least one leaf maps */

/* A leaf of m mapping the block at pa comes (d 1) or goes (d -1): m's count, the block's, huge_all. */
static void huge_count(struct arch_mmu *m, phys_addr_t pa, int32_t d)
{
	int32_t *maps = pmm_huge_maps(pa);

	BUG_ON(!maps);
	m->huge += d;
	if (__atomic_add_fetch(maps, d, __ATOMIC_RELAXED) == (d > 0 ? 1 : 0))
		__atomic_add_fetch(&huge_all, (size_t)(long)d, __ATOMIC_RELAXED);
}

/* The table page set aside for one 2 MiB leaf's split (the leaf, to the block at pa, goes: split or cleared). */
static struct page *deposit_take(struct arch_mmu *m, phys_addr_t pa)
{
	struct page *tp;

	BUG_ON(list_empty(&m->deposit));
	tp = list_first_entry(&m->deposit, struct page, lru);
	list_del(&tp->lru);
	huge_count(m, pa, -1);
	return tp;
}

/*
 * Replace the 2 MiB leaf *pmd (mapping va, 2 MiB aligned) with a page
 * table of 512 entries with the same frames and bits (counted:
 * thp_split_pmd, as Linux's __split_huge_pmd_locked counts every split). The leaf is cleared
 * and flushed first (Linux's pmdp_invalidate), so that no CPU sets its
 * dirty bit through a stale TLB entry after its bits were copied.
 */
static void huge_split(struct arch_mmu *m, uint64_t *pmd, uintptr_t va)
{
	uint64_t old = __atomic_exchange_n(pmd, 0, __ATOMIC_SEQ_CST), bits;
	struct page *tp = deposit_take(m, old & PTE_ADDR_MASK);
	uint64_t *t = page_address(tp);

	x86_tlb_flush(m, &va, 1, false, false, false);
	count_vm_event(VM_THP_SPLIT_PMD);
	thp_leaf_split(old & PTE_ADDR_MASK);
	bits = old & ~(PTE_ADDR_MASK | PTE_PS);
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		t[i] = ((old & PTE_ADDR_MASK) + ((uint64_t)i << PAGE_SHIFT)) | bits;
	tp->mapcount = PT_ENTRIES;
	*pmd = page_to_phys(tp) | PT_TABLE_FLAGS;
}

int arch_mmu_map_huge(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned prot)
{
	phys_addr_t dep;
	uint64_t te, *pmd;

	BUG_ON(!IS_ALIGNED(va, HUGE_SIZE) || !IS_ALIGNED(pa, HUGE_SIZE) || (pa & ~PTE_ADDR_MASK));
	/* Not zeroed: a split writes all 512 entries before the table is linked (huge_split). */
	dep = table_alloc(m, 0);
	if (!dep)
		return -ENOMEM;
	pmd = slot_alloc(m, va, &te, 3);
	if (!pmd || *pmd) {
		table_free(m, dep);
		return pmd ? -EEXIST : -ENOMEM;
	}
	table_page(te)->mapcount++;
	*pmd = pa | leaf_bits(prot) | PTE_PS;
	list_add(&phys_to_page(dep)->lru, &m->deposit);
	huge_count(m, pa, 1);
	return 0;
}

void arch_mmu_collapse_huge(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned prot,
			    struct tlb_batch *tlb)
{
	uint64_t *t = m->pml4, *pmd, *old;
	struct page *tp;

	BUG_ON(!IS_ALIGNED(va, HUGE_SIZE) || !IS_ALIGNED(pa, HUGE_SIZE) || (pa & ~PTE_ADDR_MASK));
	BUG_ON(tlb->m != m);
	for (int lvl = 4; lvl > 2; lvl--) {
		uint64_t e = t[pt_index(va, lvl)];

		BUG_ON(!(e & PTE_P));
		t = table_va(e);
	}
	pmd = &t[pt_index(va, 2)];
	BUG_ON(!(*pmd & PTE_P) || (*pmd & PTE_PS));
	old = table_va(*pmd);
	tp = table_page(*pmd);
	for (unsigned i = 0; i < PT_ENTRIES; i++) {
		BUG_ON(old[i] && !leaf_exists(old[i]));         /* a guard marker or a swap entry */
		if (old[i])
			tlb_batch_add(tlb, va + ((uintptr_t)i << PAGE_SHIFT));
	}
	*pmd = pa | leaf_bits(prot) | PTE_PS;
	near_forget(m);
	/* Linux deposits the old table too; its stale entries stay until a split rewrites all 512. */
	tp->mapcount = 0;
	list_add(&tp->lru, &m->deposit);
	huge_count(m, pa, 1);
}

bool arch_mmu_split_huge(struct arch_mmu *m, uintptr_t va)
{
	uint64_t *slot;

	check_user_va(__func__, ALIGN_DOWN(va, PAGE_SIZE));
	slot = leaf_slot_at(m, ALIGN_DOWN(va, PAGE_SIZE), false, NULL);
	if (!slot || !(*slot & PTE_PS))
		return false;
	huge_split(m, slot, ALIGN_DOWN(va, HUGE_SIZE));
	return true;
}

bool arch_mmu_huge_free(struct arch_mmu *m, uintptr_t va)
{
	uint64_t *t = m->pml4;

	for (int lvl = 4; lvl >= 3; lvl--) {
		uint64_t e = t[pt_index(va, lvl)];

		if (!e)
			return true;
		t = table_va(e);
	}
	return !t[pt_index(va, 2)];
}

size_t arch_mmu_huge_leaves(const struct arch_mmu *m)
{
	return m->huge;
}

size_t arch_mmu_huge_blocks_all(void)
{
	return READ_ONCE(huge_all);
}

/* The rewritten 2 MiB leaf e for a visitor's *state (walk_leaf's rule, PS kept). */
static uint64_t huge_updated(uint64_t e, unsigned old, unsigned state)
{
	if (state == (old & ~(MMU_ACCESSED | MMU_DIRTY)))
		return e & ~(PTE_A | PTE_D);
	return (e & PTE_ADDR_MASK) | leaf_bits(state & ~MMU_HUGE) | PTE_PS;
}

/*
 * The 2 MiB leaf *pmd at va in a mapping walk: shown whole to the huge
 * visitor when it lies inside the range, else split. Returns MMU_CLEAR
 * when it was cleared, MMU_SPLIT when the walk goes on into its new table.
 */
static enum mmu_action walk_huge_leaf(struct walk_ctx *w, uint64_t *pmd, uintptr_t va)
{
	uint64_t e = *pmd, ne;
	unsigned old = leaf_state(e) | MMU_HUGE, state = old;
	enum mmu_action act = MMU_SPLIT;

	if (w->huge_visit && va >= w->start && va + HUGE_SIZE <= w->end) {
		w->visited++;
		act = w->huge_visit(w->ctx, va, e & PTE_ADDR_MASK, &state);
	}
	if (act == MMU_SPLIT) {
		huge_split(w->m, pmd, va);
	} else if (act == MMU_CLEAR) {
		*pmd = 0;
		table_defer_free(w->tlb, page_to_phys(deposit_take(w->m, e & PTE_ADDR_MASK)));
		tlb_batch_add(w->tlb, va);
	} else if (act == MMU_UPDATE && (ne = huge_updated(e, old, state)) != e) {
		*pmd = ne;
		tlb_batch_add(w->tlb, va);
	}
	return act;
}

/* tp (the struct page of table t) lost entries: is t empty now? */
static bool table_now_empty(const struct page *tp, const uint64_t *t)
{
	BUG_ON(tp->mapcount < 0);
#ifdef KDEBUG
	BUG_ON((tp->mapcount == 0) != table_empty(t));
#else
	(void)t;
#endif
	return tp->mapcount == 0;
}

/* May the table e points to, of level lvl, covering [va, va + span), go now? */
static bool table_may_go(const struct walk_ctx *w, uint64_t e, int lvl, uintptr_t va, uintptr_t span)
{
	return lvl <= w->free_top && va >= w->floor && va + span <= w->ceiling &&
	       table_now_empty(table_page(e), table_va(e));
}

/*
 * Unlink the table under *slot (covering from va) and queue it on the
 * batch. A CPU's paging-structure caches may hold the way through it: the
 * flush must invalidate an address under it, which the batch has already
 * when this walk cleared an entry there (recorded: false), else va.
 */
static void table_unlink(struct walk_ctx *w, uint64_t *slot, uintptr_t va, bool recorded)
{
	table_defer_free(w->tlb, *slot & PTE_ADDR_MASK);
	*slot = 0;
	if (!recorded)
		tlb_batch_add(w->tlb, va);
}

/*
 * The leaves of the page table e points to, covering [base, base + 2 MiB),
 * clipped. Returns how many cleared leaves it recorded in the batch.
 */
static int walk_ptes(struct walk_ctx *w, uint64_t e, uintptr_t base)
{
	uint64_t *t = table_va(e);
	unsigned i = (unsigned)((MAX(w->start, base) - base) >> PAGE_SHIFT);
	unsigned last = (unsigned)MIN((uintptr_t)PT_ENTRIES, (w->end - base + PAGE_SIZE - 1) >> PAGE_SHIFT);
	int cleared = 0;

	if (!w->visit && !w->guard_visit && !w->swap_visit)
		return 0;               /* arch_mmu_free_tables: only the tables */
	/* One loop per kind of visitor: the visitor's calls would make the loop read w's fields again each entry. */
	if (w->guard_visit) {
		for (; i < last; i++)
			cleared += leaf_is_guard(t[i]) && walk_guard(w, &t[i], base + ((uintptr_t)i << PAGE_SHIFT));
	} else if (w->swap_visit) {
		for (; i < last; i++)
			cleared += leaf_is_swap(t[i]) && walk_swap(w, &t[i], base + ((uintptr_t)i << PAGE_SHIFT));
	} else {
		for (; i < last; i++)
			if (leaf_exists(t[i]))
				cleared += walk_leaf(w, &t[i], base + ((uintptr_t)i << PAGE_SHIFT));
	}
	table_page(e)->mapcount -= cleared;
	BUG_ON(table_page(e)->mapcount < 0);
	return w->visit ? cleared : 0;  /* markers and swap entries are not in the batch (never cached) */
}

/*
 * Walk the table te points to, at level lvl (2 or 3), covering
 * [base, base + 512 * span) clipped to the walk range, freeing the
 * tables below it that w's window lets go. Returns how many leaves it
 * cleared below it (each recorded in the batch).
 */
static int walk_table(struct walk_ctx *w, uint64_t te, int lvl, uintptr_t base)
{
	uint64_t *t = table_va(te);
	uintptr_t span = entry_span(lvl);
	int cleared = 0, leaves = 0;
	unsigned i = (unsigned)((MAX(w->start, base) - base) / span);

	for (; i < PT_ENTRIES; i++) {
		uintptr_t va = base + (uintptr_t)i * span;
		uint64_t e = t[i];
		int below;

		if (va >= w->end)
			break;
		if (!e)
			continue;
		if (lvl == 2 && (e & PTE_PS)) {
			enum mmu_action act = w->visit ? walk_huge_leaf(w, &t[i], va) : MMU_KEEP;

			cleared += act == MMU_CLEAR;    /* its set-aside table is queued already */
			leaves += act == MMU_CLEAR;
			if (act != MMU_SPLIT)
				continue;
			e = t[i];
		}
		below = lvl == 2 ? walk_ptes(w, e, va) : walk_table(w, e, lvl - 1, va);
		leaves += below;
		if (table_may_go(w, e, lvl - 1, va, span)) {
			table_unlink(w, &t[i], va, below > 0);
			cleared++;
		}
	}
	table_page(te)->mapcount -= cleared;
	BUG_ON(table_page(te)->mapcount < 0);
	return leaves;
}

/*
 * Walk w's range over the user half of the PML4, its changes going into
 * tlb, or, when tlb is NULL, into a batch of its own flushed before
 * returning.
 */
static unsigned long walk_range(struct walk_ctx *w, struct tlb_batch *tlb)
{
	struct arch_mmu *m = w->m;
	uintptr_t span = entry_span(4);
	struct tlb_batch own;

	if (w->start >= w->end)
		return 0;
	if (!tlb)
		tlb_batch_init(&own, m, false);
	w->tlb = tlb ? tlb : &own;
	BUG_ON(w->tlb->m != m);
	check_user_va(__func__, w->start);
	BUG_ON(w->end > USER_HALF_END || !IS_ALIGNED(w->end, PAGE_SIZE));
	for (unsigned i = (unsigned)(w->start / span); i < PT_ENTRIES / 2; i++) {
		uintptr_t va = (uintptr_t)i * span;
		uint64_t e = m->pml4[i];
		int below;

		if (va >= w->end)
			break;
		if (!e)
			continue;
		below = walk_table(w, e, 3, va);
		if (table_may_go(w, e, 3, va, span))
			table_unlink(w, &m->pml4[i], va, below > 0);
	}
	if (!tlb)
		arch_tlb_flush(&own);
	return w->visited;
}

/* arch_mmu_unmap_has_work below the table t of level lvl covering from base. */
static bool table_has_work(const uint64_t *t, int lvl, uintptr_t base, uintptr_t start, uintptr_t end,
			   uintptr_t floor, uintptr_t ceiling)
{
	uintptr_t span = entry_span(lvl);

	for (unsigned i = (unsigned)((MAX(start, base) - base) / span); i < PT_ENTRIES; i++) {
		uintptr_t va = base + (uintptr_t)i * span;
		uint64_t e = READ_ONCE(t[i]);

		if (va >= end)
			break;
		if (!e)
			continue;
		if (lvl == 1 || (lvl == 2 && (e & PTE_PS)) || (va >= floor && va + span <= ceiling) ||
		    table_has_work(table_va(e), lvl - 1, va, start, end, floor, ceiling))
			return true;
	}
	return false;
}

bool arch_mmu_unmap_has_work(struct arch_mmu *m, uintptr_t start, uintptr_t end, uintptr_t floor,
			     uintptr_t ceiling)
{
	if (start >= end)
		return false;
	return table_has_work(m->pml4, 4, 0, start, end, floor, ceiling ? ceiling : USER_HALF_END);
}

uintptr_t arch_mmu_next_used(struct arch_mmu *m, uintptr_t va, uintptr_t end)
{
	end = MIN(end, (uintptr_t)USER_HALF_END);
	while (va < end) {
		uint64_t *t = m->pml4;
		int lvl = 4;

		for (; lvl >= 2; lvl--) {
			uint64_t e = t[pt_index(va, lvl)];

			if (!e)
				break;
			if (lvl == 2)
				return va;      /* a page table or a 2 MiB leaf covers va's block */
			t = table_va(e);
		}
		/* no entry at level lvl over va: on to the next one of that level */
		va = ALIGN_DOWN(va, entry_span(lvl)) + entry_span(lvl);
	}
	return end;
}

unsigned long arch_mmu_walk(struct arch_mmu *m, uintptr_t start, uintptr_t end,
			    mmu_visit_fn visit, void *ctx, struct tlb_batch *tlb)
{
	struct walk_ctx w = { .m = m, .start = start, .end = end, .visit = visit, .ctx = ctx };

	return walk_range(&w, tlb);
}

unsigned long arch_mmu_walk_huge(struct arch_mmu *m, uintptr_t start, uintptr_t end,
				 mmu_visit_fn huge, mmu_visit_fn visit, void *ctx,
				 struct tlb_batch *tlb)
{
	struct walk_ctx w = { .m = m, .start = start, .end = end, .visit = visit, .huge_visit = huge,
			      .ctx = ctx };

	BUG_ON(!visit);
	return walk_range(&w, tlb);
}

unsigned long arch_mmu_unmap_walk(struct arch_mmu *m, uintptr_t start, uintptr_t end,
				  mmu_visit_fn huge, mmu_visit_fn visit, void *ctx,
				  uintptr_t floor, uintptr_t ceiling, struct tlb_batch *tlb)
{
	struct walk_ctx w = { .m = m, .start = start, .end = end, .visit = visit, .huge_visit = huge,
			      .ctx = ctx, .free_top = 3, .floor = floor,
			      .ceiling = ceiling ? ceiling : USER_HALF_END };

	BUG_ON(!visit || !tlb || tlb->local_only || floor > start || end > w.ceiling);
	return walk_range(&w, tlb);
}

void arch_mmu_free_tables(struct arch_mmu *m, uintptr_t start, uintptr_t end, uintptr_t floor,
			  uintptr_t ceiling, int top, struct tlb_batch *tlb)
{
	struct walk_ctx w = { .m = m, .start = start, .end = end, .free_top = top, .floor = floor,
			      .ceiling = ceiling ? ceiling : USER_HALF_END };

	BUG_ON(!tlb || tlb->local_only || floor > start || end > w.ceiling || top < 1 || top > 3);
	walk_range(&w, tlb);
}

/* Markers are never cached by a TLB; the batch is for the page-table pages a removal empties. */
unsigned long arch_mmu_walk_guards(struct arch_mmu *m, uintptr_t start, uintptr_t end,
				   mmu_guard_fn visit, void *ctx)
{
	struct walk_ctx w = { .m = m, .start = start, .end = end, .guard_visit = visit, .ctx = ctx };

	return walk_range(&w, NULL);
}

/* Swap entries are never cached by a TLB either. */
unsigned long arch_mmu_walk_swap(struct arch_mmu *m, uintptr_t start, uintptr_t end,
				 mmu_swap_fn visit, void *ctx)
{
	struct walk_ctx w = { .m = m, .start = start, .end = end, .swap_visit = visit, .ctx = ctx };

	return walk_range(&w, NULL);
}

int arch_mmu_swap_out(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned long val,
		      unsigned *state)
{
	uint64_t *slot, old;

	check_user_va(__func__, va);
	slot = leaf_slot(m, va);
	if (!slot || !(*slot & PTE_P) || (*slot & PTE_ADDR_MASK) != pa)
		return -ENOENT;
	/* Atomically: a CPU may be setting the dirty bit right now. */
	old = __atomic_exchange_n(slot, 0, __ATOMIC_SEQ_CST);
	x86_tlb_flush(m, &va, 1, false, false, false);
	if (old & PTE_D) {
		*slot = old;            /* written since it was cleaned: the copy is stale */
		return -EBUSY;
	}
	*slot = swap_leaf(val);
	if (state)
		*state = leaf_state(old);
	return 0;
}

size_t arch_mmu_table_pages(const struct arch_mmu *m)
{
	return READ_ONCE(m->tables);
}

phys_addr_t arch_mmu_root(const struct arch_mmu *m)
{
	return m->root;
}

void arch_mmu_replace(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned prot)
{
	uint64_t *slot;

	check_user_va(__func__, va);
	BUG_ON(pa & ~PTE_ADDR_MASK);
	slot = leaf_slot(m, va);
	BUG_ON(!slot || !leaf_exists(*slot));
	/* The table's entry count stays: the slot is refilled at once. */
	*slot = 0;
	x86_tlb_flush(m, &va, 1, false, false, false);
	*slot = pa | leaf_bits(prot);
}
