/*
 * Pending-signal sets (include/signal.h, struct sigpending_k), as Linux's
 * struct sigpending: a standard signal (1..31) is pending at most once,
 * so a second one sent before delivery is lost (its first siginfo stays);
 * a real-time signal (32..64) queues every instance with its siginfo, and
 * they are delivered in the order sent. The queue is bounded
 * (SIGQUEUE_MAX per set, Linux's RLIMIT_SIGPENDING): past it sigqueue and
 * tgkill fail with -EAGAIN, while kill still makes the signal pending
 * without its siginfo (Linux's "silent loss of information").
 *
 * The entries are kmalloc'd with sched_lock held (the slab allocator may
 * be called with interrupts off) and freed when taken, discarded, or
 * flushed with the set's task or thread group.
 */
#include "signal.h"
#include "sched_internal.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"

void sigpending_init(struct sigpending_k *p)
{
	memset(p, 0, sizeof(*p));
	list_init(&p->rt);
}

void sigpending_flush(struct sigpending_k *p)
{
	struct list_head *pos, *tmp;

	list_for_each_safe(pos, tmp, &p->rt) {
		list_del(pos);
		kfree(list_entry(pos, struct sigqueue_k, link));
	}
	p->nqueued = 0;
	p->set = 0;
}

int sigpending_add_locked(struct sigpending_k *p, const struct k_siginfo *info)
{
	int sig = info->si_signo;
	struct sigqueue_k *q;

	assert_spin_held(&sched_lock);
	if (sig < SIGRTMIN_K) {
		if (!(p->set & sig_bit(sig))) {
			p->info[sig] = *info;
			p->set |= sig_bit(sig);
		}
		return 0;
	}
	q = p->nqueued < SIGQUEUE_MAX ? kmalloc(sizeof(*q)) : NULL;
	if (!q) {
		if (info->si_code != SI_USER)
			return -EAGAIN;
		p->set |= sig_bit(sig);         /* pending, its siginfo lost */
		return 0;
	}
	q->info = *info;
	list_add_tail(&q->link, &p->rt);
	p->nqueued++;
	p->set |= sig_bit(sig);
	return 0;
}

/* The oldest queued entry of sig in p, or NULL. */
static struct sigqueue_k *first_queued(struct sigpending_k *p, int sig, struct sigqueue_k *after)
{
	struct list_head *pos = after ? after->link.next : p->rt.next;

	for (; pos != &p->rt; pos = pos->next) {
		struct sigqueue_k *q = list_entry(pos, struct sigqueue_k, link);

		if (q->info.si_signo == sig)
			return q;
	}
	return NULL;
}

void sigpending_take_locked(struct sigpending_k *p, int sig, struct k_siginfo *info)
{
	struct sigqueue_k *q;

	assert_spin_held(&sched_lock);
	if (sig < SIGRTMIN_K) {
		*info = p->info[sig];
		p->set &= ~sig_bit(sig);
		return;
	}
	q = first_queued(p, sig, NULL);
	if (!q) {                               /* its siginfo was lost: Linux's zeroed SI_USER */
		memset(info, 0, sizeof(*info));
		info->si_signo = sig;
		info->si_code = SI_USER;
		p->set &= ~sig_bit(sig);
		return;
	}
	if (!first_queued(p, sig, q))
		p->set &= ~sig_bit(sig);        /* that was the last instance */
	*info = q->info;
	list_del(&q->link);
	p->nqueued--;
	kfree(q);
}

void sigpending_discard_locked(struct sigpending_k *p, int sig)
{
	struct list_head *pos, *tmp;

	p->set &= ~sig_bit(sig);
	if (sig < SIGRTMIN_K)
		return;
	list_for_each_safe(pos, tmp, &p->rt) {
		struct sigqueue_k *q = list_entry(pos, struct sigqueue_k, link);

		if (q->info.si_signo == sig) {
			list_del(pos);
			p->nqueued--;
			kfree(q);
		}
	}
}
