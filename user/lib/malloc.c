/*
 * malloc.c - a minimal allocator: every block is its own anonymous private
 * mapping placed by the kernel (no hint), headed by its mapping size. It never
 * calls brk. Wasteful for tiny blocks, but simple and obviously correct,
 * which is what the test programs need.
 */
#include "ulib.h"

#define HDR 16UL        /* keeps user pointers 16-byte aligned */

/* malloc - see umalloc.h. */
void *malloc(size_t n)
{
	size_t total;
	long p;

	if (n > (~0UL >> 2)) {
		errno = ENOMEM;
		return NULL;
	}
	total = (n + HDR + UPAGE_SIZE - 1) & ~(UPAGE_SIZE - 1);
	p = sys_mmap(0, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (usys_is_err(p)) {
		errno = ENOMEM;
		return NULL;
	}
	*(size_t *)p = total;
	return (void *)(p + (long)HDR);
}

/* calloc - see umalloc.h (fresh anonymous memory is already zero). */
void *calloc(size_t n, size_t size)
{
	if (size && n > ~0UL / size) {
		errno = ENOMEM;
		return NULL;
	}
	return malloc(n * size);
}

/* free - see umalloc.h. */
void free(void *p)
{
	char *h;

	if (!p)
		return;
	h = (char *)p - HDR;
	sys_munmap((unsigned long)h, *(size_t *)h);
}

/* realloc - see umalloc.h. */
void *realloc(void *p, size_t n)
{
	size_t old;
	void *q;

	if (!p)
		return malloc(n);
	old = *(size_t *)((char *)p - HDR) - HDR;
	if (n <= old)
		return p;
	q = malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, old);
	free(p);
	return q;
}
