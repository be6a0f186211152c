/*
 * The profiling workloads (make profile, docs/results/README.md): user
 * programs that reproduce the VM behaviour of the 1998, 2001 and 2007 measurements
 * on this kernel. One static binary, build/user/workloads, with one
 * subcommand per workload; the same binary runs on the host Linux.
 *
 *   workloads mix [--size PCT] [--small]  1998: start-up, malloc, compile-like, exit (mix.c)
 *             [--libs-min N --libs-max N] libraries per start-up process (default 20, 60)
 *   workloads sweep [--layout L] [--max N] [--ops K]
 *                                         1998: index accesses per operation vs n (sweep.c)
 *   workloads gc --chunk PAGES [--peak PAGES] [--cycles C] [--brk] [--sys N]
 *                                         2001: gcc-2.96-like (chunk 1), gcc-3.0-like
 *                                         (chunk 32) or gcc-2.95.3-like (--brk) garbage-
 *                                         collected arena, with N file reads a cycle (gc.c)
 *   workloads replay FILE [--repeat N]    2001: a converted strace of a real program (replay.c)
 *   workloads sysbench --threads N --tx T [--grow mprotect|none] [--free dontneed|free] [--skew K]
 *                                         [--pressure C]
 *                                         2007: threads allocating and trimming per-thread
 *                                         arenas as glibc's malloc did (sysbench.c)
 *
 * Every run is deterministic: a fixed-seed generator decides everything the
 * kernel does not. Results are printed as lines
 *     @result workload=NAME key=value ...
 * which tools/profile/profile-suite reads; everything else is commentary.
 */
#ifndef WL_H
#define WL_H

#include "ulib.h"
#include "vmk_profile.h"

#define WL_PAGE 4096UL

/* --- common.c --- */

/* xorshift64* with a fixed seed: the same sequence on every run and kernel. */
struct wl_rng { uint64_t s; };
void wl_rng_seed(struct wl_rng *r, uint64_t seed);
uint64_t wl_rand(struct wl_rng *r);
/* Uniform in [lo, hi] (inclusive). */
unsigned long wl_between(struct wl_rng *r, unsigned long lo, unsigned long hi);

/* The time-stamp counter (guest instructions under QEMU -icount shift=0). */
uint64_t wl_tsc(void);

/* What the kernel (or Linux) has counted for this process and its waited-for children. */
struct wl_counts {
	uint64_t tsc;           /* wl_tsc() */
	uint64_t hz;            /* profiler samples per second; 0 when not profiling */
	uint64_t kernel, user;  /* profiler samples in kernel / user mode (all processes) */
	uint64_t faults;        /* page faults of this process (vmk_memstat or Linux's minflt) */
	uint64_t vmas;          /* vmkernel only: VMAs of this process now */
	uint64_t stime_us;      /* Linux only: system time of this process and its children */
	uint64_t utime_us;
};
void wl_counts(struct wl_counts *c);
/* True when running on vmkernel (its own system calls answer). */
bool wl_on_vmkernel(void);
/* Print "@result workload=NAME phase=PHASE" and the differences b - a as key=value. */
void wl_result_counts(const char *workload, const char *phase, const struct wl_counts *a,
		      const struct wl_counts *b);
/* Print "@result " followed by the formatted text and a newline. */
void wl_result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Lines of /proc/self/maps (one per VMA), or -1. */
long wl_maps_lines(void);
/*
 * The VMAs of this process: on vmkernel its count from vmk_profile (no
 * kernel work to speak of, so it can be taken inside a measured phase; the
 * same number as the maps lines there), on Linux the maps lines.
 */
long wl_vma_count(void);
/*
 * The number after key in the file at path, whose lines are "KEY VALUE"
 * (/proc/vmstat; key "pglazyfreed") or "KEY: VALUE kB" (/proc/meminfo;
 * key "MemFree:"), or the number the file starts with when key is NULL
 * (/proc/sys/vm/min_free_kbytes); -1 when there is none. The file's first
 * 16 KiB only.
 */
long wl_proc_number(const char *path, const char *key);
/* wl_proc_number of each of keys[0..n) into out[], from one read of path (one snapshot). */
void wl_proc_numbers(const char *path, const char *const *keys, long *out, unsigned n);

/* mmap/munmap/mprotect that end the program with a message on failure. */
void *wl_map(void *addr, unsigned long len, int prot, int flags);
void wl_unmap(void *addr, unsigned long len);
void wl_protect(void *addr, unsigned long len, int prot);
/* Write one byte into every page of [p, p + len). */
void wl_touch(void *p, unsigned long len);
/* Read one byte of every page; returns their sum (so the reads are not optimised away). */
unsigned long wl_read_pages(const void *p, unsigned long len);
/* Run fn(arg) in a forked child and wait for it; ends the program if the child failed. */
void wl_in_child(const char *what, void (*fn)(void *), void *arg);
/* Print a message and exit(1). */
void wl_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Parse "--name VALUE" pairs: the value of --name in argv, or def. */
unsigned long wl_opt(int argc, char **argv, const char *name, unsigned long def);
bool wl_flag(int argc, char **argv, const char *name);

/* --- threads.c: threads without a pthread library --- */
struct wl_thread {
	volatile int tid;       /* the thread's id while it runs; 0 once it has exited */
	char *stack;
};
/* Start a thread running fn(arg) (its return value is its exit status); ends the program on failure. */
void wl_thread_start(struct wl_thread *t, int (*fn)(void *), void *arg);
/* Wait until t has exited, then free its stack. */
void wl_thread_join(struct wl_thread *t);
/* Sleep (futex) while *word == value. */
void wl_futex_wait_while(volatile int *word, int value);
/* Store value into *word and wake every thread waiting on it. */
void wl_futex_set_wake_all(volatile int *word, int value);
/* CLOCK_MONOTONIC in ns (on vmkernel the TSC: guest time; under -icount guest instructions). */
uint64_t wl_now_ns(void);

/* --- pressure.c: memory pressure beside a workload --- */
struct wl_pressure {
	int pid;                        /* the child's */
	struct pressure_shared *shared; /* a MAP_SHARED page: stop flag, counts */
};
/*
 * Fork the child that leaves slack_kib above the low watermark, and churn_kib
 * more, free, then maps, writes and unmaps churn_kib again and again, so
 * that the kernel reclaims while the caller runs; returns once the child
 * has taken its memory. Ends the program on failure.
 */
void wl_pressure_start(struct wl_pressure *p, unsigned long slack_kib, unsigned long churn_kib);
/*
 * Stop the child and wait for it: *cycles churn cycles it made, *hog_kib
 * KiB it held. False when it did not exit by itself (the OOM killer took it).
 */
bool wl_pressure_stop(struct wl_pressure *p, unsigned long *cycles, unsigned long *hog_kib);

/* Sort n unsigned longs ascending (heapsort: no recursion, no memory). */
void wl_sort(unsigned long *v, unsigned long n);

/* --- the workloads --- */
int wl_mix(int argc, char **argv);
int wl_sweep(int argc, char **argv);
int wl_gc(int argc, char **argv);
int wl_replay(int argc, char **argv);
int wl_sysbench(int argc, char **argv);

#endif
