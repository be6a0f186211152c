/* Error numbers: Linux x86-64 values. Functions return 0 or -EXXX. */
#ifndef KERRNO_H
#define KERRNO_H

#include "uapi/linux_errno.h"

/*
 * Kernel-internal results of an interrupted system call (never seen by user
 * space: the way back to user mode turns them into -EINTR or a restart, as
 * Linux does): ERESTARTSYS restarts when the handler has SA_RESTART (or no
 * handler ran), ERESTARTNOHAND only when no handler ran.
 */
#define ERESTARTSYS    512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514

/* Symbolic name of an errno value ("ENOMEM"), or NULL if unknown. */
const char *errno_name(int err);

#endif
