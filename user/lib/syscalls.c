/*
 * syscalls.c - libc-style system-call wrappers (-1 and errno on failure).
 */
#include "ulib.h"

long read(int fd, void *buf, size_t n) { return uerrno_ret(sys_read(fd, buf, n)); }
long write(int fd, const void *buf, size_t n) { return uerrno_ret(sys_write(fd, buf, n)); }
int close(int fd) { return (int)uerrno_ret(sys_close(fd)); }

/* open - the mode argument is read only with O_CREAT (0100). */
int open(const char *path, int flags, ...)
{
	int mode = 0;

	if (flags & 0100) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	return (int)uerrno_ret(sys_open(path, flags, mode));
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, long off)
{
	return (void *)uerrno_ret(sys_mmap((unsigned long)addr, len, prot, flags, fd,
					   (unsigned long)off));
}

int munmap(void *addr, size_t len)
{ return (int)uerrno_ret(sys_munmap((unsigned long)addr, len)); }
int mprotect(void *addr, size_t len, int prot)
{ return (int)uerrno_ret(sys_mprotect((unsigned long)addr, len, prot)); }
int madvise(void *addr, size_t len, int advice)
{ return (int)uerrno_ret(sys_madvise((unsigned long)addr, len, advice)); }
int mincore(void *addr, size_t len, unsigned char *vec)
{ return (int)uerrno_ret(sys_mincore((unsigned long)addr, len, vec)); }

/* mremap - the fifth argument (new address) is read only with MREMAP_FIXED. */
void *mremap(void *addr, size_t oldlen, size_t newlen, int flags, ...)
{
	unsigned long newaddr = 0;

	if (flags & MREMAP_FIXED) {
		va_list ap;

		va_start(ap, flags);
		newaddr = (unsigned long)va_arg(ap, void *);
		va_end(ap);
	}
	return (void *)uerrno_ret(sys_mremap((unsigned long)addr, oldlen, newlen, flags,
					     newaddr));
}

int pin_to_this_cpu(void)
{
	unsigned long mask[16] = { 0 };         /* 1024 CPUs, as glibc's cpu_set_t */
	unsigned cpu = 0;
	long r = sys_getcpu(&cpu, NULL);

	if (r < 0)
		return (int)uerrno_ret(r);
	if (cpu >= 1024) {
		errno = EINVAL;
		return -1;
	}
	mask[cpu / 64] = 1UL << (cpu % 64);
	return (int)uerrno_ret(sys_sched_setaffinity(0, sizeof(mask), mask));
}

int getpid(void) { return (int)sys_getpid(); }
int fork(void) { return (int)uerrno_ret(sys_fork()); }
int waitpid(int pid, int *status, int options)
{ return (int)uerrno_ret(sys_wait4(pid, status, options, NULL)); }
int kill(int pid, int sig) { return (int)uerrno_ret(sys_kill(pid, sig)); }

int pipe(int fds[2]) { return (int)uerrno_ret(usys1(__NR_pipe, (long)fds)); }
int pipe2(int fds[2], int flags) { return (int)uerrno_ret(usys2(__NR_pipe2, (long)fds, flags)); }
int dup(int fd) { return (int)uerrno_ret(usys1(__NR_dup, fd)); }
int dup2(int oldfd, int newfd) { return (int)uerrno_ret(usys2(__NR_dup2, oldfd, newfd)); }
int fcntl(int fd, int cmd, long arg) { return (int)uerrno_ret(usys3(__NR_fcntl, fd, cmd, arg)); }
long lseek(int fd, long off, int whence) { return uerrno_ret(usys3(__NR_lseek, fd, off, whence)); }
int execve(const char *path, char *const argv[], char *const envp[])
{ return (int)uerrno_ret(usys3(__NR_execve, (long)path, (long)argv, (long)envp)); }

void msleep(long ms)
{
	long ts[2] = { ms / 1000, (ms % 1000) * 1000000 };

	usys2(__NR_nanosleep, (long)ts, 0);
}

int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		long r = write(fd, p, n);

		if (r < 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}
