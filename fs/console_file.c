/*
 * The console streams as files (include/console.h). Writes copy the user
 * bytes through a kernel buffer and hand them to the stream's channel,
 * sleeping while it is busy (back-pressure: nothing is dropped); reads of
 * stdin sleep until bytes arrive or the stream ends. The timer tick calls
 * console_poll, which wakes the sleepers when the channel moved.
 */
#include "console.h"
#include "file.h"
#include "wait.h"
#include "task.h"
#include "signal.h"
#include "arch.h"
#include "uaccess.h"
#include "kstring.h"
#include "kerrno.h"
#include "printk.h"

#define CHUNK 2048

static struct wait_queue console_wait = WAIT_QUEUE_INIT(console_wait);

/* Inode numbers of the three streams (st_ino, so that fstat tells them apart). */
#define INO_CONSOLE0 8

static unsigned stream_of(struct file *f)
{
	return (unsigned)(uintptr_t)f->priv;
}

/* Hand kbuf[0, n) to the stream, sleeping while its channel is busy. */
static void stream_put(unsigned s, const char *kbuf, size_t n)
{
	if (!arch_stream_present(s)) {
		arch_console_write(kbuf, n);
		return;
	}
	while (n) {
		size_t took = arch_stream_write(s, kbuf, n);

		kbuf += took;
		n -= took;
		if (n)
			wait_event(&console_wait, arch_stream_writable(s));
	}
}

static long console_write_file(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	char buf[CHUNK];
	size_t done = 0;
	unsigned s = stream_of(f);

	if (!access_ok(ubuf, n))
		return -EFAULT;
	if (s == CONSOLE_STDIN)
		s = CONSOLE_STDOUT;     /* a terminal's fd 0 is writable too */
	while (done < n) {
		size_t chunk = MIN(n - done, sizeof(buf));

		if (copy_from_user(buf, (const void *)(ubuf + done), chunk))
			return done ? (long)done : -EFAULT;
		stream_put(s, buf, chunk);
		done += chunk;
	}
	return (long)done;
}

static long console_read_file(struct file *f, uint64_t ubuf, size_t n, uint64_t *pos)
{
	char buf[CHUNK];

	if (!access_ok(ubuf, n))
		return -EFAULT;
	if (n == 0)
		return 0;
	for (;;) {
		size_t got;
		long r;

		if (!arch_stream_present(CONSOLE_STDIN))
			return 0;
		got = arch_stream_read(buf, MIN(n, sizeof(buf)));
		if (got)
			return copy_to_user((void *)ubuf, buf, got) ? -EFAULT : (long)got;
		if (arch_stream_ended())
			return 0;       /* every byte announced was read */
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		r = wait_event_interruptible(&console_wait, arch_stream_readable());
		if (r)
			return r;
	}
}

static unsigned console_poll_file(struct file *f)
{
	unsigned s = stream_of(f);

	if (s != CONSOLE_STDIN)
		return !arch_stream_present(s) || arch_stream_writable(s) ? POLLOUT : 0;
	if (!arch_stream_present(CONSOLE_STDIN) || arch_stream_ended())
		return POLLHUP;         /* as a pipe whose writers are gone */
	return arch_stream_readable() ? POLLIN : 0;
}

/* What /proc/PID/fd/N of a console stream reads as: the console, as Linux's init sees it. */
static size_t console_dname(struct file *f, char *buf, size_t size)
{
	return (size_t)ksnprintf(buf, size, "/dev/console");
}

static const struct file_ops console_ops = {
	.read = console_read_file, .write = console_write_file, .poll = console_poll_file,
	.dname = console_dname,
};

struct file *console_open(enum console_stream stream)
{
	struct file *f = file_alloc(&console_ops, stream == CONSOLE_STDIN ? O_RDONLY : O_WRONLY);

	if (f) {
		f->priv = (void *)(uintptr_t)stream;
		f->ino = INO_CONSOLE0 + stream;
	}
	return f;
}

void console_poll(void)
{
	if (arch_stream_poll()) {
		wake_up(&console_wait);
		file_io_event();
	}
}
