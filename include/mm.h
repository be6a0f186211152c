/*
 * An address space (Linux's mm_struct): the VMA index, the map count and
 * its limit, the merge switch, the bases of free-area search and the
 * mmap_lock (what the VMA layer needs), then the page tables, counters, brk
 * and stack bases; and the public calls on it: faults, fork and the VM
 * system calls' cores (second half of this file). Append fields, document
 * each one with the lock that protects it. The VMA layer itself is private
 * to mm/ (mm/vma_internal.h).
 *
 * Lock legend for the fields below:
 *   [mmap_lock]  read for lookups, write for any change (Linux's mmap_lock)
 *   [init]       set by mm_vma_init (or by the creator before the first
 *                mapping) and constant afterwards
 *
 * The VMA operations on an mm (mm/vma.c, declared below) follow Linux
 * 6.18's mm/vma.c rules for merging and splitting; mm/vma.c says which
 * Linux function each rule mirrors.
 */
#ifndef MM_H
#define MM_H

#include "vma.h"
#include "spinlock.h"
#include "list.h"
#include "vm_object.h"
#include "arch_mmu.h"
#include "arch_mmu_debug.h"      /* mmu_dump_fn (mm_dump) */

struct arch_mmu;

/* Top of user space: Linux x86-64 with 4-level paging (TASK_SIZE_MAX). */
#define TASK_SIZE          0x00007ffffffff000UL
/*
 * Lowest address a mapping may use: Linux's vm.mmap_min_addr default
 * (CONFIG_DEFAULT_MMAP_MIN_ADDR = 65536 on x86). Free-area search never
 * returns anything below it; a hint below it is raised to it.
 */
#define MMAP_MIN_ADDR      0x10000UL
/*
 * Default top of the top-down mmap area: Linux's mmap_base() without
 * randomization, TASK_SIZE minus the minimum stack gap of 128 MiB (the 8 MiB
 * stack rlimit plus the 1 MiB guard gap is below the minimum). Gives the
 * familiar 0x7ffff7fff000 of Linux with ASLR off.
 */
#define MMAP_BASE_DEFAULT  (TASK_SIZE - (128UL << 20))
/* Bottom-up base (Linux TASK_UNMAPPED_BASE = PAGE_ALIGN(TASK_SIZE / 3)). */
#define TASK_UNMAPPED_BASE ALIGN_UP(TASK_SIZE / 3, PAGE_SIZE)
/* Linux's stack_guard_gap: 256 pages kept free below a VM_GROWSDOWN VMA. */
#define STACK_GUARD_GAP    (256UL << PAGE_SHIFT)
/* Linux's vm.max_map_count default (DEFAULT_MAX_MAP_COUNT). */
#define DEFAULT_MAX_MAP_COUNT 65530

/*
 * The mmap_lock: a sleeping, fair reader-writer semaphore (include/rwsem.h,
 * Linux's mmap_lock rw_semaphore), class MMAP of include/lock_order.h. Page
 * faults and lookups take it for reading, every change of the VMA set for
 * writing; waiters sleep in one FIFO queue. Not recursive: a holder must
 * not take it again, in either mode. Its counters (read_acquired,
 * write_acquired, read_contended, write_contended) feed the lock
 * statistics of the 2007 experiment.
 *
 *   mmap_read_lock(mm) / mmap_read_unlock(mm), mmap_read_trylock(mm)
 *   mmap_write_trylock(mm) (khugepaged: never waits for a program)
 *   mmap_write_lock(mm) / mmap_write_unlock(mm)
 *   mmap_assert_locked(mm) (read or write), mmap_assert_write_locked(mm)
 */
#include "rwsem.h"

#define MM_SAVED_AUXV 52            /* words: Linux's AT_VECTOR_SIZE on x86-64 */

struct mm {
	struct vma_index index;       /* [mmap_lock] the VMAs of this address space */
	int map_count;                /* [mmap_lock] VMAs in the index (Linux mm->map_count) */
	int max_map_count;            /* [mmap_lock] limit on map_count; DEFAULT_MAX_MAP_COUNT
	                               *   (Linux reads the global sysctl; per mm here so tests
	                               *   can lower it) */
	bool merge;                   /* [mmap_lock] merge VMAs (copied from vma_merge_enabled
	                               *   at init); false disables merging and nothing else */
	bool zero_page;               /* [mmap_lock] read faults of private anonymous memory
	                               *   map the shared zero page and leave the VMA without
	                               *   an anon identity (copied from mm_zero_page_enabled) */
	bool may_have_guards;         /* set (under a read mmap_lock and pt_lock) by the first
	                               *   MADV_GUARD_INSTALL, inherited by fork, never cleared:
	                               *   without it, unmap, mremap and fork skip the walks
	                               *   for guard markers (Linux: VM_MAYBE_GUARD, per VMA) */
	uintptr_t mmap_base;          /* [mmap_lock] top of the top-down free-area search */
	uintptr_t mmap_legacy_base;   /* [mmap_lock] bottom of the bottom-up fallback search */
	struct rwsem mmap_lock;       /* protects the fields tagged [mmap_lock] */

	/* Added by mm_create (zero in an mm set up by mm_vma_init alone). */
	struct arch_mmu *mmu;         /* [init] page tables: [pt_lock] under a read
	                               *   mmap_lock, else [mmap_lock write] */
	struct spinlock pt_lock;      /* page-table lock: serializes faults (which hold
	                               *   mmap_lock only for reading) on this mm's tables */
	int pt_sharers;               /* [atomic] CPUs filling empty entries of existing
	                               *   tables without pt_lock (mm_pt_share, mm/internal.h) */
	int users;                    /* [atomic] references (mm_get/mm_put); threads sharing it */
	int tasks;                    /* [atomic] user tasks using it (mm_enter at clone and exec; mm_leave) */
	bool emptied;                 /* [mmap_lock write] its last task left: no VMA, no mapping (mm_leave) */
	uintptr_t start_brk;          /* [mmap_lock] heap start (set by exec; brk never goes below) */
	uintptr_t brk;                /* [mmap_lock] current program break (may be unaligned) */
	uintptr_t start_stack;        /* [mmap_lock] initial stack pointer region (set by exec) */
	uintptr_t arg_start, arg_end; /* [mmap_lock] the argv strings on the stack (set by exec;
	                               *   /proc/PID/cmdline reads them) */
	uint64_t saved_auxv[MM_SAVED_AUXV];   /* [mmap_lock] exec's auxiliary vector, AT_NULL pair
	                                       *   included (Linux's saved_auxv: /proc/PID/auxv) */
	unsigned saved_auxv_words;    /* [mmap_lock] words of it in use (0: none, a kernel mm) */
	/* Counters, [atomic] (changed with __atomic builtins; READ_ONCE, or plainly in tests). */
	unsigned long rss;            /* present PTEs mapping a frame other than the zero page
	                               *   (private anonymous pages + page-cache pages) */
	unsigned long rss_file;       /* of which page-cache pages: files and shared anonymous
	                               *   memory (Linux MM_FILEPAGES + MM_SHMEMPAGES) */
	unsigned long swap_ents;      /* swap entries in the page tables (Linux MM_SWAPENTS) */
	uintptr_t swap_ra_va;         /* [pt_lock] the last major fault's address (mm/swap_pte.c, readahead) */
	unsigned swap_ra_win;         /* [pt_lock] the window it was given; 0: no fault read swap yet */
	unsigned swap_ra_read;        /* [pt_lock] the pages it read (fewer where the next slots stopped) */
	unsigned long faults;         /* handle_mm_fault calls */
	unsigned long cow_copies;     /* write faults that copied a shared or zero page */
	unsigned long cow_reuses;     /* write faults that reused a page nobody else maps */
	unsigned long zero_maps;      /* read faults that mapped the shared zero page */
	unsigned long stack_grows;    /* growsdown VMA expansions by faults */
	unsigned long faults_lockless;  /* faults handled under a per-VMA lock (fault_lock=vma) */
	unsigned long faults_fallback;  /* faults that tried it and took the mmap_lock instead */
	unsigned long faults_pt_shared; /* faults that filled an entry in pt_lock's shared mode */

	/* fault_lock=vma (mm/vma_lock.c). */
	bool vma_lockless;            /* [mmap_lock] faults try the per-VMA lock first */
	uint64_t id;                  /* [init] unique over the boot, never 0 (struct vma_cache) */
	unsigned long mm_lock_seq;    /* [mmap_lock write] advanced at each write unlock, which
	                               *   drops every VMA's write mark at once */
	unsigned long vma_free_seq;   /* [mmap_lock write] advanced at each write unlock whose section
	                               *   freed a VMA, and when vma_lockless changes: while it stays,
	                               *   no VMA a task's vma_cache holds was freed */
	bool vma_freed;               /* [mmap_lock write] this section freed a VMA (vma_free) */
	struct vma_snapshot *vma_snap;  /* [mmap_lock write; read lock-free] the sorted VMAs
	                               *   lock-free faults search; NULL: none (fall back) */
	struct vma *vma_retired;      /* [mmap_lock write] VMAs removed since the waiting batch closed
	                               *   (the open batch of mm/vma_lock.c's deferred frees) */
	struct vma_snapshot *snap_retired;  /* [mmap_lock write] replaced snapshots, open batch */
	struct vma *vma_waiting;      /* [mmap_lock write] the waiting batch: freed once the grace */
	struct vma_snapshot *snap_waiting;  /*   period of gp_cookie is over (include/rcu.h) */
	unsigned long gp_cookie;      /* [mmap_lock write] with gp_waiting */
	bool gp_waiting;              /* [mmap_lock write] a batch waits */
	struct list_head all_link;    /* [mm_list lock, mm/mm.c] on the list of every mm (mm_check_all,
	                               *   truncation past 32 mappers: mm/truncate.c, reclaim: mm/vmscan.c) */
	uintptr_t reclaim_hand;       /* [atomic] where reclaim's clock stopped last in this mm (reclaimers race) */
	uint64_t list_id;             /* [init, mm_list lock] its place in that list: ids grow
	                               *   along it (mm_list_from: khugepaged's cursor) */
	struct mm *put_next;          /* on the deferred-teardown stack (mm_put_deferred) */
	bool oom_victim;              /* [atomic] the OOM killer chose its process (mm_mark_oom_victim) */
	bool thp_disabled;            /* [mmap_lock] PR_SET_THP_DISABLE: no huge pages (Linux's
	                               *   MMF_DISABLE_THP; kept by fork and exec) */
	bool huge_zero;               /* [mm/thp.c huge_zero_lock] holds a reference to the huge
	                               *   zero page (Linux's MMF_HUGE_ZERO_PAGE) */
};

/* Global default of mm->merge for new address spaces; the kernel option merge=off clears it. */
extern bool vma_merge_enabled;
/*
 * Global default of mm->zero_page (kernel option zero_page=on|off). On is
 * Linux on x86: a read fault maps the shared zero page and gives the VMA no
 * anon_vma. Off is Linux where mm_forbids_zeropage() holds: every fault
 * allocates a page of the VMA's own, so a read-faulted VMA has an anon
 * identity and merges like a written one (docs/mmscript.md, personalities).
 */
extern bool mm_zero_page_enabled;
/*
 * madv_lock=write|read (default read): MADV_DONTNEED and MADV_FREE take the
 * mmap_lock for writing (true: the 2007 vanilla kernel) or for reading
 * (false: Linux since Nick Piggin's 2007 change).
 */
extern bool mm_madv_write_lock;
/*
 * fault_lock=mmap|vma (default vma): new address spaces let faults take a
 * per-VMA lock found without the mmap_lock (true: Linux 6.4's per-VMA
 * locks, mm/vma_lock.c), or always take the mmap_lock for reading (false:
 * the 2007 experiment's kernel, docs/results/).
 */
extern bool mm_fault_lock_vma;
/*
 * Transparent huge pages (mm/thp.c; kernel option thp=always|madvise|never,
 * default always as Linux's Kconfig and Debian): which private anonymous
 * VMAs fault in 2 MiB pages
 * (Linux's /sys/kernel/mm/transparent_hugepage/enabled).
 */
enum thp_mode { THP_NEVER, THP_MADVISE, THP_ALWAYS };
extern enum thp_mode thp_mode;
extern const char *const thp_mode_names[];      /* by enum thp_mode: "never", ... */
/*
 * thp_anon_blocks: anonymous huge pages mapped by at least one 2 MiB leaf
 * anywhere, each once however many address spaces map it whole, the huge
 * zero page not counted (/proc/meminfo's AnonHugePages, Linux's
 * NR_ANON_THPS). Read racily: a snapshot.
 */
unsigned long thp_anon_blocks(void);
/* thp_vma_eligible: may vma hold a huge page now (smaps' THPeligible)? */
bool thp_vma_eligible(const struct mm *mm, const struct vma *vma);
/* Index backend for new address spaces when none is named (btree; kernel option vma=NAME). */
extern const struct vma_index_ops *vma_default_backend;

/* ------------------------------------------------------------------------
 * VMAs seen from outside mm/ (the VMA layer itself, which changes them, is
 * private: mm/vma_internal.h). mmap_lock held, read at least.
 */

/* vma_lookup: the VMA containing addr, or NULL. */
struct vma *vma_lookup(struct mm *mm, uintptr_t addr);
/* vma_first / vma_next: walk every VMA in address order (NULL after the last). */
struct vma *vma_first(struct mm *mm);
struct vma *vma_next(struct mm *mm, struct vma *v);

/* vma_map_anon: vma_map_new_range for private anonymous memory: file NULL, pgoff = start >> PAGE_SHIFT (do_mmap). */
int vma_map_anon(struct mm *mm, uintptr_t start, uintptr_t end, unsigned long flags, struct vma **out);

/*
 * vma_check: verify the address space: backend check(), count ==
 * map_count, VMAs sorted, non-overlapping, page aligned, non-empty, below
 * TASK_SIZE, owned by mm, forward and backward walks and lookups agree,
 * every anon identity's VMA count equals the VMAs pointing at it (and its
 * refcount is at least that). Leaves idx->accesses unchanged. 0, or
 * -EINVAL after printing what broke. mmap_lock held; with it held for
 * reading, takes pt_lock (faults link VMAs to identities under it).
 */
int vma_check(struct mm *mm);
/* Objects now allocated from the VMA and anon-identity caches (leak checks in tests). */
size_t vma_objects_inuse(void);
size_t anon_identity_inuse(void);

/* ========================================================================
 * Address spaces with page tables, faults and the VM system calls' cores
 * (mm/mm.c, mm/fork.c, mm/mmap_lock.c, mm/fault.c, mm/user_page.c,
 * mm/shared_anon.c, mm/filemap.c, mm/truncate.c, mm/zap.c, mm/populate.c,
 * mm/remote_access.c, mm/msync.c,
 * mm/soft_access.c, mm/mmap.c, mm/brk.c, mm/mprotect.c, mm/madvise.c,
 * mm/mremap.c, mm/mincore.c).
 *
 * Locks: mmap_lock, pt_lock, the object lock (vm_object.h), fs_lock
 * (include/fs.h), mm_list_lock (the list of address spaces); their order
 * is the one table, include/lock_order.h.
 *
 * Page accounting (struct page of pmm.h, for user frames):
 *   private anonymous page: PG_anon; private = the anon identity (struct
 *     anon_vma *) of the VMA that first wrote it, which the page holds a
 *     reference on (anon_vma_get) until it is freed; mapcount = PTEs mapping
 *     it; refcount = mapcount (+ transient references).
 *   page-cache page (a file's, or shared anonymous memory's): PG_cache;
 *     private = its object; refcount = 1 (the cache's) + mapcount. Mapped
 *     read-only in private mappings, where a write copies it (COW).
 *   the zero page: one frame, PG_reserved, never counted in refcount,
 *     mapcount or rss.
 * refcount and mapcount of user pages change with __atomic builtins.
 */

/* RLIMIT_STACK default (Linux _STK_LIM): the largest a growsdown VMA grows by faults. */
#define STACK_RLIMIT_DEFAULT (8UL << 20)

/* mmap(2) / mprotect(2) / mremap(2) / madvise(2) constants. */
#include "uapi/linux_mman.h"

/* ---------------------------------------------------------- the mmap_lock */

void mmap_read_lock(struct mm *mm);
/* mmap_read_trylock: the read lock if it can be had without waiting (none held or queued); else false. */
bool mmap_read_trylock(struct mm *mm);
/* mmap_write_trylock: the write lock if it can be had without waiting; else false. */
bool mmap_write_trylock(struct mm *mm);
void mmap_read_unlock(struct mm *mm);
void mmap_write_lock(struct mm *mm);
void mmap_write_unlock(struct mm *mm);
/* mmap_write_lock_nested: a second mm's lock while one is held (fork: the parent's, then the child's). */
void mmap_write_lock_nested(struct mm *mm);
/*
 * mmap_is_locked: the running task holds mm's mmap_lock (read or write);
 * without the lock-order checker (LOCKDEP unset): someone holds it.
 * mmap_is_write_locked: the running task holds it for writing.
 */
bool mmap_is_locked(struct mm *mm);
static inline bool mmap_is_write_locked(struct mm *mm)
{
	return rwsem_is_write_locked_by_me(&mm->mmap_lock);
}
#define mmap_assert_locked(mm)       BUG_ON(!mmap_is_locked(mm))
#define mmap_assert_write_locked(mm) BUG_ON(!mmap_is_write_locked(mm))

/* ------------------------------------------------------- address spaces */

/*
 * mm_create: a new address space: no VMAs (index backend
 * vma_default_backend, merge = vma_merge_enabled), page tables with the
 * kernel half only, users = 1, counters 0, brk/stack bases 0 (exec sets
 * them), mmap_base MMAP_BASE_DEFAULT. NULL on -ENOMEM (nothing leaked).
 */
struct mm *mm_create(void);
/* mm_create_backend: mm_create with a chosen VMA index backend (NULL: the default). */
struct mm *mm_create_backend(const struct vma_index_ops *backend);

/* mm_get: one more reference (a thread sharing mm). Returns mm. */
struct mm *mm_get(struct mm *mm);
/*
 * mm_get_unless_zero: a reference to mm unless its last one is gone (it is
 * being torn down). The caller keeps mm's memory alive otherwise: the
 * list lock (mm_list_lock, a listed mm) or an anon identity's lock (the
 * mm of a VMA still on its list: teardown unlinks VMAs before freeing mm).
 */
bool mm_get_unless_zero(struct mm *mm);
/*
 * mm_put_deferred: mm_put for a caller that holds another address space's
 * mmap_lock (the reverse map, for reclaim): a last reference leaves mm on
 * a stack that mm_put_deferred_flush tears down, from a caller that holds
 * no lock (mm_reclaim, at its end; mm_check_all, first). Any context that
 * may call mm_put.
 */
void mm_put_deferred(struct mm *mm);
void mm_put_deferred_flush(void);
/*
 * mm_put: drop a reference; the last one unmaps everything, frees every
 * frame, page-table page, VMA, shared object and anon identity that only
 * this mm held, then mm itself. The mm must not be active on any CPU
 * (mm_activate(NULL) or another mm first). No lock held by the caller.
 */
void mm_put(struct mm *mm);
/*
 * mm_enter: a user task starts using mm (clone, exec; the reference it
 * holds is the caller's). A kernel thread that borrows mm
 * (kthread_use_mm) is not counted: the address space is its owner's.
 */
void mm_enter(struct mm *mm);
/*
 * mm_leave: a user task stops using mm (exit, exec, an aborted clone;
 * mm_enter counted it in) and drops its reference. The last task
 * to leave empties mm itself (Linux's exit_mmap in the last mmput): every
 * mapping, VMA and the frames only they held are gone when this returns,
 * even while another reference (khugepaged's scan, reclaim's walk, a /proc
 * reader) keeps mm; that one's mm_put frees what is left (the struct and
 * the empty top table). So a process's memory is back before its exit is
 * reported. Same context rules as mm_put.
 */
void mm_leave(struct mm *mm);

/*
 * mm_dup: fork. A new mm with parent's VMAs (Linux dup_mmap): VM_DONTCOPY
 * VMAs are skipped; VM_WIPEONFORK VMAs are copied empty (no pages, no anon
 * identity); VM_LOCKED is not inherited. Private anonymous pages are shared
 * copy-on-write: the PTEs in both become read-only and each page's refcount
 * and mapcount go up by one (the zero page is shared as it is). Shared
 * anonymous pages are mapped in the child with the parent's permissions.
 * Anon identities: each parent identity in use gets one new identity in
 * the child, which the child's copies of all the VMAs pointing at the
 * parent's identity share (Linux anon_vma_fork gives the child VMA a new
 * anon_vma whose parent is the old one; the parent link is not recorded
 * here). Pages keep the identity they had (the parent's), as in Linux.
 * brk, stack and mmap bases and the merge setting are copied; counters
 * start at 0 except rss. Takes parent's mmap_lock for writing. NULL on
 * -ENOMEM with nothing leaked (parent PTEs may stay write-protected: a
 * later write fault reuses the page).
 */
struct mm *mm_dup(struct mm *parent);

/*
 * mm_check_all: first tear down the address spaces whose last user is
 * gone but that wait on mm_put_deferred's stack (so none of them holds
 * frames or objects past the check), then vma_check every live address
 * space (made by mm_create and not torn down), each under its mmap_lock
 * for reading (at most 32 of them); *checked (may be NULL) = how many. 0,
 * or -EINVAL when one failed (vma_check printed what). The caller holds
 * no lock.
 */
int mm_check_all(unsigned *checked);
/*
 * mm_flush_deferred_all: every live address space frees now what it kept
 * from lock-free faults until a grace period passed (vma_lockless_flush,
 * under its mmap_lock for writing), so that a leak check's frame count
 * does not depend on when those grace periods ended. The caller holds no
 * lock.
 */
void mm_flush_deferred_all(void);
/*
 * mm_audit_maps: the frame-map audit (mm/audit.c). Every page-table entry
 * of every live address space is counted per frame (a 2 MiB leaf over
 * each frame of its block, less the block's deferred shares); each
 * anonymous or page-cache frame's mapcount must be that count, a mapped
 * frame must be such memory, allocated and referenced at least once per
 * mapping, a block's deferred shares fewer than its leaves, which
 * pmm_huge_maps must count right, and each address space's rss and
 * rss_file what its entries map. A frame, block or address space found wrong counts
 * when two more whole passes find it wrong too (the address spaces are
 * walked one at a time). Returns how many are wrong (0: every count
 * agrees), printing up to 16 with their counts and the entries that map
 * them; -ENOMEM when no buffer for the counts could be had. The caller
 * holds no lock. Tears down the address spaces mm_put_deferred queued
 * first, as mm_check_all does.
 */
long mm_audit_maps(void);
/* Address spaces made by mm_create and not torn down yet, queued ones included (leak checks). */
size_t mm_live_count(void);
/*
 * mm_list_report: print every listed address space (its id, users, rss and
 * rss_file; one with 0 users waits for its teardown) and how many
 * teardowns are running (unlisted, their frames not all freed yet): for a
 * report of memory that no live address space maps.
 */
void mm_list_report(void);
/*
 * mm_mark_oom_victim: the OOM killer chose the process of mm (a task's,
 * referenced: sched_lock held by the caller keeps it); false when it had
 * already (or since its memory came back). mm_oom_victims_pending: marked
 * address spaces whose memory is not back yet (not yet emptied by their
 * last task, mm_leave, nor torn down: Linux's oom_mm without MMF_OOM_SKIP).
 */
bool mm_mark_oom_victim(struct mm *mm);
unsigned long mm_oom_victims_pending(void);

/* mm_activate: switch this CPU's page tables to mm's (NULL: kernel only). */
void mm_activate(struct mm *mm);
/* mm_enter_lazy: this CPU runs no user task now but keeps its address space loaded (lazy TLB). */
void mm_enter_lazy(void);

/* ------------------------------------------------------------- faults */

enum fault_result {
	FAULT_OK,                     /* the access can be retried and will succeed */
	FAULT_SIGSEGV_MAPERR,         /* no VMA there (SEGV_MAPERR) */
	FAULT_SIGSEGV_ACCERR,         /* VMA there but the access is not allowed (SEGV_ACCERR) */
	FAULT_SIGSEGV_PKUERR,         /* a data access to an execute-only VMA, where the
	                               *   hardware keeps it unreadable (SEGV_PKUERR) */
	FAULT_SIGBUS,                 /* a page past the end of a file or shared object (BUS_ADRERR) */
	FAULT_OOM,                    /* no memory for a page or page table */
};

#define FAULT_READ  0x1
#define FAULT_WRITE 0x2
#define FAULT_EXEC  0x4
#define FAULT_USER  0x8               /* the access came from user mode */
#define FAULT_PROT  0x10              /* the page was present: protection violation */

/*
 * handle_mm_fault: resolve a fault at addr (flags: FAULT_*; neither WRITE
 * nor EXEC means a read). Takes mm's mmap_lock for reading itself (for
 * writing briefly when the stack grows), and pt_lock; the caller holds
 * neither. x86 access rules: a write needs VM_WRITE, an instruction fetch
 * VM_EXEC, a read any of VM_READ/WRITE/EXEC; FAULT_PROT on a read is an
 * error. Anonymous private: a read maps the zero page read-only, a write
 * a new zeroed page; a write to the zero page or a page mapped elsewhere
 * copies it, to a page only this PTE maps reuses it. A fault below a
 * VM_GROWSDOWN VMA grows it (Linux expand_downwards: not past
 * STACK_RLIMIT_DEFAULT in size, not within STACK_GUARD_GAP of the previous
 * accessible non-growsdown VMA, not below MMAP_MIN_ADDR).
 * Returns FAULT_OK or the reason the access fails; FAULT_OOM leaves the
 * address space as it was.
 */
enum fault_result handle_mm_fault(struct mm *mm, uintptr_t addr, unsigned flags);

/*
 * mm_soft_access: perform a user access as the CPU would, in software,
 * through mm's page tables (mm need not be active): access is FAULT_READ,
 * FAULT_WRITE or FAULT_EXEC. Each page of [va, va + len) is translated; a
 * missing entry or one that forbids the access (x86 rules: data needs a
 * readable entry, a store a writable one, a fetch an executable one) calls
 * handle_mm_fault(mm, va, access | FAULT_USER [| FAULT_PROT when present])
 * and retries, as the hardware would after the fault handler returns.
 * Loads copy into buf, stores copy from buf, fetches copy into buf (buf may
 * be NULL for loads and fetches). Sets the entry's ACCESSED bit, and DIRTY
 * on stores. Returns FAULT_OK, or the result of the first fault that
 * failed (earlier pages were accessed), or -1 when a fault returned
 * FAULT_OK without fixing the entry (a kernel bug). The caller holds no
 * mmap_lock. The host's simulated CPU and the unit tests use it.
 */
int mm_soft_access(struct mm *mm, uintptr_t va, unsigned access, void *buf, size_t len);

/*
 * mm_futex_key: the key of the futex word at user address addr of mm
 * (Linux get_futex_key): in a MAP_SHARED mapping the physical address of
 * the word, *shared = true (the same in every address space mapping the
 * page: the page is faulted in first); else addr itself, *shared = false.
 * 0 or -EFAULT (no mapping). Takes the mmap_lock for reading; the caller
 * holds none.
 */
int mm_futex_key(struct mm *mm, uintptr_t addr, bool *shared, uint64_t *key);
/*
 * mm_user_cmpxchg32: atomically replace the 32-bit word at user address
 * addr of mm with new if it holds old; *cur = the value found. Faults the
 * page in writable first. 0; -EINVAL misaligned; -EFAULT not writable.
 * The caller holds no mmap_lock.
 */
int mm_user_cmpxchg32(struct mm *mm, uintptr_t addr, uint32_t old, uint32_t new, uint32_t *cur);
/* The shared zero page's physical address (allocated by the first mm_create). */
phys_addr_t mm_zero_page_phys(void);

/*
 * mm_populate: fault in every page of the VMAs in [start, end) (holes and
 * VMAs without access skipped) as a read, or as a write when write (the
 * MAP_POPULATE path uses write for private writable VMAs). Takes the
 * mmap_lock for reading (caller holds none). 0; -ENOMEM out of memory;
 * -EFAULT a fault failed otherwise (e.g. write to a read-only VMA).
 */
int mm_populate(struct mm *mm, uintptr_t start, uintptr_t end, bool write);

/*
 * mm_copy_to: copy len bytes from kernel memory src to user address dst of
 * mm (any mm, active or not) through the direct map, faulting pages in as
 * user writes would (a write needs VM_WRITE). Takes the mmap_lock for
 * reading; the caller holds none. 0; -EFAULT a page cannot be written
 * (earlier pages keep their bytes); -ENOMEM out of memory.
 */
int mm_copy_to(struct mm *mm, uintptr_t dst, const void *src, size_t len);
/*
 * mm_copy_from: copy len bytes from user address src of mm to kernel dst
 * without faulting anything in (but a swapped-out page, which is read back
 * as a read fault would): pages never touched read as zero, pages of a
 * file or shared object not mapped here come from its cache. Every byte
 * must lie in a VMA, outside guard regions (access rights are not checked:
 * a kernel read). Takes the mmap_lock for reading. 0, -EFAULT, or -ENOMEM
 * (no page to read a swapped one into).
 */
int mm_copy_from(struct mm *mm, void *dst, uintptr_t src, size_t len);

/* What mm_dump describes (bits; vmk_vmdump's argument, include/uapi/vmk.h, uses the same). */
#define MM_DUMP_VMAS  0x1
#define MM_DUMP_PAGES 0x2
/*
 * mm_dump: describe mm as text for debugging (mm/dump.c), one line at a
 * time to emit: with MM_DUMP_VMAS a header and each VMA (range, rwxp,
 * pgoff, anon identity, decoded flags), with MM_DUMP_PAGES the page-table
 * tree (arch_mmu_dump, include/arch_mmu_debug.h). Takes the mmap_lock for reading
 * and pt_lock; the caller holds neither.
 */
void mm_dump(struct mm *mm, unsigned what, mmu_dump_fn emit, void *arg);
/* vm_flags_format: VM_* flags as names ("read write mayread ..."), unknown bits in hex. Returns the length. */
size_t vm_flags_format(char *buf, size_t size, unsigned long flags);

/* ---------------------------------------------- VM system-call cores
 * Each takes the mmap_lock itself (write; mincore and msync read) and
 * returns Linux's result. */

/*
 * vm_mmap_pgoff: mmap(addr, len, prot, flags, file, pgoff << PAGE_SHIFT),
 * Linux's do_mmap after the fd lookup. file NULL: anonymous memory
 * (MAP_ANONYMOUS; without it -EBADF: the fd -1 names no file), private or
 * shared. With a file: MAP_PRIVATE maps it copy-on-write, MAP_SHARED (and
 * MAP_SHARED_VALIDATE, which refuses unknown flags with -EOPNOTSUPP) maps
 * it shared; -EACCES a shared writable mapping of a file not opened for
 * writing, or any mapping of one not opened for reading; a shared mapping
 * of a read-only file gets neither VM_SHARED nor VM_MAYWRITE (Linux).
 * MAP_FIXED, MAP_FIXED_NOREPLACE, MAP_POPULATE, MAP_NORESERVE,
 * MAP_GROWSDOWN (anonymous only), MAP_STACK. Returns the address, or
 * -EINVAL (len 0, bad type, unaligned fixed address, ...), -ENOMEM (no
 * room, map_count, memory), -EEXIST (MAP_FIXED_NOREPLACE over a mapping),
 * -EPERM (fixed below MMAP_MIN_ADDR), -EOVERFLOW (pgoff + pages wraps or
 * passes the largest file offset).
 */
long vm_mmap_pgoff(struct mm *mm, uintptr_t addr, size_t len, int prot, int flags,
		   struct vm_file *file, unsigned long pgoff);
/* vm_mmap: vm_mmap_pgoff without a file (fd -1, offset 0). */
long vm_mmap(struct mm *mm, uintptr_t addr, size_t len, int prot, int flags);
/*
 * vm_msync: msync(start, len, flags) (Linux 6.18): nothing needs writing
 * back from memory files, so only the checks and the walk: -EINVAL bad
 * flags (MS_ASYNC with MS_SYNC) or unaligned start; -ENOMEM the range
 * wraps, or meets a hole (MS_ASYNC alone stops there, the others go on
 * and report it at the end); -EBUSY MS_INVALIDATE on a VM_LOCKED VMA.
 */
int vm_msync(struct mm *mm, uintptr_t start, size_t len, int flags);
/* vm_munmap: munmap. 0; -EINVAL unaligned addr, len 0, range past TASK_SIZE; -ENOMEM map_count/memory. */
int vm_munmap(struct mm *mm, uintptr_t addr, size_t len);
/*
 * vm_brk: brk(newbrk): the new break, or the old one when the request is
 * refused (brk(0) asks; below the heap start; growth within a page of the
 * next mapping; a shrink when nothing is mapped between the new and the
 * old break).
 */
long vm_brk(struct mm *mm, uintptr_t newbrk);
/* vm_mprotect: mprotect. 0; -EINVAL bad addr/prot; -ENOMEM hole or map_count; -EACCES beyond VM_MAY*. */
int vm_mprotect(struct mm *mm, uintptr_t addr, size_t len, int prot);
/* vm_madvise: madvise. 0; -EINVAL bad advice/addr or advice not valid for a VMA; -ENOMEM hole (after acting on the mapped parts); -EFAULT populate failed. */
int vm_madvise(struct mm *mm, uintptr_t addr, size_t len, int advice);
/*
 * vm_mremap: mremap(addr, old_len, new_len, flags, new_addr), Linux 6.18's
 * do_mremap for anonymous memory (mm/mremap.c says what is mirrored):
 * shrink and grow in place (growth merges with a compatible next VMA),
 * MREMAP_MAYMOVE, MREMAP_FIXED (the destination is unmapped first; a
 * same-size fixed move may span several VMAs and holes, not a hole at
 * addr), MREMAP_DONTUNMAP (the old range stays mapped, empty). Moved pages
 * keep their contents and anon identity; the moved VMA keeps its page
 * offset, except a never-faulted private one, which takes that of its new
 * place. Returns the (new) address, or -EINVAL (bad flags, unaligned
 * addresses, new_len 0, overlap, private old_len 0, ...), -EFAULT (addr
 * not mapped, or the old range not inside one VMA), -ENOMEM (cannot grow
 * in place without MREMAP_MAYMOVE, no room, map_count), or an munmap
 * error of the destination.
 */
long vm_mremap(struct mm *mm, uintptr_t addr, size_t old_len, size_t new_len, int flags,
	       uintptr_t new_addr);

/*
 * mm_reclaim_lazyfree: what reclaim does to MADV_FREE'd memory (Linux
 * shrink_folio_list on lazyfree anonymous folios), to all of mm at once:
 * every private page of mm marked lazily free that is still clean (no
 * write since the MADV_FREE: the PTE's dirty bit clear) and mapped only
 * here is unmapped and freed, so that the next access sees a zero page; a
 * dirty one loses its lazyfree mark and stays. The clock goes round twice,
 * so a page read since MADV_FREE goes too (its second chance is used up
 * in the first round). Takes the mmap_lock for reading and pt_lock.
 * Returns the pages freed. Reclaim under memory pressure is
 * include/vmscan.h's, which takes only as much as it needs.
 */
unsigned long mm_reclaim_lazyfree(struct mm *mm);

/*
 * vm_mincore: mincore into a kernel buffer vec of (len + PAGE_SIZE - 1) /
 * PAGE_SIZE bytes: 1 where the page is resident (present PTE, or, in a
 * file-backed VMA, a page in the file's cache), else 0. 0; -EINVAL unaligned addr; -ENOMEM range past
 * TASK_SIZE or not fully mapped (vec filled for the pages before the hole).
 */
int vm_mincore(struct mm *mm, uintptr_t addr, size_t len, unsigned char *vec);

/*
 * What the pages of VMAs use, as /proc/PID/smaps counts it (Linux
 * smaps_account / smaps_pte_entry): sizes in bytes; the proportional
 * figures (pss*, swap_pss) in bytes << VM_PSS_SHIFT, so that a page
 * mapped by three processes adds a third of a page exactly and the total
 * is rounded once, when printed. The zero page counts nowhere (Linux's
 * vm_normal_page skips it).
 */
#define VM_PSS_SHIFT 12
struct vm_usage {
	unsigned long resident, referenced, anonymous, lazyfree, swap;
	unsigned long shared_clean, shared_dirty, private_clean, private_dirty;
	unsigned long anon_huge;      /* bytes mapped by 2 MiB leaves (AnonHugePages) */
	uint64_t pss, pss_dirty, pss_anon, pss_file, pss_shmem, pss_locked, swap_pss;
};

/*
 * vm_usage_add: add what v's pages use to *u (not zeroed first, so a
 * caller can total several VMAs, as smaps_rollup does). Caller holds mm's
 * mmap_lock (read); takes pt_lock.
 */
void vm_usage_add(struct mm *mm, const struct vma *v, struct vm_usage *u);

#endif
