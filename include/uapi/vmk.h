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

/* What vmk_memstat fills in (a prefix if size is smaller). */
struct vmk_memstat {
	uint64_t free_frames;           /* free physical frames (pmm_free_frames()) */
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
};

#endif
