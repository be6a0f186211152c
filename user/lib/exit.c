/*
 * exit.c - process termination (exit_group: all threads, as libc's exit).
 */
#include "ulib.h"

/* _exit - see ulib.h. */
void _exit(int status)
{
	for (;;) {
		usys1(__NR_exit_group, status & 0xff);
		usys1(__NR_exit, status & 0xff);
	}
}

/* exit - see ulib.h. No atexit handlers and no stdio buffers to flush. */
void exit(int status)
{
	_exit(status);
}
