/*
 * vmastat=on (kernel/profile/profile_vma.c): VMA index operations counted by kind,
 * with the node accesses each made, for the 1998 accesses-per-operation
 * figures measured under a running workload (vmk_profile(VMK_PROF_VMASTAT)).
 */
#ifndef PROFILE_VMA_H
#define PROFILE_VMA_H

#include "vma.h"
#include "uapi/vmk_profile.h"

/*
 * The counting wrapper of backend (the same pointer for the same backend;
 * backend itself when the slots are used up). Install it as
 * vma_default_backend before the first address space is made.
 */
const struct vma_index_ops *profile_vma_counted(const struct vma_index_ops *backend);
/* True when ops is one of the counting wrappers. */
bool profile_vma_is_counted(const struct vma_index_ops *ops);
/* Copy the counters (every field but vmas). */
void profile_vma_stats(struct vmk_vmastat *out);
/* Zero them. */
void profile_vma_reset(void);

#endif
