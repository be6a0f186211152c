/*
 * The kernel address sanitizer's shadow, checks and reports
 * (include/kasan.h; Linux's mm/kasan/generic.c and report.c in spirit, in
 * gcc's outline mode: every instrumented access calls a function here).
 *
 * Built only with KASAN=1, and never instrumented itself (mk/kernel.mk's
 * KASAN_NOINSTR), so nothing here is checked and the shadow can be read
 * and written freely.
 *
 * Locking: shadow bytes are written by whoever owns the memory they
 * describe (the allocator handing it out or taking it back); checks read
 * them without a lock, as the accesses they precede do. The report state
 * is guarded by report_busy (taken with interrupts off); report_cpu keeps a
 * report's own printing (which is instrumented code) from reporting again.
 */
#ifdef KASAN
#include "kasan.h"
#include "lockless.h"
#include "arch.h"
#include "kernel.h"
#include "ksyms.h"
#include "lockdep.h"
#include "printk.h"
#include "slab.h"
#include "task.h"
#include "x86.h"

static uint8_t *shadow;
static uintptr_t covered_end;           /* DIRECT_MAP_BASE + RAM end */
static bool ready;
/*
 * One report at a time. Not a spinlock: a report can come from any
 * context, with any lock held, and the lock checker would see a new order.
 */
static int report_busy;
static int report_cpu = -1;
static unsigned long nreports;
static unsigned expected;
static struct kasan_report_info last;

static unsigned long report_lock(void)
{
	unsigned long flags = arch_irq_save();

	while (__atomic_exchange_n(&report_busy, 1, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	return flags;
}

static void report_unlock(unsigned long flags)
{
	smp_store_release(&report_busy, 0);
	arch_irq_restore(flags);
}

static inline uint8_t *shadow_of(uintptr_t a)
{
	return shadow + ((a - DIRECT_MAP_BASE) >> 3);
}

static inline bool covered(uintptr_t a, size_t size)
{
	return a >= DIRECT_MAP_BASE && a < covered_end && size <= covered_end - a;
}

size_t kasan_shadow_bytes(phys_addr_t ram_end)
{
	return ALIGN_UP(ram_end >> 3, PAGE_SIZE);
}

void kasan_init(void *sh, phys_addr_t ram_end)
{
	size_t n = kasan_shadow_bytes(ram_end);

	shadow = sh;
	for (size_t i = 0; i < n; i++)
		shadow[i] = 0;
	covered_end = DIRECT_MAP_BASE + ram_end;
	smp_store_release(&ready, true);
	printk("kasan: %zu KiB of shadow for %llu MiB of RAM\n", n >> 10,
	       (unsigned long long)(ram_end >> 20));
}

bool kasan_enabled(void)
{
	return smp_load_acquire(&ready);
}

void kasan_poison(const void *addr, size_t size, uint8_t code)
{
	uintptr_t a = (uintptr_t)addr;

	if (!ready || !covered(a, size))
		return;
	for (uintptr_t g = a; g < a + size; g += 8)
		*shadow_of(g) = code;
}

void kasan_unpoison(const void *addr, size_t size)
{
	uintptr_t a = (uintptr_t)addr;
	size_t whole = size & ~(size_t)7;

	if (!ready || !covered(a, size))
		return;
	for (uintptr_t g = a; g < a + whole; g += 8)
		*shadow_of(g) = 0;
	if (size & 7)
		*shadow_of(a + whole) = (uint8_t)(size & 7);
}

/* The shadow code an access of [a, a + size) hits, or 0 when every byte is accessible. */
static uint8_t first_bad(uintptr_t a, size_t size)
{
	uintptr_t last = a + size - 1;

	for (uintptr_t g = a & ~7UL; g <= last; g += 8) {
		uint8_t s = *shadow_of(g);

		if (s == 0)
			continue;
		if (s >= 0x80)
			return s;
		/* 1..7: bytes [g, g + s) are accessible; the access reaches up to min(last, g + 7) */
		if ((last < g + 7 ? last : g + 7) >= g + s)
			return s;
	}
	return 0;
}

static const char *kind_of(uint8_t code)
{
	switch (code) {
	case KASAN_PAGE_FREE:    return "use-after-free (page)";
	case KASAN_SLAB_FREE:    return "use-after-free";
	case KASAN_SLAB_REDZONE: return "slab-out-of-bounds";
	default:                 return "out-of-bounds";
	}
}

static void print_stack(const char *what, int pid, const uintptr_t *stack)
{
	unsigned n = 0;

	while (n < KASAN_STACK_DEPTH && stack[n])
		n++;
	printk("%s by task %d:\n", what, pid);
	arch_print_stack(stack, n);
}

/* The slab object holding a, with its stacks, into the report and on the console. */
static void report_object(uintptr_t a)
{
	struct kasan_slot_meta *meta;
	void *obj;

	if (!slab_object_of((const void *)a, &obj, &meta))
		return;
	printk("The address is %ld bytes into an object at %p\n", (long)(a - (uintptr_t)obj), obj);
	if (meta->alloc_stack[0]) {
		last.had_alloc_stack = true;
		for (unsigned i = 0; i < KASAN_STACK_DEPTH; i++)
			last.alloc_stack[i] = meta->alloc_stack[i];
		print_stack("Allocated", meta->alloc_pid, meta->alloc_stack);
	}
	if (meta->free_stack[0]) {
		last.had_free_stack = true;
		for (unsigned i = 0; i < KASAN_STACK_DEPTH; i++)
			last.free_stack[i] = meta->free_stack[i];
		print_stack("Freed", meta->free_pid, meta->free_stack);
	}
}

static __attribute__((noinline)) void report(uintptr_t a, size_t size, bool write, uint8_t code, uintptr_t ip)
{
	uintptr_t trace[16];
	unsigned long flags = report_lock();
	const char *fn = ksyms_lookup(ip, NULL, NULL);
	const struct task *t = current;
	bool fatal;

	WRITE_ONCE(report_cpu, (int)arch_cpu_id());
	nreports++;
	last = (struct kasan_report_info){ .addr = a, .size = size, .write = write, .shadow = code };
	printk("==================================================================\n");
	printk("BUG: KASAN: %s in %s\n", kind_of(code), fn ? fn : "?");
	printk("%s of size %zu at addr %p by task %s/%d\n", write ? "Write" : "Read", size, (void *)a,
	       t ? t->comm : "boot", t ? t->pid : 0);
	arch_print_stack(trace, arch_stack_trace(trace, ARRAY_SIZE(trace)));
	if (code == KASAN_SLAB_FREE || code == KASAN_SLAB_REDZONE || code < 8)
		report_object(a);
	printk("==================================================================\n");
	fatal = expected == 0;
	if (!fatal)
		expected--;
	WRITE_ONCE(report_cpu, -1);
	report_unlock(flags);
	if (fatal)
		panic("KASAN: bad memory access (see the report above)");
}

static inline void check(uintptr_t a, size_t size, bool write, uintptr_t ip)
{
	uint8_t code;

	if (!ready || size == 0 || !covered(a, size) || READ_ONCE(report_cpu) == (int)arch_cpu_id())
		return;
	code = first_bad(a, size);
	if (code)
		report(a, size, write, code, ip);
}

void kasan_check_range(const void *addr, size_t size, bool write)
{
	check((uintptr_t)addr, size, write, (uintptr_t)__builtin_return_address(0));
}

void kasan_save_stack(uintptr_t stack[KASAN_STACK_DEPTH])
{
	uintptr_t trace[KASAN_STACK_DEPTH + 2];
	unsigned n = arch_stack_trace(trace, ARRAY_SIZE(trace));

	/* trace[0..1] return into this file (kasan_save_stack's and kasan_slab_*'s callers): skipped */
	for (unsigned i = 0; i < KASAN_STACK_DEPTH; i++)
		stack[i] = i + 2 < n ? trace[i + 2] : 0;
}

void kasan_slab_new(void *start, size_t bytes)
{
	kasan_poison(start, bytes, KASAN_SLAB_REDZONE);
}

void kasan_slab_alloc(void *obj, size_t size, size_t room, struct kasan_slot_meta *meta)
{
	kasan_poison(obj, room, KASAN_SLAB_REDZONE);
	kasan_unpoison(obj, size);
	kasan_save_stack(meta->alloc_stack);
	meta->alloc_pid = current ? current->pid : 0;
	for (unsigned i = 0; i < KASAN_STACK_DEPTH; i++)
		meta->free_stack[i] = 0;
}

void kasan_slab_free(void *obj, size_t room, struct kasan_slot_meta *meta)
{
	kasan_poison(obj, room, KASAN_SLAB_FREE);
	kasan_save_stack(meta->free_stack);
	meta->free_pid = current ? current->pid : 0;
}

void kasan_expect_reports(unsigned n)
{
	unsigned long flags = report_lock();

	expected = n;
	report_unlock(flags);
}

unsigned long kasan_reports(void)
{
	return smp_load_acquire(&nreports);
}

const struct kasan_report_info *kasan_last_report(void)
{
	return &last;
}

/* ---- the compiler's entry points (-fsanitize=kernel-address, outline) */

#define ASAN_SIZED(n)                                                                   \
	void __asan_load##n##_noabort(uintptr_t a);                                     \
	void __asan_load##n##_noabort(uintptr_t a)                                      \
	{                                                                               \
		check(a, n, false, (uintptr_t)__builtin_return_address(0));             \
	}                                                                               \
	void __asan_store##n##_noabort(uintptr_t a);                                    \
	void __asan_store##n##_noabort(uintptr_t a)                                     \
	{                                                                               \
		check(a, n, true, (uintptr_t)__builtin_return_address(0));              \
	}
ASAN_SIZED(1)
ASAN_SIZED(2)
ASAN_SIZED(4)
ASAN_SIZED(8)
ASAN_SIZED(16)

void __asan_loadN_noabort(uintptr_t a, size_t size);
void __asan_loadN_noabort(uintptr_t a, size_t size)
{
	check(a, size, false, (uintptr_t)__builtin_return_address(0));
}

void __asan_storeN_noabort(uintptr_t a, size_t size);
void __asan_storeN_noabort(uintptr_t a, size_t size)
{
	check(a, size, true, (uintptr_t)__builtin_return_address(0));
}

/* Before a noreturn call: nothing to unpoison (no stack instrumentation). */
void __asan_handle_no_return(void);
void __asan_handle_no_return(void)
{
}
#endif
