/*
 * uerrno.h - errno for user programs (Linux x86-64 values).
 */
#ifndef UERRNO_H
#define UERRNO_H

/* The thread's last error (single-threaded programs only). */
extern int errno;

#define EPERM    1
#define ENOENT   2
#define ESRCH    3
#define EINTR    4
#define EIO      5
#define ENXIO    6
#define E2BIG    7
#define ENOEXEC  8
#define EBADF    9
#define ECHILD  10
#define EAGAIN  11
#define ENOMEM  12
#define EACCES  13
#define EFAULT  14
#define EBUSY   16
#define EEXIST  17
#define ENODEV  19
#define EINVAL  22
#define ENFILE  23
#define EMFILE  24
#define EFBIG   27
#define ENOSPC  28
#define ESPIPE  29
#define ERANGE  34
#define ENOSYS  38
#define EOVERFLOW 75
#define EOPNOTSUPP 95
#define EHWPOISON 133

/*
 * uerrno_name - the symbolic name of a positive Linux errno ("ENOMEM"),
 * or NULL when the number has no name in our table. Never fails otherwise.
 */
const char *uerrno_name(int err);

/* Store -raw in errno and return -1 when raw is an error, else return raw. */
long uerrno_ret(long raw);

#endif
