/*
 * ustring.h - string and memory functions of the tiny user libc.
 * Same contracts as ISO C; no locale, no allocation.
 */
#ifndef USTRING_H
#define USTRING_H

#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strcpy(char *dst, const char *src);

/* fnmatch: 0 when s matches pattern ('*' any run, '?' one character; no brackets, flags ignored), else FNM_NOMATCH. */
#define FNM_NOMATCH 1
int fnmatch(const char *pattern, const char *s, int flags);

#endif
