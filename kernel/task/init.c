/*
 * The first user process: pid 1 is started from the first boot module with
 * the module's command line as argv; the boot context then idles until init
 * exits, prints "init exited with status N" and stops QEMU with a status
 * that says pass (0) or fail.
 */
#include "task.h"
#include "sched_internal.h"
#include "exec.h"
#include "multiboot.h"
#include "signal.h"
#include "x86.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"
#include "mm.h"
#include "vmscan.h"
#include "khugepaged.h"
#include "arch.h"
#include "file.h"
#include "console.h"
#include "profile.h"

struct task *init_task;

/* Split s (modified in place) into at most max-1 words; argv NULL-terminated. Returns argc. */
static int split_words(char *s, const char **argv, int max)
{
	int n = 0;

	for (;;) {
		while (*s == ' ')
			*s++ = 0;
		if (!*s)
			break;
		if (n == max - 1)
			return -E2BIG;        /* no room for this word and the NULL */
		argv[n++] = s;
		while (*s && *s != ' ')
			s++;
	}
	argv[n] = NULL;
	return n;
}

/* init's fds 0, 1, 2: the console's stdin, stdout and stderr streams. 0 or -ENOMEM. */
static int init_std_files(struct task *t)
{
	t->fdt = fdtable_new();
	if (!t->fdt)
		return -ENOMEM;
	for (int fd = 0; fd < CONSOLE_NSTREAMS; fd++) {
		struct file *f = console_open((enum console_stream)fd);

		if (!f || fd_install_in(t->fdt, f, fd) != fd)
			return -ENOMEM;
	}
	return 0;
}

/* "init exited with status N": N as a shell reports it (code, or 128 + signal). */
static __noreturn void init_finished(struct task *t)
{
	int st = t->exit_status, shell;
	unsigned checked;

	/*
	 * Interrupts on (init_run's loop ends with them off): the check sleeps
	 * on mmap_locks, and an orphan (or a thread) that drops its address
	 * space meanwhile leaves the check's mm_put the last one, whose
	 * teardown takes the page-table lock, which wants interrupts on.
	 */
	arch_irq_enable();
	/* Every address space still alive (orphans') passes vma_check, or the run fails. */
	if (mm_check_all(&checked)) {
		printk(REPORT_BEGIN "vm: vma_check failed on one of %u address spaces\n" REPORT_END, checked);
		qemu_exit(QEMU_EXIT_FAIL);
	}

	profile_user_end();             /* profile=user: the table, as a report */
	while (!arch_streams_drained())         /* the program's last bytes leave before QEMU stops */
		arch_idle_wait();
	if (uart_lost_bytes())
		printk(REPORT_BEGIN "console: %llu bytes of the kernel log were lost (the serial port stopped answering)\n"
		       REPORT_END, (unsigned long long)uart_lost_bytes());

	if ((st & 0x7f) == 0) {
		shell = (st >> 8) & 0xff;
		printk(REPORT_BEGIN "init exited with status %d\n" REPORT_END, shell);
	} else {
		shell = 128 + (st & 0x7f);
		printk(REPORT_BEGIN "init exited with status %d (killed by signal %d, %s)\n" REPORT_END,
		       shell, st & 0x7f, signal_name(st & 0x7f));
	}
	qemu_exit(shell == 0 ? QEMU_EXIT_PASS : QEMU_EXIT_FAIL);
}

#define INIT_MAX_ARGS 1024                      /* argv + envp entries from the args module */
#define ARGS_MODULE "vmkernel.args"
#define ARGS_MAGIC "vmkernel-args\n"

static const char *init_argv[INIT_MAX_ARGS + 1];
static const char *init_envp[INIT_MAX_ARGS + 1];

/*
 * The args module (tools/run): ARGS_MAGIC, then records of one type byte
 * ('a' argument, 'e' environment entry) and a NUL-terminated string. Any
 * byte but NUL passes. Returns 0, or -E2BIG / -EINVAL (malformed).
 */
static int args_from_module(const struct boot_module *am)
{
	const char *p = am->data, *end = p + am->size;
	size_t na = 0, ne = 0;

	if (am->size < sizeof(ARGS_MAGIC) - 1 || memcmp(p, ARGS_MAGIC, sizeof(ARGS_MAGIC) - 1) != 0)
		return -EINVAL;
	p += sizeof(ARGS_MAGIC) - 1;
	while (p < end) {
		const char *s = p + 1, *nul = s;

		while (nul < end && *nul)
			nul++;
		if (nul == end || (*p != 'a' && *p != 'e'))
			return -EINVAL;
		if (na >= INIT_MAX_ARGS || ne >= INIT_MAX_ARGS)
			return -E2BIG;
		if (*p == 'a')
			init_argv[na++] = s;
		else
			init_envp[ne++] = s;
		p = nul + 1;
	}
	init_argv[na] = NULL;
	init_envp[ne] = NULL;
	return na ? 0 : -EINVAL;
}

/* argv from module m's command line (split on spaces), envp HOME=/ TERM=linux. */
static int args_from_cmdline(const struct boot_module *m)
{
	static char cmd[BOOT_MODSTR_MAX];
	size_t len = strlen(m->cmdline);
	int words;

	/* A command line that does not fit is refused, never silently cut short. */
	if (m->cmdline_cut || len >= sizeof(cmd)) {
		printk("init: could not start: command line too long (at most %d bytes)\n", BOOT_MODSTR_MAX - 1);
		return -E2BIG;
	}
	memcpy(cmd, m->cmdline, len + 1);
	words = split_words(cmd, init_argv, 64);
	if (words < 0) {
		printk("init: could not start: too many arguments (at most 63)\n");
		return -E2BIG;
	}
	if (words == 0) {
		init_argv[0] = m->name;
		init_argv[1] = NULL;
	}
	init_envp[0] = "HOME=/";
	init_envp[1] = "TERM=linux";
	init_envp[2] = NULL;
	return 0;
}

/*
 * Has pid 1 ended (its leader and all its threads)? *leader: its leader,
 * init_task, which changes when a thread other than the leader execs (the
 * old leader is freed then): read under sched_lock.
 */
static bool init_ended(struct task **leader)
{
	unsigned long f = spin_lock_irqsave(&sched_lock);
	bool ended = task_reapable(init_task);

	*leader = init_task;
	spin_unlock_irqrestore(&sched_lock, f);
	return ended;
}

/* Run init until it exits (the boot context idles meanwhile). */
static __noreturn void init_run(struct task *t)
{
	profile_user_begin();           /* profile=user: sample from here to init's exit */
	sched_start_task(t);
	for (;;) {
		arch_irq_disable();
		if (init_ended(&t))     /* init and all its threads */
			break;
		schedule();
		if (init_ended(&t))
			break;
		arch_idle_wait();
	}
	init_finished(t);               /* t is a zombie nobody frees: its parent is the idle task */
}

/* argv and envp for init, and the path of its program: the arguments module's, else module 0's command line. */
static int init_args(const char **path)
{
	static char legacy_path[MODULE_NAME_MAX + 1];
	const struct boot_module *m = module_get(0), *am = module_find(ARGS_MODULE);
	int err;

	if (am) {
		err = args_from_module(am);
		if (err)
			printk("init: could not start: bad %s module (%s)\n", ARGS_MODULE, errno_name(-err));
		*path = init_argv[0];
		return err;
	}
	/* GRUB's module2 lines: module 0 is the program, now the file /NAME (fs/rootfs.c) */
	err = args_from_cmdline(m);
	ksnprintf(legacy_path, sizeof(legacy_path), "/%s", m->name);
	*path = legacy_path;
	return err;
}

/* The new task t runs the program at path (from "/"), with init_argv and init_envp. */
static int init_exec(struct task *t, const char *path)
{
	struct exec_image img;
	struct file *f;
	long err = exec_open(fs_root(), path, &f);

	if (!err) {
		err = exec_build(f, init_argv[0], init_argv, init_envp, &img);
		file_put(f);
	}
	if (err) {
		printk("init: could not start: '%s': %s\n", path, errno_name((int)-err) ? errno_name((int)-err) : "error");
		return (int)err;
	}
	t->cwd = fs_root();
	dget(t->cwd);
	t->umask = 022;
	exec_install(t, &img, exec_basename(path));
	return 0;
}

int user_init_start(void)
{
	const char *path;
	struct task *t;
	int err;

	if (!module_get(0)) {
		printk("init: no boot module to run\n");
		return -ENOENT;
	}
	if (modules_dropped()) {
		printk("init: could not start: %zu boot module(s) beyond the %d the kernel keeps\n",
		       modules_dropped(), BOOT_MAX_MODULES);
		return -E2BIG;
	}
	err = init_args(&path);
	if (err)
		return err;
	t = task_alloc();
	if (!t)
		return -ENOMEM;
	err = init_exec(t, path);
	if (err) {
		task_free(t);
		return err;
	}
	err = init_std_files(t);
	if (err) {
		printk("init: could not start: no memory for the file table\n");
		return err;
	}
	t->parent = &idle_task;
	t->pgid = t->sid = t->pid;      /* a session and group leader, as Linux's init */
	init_task = t;
	kswapd_start();                 /* after init, which keeps pid 1 as on Linux */
	khugepaged_start();             /* pid 3 */
	/* The marker in a printk of its own: a long path must not truncate it away. */
	printk("init: starting pid %d: %.300s%s\n", t->pid, path, strlen(path) > 300 ? " ..." : "");
	printk(CONSOLE_USER_START);
	init_run(t);
}
