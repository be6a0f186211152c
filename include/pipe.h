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

#endif
