/* Error numbers: Linux x86-64 values. Functions return 0 or -EXXX. */
#ifndef KERRNO_H
#define KERRNO_H

#include "uapi/linux_errno.h"

/* Symbolic name of an errno value ("ENOMEM"), or NULL if unknown. */
const char *errno_name(int err);

#endif
