/*
 * Kernel stacks with guard pages. Every task's kernel stack (and each
 * application processor's idle stack) lives in a slot of its own in the
 * kernel-stack area of the kernel page tables:
 *
 *   KSTACK_AREA + i * KSTACK_SLOT:  [ guard: KSTACK_GUARD bytes, not present ][ stack: KSTACK_SIZE ]
 *
 * The stack's frames come from the buddy allocator (one 2^KSTACK_ORDER
 * block, as before: they stay reachable through the direct map too) and
 * are mapped RW NX, not global. A stack that runs past its bottom touches
 * the guard: the page fault cannot push its frame there, and the CPU raises
 * a double fault, which runs on its own IST stack (gdt.c) and reports a
 * kernel stack overflow naming the task (idt.c, kstack_guard_hit).
 *
 * Every page table of the area is allocated at boot (kstack_area_init,
 * before the first address space copies the kernel half of the PML4), one
 * slot per KSTACK_SIZE of RAM: no stack needs a table page later, so frame
 * accounting stays exact.
 *
 * TLB: freeing a stack clears its entries and flushes them on this CPU;
 * another CPU that ran the task may still cache them, so the slot is only
 * marked stale. A stale slot is reused after every online CPU has flushed
 * (an IPI, VEC_KSTACK_FLUSH: each CPU reloads CR3, which drops non-global
 * entries); the flush runs in arch_kstack_alloc when no clean slot is left,
 * with interrupts on and no lock held. Slot states change under
 * kstack_lock.
 */
#include "x86.h"
#include "lockless.h"
#include "x86_mmu.h"
#include "arch.h"
#include "task.h"
#include "pmm.h"
#include "spinlock.h"
#include "printk.h"
#include "kernel.h"

#define KSTACK_AREA      0xffffc90000000000UL
#define KSTACK_GUARD     KSTACK_SIZE                     /* bytes below each stack, never mapped */
#define KSTACK_SLOT      (KSTACK_GUARD + KSTACK_SIZE)
#define KSTACK_SLOTS_MAX 65536                           /* 2 GiB of area, 1 GiB of stacks */
#define KSTACK_PAGES     (KSTACK_SIZE / PAGE_SIZE)

enum slot_state { SLOT_FREE, SLOT_USED, SLOT_STALE, SLOT_FLUSHING };

extern const char boot_stack_guard[];

static uint8_t slot_state[KSTACK_SLOTS_MAX];
static unsigned nslots, hint;
static bool flushing;                           /* a flush of stale slots is under way */
static struct spinlock kstack_lock = SPINLOCK_INIT_CLASS("kstack", LOCK_CLASS_KSTACK);
static uint64_t flush_gen;                      /* flushes requested so far */
static uint64_t flush_done[NR_CPUS];            /* the latest request each CPU has served */
static unsigned long flush_rounds;              /* completed reclaims of stale slots (tests) */

static uintptr_t slot_stack(unsigned slot)
{
	return KSTACK_AREA + (uintptr_t)slot * KSTACK_SLOT + KSTACK_GUARD;
}

static void flush_interrupt(struct trap_frame *tf)
{
	uint64_t g = smp_load_acquire(&flush_gen);

	lapic_eoi();
	write_cr3(read_cr3());
	smp_store_release(&flush_done[arch_cpu_id()], g);
}

/*
 * Drop the area's cached entries on every online CPU and wait until each
 * has. False (nothing done) with interrupts off: two CPUs waiting for each
 * other with interrupts off would never answer.
 */
static bool flush_all_cpus(void)
{
	unsigned long f, mask;
	uint64_t g;

	if (!arch_irqs_enabled())
		return false;
	g = __atomic_add_fetch(&flush_gen, 1, __ATOMIC_SEQ_CST);
	f = arch_irq_save();
	write_cr3(read_cr3());
	mask = arch_cpu_online_mask() & ~(1UL << arch_cpu_id());
	for (unsigned long m = mask; m; m &= m - 1)
		lapic_send_ipi(cpu_apic_id[__builtin_ctzl(m)], VEC_KSTACK_FLUSH);
	arch_irq_restore(f);
	for (unsigned long m = mask; m; m &= m - 1)
		while (smp_load_acquire(&flush_done[__builtin_ctzl(m)]) < g)
			arch_cpu_relax();
	return true;
}

/* Turn every stale slot into a free one (one flush at a time); false when it cannot run now. */
static bool reclaim_stale(void)
{
	unsigned long f = spin_lock_irqsave(&kstack_lock);
	bool ok;

	if (flushing) {                 /* another CPU is at it: wait for it, then look again */
		spin_unlock_irqrestore(&kstack_lock, f);
		if (!arch_irqs_enabled())
			return false;
		while (smp_load_acquire(&flushing))
			arch_cpu_relax();
		return true;
	}
	flushing = true;
	for (unsigned i = 0; i < nslots; i++)
		if (slot_state[i] == SLOT_STALE)
			slot_state[i] = SLOT_FLUSHING;
	spin_unlock_irqrestore(&kstack_lock, f);
	ok = flush_all_cpus();
	f = spin_lock_irqsave(&kstack_lock);
	flush_rounds += ok;
	for (unsigned i = 0; i < nslots; i++)
		if (slot_state[i] == SLOT_FLUSHING)
			slot_state[i] = ok ? SLOT_FREE : SLOT_STALE;
	smp_store_release(&flushing, false);
	spin_unlock_irqrestore(&kstack_lock, f);
	return ok;
}

/* A free slot, now marked used; -1 when every slot is used or stale and no flush can run. */
static long slot_take(void)
{
	for (int tries = 0; tries < 3; tries++) {
		unsigned long f = spin_lock_irqsave(&kstack_lock);

		for (unsigned n = 0; n < nslots; n++) {
			unsigned i = (hint + n) % nslots;

			if (slot_state[i] == SLOT_FREE) {
				slot_state[i] = SLOT_USED;
				hint = (i + 1) % nslots;
				spin_unlock_irqrestore(&kstack_lock, f);
				return i;
			}
		}
		spin_unlock_irqrestore(&kstack_lock, f);
		if (!reclaim_stale())
			break;
	}
	return -1;
}

void *arch_kstack_alloc(void)
{
	struct page *p = pmm_alloc(KSTACK_ORDER, 0);
	phys_addr_t pa;
	uintptr_t base;
	long slot;

	if (!p)
		return NULL;
	slot = slot_take();
	if (slot < 0) {
		pmm_free(p, KSTACK_ORDER);
		return NULL;
	}
	base = slot_stack((unsigned)slot);
	pa = page_to_phys(p);
	for (unsigned i = 0; i < KSTACK_PAGES; i++)
		*kpgtable_pte(base + i * PAGE_SIZE) = (pa + i * PAGE_SIZE) | PTE_P | PTE_W | pte_nx;
	return (void *)base;
}

void arch_kstack_free(void *stack)
{
	uintptr_t base = (uintptr_t)stack;
	unsigned slot = (unsigned)((base - KSTACK_AREA) / KSTACK_SLOT);
	phys_addr_t pa;
	unsigned long f;

	BUG_ON(base < KSTACK_AREA || slot >= nslots || base != slot_stack(slot) ||
	       slot_state[slot] != SLOT_USED);
	pa = *kpgtable_pte(base) & PTE_ADDR_MASK;
	for (unsigned i = 0; i < KSTACK_PAGES; i++) {
		*kpgtable_pte(base + i * PAGE_SIZE) = 0;
		x86_invlpg(base + i * PAGE_SIZE);
	}
	f = spin_lock_irqsave(&kstack_lock);
	slot_state[slot] = SLOT_STALE;
	spin_unlock_irqrestore(&kstack_lock, f);
	pmm_free(phys_to_page(pa), KSTACK_ORDER);
}

bool kstack_guard_hit(uintptr_t addr)
{
	if (addr >= (uintptr_t)boot_stack_guard && addr < (uintptr_t)boot_stack_guard + PAGE_SIZE)
		return true;
	if (addr < KSTACK_AREA || addr >= KSTACK_AREA + (uintptr_t)nslots * KSTACK_SLOT)
		return false;
	return (addr - KSTACK_AREA) % KSTACK_SLOT < KSTACK_GUARD;
}

unsigned kstack_slot_count(void)
{
	return nslots;
}

unsigned long kstack_flush_count(void)
{
	return READ_ONCE(flush_rounds);
}

void kstack_area_init(void)
{
	size_t frames = pmm_total_frames();

	nslots = (unsigned)MIN(MAX(frames / KSTACK_PAGES, (size_t)NR_CPUS), (size_t)KSTACK_SLOTS_MAX);
	/* one PTE lookup per page table (2 MiB) allocates it; the area starts 2 MiB-aligned */
	for (uintptr_t va = KSTACK_AREA; va < KSTACK_AREA + (uintptr_t)nslots * KSTACK_SLOT; va += PAGE_SIZE_2M)
		if (!kpgtable_pte(va))
			panic("kstack: no memory for the kernel-stack page tables");
	irq_register(VEC_KSTACK_FLUSH, flush_interrupt);
	printk("kstack: %u kernel-stack slots of %lu KiB, %lu KiB guard below each\n", nslots,
	       (unsigned long)(KSTACK_SIZE >> 10), (unsigned long)(KSTACK_GUARD >> 10));
}
