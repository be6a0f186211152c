/* Pipes (fs/pipe.c). */
#ifndef PIPE_H
#define PIPE_H

#include "types.h"

struct file;

/*
 * pipe_create: a new pipe; *rd its read end (O_RDONLY), *wr its write end
 * (O_WRONLY), each with O_NONBLOCK if flags has it, one reference each.
 * 0 or -ENOMEM (nothing allocated then).
 */
int pipe_create(unsigned flags, struct file **rd, struct file **wr);

/* file_is_pipe: f is an end of a pipe. */
bool file_is_pipe(const struct file *f);
/*
 * pipe_reopen: open the pipe f is an end of again (/proc/PID/fd/N, as
 * Linux's fifo_open): a new end with flags' access mode (O_RDWR: both
 * ends) and O_NONBLOCK; the caller holds a reference on f. 0 and *out
 * (one reference), -EINVAL (access mode 3), -ENOMEM.
 */
long pipe_reopen(struct file *f, int flags, struct file **out);

#endif
