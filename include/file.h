/*
 * Read-only open files (kernel/file.c): there is no file system, but a
 * process can open
 *   - a boot module by path (the basename names it, as for execve): its
 *     contents, e.g. the mmscript runner's script bundle;
 *   - /proc/self/maps: a snapshot, taken at open, of the caller's VMAs in
 *     Linux's format (names: the program's path for its PT_LOAD pages,
 *     [heap], [stack]).
 * File descriptors 3..TASK_NFILES-1; 0..2 are the console (kernel/sys_io.c).
 * Files are shared by fork (reference counted), closed at exit, and at
 * execve when opened with O_CLOEXEC.
 */
#ifndef FILE_H
#define FILE_H

#include "types.h"

struct task;

struct file {
	int refs;                       /* fds pointing at it, in all tasks */
	const char *data;               /* contents */
	size_t size;
	uint64_t pos;                   /* shared offset (as Linux's struct file) */
	char *owned;                    /* kmalloc'd contents to free with the file, or NULL */
	bool cloexec;                   /* (per fd in Linux; one fd per file here until dup exists) */
};

/* file_open: open path for reading into a new fd of current. The fd, or -ENOENT, -EMFILE, -ENOMEM, -EACCES (write access). */
int file_open(const char *path, int flags);
/* file_get: the file behind fd of current, or NULL (not a file fd). */
struct file *file_get(uint64_t fd);
/* file_close: close fd of current. 0 or -EBADF. */
int file_close(uint64_t fd);

void files_fork(struct task *child, struct task *parent);
void files_exec(struct task *t);
void files_close_all(struct task *t);

/* maps_format: write t's /proc/self/maps text into buf (size bytes); returns the length it needs. */
size_t maps_format(struct task *t, char *buf, size_t size);

#endif
