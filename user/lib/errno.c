/*
 * errno.c - errno storage and the table of Linux errno names.
 */
#include "ulib.h"

int errno;

/* Linux x86-64 errno names, indexed by number (include/uapi/asm-generic/errno*.h). */
static const char *const errno_names[] = {
	[1] = "EPERM", [2] = "ENOENT", [3] = "ESRCH", [4] = "EINTR", [5] = "EIO",
	[6] = "ENXIO", [7] = "E2BIG", [8] = "ENOEXEC", [9] = "EBADF", [10] = "ECHILD",
	[11] = "EAGAIN", [12] = "ENOMEM", [13] = "EACCES", [14] = "EFAULT",
	[15] = "ENOTBLK", [16] = "EBUSY", [17] = "EEXIST", [18] = "EXDEV",
	[19] = "ENODEV", [20] = "ENOTDIR", [21] = "EISDIR", [22] = "EINVAL",
	[23] = "ENFILE", [24] = "EMFILE", [25] = "ENOTTY", [26] = "ETXTBSY",
	[27] = "EFBIG", [28] = "ENOSPC", [29] = "ESPIPE", [30] = "EROFS",
	[31] = "EMLINK", [32] = "EPIPE", [33] = "EDOM", [34] = "ERANGE",
	[35] = "EDEADLK", [36] = "ENAMETOOLONG", [37] = "ENOLCK", [38] = "ENOSYS",
	[39] = "ENOTEMPTY", [40] = "ELOOP", [42] = "ENOMSG", [43] = "EIDRM",
	[61] = "ENODATA", [62] = "ETIME", [75] = "EOVERFLOW", [84] = "EILSEQ",
	[95] = "EOPNOTSUPP", [110] = "ETIMEDOUT", [125] = "ECANCELED",
	[130] = "EOWNERDEAD", [131] = "ENOTRECOVERABLE", [132] = "ERFKILL",
	[133] = "EHWPOISON",
};

/* uerrno_name - see uerrno.h. */
const char *uerrno_name(int err)
{
	if (err <= 0 || (size_t)err >= sizeof(errno_names) / sizeof(errno_names[0]))
		return NULL;
	return errno_names[err];
}

/* uerrno_ret - see uerrno.h. */
long uerrno_ret(long raw)
{
	if (usys_is_err(raw)) {
		errno = (int)-raw;
		return -1;
	}
	return raw;
}
