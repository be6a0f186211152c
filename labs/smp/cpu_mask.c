/*
 * Load m (NULL: the kernel tables) on this CPU. Interrupts off.
 *
 * LAB smp, part 2: nothing records where an address space is loaded, so a
 * flush cannot know which CPUs to ask. Keep m->cpus true: set this CPU's
 * bit in the new address space before its CR3 is loaded, clear it in the
 * old one after (atomically: other CPUs set and clear their own bits at the
 * same time), so that a CPU that can still use an address space's
 * translations always has its bit set. docs/labs/smp.md.
 */
static void switch_locked(struct percpu *cpu, struct arch_mmu *m)
{
	struct arch_mmu *prev = cpu->mm_loaded;

	cpu->mm_lazy = false;
	if (prev == m)
		return;
	write_cr3(m ? m->root : kernel_cr3);
	cpu->mm_loaded = m;
}
