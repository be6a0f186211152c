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

/* What vmk_memstat fills in (a prefix if size is smaller). */
struct vmk_memstat {
	uint64_t free_frames;           /* free physical frames (pmm_free_frames()) */
	uint64_t rss;                   /* the caller's resident anonymous pages (mm counter) */
	uint64_t faults;                /* page faults of the caller's mm */
	uint64_t cow_copies;            /* COW copies made in the caller's mm */
	uint64_t zero_maps;             /* shared-zero-page maps in the caller's mm */
	uint64_t tasks;                 /* live tasks */
};

#endif
