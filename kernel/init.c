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

/* "init exited with status N": N as a shell reports it (code, or 128 + signal). */
static __noreturn void init_finished(struct task *t)
{
	int st = t->exit_status, shell;

	profile_user_end();             /* profile=user: the table, as a report */

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

int user_init_start(void)
{
	static char cmd[BOOT_MODSTR_MAX];
	static const char *argv[64];
	static const char *const envp[] = { "HOME=/", "TERM=linux", NULL };
	const struct boot_module *m = module_get(0);
	struct exec_image img;
	struct task *t;
	int err;

	if (!m) {
		printk("init: no boot module to run\n");
		return -ENOENT;
	}
	/* A command line that does not fit is refused, never silently cut short. */
	size_t len = strlen(m->cmdline);
	if (m->cmdline_cut || len >= sizeof(cmd)) {
		printk("init: command line too long (at most %d bytes)\n", BOOT_MODSTR_MAX - 1);
		return -E2BIG;
	}
	memcpy(cmd, m->cmdline, len + 1);
	int words = split_words(cmd, argv, ARRAY_SIZE(argv));
	if (words < 0) {
		printk("init: too many arguments (at most %zu)\n", ARRAY_SIZE(argv) - 1);
		return -E2BIG;
	}
	if (words == 0) {
		argv[0] = m->name;
		argv[1] = NULL;
	}
	t = task_alloc();
	if (!t)
		return -ENOMEM;
	err = exec_build(m->data, m->size, argv[0], argv, envp, &img);
	if (err) {
		printk("init: cannot run module '%s' (%zu bytes): %s\n", m->name, m->size,
		       errno_name(-err) ? errno_name(-err) : "error");
		task_free(t);
		return err;
	}
	exec_install(t, &img, m->name, argv[0]);
	t->parent = &idle_task;
	init_task = t;
	/* The marker in a printk of its own: a long command line must not truncate it away. */
	printk("init: starting pid %d: %.300s%s\n", t->pid, m->cmdline, strlen(m->cmdline) > 300 ? " ..." : "");
	printk(CONSOLE_USER_START);
	profile_user_begin();           /* profile=user: sample from here to init's exit */
	sched_start_task(t);

	for (;;) {
		cli();
		if (t->state == TASK_ZOMBIE)
			break;
		schedule();
		if (t->state == TASK_ZOMBIE)
			break;
		__asm__ volatile("sti; hlt" : : : "memory");
	}
	init_finished(t);
}
