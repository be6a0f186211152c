/*
 * khugepaged: the background collapser's thread (Linux's khugepaged
 * kthread). It scans (khugepaged_scan, mm/khugepaged.c: pages_to_scan
 * entries' worth of the address spaces, collapsing what qualifies), then
 * sleeps scan_sleep_millisecs (10000 by default, as Linux; the kernel
 * option khugepaged_sleep_ms= sets it at boot, the file
 * /sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs at
 * any time: a new value wakes it at once, as Linux's store does), and
 * so on. Started with kswapd, after init.
 *
 * Locking: khugepaged_kicked is an atomic flag; the wait queue is the
 * scheduler's. The scan takes its own locks (mm/khugepaged.c).
 */
#include "task.h"
#include "lockless.h"
#include "wait.h"
#include "ktimer.h"
#include "khugepaged.h"
#include "printk.h"
#include "kerrno.h"

static struct wait_queue khugepaged_wait = WAIT_QUEUE_INIT(khugepaged_wait);
static int khugepaged_kicked;           /* [atomic] the sleep is cut short */

static void khugepaged_wake(void)
{
	smp_store_release(&khugepaged_kicked, 1);
	wake_up(&khugepaged_wait);
}

static bool khugepaged_should_wake(void *arg)
{
	(void)arg;
	return smp_load_acquire(&khugepaged_kicked);
}

static void khugepaged_main(void *arg)
{
	(void)arg;
	for (;;) {
		uint64_t ms;

		khugepaged_scan(khugepaged_get(KHUGEPAGED_PAGES_TO_SCAN));
		smp_store_release(&khugepaged_kicked, 0);
		ms = khugepaged_get(KHUGEPAGED_SCAN_SLEEP_MS);
		sleep_until_ns(deadline_after(ms * 1000000ULL), &khugepaged_wait, khugepaged_should_wake, NULL);
	}
}

int khugepaged_start(void)
{
	struct task *t = kthread_create(khugepaged_main, NULL, -1, "khugepaged");

	if (!t) {
		printk("khugepaged: not started (no task): no collapse in the background\n");
		return -ENOMEM;
	}
	t->kthread_edits_user_mm = true;
	kthread_start(t);
	smp_store_release(&khugepaged_kick, khugepaged_wake);
	return 0;
}
