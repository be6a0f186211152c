/*
 * uerrno.h - errno for user programs (Linux x86-64 values).
 */
#ifndef UERRNO_H
#define UERRNO_H

#include "linux_errno.h"

/* The thread's last error (single-threaded programs only). */
extern int errno;

/*
 * uerrno_name - the symbolic name of a positive Linux errno ("ENOMEM"),
 * or NULL when the number has no name in our table. Never fails otherwise.
 */
const char *uerrno_name(int err);

/* Store -raw in errno and return -1 when raw is an error, else return raw. */
long uerrno_ret(long raw);

#endif
