/*
 * Copy callbacks for the tests that call fs_read and fs_write with a
 * kernel buffer (include/fs.h's fs_copy_fn): arg is the buffer, done how
 * far into it this chunk starts. Each copies the whole chunk (returns 0
 * bytes left).
 */
#ifndef TEST_FS_UTIL_H
#define TEST_FS_UTIL_H

#include "fs.h"
#include "kstring.h"

/* ut_copy_from_buf: fs_write's source is the buffer arg. */
static inline size_t ut_copy_from_buf(void *arg, size_t done, void *kaddr, size_t n)
{
	memcpy(kaddr, (const char *)arg + done, n);
	return 0;
}

/* ut_copy_to_buf: fs_read's destination is the buffer arg. */
static inline size_t ut_copy_to_buf(void *arg, size_t done, void *kaddr, size_t n)
{
	memcpy((char *)arg + done, kaddr, n);
	return 0;
}

#endif
