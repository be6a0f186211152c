/*
 * Page reclaim under memory pressure (Linux mm/vmscan.c, for what can be
 * reclaimed here: clean lazily freed anonymous pages, MADV_FREE's, then,
 * with a swap area on, unmapped tmpfs/memfd pages (dropped when clean,
 * swapped when dirty, mm/shmem_swap.c) and cold private anonymous pages
 * written to swap, mm/swap_pte.c).
 *
 * Lazily freed pages are found the way Linux 2.4's swap_out found pages:
 * reclaim walks the page tables of every address space (mm/mm.c's list),
 * each from where its clock hand stopped last, and gives a page whose
 * accessed bit is set a second chance. Swap victims come from the LRU
 * lists (include/lru.h, mm/vmscan_lru.c: Linux's shrink_inactive_list and
 * shrink_active_list): the tail of the inactive anonymous list, each
 * page's references tested through the reverse map (include/rmap.h), a
 * page referenced once kept, one referenced again promoted (the default,
 * reclaim=lru; with reclaim=scan the page-table clock finds them
 * instead), and the unmapped shmem pages there with them. Reclaim
 * stops once it has freed what was asked. A page that fork shares is
 * unmapped from every address space at once through the reverse map.
 *
 * Who reclaims (the pmm.h watermarks):
 *   - kswapd, a kernel thread (kernel/mm/kswapd.c), woken when a fault leaves
 *     fewer free frames than the low watermark; it reclaims until the
 *     high watermark or until nothing more can be had (kswapd_balance).
 *     After a run that freed nothing it is not woken again until some
 *     reclaim frees a page (Linux's kswapd_failures);
 *   - the faulting task itself when a user page cannot be had (below the
 *     min watermark: pmm's GFP_USER): handle_mm_fault reclaims (direct
 *     reclaim) and retries before it answers FAULT_OOM; only then does the
 *     OOM killer (kernel/mm/oom_kill.c) choose a process to kill.
 *
 * Locking: callers hold no mmap_lock or spinning lock. Direct reclaim only
 * try-locks each address space's mmap_lock (as the multi-gen LRU's walk
 * does): it runs from a fault, perhaps inside a system call, and never
 * waits for an address space whose writer may itself be short of memory;
 * kswapd waits for it. pt_lock is held while a range is scanned. The
 * reverse map only try-locks.
 */
#ifndef VMSCAN_H
#define VMSCAN_H

#include "types.h"
#include "pmm.h"                    /* vmscan_check_low reads the free frames inline */

enum reclaim_who { RECLAIM_DIRECT, RECLAIM_KSWAPD };

/*
 * mm_reclaim: free up to want frames from every address space, counting
 * pgscan_* / pgsteal_* / pglazyfreed for who. Two rounds of the clock
 * (lazily freed pages) and two of the LRU lists (swap) at most. Returns the frames freed. No lock held; may sleep (kswapd).
 */
unsigned long mm_reclaim(unsigned long want, enum reclaim_who who);

/*
 * mm_reclaim_direct: an allocating task found no user page: reclaim up
 * to the high watermark (allocstall_normal). True when anything was freed,
 * so the allocation is worth retrying. No spinning lock held; with
 * may_wait the caller holds no lock at all (a fault between its tries),
 * and an address space whose mmap_lock someone holds (kswapd reclaiming
 * it) is waited for instead of skipped.
 */
bool mm_reclaim_direct(bool may_wait);

/*
 * kswapd_balance: kswapd's work once woken (Linux balance_pgdat): reclaim
 * until the high watermark or until a round frees nothing. Returns the
 * frames freed. No lock held; may sleep.
 */
unsigned long kswapd_balance(void);

/*
 * mm_available_frames: /proc/meminfo's MemAvailable (Linux
 * si_mem_available): free frames above the high watermark plus what
 * reclaim could take without swap (lazily freed pages, which Linux keeps
 * on the inactive file list and counts as page cache: less half of them
 * or the low watermark, whichever is smaller).
 */
unsigned long mm_available_frames(void);

/*
 * vmscan_reclaim_lru: the kernel option reclaim=lru (the default; reclaim=scan: false):
 * reclaim's swap rounds take their victims from the LRU lists' tails
 * (mm/vmscan_lru.c) instead of walking each address space's page tables
 * with a clock hand. Set once at boot (and by tests of the LRU's order).
 */
extern bool vmscan_reclaim_lru;

/*
 * vmscan_wake_kswapd: set by the kernel once kswapd runs (kernel/mm/kswapd.c;
 * NULL on the host and before then). vmscan_check_low calls it when free
 * frames are below the low watermark; call with no spinning lock held.
 */
extern void (*vmscan_wake_kswapd)(void);
/* vmscan_below_low: vmscan_check_low's wake (free frames were below low). */
void vmscan_below_low(void);

/* Wake kswapd if the free frames are below the low watermark (inline: every fault checks). */
static inline void vmscan_check_low(void)
{
	if (__builtin_expect(pmm_free_frames() < pmm_watermark(WMARK_LOW), 0))
		vmscan_below_low();
}

/*
 * kswapd_start (kernel/mm/kswapd.c): start the background reclaim thread and
 * set vmscan_wake_kswapd. 0, or -ENOMEM (reclaim is then direct only).
 */
int kswapd_start(void);

#endif
