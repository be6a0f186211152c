/* vmk_profile(2): the profiler's counters for the measured program (include/uapi/vmk_profile.h). */
#include "syscall_internal.h"
#include "profile.h"
#include "profile_vma.h"
#include "uaccess.h"
#include "task.h"
#include "mm.h"
#include "kerrno.h"
#include "kernel.h"

/* vmk_profile(cmd, buf, size): VMK_PROF_COUNTS, VMK_PROF_VMASTAT, VMK_PROF_VMASTAT_RESET. */
long sys_vmk_profile(SYSCALL_ARGS)
{
	struct vmk_prof_counts counts;
	struct vmk_vmastat st;

	switch (a0) {
	case VMK_PROF_COUNTS:
		profile_counts(&counts);
		counts.vmas = (uint64_t)current->mm->map_count;
		return copy_to_user((void *)a1, &counts, MIN(a2, sizeof(counts))) ? -EFAULT : 0;
	case VMK_PROF_VMASTAT:
		if (!profile_vma_is_counted(current->mm->index.ops))
			return -ENODEV;
		profile_vma_stats(&st);
		st.vmas = current->mm->index.count;
		return copy_to_user((void *)a1, &st, MIN(a2, sizeof(st))) ? -EFAULT : 0;
	case VMK_PROF_VMASTAT_RESET:
		if (!profile_vma_is_counted(current->mm->index.ops))
			return -ENODEV;
		profile_vma_reset();
		return 0;
	default:
		return -EINVAL;
	}
}
