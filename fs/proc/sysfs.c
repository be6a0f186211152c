/*
 * /sys: the files of Linux's sysfs that this kernel has, at Linux's paths,
 * so that a program reads and sets them as it would there. Each is one
 * number, a /proc/sys-style file (sysctl.c: read it; write a decimal
 * number to set it, -EINVAL out of range). /sys has /proc's st_dev here.
 *
 *   /sys/kernel/mm/transparent_hugepage/khugepaged/   (include/khugepaged.h)
 *       pages_to_scan, scan_sleep_millisecs, max_ptes_none, max_ptes_swap,
 *       max_ptes_shared (0644); full_scans, pages_collapsed (0444: a write
 *       is -EINVAL)
 */
#include "internal.h"
#include "khugepaged.h"

/* KHUGEPAGED_FILE(var, knob): the struct sysctl_number var of khugepaged's knob. */
#define KHUGEPAGED_FILE(var, knob)                                       \
	static unsigned long var##_get(void)                             \
	{                                                                \
		return khugepaged_get(knob);                             \
	}                                                                \
	static long var##_set(long v)                                    \
	{                                                                \
		return khugepaged_set(knob, v);                          \
	}                                                                \
	static const struct sysctl_number var = {                       \
		.ks = { .open = sysctl_open, .dev = PROC_DEV },          \
		.get = var##_get, .set = var##_set,                      \
	}

KHUGEPAGED_FILE(khp_pages_to_scan, KHUGEPAGED_PAGES_TO_SCAN);
KHUGEPAGED_FILE(khp_scan_sleep, KHUGEPAGED_SCAN_SLEEP_MS);
KHUGEPAGED_FILE(khp_max_ptes_none, KHUGEPAGED_MAX_PTES_NONE);
KHUGEPAGED_FILE(khp_max_ptes_swap, KHUGEPAGED_MAX_PTES_SWAP);
KHUGEPAGED_FILE(khp_max_ptes_shared, KHUGEPAGED_MAX_PTES_SHARED);
KHUGEPAGED_FILE(khp_full_scans, KHUGEPAGED_FULL_SCANS);
KHUGEPAGED_FILE(khp_pages_collapsed, KHUGEPAGED_PAGES_COLLAPSED);

/* In Linux's order (ls sorts them). */
static const struct proc_entry khugepaged_table[] = {
	{ .name = "full_scans", .mode = S_IFREG | 0444, .ks = &khp_full_scans.ks },
	{ .name = "max_ptes_none", .mode = S_IFREG | 0644, .ks = &khp_max_ptes_none.ks },
	{ .name = "max_ptes_shared", .mode = S_IFREG | 0644, .ks = &khp_max_ptes_shared.ks },
	{ .name = "max_ptes_swap", .mode = S_IFREG | 0644, .ks = &khp_max_ptes_swap.ks },
	{ .name = "pages_collapsed", .mode = S_IFREG | 0444, .ks = &khp_pages_collapsed.ks },
	{ .name = "pages_to_scan", .mode = S_IFREG | 0644, .ks = &khp_pages_to_scan.ks },
	{ .name = "scan_sleep_millisecs", .mode = S_IFREG | 0644, .ks = &khp_scan_sleep.ks },
};
PROC_TABLE_DIR(static, sys_khugepaged_dir, khugepaged_table);

static const struct proc_entry thp_table[] = {
	{ .name = "khugepaged", .mode = S_IFDIR | 0755, .ks = &sys_khugepaged_dir },
};
PROC_TABLE_DIR(static, sys_thp_dir, thp_table);

static const struct proc_entry mm_table[] = {
	{ .name = "transparent_hugepage", .mode = S_IFDIR | 0755, .ks = &sys_thp_dir },
};
PROC_TABLE_DIR(static, sys_mm_dir, mm_table);

static const struct proc_entry kernel_table[] = {
	{ .name = "mm", .mode = S_IFDIR | 0755, .ks = &sys_mm_dir },
};
PROC_TABLE_DIR(static, sys_kernel_dir, kernel_table);

static const struct proc_entry root_table[] = {
	{ .name = "kernel", .mode = S_IFDIR | 0755, .ks = &sys_kernel_dir },
};
PROC_TABLE_DIR(static, sys_root_dir, root_table);

static struct dentry *sys_root;         /* /sys (no reference: it is never removed) */

int sysfs_mount(struct dentry *root)
{
	struct dentry *sys;
	int err = fs_mkdir_special(root, "sys", 3, 0555, &sys_root_dir.base, &sys);

	if (err)
		return err;
	sys_root = sys;
	dput(sys);                      /* the root directory keeps it */
	return 0;
}

void sysfs_shrink(void)
{
	if (sys_root)
		fs_dyn_shrink(sys_root);
}
