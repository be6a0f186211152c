/*
 * The user page-table interface between mm/ and the architecture. mm/ never
 * sees a PTE bit: it asks for pages to be mapped with arch-independent
 * permissions and walks present entries through one visitor primitive that
 * can keep, change or clear each entry (unmap, mprotect, fork's
 * write-protect, mincore and lookups are all walks).
 *
 * Implemented by arch/x86_64 (real 4-level tables; the kernel half is shared
 * by every address space) and arch/hosted (the same radix format walked in
 * software over simulated RAM, so mm/ fault and fork logic runs in host tests).
 *
 * Locking: callers serialize changes to one address space's tables (mm/
 * holds mmap_lock for write, or for read plus the mm's page-table lock).
 * The functions take no lock themselves.
 */
#ifndef ARCH_MMU_H
#define ARCH_MMU_H

#include "types.h"

/* Permissions of a user mapping. On x86 every present user page is readable:
 * MMU_WRITE implies readable and MMU_EXEC without NX support is readable too. */
#define MMU_READ     0x01
#define MMU_WRITE    0x02
#define MMU_EXEC     0x04
#define MMU_PROT_MASK (MMU_READ | MMU_WRITE | MMU_EXEC)
/*
 * No permission bit at all (PROT_NONE) is a valid prot for map and UPDATE:
 * the entry keeps its frame but the hardware treats it as not present
 * (Linux's PROT_NONE PTEs); walks and queries still report it, with no
 * MMU_READ/WRITE/EXEC in its state.
 */
/*
 * Whether MMU_EXEC without MMU_READ/MMU_WRITE gives an execute-only page
 * (x86: with protection keys, as Linux's PROT_EXEC-only mappings; without
 * them every present user page is readable). mm/ asks so that faults on
 * such pages follow the hardware's rule.
 */
bool arch_mmu_exec_only(void);

/* Hardware state, reported by walks (and clearable through them). */
#define MMU_ACCESSED 0x10
#define MMU_DIRTY    0x20

struct arch_mmu;                  /* one address space's page tables; opaque */

/* A new address space: empty user half, shared kernel half. NULL on -ENOMEM. */
struct arch_mmu *arch_mmu_create(void);

/*
 * Free the page-table pages of m. Every user mapping must already have been
 * cleared (mm/ unmaps and releases the frames first); a leftover mapping is
 * a kernel bug and panics.
 */
void arch_mmu_destroy(struct arch_mmu *m);

/* Make m the address space of the running CPU (NULL: kernel tables only). */
void arch_mmu_activate(struct arch_mmu *m);

/*
 * Map the 4 KiB page at user address va to frame pa with prot (MMU_* bits),
 * replacing any existing entry (the caller flushes the TLB when it replaces
 * a present entry, and releases the old frame). Allocates page-table pages
 * as needed: 0, or -ENOMEM with nothing changed.
 */
int arch_mmu_map(struct arch_mmu *m, uintptr_t va, phys_addr_t pa, unsigned prot);

/*
 * Look up va: 0 with *pa and *state (MMU_* permission and state bits) if
 * an entry with a frame is there (PROT_NONE ones included); -EFAULT when
 * the entry is a guard marker (see below; *pa and *state untouched);
 * -ENOENT when there is none.
 */
int arch_mmu_query(struct arch_mmu *m, uintptr_t va, phys_addr_t *pa, unsigned *state);

/*
 * Guard markers (Linux's PTE_MARKER_GUARD, MADV_GUARD_INSTALL): an entry
 * without a frame that the hardware treats as not present, so that every
 * access faults; mm/ then refuses the fault. Walks (arch_mmu_walk) never
 * show them and never clear them: they survive zaps, mprotect and
 * MADV_FREE until removed with arch_mmu_walk_guards. Their page-table
 * pages count as in use (arch_mmu_destroy panics on a leftover marker, as
 * on a leftover mapping).
 *
 * arch_mmu_set_guard: put a marker at va, whose entry must be empty or a
 * marker already (a mapped page there is a kernel bug and panics).
 * Allocates page-table pages as needed: 0, or -ENOMEM with nothing changed.
 */
int arch_mmu_set_guard(struct arch_mmu *m, uintptr_t va);

/* Called for each guard marker in address order: MMU_KEEP or MMU_CLEAR (MMU_UPDATE is a bug). */
typedef enum mmu_action (*mmu_guard_fn)(void *ctx, uintptr_t va);

/*
 * Walk the guard markers of [start, end) (page aligned, user half) in
 * address order, removing those the visitor clears and freeing page-table
 * pages left empty. Returns the number of markers visited. Never
 * allocates, never fails; no TLB work (a not-present entry is never cached).
 */
unsigned long arch_mmu_walk_guards(struct arch_mmu *m, uintptr_t start, uintptr_t end,
				   mmu_guard_fn visit, void *ctx);

/* What a visitor wants done with the entry it was shown. */
enum mmu_action {
	MMU_KEEP,                 /* leave the entry as it is */
	MMU_UPDATE,               /* rewrite it with *state (permission bits; ACCESSED/DIRTY as given) */
	MMU_CLEAR,                /* remove it */
};

/* Called for each present entry in address order with its frame and current state. */
typedef enum mmu_action (*mmu_visit_fn)(void *ctx, uintptr_t va, phys_addr_t pa, unsigned *state);

/*
 * Walk the present 4 KiB entries of [start, end) (page aligned, user half)
 * in address order, applying each visitor's verdict. Page-table pages left
 * empty by MMU_CLEAR are freed. TLB entries of updated or cleared pages are
 * invalidated before the function returns. Returns the number of present
 * entries visited. Never allocates, never fails.
 */
unsigned long arch_mmu_walk(struct arch_mmu *m, uintptr_t start, uintptr_t end,
			    mmu_visit_fn visit, void *ctx);

/*
 * Invalidate the TLB entry of the page at va in m (after arch_mmu_map
 * replaced a present entry). Nothing to do when m is not active.
 */
void arch_mmu_flush_page(struct arch_mmu *m, uintptr_t va);

/* Invalidate every user TLB entry of m on this CPU (and, with SMP, wherever m is active). */
void arch_mmu_flush_all(struct arch_mmu *m);

/* Page-table pages m now uses (the root included): for leak checks and statistics. */
size_t arch_mmu_table_pages(const struct arch_mmu *m);

/* Physical address of m's root table (x86: the CR3 value), for tests and debugging. */
phys_addr_t arch_mmu_root(const struct arch_mmu *m);

/* Receives one line of a dump (no newline; the buffer is reused after the call). */
typedef void (*mmu_dump_fn)(void *arg, const char *line);

/*
 * arch_mmu_dump: describe m's page-table tree over [start, end) as text,
 * one line per present entry (the format: arch/x86_64/ptdump.c, and the
 * page-table lab, docs/labs/pgtbl.md), each passed to emit. Returns the
 * number of leaf entries described. For debugging (vmk_vmdump, the gdb
 * kit) and tests; the caller keeps the tables from changing.
 */
unsigned long arch_mmu_dump(struct arch_mmu *m, uintptr_t start, uintptr_t end, mmu_dump_fn emit,
			    void *arg);

#endif
