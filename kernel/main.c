/*
 * The boot sequence. boot/boot.asm calls kmain(magic, info) on the boot
 * stack, in long mode, on the early page tables, with interrupts off:
 *
 *   per-CPU area (GS), serial console, GDT/TSS, IDT, CPU features
 *   boot info (multiboot1 or 2): memory map, command line, modules
 *   memblock: RAM minus [0, 1 MiB), the kernel image, boot info, modules
 *   kernel page tables (direct map, W^X image; identity map gone)
 *   the framebuffer console, if the loader handed over a framebuffer
 *   struct page array, then pmm_init() with memblock's free ranges, slab_init()
 *   LAPIC timer, interrupts on
 *   the root file system: /dev, /proc, /tmp and the boot modules
 *   (fs/rootfs.c: an initramfs is unpacked, other modules become files)
 *   ktest_run(ktest=...), then the profile run (profile=SUITES; profile=user
 *   profiles init instead, kernel/task/init.c)
 *   if there are boot modules: init (pid 1) runs (argv[0] of the arguments
 *   module, else the first module's program, kernel/task/init.c) and its
 *   exit status decides (kernel/task/init.c); else exit QEMU through
 *   isa-debug-exit: pass, fail (arch/x86_64/include/x86.h QEMU_EXIT_*).
 */
#include "kernel.h"
#include "printk.h"
#include "arch.h"
#include "x86.h"
#include "x86_mmu.h"
#include "multiboot.h"
#include "memblock.h"
#include "kasan.h"
#include "cmdline.h"
#include "khugepaged.h"
#include "blockdev.h"
#include "swap.h"
#include "vmscan.h"
#include "mm.h"
#include "arch_mmu.h"
#include "vma.h"
#include "pmm.h"
#include "slab.h"
#include "ktest.h"
#include "file.h"
#include "profile.h"
#include "profile_vma.h"
#include "kstring.h"
#include "task.h"
#include "exec.h"
#include "spinlock.h"
#include "fbcon.h"

extern const char __kernel_phys_start[], __kernel_phys_end[];

/* Below this much free memory after boot the test suites cannot run (pmm tests need a free 4 MiB top-order block). */
#define MIN_FREE_BYTES (8UL << 20)
/* The early page tables map 4 GiB; memblock must stay below until ours are up. */
#define EARLY_MAP_LIMIT (4UL << 30)

/*
 * The VM options of the command line: vma=BACKEND, merge=, zero_page=,
 * thp=, khugepaged_sleep_ms=, fault_lock=, madv_lock=, reclaim=.
 * Returns the number of errors: a vma= that names no backend (the boot
 * then fails rather than silently test the default backend).
 */
static unsigned apply_vm_params(const struct kernel_params *p)
{
	unsigned errors = 0;

	vma_merge_enabled = p->merge;
	mm_zero_page_enabled = p->zero_page;
	thp_mode = (enum thp_mode)p->thp;
	khugepaged_set(KHUGEPAGED_SCAN_SLEEP_MS, (long)p->khugepaged_sleep_ms);
	mm_fault_lock_vma = p->fault_lock_vma;
	mm_madv_write_lock = p->madv_lock_write;
	vmscan_reclaim_lru = p->reclaim_lru;
	if (p->vma[0]) {
		const struct vma_index_ops *b = vma_backend_by_name(p->vma);
		if (b) {
			vma_default_backend = b;
		} else {
			printk("cmdline: error: vma=%s: no such index backend (", p->vma);
			for (unsigned i = 0; vma_backends[i]; i++)
				printk("%s%s", i ? ", " : "", vma_backends[i]->name);
			printk("); counted as a failure\n");
			errors++;
		}
	}
	if (p->vmastat)
		vma_default_backend = profile_vma_counted(vma_default_backend);
	printk("vm: VMA index %s%s, merging %s, zero page %s, execute-only memory %s\n",
	       vma_default_backend->name, p->vmastat ? " (operations counted)" : "",
	       vma_merge_enabled ? "on" : "off",
	       mm_zero_page_enabled ? "on" : "off", arch_mmu_exec_only() ? "yes (pku)" : "no");
	printk("vm: transparent huge pages: %s\n", thp_mode_names[thp_mode]);
	printk("vm: faults take %s, MADV_DONTNEED/FREE the mmap_lock for %s\n",
	       mm_fault_lock_vma ? "the VMA's lock when they can (fault_lock=vma)" : "the mmap_lock (fault_lock=mmap)",
	       mm_madv_write_lock ? "writing (madv_lock=write)" : "reading (madv_lock=read)");
	printk("vm: reclaim takes its swap victims from %s\n",
	       vmscan_reclaim_lru ? "the LRU lists (reclaim=lru)" : "each address space's page tables (reclaim=scan)");
	return errors;
}

static struct boot_info boot_info_copy;

__noreturn static void boot_fail_nomem(const char *what, size_t need)
{
	printk("\nboot: not enough memory: %s needs %zu KiB; RAM %zu KiB, %zu KiB reserved.\n"
	       "boot: give the machine more memory (QEMU: -m 128M). Stopping.\n",
	       what, need >> 10, memblock_total_ram() >> 10, memblock_reserved_bytes() >> 10);
	qemu_exit(QEMU_EXIT_NOMEM);
}

static phys_addr_t early_pt_alloc(void)
{
	phys_addr_t pa = memblock_alloc(PAGE_SIZE, PAGE_SIZE);

	if (!pa)
		boot_fail_nomem("a page-table page", PAGE_SIZE);
	return pa;
}

static void reserve_page_aligned(phys_addr_t start, phys_addr_t end)
{
	if (end > start)
		memblock_reserve(ALIGN_DOWN(start, PAGE_SIZE), ALIGN_UP(end, PAGE_SIZE));
}

static void memory_init(const struct boot_info *bi)
{
	static struct mem_range ranges[MEMBLOCK_MAX_REGIONS];
	size_t n, page_bytes;
	phys_addr_t pages_pa;
	pfn_t max_pfn;

	for (size_t i = 0; i < bi->nram; i++)
		memblock_add(bi->ram[i].start, bi->ram[i].end);
	if (memblock_total_ram() == 0)
		boot_fail_nomem("booting", 1UL << 20);
	memblock_reserve(0, 0x100000);          /* real-mode area, BIOS data, and the NULL page */
	reserve_page_aligned((phys_addr_t)__kernel_phys_start, (phys_addr_t)__kernel_phys_end);
	reserve_page_aligned(bi->info.start, bi->info.end);
	for (size_t i = 0; i < bi->nextra; i++)
		reserve_page_aligned(bi->extra[i].start, bi->extra[i].end);
	for (size_t i = 0; i < bi->nmodules; i++)
		reserve_page_aligned(bi->modules[i].start, bi->modules[i].end);

	memblock_set_limit(EARLY_MAP_LIMIT);
	n = memblock_memory(ranges, ARRAY_SIZE(ranges));
	kpgtable_init(ranges, MIN(n, ARRAY_SIZE(ranges)), early_pt_alloc);
	memblock_set_limit(~0UL);

	max_pfn = memblock_end_of_ram() >> PAGE_SHIFT;
#ifdef KASAN
	{
		size_t shadow_bytes = kasan_shadow_bytes(memblock_end_of_ram());
		phys_addr_t shadow_pa = memblock_alloc(shadow_bytes, PAGE_SIZE);

		if (!shadow_pa)
			boot_fail_nomem("the KASAN shadow", shadow_bytes);
		kasan_init(phys_to_virt(shadow_pa), memblock_end_of_ram());
	}
#endif
	page_bytes = ALIGN_UP(max_pfn * sizeof(struct page), PAGE_SIZE);
	pages_pa = memblock_alloc(page_bytes, PAGE_SIZE);
	if (!pages_pa)
		boot_fail_nomem("the struct page array", page_bytes);
	memblock_dump();

	n = memblock_free_ranges(ranges, ARRAY_SIZE(ranges));
	pmm_init(phys_to_virt(pages_pa), max_pfn, ranges, MIN(n, ARRAY_SIZE(ranges)));
	kpgtable_use_pmm();
	printk("pmm: %zu frames (%zu KiB) free of %llu, struct page array %zu KiB\n",
	       pmm_free_frames(), pmm_free_frames() * (PAGE_SIZE >> 10),
	       (unsigned long long)max_pfn, page_bytes >> 10);
	if (pmm_free_frames() * PAGE_SIZE < MIN_FREE_BYTES)
		boot_fail_nomem("running the test suites", MIN_FREE_BYTES);
}

/*
 * The boot tests run in a kernel thread pinned to CPU 0, so that the boot
 * context stays CPU 0's idle task and the tests' own threads (and the
 * waits of the tests) take turns with them as with any task.
 */
struct test_job {
	const char *suites;
	bool profile;
	unsigned failed;
};

static unsigned profile_run(const char *suites);

/*
 * After the suites: every address space still alive passes vma_check, and
 * none is left over from the tests (each test puts the ones it made).
 */
static unsigned final_vm_check(size_t mms_before)
{
	unsigned checked;
	unsigned failed = mm_check_all(&checked) != 0;

	if (failed)
		printk("vm: vma_check failed on one of %u address spaces\n", checked);
	if (mm_live_count() != mms_before) {
		printk("vm: %zu address spaces left over by the tests\n", mm_live_count() - mms_before);
		failed++;
	}
	return failed;
}

static void test_thread(void *arg)
{
	struct test_job *j = arg;
	size_t mms = mm_live_count();

	j->failed = j->profile ? profile_run(j->suites) : ktest_run(j->suites);
	j->failed += final_vm_check(mms);
}

static unsigned run_in_thread(const char *suites, bool profile)
{
	struct test_job j = { suites, profile, 0 };
	struct task *t = kthread_create(test_thread, &j, 0, profile ? "profile" : "ktest");

	if (!t) {
		printk("ktest: no memory for the test thread\n");
		return 1;
	}
	kthread_start(t);
	kthread_join(t);
	return j.failed;
}

/* Run the suites in `suites` under the profiler and print the readprofile table. */
static unsigned profile_run(const char *suites)
{
	unsigned failed;

	printk("# profile: running '%s' under the profiler\n", suites);
	if (profile_start()) {
		printk("# profile: no memory for the counters\n");
		return 1;
	}
	failed = ktest_run(suites);
	profile_stop();
	profile_print(0);
	return failed;
}

/*
 * crash=stack: recurse until the stack runs out, in a kernel thread
 * ("crash-stack"): its stack's guard page (arch/x86_64/kstack.c) turns the
 * overflow into a double fault on its IST stack, reported as a kernel
 * stack overflow in that task.
 */
__attribute__((noinline)) static unsigned long crash_recurse(volatile unsigned long *depth)
{
	volatile char pad[256];

	pad[0] = (char)*depth;
	if (++*depth == 0)              /* never: the stack ends long before */
		return 0;
	return crash_recurse(depth) + pad[0];
}

static void crash_stack_thread(void *arg)
{
	crash_recurse(arg);
}

static void crash_stack(volatile unsigned long *depth)
{
	struct task *t = kthread_create(crash_stack_thread, (void *)depth, 0, "crash-stack");

	if (!t)
		return;
	kthread_start(t);
	kthread_join(t);
}

/*
 * crash=lockorder: two locks against include/lock_order.h (a page-table-lock
 * class lock taken while a pmm-class one is held), after the table's order
 * once, so the checker's report shows both stacks; it panics. Interrupts
 * stay off: a timer tick taking its own lock while the pmm-class lock is
 * held would be reported first (a real inversion, but not this one).
 */
__attribute__((noinline)) static void crash_lock_order(void)
{
	static struct spinlock pt = SPINLOCK_INIT_CLASS("crash_pt", LOCK_CLASS_PT);
	static struct spinlock pmm = SPINLOCK_INIT_CLASS("crash_pmm", LOCK_CLASS_PMM);

	arch_irq_disable();
	spin_lock(&pt);
	spin_lock(&pmm);
	spin_unlock(&pmm);
	spin_unlock(&pt);
	spin_lock(&pmm);
	spin_lock(&pt);
	spin_unlock(&pt);
	spin_unlock(&pmm);
}

/* The crash= option: deliberate fatal errors, to check the reports and exit codes. */
static void crash_on_request(const char *what)
{
	volatile unsigned long depth = 0;
	int *volatile null = NULL;

	printk("crash: deliberately crashing: %s\n", what);
	if (strcmp(what, "null") == 0)
		printk("%d\n", *null);
	else if (strcmp(what, "panic") == 0)
		panic("crash=panic requested on the command line");
	else if (strcmp(what, "bug") == 0)
		BUG_ON(depth == 0);
	else if (strcmp(what, "stack") == 0)
		crash_stack(&depth);
	else if (strcmp(what, "lockorder") == 0)
		crash_lock_order();
	printk("crash: unknown crash=%s (null, panic, bug, stack, lockorder); continuing\n", what);
}

/*
 * One line of boot timings from arch_cycles (x86: the TSC, which QEMU starts at 0 at reset):
 * the firmware and loader (reset to kmain), kmain to usable memory, the
 * timer setup (its calibration waits CALIBRATE_MS of a reference clock). In microseconds of
 * guest time; under -icount shift=0 a microsecond is 1000 instructions.
 */
static void print_boot_timeline(uint64_t entry, uint64_t memory, uint64_t timer)
{
	uint64_t khz = arch_cycles_khz() ? arch_cycles_khz() : 1;

	printk("boot: %llu us reset to kmain, %llu us kmain to memory ready, %llu us timer setup\n",
	       (unsigned long long)(entry * 1000 / khz), (unsigned long long)((memory - entry) * 1000 / khz),
	       (unsigned long long)((timer - memory) * 1000 / khz));
}

/*
 * print_build: which build runs, for whoever reads the log (tools/run keeps
 * it in build/run.log): the default one carries the lock-order checker
 * (include/lockdep.h), whose bookkeeping makes a page fault cost about 2.7
 * times as much; tools/run --release and make bench-linux boot LOCKDEP=0.
 */
static void print_build(void)
{
#ifdef LOCKDEP
	printk("build: debug kernel (lock-order checker on; tools/run --release boots the LOCKDEP=0 one)\n");
#else
	printk("build: release kernel (LOCKDEP=0: no lock-order checker)\n");
#endif
}

/* The loader's information into bi, and the command line's options into kparams. */
static void read_boot_info(uint32_t magic, uint32_t info_phys, struct boot_info *bi)
{
	if (bootinfo_parse(magic, info_phys, bi))
		panic("kmain: no usable boot information (magic %#x)", magic);
	printk("bootinfo: loader %s, command line '%s', %zu module(s)\n", bi->loader,
	       bi->cmdline, bi->nmodules);
	cmdline_parse(&kparams, bi->cmdline);
	kernel_cmdline = bi->cmdline;   /* bi is boot_info_copy: it stays */
}

/*
 * fbcon=hold: keep the screen as it is until a byte arrives on COM1, with
 * interrupts off (so that the timer's console polling leaves the byte):
 * tools/test-fbcon takes its screenshot when this line reaches the serial
 * port, then sends the byte.
 */
static void hold_screen(void)
{
	unsigned long flags;

	if (kparams.fbcon != FBCON_HOLD || !fbcon_active())
		return;
	printk("fbcon: holding the screen until a byte arrives on COM1 (fbcon=hold)\n");
	flags = arch_irq_save();
	while (uart_getc() < 0)
		arch_cpu_relax();
	arch_irq_restore(flags);
}

void kmain(uint32_t magic, uint32_t info_phys);

__noreturn void kmain(uint32_t magic, uint32_t info_phys)
{
	struct boot_info *bi = &boot_info_copy;
	unsigned failed = 0;
	uint64_t cycles_entry = arch_cycles(), cycles_memory;

	percpu_init_boot();
	uart_init();
	gdt_init();
	idt_init();
	cpu_features_init();
	syscall_init();
	printk("\nvmkernel: x86-64, CPU %s, NX %s, 1G pages %s\n", x86_cpu.vendor,
	       x86_cpu.nx ? "yes" : "no", x86_cpu.pdpe1gb ? "yes" : "no");
	print_build();

	read_boot_info(magic, info_phys, bi);
	x86_pku_init(kparams.pku);

	memory_init(bi);
	if (bi->fb.addr && kparams.fbcon != FBCON_OFF)
		fbcon_init(&bi->fb);
	x86_smap_init();
	kstack_area_init();
	slab_init();
	modules_init(bi);
	sched_init();
	failed += apply_vm_params(&kparams);
	profile_configure(kparams.profile_hz, kparams.profile_stacks);
	cycles_memory = arch_cycles();
	timer_init(bi, kparams.acpi, kparams.x2apic);
	cpu_features_report();          /* after timer_init: x2APIC or not */
	ipi_init();
	tlb_init();
	print_boot_timeline(cycles_entry, cycles_memory, arch_cycles());
	arch_irq_enable();
	smp_init(bi, kparams.acpi, kparams.smp);
	virtio_blk_init();
	if (kparams.swap[0] && strcmp(kparams.swap, "off") != 0)
		swap_boot_enable(kparams.swap);
	if (rootfs_init())
		printk("rootfs: the root file system could not be built\n");

	if (kparams.crash[0])
		crash_on_request(kparams.crash);
	ktest_catch_faults();
	if (kparams.ktest_list)
		failed += ktest_list(kparams.ktest);
	else if (strcmp(kparams.ktest, "none") != 0)
		failed += run_in_thread(kparams.ktest, false);
	if (kparams.profile[0] && !profile_user_requested())
		failed += run_in_thread(kparams.profile, true);
	if (!failed && module_count() > 0) {
		arch_streams_init();
		user_init_start();      /* returns only if init cannot start */
	}
	hold_screen();
	qemu_exit(failed || module_count() > 0 ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
}
