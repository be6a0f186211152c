/*
 * VM event counters (Linux's vm_event_item, /proc/vmstat): how often the
 * VM did something since boot, under Linux's names so that Linux's tools
 * (procps vmstat, sar) read them. Kept per CPU and summed when read, so
 * the fault path's count is one add to a line no other CPU writes.
 *
 * Locking: none. Each CPU adds to its own row (a task moved to another CPU
 * in the middle of an add can at worst lose that one count: the rows are
 * for statistics, never for decisions); readers sum the rows as they find
 * them.
 */
#ifndef VMSTAT_H
#define VMSTAT_H

#include "types.h"
#include "arch.h"                   /* arch_cpu_id */

/* Event, Linux name; /proc/vmstat lists them in this order (Linux's, mm/vmstat.c vmstat_text). */
#define VM_EVENT_TABLE(X) \
	X(PSWPIN,           "pswpin")           /* pages read back from swap */ \
	X(PSWPOUT,          "pswpout")          /* pages written to swap */ \
	X(PGACTIVATE,       "pgactivate")       /* pages moved to an active LRU list (include/lru.h) */ \
	X(PGDEACTIVATE,     "pgdeactivate")     /* pages moved from an active list to an inactive one */ \
	X(PGFAULT,          "pgfault")          /* page faults (handle_mm_fault calls) */ \
	X(PGMAJFAULT,       "pgmajfault")       /* faults that had to read from a disk */ \
	X(PGLAZYFREE,       "pglazyfree")       /* pages MADV_FREE marked lazily free */ \
	X(PGSTEAL_KSWAPD,   "pgsteal_kswapd")   /* pages reclaimed by the background thread */ \
	X(PGSTEAL_DIRECT,   "pgsteal_direct")   /* pages reclaimed by an allocating task */ \
	X(PGSCAN_KSWAPD,    "pgscan_kswapd")    /* pages looked at by the background thread */ \
	X(PGSCAN_DIRECT,    "pgscan_direct")    /* pages looked at by an allocating task */ \
	X(PGLAZYFREED,      "pglazyfreed")      /* lazily freed pages dropped by reclaim */ \
	X(OOM_KILL,         "oom_kill")         /* processes killed for want of memory */ \
	X(ALLOCSTALL,       "allocstall_normal") /* direct reclaims (an allocation waited) */ \
	X(PAGEOUTRUN,       "pageoutrun")       /* background reclaim runs (kswapd woken) */ \
	X(THP_FAULT_ALLOC,  "thp_fault_alloc")  /* faults that mapped a new huge page */ \
	X(THP_FAULT_FALLBACK, "thp_fault_fallback") /* THP faults with no order-9 block: 4 KiB */ \
	X(THP_COLLAPSE_ALLOC, "thp_collapse_alloc") /* order-9 blocks taken by MADV_COLLAPSE, khugepaged */ \
	X(THP_COLLAPSE_ALLOC_FAILED, "thp_collapse_alloc_failed") /* ... and none free for it */ \
	X(THP_SPLIT_PMD,    "thp_split_pmd")    /* 2 MiB leaves split into 512 entries (the huge \
	                                         *   zero page's too; the arch layer's huge_split) */ \
	X(THP_ZERO_PAGE_ALLOC, "thp_zero_page_alloc") /* huge zero pages allocated */ \
	X(THP_ZERO_PAGE_ALLOC_FAILED, "thp_zero_page_alloc_failed") /* ... and no order-9 block for one */ \
	X(SWAP_RA,          "swap_ra")          /* pages a swap-in fault read ahead (mm/swap_pte.c) */ \
	X(SWAP_RA_HIT,      "swap_ra_hit")      /* ... of which found used afterwards */

#define VM_EVENT_ENUM(id, name) VM_##id,
enum vm_event { VM_EVENT_TABLE(VM_EVENT_ENUM) NR_VM_EVENTS };
#undef VM_EVENT_ENUM

/* One CPU's events, a cache line of their own (read only through vm_event_sum). */
struct vm_event_row {
	unsigned long n[NR_VM_EVENTS];
} __attribute__((aligned(64)));

extern struct vm_event_row vm_events[NR_CPUS];

/* count_vm_events: add n to event e on the running CPU. Any context (inline: the fault path counts one). */
static inline void count_vm_events(enum vm_event e, unsigned long n)
{
	__atomic_add_fetch(&vm_events[arch_cpu_id()].n[e], n, __ATOMIC_RELAXED);
}

static inline void count_vm_event(enum vm_event e)
{
	count_vm_events(e, 1);
}

/* vm_event_sum: event e summed over the CPUs. */
unsigned long vm_event_sum(enum vm_event e);

/*
 * Gauges (Linux's node and zone stat items): how many pages are in a state
 * now. Changed with atomic adds wherever a page enters or leaves the state.
 */
#define VM_STAT_TABLE(X) \
	X(NR_INACTIVE_ANON, "nr_inactive_anon") /* pages on (or queued for) each LRU list, \
	                                         *   in enum lru_list's order (include/lru.h) */ \
	X(NR_ACTIVE_ANON,   "nr_active_anon")   \
	X(NR_INACTIVE_FILE, "nr_inactive_file") \
	X(NR_ACTIVE_FILE,   "nr_active_file")   \
	X(NR_ANON_PAGES,    "nr_anon_pages")    /* private anonymous pages allocated */ \
	X(NR_LAZYFREE,      NULL)               /* of which marked lazily free (Linux keeps them \
	                                         *   on the inactive file LRU: no line of its own) */ \
	X(NR_SHMEM,         "nr_shmem")         /* page-cache pages in memory (all shmem here: \
	                                         *   tmpfs, memfd, shared anonymous; not those in swap) */

#define VM_STAT_ENUM(id, name) VM_##id,
enum vm_stat { VM_STAT_TABLE(VM_STAT_ENUM) NR_VM_STATS };
#undef VM_STAT_ENUM

extern long vm_stats[NR_VM_STATS];     /* read only through vm_stat_read */

/* mod_vm_stat: add d (may be negative) to gauge s. Any context (inline: each new page counts two). */
static inline void mod_vm_stat(enum vm_stat s, long d)
{
	__atomic_add_fetch(&vm_stats[s], d, __ATOMIC_RELAXED);
}
/* vm_stat_read: gauge s now (never below 0). */
unsigned long vm_stat_read(enum vm_stat s);

/*
 * vmstat_format: the text of /proc/vmstat ("name value" lines: the free
 * pages and the gauges Linux has first, then the events, in Linux's order) into
 * buf of size bytes. Returns the full length (more than size: truncated).
 */
size_t vmstat_format(char *buf, size_t size);

#endif
