/*
 * ubench.h - timing helpers shared by the benchmark programs (user/vmcost,
 * user/mmbench). Under QEMU with `-icount shift=0` the guest TSC advances by
 * exactly one per guest instruction, so differences of ubench_tsc() are
 * instruction counts (user and kernel together); elsewhere they are cycles.
 */
#ifndef UBENCH_H
#define UBENCH_H

#include <stdint.h>

/* The TSC, after every earlier instruction has completed (lfence). */
static inline uint64_t ubench_tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* Sort v[0..n) ascending (insertion sort: n is a handful of rounds). */
static inline void ubench_sort(uint64_t *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

#endif
