/*
 * kswapd: the background reclaim thread (Linux's per-node kswapd; one
 * here). It sleeps until a fault leaves fewer free frames than the low
 * watermark (vmscan_check_low calls kswapd_wake), then reclaims until the
 * high watermark (kswapd_balance, mm/vmscan.c) and sleeps again, so that
 * faults find pages without reclaiming themselves.
 *
 * Locking: kswapd_pending is an atomic flag; the wait queue is the
 * scheduler's. kswapd_wake may be called from any task context with no
 * spinning lock held.
 */
#include "task.h"
#include "lockless.h"
#include "wait.h"
#include "vmscan.h"
#include "printk.h"
#include "kerrno.h"

static struct wait_queue kswapd_wait = WAIT_QUEUE_INIT(kswapd_wait);
static int kswapd_pending;

/* kswapd_wake: ask kswapd to balance (once: a wake-up already pending is not repeated). */
static void kswapd_wake(void)
{
	if (__atomic_exchange_n(&kswapd_pending, 1, __ATOMIC_ACQ_REL))
		return;
	wake_up(&kswapd_wait);
}

static void kswapd_main(void *arg)
{
	(void)arg;
	for (;;) {
		wait_event(&kswapd_wait, smp_load_acquire(&kswapd_pending));
		smp_store_release(&kswapd_pending, 0);
		kswapd_balance();
	}
}

/*
 * kswapd_start: start the thread (on any CPU) and let faults wake it.
 * 0, or -ENOMEM when no task could be made (reclaim is then direct only).
 */
int kswapd_start(void)
{
	struct task *t = kthread_create(kswapd_main, NULL, -1, "kswapd0");

	if (!t) {
		printk("kswapd: not started (no task): reclaim is direct only\n");
		return -ENOMEM;
	}
	t->kthread_edits_user_mm = true;
	kthread_start(t);
	smp_store_release(&vmscan_wake_kswapd, kswapd_wake);
	return 0;
}
