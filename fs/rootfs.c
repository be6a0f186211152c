/*
 * The root file system at boot (include/file.h, rootfs_init): an empty
 * tmpfs (include/fs.h) with the directories the kernel provides, /dev
 * (fs/devices.c) with /dev/shm, /proc (fs/proc/procfs.c), and /tmp and
 * /dev/shm (mode 1777, where Linux mounts tmpfs), then
 * the boot modules:
 *   - an initramfs (a "newc" cpio archive, which tools/run builds from the
 *     program, its --module files and --root DIR) is unpacked into "/";
 *   - the arguments module (kernel/task/init.c) stays where it is;
 *   - any other module (GRUB's module2 lines) becomes the file "/NAME",
 *     NAME its program name (include/exec.h), mode 0755 for an ELF file.
 * The memory of the modules that were copied into the tree is given to
 * the page allocator afterwards, as Linux frees the initramfs; the pages
 * of an archive that its files took over in place (fs_unpack_cpio's
 * keep_pages: the file data tools/run aligns to pages) stay theirs.
 *
 * tmpfs pages may use half of the memory (ENOSPC beyond), as Linux's
 * rootfs; file times come from CLOCK_REALTIME.
 */
#include "file.h"
#include "exec.h"
#include "ktimer.h"
#include "pmm.h"
#include "arch.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"

#define ARGS_MAGIC "vmkernel-args\n"

static void rootfs_clock(struct fs_time *t)
{
	uint64_t ns = clock_realtime_ns();

	t->sec = (int64_t)(ns / 1000000000ULL);
	t->nsec = (long)(ns % 1000000000ULL);
}

static size_t copy_in(void *arg, size_t done, void *kaddr, size_t n)
{
	memcpy(kaddr, (const char *)arg + done, n);
	return 0;
}

/* A boot module that is neither an archive nor the arguments: the file /NAME. */
static int module_as_file(const struct boot_module *m)
{
	bool elf = m->size >= 4 && memcmp(m->data, "\177ELF", 4) == 0;
	struct dentry *d;
	int err;

	err = fs_create(fs_root(), m->name, strlen(m->name), S_IFREG | (elf ? 0755 : 0644), 0, NULL, &d);
	if (err)
		return err;
	if (m->size && fs_write(d->inode, 0, m->size, copy_in, (void *)m->data) != (long)m->size)
		err = -ENOSPC;
	dput(d);
	return err;
}

static bool is_args_module(const struct boot_module *m)
{
	return m->size >= sizeof(ARGS_MAGIC) - 1 && memcmp(m->data, ARGS_MAGIC, sizeof(ARGS_MAGIC) - 1) == 0;
}

static bool is_cpio(const struct boot_module *m)
{
	return m->size >= 6 && memcmp(m->data, "07070", 5) == 0;
}

/*
 * Every boot module into the tree; the ones copied give their memory back,
 * an archive all but the pages its files took over in place.
 */
static int unpack_modules(void)
{
	for (unsigned i = 0; i < module_count(); i++) {
		const struct boot_module *m = module_get(i);
		struct cpio_unpack u = { .keep_pages = true };
		uint64_t t0 = monotonic_ns();
		bool cpio = is_cpio(m);
		int err;

		if (is_args_module(m))
			continue;
		err = cpio ? fs_unpack_cpio(fs_root(), m->data, m->size, &u) : module_as_file(m);
		if (err) {
			printk("rootfs: module %u (%s): %s\n", i, m->name, errno_name(err));
			return err;
		}
		/* the time and the bytes copied: what a big --root tree costs at boot (issue 22, item 9) */
		if (cpio)
			printk("rootfs: module %u (%s, %zu KiB) unpacked in %llu ms: %llu KiB copied, "
			       "%lu KiB of file pages kept in place\n", i, m->name, m->size >> 10,
			       (unsigned long long)((monotonic_ns() - t0) / 1000000),
			       (unsigned long long)(u.copied >> 10), u.kept * (PAGE_SIZE >> 10));
		else
			printk("rootfs: module %u (%s, %zu KiB) copied in %llu ms\n", i, m->name, m->size >> 10,
			       (unsigned long long)((monotonic_ns() - t0) / 1000000));
		pmm_release_reserved_rest(virt_to_phys(m->data), virt_to_phys(m->data) + m->size);
	}
	return 0;
}

/* An empty directory of the layout (*out: a reference, may be NULL); -errno. */
static int make_dir(const char *name, uint32_t mode, struct dentry **out)
{
	return fs_mkdir(fs_root(), name, strlen(name), mode, out);
}

int rootfs_init(void)
{
	struct dentry *dev;
	int err = fs_init();

	if (err)
		return err;
	fs_set_clock(rootfs_clock);
	fs_set_page_limit(pmm_total_frames() / 2);
	err = make_dir("dev", 0755, &dev);
	if (!err) {
		err = devices_populate(dev);
		if (!err)
			err = fs_mkdir(dev, "shm", 3, 01777, NULL);
		dput(dev);
	}
	if (!err)
		err = procfs_mount(fs_root());
	if (!err)
		err = sysfs_mount(fs_root());
	if (!err)
		err = make_dir("tmp", 01777, NULL);
	if (!err)
		err = unpack_modules();
	return err;
}
