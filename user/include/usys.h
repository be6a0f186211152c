/*
 * usys.h - raw Linux x86-64 system calls for user programs.
 *
 * The same source builds for the host Linux and for our kernel, which speaks
 * the same ABI: number in rax, arguments in rdi rsi rdx r10 r8 r9, result in
 * rax (a value in [-4095, -1] is -errno), rcx and r11 clobbered.
 *
 * sys_*() return the raw kernel result (never touch errno). The libc-style
 * wrappers that set errno live in ulib.h.
 */
#ifndef USYS_H
#define USYS_H

#include <stddef.h>
#include <stdint.h>

/* System-call numbers (__NR_*), the same header the kernel's table uses. */
#include "syscall_nr.h"

/* Memory-management constants (Linux uapi values). */
#include "linux_mman.h"
#define MAP_FAILED          ((void *)-1)

#include "linux_fcntl.h"

/* prctl and arch_prctl codes. */
#include "linux_prctl.h"
#include "vmk.h"

#define UPAGE_SIZE 4096UL

/* Raw syscall entry points: return the kernel's value unchanged. */
static inline long usys0(long n)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n) : "rcx", "r11", "memory");
	return r;
}

static inline long usys1(long n, long a)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a) : "rcx", "r11", "memory");
	return r;
}

static inline long usys2(long n, long a, long b)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b)
			 : "rcx", "r11", "memory");
	return r;
}

static inline long usys3(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static inline long usys4(long n, long a, long b, long c, long d)
{
	long r;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return r;
}

static inline long usys5(long n, long a, long b, long c, long d, long e)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	__asm__ volatile("syscall" : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return r;
}

static inline long usys6(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

/* True when a raw result encodes an error (-4095..-1). */
static inline int usys_is_err(long r)
{
	return (unsigned long)r >= (unsigned long)-4095L;
}

/* Typed raw wrappers: each returns the kernel's raw result (or -errno). */
static inline long sys_read(int fd, void *buf, size_t n)
{ return usys3(__NR_read, fd, (long)buf, (long)n); }
static inline long sys_write(int fd, const void *buf, size_t n)
{ return usys3(__NR_write, fd, (long)buf, (long)n); }
static inline long sys_open(const char *path, int flags, int mode)
{ return usys3(__NR_open, (long)path, flags, mode); }
static inline long sys_close(int fd)
{ return usys1(__NR_close, fd); }
static inline long sys_mmap(unsigned long addr, unsigned long len, long prot, long flags,
			    long fd, unsigned long off)
{ return usys6(__NR_mmap, (long)addr, (long)len, prot, flags, fd, (long)off); }
static inline long sys_munmap(unsigned long addr, unsigned long len)
{ return usys2(__NR_munmap, (long)addr, (long)len); }
static inline long sys_mprotect(unsigned long addr, unsigned long len, long prot)
{ return usys3(__NR_mprotect, (long)addr, (long)len, prot); }
static inline long sys_madvise(unsigned long addr, unsigned long len, long advice)
{ return usys3(__NR_madvise, (long)addr, (long)len, advice); }
static inline long sys_mremap(unsigned long addr, unsigned long oldlen, unsigned long newlen,
			      long flags, unsigned long newaddr)
{ return usys5(__NR_mremap, (long)addr, (long)oldlen, (long)newlen, flags, (long)newaddr); }
static inline long sys_mincore(unsigned long addr, unsigned long len, unsigned char *vec)
{ return usys3(__NR_mincore, (long)addr, (long)len, (long)vec); }
static inline long sys_msync(unsigned long addr, unsigned long len, long flags)
{ return usys3(__NR_msync, (long)addr, (long)len, flags); }
static inline long sys_memfd_create(const char *name, unsigned flags)
{ return usys2(__NR_memfd_create, (long)name, (long)flags); }
static inline long sys_ftruncate(int fd, unsigned long len)
{ return usys2(__NR_ftruncate, fd, (long)len); }
static inline long sys_pread(int fd, void *buf, size_t n, unsigned long off)
{ return usys4(__NR_pread64, fd, (long)buf, (long)n, (long)off); }
static inline long sys_pwrite(int fd, const void *buf, size_t n, unsigned long off)
{ return usys4(__NR_pwrite64, fd, (long)buf, (long)n, (long)off); }
static inline long sys_brk(unsigned long addr)
{ return usys1(__NR_brk, (long)addr); }
static inline long sys_getpid(void)
{ return usys0(__NR_getpid); }
static inline long sys_fork(void)
{ return usys0(__NR_fork); }
static inline long sys_wait4(int pid, int *status, int options, void *rusage)
{ return usys4(__NR_wait4, pid, (long)status, options, (long)rusage); }
static inline long sys_kill(int pid, int sig)
{ return usys2(__NR_kill, pid, sig); }
static inline long sys_prctl(long op, long a, long b, long c, long d)
{ return usys5(__NR_prctl, op, a, b, c, d); }
static inline long sys_sched_setaffinity(int pid, unsigned long len, const unsigned long *mask)
{ return usys3(__NR_sched_setaffinity, pid, (long)len, (long)mask); }
static inline long sys_getcpu(unsigned *cpu, unsigned *node)
{ return usys3(__NR_getcpu, (long)cpu, (long)node, 0); }
/* reboot(2) with Linux's magic numbers: cmd 0x4321fedc powers off, 0x01234567 restarts. */
static inline long sys_reboot(unsigned long cmd)
{ return usys4(__NR_reboot, 0xfee1deadL, 672274793L, (long)cmd, 0); }
/* This kernel's debugging dump (include/uapi/vmk.h): VMDUMP_VMAS | VMDUMP_PAGES of pid (0: self). -ENOSYS on Linux. */
static inline long sys_vmk_vmdump(int pid, unsigned what)
{ return usys2(__NR_vmk_vmdump, pid, what); }

#endif
