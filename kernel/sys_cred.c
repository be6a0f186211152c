/*
 * Credentials of the only user, root: every real, effective, saved and
 * file-system ID is 0 and there are no supplementary groups (Linux's init
 * as it starts). The set* calls take Linux's argument checks in its
 * order; setting an ID to 0 (or leaving it, -1) succeeds as it does for
 * root on Linux; another ID is refused with -EPERM, because this kernel
 * has no second user to become (docs/abi.md, "Credentials").
 */
#include "syscall_internal.h"
#include "uaccess.h"
#include "kerrno.h"

#define NGROUPS_MAX 65536
#define ID_KEEP     0xffffffffU         /* (uid_t)-1: "leave this one" */

/* An ID of a set* call: 0 on success (0 or left unchanged), -EPERM for an ID we cannot become. */
static long id_ok(uint64_t id, bool may_keep)
{
	uint32_t v = (uint32_t)id;

	if (v == ID_KEEP)
		return may_keep ? 0 : -EINVAL;  /* setuid(-1): not a valid kuid */
	return v == 0 ? 0 : -EPERM;
}

/* setuid(uid) / setgid(gid): 0 for 0; -EINVAL for -1; -EPERM for another ID. */
long sys_setuid(SYSCALL_ARGS)
{
	return id_ok(a0, false);
}

/* setreuid(r, e) / setregid(r, e): each 0 or -1. */
long sys_setreuid(SYSCALL_ARGS)
{
	long r = id_ok(a0, true);

	return r ? r : id_ok(a1, true);
}

/* setresuid(r, e, s) / setresgid(r, e, s): each 0 or -1. */
long sys_setresuid(SYSCALL_ARGS)
{
	long r = id_ok(a0, true);

	if (!r)
		r = id_ok(a1, true);
	return r ? r : id_ok(a2, true);
}

/* getresuid(r, e, s) / getresgid(r, e, s): 0 into each; -EFAULT. */
long sys_getresuid(SYSCALL_ARGS)
{
	uint32_t zero = 0;

	if (copy_to_user((void *)a0, &zero, 4) || copy_to_user((void *)a1, &zero, 4) ||
	    copy_to_user((void *)a2, &zero, 4))
		return -EFAULT;
	return 0;
}

/* setfsuid(id) / setfsgid(id): the old one, 0; the new one is 0 only (others ignored, as Linux ignores a refused one). */
long sys_setfsuid(SYSCALL_ARGS)
{
	return 0;
}

/*
 * setgroups(size, list): -EINVAL size over NGROUPS_MAX; -EFAULT; the empty
 * list, or one of group 0 only, is what we have already (getgroups then
 * says 0 groups: a list of 0 alone is the same credentials for every
 * check); any other group -EPERM.
 */
long sys_setgroups(SYSCALL_ARGS)
{
	uint32_t g;

	if ((int)a0 < 0 || (int)a0 > NGROUPS_MAX)
		return -EINVAL;
	for (int i = 0; i < (int)a0; i++) {
		if (copy_from_user(&g, (const void *)(a1 + 4UL * (uint64_t)i), 4))
			return -EFAULT;
		if (g != 0)
			return -EPERM;
	}
	return 0;
}
