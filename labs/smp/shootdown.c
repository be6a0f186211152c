/*
 * LAB smp, part 2: the TLB shootdown. The skeleton flushes this CPU's TLB
 * only: another CPU that has m loaded keeps its stale entries, and can
 * still read and write a frame that was unmapped, write-protected or
 * already handed to someone else. Write it (docs/guide.md, "The shootdown
 * protocol"): after the local flush and a full fence, read m->cpus; send
 * this CPU's request (reqs[] holds one slot per CPU) to each other CPU of
 * the mask with one VEC_TLB IPI (lapic_send_ipi, cpu_apic_id[]), marking
 * it in a per-target mask of senders; wait until every target has done it,
 * serving requests sent to this CPU meanwhile (two CPUs may flush each
 * other). The interrupt handler serves every request addressed to its CPU
 * (flush_here) and counts each one done. Keep the statistics: shootdowns
 * (IPI rounds) and ipis (CPUs interrupted). docs/labs/smp.md.
 */
static void tlb_interrupt(struct trap_frame *tf)
{
	lapic_eoi();
}

void x86_tlb_flush(struct arch_mmu *m, const uintptr_t *va, unsigned n, bool full, bool local_only,
		   bool leave)
{
	unsigned long f = arch_irq_save();
	struct flush_req *r = &reqs[arch_cpu_id()];

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
	/* TODO: the other CPUs where m is loaded (unless local_only). */
}

/*
 * LAB smp, part 2: until the shootdown works, a flush stays on this CPU,
 * so the scheduler runs every user task on CPU 0, with kswapd and
 * khugepaged (cpu_may_run, kernel/sched/sched.c): user programs stay
 * correct, only without parallelism.
 * The kernel tests, whose kernel threads work in one address space from
 * several CPUs on purpose, show what is missing. Return true once
 * x86_tlb_flush reaches every CPU of m->cpus.
 */
bool arch_tlb_flush_reaches_all(void)
{
	return false;
}
