/*
 * execve(path, argv, envp): run the program in a file of the file system
 * (include/exec.h: exec_open, exec_build). The arguments are copied into a
 * kernel buffer first; the new address space is built completely before
 * the old one is dropped, so a failed execve returns to the caller
 * unharmed. Once it is built, the other threads of the process end
 * (thread_group_exec).
 */
#include "exec.h"
#include "file.h"
#include "slab.h"
#include "task.h"
#include "syscall.h"
#include "uaccess.h"
#include "pmm.h"
#include "kstring.h"
#include "kerrno.h"
#include "mm.h"

#define MAX_ARG_PTRS 1024
#define ARGBUF_ORDER 4                  /* 64 KiB = EXEC_ARG_MAX of strings */

struct argbuf {
	char *strings;                  /* EXEC_ARG_MAX bytes */
	size_t used;
	const char **ptrs;              /* 2 * (MAX_ARG_PTRS + 1) pointers */
	size_t nptrs;
};

/* Copy the NULL-terminated user vector uvec into ab; *out = its first pointer slot. */
static int copy_vector(struct argbuf *ab, uint64_t uvec, const char ***out)
{
	*out = &ab->ptrs[ab->nptrs];
	for (size_t i = 0; uvec; i++) {
		uint64_t up;
		long len;

		if (i >= MAX_ARG_PTRS)
			return -E2BIG;
		if (copy_from_user(&up, (const void *)(uvec + i * 8), sizeof(up)))
			return -EFAULT;
		if (!up)
			break;
		len = strncpy_from_user(ab->strings + ab->used, (const char *)up, EXEC_ARG_MAX - ab->used);
		if (len < 0)
			return (int)len;
		if ((size_t)len >= EXEC_ARG_MAX - ab->used)
			return -E2BIG;
		ab->ptrs[ab->nptrs++] = ab->strings + ab->used;
		ab->used += len + 1;
	}
	ab->ptrs[ab->nptrs++] = NULL;
	return 0;
}

/* Copy argv and envp (user vectors) into ab's pages; then build and install the program of f. */
static int exec_with_args(struct file *f, const char *path, uint64_t uargv, uint64_t uenvp)
{
	struct page *sp = pmm_alloc(ARGBUF_ORDER, 0), *pp = pmm_alloc(2, 0);   /* 16 KiB: 2 * 1025 pointers */
	const char **argv, **envp;
	struct exec_image img;
	struct argbuf ab;
	int err = -ENOMEM;

	if (sp && pp) {
		ab.strings = page_address(sp);
		ab.used = 0;
		ab.ptrs = page_address(pp);
		ab.nptrs = 0;
		err = copy_vector(&ab, uargv, &argv);
		if (!err)
			err = copy_vector(&ab, uenvp, &envp);
		if (!err)
			err = exec_build(f, path, argv, envp, &img);
		if (!err && (err = thread_group_exec()))        /* the point of no return: other threads end */
			mm_put(img.mm);
		if (!err)
			exec_install(current, &img, exec_basename(path));
	}
	if (sp)
		pmm_free(sp, ARGBUF_ORDER);
	if (pp)
		pmm_free(pp, 2);
	return err;
}

long sys_execve(struct trap_frame *tf, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		uint64_t a4, uint64_t a5);

/* execve: 0 (never seen: the new program starts); -ENOENT, -ENOTDIR, -EACCES, -ELOOP; -EFAULT; -E2BIG; -ENAMETOOLONG; -ENOEXEC; -ENOMEM. */
long sys_execve(struct trap_frame *tf, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		uint64_t a4, uint64_t a5)
{
	struct file *f;
	char *path;
	long err = path_from_user(a0, &path);

	if (!err)
		err = exec_open(current->cwd, path, &f);
	if (!err) {
		err = exec_with_args(f, path, a1, a2);
		file_put(f);
	}
	kfree(path);
	return err;
}
