/*
 * ulib.h - the tiny freestanding user libc: everything a user program of this
 * project includes. Identical source for the host Linux and our kernel.
 *
 * Start-up: user/lib/entry.S provides _start, which reads argc/argv/envp/auxv
 * from the initial stack as Linux lays it out and calls
 *     int main(int argc, char **argv, char **envp);
 * then exit(main's result).
 */
#ifndef ULIB_H
#define ULIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdbool.h>

#include "usys.h"
#include "uerrno.h"
#include "ustring.h"
#include "ustdio.h"
#include "usignal.h"
#include "usetjmp.h"
#include "umalloc.h"

/* Process environment saved by the start-up code. */
extern char **environ;
extern unsigned long *__uauxv;          /* auxiliary vector (type, value) pairs */

/* getauxval - the value of auxv entry type, or 0 when absent. */
unsigned long getauxval(unsigned long type);

/* exit/_exit - end the whole process (exit_group) with status & 0xff. */
void exit(int status) __attribute__((noreturn));
void _exit(int status) __attribute__((noreturn));

/* libc-style wrappers: -1 and errno on failure. */
long read(int fd, void *buf, size_t n);
long write(int fd, const void *buf, size_t n);
int open(const char *path, int flags, ...);
int close(int fd);
void *mmap(void *addr, size_t len, int prot, int flags, int fd, long off);
int munmap(void *addr, size_t len);
int mprotect(void *addr, size_t len, int prot);
int madvise(void *addr, size_t len, int advice);
void *mremap(void *addr, size_t oldlen, size_t newlen, int flags, ...);
int mincore(void *addr, size_t len, unsigned char *vec);
int getpid(void);
int fork(void);
int waitpid(int pid, int *status, int options);
int kill(int pid, int sig);
int pipe(int fds[2]);
int pipe2(int fds[2], int flags);
int dup(int fd);
int dup2(int oldfd, int newfd);
int fcntl(int fd, int cmd, long arg);
long lseek(int fd, long off, int whence);
int execve(const char *path, char *const argv[], char *const envp[]);
/*
 * pin_to_this_cpu - keep the calling process (and the children it forks)
 * on the CPU it runs on now (getcpu + sched_setaffinity); 0, or -1 and
 * errno (ENOSYS where the kernel has neither call).
 */
int pin_to_this_cpu(void);
/* msleep - sleep ms milliseconds (nanosleep; an interruption ends it early). */
void msleep(long ms);
/* write_all - write all n bytes (retrying short writes); 0, or -1 and errno. */
int write_all(int fd, const void *buf, size_t n);

/* wait status decoding, as in <sys/wait.h>. */
#define WIFEXITED(s)   (((s) & 0x7f) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WIFSIGNALED(s) (((s) & 0x7f) != 0 && ((s) & 0x7f) != 0x7f)
#define WTERMSIG(s)    ((s) & 0x7f)

/* Number parsing: strtoul with base 0/8/10/16 semantics (no locale). */
unsigned long strtoul(const char *s, char **end, int base);
long strtol(const char *s, char **end, int base);

#endif
