/*
 * /dev: the character devices a program expects (Linux's drivers/char/mem.c
 * and random.c as they look from user space), and the links udev makes:
 * /dev/fd -> /proc/self/fd, /dev/stdin, stdout, stderr -> /proc/self/fd/0,
 * 1, 2 (fs/proc/fd.c says what opening them does). The devices are special
 * inodes of the file system (include/file.h, struct kspecial) made by
 * devices_populate.
 *
 *   null     1:3  reads end at once, writes vanish
 *   zero     1:5  reads give zeros, writes vanish
 *   random   1:8  reads give pseudo-random bytes (as urandom), writes vanish
 *   urandom  1:9  the same
 *
 * The random bytes are xorshift seeded by the TSC: not cryptographic.
 * mmap of /dev/zero is not supported (-ENODEV).
 */
#include "file.h"
#include "syscall_internal.h"
#include "task.h"
#include "prng.h"
#include "arch.h"
#include "kstring.h"
#include "kerrno.h"
#include "uaccess.h"

#define DEVTMPFS_DEV 0x5        /* st_dev of /dev's nodes on the reference machine */

long random_to_user(uint64_t ubuf, uint64_t len)
{
	static struct prng rng;
	uint64_t done = 0;

	if (!rng.s)
		prng_seed(&rng, arch_cycles());
	while (done < len) {
		uint64_t v = prng_next(&rng) ^ arch_cycles();
		size_t n = MIN(len - done, (uint64_t)8);

		if (copy_to_user((void *)(ubuf + done), &v, n))
			return done ? (long)done : -EFAULT;
		done += n;
	}
	return (long)done;
}

static long null_read(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	return 0;
}

static long sink_write(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	return access_ok(ubuf, n) ? (long)n : -EFAULT;
}

static long zero_read(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	return clear_user((void *)ubuf, n) ? -EFAULT : (long)n;
}

static long random_read(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	return random_to_user(ubuf, MIN((uint64_t)n, (uint64_t)0x1ffffff));
}

static const struct file_ops null_ops = { .read = null_read, .write = sink_write, .seekable = true };
static const struct file_ops zero_ops = { .read = zero_read, .write = sink_write, .seekable = true };
static const struct file_ops random_ops = { .read = random_read, .write = sink_write, .seekable = true };

static const struct kspecial dev_null = { .ops = &null_ops, .dev = DEVTMPFS_DEV };
static const struct kspecial dev_zero = { .ops = &zero_ops, .dev = DEVTMPFS_DEV };
static const struct kspecial dev_random = { .ops = &random_ops, .dev = DEVTMPFS_DEV };

static int make_dev(struct dentry *dev, const char *name, uint32_t mode, uint64_t rdev,
		    const struct kspecial *ks)
{
	return fs_create(dev, name, strlen(name), mode, rdev, &ks->base, NULL);
}

int devices_populate(struct dentry *dev)
{
	static const char *const std_names[3] = { "stdin", "stdout", "stderr" };
	static const char *const std_targets[3] = { "/proc/self/fd/0", "/proc/self/fd/1", "/proc/self/fd/2" };
	int err = make_dev(dev, "null", S_IFCHR | 0666, 1 << 8 | 3, &dev_null);

	if (!err)
		err = make_dev(dev, "zero", S_IFCHR | 0666, 1 << 8 | 5, &dev_zero);
	if (!err)
		err = make_dev(dev, "random", S_IFCHR | 0666, 1 << 8 | 8, &dev_random);
	if (!err)
		err = make_dev(dev, "urandom", S_IFCHR | 0666, 1 << 8 | 9, &dev_random);
	for (int i = 0; i < 3 && !err; i++)
		err = fs_symlink(dev, std_names[i], strlen(std_names[i]), std_targets[i], NULL);
	if (!err)
		err = fs_symlink(dev, "fd", 2, "/proc/self/fd", NULL);
	return err;
}
