/*
 * umalloc.h - a minimal allocator built on mmap only. It never calls brk,
 * so programs that study the heap (mmscript) own the break entirely. Every
 * mapping it makes is placed by the kernel (no address hint).
 */
#ifndef UMALLOC_H
#define UMALLOC_H

#include <stddef.h>

/* malloc - n bytes, 16-byte aligned, or NULL (errno ENOMEM). */
void *malloc(size_t n);
/* calloc - zeroed array of n*size bytes, NULL on overflow or no memory. */
void *calloc(size_t n, size_t size);
/* realloc - resize p (NULL: like malloc); on failure p is untouched. */
void *realloc(void *p, size_t n);
/* free - release p (NULL allowed). */
void free(void *p);

#endif
