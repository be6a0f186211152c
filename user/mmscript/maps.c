/*
 * maps.c - /proc/self/maps for the runner: the maps op (the core formats the
 * `maps` command) and the check that the window is free.
 *
 * A maps line is "START-END PERMS OFFSET DEV INODE [PATH]" with START/END in
 * lowercase hex; only START, END and the 4 PERMS characters are used here.
 */
#include "mmscript.h"

/* mms_maps_read - see mmscript.h. Reads the whole file before parsing it, so
 * allocations made while parsing cannot change what is printed. */
int mms_maps_read(struct sb *out)
{
	char chunk[4096];
	long fd = sys_open("/proc/self/maps", O_RDONLY, 0);

	if (fd < 0)
		return (int)fd;
	for (;;) {
		long n = sys_read((int)fd, chunk, sizeof(chunk));

		if (n == -EINTR)
			continue;
		if (n < 0) {
			sys_close((int)fd);
			return (int)n;
		}
		if (n == 0)
			break;
		sb_putn(out, chunk, (size_t)n);
	}
	sys_close((int)fd);
	return 0;
}

/* Parse one maps line at *p: start, end, perms (4 chars). Advances *p past the
 * line. Returns 1 when a VMA was parsed, 0 at the end, -1 on a bad line. */
static int maps_next(const char **p, unsigned long *start, unsigned long *end, char perms[5])
{
	const char *s = *p;
	const char *eol;
	char *q;

	if (!*s)
		return 0;
	eol = strchr(s, '\n');
	if (!eol)
		eol = s + strlen(s);
	*p = *eol ? eol + 1 : eol;
	*start = strtoul(s, &q, 16);
	if (q == s || *q != '-')
		return -1;
	s = q + 1;
	*end = strtoul(s, &q, 16);
	if (q == s || *q != ' ' || eol - q < 5)
		return -1;
	memcpy(perms, q + 1, 4);
	perms[4] = '\0';
	return 1;
}

/* Fallback when /proc/self/maps is unavailable: a PROT_NONE reservation with
 * MAP_FIXED_NOREPLACE fails with -EEXIST exactly when something is there. */
static int range_probe(unsigned long lo, unsigned long hi)
{
	long r = sys_mmap(lo, hi - lo, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);

	if (r == -EEXIST)
		return 0;
	if (usys_is_err(r))
		return (int)r;
	sys_munmap((unsigned long)r, hi - lo);
	/* A kernel that ignores MAP_FIXED_NOREPLACE treats lo as a hint. */
	return (unsigned long)r == lo ? 1 : 0;
}

/* mms_range_is_free - see mmscript.h. */
int mms_range_is_free(unsigned long lo, unsigned long hi)
{
	struct sb text;
	const char *p;
	unsigned long s, e;
	char perms[5];
	int r, busy = 0;

	sb_init(&text);
	r = mms_maps_read(&text);
	if (r < 0) {
		sb_free(&text);
		return range_probe(lo, hi);
	}
	p = text.buf;
	while ((r = maps_next(&p, &s, &e, perms)) != 0)
		if (r > 0 && s < hi && e > lo)
			busy = 1;
	sb_free(&text);
	return !busy;
}

/* mms_sys_maps - see mmscript.h. Reads the whole file first (mms_maps_read),
 * so what emit does cannot change what is reported. */
int mms_sys_maps(mms_maps_emit emit, void *arg)
{
	struct sb text;
	const char *p;
	unsigned long s, e;
	char perms[5];
	int r;

	sb_init(&text);
	r = mms_maps_read(&text);
	if (r < 0) {
		sb_free(&text);
		return r;
	}
	p = text.buf;
	while ((r = maps_next(&p, &s, &e, perms)) != 0)
		if (r > 0)
			emit(arg, s, e, perms);
	sb_free(&text);
	return 0;
}
