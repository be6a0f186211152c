/* Memory and string functions. The kernel implements them in lib/string.c; the hosted build uses libc's. */
#ifndef KSTRING_H
#define KSTRING_H

#include "types.h"

#ifdef HOSTED
#include <string.h>
#else
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
#ifdef KASAN
/* memset without the sanitizer's range check, for the allocators' work on poisoned memory. */
void *__memset(void *dst, int c, size_t n);
#endif
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
#endif

#endif
