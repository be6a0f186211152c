/*
 * LAB smp, part 3: no lazy TLB yet. A CPU that goes on with a kernel thread
 * or idles switches to the kernel tables at once (a CR3 write now, and
 * another when the address space comes back), so it never holds an address
 * space it does not run and needs no flush for it. Make it lazy: keep the
 * address space loaded and only note that it is kept lazily
 * (cpu->mm_lazy); then flush_here, asked to flush an address space this
 * CPU only keeps lazily, switches to the kernel tables instead (and counts
 * a lazy_leaves), so the CPU gets no more requests for it.
 * docs/labs/smp.md.
 */
void arch_mmu_enter_lazy(void)
{
	unsigned long f = arch_irq_save();

	switch_locked(this_cpu(), NULL);
	arch_irq_restore(f);
}

/* This CPU's part of request r: flush, or leave m. Interrupts off. */
static void flush_here(const struct flush_req *r)
{
	struct percpu *cpu = this_cpu();

	if (cpu->mm_loaded != r->m)
		return;
	if (r->leave) {
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
