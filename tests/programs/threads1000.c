/*
 * 1000 threads alive at once (gcc -static -pthread, glibc's default
 * attributes: 8 MiB stacks with guard pages), run unmodified on Linux and on
 * the kernel by tools/test-programs: its output and exit status must be the
 * same, and everything it prints is decided by the program (sums after the
 * joins), not by the scheduling.
 *
 * Each thread adds its number to a mutex-protected sum, waits at a barrier
 * that the main thread completes only once all 1000 have arrived (so they
 * are all alive together), writes to its own stack and returns twice its
 * number, which the main thread checks at the join.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define N 1000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t all_alive;
static long sum;

static void *worker(void *arg)
{
	long i = (long)arg;
	char scratch[16384];    /* touches four pages of this thread's stack */

	memset(scratch, (int)i, sizeof(scratch));
	pthread_mutex_lock(&lock);
	sum += i + (scratch[sizeof(scratch) - 1] != (char)i);
	pthread_mutex_unlock(&lock);
	pthread_barrier_wait(&all_alive);
	return (void *)(2 * i);
}

int main(void)
{
	static pthread_t t[N];
	long bad = 0;
	int started = 0, err = 0;

	pthread_barrier_init(&all_alive, NULL, N + 1);
	for (long i = 0; i < N; i++) {
		err = pthread_create(&t[i], NULL, worker, (void *)i);
		if (err)
			break;
		started++;
	}
	if (err) {
		printf("pthread_create %d failed: %s\n", started, strerror(err));
		return 1;
	}
	pthread_barrier_wait(&all_alive);
	for (int i = 0; i < N; i++) {
		void *r;

		pthread_join(t[i], &r);
		bad += (long)r != 2L * i;
	}
	printf("%d threads alive together, sum %ld, wrong join values %ld\n", started, sum, bad);
	return bad != 0 || sum != (long)N * (N - 1) / 2;
}
