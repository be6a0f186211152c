/*
 * Programs: the boot modules the root file system is filled from
 * (kernel/module.c, fs/rootfs.c) and the static ELF64 loader
 * (kernel/task/exec.c), which maps a program from its file.
 *
 * Module k's command line (GRUB: the words after the file name; QEMU
 * -initrd "FILE ARG...,FILE2 ...": the whole text) is "PATH ARG...". Its
 * program name is the basename of PATH: a module that is not an archive
 * becomes the file "/NAME" (fs/rootfs.c).
 */
#ifndef EXEC_H
#define EXEC_H

#include "types.h"

struct boot_info;
struct mm;

#define MODULE_NAME_MAX 64

struct boot_module {
	char name[MODULE_NAME_MAX];     /* basename of the first word of its command line */
	const char *cmdline;            /* its whole command line */
	bool cmdline_cut;               /* the loader's command line was longer than we keep */
	const void *data;               /* contents, through the direct map */
	size_t size;
};

/* modules_init: record the boot modules (bi must stay valid: its strings are used in place). */
void modules_init(const struct boot_info *bi);
/* modules_dropped: how many boot modules did not fit (BOOT_MAX_MODULES): init refuses to start then. */
size_t modules_dropped(void);
/* module_count / module_get: the modules in boot order. */
unsigned module_count(void);
const struct boot_module *module_get(unsigned i);
/* module_find: the module whose program name is name, or NULL. */
const struct boot_module *module_find(const char *name);

/* Stack layout constants (Linux x86-64 without address randomization). */
#define STACK_TOP        0x00007ffffffff000UL   /* TASK_SIZE */
#define STACK_EXPAND     (128UL << 10)          /* Linux setup_arg_pages' stack_expand */
#define EXEC_ARG_MAX     (64UL << 10)           /* bytes of argv + envp strings and pointers */
#define ET_DYN_BASE      0x0000555555554000UL   /* load bias of an ET_DYN (static-pie) program */

struct file;
struct dentry;

/* What exec_build produces: a complete new address space and where to start. */
struct exec_image {
	struct mm *mm;
	uintptr_t entry;                /* initial rip */
	uintptr_t sp;                   /* initial rsp: argc, argv[], NULL, envp[], NULL, auxv */
	struct dentry *exe;             /* the program's name (a reference): /proc/self/exe */
};

/*
 * elf_check: validate a static x86-64 ELF64 executable of size bytes in
 * memory (header, program headers inside the file, PT_LOAD segments inside
 * the file, sorted, below TASK_SIZE, offset/address congruent mod the page
 * size, filesz <= memsz, no wrap-around; no PT_INTERP). 0 or -ENOEXEC.
 * Reads only [elf, elf + size). exec_build makes the same checks on a file.
 */
int elf_check(const void *elf, size_t size);

/*
 * exec_open: the program path names, relative to base, opened for
 * exec_build (Linux do_open_execat): the lookup's errors, -EACCES for
 * anything but a regular file with an execute bit. 0 and *out.
 */
long exec_open(struct dentry *base, const char *path, struct file **out);
/* exec_basename: the program name after exec (Linux's comm: the last component of path). */
const char *exec_basename(const char *path);

/*
 * exec_build: a new address space for the program in the regular file f
 * (opened for reading) with its PT_LOAD segments mapped from the file
 * (private, copy-on-write, permissions from p_flags, the bss zero), the brk
 * heap starting after the highest segment, and the [stack] VMA holding
 * argv/envp/auxv as Linux lays them out. argv and envp are NULL-terminated
 * arrays of kernel strings; execfn is AT_EXECFN's string. 0 and *out;
 * -ENOEXEC bad ELF; -E2BIG arguments over EXEC_ARG_MAX; -ENOMEM. On
 * failure nothing is left allocated. The caller holds no mmap_lock.
 */
int exec_build(struct file *f, const char *execfn, const char *const *argv,
	       const char *const *envp, struct exec_image *out);

struct task;
struct trap_frame;

/*
 * exec_install: make img the address space of t (current, or a task not
 * yet started): the old mm (if any) is released, t->tf is reset to Linux's
 * post-exec state (all registers zero, rip = entry, rsp = sp), FS base 0,
 * FPU reset, handled signals reset to SIG_DFL, comm = name, the program
 * (t->exe) img's. Cannot fail.
 */
void exec_install(struct task *t, struct exec_image *img, const char *name);

#endif
