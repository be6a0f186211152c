/* Kernel console output and the freestanding formatter behind it. */
#ifndef PRINTK_H
#define PRINTK_H

#include "kernel.h"

/*
 * kvsnprintf: format like C's vsnprintf into buf (size bytes, always
 * NUL-terminated when size > 0). Supports %d %i %u %x %X %o %c %s %p %%,
 * flags '-', '0', ' ', '+', '#', a width and precision (numbers or '*'), and
 * the length modifiers hh h l ll z t j. Returns the length the whole output
 * would have had, like vsnprintf.
 */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
__printf(3, 4) int ksnprintf(char *buf, size_t size, const char *fmt, ...);

/* printk: format and write to the console (serial port / host stdout). Returns bytes written. */
__printf(1, 2) int printk(const char *fmt, ...);
int vprintk(const char *fmt, va_list ap);

#endif
