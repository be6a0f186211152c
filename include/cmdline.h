/*
 * Kernel command-line parameters. The line is a list of space-separated
 * key=value words; a leading word without '=' (the kernel's file name, as
 * QEMU and GRUB pass it) is skipped. Known keys:
 *   ktest=all|default|none|PATTERN[,...]      tests to run at boot (default: "default");
 *                                             PATTERN is SUITE[.CASE][/PARAM] with globs
 *                                             (include/ktest.h)
 *   ktest_list=on|off                         list the tests ktest= selects instead of
 *                                             running them
 *   profile=SUITE[,SUITE...]                  run these suites under the profiler, print the table
 *   profile=user                              profile the user program (init) instead
 *   profile_hz=N                              profiler samples per second (include/profile.h)
 *   profile_stacks=on|off                     also record and print folded kernel stacks
 *   profile_dither=on|off                     vary each sampling period within +-1/8 (default on)
 *   profile_seed=N                            draw those periods from sequence N (default 0:
 *                                             every run draws the same; boots with different N
 *                                             sample the same work at other instants)
 *   profile_entry=on|off                      root each folded kernel stack at the user address
 *                                             its task entered the kernel from (default off)
 *   vmastat=on|off                            count VMA index operations and their node
 *                                             accesses by kind (include/profile_vma.h)
 *   vma=list|avl|hash|rbtree|btree            VMA index backend for new address spaces
 *                                             (a name that is no backend is an error:
 *                                             the boot fails instead of testing another)
 *   merge=on|off                              VMA merging (for measurements)
 *   zero_page=on|off                          read faults of private anonymous memory map
 *                                             the shared zero page (on, Linux on x86) or
 *                                             a fresh page of the VMA's own (off, Linux
 *                                             where mm_forbids_zeropage() holds)
 *   thp=always|madvise|never                  transparent huge pages for private anonymous
 *                                             memory (mm/thp.c; default always, as
 *                                             Linux's Kconfig default and Debian)
 *   khugepaged_sleep_ms=N                     khugepaged's sleep between scans (default
 *                                             10000, Linux's scan_sleep_millisecs; the
 *                                             file of that name changes it later)
 *   pku=on|off                                use protection keys for execute-only
 *                                             memory when the CPU has them (Linux does)
 *   strace=on|off                             log each system call, its arguments and
 *                                             result to the kernel log (default off)
 *   acpi=on|off                               find the CPUs through ACPI (on) or the MP
 *                                             tables only (off)
 *   x2apic=on|off                             the LAPICs in x2APIC mode when the CPU has
 *                                             it (on, default) or in xAPIC mode (off;
 *                                             x2APIC all the same if the firmware left it so)
 *   smp=N                                     bring up at most N CPUs (0, default: all)
 *   fault_lock=mmap|vma                       page faults take, when they can, only their
 *                                             VMA's lock (vma, default: Linux 6.4's
 *                                             per-VMA locks) or the mmap_lock (mmap)
 *   madv_lock=read|write                      MADV_DONTNEED/FREE take the mmap_lock for
 *                                             reading (default, Linux since 2007) or for
 *                                             writing (the 2007 vanilla kernel)
 *   swap=NAME|off                             swap on the block device NAME (vda: the first
 *                                             virtio disk) at boot (include/swap.h);
 *                                             default off
 *   fbcon=on|off|hold                         the framebuffer console (include/fbcon.h) when
 *                                             the loader hands over a framebuffer: on
 *                                             (default), off, or hold: on, and before
 *                                             exiting wait for a byte on COM1 (so that a
 *                                             test can take a screenshot: tools/test-fbcon)
 *   crash=null|panic|stack|bug|lockorder      after boot, deliberately crash (to see and
 *                                             test the fatal exception/panic reports)
 * An unknown key, or a word that is not key=value, prints a warning and is ignored.
 */
#ifndef CMDLINE_H
#define CMDLINE_H

#include "types.h"

#define CMDLINE_VALUE_MAX 256
#define KTEST_FILTER_MAX  2048                  /* ktest= may list many patterns */

struct kernel_params {
	char ktest[KTEST_FILTER_MAX];
	char profile[CMDLINE_VALUE_MAX];        /* empty: no profile run */
	unsigned profile_hz;                    /* default TIMER_HZ */
	bool profile_stacks;                    /* default false */
	bool profile_dither;                    /* default true */
	unsigned profile_seed;                  /* default 0 */
	bool profile_entry;                     /* default false */
	bool vmastat;                           /* default false */
	char vma[CMDLINE_VALUE_MAX];            /* empty: the default backend */
	bool merge;                             /* default true */
	bool zero_page;                         /* default true */
	unsigned thp;                           /* enum thp_mode (include/mm.h); default always */
	unsigned khugepaged_sleep_ms;           /* default 10000 (include/khugepaged.h) */
	bool pku;                               /* default true */
	bool acpi;                              /* default true */
	bool x2apic;                            /* default true */
	unsigned smp;                           /* CPUs to bring up at most; 0 (default): all */
	bool fault_lock_vma;                    /* fault_lock=vma (true, default) or mmap (false) */
	bool madv_lock_write;                   /* madv_lock=write (true) or read (false, default) */
	bool reclaim_lru;                       /* reclaim=lru (true, default) or scan (false) */
	bool ktest_list;                        /* default false */
	bool strace;                            /* default false */
	char crash[CMDLINE_VALUE_MAX];          /* empty: no deliberate crash */
	char swap[16];                          /* empty or "off": no swap; else a block device name */
	unsigned fbcon;                         /* enum fbcon_mode (include/fbcon.h); default on */
	unsigned warnings;                      /* unknown or malformed words seen */
};

extern struct kernel_params kparams;
/* The boot loader's command line as given ("" before boot reads it): /proc/cmdline (Linux's saved_command_line). */
extern const char *kernel_cmdline;

/* Reset p to the defaults, then apply the words of line. Returns the number of warnings. */
unsigned cmdline_parse(struct kernel_params *p, const char *line);

#endif
