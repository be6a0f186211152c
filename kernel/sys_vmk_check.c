/*
 * vmk_check: the kernel's consistency checks on demand, for a user program
 * that provokes the kernel and wants to know that nothing broke (the
 * syscall fuzzer, user/fuzz). include/uapi/vmk.h has the contract.
 */
#include "syscall_internal.h"
#include "uaccess.h"
#include "mm.h"
#include "pmm.h"
#include "slab.h"
#include "kerrno.h"
#include "file.h"
#include "vm_object.h"
#include "task.h"

/* vmk_check(out, size, flags): mm, buddy and slab checks; struct vmk_check (a prefix of size bytes);
 * with VMK_CHECK_TASKS only the task dump, with VMK_CHECK_MAPS only the frame-map audit. */
long sys_vmk_check(SYSCALL_ARGS)
{
	struct vmk_check r = { 0 };
	unsigned mms = 0, caches = 0;

	if (a2 & VMK_CHECK_TASKS)
		return sched_dump_tasks(true);
	if (a2 & VMK_CHECK_MAPS) {
		long wrong = mm_audit_maps();

		if (wrong < 0)
			return wrong;
		if (wrong)
			r.failed |= VMK_CHECK_MAPCOUNT;
		r.free_frames = pmm_free_frames();
		if (copy_to_user((void *)a0, &r, MIN(a1, sizeof(r))))
			return -EFAULT;
		return r.failed ? -EINVAL : 0;
	}
	if (mm_check_all(&mms))
		r.failed |= VMK_CHECK_MM;
	if (pmm_check())
		r.failed |= VMK_CHECK_PMM;
	if (slab_check_all(&caches))
		r.failed |= VMK_CHECK_SLAB;
	r.slab_debug_errors = slab_debug_errors;
	if (slab_debug_errors)
		r.failed |= VMK_CHECK_SLAB_DEBUG;
	mm_flush_deferred_all();        /* no free waits for a grace period */
	procfs_shrink();                /* nor /proc names cached at their first lookup */
	sysfs_shrink();                 /* nor /sys names */
	slab_shrink_all();              /* empty slabs do not count as used memory */
	r.free_frames = pmm_free_frames();
	r.mms_checked = mms;
	r.mms_live = mm_live_count();
	if (a2 & VMK_CHECK_REPORT) {
		r.objects_with_pages = vm_object_report();
		pmm_census();
		slab_report_changed();
	}
	if (a2 & VMK_CHECK_CENSUS)
		pmm_census_count(r.census);
	if (a2 & VMK_CHECK_MARK)
		slab_mark_all();
	r.caches_checked = caches;
	if (copy_to_user((void *)a0, &r, MIN(a1, sizeof(r))))
		return -EFAULT;
	return r.failed ? -EINVAL : 0;
}
