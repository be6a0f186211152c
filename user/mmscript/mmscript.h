/*
 * mmscript.h - internals of the mmscript runner (user/mmscript/).
 *
 * The runner executes mmscript files (docs/mmscript.md, spec in
 * ../shared/spec/mmscript.md) against the kernel it runs on. The same source
 * runs on the host Linux and on our kernel; outputs must match byte for byte.
 *
 *   main.c    command line, scripts from files or a bundle, window choice,
 *             one forked child per script, framing and INCOMPLETE detection
 *   script.c  parsing and executing one script, one output line per command
 *   probe.c   user-mode read/write/fill that survive SIGSEGV/SIGBUS
 *   maps.c    /proc/self/maps: reading, window check, the `maps` command
 *   sb.c      a growable string buffer (memory from the mmap-only malloc)
 */
#ifndef MMSCRIPT_H
#define MMSCRIPT_H

#include "ulib.h"

#define MMS_WINDOW_SIZE (1UL << 30)     /* 1 GiB */

/* Per-process runner state, set up by main() before the children fork. */
struct mms_state {
	unsigned long window;   /* W: base of the script window, 1 GiB aligned */
	unsigned long brk0;     /* the break when the script started (brk(0)) */
};
extern struct mms_state mms;

/* A growable string; buf is always NUL-terminated once sb_init() ran. */
struct sb {
	char *buf;
	size_t len, cap;
};

/* sb_init - empty string. Exits the process (status 3) when out of memory. */
void sb_init(struct sb *s);
/* sb_free - release the buffer; s must be re-initialised before reuse. */
void sb_free(struct sb *s);
/* sb_putc/sb_puts/sb_putn - append; exit(3) when out of memory. */
void sb_putc(struct sb *s, char c);
void sb_puts(struct sb *s, const char *str);
void sb_putn(struct sb *s, const char *str, size_t n);
/* sb_printf - append formatted text; exit(3) when out of memory. */
void sb_printf(struct sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * mms_run_script - execute the script text[0..len) line by line, writing one
 * output line per command to fd 1 as soon as it completes (so a crash loses
 * at most the command that crashed). Uses mms.window and mms.brk0.
 * Returns 0 (a script always runs to its end unless the process dies).
 */
int mms_run_script(const char *text, size_t len);

/*
 * mms_probe_install - install the SIGSEGV/SIGBUS handlers the probes need.
 * Returns 0 or -errno. Inherited across fork.
 */
int mms_probe_install(void);
/* mms_probe_read - load one byte at addr into *val. 0, or SIGSEGV/SIGBUS. */
int mms_probe_read(unsigned long addr, unsigned int *val);
/* mms_probe_write - store val at addr. 0, or SIGSEGV/SIGBUS. */
int mms_probe_write(unsigned long addr, unsigned int val);
/*
 * mms_probe_fill - store val at the lowest address of [addr, addr+len) in
 * every page that range touches, in ascending order. 0, or the signal number
 * with *fault_page = the page (aligned down) whose store faulted. len > 0.
 */
int mms_probe_fill(unsigned long addr, unsigned long len, unsigned int val,
		   unsigned long *fault_page);

/*
 * mms_maps_read - the text of /proc/self/maps in *out (sb_init'ed by the
 * caller). Returns 0 or the -errno of open/read.
 */
int mms_maps_read(struct sb *out);
/*
 * mms_range_is_free - 1 when no VMA intersects [lo, hi), 0 when one does,
 * -errno when neither /proc/self/maps nor a MAP_FIXED_NOREPLACE probe can tell.
 */
int mms_range_is_free(unsigned long lo, unsigned long hi);
/*
 * mms_maps_print - append the `maps` result for the window: one line per VMA
 * intersecting [W, W+1GiB), lowest first, "  +START-+END PERMS\n" (bounds are
 * not clipped; a bound below W prints as -0xN). Returns 0 or -errno (nothing
 * appended then).
 */
int mms_maps_print(struct sb *out);

/* mms_fmt_rel - append addr relative to W: "+0xN" at or above W, "-0xN" below. */
void mms_fmt_rel(struct sb *out, unsigned long addr);

#endif
