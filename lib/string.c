/*
 * Memory and string functions for the kernel (include/kstring.h); the hosted
 * build uses libc's. Built with -fno-tree-loop-distribute-patterns so that
 * the compiler does not turn these loops back into calls to themselves.
 *
 * memcpy and memset move eight bytes per iteration of the string
 * instruction and finish the tail bytewise (whole pages go through
 * arch_clear_page / arch_copy_page, which follow the CPU's features).
 */
#include "kstring.h"
#include "kasan.h"

void *memcpy(void *dst, const void *src, size_t n)
{
	void *ret = dst;
	size_t words = n / 8, tail = n % 8;

	kasan_check_range(src, n, false);       /* (not instrumented: the copy is one instruction) */
	kasan_check_range(dst, n, true);
	__asm__ volatile("rep movsq\n\tmov %3, %%rcx\n\trep movsb"
			 : "+D"(dst), "+S"(src), "+c"(words) : "r"(tail) : "memory");
	return ret;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	kasan_check_range(src, n, false);
	kasan_check_range(dst, n, true);
	if (d < s || d >= s + n)
		return memcpy(dst, src, n);
	/* overlapping with dst above src: copy backwards */
	while (n--)
		d[n] = s[n];
	return dst;
}

static void *fill(void *dst, int c, size_t n)
{
	void *ret = dst;
	size_t words = n / 8, tail = n % 8;
	uint64_t pattern = 0x0101010101010101ULL * (unsigned char)c;

	__asm__ volatile("rep stosq\n\tmov %3, %%rcx\n\trep stosb"
			 : "+D"(dst), "+c"(words) : "a"(pattern), "r"(tail) : "memory");
	return ret;
}

void *memset(void *dst, int c, size_t n)
{
	kasan_check_range(dst, n, true);
	return fill(dst, c, n);
}

#ifdef KASAN
void *__memset(void *dst, int c, size_t n)
{
	return fill(dst, c, n);
}
#endif

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (a[i] != b[i])
			return (unsigned char)a[i] - (unsigned char)b[i];
		if (!a[i])
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}
