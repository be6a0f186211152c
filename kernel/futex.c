/*
 * futex(2): WAIT, WAKE, WAIT_BITSET, WAKE_BITSET, REQUEUE, CMP_REQUEUE,
 * private and shared, with timeouts; robust lists walked at thread exit.
 *
 * Keys (Linux get_futex_key): a word in a MAP_SHARED mapping of a futex
 * without FUTEX_PRIVATE_FLAG is keyed by its physical address, so that
 * processes mapping the same page meet (mm_futex_key); any other word by
 * (address space, address).
 *
 * Waiters live on the stack of the waiting task, in one of FUTEX_HASH
 * lists under one spinlock (class FUTEX). No lost wake-ups: a waiter is
 * queued first and reads the futex word only then (a full fence between);
 * a waker changes the word first and takes the lock to scan second. So a
 * waiter that read the old value is already on its list when the waker
 * scans. A waker removes each waiter it wakes from the list, marks it
 * woken and wakes it, all under the lock; a waiter leaving (value changed,
 * timeout, signal) takes the lock too and returns 0 if it was woken
 * meanwhile, so every counted wake-up reaches a waiter that returns 0.
 *
 * CMP_REQUEUE compares the word under the futex lock, as Linux under its
 * hash-bucket locks: no waker can slip in between the comparison and the
 * move. The read under the spinlock must not fault (the fault path
 * sleeps), so it is copy_from_user_nofault; on a fault the lock is
 * dropped, the page faulted in by a plain read, and the operation retried.
 * Linux's other operations (WAKE_OP, the PI family, WAITV) are -ENOSYS.
 */
#include "syscall_internal.h"
#include "lockless.h"
#include "task.h"
#include "signal.h"
#include "wait.h"
#include "ktimer.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"
#include "spinlock.h"
#include "mm.h"

#define FUTEX_WAIT            0
#define FUTEX_WAKE            1
#define FUTEX_REQUEUE         3
#define FUTEX_CMP_REQUEUE     4
#define FUTEX_WAIT_BITSET     9
#define FUTEX_WAKE_BITSET     10
#define FUTEX_PRIVATE_FLAG    128
#define FUTEX_CLOCK_REALTIME  256
#define FUTEX_BITSET_ANY      0xffffffffU
#define NSEC 1000000000ULL
#define FUTEX_HASH 64

/* What a waiter waits on: (mm, address) of a private word, (NULL, physical address) of a shared one. */
struct futex_key {
	const struct mm *mm;
	uint64_t word;
};

struct futex_waiter {
	struct list_head link;        /* [futex_lock] in futex_lists[hash of key] until woken */
	struct futex_key key;         /* [futex_lock] (a requeue changes it) */
	uint32_t bitset;
	bool woken;                   /* [futex_lock] set by the waker, which unlinked it */
	struct wait_queue wq;         /* the waiting task sleeps here */
};

static struct spinlock futex_lock = SPINLOCK_INIT_CLASS("futex", LOCK_CLASS_FUTEX);
static struct list_head futex_lists[FUTEX_HASH];   /* [futex_lock] */

static struct list_head *futex_list(const struct futex_key *k)
{
	uint64_t h = ((uint64_t)(uintptr_t)k->mm ^ k->word) * 0x9E3779B97F4A7C15ULL;
	struct list_head *l = &futex_lists[h >> 58];

	if (!l->next)
		list_init(l);           /* first use (lists start zeroed); futex_lock held */
	return l;
}

static bool key_eq(const struct futex_key *a, const struct futex_key *b)
{
	return a->mm == b->mm && a->word == b->word;
}

/* The key of addr for the current task; 0, -EINVAL misaligned, -EFAULT. */
static long futex_key_of(uintptr_t addr, bool private, struct futex_key *k)
{
	bool shared = false;
	uint64_t word = addr;

	if (addr & 3)
		return -EINVAL;
	if (!access_ok(addr, 4))
		return -EFAULT;
	if (!private && mm_futex_key(current->mm, addr, &shared, &word))
		return -EFAULT;
	k->mm = shared ? NULL : current->mm;
	k->word = word;
	return 0;
}

/*
 * Wake up to nwake waiters on k whose bitset meets bitset, then move up to
 * nmove more to to (when to is not NULL). The number woken plus moved.
 * futex_lock held.
 */
static int futex_wake_move_locked(const struct futex_key *k, int nwake, uint32_t bitset,
				  const struct futex_key *to, int nmove)
{
	struct list_head *l, *p, *tmp;
	int woken = 0, moved = 0;

	l = futex_list(k);
	list_for_each_safe(p, tmp, l) {
		struct futex_waiter *w = list_entry(p, struct futex_waiter, link);

		if (!key_eq(&w->key, k) || !(w->bitset & bitset))
			continue;
		if (woken < nwake) {
			list_del(&w->link);
			smp_store_release(&w->woken, true);
			wake_up(&w->wq);        /* under the lock: the waiter cannot return meanwhile */
			woken++;
		} else if (to && moved < nmove) {
			list_del(&w->link);
			w->key = *to;
			list_add_tail(&w->link, futex_list(to));
			moved++;
		} else {
			break;
		}
	}
	return woken + moved;
}

/* futex_wake_move_locked under futex_lock. */
static int futex_wake_move(const struct futex_key *k, int nwake, uint32_t bitset,
			   const struct futex_key *to, int nmove)
{
	unsigned long f = spin_lock_irqsave(&futex_lock);
	int n = futex_wake_move_locked(k, nwake, bitset, to, nmove);

	spin_unlock_irqrestore(&futex_lock, f);
	return n;
}

int futex_wake_address(uintptr_t addr, int n)
{
	struct futex_key k;

	if (futex_key_of(addr, false, &k))
		return 0;
	return futex_wake_move(&k, n, FUTEX_BITSET_ANY, NULL, 0);
}

static bool futex_woken(void *arg)
{
	return smp_load_acquire(&((struct futex_waiter *)arg)->woken);
}

/* Read a timespec: relative (FUTEX_WAIT) or absolute (WAIT_BITSET); *deadline in monotonic ns. */
static long futex_deadline(uint64_t uts, bool absolute, bool realtime, uint64_t *deadline)
{
	struct { int64_t sec, nsec; } ts;
	uint64_t ns;

	if (copy_from_user(&ts, (const void *)uts, sizeof(ts)))
		return -EFAULT;
	if (ts.sec < 0 || ts.nsec < 0 || (uint64_t)ts.nsec >= NSEC)
		return -EINVAL;
	ns = (uint64_t)ts.sec > UINT64_MAX / NSEC / 2 ? UINT64_MAX / 2 : ts.sec * NSEC + ts.nsec;
	if (!absolute) {
		*deadline = monotonic_ns() + ns;
		return 0;
	}
	if (realtime) {
		uint64_t now_rt = clock_realtime_ns(), now = monotonic_ns();

		*deadline = ns > now_rt ? now + (ns - now_rt) : now;
		return 0;
	}
	*deadline = ns;
	return 0;
}

/* Queue w; a full fence after, so that the caller's read of the word comes after the queueing. */
static void futex_queue(struct futex_waiter *w)
{
	unsigned long f = spin_lock_irqsave(&futex_lock);

	list_add_tail(&w->link, futex_list(&w->key));
	spin_unlock_irqrestore(&futex_lock, f);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Leave the list unless a waker took w off it already; true when it was woken. */
static bool futex_unqueue(struct futex_waiter *w)
{
	unsigned long f = spin_lock_irqsave(&futex_lock);
	bool woken = w->woken;

	if (!woken)
		list_del(&w->link);
	spin_unlock_irqrestore(&futex_lock, f);
	return woken;
}

static long futex_wait(uintptr_t addr, uint32_t val, uint64_t uts, uint32_t bitset, uint32_t op)
{
	struct futex_waiter w = { .bitset = bitset };
	uint64_t deadline = UINT64_MAX;
	uint32_t cur;
	long r;

	if (uts && (r = futex_deadline(uts, (op & 127) == FUTEX_WAIT_BITSET,
				       op & FUTEX_CLOCK_REALTIME, &deadline)))
		return r;
	if (!bitset)
		return -EINVAL;
	if ((r = futex_key_of(addr, op & FUTEX_PRIVATE_FLAG, &w.key)))
		return r;
	wait_queue_init(&w.wq);
	futex_queue(&w);
	if (copy_from_user(&cur, (const void *)addr, sizeof(cur)))
		r = -EFAULT;
	else if (cur != val)
		r = -EAGAIN;
	else if (uts)
		r = sleep_until_ns(deadline, &w.wq, futex_woken, &w);
	else
		r = wait_event_interruptible(&w.wq, futex_woken(&w));
	if (futex_unqueue(&w))
		return 0;
	return r == -EINTR && !uts ? -ERESTARTSYS : r;
}

/*
 * CMP_REQUEUE's step under futex_lock: compare the word at addr with cmp,
 * then wake and move. False when the read faulted (the caller faults the
 * page in and retries); else *r is -EAGAIN (the word differs) or the
 * number woken plus moved.
 */
static bool futex_cmp_requeue_locked(uintptr_t addr, uint32_t cmp, const struct futex_key *k1,
				     int nwake, const struct futex_key *k2, int nmove, long *r)
{
	unsigned long f = spin_lock_irqsave(&futex_lock);
	uint32_t cur;
	bool read = !copy_from_user_nofault(&cur, (const void *)addr, sizeof(cur));

	if (read)
		*r = cur != cmp ? -EAGAIN : futex_wake_move_locked(k1, nwake, FUTEX_BITSET_ANY, k2, nmove);
	spin_unlock_irqrestore(&futex_lock, f);
	return read;
}

/* REQUEUE / CMP_REQUEUE: wake nwake at addr, move up to nmove of the rest to addr2. */
static long futex_requeue(uintptr_t addr, int nwake, int nmove, uintptr_t addr2, uint32_t op,
			  const uint32_t *cmp)
{
	struct futex_key k1, k2;
	bool private = op & FUTEX_PRIVATE_FLAG;
	uint32_t cur;
	long r;

	if (nwake < 0 || nmove < 0)
		return -EINVAL;
	if ((r = futex_key_of(addr, private, &k1)) || (r = futex_key_of(addr2, private, &k2)))
		return r;
	if (!cmp)
		return futex_wake_move(&k1, nwake, FUTEX_BITSET_ANY, &k2, nmove);
	while (!futex_cmp_requeue_locked(addr, *cmp, &k1, nwake, &k2, nmove, &r))
		if (copy_from_user(&cur, (const void *)addr, sizeof(cur)))
			return -EFAULT;         /* not mappable: Linux's -EFAULT */
	return r;
}

/* futex(uaddr, op, val, timeout | val2, uaddr2, val3): see the top of the file; others -ENOSYS. */
long sys_futex(SYSCALL_ARGS)
{
	unsigned op = (unsigned)a1 & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	bool private = a1 & FUTEX_PRIVATE_FLAG;
	uint32_t bitset = (uint32_t)a5, val3 = (uint32_t)a5;
	struct futex_key k;
	long r;

	if ((a1 & FUTEX_CLOCK_REALTIME) && op != FUTEX_WAIT_BITSET && op != FUTEX_WAIT)
		return -ENOSYS;
	switch (op) {
	case FUTEX_WAIT:
		return futex_wait(a0, (uint32_t)a2, a3, FUTEX_BITSET_ANY, (unsigned)a1);
	case FUTEX_WAIT_BITSET:
		return futex_wait(a0, (uint32_t)a2, a3, bitset, (unsigned)a1);
	case FUTEX_WAKE:
		bitset = FUTEX_BITSET_ANY;
		/* fall through */
	case FUTEX_WAKE_BITSET:
		if (!bitset)
			return -EINVAL;
		if ((r = futex_key_of(a0, private, &k)))
			return r;
		return futex_wake_move(&k, (int)MIN(a2, (uint64_t)INT32_MAX), bitset, NULL, 0);
	case FUTEX_REQUEUE:
		return futex_requeue(a0, (int)a2, (int)a3, a4, (unsigned)a1, NULL);
	case FUTEX_CMP_REQUEUE:
		return futex_requeue(a0, (int)a2, (int)a3, a4, (unsigned)a1, &val3);
	default:
		return -ENOSYS;
	}
}

/* ------------------------------------------------------------ robust lists */

#define FUTEX_WAITERS     0x80000000U
#define FUTEX_OWNER_DIED  0x40000000U
#define FUTEX_TID_MASK    0x3fffffffU
#define ROBUST_LIST_LIMIT 2048          /* Linux's bound on a (possibly circular) list */

struct robust_list_head_k {
	uint64_t next;                  /* struct robust_list *: the first entry (the head itself: empty) */
	int64_t futex_offset;           /* from an entry to its futex word */
	uint64_t list_op_pending;       /* an entry being added or removed, or 0 */
};

/*
 * A robust futex word of the exiting thread tid (Linux handle_futex_death):
 * if tid owns it, mark it FUTEX_OWNER_DIED (keeping FUTEX_WAITERS) and
 * wake one waiter. Faults end the walk quietly.
 */
static void robust_word_release(struct task *t, uintptr_t uaddr)
{
	uint32_t v, cur;

	for (int tries = 0; tries < 8; tries++) {
		if ((uaddr & 3) || copy_from_user(&v, (const void *)uaddr, sizeof(v)))
			return;
		if ((v & FUTEX_TID_MASK) != (uint32_t)t->tid)
			return;
		if (mm_user_cmpxchg32(t->mm, uaddr, v, (v & FUTEX_WAITERS) | FUTEX_OWNER_DIED, &cur))
			return;
		if (cur == v)
			break;                  /* another thread changed it: look again */
	}
	if (v & FUTEX_WAITERS)
		futex_wake_address(uaddr, 1);
}

void futex_exit_robust_list(struct task *t)
{
	struct robust_list_head_k head;
	uint64_t e, next;

	if (!t->robust_list || copy_from_user(&head, (const void *)t->robust_list, sizeof(head)))
		return;
	e = head.next;
	for (unsigned n = 0; e != t->robust_list && n < ROBUST_LIST_LIMIT; n++) {
		if (copy_from_user(&next, (const void *)(e & ~1UL), sizeof(next)))
			return;
		if (e != head.list_op_pending)
			robust_word_release(t, (e & ~1UL) + (uint64_t)head.futex_offset);
		e = next;
	}
	if (head.list_op_pending)
		robust_word_release(t, (head.list_op_pending & ~1UL) + (uint64_t)head.futex_offset);
}

/* set_robust_list(head, len): the list walked at this thread's exit. -EINVAL len != 24. */
long sys_set_robust_list(SYSCALL_ARGS)
{
	if (a1 != sizeof(struct robust_list_head_k))
		return -EINVAL;
	current->robust_list = a0;
	return 0;
}

/* get_robust_list(pid, head_ptr, len_ptr): pid 0 or self; -ESRCH others; -EFAULT. */
long sys_get_robust_list(SYSCALL_ARGS)
{
	uint64_t len = sizeof(struct robust_list_head_k);

	if (a0 && (int)a0 != current->tid)
		return task_find((int)a0) ? -EPERM : -ESRCH;
	if (copy_to_user((void *)a1, &current->robust_list, 8) || copy_to_user((void *)a2, &len, 8))
		return -EFAULT;
	return 0;
}
