/*
 * mmbench.h - what the parts of user/mmbench share: main.c (the VM
 * microbenchmarks), swap.c (the swap benchmarks, mmbench --swap), thp.c
 * (with transparent huge pages, mmbench --thp) and proc.c (/proc).
 */
#ifndef MMBENCH_H
#define MMBENCH_H

#include <stdbool.h>
#include "ulib.h"

#define PAGE UPAGE_SIZE

/* Print "mmbench: WHAT failed: R" and exit 1. */
void die(const char *what, long r) __attribute__((noreturn));
/* A fresh private anonymous read-write mapping of len bytes; dies on failure. */
char *map_anon(unsigned long len);
/* Dies when r is an error return. */
void check(long r, const char *what);
/* Read a byte of each of pages pages from p. */
void read_pages(char *p, unsigned long pages);
/* Whether benchmark name was asked for: named in argv[1..argc), or nothing named. */
bool wanted(const char *name, int argc, char **argv);

/* One benchmark: ROUNDS rounds of ops operations, each round's cost in guest instructions (rdtsc). */
struct bench {
	const char *name;
	const char *what;                         /* one operation, for --list */
	unsigned long ops;                        /* operations per round */
	void (*setup)(void);
	uint64_t (*round)(void);                  /* cost of one round */
	void (*teardown)(void);
};
/* Run b and print "mmbench NAME per-op=MEDIAN min=MIN ops=N". */
void bench_run(const struct bench *b);
/* Print "NAME  WHAT" for each of the n benchmarks (--list). */
void bench_list(const struct bench *b, unsigned n);

/* The whole of a /proc file, NUL-terminated, in a buffer the next call reuses; "" when it cannot be read. */
const char *read_proc(const char *path);
/* The number after "NAME" and its separator (' ' or ':') at the start of a line of text; 0 when absent. */
unsigned long proc_field(const char *text, const char *name);
/* mkdir dir and mount a file system of type fs on it, printing what each returned. */
void mount_on(const char *fs, const char *dir);

/* Turn swap on on vda as Linux needs it (modules, devtmpfs, header, swapon); dies without swap. */
void swap_enable(void);
/* Run the swap benchmarks named in argv[1..argc) (all when none) for a machine of mem_mib MiB. */
void swap_benches(unsigned long mem_mib, int argc, char **argv);
/* The huge-page benchmarks (thp.c) named in argv[1..argc) (all when none); --list lists them. */
void thp_benches(int argc, char **argv);

#endif
