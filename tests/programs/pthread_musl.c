/*
 * A pthread program for musl (musl-gcc -static -pthread), run unmodified
 * on Linux and on the kernel by tools/test-programs: its output and exit
 * status must be the same. Everything it prints is decided by the program
 * (exact counts and sums after joins), never by the scheduling.
 *
 * Mutex counter over 4 threads, a condition-variable queue (one producer,
 * three consumers), a barrier, a read-write lock, a semaphore, thread-local
 * storage (__thread and pthread keys with destructors), join values, a
 * detached thread, pthread_once.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define ROUNDS 20000
#define ITEMS 3000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *count_up(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return (void *)((long)arg * 10);
}

/* A bounded queue: one producer, consumers until a -1 for each. */
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;
static int queue[8], qhead, qlen;
static long consumed_sum;
static int consumed_n;

static void put(int v)
{
	pthread_mutex_lock(&qlock);
	while (qlen == 8)
		pthread_cond_wait(&not_full, &qlock);
	queue[(qhead + qlen++) % 8] = v;
	pthread_cond_signal(&not_empty);
	pthread_mutex_unlock(&qlock);
}

static int get(void)
{
	int v;

	pthread_mutex_lock(&qlock);
	while (qlen == 0)
		pthread_cond_wait(&not_empty, &qlock);
	v = queue[qhead];
	qhead = (qhead + 1) % 8;
	qlen--;
	pthread_cond_signal(&not_full);
	if (v >= 0) {
		consumed_sum += v;
		consumed_n++;
	}
	pthread_mutex_unlock(&qlock);
	return v;
}

static void *consumer(void *arg)
{
	(void)arg;
	while (get() >= 0)
		;
	return NULL;
}

/* Barrier, rwlock, semaphore, thread-local storage. */
static pthread_barrier_t barrier;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long table[NT];
static sem_t sem;
static __thread long tls_counter = 100;
static pthread_key_t key;
static int destructor_runs;
static pthread_mutex_t dlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;

static void key_destructor(void *p)
{
	pthread_mutex_lock(&dlock);
	destructor_runs += *(int *)p;
	pthread_mutex_unlock(&dlock);
	free(p);
}

static void init_once(void)
{
	once_runs++;
}

static void *phases(void *arg)
{
	long me = (long)arg, sum = 0;
	int *v = malloc(sizeof(*v));

	pthread_once(&once, init_once);
	*v = (int)me + 1;
	pthread_setspecific(key, v);
	tls_counter += me;
	pthread_rwlock_wrlock(&rw);
	table[me] = me * me;
	pthread_rwlock_unlock(&rw);
	pthread_barrier_wait(&barrier);         /* every thread has written its entry */
	pthread_rwlock_rdlock(&rw);
	for (int i = 0; i < NT; i++)
		sum += table[i];
	pthread_rwlock_unlock(&rw);
	sem_post(&sem);
	return (void *)(sum * 1000 + tls_counter);
}

static void *detached(void *arg)
{
	sem_post(arg);
	return NULL;
}

int main(void)
{
	pthread_t t[NT], d;
	sem_t done;
	void *ret;
	long joined = 0;

	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, count_up, (void *)i);
	for (int i = 0; i < NT; i++) {
		pthread_join(t[i], &ret);
		joined += (long)ret;
	}
	printf("mutex counter %ld (expected %d), join values %ld\n", counter, NT * ROUNDS, joined);

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, consumer, NULL);
	for (int i = 1; i <= ITEMS; i++)
		put(i);
	for (int i = 0; i < 3; i++)
		put(-1);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("queue: %d items, sum %ld (expected %d)\n", consumed_n, consumed_sum, ITEMS * (ITEMS + 1) / 2);

	pthread_barrier_init(&barrier, NULL, NT);
	pthread_key_create(&key, key_destructor);
	sem_init(&sem, 0, 0);
	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, phases, (void *)i);
	for (int i = 0; i < NT; i++)
		sem_wait(&sem);
	for (int i = 0; i < NT; i++) {
		pthread_join(t[i], &ret);
		printf("thread %d: table sum %ld, its tls %ld\n", i, (long)ret / 1000, (long)ret % 1000);
	}
	printf("main tls %ld, key destructors %d, once %d\n", tls_counter, destructor_runs, once_runs);

	sem_init(&done, 0, 0);
	pthread_create(&d, NULL, detached, &done);
	pthread_detach(d);
	sem_wait(&done);
	printf("detached thread ran\n");
	return counter == NT * ROUNDS && consumed_n == ITEMS ? 3 : 1;
}
