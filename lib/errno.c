/* Symbolic names of the Linux errno values in include/kerrno.h. */
#include "kerrno.h"
#include "kernel.h"

static const char *const names[] = {
	[EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH", [EINTR] = "EINTR",
	[EIO] = "EIO", [ENXIO] = "ENXIO", [E2BIG] = "E2BIG", [ENOEXEC] = "ENOEXEC",
	[EBADF] = "EBADF", [ECHILD] = "ECHILD", [EAGAIN] = "EAGAIN", [ENOMEM] = "ENOMEM",
	[EACCES] = "EACCES", [EFAULT] = "EFAULT", [EBUSY] = "EBUSY", [EEXIST] = "EEXIST",
	[ENODEV] = "ENODEV", [ENOTDIR] = "ENOTDIR", [EISDIR] = "EISDIR", [EINVAL] = "EINVAL",
	[ENFILE] = "ENFILE", [EMFILE] = "EMFILE", [ENOTTY] = "ENOTTY", [EFBIG] = "EFBIG",
	[ENOSPC] = "ENOSPC", [ESPIPE] = "ESPIPE", [ERANGE] = "ERANGE", [EDEADLK] = "EDEADLK", [ENOSYS] = "ENOSYS",
	[EOVERFLOW] = "EOVERFLOW", [ELIBBAD] = "ELIBBAD", [EPIPE] = "EPIPE", [ENAMETOOLONG] = "ENAMETOOLONG",
	[ELOOP] = "ELOOP", [ENODATA] = "ENODATA", [ENOTEMPTY] = "ENOTEMPTY", [EXDEV] = "EXDEV", [ETXTBSY] = "ETXTBSY", [EOPNOTSUPP] = "EOPNOTSUPP", [ETIMEDOUT] = "ETIMEDOUT", [EROFS] = "EROFS",
};

const char *errno_name(int err)
{
	if (err < 0)
		err = -err;
	if (err <= 0 || (size_t)err >= ARRAY_SIZE(names))
		return NULL;
	return names[err];
}
