/*
 * maps.c - /proc/self/maps for the runner: the maps op (the core formats the
 * `maps` command) and the check that the window is free.
 *
 * A maps line is "START-END PERMS OFFSET DEV INODE [PATH]" with START/END in
 * lowercase hex; START, END, the 4 PERMS characters, and for a memfd's
 * mapping (PATH "/memfd:NAME (deleted)") NAME and OFFSET are used here.
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

/* One VMA of the maps text. */
struct maps_vma {
	unsigned long start, end, off;
	char perms[5];
	char file[MMS_NAME_MAX + 1];    /* a memfd's NAME, or "" */
};

/* The memfd NAME and OFFSET of a line's rest "OFFSET DEV INODE   PATH" (q..eol), if it maps one. */
static void maps_file(const char *q, const char *eol, struct maps_vma *v)
{
	char *r;
	int field = 0;

	v->file[0] = '\0';
	v->off = strtoul(q, &r, 16);
	for (q = r; q < eol && field < 2; field++) {    /* skip DEV and INODE */
		while (q < eol && *q == ' ')
			q++;
		while (q < eol && *q != ' ')
			q++;
	}
	while (q < eol && *q == ' ')
		q++;
	if (mms_memfd_name(q, (size_t)(eol - q), v->file))
		v->file[0] = '\0';
}

/* Parse one maps line at *p into v. Advances *p past the line. Returns 1
 * when a VMA was parsed, 0 at the end, -1 on a bad line. */
static int maps_next(const char **p, struct maps_vma *v)
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
	v->start = strtoul(s, &q, 16);
	if (q == s || *q != '-')
		return -1;
	s = q + 1;
	v->end = strtoul(s, &q, 16);
	if (q == s || *q != ' ' || eol - q < 5)
		return -1;
	memcpy(v->perms, q + 1, 4);
	v->perms[4] = '\0';
	maps_file(q + 5, eol, v);
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
	struct maps_vma v;
	int r, busy = 0;

	sb_init(&text);
	r = mms_maps_read(&text);
	if (r < 0) {
		sb_free(&text);
		return range_probe(lo, hi);
	}
	p = text.buf;
	while ((r = maps_next(&p, &v)) != 0)
		if (r > 0 && v.start < hi && v.end > lo)
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
	struct maps_vma v;
	int r;

	sb_init(&text);
	r = mms_maps_read(&text);
	if (r < 0) {
		sb_free(&text);
		return r;
	}
	p = text.buf;
	while ((r = maps_next(&p, &v)) != 0)
		if (r > 0)
			emit(arg, v.start, v.end, v.perms, v.file[0] ? v.file : NULL, v.off);
	sb_free(&text);
	return 0;
}
