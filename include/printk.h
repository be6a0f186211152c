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
/*
 * printk_write: write len bytes of text as they are, in one piece: nothing
 * else printed reaches the console in the middle (a report of many lines,
 * e.g. vmk_vmdump's, stays whole). No formatting, no length limit.
 */
void printk_write(const char *text, size_t len);
/*
 * printk_set_line_prefix: begin every line printk writes from now on with
 * prefix (NULL: none), except lines that already read "# ..." after blanks.
 * The ktest runner sets "    # " while a case runs, so whatever a case
 * provokes on purpose (a slab poison report, a vma_check complaint) reaches
 * the KTAP stream as a diagnostic line. prefix must stay valid while set.
 */
void printk_set_line_prefix(const char *prefix);
/*
 * printk_held_here: this CPU holds the console's lock (it was stopped
 * inside printk: it must not print). printk_bust_lock: free the console's
 * lock whoever holds it, for a panic whose other CPUs are stopped (one
 * may have been stopped holding it).
 */
bool printk_held_here(void);
void printk_bust_lock(void);

#endif
