/*
 * mmbench's reading of /proc and mounting (swap.c, thp.c): the same on
 * Linux, where mmbench is /init and nothing has mounted anything, and on
 * this kernel, where /proc is there already.
 */
#include "mmbench.h"

#define NR_MOUNT 165

static char procbuf[32768];

const char *read_proc(const char *path)
{
	long fd = sys_open(path, O_RDONLY, 0), n = 0, r;

	procbuf[0] = 0;
	if (fd < 0)
		return procbuf;
	while (n < (long)sizeof(procbuf) - 1 && (r = sys_read((int)fd, procbuf + n, sizeof(procbuf) - 1 - n)) > 0)
		n += r;
	procbuf[n] = 0;
	sys_close((int)fd);
	return procbuf;
}

unsigned long proc_field(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, name, len) && (p[len] == ' ' || p[len] == ':')) {
			p += len + 1;
			while (*p == ' ')
				p++;
			return strtoul(p, NULL, 10);
		}
	}
	return 0;
}

void mount_on(const char *fs, const char *dir)
{
	long made = usys2(__NR_mkdir, (long)dir, 0755);
	long r = usys5(NR_MOUNT, (long)fs, (long)dir, (long)fs, 0, 0);

	printf("mmbench: mkdir %s: %ld, mount %s on it: %ld\n", dir, made, fs, r);
}
