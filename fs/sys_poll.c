/*
 * Waiting for several file descriptors: poll, ppoll, select, pselect6.
 * Readiness comes from each file's file_ops.poll; the waiting is one sleep
 * on file_io_wait (include/file.h), which every file whose readiness can
 * change wakes, with the deadline as a timed sleep (include/ktimer.h). A
 * signal ends the wait with -EINTR (restarted when no handler runs).
 */
#include "syscall_internal.h"
#include "file.h"
#include "task.h"
#include "signal.h"
#include "ktimer.h"
#include "slab.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"

#define NSEC 1000000000ULL
#define FDSET_BYTES (FD_LIMIT_SOFT / 8)
#define SELECT_IN  (POLLIN | POLLHUP | POLLERR)
#define SELECT_OUT (POLLOUT | POLLERR)
#define SELECT_EX  POLLPRI

struct pollfd_k {
	int32_t fd;
	int16_t events, revents;
};

/* Fill revents; the number of entries with any. */
static int poll_scan(struct pollfd_k *p, unsigned n)
{
	int count = 0;

	for (unsigned i = 0; i < n; i++) {
		struct file *f = p[i].fd >= 0 ? fget((uint64_t)p[i].fd) : NULL;

		p[i].revents = 0;
		if (p[i].fd < 0)
			continue;
		if (!f)
			p[i].revents = POLLNVAL;
		else
			p[i].revents = (int16_t)(file_poll(f) & ((unsigned)(uint16_t)p[i].events | POLLERR | POLLHUP));
		file_put(f);
		if (p[i].revents)
			count++;
	}
	return count;
}

struct poll_args {
	struct pollfd_k *p;
	unsigned n;
	int count;
};

static bool poll_ready(void *arg)
{
	struct poll_args *a = arg;

	a->count = poll_scan(a->p, a->n);
	return a->count > 0;
}

/* Wait until some fd is ready or deadline (UINT64_MAX: none, 0: do not wait); the count, or -EINTR. */
static long do_poll(uint64_t ufds, uint64_t nfds, uint64_t deadline)
{
	struct poll_args a = { .n = (unsigned)nfds };
	long r = 0;

	if (nfds > FD_LIMIT_SOFT)
		return -EINVAL;
	a.p = kmalloc(nfds ? nfds * sizeof(*a.p) : 1);
	if (!a.p)
		return -ENOMEM;
	if (copy_from_user(a.p, (const void *)ufds, nfds * sizeof(*a.p))) {
		kfree(a.p);
		return -EFAULT;
	}
	if (!poll_ready(&a) && deadline) {
		r = sleep_until_ns(deadline, &file_io_wait, poll_ready, &a);
		r = r == -EINTR ? -ERESTARTNOHAND : 0;
	}
	for (unsigned i = 0; !r && i < a.n; i++)
		if (copy_to_user((void *)(ufds + i * sizeof(*a.p) + 6), &a.p[i].revents, 2))
			r = -EFAULT;
	kfree(a.p);
	return r ? r : a.count;
}

/* poll(fds, nfds, timeout_ms): the number of ready entries; -EINVAL nfds > RLIMIT_NOFILE; -EFAULT; -EINTR. */
long sys_poll(SYSCALL_ARGS)
{
	int ms = (int)a2;

	return do_poll(a0, a1, ms < 0 ? UINT64_MAX : ms == 0 ? 0 : deadline_after((uint64_t)ms * 1000000));
}

/* ppoll(fds, nfds, timeout, sigmask, sigsetsize): poll with a timespec and a temporary mask. */
long sys_ppoll(SYSCALL_ARGS)
{
	uint64_t deadline;
	long r = user_timeout_deadline(a2, &deadline);

	if (!r)
		r = signal_temp_mask_user(a3, a4);
	return r ? r : do_poll(a0, a1, deadline);
}

struct select_args {
	int n;
	uint64_t in[FDSET_BYTES / 8], out[FDSET_BYTES / 8], ex[FDSET_BYTES / 8];      /* asked */
	uint64_t rin[FDSET_BYTES / 8], rout[FDSET_BYTES / 8], rex[FDSET_BYTES / 8];   /* ready */
	int count;
};

static bool bit(const uint64_t *set, int fd)
{
	return set[fd / 64] & (1ULL << (fd % 64));
}

static bool select_ready(void *arg)
{
	struct select_args *s = arg;

	s->count = 0;
	memset(s->rin, 0, sizeof(s->rin));
	memset(s->rout, 0, sizeof(s->rout));
	memset(s->rex, 0, sizeof(s->rex));
	for (int fd = 0; fd < s->n; fd++) {
		struct file *f;
		unsigned m;

		if (!bit(s->in, fd) && !bit(s->out, fd) && !bit(s->ex, fd))
			continue;
		f = fget((uint64_t)fd);
		m = f ? file_poll(f) : 0;       /* closed since select_load: not ready (Linux) */
		file_put(f);
		if (bit(s->in, fd) && (m & SELECT_IN)) {
			s->rin[fd / 64] |= 1ULL << (fd % 64);
			s->count++;
		}
		if (bit(s->out, fd) && (m & SELECT_OUT)) {
			s->rout[fd / 64] |= 1ULL << (fd % 64);
			s->count++;
		}
		if (bit(s->ex, fd) && (m & SELECT_EX)) {
			s->rex[fd / 64] |= 1ULL << (fd % 64);
			s->count++;
		}
	}
	return s->count > 0;
}

/* Copy in the three sets (NULL: empty); -EFAULT; -EBADF for a set bit of a closed fd. */
static long select_load(struct select_args *s, uint64_t uin, uint64_t uout, uint64_t uex)
{
	size_t bytes = ((size_t)s->n + 63) / 64 * 8;
	uint64_t *sets[3] = { s->in, s->out, s->ex }, users[3] = { uin, uout, uex };

	for (int k = 0; k < 3; k++) {
		memset(sets[k], 0, FDSET_BYTES);
		if (users[k] && copy_from_user(sets[k], (const void *)users[k], bytes))
			return -EFAULT;
	}
	for (int fd = 0; fd < s->n; fd++)
		if ((bit(s->in, fd) || bit(s->out, fd) || bit(s->ex, fd)) && fd_peek((uint64_t)fd, NULL, NULL))
			return -EBADF;
	return 0;
}

/* Copy out the ready sets. 0 or -EFAULT. */
static long select_store(struct select_args *s, uint64_t uin, uint64_t uout, uint64_t uex)
{
	size_t bytes = ((size_t)s->n + 63) / 64 * 8;

	if ((uin && copy_to_user((void *)uin, s->rin, bytes)) ||
	    (uout && copy_to_user((void *)uout, s->rout, bytes)) ||
	    (uex && copy_to_user((void *)uex, s->rex, bytes)))
		return -EFAULT;
	return 0;
}

/* select's core: the ready count, -EINVAL n < 0, -EBADF, -EFAULT, -EINTR. */
static long do_select(int64_t n, uint64_t uin, uint64_t uout, uint64_t uex, uint64_t deadline)
{
	struct select_args *s;
	long r = 0;

	if ((int)n < 0)
		return -EINVAL;
	s = kmalloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->n = MIN((int)n, FD_LIMIT_SOFT);
	r = select_load(s, uin, uout, uex);
	if (!r && !select_ready(s) && deadline) {
		r = sleep_until_ns(deadline, &file_io_wait, select_ready, s);
		r = r == -EINTR ? -ERESTARTNOHAND : 0;
	}
	if (!r)
		r = select_store(s, uin, uout, uex);
	if (!r)
		r = s->count;
	kfree(s);
	return r;
}

/* Write the time left before deadline as a timeval (usec) or timespec; Linux updates select's timeout. */
static void store_left(uint64_t ut, uint64_t deadline, bool usec)
{
	uint64_t now = monotonic_ns(), left = deadline > now && deadline != UINT64_MAX ? deadline - now : 0;
	int64_t t[2] = { (int64_t)(left / NSEC), (int64_t)(left % NSEC / (usec ? 1000 : 1)) };

	if (ut && deadline != UINT64_MAX)
		copy_to_user((void *)ut, t, sizeof(t));
}

/* select(n, in, out, ex, timeval): -EINVAL bad n or time; -EBADF; -EFAULT; -EINTR. */
long sys_select(SYSCALL_ARGS)
{
	uint64_t deadline = UINT64_MAX;
	long r;

	if (a4) {
		int64_t tv[2];

		if (copy_from_user(tv, (const void *)a4, sizeof(tv)))
			return -EFAULT;
		if (tv[0] < 0 || tv[1] < 0)
			return -EINVAL;         /* (Linux carries whole seconds of tv_usec over) */
		deadline = (tv[0] == 0 && tv[1] == 0) ? 0 :
			   (uint64_t)tv[0] > UINT64_MAX / NSEC / 4 ? UINT64_MAX :
			   deadline_after((uint64_t)tv[0] * NSEC + (uint64_t)tv[1] % 1000000 * 1000 +
					  (uint64_t)tv[1] / 1000000 * NSEC);
	}
	r = do_select((int64_t)a0, a1, a2, a3, deadline);
	store_left(a4, deadline, true);
	return r;
}

/* pselect6(n, in, out, ex, timespec, {sigmask, size}): select with a timespec and a temporary mask. */
long sys_pselect6(SYSCALL_ARGS)
{
	uint64_t deadline, sm[2] = { 0, 0 };
	long r = user_timeout_deadline(a4, &deadline);

	if (!r && a5 && copy_from_user(sm, (const void *)a5, sizeof(sm)))
		r = -EFAULT;
	if (!r)
		r = signal_temp_mask_user(sm[0], sm[1]);
	if (r)
		return r;
	r = do_select((int64_t)a0, a1, a2, a3, deadline);
	store_left(a4, deadline, false);
	return r;
}
