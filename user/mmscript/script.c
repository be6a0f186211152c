/*
 * script.c - parse and execute one mmscript, one output line per command.
 *
 * Output line: the command's tokens joined by single spaces, " => ", the
 * result. A line that does not parse (unknown command, wrong operand count,
 * bad number/prot/flag/advice) prints its tokens and " => bad-script".
 */
#include "mmscript.h"

struct name_val {
	const char *name;
	long val;
};

static const struct name_val mmap_flag_names[] = {
	{ "private", MAP_PRIVATE }, { "shared", MAP_SHARED }, { "anon", MAP_ANONYMOUS },
	{ "fixed", MAP_FIXED }, { "fixed_noreplace", MAP_FIXED_NOREPLACE },
	{ "populate", MAP_POPULATE }, { "noreserve", MAP_NORESERVE }, { NULL, 0 },
};

static const struct name_val mremap_flag_names[] = {
	{ "maymove", MREMAP_MAYMOVE }, { "fixed", MREMAP_FIXED },
	{ "dontunmap", MREMAP_DONTUNMAP }, { NULL, 0 },
};

static const struct name_val advice_names[] = {
	{ "normal", MADV_NORMAL }, { "random", MADV_RANDOM },
	{ "sequential", MADV_SEQUENTIAL }, { "willneed", MADV_WILLNEED },
	{ "dontneed", MADV_DONTNEED }, { "free", MADV_FREE },
	{ "dontfork", MADV_DONTFORK }, { "dofork", MADV_DOFORK },
	{ "dontdump", MADV_DONTDUMP }, { "dodump", MADV_DODUMP },
	{ "wipeonfork", MADV_WIPEONFORK }, { "keeponfork", MADV_KEEPONFORK },
	{ "cold", MADV_COLD }, { "pageout", MADV_PAGEOUT },
	{ "populate_read", MADV_POPULATE_READ }, { "populate_write", MADV_POPULATE_WRITE },
	{ NULL, 0 },
};

/* A number: 0x/0X followed by hex digits, or decimal digits; the whole token,
 * no sign, no overflow. 0 on success, -1 otherwise. */
static int parse_num(const char *t, unsigned long *v)
{
	unsigned long x = 0;
	int base = 10, any = 0;

	if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
		base = 16;
		t += 2;
	}
	for (; *t; t++) {
		unsigned d;

		if (*t >= '0' && *t <= '9')
			d = (unsigned)(*t - '0');
		else if (base == 16 && *t >= 'a' && *t <= 'f')
			d = (unsigned)(*t - 'a' + 10);
		else if (base == 16 && *t >= 'A' && *t <= 'F')
			d = (unsigned)(*t - 'A' + 10);
		else
			return -1;
		if (x > (~0UL - d) / (unsigned long)base)
			return -1;
		x = x * (unsigned long)base + d;
		any = 1;
	}
	if (!any)
		return -1;
	*v = x;
	return 0;
}

/* An address operand: +OFF (window), b+OFF (initial break) or a number. */
static int parse_addr(const char *t, unsigned long *v)
{
	unsigned long off;

	if (t[0] == '+') {
		if (parse_num(t + 1, &off))
			return -1;
		*v = mms.window + off;
		return 0;
	}
	if (t[0] == 'b' && t[1] == '+') {
		if (parse_num(t + 2, &off))
			return -1;
		*v = mms.brk0 + off;
		return 0;
	}
	return parse_num(t, v);
}

/* PROT: exactly three characters [r-][w-][x-]. */
static int parse_prot(const char *t, long *prot)
{
	if (strlen(t) != 3 || (t[0] != 'r' && t[0] != '-') || (t[1] != 'w' && t[1] != '-') ||
	    (t[2] != 'x' && t[2] != '-'))
		return -1;
	*prot = (t[0] == 'r' ? PROT_READ : 0) | (t[1] == 'w' ? PROT_WRITE : 0) |
		(t[2] == 'x' ? PROT_EXEC : 0);
	return 0;
}

/* Comma-separated names from table, or "0" for none. Empty names are errors. */
static int parse_flags(const char *t, const struct name_val *table, long *flags)
{
	long f = 0;

	if (strcmp(t, "0") == 0) {
		*flags = 0;
		return 0;
	}
	while (1) {
		const char *comma = strchr(t, ',');
		size_t n = comma ? (size_t)(comma - t) : strlen(t);
		const struct name_val *nv;

		for (nv = table; nv->name; nv++)
			if (strlen(nv->name) == n && strncmp(nv->name, t, n) == 0)
				break;
		if (!nv->name)
			return -1;
		f |= nv->val;
		if (!comma)
			break;
		t = comma + 1;
	}
	*flags = f;
	return 0;
}

/* ADVICE: a name, or a number passed through unchanged (the kernel sees an int). */
static int parse_advice(const char *t, long *adv)
{
	const struct name_val *nv;
	unsigned long v;

	for (nv = advice_names; nv->name; nv++) {
		if (strcmp(nv->name, t) == 0) {
			*adv = nv->val;
			return 0;
		}
	}
	if (parse_num(t, &v))
		return -1;
	*adv = (long)v;
	return 0;
}

static int parse_byte(const char *t, unsigned int *v)
{
	unsigned long x;

	if (parse_num(t, &x) || x > 0xff)
		return -1;
	*v = (unsigned int)x;
	return 0;
}

static void put_errno(struct sb *o, long raw)
{
	const char *name = uerrno_name((int)-raw);

	if (name)
		sb_printf(o, "-%s", name);
	else
		sb_printf(o, "-E%ld", -raw);
}

/* The result of mmap/mremap: +OFF inside the window, else "outside", or -ERRNO. */
static void put_addr_result(struct sb *o, long raw)
{
	unsigned long a = (unsigned long)raw;

	if (usys_is_err(raw))
		put_errno(o, raw);
	else if (a >= mms.window && a - mms.window < MMS_WINDOW_SIZE)
		sb_printf(o, "+0x%lx", a - mms.window);
	else
		sb_puts(o, "outside");
}

/* 0 or -ERRNO. */
static void put_int_result(struct sb *o, long raw)
{
	if (usys_is_err(raw))
		put_errno(o, raw);
	else
		sb_printf(o, "%ld", raw);
}

/* Where a fault happened: +OFF in the window, b+OFF within 1 GiB above the
 * initial break, else the absolute address (only script-given addresses fault). */
static void put_fault_where(struct sb *o, unsigned long a)
{
	if (a >= mms.window && a - mms.window < MMS_WINDOW_SIZE)
		sb_printf(o, "+0x%lx", a - mms.window);
	else if (a >= mms.brk0 && a - mms.brk0 < MMS_WINDOW_SIZE)
		sb_printf(o, "b+0x%lx", a - mms.brk0);
	else
		sb_printf(o, "0x%lx", a);
}

static const char *sig_name(int sig)
{
	return sig == SIGBUS ? "SIGBUS" : sig == SIGSEGV ? "SIGSEGV" : "SIGNAL";
}

/* mincore: a vector for at most MINCORE_MAX pages, followed by a PROT_NONE
 * guard page so a longer result faults (-EFAULT) instead of corrupting memory. */
#define MINCORE_MAX (1UL << 20)

static void do_mincore(struct sb *o, unsigned long addr, unsigned long len)
{
	unsigned long pages = (len >> 12) + ((len & 0xfff) != 0);
	unsigned long cap = pages < MINCORE_MAX ? pages : MINCORE_MAX;
	unsigned long vsize = (cap + UPAGE_SIZE - 1) & ~(UPAGE_SIZE - 1);
	long vec, r;

	if (vsize == 0)
		vsize = UPAGE_SIZE;
	vec = sys_mmap(0, vsize + UPAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (usys_is_err(vec)) {
		put_errno(o, vec);
		return;
	}
	sys_mprotect((unsigned long)vec + vsize, UPAGE_SIZE, PROT_NONE);
	r = sys_mincore(addr, len, (unsigned char *)vec);
	if (usys_is_err(r)) {
		put_errno(o, r);
	} else {
		const unsigned char *v = (const unsigned char *)vec;

		for (unsigned long i = 0; i < pages && i < cap; i++)
			sb_putc(o, (v[i] & 1) ? '1' : '0');
	}
	sys_munmap((unsigned long)vec, vsize + UPAGE_SIZE);
}

/*
 * Execute the command in tok[0..n) and append its result to o (after " => ").
 * Returns 0, or -1 when the line does not parse (nothing appended then).
 */
static int exec_cmd(char **tok, int n, struct sb *o)
{
	const char *c = tok[0];
	unsigned long a, len, len2, a2;
	unsigned int val;
	long prot, flags, adv;

	if (strcmp(c, "mmap") == 0) {
		if (n != 5 || parse_addr(tok[1], &a) || parse_num(tok[2], &len) ||
		    parse_prot(tok[3], &prot) || parse_flags(tok[4], mmap_flag_names, &flags))
			return -1;
		put_addr_result(o, sys_mmap(a, len, prot, flags, -1, 0));
	} else if (strcmp(c, "munmap") == 0) {
		if (n != 3 || parse_addr(tok[1], &a) || parse_num(tok[2], &len))
			return -1;
		put_int_result(o, sys_munmap(a, len));
	} else if (strcmp(c, "mremap") == 0) {
		a2 = 0;
		if ((n != 5 && n != 6) || parse_addr(tok[1], &a) || parse_num(tok[2], &len) ||
		    parse_num(tok[3], &len2) || parse_flags(tok[4], mremap_flag_names, &flags) ||
		    (n == 6 && parse_addr(tok[5], &a2)))
			return -1;
		put_addr_result(o, sys_mremap(a, len, len2, flags, a2));
	} else if (strcmp(c, "mprotect") == 0) {
		if (n != 4 || parse_addr(tok[1], &a) || parse_num(tok[2], &len) ||
		    parse_prot(tok[3], &prot))
			return -1;
		put_int_result(o, sys_mprotect(a, len, prot));
	} else if (strcmp(c, "madvise") == 0) {
		if (n != 4 || parse_addr(tok[1], &a) || parse_num(tok[2], &len) ||
		    parse_advice(tok[3], &adv))
			return -1;
		put_int_result(o, sys_madvise(a, len, adv));
	} else if (strcmp(c, "brk") == 0) {
		long r;

		if (n != 2 || parse_addr(tok[1], &a))
			return -1;
		r = sys_brk(a);
		if (usys_is_err(r))
			put_errno(o, r);
		else if ((unsigned long)r >= mms.brk0)
			sb_printf(o, "b+0x%lx", (unsigned long)r - mms.brk0);
		else
			sb_printf(o, "b-0x%lx", mms.brk0 - (unsigned long)r);
	} else if (strcmp(c, "read") == 0) {
		int sig;

		if (n != 2 || parse_addr(tok[1], &a))
			return -1;
		sig = mms_probe_read(a, &val);
		if (sig)
			sb_puts(o, sig_name(sig));
		else
			sb_printf(o, "0x%x", val);
	} else if (strcmp(c, "write") == 0) {
		int sig;

		if (n != 3 || parse_addr(tok[1], &a) || parse_byte(tok[2], &val))
			return -1;
		sig = mms_probe_write(a, val);
		sb_puts(o, sig ? sig_name(sig) : "ok");
	} else if (strcmp(c, "fill") == 0) {
		unsigned long page;
		int sig = 0;

		if (n != 4 || parse_addr(tok[1], &a) || parse_num(tok[2], &len) ||
		    parse_byte(tok[3], &val))
			return -1;
		if (len)
			sig = mms_probe_fill(a, len, val, &page);
		if (sig) {
			sb_printf(o, "%s ", sig_name(sig));
			put_fault_where(o, page);
		} else {
			sb_puts(o, "ok");
		}
	} else if (strcmp(c, "mincore") == 0) {
		if (n != 3 || parse_addr(tok[1], &a) || parse_num(tok[2], &len))
			return -1;
		do_mincore(o, a, len);
	} else if (strcmp(c, "maps") == 0) {
		struct sb body;
		int r;

		if (n != 1)
			return -1;
		sb_init(&body);
		r = mms_maps_print(&body);
		if (r < 0) {
			put_errno(o, r);
		} else if (body.len) {
			/* "maps =>" then the VMA lines; drop the final newline,
			 * the caller ends the line. */
			o->len--;               /* the space after "=>" */
			o->buf[o->len] = '\0';
			sb_putc(o, '\n');
			sb_putn(o, body.buf, body.len - 1);
		} else {
			o->len--;
			o->buf[o->len] = '\0';
		}
		sb_free(&body);
	} else {
		return -1;
	}
	return 0;
}

/* Run one line (NUL-terminated, no newline; modified in place). */
static void run_line(char *line)
{
	char **tok;
	int n = 0;
	char *p, *hash = strchr(line, '#');
	struct sb o;
	size_t mark;

	if (hash)
		*hash = '\0';
	tok = malloc((strlen(line) / 2 + 2) * sizeof(*tok));
	if (!tok) {
		dprintf(2, "mmscript: out of memory\n");
		exit(3);
	}
	for (p = line; *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			*p++ = '\0';
		if (!*p)
			break;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
	}
	if (n == 0) {
		free(tok);
		return;
	}
	sb_init(&o);
	for (int i = 0; i < n; i++) {
		if (i)
			sb_putc(&o, ' ');
		sb_puts(&o, tok[i]);
	}
	sb_puts(&o, " => ");
	mark = o.len;
	if (exec_cmd(tok, n, &o) < 0) {
		o.len = mark;
		o.buf[mark] = '\0';
		sb_puts(&o, "bad-script");
	}
	sb_putc(&o, '\n');
	uwrite_all(1, o.buf, o.len);
	sb_free(&o);
	free(tok);
}

/* mms_run_script - see mmscript.h. */
int mms_run_script(const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t j = i;
		char *line;

		while (j < len && text[j] != '\n')
			j++;
		line = malloc(j - i + 1);
		if (!line) {
			dprintf(2, "mmscript: out of memory\n");
			exit(3);
		}
		memcpy(line, text + i, j - i);
		line[j - i] = '\0';
		run_line(line);
		free(line);
		i = j + 1;
	}
	return 0;
}
