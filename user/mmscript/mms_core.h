/*
 * mms_core.h - the environment-neutral core of mmscript: parsing a script,
 * formatting its output, and a table of operations that executes it.
 *
 * The core (script.c, sb.c) builds in two environments:
 *  - the user-mode runner (user/mmscript/, tiny libc "ulib.h"), whose ops
 *    are real system calls and real user-mode accesses (sysops.c, probe.c,
 *    maps.c) on Linux or on our kernel;
 *  - the host program (tools/mmscript_host.c, built with -DMMS_HOST against
 *    the host libc), whose ops call the kernel's VM cores (vm_mmap, ...) on
 *    a hosted address space (mm/ + arch/hosted).
 * The core only needs: string functions, malloc/realloc/free, vsnprintf,
 * dprintf and exit. The numeric constants below are Linux x86-64's, so both
 * environments pass the same values.
 */
#ifndef MMS_CORE_H
#define MMS_CORE_H

#ifdef MMS_HOST
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#else
#include "ulib.h"
#endif

#define MMS_WINDOW_SIZE (1UL << 30)     /* 1 GiB */
#define MMS_PAGE_SIZE   4096UL

/* Linux x86-64 values of what scripts name. */
#define MMS_PROT_READ   0x1
#define MMS_PROT_WRITE  0x2
#define MMS_PROT_EXEC   0x4

#define MMS_MAP_SHARED          0x01
#define MMS_MAP_PRIVATE         0x02
#define MMS_MAP_FIXED           0x10
#define MMS_MAP_ANONYMOUS       0x20
#define MMS_MAP_NORESERVE       0x4000
#define MMS_MAP_POPULATE        0x8000
#define MMS_MAP_FIXED_NOREPLACE 0x100000

#define MMS_MREMAP_MAYMOVE   1
#define MMS_MREMAP_FIXED     2
#define MMS_MREMAP_DONTUNMAP 4

#define MMS_MS_ASYNC      1
#define MMS_MS_INVALIDATE 2
#define MMS_MS_SYNC       4

#define MMS_MAX_FILES 8                 /* memfds a script may have open at once */
#define MMS_NAME_MAX  32                /* longest memfd NAME of a script */

#define MMS_SIGBUS  7                   /* signal numbers the access ops return */
#define MMS_SIGSEGV 11

/* A raw system-call style result that is an error (-4095..-1). */
static inline int mms_is_err(long raw)
{
	return (unsigned long)raw >= (unsigned long)-4095L;
}

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
 * mms_maps_emit - callback of mms_ops.maps: one VMA [start, end) with its
 * /proc/PID/maps permission string (4 characters, e.g. "rw-p"); for a
 * mapping of a memfd, file is its NAME (what memfd_create was given) and
 * off the file offset of start; NULL for any other VMA.
 */
typedef void (*mms_maps_emit)(void *arg, unsigned long start, unsigned long end,
			      const char *perms, const char *file, unsigned long off);

/*
 * mms_memfd_name - the NAME in a memfd's path as /proc/PID/maps shows it,
 * "/memfd:NAME (deleted)", copied to out (MMS_NAME_MAX + 1 bytes); 0, or -1
 * when path is not that of a memfd with a NAME of [a-z0-9_]+.
 */
int mms_memfd_name(const char *path, size_t len, char *out);

/*
 * The operations a script executes. Results of the system-call ops are raw:
 * a value, or -errno. Every op is required.
 */
struct mms_ops {
	long (*mmap)(unsigned long addr, unsigned long len, long prot, long flags);
	long (*munmap)(unsigned long addr, unsigned long len);
	long (*mremap)(unsigned long addr, unsigned long oldlen, unsigned long newlen,
		       long flags, unsigned long newaddr);
	long (*mprotect)(unsigned long addr, unsigned long len, long prot);
	long (*madvise)(unsigned long addr, unsigned long len, long advice);
	/* raw brk: the new or unchanged break */
	long (*brk)(unsigned long addr);
	/*
	 * mincore with a result vector of cap bytes (cap = min(pages,
	 * MMS_MINCORE_MAX)): 0 with vec[0..min(pages, cap)) filled, or -errno;
	 * a result that does not fit in cap bytes gives -EFAULT, as a user
	 * vector followed by an inaccessible page would.
	 */
	long (*mincore)(unsigned long addr, unsigned long len, unsigned char *vec,
			unsigned long cap);
	/* User-mode accesses: 0, or MMS_SIGSEGV / MMS_SIGBUS. */
	int (*read)(unsigned long addr, unsigned int *val);
	int (*write)(unsigned long addr, unsigned int val);
	/*
	 * fill: store val at addr, then at the start of every following page
	 * below addr + len (len > 0). 0, or the signal with *fault_page = the
	 * page (aligned down) whose store faulted.
	 */
	int (*fill)(unsigned long addr, unsigned long len, unsigned int val,
		    unsigned long *fault_page);
	/* Every VMA of the address space, lowest first, through emit. 0 or -errno. */
	int (*maps)(mms_maps_emit emit, void *arg);
	/*
	 * Files (docs/spec/mmscript.md, "File mappings"). A file is named by
	 * a handle the op chose (>= 0: the runner's fd).
	 * memfd: memfd_create(name, 0): the handle or -errno.
	 * ftruncate, close, msync: 0 or -errno.
	 * pwrite1: write the byte val at off: 1, or -errno.
	 * pread1: read the byte at off into *val: 1, 0 at the end, or -errno.
	 * mmap_file: mmap(addr, len, prot, flags, the file, off): the address or -errno.
	 */
	long (*memfd)(const char *name);
	long (*ftruncate)(long h, unsigned long size);
	long (*pwrite1)(long h, unsigned long off, unsigned int val);
	long (*pread1)(long h, unsigned long off, unsigned int *val);
	long (*close)(long h);
	long (*mmap_file)(unsigned long addr, unsigned long len, long prot, long flags, long h,
			  unsigned long off);
	long (*msync)(unsigned long addr, unsigned long len, long flags);
	/* The symbolic name of a positive errno value ("EINVAL"), or NULL. */
	const char *(*errno_name)(int err);
	/* Write one finished output line (len bytes, ending in '\n'). */
	void (*output)(const char *buf, size_t len);
};

/* mincore: the most result bytes a script can get (then -EFAULT). */
#define MMS_MINCORE_MAX (1UL << 20)

/* The state of the script being run, set up by the environment before mms_run_script. */
struct mms_state {
	const struct mms_ops *ops;
	unsigned long window;   /* W: base of the script window, 1 GiB aligned */
	unsigned long brk0;     /* the break when the script started (brk(0)) */
	struct mms_file {       /* the script's open memfds (mms_run_script empties it) */
		char name[MMS_NAME_MAX + 1];    /* "" for a free slot */
		long h;
	} files[MMS_MAX_FILES];
};
extern struct mms_state mms;

/*
 * mms_run_script - execute the script text[0..len) line by line through
 * mms.ops, writing one output line per command (ops->output) as soon as it
 * completes (so a crash loses at most the command that crashed). The files
 * table starts empty; files still open at the end stay open (a caller that
 * checks for leaks closes them: mms_close_files).
 * Returns 0 (a script always runs to its end unless the process dies).
 */
int mms_run_script(const char *text, size_t len);

/* mms_close_files - close every file the script left open. */
void mms_close_files(void);

/* mms_fmt_rel - append addr relative to W: "+0xN" at or above W, "-0xN" below. */
void mms_fmt_rel(struct sb *out, unsigned long addr);

/*
 * mms_maps_print - append the `maps` result for the window: one line per VMA
 * intersecting [W, W+1GiB), lowest first, "  +START-+END PERMS\n" (bounds are
 * not clipped; a bound below W prints as -0xN). Returns 0 or -errno (nothing
 * appended then).
 */
int mms_maps_print(struct sb *out);

#endif
