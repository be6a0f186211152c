/*
 * sysops.c - the ops table of the user-mode runner: the kernel it runs on
 * (Linux or ours) through raw system calls (memfds are real memfds, the
 * handle an fd), real user-mode accesses (probe.c) and /proc/self/maps
 * (maps.c).
 */
#include "mmscript.h"

static long sys_op_mmap(unsigned long addr, unsigned long len, long prot, long flags)
{
	return sys_mmap(addr, len, prot, flags, -1, 0);
}

static long sys_op_munmap(unsigned long addr, unsigned long len)
{
	return sys_munmap(addr, len);
}

static long sys_op_mremap(unsigned long addr, unsigned long oldlen, unsigned long newlen,
			  long flags, unsigned long newaddr)
{
	return sys_mremap(addr, oldlen, newlen, flags, newaddr);
}

static long sys_op_mprotect(unsigned long addr, unsigned long len, long prot)
{
	return sys_mprotect(addr, len, prot);
}

static long sys_op_madvise(unsigned long addr, unsigned long len, long advice)
{
	return sys_madvise(addr, len, advice);
}

static long sys_op_brk(unsigned long addr)
{
	return sys_brk(addr);
}

/*
 * The vector lives outside the window: cap bytes rounded up to pages, then
 * a PROT_NONE page, so a longer result faults (-EFAULT) instead of
 * corrupting the runner.
 */
static long sys_op_mincore(unsigned long addr, unsigned long len, unsigned char *out,
			   unsigned long cap)
{
	unsigned long vsize = (cap + UPAGE_SIZE - 1) & ~(UPAGE_SIZE - 1);
	long vec, r;

	if (vsize == 0)
		vsize = UPAGE_SIZE;
	vec = sys_mmap(0, vsize + UPAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (usys_is_err(vec))
		return vec;
	sys_mprotect((unsigned long)vec + vsize, UPAGE_SIZE, PROT_NONE);
	r = sys_mincore(addr, len, (unsigned char *)vec);
	if (!usys_is_err(r))
		memcpy(out, (const void *)vec, cap);
	sys_munmap((unsigned long)vec, vsize + UPAGE_SIZE);
	return r;
}

static long sys_op_memfd(const char *name)
{
	return sys_memfd_create(name, 0);
}

static long sys_op_ftruncate(long h, unsigned long size)
{
	return sys_ftruncate((int)h, size);
}

static long sys_op_pwrite1(long h, unsigned long off, unsigned int val)
{
	unsigned char b = (unsigned char)val;

	return sys_pwrite((int)h, &b, 1, off);
}

static long sys_op_pread1(long h, unsigned long off, unsigned int *val)
{
	unsigned char b = 0;
	long r = sys_pread((int)h, &b, 1, off);

	*val = b;
	return r;
}

static long sys_op_close(long h)
{
	return sys_close((int)h);
}

static long sys_op_mmap_file(unsigned long addr, unsigned long len, long prot, long flags, long h,
			     unsigned long off)
{
	return sys_mmap(addr, len, prot, flags, h, off);
}

static long sys_op_msync(unsigned long addr, unsigned long len, long flags)
{
	return sys_msync(addr, len, flags);
}

static void sys_op_output(const char *buf, size_t len)
{
	uwrite_all(1, buf, len);
}

const struct mms_ops mms_sys_ops = {
	.mmap = sys_op_mmap,
	.munmap = sys_op_munmap,
	.mremap = sys_op_mremap,
	.mprotect = sys_op_mprotect,
	.madvise = sys_op_madvise,
	.brk = sys_op_brk,
	.mincore = sys_op_mincore,
	.read = mms_probe_read,
	.write = mms_probe_write,
	.fill = mms_probe_fill,
	.maps = mms_sys_maps,
	.memfd = sys_op_memfd,
	.ftruncate = sys_op_ftruncate,
	.pwrite1 = sys_op_pwrite1,
	.pread1 = sys_op_pread1,
	.close = sys_op_close,
	.mmap_file = sys_op_mmap_file,
	.msync = sys_op_msync,
	.errno_name = uerrno_name,
	.output = sys_op_output,
};
