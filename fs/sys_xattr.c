/*
 * Extended attributes, the reading half: getxattr, lgetxattr, fgetxattr,
 * listxattr, llistxattr, flistxattr. The tmpfs stores none, so every name a
 * Linux tmpfs knows (security.*, trusted.*, user.*, system.posix_acl_access
 * and system.posix_acl_default) is -ENODATA, any other name -EOPNOTSUPP, and
 * every list is empty: what `ls -l` and `cp` ask for (SELinux labels,
 * ACLs) gets Linux's answers. Not here: setxattr and removexattr (-ENOSYS);
 * /proc and /dev answer as the tmpfs does (Linux's procfs: -EOPNOTSUPP).
 */
#include "syscall_internal.h"
#include "file.h"
#include "fs.h"
#include "uaccess.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"

#define XATTR_NAME_MAX 255

/* A name's prefix and whether something must follow it (xattr_resolve_name). */
static const char *const tmpfs_prefixes[] = { "security.", "trusted.", "user." };

/*
 * Copy the attribute name (import_xattr_name): -EFAULT, -ERANGE when empty
 * or over XATTR_NAME_MAX. 0, with *answer what the tmpfs would say of it:
 * -ENODATA (a name it knows), -EINVAL (a bare prefix), -EOPNOTSUPP.
 */
static long xattr_name(uint64_t uname, long *answer)
{
	char name[XATTR_NAME_MAX + 1];
	long n = strncpy_from_user(name, (const char *)uname, sizeof(name));

	if (n < 0)
		return -EFAULT;
	if (n == 0 || n == (long)sizeof(name))
		return -ERANGE;
	*answer = -EOPNOTSUPP;
	for (size_t i = 0; i < ARRAY_SIZE(tmpfs_prefixes); i++) {
		size_t len = strlen(tmpfs_prefixes[i]);

		if (strncmp(name, tmpfs_prefixes[i], len) == 0)
			*answer = name[len] ? -ENODATA : -EINVAL;
	}
	if (!strcmp(name, "system.posix_acl_access") || !strcmp(name, "system.posix_acl_default"))
		*answer = -ENODATA;
	return 0;
}

/* getxattr/lgetxattr of path (follow: the last link too): the name's checks, the lookup's errors, then the answer. */
static long path_getxattr(uint64_t upath, uint64_t uname, unsigned follow)
{
	struct dentry *d;
	long answer, err = xattr_name(uname, &answer);

	if (!err)
		err = user_path_lookup(AT_FDCWD, upath, follow, &d);
	if (err)
		return err;
	dput(d);
	return answer;
}

/* listxattr/llistxattr of path: the lookup's errors, else 0 (no names). */
static long path_listxattr(uint64_t upath, unsigned follow)
{
	struct dentry *d;
	long err = user_path_lookup(AT_FDCWD, upath, follow, &d);

	if (err)
		return err;
	dput(d);
	return 0;
}

/* getxattr(path, name, value, size): -ENODATA, -EOPNOTSUPP, -EINVAL, -ERANGE, -EFAULT, the lookup's errors. */
long sys_getxattr(SYSCALL_ARGS)
{
	return path_getxattr(a0, a1, LOOKUP_FOLLOW);
}

/* lgetxattr: as getxattr, of a last symbolic link itself. */
long sys_lgetxattr(SYSCALL_ARGS)
{
	return path_getxattr(a0, a1, 0);
}

/* fgetxattr(fd, name, value, size): -EBADF first; files outside the file system (pipes, consoles) -EOPNOTSUPP. */
long sys_fgetxattr(SYSCALL_ARGS)
{
	struct file *f = fget(a0);
	long answer, err;
	bool named;

	if (!f)
		return -EBADF;
	named = f->dentry;
	file_put(f);
	err = xattr_name(a1, &answer);
	if (err)
		return err;
	return named ? answer : -EOPNOTSUPP;
}

/* listxattr(path, list, size): 0 (no names); the lookup's errors. */
long sys_listxattr(SYSCALL_ARGS)
{
	return path_listxattr(a0, LOOKUP_FOLLOW);
}

/* llistxattr: as listxattr, of a last symbolic link itself. */
long sys_llistxattr(SYSCALL_ARGS)
{
	return path_listxattr(a0, 0);
}

/* flistxattr(fd, list, size): -EBADF, else 0. */
long sys_flistxattr(SYSCALL_ARGS)
{
	return fd_peek(a0, NULL, NULL);
}
