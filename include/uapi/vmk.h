/*
 * This kernel's own system calls, numbered above Linux's range (Linux
 * answers -ENOSYS, so a program can tell where it runs). Shared by the
 * kernel (kernel/sys_misc.c) and the user tests (user/tests).
 */
#ifndef UAPI_VMK_H
#define UAPI_VMK_H

#include <stdint.h>

/* vmk_memstat(struct vmk_memstat *out, size_t size): 0, or -EFAULT. */
#define __NR_vmk_memstat     1000
/* vmk_profile(cmd, buf, size): the profiler's counters (include/uapi/vmk_profile.h). */
#define __NR_vmk_profile     1001
/*
 * vmk_vmdump(int pid, unsigned what): print the VMAs (VMDUMP_VMAS) and/or
 * the page-table tree (VMDUMP_PAGES) of process pid (0: the caller) on the
 * console, as a kernel report (tools/run shows it on stderr). 0; -ESRCH no
 * such process; -EINVAL what has no known bit. A debugging aid
 * (docs/labs/pgtbl.md has the format).
 */
#define __NR_vmk_vmdump      1002
#define VMDUMP_VMAS          0x1
#define VMDUMP_PAGES         0x2
/*
 * vmk_check(struct vmk_check *out, size_t size, flags): run the kernel's
 * consistency checks on the live system: vma_check of every address space
 * (mm_check_all), the buddy allocator (pmm_check), every slab cache
 * (slab_check_all) and the slab debug checks' corruption count; then fill
 * out (a prefix of size bytes; free_frames after the /proc and /sys names
 * nobody holds are dropped and empty slabs given back). 0 when every check passed; -EINVAL when one
 * failed (out->failed says which, the kernel log says what); -EFAULT.
 * Address spaces queued for teardown (mm_put_deferred) are torn down
 * first. flags: VMK_CHECK_REPORT also prints to the kernel log every
 * page-cache object that has pages (references, mappings, pages, kind)
 * and a census of the frames by kind (free, slab, page tables, anonymous,
 * page cache, other), for a leak check that failed; VMK_CHECK_CENSUS
 * fills out->census with that census's counts (enum vmk_census_kind), so
 * that a leak check can say which kind of frame went missing (a scan of
 * every frame: for a quiet moment, a snapshot); VMK_CHECK_MARK has every
 * slab cache remember its objects and slabs after the checks, and a later
 * VMK_CHECK_REPORT prints each cache whose counts differ from them.
 * VMK_CHECK_TASKS
 * prints every task (ids, name, state, and the kernel call trace of each
 * one not running) to the kernel log and returns 0 at once, without the
 * checks or out: they take every address space's lock, which a hung task
 * may hold. VMK_CHECK_MAPS runs the frame-map audit alone (mm_audit_maps,
 * mm/audit.c: every anonymous and page-cache frame's mapcount against the
 * page-table entries of every address space, the huge pages' deferred
 * shares against their leaves, each address space's rss against what
 * its entries map): out->failed gets VMK_CHECK_MAPCOUNT when
 * a frame or block is wrong (the kernel log shows them); -ENOMEM when
 * its buffer could not be had. It is meant for a quiet moment (only the
 * caller running): it confirms what it finds over three passes, but
 * programs forking and exiting meanwhile can still mislead it. The syscall
 * fuzzer (user/fuzz) calls it after each seed, and with VMK_CHECK_TASKS
 * when a seed stops making progress; the user tests' driver calls
 * VMK_CHECK_MAPS after each test.
 */
#define __NR_vmk_check       1003
#define VMK_CHECK_MM         0x1        /* a vma_check failed */
#define VMK_CHECK_PMM        0x2        /* pmm_check failed */
#define VMK_CHECK_SLAB       0x4        /* a kmem_cache_check failed */
#define VMK_CHECK_SLAB_DEBUG 0x8        /* slab debug checks found corruption (ever since boot) */
#define VMK_CHECK_MAPCOUNT   0x10       /* the frame-map audit found frames or blocks wrong */
#define VMK_CHECK_REPORT     0x1        /* flags: report the objects with pages and the frames by kind */
#define VMK_CHECK_TASKS      0x2        /* flags: print every task and where it waits; no checks */
#define VMK_CHECK_MAPS       0x4        /* flags: the frame-map audit alone (mm_audit_maps) */
#define VMK_CHECK_CENSUS     0x8        /* flags: also count the frames by kind (out->census) */
#define VMK_CHECK_MARK       0x10       /* flags: every slab cache remembers its counts (for REPORT) */

/* vmk_check's census: frames by kind, each frame counted once (the first kind its flags name). */
enum vmk_census_kind {
	VMK_CENSUS_FREE,                /* in the buddy allocator's free blocks */
	VMK_CENSUS_RESERVED,
	VMK_CENSUS_PCP,                 /* free, on a CPU's list */
	VMK_CENSUS_SLAB,
	VMK_CENSUS_PGTABLE,
	VMK_CENSUS_ANON,
	VMK_CENSUS_CACHE,               /* page cache: files, tmpfs, memfds, shared anonymous memory */
	VMK_CENSUS_OTHER,               /* allocated with none of those flags: kernel stacks, buffers, huge tails */
	VMK_CENSUS_KINDS
};

/* What vmk_memstat fills in (a prefix if size is smaller). */
struct vmk_memstat {
	uint64_t free_frames;           /* free physical frames (pmm_free_frames(), after the /proc and
	                                 *   /sys names nobody holds are dropped and empty slabs given back) */
	uint64_t rss;                   /* the caller's resident anonymous pages (mm counter) */
	uint64_t faults;                /* page faults of the caller's mm */
	uint64_t cow_copies;            /* COW copies made in the caller's mm */
	uint64_t zero_maps;             /* shared-zero-page maps in the caller's mm */
	uint64_t tasks;                 /* live tasks */
	uint64_t cow_reuses;            /* write faults in the caller's mm that reused a page nobody else maps */
	/* SMP and locking (appended: older callers read a prefix). */
	uint64_t cpus;                  /* CPUs online */
	uint64_t faults_lockless;       /* the caller's mm: faults under a per-VMA lock */
	uint64_t faults_fallback;       /*   faults that tried it and took the mmap_lock */
	uint64_t mmap_read_acquired;    /*   its mmap_lock taken for reading */
	uint64_t mmap_write_acquired;   /*   for writing */
	uint64_t mmap_read_contended;   /*   of which had to wait, reading */
	uint64_t mmap_write_contended;  /*   writing */
	uint64_t tlb_flushes;           /* since boot, all CPUs (struct tlb_stats) */
	uint64_t tlb_shootdowns;
	uint64_t tlb_ipis;
	uint64_t tlb_pages;
	uint64_t tlb_full_flushes;
	uint64_t faults_pt_shared;      /* the caller's mm: faults that mapped their page without
	                                 *   taking the page-table lock (its shared mode) */
};

/* What vmk_check fills in (a prefix if size is smaller). */
struct vmk_check {
	uint64_t failed;                /* VMK_CHECK_* bits of the checks that failed */
	uint64_t free_frames;           /* free physical frames, after slab_shrink_all */
	uint64_t mms_checked;           /* address spaces vma_check ran on */
	uint64_t caches_checked;        /* slab caches checked */
	uint64_t slab_debug_errors;     /* corruptions the slab debug checks found since boot */
	uint64_t mms_live;              /* address spaces alive after the check (mm_live_count) */
	uint64_t objects_with_pages;    /* VMK_CHECK_REPORT: page-cache objects that have pages */
	uint64_t census[VMK_CENSUS_KINDS];      /* VMK_CHECK_CENSUS: frames by kind, after the checks */
};

#endif
