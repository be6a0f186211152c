/*
 * File-descriptor system calls: open, openat, creat, memfd_create, close,
 * dup, dup2, dup3, fcntl, pipe, pipe2, getdents64 (include/file.h has the
 * table's rules). Argument
 * checks come in Linux's order, so that bad input gets Linux's errno.
 */
#include "syscall_internal.h"
#include "file.h"
#include "pipe.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"
#include "slab.h"
#include "task.h"

#define FASYNC          020000
#define SETFL_MASK      (O_APPEND | O_NONBLOCK | O_DIRECT | O_NOATIME | FASYNC)

static long do_open(int dirfd, uint64_t upath, uint64_t flags, uint64_t mode)
{
	struct file *f;
	char *path;
	long r = path_from_user(upath, &path);
	int fd;

	if (!r)
		r = file_open_at(dirfd, path, (int)flags, (uint32_t)mode, &f);
	kfree(path);
	if (r)
		return r;
	fd = fd_install_lowest(f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

/* open(path, flags, mode): file_open_at from the working directory. The fd; its errors, -EMFILE, -EFAULT. */
long sys_open(SYSCALL_ARGS)
{
	return do_open(AT_FDCWD, a0, a1, a2);
}

/* openat(dirfd, path, flags, mode): relative paths start at dirfd (-EBADF, -ENOTDIR). */
long sys_openat(SYSCALL_ARGS)
{
	return do_open((int)a0, a1, a2, a3);
}

/* creat(path, mode): open(path, O_CREAT | O_WRONLY | O_TRUNC, mode). */
long sys_creat(SYSCALL_ARGS)
{
	return do_open(AT_FDCWD, a0, O_CREAT | O_WRONLY | O_TRUNC, a1);
}

#define MFD_CLOEXEC       0x1U
#define MFD_ALLOW_SEALING 0x2U
#define MFD_HUGETLB       0x4U
#define MFD_NOEXEC_SEAL   0x8U
#define MFD_EXEC          0x10U
#define MFD_NAME_MAX      (NAME_MAX - 6)        /* NAME_MAX less "memfd:" */

/*
 * memfd_create(name, flags): a new file in no directory, "memfd:NAME",
 * opened O_RDWR, size 0 (Linux's memfd on its internal tmpfs mount: no
 * size limit there). -EINVAL unknown flags (MFD_HUGETLB too: no huge
 * pages here) or a name over 249 bytes; -EFAULT; -EMFILE; -ENOMEM.
 * Sealing is accepted and not enforced.
 */
long sys_memfd_create(SYSCALL_ARGS)
{
	char name[6 + MFD_NAME_MAX + 2] = "memfd:";
	struct file *f;
	long len;
	int fd;

	if ((uint32_t)a1 & ~(MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL | MFD_EXEC))
		return -EINVAL;
	if (((uint32_t)a1 & MFD_EXEC) && ((uint32_t)a1 & MFD_NOEXEC_SEAL))
		return -EINVAL;
	len = strncpy_from_user(name + 6, (const char *)a0, MFD_NAME_MAX + 1);
	if (len < 0)
		return -EFAULT;
	if (len > MFD_NAME_MAX)
		return -EINVAL;
	f = memfd_file(name);
	if (!f)
		return -ENOMEM;
	fd = fd_install_lowest(f, 0, (uint32_t)a1 & MFD_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

/* close(fd): 0 or -EBADF. */
long sys_close(SYSCALL_ARGS)
{
	return fd_close(a0);
}

/* dup(fd): the lowest free fd; -EBADF, -EMFILE. */
long sys_dup(SYSCALL_ARGS)
{
	struct file *f = fget(a0);     /* its reference moves into the new fd */
	int fd;

	if (!f)
		return -EBADF;
	fd = fd_install_lowest(f, 0, false);
	if (fd < 0)
		file_put(f);
	return fd;
}

/* dup3(old, new, flags): -EINVAL flags other than O_CLOEXEC or old == new; -EBADF new >= the limit or old closed. */
long sys_dup3(SYSCALL_ARGS)
{
	if (a2 & ~(uint64_t)O_CLOEXEC)
		return -EINVAL;
	if ((int)a0 == (int)a1)
		return -EINVAL;
	if ((uint32_t)a1 >= FD_LIMIT_SOFT)
		return -EBADF;
	return fd_dup_to((uint32_t)a0, (uint32_t)a1, a2 & O_CLOEXEC);
}

/* dup2(old, new): new (old == new: just checks old); -EBADF. */
long sys_dup2(SYSCALL_ARGS)
{
	if ((uint32_t)a0 == (uint32_t)a1)
		return fd_peek((uint32_t)a0, NULL, NULL) ? -EBADF : (long)(uint32_t)a1;
	return sys_dup3(tf, a0, a1, 0, 0, 0, 0);
}

static long same_file(struct file *f, void *want)
{
	return f == want;
}

/* fcntl's work on f, the file of fd (the caller holds a reference). */
static long fcntl_file(struct file *f, uint64_t fd, unsigned cmd, uint64_t arg)
{
	long r;

	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if ((uint32_t)arg >= FD_LIMIT_SOFT)
			return -EINVAL;
		file_get_ref(f);
		r = fd_install_lowest(f, (int)(uint32_t)arg, cmd == F_DUPFD_CLOEXEC);
		if (r < 0)
			file_put(f);
		return r;
	case F_GETFD:
		return fd_cloexec(fd) ? FD_CLOEXEC : 0;
	case F_SETFD:
		fd_set_cloexec(fd, arg & FD_CLOEXEC);
		return 0;
	case F_GETFL:
		return f->flags;
	case F_SETFL:
		f->flags = (f->flags & ~SETFL_MASK) | ((unsigned)arg & SETFL_MASK);
		return 0;
	case 5: case 6: case 7:                 /* F_GETLK, F_SETLK, F_SETLKW */
	case 36: case 37: case 38:              /* F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW */
		r = file_lock_fcntl(f, cmd, arg);
		if (fd_peek(fd, same_file, f) != 1)     /* closed meanwhile: no lock outlives it (Linux) */
			file_locks_close(f, current->fdt);
		return r;
	default:
		return -EINVAL;
	}
}

/*
 * fcntl(fd, cmd, arg): F_DUPFD / F_DUPFD_CLOEXEC (lowest free >= arg;
 * -EINVAL arg >= the limit), F_GETFD / F_SETFD (FD_CLOEXEC), F_GETFL,
 * F_SETFL (O_APPEND, O_NONBLOCK and the other changeable flags), the
 * record locks (fs/locks.c). -EBADF;
 * -EINVAL unknown cmd.
 */
long sys_fcntl(SYSCALL_ARGS)
{
	struct file *f = fget((uint32_t)a0);
	long r;

	if (!f)
		return -EBADF;
	r = fcntl_file(f, (uint32_t)a0, (uint32_t)a1, a2);
	file_put(f);
	return r;
}

/* pipe2(fds, flags): two new fds, read end first. -EINVAL flags; -EFAULT fds (nothing left open); -EMFILE; -ENOMEM. */
long sys_pipe2(SYSCALL_ARGS)
{
	struct file *rd, *wr;
	int fds[2];
	long r;

	if (a1 & ~(uint64_t)(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	r = pipe_create((unsigned)a1, &rd, &wr);
	if (r)
		return r;
	fds[0] = fd_install_lowest(rd, 0, a1 & O_CLOEXEC);
	if (fds[0] < 0) {
		file_put(rd);
		file_put(wr);
		return fds[0];
	}
	fds[1] = fd_install_lowest(wr, 0, a1 & O_CLOEXEC);
	if (fds[1] < 0) {
		fd_close(fds[0]);
		file_put(wr);
		return fds[1];
	}
	if (copy_to_user((void *)a0, fds, sizeof(fds))) {
		fd_close(fds[0]);
		fd_close(fds[1]);
		return -EFAULT;
	}
	return 0;
}

/* pipe(fds): pipe2 with no flags. */
long sys_pipe(SYSCALL_ARGS)
{
	return sys_pipe2(tf, a0, 0, 0, 0, 0, 0);
}

/* getdents64(fd, buf, size): a directory's entries (file_getdents64); -EBADF, -ENOTDIR, -EINVAL, -EFAULT. */
long sys_getdents64(SYSCALL_ARGS)
{
	struct file *f = fget(a0);
	long r;

	if (!f)
		return -EBADF;
	r = access_ok(a1, a2) ? file_getdents64(f, a1, a2) : -EFAULT;
	file_put(f);
	return r;
}
