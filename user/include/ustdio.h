/*
 * ustdio.h - formatted output of the tiny user libc (unbuffered).
 *
 * Conversions: %d %i %u %x %X %o %c %s %p %%, length modifiers hh h l ll z t j,
 * flags '-' '0' ' ' '+' '#', field width and precision (numbers, also '*').
 * No floating point. Output functions write with write(2) directly, so
 * lines from a parent and its children never sit in a stale buffer across fork.
 */
#ifndef USTDIO_H
#define USTDIO_H

#include <stdarg.h>
#include <stddef.h>

/*
 * vsnprintf - format into buf (at most size bytes including the NUL; buf may
 * be NULL when size is 0). Returns the length the full output would have.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * vdprintf/dprintf/printf - format and write to fd (printf: fd 1). Output
 * longer than an internal 1 KiB chunk is written in several write() calls.
 * Returns the number of bytes written or -1 (errno set).
 */
int vdprintf(int fd, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int dprintf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write all n bytes of buf to fd (retrying short writes). 0 or -errno. */
long uwrite_all(int fd, const void *buf, size_t n);

/* Write the string s to fd 1. Returns 0 or -errno. */
int puts_nonl(const char *s);

#endif
