/*
 * mmbench.h - what the parts of user/mmbench share: main.c (the VM
 * microbenchmarks) and swap.c (the swap benchmarks, mmbench --swap).
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

/* Turn swap on on vda as Linux needs it (modules, devtmpfs, header, swapon); dies without swap. */
void swap_enable(void);
/* Run the swap benchmarks named in argv[1..argc) (all when none) for a machine of mem_mib MiB. */
void swap_benches(unsigned long mem_mib, int argc, char **argv);

#endif
