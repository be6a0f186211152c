/*
 * mmscript.h - internals of the mmscript runner (user/mmscript/).
 *
 * The runner executes mmscript files (docs/mmscript.md, language in
 * docs/spec/mmscript.md) against the kernel it runs on. The same source
 * runs on the host Linux and on our kernel; outputs must match byte for byte.
 *
 *   main.c    command line, scripts from files or a bundle, window choice,
 *             one forked child per script, framing and INCOMPLETE detection
 *   script.c  parsing one script, formatting one output line per command
 *             (environment-neutral core, see mms_core.h; also built into
 *             the host program tools/mmscript_host.c)
 *   sb.c      a growable string buffer (core too)
 *   sysops.c  the ops table of the runner: system calls
 *   probe.c   user-mode read/write/fill that survive SIGSEGV/SIGBUS
 *   maps.c    /proc/self/maps: reading, window check, the maps op
 */
#ifndef MMSCRIPT_H
#define MMSCRIPT_H

#include "ulib.h"
#include "mms_core.h"

/* The ops of the user-mode runner: system calls and real accesses (sysops.c). */
extern const struct mms_ops mms_sys_ops;

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
 * mms_sys_maps - mms_ops.maps over /proc/self/maps. 0 or -errno.
 */
int mms_sys_maps(mms_maps_emit emit, void *arg);

#endif
