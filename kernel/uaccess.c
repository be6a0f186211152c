/*
 * Checked copies to and from user memory (include/uaccess.h). The range
 * check comes first (below TASK_SIZE, no wrap-around), then the copy runs in
 * arch/x86_64/uaccess.asm where a fault is either resolved (demand paging,
 * COW, stack growth through handle_mm_fault, see arch/x86_64/traps.c) or
 * turned into a short copy, reported here as -EFAULT.
 */
#include "uaccess.h"
#include "mm.h"
#include "kerrno.h"
#include "kernel.h"
#include "task.h"
#include "kasan.h"

extern const uint64_t x86_extable[], x86_extable_end[];

bool access_ok(uintptr_t uaddr, size_t n)
{
	return uaddr <= TASK_SIZE && n <= TASK_SIZE - uaddr;
}

int copy_from_user(void *dst, const void *usrc, size_t n)
{
	if (!access_ok((uintptr_t)usrc, n))
		return -EFAULT;
	kasan_check_range(dst, n, true);
	return x86_copy_user(dst, usrc, n) ? -EFAULT : 0;
}

int copy_from_user_nofault(void *dst, const void *usrc, size_t n)
{
	struct task *t = current;
	size_t left;

	if (!access_ok((uintptr_t)usrc, n))
		return -EFAULT;
	kasan_check_range(dst, n, true);
	t->uaccess_nofault = true;
	left = x86_copy_user(dst, usrc, n);
	t->uaccess_nofault = false;
	return left ? -EFAULT : 0;
}

int copy_to_user(void *udst, const void *src, size_t n)
{
	if (!access_ok((uintptr_t)udst, n))
		return -EFAULT;
	kasan_check_range(src, n, false);
	return x86_copy_user(udst, src, n) ? -EFAULT : 0;
}

int clear_user(void *udst, size_t n)
{
	if (!access_ok((uintptr_t)udst, n))
		return -EFAULT;
	return x86_clear_user(udst, n) ? -EFAULT : 0;
}

long strncpy_from_user(char *dst, const char *usrc, size_t max)
{
	uintptr_t u = (uintptr_t)usrc;
	size_t done = 0;

	if (u >= TASK_SIZE)
		return -EFAULT;
	while (done < max) {
		/* up to the end of the page: if its first byte is readable, all of it is */
		size_t chunk = MIN(max - done, PAGE_SIZE - ((u + done) & (PAGE_SIZE - 1)));

		kasan_check_range(dst + done, chunk, true);
		if (!access_ok(u + done, chunk) || x86_copy_user(dst + done, (const void *)(u + done), chunk))
			return -EFAULT;
		for (size_t i = 0; i < chunk; i++)
			if (dst[done + i] == 0)
				return (long)(done + i);
		done += chunk;
	}
	return (long)max;
}

uint64_t uaccess_fixup(uint64_t rip)
{
	for (const uint64_t *e = x86_extable; e < x86_extable_end; e += 2)
		if (e[0] == rip)
			return e[1];
	return 0;
}
