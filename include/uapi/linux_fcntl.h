/*
 * Linux x86-64 open flags, fcntl commands and fd flags: the values the
 * system-call ABI uses. Shared by the kernel (include/file.h) and the user
 * libc (user/include/usys.h); definitions only.
 */
#ifndef UAPI_LINUX_FCNTL_H
#define UAPI_LINUX_FCNTL_H

#define O_ACCMODE   00000003
#define O_RDONLY    00000000
#define O_WRONLY    00000001
#define O_RDWR      00000002
#define O_CREAT     00000100
#define O_EXCL      00000200
#define O_TRUNC     00001000
#define O_APPEND    00002000
#define O_NONBLOCK  00004000
#define O_DIRECT    00040000
#define O_LARGEFILE 00100000
#define O_DIRECTORY 00200000
#define O_NOFOLLOW  00400000
#define O_NOATIME   01000000
#define O_CLOEXEC   02000000
#define O_PATH      010000000

#define F_DUPFD         0
#define F_GETFD         1
#define F_SETFD         2
#define F_GETFL         3
#define F_SETFL         4
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC      1

/* Record locks (fcntl F_*LK) and flock(2) (fs/locks.c). */
#define F_GETLK      5
#define F_SETLK      6
#define F_SETLKW     7
#define F_OFD_GETLK  36
#define F_OFD_SETLK  37
#define F_OFD_SETLKW 38
#define F_RDLCK      0
#define F_WRLCK      1
#define F_UNLCK      2
#define LOCK_SH      1
#define LOCK_EX      2
#define LOCK_NB      4
#define LOCK_UN      8

/* lseek(2)'s whence. */
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

#endif
