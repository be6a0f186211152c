/*
 * An actor's loop and the argument pickers every operation group uses:
 * arena addresses and lengths that cross mapping boundaries, fds from
 * the pool, now and then a value just outside what is valid.
 */
#include "fuzz.h"

uint64_t fz_rand(struct actor *a)
{
	return fz_next(&a->rng);
}

uint64_t fz_below(struct actor *a, uint64_t n)
{
	return n ? fz_rand(a) % n : 0;
}

bool fz_chance(struct actor *a, unsigned percent)
{
	return fz_below(a, 100) < percent;
}

unsigned long fz_addr(struct actor *a)
{
	unsigned long base = (unsigned long)fz_pool->arena;
	unsigned r = (unsigned)fz_below(a, 100);

	if (r < 90)
		return base + fz_below(a, FZ_ARENA_PAGES) * UPAGE_SIZE;
	if (r < 94)
		return base + fz_below(a, FZ_ARENA_PAGES * UPAGE_SIZE);         /* misaligned */
	if (r < 97)
		return base + (FZ_ARENA_PAGES - 1 - fz_below(a, 4)) * UPAGE_SIZE;   /* near the end */
	return fz_chance(a, 50) ? 0 : (1UL << 47) - UPAGE_SIZE * fz_below(a, 3);   /* NULL, top of user space */
}

unsigned long fz_len(struct actor *a)
{
	unsigned r = (unsigned)fz_below(a, 100);

	if (r < 60)
		return (1 + fz_below(a, 8)) * UPAGE_SIZE;
	if (r < 90)
		return (1 + fz_below(a, 256)) * UPAGE_SIZE;
	if (r < 94)
		return 1 + fz_below(a, 3 * UPAGE_SIZE);                         /* not a page multiple */
	if (r < 97)
		return 0;
	return fz_chance(a, 50) ? -UPAGE_SIZE : (1UL << 46);                  /* overflowing, huge */
}

int fz_fd(struct actor *a)
{
	unsigned r = (unsigned)fz_below(a, 100);

	if (r < 92)
		return fz_pool->fds[fz_below(a, FZ_MAX_FDS)];
	if (r < 96)
		return (int)(3 + fz_below(a, 61));      /* never 0-2: the console stays ours */
	return r < 98 ? -1 : 1 << 20;
}

void fz_add_fd(struct actor *a, int fd)
{
	unsigned i = (unsigned)fz_below(a, FZ_MAX_FDS);

	if (fd < 0)
		return;
	for (unsigned k = 0; k < FZ_MAX_FDS; k++) {
		int old = -1;

		if (__atomic_compare_exchange_n(&fz_pool->fds[(i + k) % FZ_MAX_FDS], &old, fd, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return;
	}
	/* full: this slot's old fd is closed and replaced (another thread may still use the number) */
	{
		int old = __atomic_exchange_n(&fz_pool->fds[i], fd, __ATOMIC_ACQ_REL);

		if (old > 2)
			fz_count(sys_close(old));
	}
}

void fz_actor_loop(struct actor *a)
{
	while (a->budget-- > 0 && !fz_stats->unexpected &&
	       __atomic_sub_fetch(&fz_stats->ops_left, 1, __ATOMIC_RELAXED) >= 0) {
		unsigned r = (unsigned)fz_below(a, 100);

		if (r < 45)
			fz_op_mem(a);
		else if (r < 75)
			fz_op_fd(a);
		else if (r < 98)
			fz_op_proc(a);
		else
			fz_op_thread(a);
	}
}
