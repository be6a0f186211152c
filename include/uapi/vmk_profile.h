/*
 * vmk_profile(2): this kernel's profiling call (__NR_vmk_profile in
 * vmk.h, above Linux's range; Linux answers -ENOSYS). Shared by the kernel
 * (kernel/profile/sys_profile.c) and the user workloads (user/workloads/);
 * definitions only.
 *
 *   long vmk_profile(unsigned cmd, void *buf, unsigned long size)
 *
 * VMK_PROF_COUNTS      copy struct vmk_prof_counts (a prefix of size bytes):
 *                      the sampling profiler's totals since it started
 *                      (zero when it is not running), and the caller's VMA
 *                      count (what reading /proc/self/maps would cost
 *                      kernel time to learn).
 * VMK_PROF_VMASTAT     copy struct vmk_vmastat (a prefix of size bytes): the
 *                      VMA index operations counted since boot or the last
 *                      reset, by kind. -ENODEV unless the kernel was booted
 *                      with vmastat=on.
 * VMK_PROF_VMASTAT_RESET  zero those counters (buf and size ignored).
 *
 * Errors: -EFAULT (bad buf), -EINVAL (unknown cmd), -ENODEV (above).
 */
#ifndef UAPI_VMK_PROFILE_H
#define UAPI_VMK_PROFILE_H

#include <stdint.h>
#include "vmk.h"

enum vmk_prof_cmd {
	VMK_PROF_COUNTS = 0,
	VMK_PROF_VMASTAT = 1,
	VMK_PROF_VMASTAT_RESET = 2,
};

struct vmk_prof_counts {
	uint64_t hz;            /* samples per second of guest time (profile_hz=) */
	uint64_t total;         /* samples taken */
	uint64_t kernel;        /* in kernel text */
	uint64_t user;          /* in user mode */
	uint64_t vmas;          /* VMAs of the caller's address space now (its /proc/self/maps lines) */
};

/* The index operations of struct vma_index_ops, as counted by vmastat=on. */
enum vmk_vma_op {
	VMK_VMA_FIND,           /* find: first VMA with end > addr */
	VMK_VMA_FIND_PREV,      /* find_prev: the same plus the predecessor */
	VMK_VMA_INSERT,
	VMK_VMA_ERASE,
	VMK_VMA_UPDATE,         /* bounds change in place (merge, split, brk) */
	VMK_VMA_NEXT,
	VMK_VMA_PREV,
	VMK_VMA_FIRST,          /* first and last */
	VMK_VMA_GAP,            /* gap_top and gap_bottom: free-area search */
	VMK_VMA_OTHER,          /* reserve, init, destroy */
	VMK_VMA_NR_OPS
};

struct vmk_vmastat {
	uint64_t calls[VMK_VMA_NR_OPS];
	uint64_t accesses[VMK_VMA_NR_OPS];      /* nodes touched (idx->accesses deltas) */
	uint64_t max_accesses[VMK_VMA_NR_OPS];  /* the most one call touched */
	uint64_t vmas;                          /* VMAs in the caller's index now */
};

#endif
