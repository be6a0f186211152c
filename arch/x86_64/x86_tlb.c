/*
 * TLB shootdown and address-space switching on x86-64 (the kernel side of
 * include/arch_mmu.h's TLB contract; docs/guide.md tells the protocol).
 *
 * Each CPU records the user address space in its CR3 (mm_loaded) and
 * whether it is only kept lazily (mm_lazy: a kernel thread or the idle
 * task runs). Each struct arch_mmu has a mask of the CPUs where it is
 * loaded. A switch sets the new space's bit before loading CR3 and clears
 * the old one's after, with interrupts off, so a CPU that can still use an
 * address space's translations always has its bit set.
 *
 * A flush: the initiator changes the page tables, then (after a full
 * fence, so its page-table stores are visible before it reads the mask)
 * reads the mask. It flushes itself, fills its own request slot (the
 * pages, or "everything"), sets its bit in each target's request mask,
 * sends each target one VEC_TLB IPI, and waits until every target has
 * counted the request done. A target takes all requests addressed to it,
 * invalidates the pages if the address space is the one it runs, switches
 * to the kernel tables instead if it only keeps it lazily (or is told to
 * leave), and counts each request done. While waiting, an initiator serves
 * requests sent to it, so two CPUs flushing each other cannot deadlock;
 * callers hold no lock that turns interrupts off (the page-table lock
 * leaves them on), so a CPU spinning for a lock still answers.
 */
#include "x86.h"
#include "x86_mmu.h"
#include "arch_mmu.h"
#include "arch_mmu_debug.h"
#include "arch.h"
#include "kernel.h"
#include "lockless.h"

struct flush_req {
	struct arch_mmu *m;
	bool full;                      /* flush all of m's entries */
	bool leave;                     /* switch away from m */
	unsigned n;
	uintptr_t va[TLB_BATCH_PAGES];
	int pending;                    /* [atomic] targets not done yet */
};

static struct flush_req reqs[NR_CPUS];          /* each CPU's outgoing request */
static struct tlb_stats stats;

static void stat_add(unsigned long *c, unsigned long n)
{
	__atomic_add_fetch(c, n, __ATOMIC_RELAXED);
}

void arch_tlb_stats(struct tlb_stats *out)
{
	*out = stats;
}

/* LAB smp: BEGIN cpu_mask */
/* Load m (NULL: the kernel tables) on this CPU and move its bit. Interrupts off. */
static void switch_locked(struct percpu *cpu, struct arch_mmu *m)
{
	struct arch_mmu *prev = cpu->mm_loaded;
	unsigned long bit = 1UL << cpu->cpu_id;

	cpu->mm_lazy = false;
	if (prev == m)
		return;
	if (m)
		__atomic_fetch_or(&m->cpus, bit, __ATOMIC_SEQ_CST);
	write_cr3(m ? m->root : kernel_cr3);
	cpu->mm_loaded = m;
	if (prev)
		__atomic_fetch_and(&prev->cpus, ~bit, __ATOMIC_SEQ_CST);
}
/* LAB smp: END cpu_mask */

void x86_mm_switch(struct arch_mmu *m)
{
	unsigned long f = arch_irq_save();

	switch_locked(this_cpu(), m);
	arch_irq_restore(f);
}

bool x86_mm_loaded_here(const struct arch_mmu *m)
{
	return (read_cr3() & PTE_ADDR_MASK) == m->root;
}

/* LAB smp: BEGIN lazy_tlb */
void arch_mmu_enter_lazy(void)
{
	struct percpu *cpu = this_cpu();

	cpu->mm_lazy = cpu->mm_loaded != NULL;
}

/* This CPU's part of request r: flush, or leave m. Interrupts off. */
static void flush_here(const struct flush_req *r)
{
	struct percpu *cpu = this_cpu();

	if (cpu->mm_loaded != r->m)
		return;
	if (cpu->mm_lazy || r->leave) {
		/* A CPU running a task of m is never asked to leave (BUG_ON in arch_mmu_destroy). */
		switch_locked(cpu, NULL);
		stat_add(&stats.lazy_leaves, 1);
		return;
	}
	if (r->full) {
		write_cr3(r->m->root);
		stat_add(&stats.full_flushes, 1);
		return;
	}
	for (unsigned i = 0; i < r->n; i++)
		x86_invlpg(r->va[i]);
	stat_add(&stats.pages, r->n);
}
/* LAB smp: END lazy_tlb */

/* LAB smp: BEGIN shootdown */
static unsigned long req_from[NR_CPUS]; /* [atomic] per target: bit i = CPU i's request is for it */

/* Serve every request addressed to this CPU. Interrupts off. */
static void serve_requests(void)
{
	unsigned long from = __atomic_exchange_n(&req_from[arch_cpu_id()], 0, __ATOMIC_ACQ_REL);

	while (from) {
		unsigned src = (unsigned)__builtin_ctzl(from);

		from &= from - 1;
		flush_here(&reqs[src]);
		__atomic_sub_fetch(&reqs[src].pending, 1, __ATOMIC_RELEASE);
	}
}

static void tlb_interrupt(struct trap_frame *tf)
{
	lapic_eoi();
	serve_requests();
}

/* Send this CPU's request to the CPUs of mask and wait until all have done it. */
static void shootdown(struct flush_req *r, unsigned long mask)
{
	unsigned me = arch_cpu_id();
	unsigned n = 0;

	for (unsigned long m = mask; m; m &= m - 1)
		n++;
	smp_store_release(&r->pending, (int)n);
	for (unsigned long m = mask; m; m &= m - 1) {
		unsigned cpu = (unsigned)__builtin_ctzl(m);

		__atomic_fetch_or(&req_from[cpu], 1UL << me, __ATOMIC_SEQ_CST);
		lapic_send_ipi(cpu_apic_id[cpu], VEC_TLB);
	}
	stat_add(&stats.shootdowns, 1);
	stat_add(&stats.ipis, n);
	while (smp_load_acquire(&r->pending)) {
		unsigned long f = arch_irq_save();

		serve_requests();
		arch_irq_restore(f);
		arch_cpu_relax();
	}
}

void x86_tlb_flush(struct arch_mmu *m, const uintptr_t *va, unsigned n, bool full, bool local_only,
		   bool leave)
{
	unsigned long f = arch_irq_save();
	unsigned me = arch_cpu_id();
	struct flush_req *r = &reqs[me];
	unsigned long mask;

	BUG_ON(n > TLB_BATCH_PAGES || (!n && !full));
	r->m = m;
	r->full = full;
	r->leave = leave;
	r->n = n;
	for (unsigned i = 0; i < n; i++)
		r->va[i] = va[i];
	if (!local_only)
		stat_add(&stats.flushes, 1);
	flush_here(r);
	arch_irq_restore(f);
	if (local_only)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* Races with switch_locked on other CPUs; the fence above orders it after our PTE stores. */
	mask = READ_ONCE(m->cpus) & ~(1UL << me) & arch_cpu_online_mask();
	if (mask)
		shootdown(r, mask);
}
bool arch_tlb_flush_reaches_all(void)
{
	return true;
}
/* LAB smp: END shootdown */

void tlb_init(void)
{
	irq_register(VEC_TLB, tlb_interrupt);
}
