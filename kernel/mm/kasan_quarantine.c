/*
 * The sanitizer's quarantine (include/kasan.h): freed slab objects wait
 * here, poisoned, in free order, before their slots can be handed out
 * again, so that a use after free finds the memory still marked freed
 * instead of reused by someone else (Linux's mm/kasan/quarantine.c, with
 * one global queue instead of per-CPU ones).
 *
 * The queue is singly linked through each object's first word (the object
 * is dead, and it has room for a pointer: slab slots are at least 8
 * bytes). Its budget is 1/32 of RAM, at least 256 KiB: past it the oldest
 * objects go back to their slabs (slab_release_object).
 *
 * Locking: quarantine_lock guards the queue and its byte count; objects
 * are released with it dropped (slab_release_object takes the cache's
 * lock), so the two never nest.
 */
#ifdef KASAN
#include "kasan.h"
#include "pmm.h"
#include "slab.h"
#include "spinlock.h"

static struct spinlock quarantine_lock = SPINLOCK_INIT_CLASS("kasan_quarantine", LOCK_CLASS_KASAN_QUARANTINE);
static void *head, *tail;               /* oldest, newest */
static size_t bytes;

static size_t budget(void)
{
	size_t b = pmm_total_frames() * PAGE_SIZE / 32;

	return b < (256UL << 10) ? 256UL << 10 : b;
}

/* Unlink the oldest objects while the queue holds more than keep bytes; returns them, linked. */
static void *take_locked(size_t keep)
{
	void *list = NULL, **link = &list;

	while (head && bytes > keep) {
		void *obj = head;

		head = *(void **)obj;
		if (!head)
			tail = NULL;
		bytes -= slab_object_room(obj);
		*link = obj;
		link = (void **)obj;
	}
	*link = NULL;
	return list;
}

static void release(void *list)
{
	while (list) {
		void *next = *(void **)list;

		slab_release_object(list);
		list = next;
	}
}

void kasan_quarantine_put(void *obj)
{
	unsigned long flags = spin_lock_irqsave(&quarantine_lock);
	void *old = NULL;

	*(void **)obj = NULL;
	if (tail)
		*(void **)tail = obj;
	else
		head = obj;
	tail = obj;
	bytes += slab_object_room(obj);
	if (bytes > budget())
		old = take_locked(budget() / 2);
	spin_unlock_irqrestore(&quarantine_lock, flags);
	release(old);
}

void kasan_quarantine_drain(void)
{
	unsigned long flags = spin_lock_irqsave(&quarantine_lock);
	void *all = take_locked(0);

	spin_unlock_irqrestore(&quarantine_lock, flags);
	release(all);
}
#endif
