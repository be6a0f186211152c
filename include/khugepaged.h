/*
 * khugepaged: the background collapser (Linux mm/khugepaged.c). Its scan
 * is mm/khugepaged.c, its thread kernel/mm/khugepaged.c, its files
 * /sys/kernel/mm/transparent_hugepage/khugepaged/ (fs/proc/sysfs.c).
 *
 * Locking: the scan is called by one task at a time (the thread, or a
 * test with no thread running); the tunables and counters are [atomic].
 */
#ifndef KHUGEPAGED_H
#define KHUGEPAGED_H

#include "types.h"

/* The tunables and counters, as Linux's files in .../khugepaged/ name them. */
enum khugepaged_knob {
	KHUGEPAGED_PAGES_TO_SCAN,       /* entries looked at per wake-up (4096) */
	KHUGEPAGED_SCAN_SLEEP_MS,       /* sleep between wake-ups (10000) */
	KHUGEPAGED_MAX_PTES_NONE,       /* empty entries a slot may have (511) */
	KHUGEPAGED_MAX_PTES_SWAP,       /* swapped ones (64) */
	KHUGEPAGED_MAX_PTES_SHARED,     /* pages mapped elsewhere too (256) */
	KHUGEPAGED_FULL_SCANS,          /* passes over every address space (read-only) */
	KHUGEPAGED_PAGES_COLLAPSED,     /* huge pages made (read-only) */
	KHUGEPAGED_NR_KNOBS
};

/* khugepaged_get: a tunable's or counter's value now. */
unsigned long khugepaged_get(enum khugepaged_knob k);
/*
 * khugepaged_set: set a tunable (Linux's ranges: pages_to_scan 1 or
 * more, the max_ptes_* 0..511); 0, or -EINVAL out of range or for a
 * counter. A new scan_sleep_millisecs wakes the thread (khugepaged_kick).
 */
long khugepaged_set(enum khugepaged_knob k, long value);

/*
 * khugepaged_scan: look at up to pages entries' worth of the address
 * spaces that have a VMA khugepaged may collapse in (Linux's
 * khugepaged_do_scan), from where the last call stopped, collapsing the
 * slots that qualify. Returns the progress made (entries, plus one per
 * address space and per VMA skipped). No lock held.
 */
unsigned long khugepaged_scan(unsigned long pages);

/* Set by the thread: wakes it (a tunable changed). NULL: no thread. */
extern void (*khugepaged_kick)(void);

/* khugepaged_start: start the thread (kernel/mm/khugepaged.c). 0 or -ENOMEM. */
int khugepaged_start(void);

#endif
