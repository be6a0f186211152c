/*
 * The user-mode test program (in the spirit of xv6's usertests): every test
 * runs in a forked child, so a crash is one FAILED line, not a dead run.
 * The same binary runs on the host Linux and on our kernel; checks of this
 * kernel's own counters (vmk_memstat) are skipped on Linux.
 */
#ifndef UTESTS_H
#define UTESTS_H

#include "ulib.h"
#include "vmk.h"
#include "linux_wait.h"

/* Record a failed check and end the test (the child exits 1). */
#define CHECK(cond) do { \
	if (!(cond)) \
		ut_fail(__FILE__, __LINE__, #cond); \
} while (0)
/* Compare two integer values; on failure print both. */
#define CHECK_EQ(a, b) do { \
	long __a = (long)(a), __b = (long)(b); \
	if (__a != __b) \
		ut_fail_eq(__FILE__, __LINE__, #a, #b, __a, __b); \
} while (0)

void ut_fail(const char *file, int line, const char *what) __attribute__((noreturn));
void ut_fail_eq(const char *file, int line, const char *a, const char *b, long va, long vb)
	__attribute__((noreturn));

/* This kernel's counters (include/uapi/vmk.h); false on Linux (-ENOSYS). */
bool vmk_memstat(struct vmk_memstat *st);
/* env_has: whether the environment holds the string var ("NAME=VALUE"; tools/run --env sets them). */
bool env_has(const char *var);
/* True when running on our kernel. */
bool on_vmkernel(void);

/* ut_catch_signal: run fn (SA_SIGINFO) on signal sig; a failed sigaction fails the test. */
void ut_catch_signal(int sig, void (*fn)(int, siginfo_t *, void *));
/* Run fn in a forked child; returns its wait status. */
int run_in_child(void (*fn)(void));
/* The whole file path (at most size - 1 bytes) in buf, NUL-terminated: its length, or -1 (main.c). */
long ut_read_file(const char *path, char *buf, size_t size);

int helper_main(int argc, char **argv);
/* argv[0] of this program (execve tests). */
extern char *ut_argv0;

struct utest {
	const char *name;
	void (*fn)(void);
};
extern const struct utest ut_mem_tests[], ut_proc_tests[], ut_sig_tests[], ut_vm_tests[];
extern const struct utest ut_forkmerge_tests[], ut_manyvma_tests[], ut_smp_tests[], ut_thread_tests[];
extern const struct utest ut_fd_tests[], ut_pipeline_tests[], ut_clone_tests[], ut_sigx_tests[];
extern const struct utest ut_file_tests[], ut_pressure_tests[];
extern const struct utest ut_tgroup_tests[], ut_threadvm_tests[], ut_gort_tests[], ut_procfs_tests[];
extern const struct utest ut_attr_tests[], ut_lock_tests[], ut_thp_tests[], ut_fdshare_tests[];
extern const struct utest ut_sigctx_tests[], ut_cputime_tests[];
/* The kB value of field (e.g. "Rss:") in the smaps block of the VMA at va (0: the rollup), or -1 (t_pressure.c). */
long smaps_kb(const void *va, const char *field);
/*
 * True where a read fault of untouched private anonymous memory maps the
 * shared zero page (which counts in no Rss): always on this kernel
 * (t_mem's zero_page_then_cow checks it by its counters); on Linux probed
 * once by a read and the VMA's Rss, since a build may do without it (the
 * CI host's 6.18, booted with pvm_no_zero_page=1, maps a new dirty page).
 * huge: the huge zero page of a THP range (Linux: also its use_zero_page
 * knob) (t_pressure.c).
 */
bool read_maps_zero_page(bool huge);
/* The value of NAME in /proc/vmstat, and in /proc/meminfo (kB; NAME without its colon), or -1 (t_pressure.c). */
long vmstat(const char *name);
long meminfo_kb(const char *name);
/* The value of NAME in /proc/self/status (kB for the Vm fields; NAME without its colon), or -1 (t_pressure.c). */
long status_kb(const char *name);
/* The helper "tests --exec-ids PID PPID OLDTID" (t_tgroup.c). */
int tgroup_exec_ids(int argc, char **argv);
/* The helper "tests --sigactions": what execve left of SIGUSR1 and SIGUSR2 (t_tgroup.c). */
int tgroup_sigactions(void);
/* The pid 1 helpers of pid1.c (tests --orphans-at-exit, --exec-from-thread): their status, or -1 for another name. */
int pid1_helper(int argc, char **argv);

/* struct stat as x86-64 Linux's fstat/stat fill it (the times as sec/nsec pairs). */
struct kstat_u {
	unsigned long dev, ino, nlink;
	unsigned mode, uid, gid, pad0;
	unsigned long rdev;
	long size, blksize, blocks;
	long times[6];
	long reserved[3];
};

/* One record of getdents64's buffer, as x86-64 Linux fills it. */
struct dirent_u {
	unsigned long ino;
	long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

#endif
