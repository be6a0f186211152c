/*
 * The programs' console (fs/console_file.c): init's fds 0, 1 and 2 are
 * three console files, one per stream. What carries the streams is the
 * architecture's (include/arch.h, arch_stream_*): under tools/run, three
 * virtio consoles (stdout and stderr reach tools/run's stdout and stderr
 * byte for byte; stdin comes from tools/run's stdin, with its end); without
 * them (the GRUB ISO), stdout and stderr go to the serial console and stdin
 * is at end of file.
 */
#ifndef CONSOLE_H
#define CONSOLE_H

#include "types.h"
#include "kernel_hooks.h"      /* console_poll */

struct file;

enum console_stream { CONSOLE_STDIN, CONSOLE_STDOUT, CONSOLE_STDERR, CONSOLE_NSTREAMS };

/* console_open: a new file for stream (one reference). NULL on -ENOMEM. */
struct file *console_open(enum console_stream stream);

/* console_poll: the timer tick's hook, include/kernel_hooks.h. */

/* console_lost_bytes: output bytes dropped because a device never answered (reported at exit). */
uint64_t console_lost_bytes(void);

#endif
