/*
 * The kernel address sanitizer (KASAN=1 builds; kernel/mm/kasan.c,
 * kernel/mm/kasan_quarantine.c). gcc's -fsanitize=kernel-address makes
 * every load and store of the instrumented code call __asan_loadN /
 * __asan_storeN first; those look up the shadow byte of the address and
 * report an access to memory that is not allocated.
 *
 * Shadow: one byte for every 8 bytes of the direct map (all of RAM, at
 * DIRECT_MAP_BASE), taken from memblock at boot (RAM / 8). 0: all 8
 * bytes accessible; 1..7: only the first k; a KASAN_* code below: none,
 * and why. Addresses outside the direct map (the kernel image, stacks,
 * MMIO, user memory) are not checked.
 *
 * Who poisons what: the buddy allocator marks free blocks KASAN_PAGE_FREE
 * and unpoisons what it hands out; the slab allocator unpoisons exactly
 * the bytes a caller asked for (kmalloc's size, a cache's object size),
 * marks the rest of the slot KASAN_SLAB_REDZONE, and on free marks the
 * object KASAN_SLAB_FREE and holds it in a quarantine (FIFO, bounded) so
 * that a use after free still finds it poisoned for a while. The slot's
 * red zone also keeps the allocation and free stacks, which a report
 * prints.
 *
 * A bad access prints a report (kind, address, size, the access's stack,
 * and for a slab object the stacks that allocated and freed it) and then
 * panics, unless a test armed kasan_expect_report() for one report.
 *
 * Without KASAN every function here is an empty inline.
 */
#ifndef KASAN_H
#define KASAN_H

#include "types.h"

/* Shadow codes (negative as int8): why the 8 bytes are not accessible. */
#define KASAN_PAGE_FREE     0xff    /* a free buddy block */
#define KASAN_SLAB_REDZONE  0xfc    /* past the object in its slot, or slab metadata */
#define KASAN_SLAB_FREE     0xfb    /* a freed object (in the quarantine or on a freelist) */

/* Frames kept for an allocation or a free (the allocator's own first). */
#define KASAN_STACK_DEPTH 8

/* What a slab slot keeps past its object under KASAN (inside the red zone). */
struct kasan_slot_meta {
	uintptr_t alloc_stack[KASAN_STACK_DEPTH];
	uintptr_t free_stack[KASAN_STACK_DEPTH];
	int alloc_pid, free_pid;
};

/* The last report (kasan_last_report), for the sanitizer's own tests. */
struct kasan_report_info {
	uintptr_t addr;
	size_t size;
	bool write;
	uint8_t shadow;                 /* the shadow code that was hit */
	bool had_alloc_stack, had_free_stack;
	uintptr_t alloc_stack[KASAN_STACK_DEPTH];
	uintptr_t free_stack[KASAN_STACK_DEPTH];
};

#ifdef KASAN

/*
 * kasan_init: use the shadow at shadow (zeroed here; RAM / 8 bytes, in the
 * direct map) for the direct map of [0, ram_end). Before pmm_init: from
 * here on the buddy allocator poisons what it frees.
 */
void kasan_init(void *shadow, phys_addr_t ram_end);
/* kasan_shadow_bytes: how much shadow a kernel with ram_end bytes of RAM needs. */
size_t kasan_shadow_bytes(phys_addr_t ram_end);
/* kasan_poison: mark [addr, addr + size) (8-byte aligned start) inaccessible with code. */
void kasan_poison(const void *addr, size_t size, uint8_t code);
/* kasan_unpoison: mark [addr, addr + size) accessible (the tail of the last 8 bytes stays not). */
void kasan_unpoison(const void *addr, size_t size);
/* kasan_check_range: check an access the compiler did not see (string functions, copies). */
void kasan_check_range(const void *addr, size_t size, bool write);
/* kasan_save_stack: the caller's return addresses, innermost first, zero-filled. */
void kasan_save_stack(uintptr_t stack[KASAN_STACK_DEPTH]);

/*
 * Slab hooks (mm/slab.c): meta is the slot's kasan_slot_meta. After an
 * allocation of size bytes at obj (size <= the slot's object room);
 * before a free (false: a double free, reported, do not free).
 */
void kasan_slab_alloc(void *obj, size_t size, size_t room, struct kasan_slot_meta *meta);
void kasan_slab_free(void *obj, size_t room, struct kasan_slot_meta *meta);
/* A new slab's slots: all red zone until handed out. */
void kasan_slab_new(void *start, size_t bytes);
/* mm/slab.c: the slab object containing addr (its start, its metadata), or false. */
bool slab_object_of(const void *addr, void **obj, struct kasan_slot_meta **meta);

/*
 * Quarantine (kernel/mm/kasan_quarantine.c): a freed object waits here,
 * poisoned, before its slot is reused. put: queue the slab object obj
 * (its link is written into the object); the oldest are released through
 * slab_release_object once the quarantine holds more than its budget.
 * drain: release everything (before a leak count or a cache's
 * destruction).
 */
void kasan_quarantine_put(void *obj);
void kasan_quarantine_drain(void);
/* mm/slab.c: put a quarantined object back on its slab's freelist. */
void slab_release_object(void *obj);
/* mm/slab.c: the room of the slab object obj (its cache's object size, rounded up to 8). */
size_t slab_object_room(const void *obj);

/* Tests: let the next n reports through without a panic (0: every report panics again). */
void kasan_expect_reports(unsigned n);
/* Reports since boot; the last one (valid when kasan_reports() grew). */
unsigned long kasan_reports(void);
const struct kasan_report_info *kasan_last_report(void);
/* True once kasan_init ran. */
bool kasan_enabled(void);

#define kasan_meta_size() sizeof(struct kasan_slot_meta)

#else

static inline void kasan_poison(const void *addr, size_t size, uint8_t code) { (void)addr; (void)size; (void)code; }
static inline void kasan_unpoison(const void *addr, size_t size) { (void)addr; (void)size; }
static inline void kasan_check_range(const void *addr, size_t size, bool write)
{
	(void)addr; (void)size; (void)write;
}
static inline bool kasan_enabled(void) { return false; }
#define kasan_meta_size() ((size_t)0)

#endif
#endif
