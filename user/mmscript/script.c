/*
 * script.c - parse one mmscript, execute each command through the ops table
 * (mms.ops) and format one output line per command, the file commands
 * (memfd, truncate, pwrite, pread, close, msync, mmap of a file) included. Environment-neutral
 * core (mms_core.h): the user-mode runner and the host program share it.
 *
 * Output line: the command's tokens joined by single spaces, " => ", the
 * result. A line that does not parse (unknown command, wrong operand count,
 * bad number/prot/flag/advice) prints its tokens and " => bad-script".
 */
#include "mms_core.h"

/* Advice values (Linux x86-64) of the names scripts may use. */
enum {
	ADV_NORMAL = 0, ADV_RANDOM = 1, ADV_SEQUENTIAL = 2, ADV_WILLNEED = 3,
	ADV_DONTNEED = 4, ADV_FREE = 8, ADV_DONTFORK = 10, ADV_DOFORK = 11,
	ADV_DONTDUMP = 16, ADV_DODUMP = 17, ADV_WIPEONFORK = 18, ADV_KEEPONFORK = 19,
	ADV_COLD = 20, ADV_PAGEOUT = 21, ADV_POPULATE_READ = 22, ADV_POPULATE_WRITE = 23,
};

struct name_val {
	const char *name;
	long val;
};

static const struct name_val mmap_flag_names[] = {
	{ "private", MMS_MAP_PRIVATE }, { "shared", MMS_MAP_SHARED },
	{ "anon", MMS_MAP_ANONYMOUS }, { "fixed", MMS_MAP_FIXED },
	{ "fixed_noreplace", MMS_MAP_FIXED_NOREPLACE }, { "populate", MMS_MAP_POPULATE },
	{ "noreserve", MMS_MAP_NORESERVE }, { NULL, 0 },
};

static const struct name_val mremap_flag_names[] = {
	{ "maymove", MMS_MREMAP_MAYMOVE }, { "fixed", MMS_MREMAP_FIXED },
	{ "dontunmap", MMS_MREMAP_DONTUNMAP }, { NULL, 0 },
};

static const struct name_val msync_flag_names[] = {
	{ "sync", MMS_MS_SYNC }, { "async", MMS_MS_ASYNC }, { "invalidate", MMS_MS_INVALIDATE },
	{ NULL, 0 },
};

static const struct name_val advice_names[] = {
	{ "normal", ADV_NORMAL }, { "random", ADV_RANDOM },
	{ "sequential", ADV_SEQUENTIAL }, { "willneed", ADV_WILLNEED },
	{ "dontneed", ADV_DONTNEED }, { "free", ADV_FREE },
	{ "dontfork", ADV_DONTFORK }, { "dofork", ADV_DOFORK },
	{ "dontdump", ADV_DONTDUMP }, { "dodump", ADV_DODUMP },
	{ "wipeonfork", ADV_WIPEONFORK }, { "keeponfork", ADV_KEEPONFORK },
	{ "cold", ADV_COLD }, { "pageout", ADV_PAGEOUT },
	{ "populate_read", ADV_POPULATE_READ }, { "populate_write", ADV_POPULATE_WRITE },
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
	*prot = (t[0] == 'r' ? MMS_PROT_READ : 0) | (t[1] == 'w' ? MMS_PROT_WRITE : 0) |
		(t[2] == 'x' ? MMS_PROT_EXEC : 0);
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
	const char *name = mms.ops->errno_name((int)-raw);

	if (name)
		sb_printf(o, "-%s", name);
	else
		sb_printf(o, "-E%ld", -raw);
}

/* The result of mmap/mremap: +OFF inside the window, else "outside", or -ERRNO. */
static void put_addr_result(struct sb *o, long raw)
{
	unsigned long a = (unsigned long)raw;

	if (mms_is_err(raw))
		put_errno(o, raw);
	else if (a >= mms.window && a - mms.window < MMS_WINDOW_SIZE)
		sb_printf(o, "+0x%lx", a - mms.window);
	else
		sb_puts(o, "outside");
}

/* 0 or -ERRNO. */
static void put_int_result(struct sb *o, long raw)
{
	if (mms_is_err(raw))
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
	return sig == MMS_SIGBUS ? "SIGBUS" : sig == MMS_SIGSEGV ? "SIGSEGV" : "SIGNAL";
}

/* mincore: digits for at most MMS_MINCORE_MAX pages (a longer successful
 * result is -EFAULT, see mms_ops.mincore). */
static void do_mincore(struct sb *o, unsigned long addr, unsigned long len)
{
	unsigned long pages = (len >> 12) + ((len & 0xfff) != 0);
	unsigned long cap = pages < MMS_MINCORE_MAX ? pages : MMS_MINCORE_MAX;
	unsigned char *vec = malloc(cap ? cap : 1);
	long r;

	if (!vec) {
		dprintf(2, "mmscript: out of memory\n");
		exit(3);
	}
	r = mms.ops->mincore(addr, len, vec, cap);
	if (mms_is_err(r)) {
		put_errno(o, r);
	} else {
		for (unsigned long i = 0; i < pages && i < cap; i++)
			sb_putc(o, (vec[i] & 1) ? '1' : '0');
	}
	free(vec);
}

/* ------------------------------------------------------------ files */

/* A memfd NAME of a script: [a-z0-9_]+, at most MMS_NAME_MAX bytes. */
static int valid_name(const char *t, size_t n)
{
	if (n == 0 || n > MMS_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= '0' && t[i] <= '9') || t[i] == '_'))
			return 0;
	return 1;
}

/* mms_memfd_name - see mms_core.h. */
int mms_memfd_name(const char *path, size_t len, char *out)
{
	static const char pre[] = "/memfd:", post[] = " (deleted)";
	size_t n;

	if (len < sizeof(pre) - 1 + sizeof(post) - 1 || memcmp(path, pre, sizeof(pre) - 1) ||
	    memcmp(path + len - (sizeof(post) - 1), post, sizeof(post) - 1))
		return -1;
	n = len - (sizeof(pre) - 1) - (sizeof(post) - 1);
	if (!valid_name(path + sizeof(pre) - 1, n))
		return -1;
	memcpy(out, path + sizeof(pre) - 1, n);
	out[n] = '\0';
	return 0;
}

/* The open file named t, or NULL. */
static struct mms_file *find_file(const char *t)
{
	for (int i = 0; i < MMS_MAX_FILES; i++)
		if (mms.files[i].name[0] && strcmp(mms.files[i].name, t) == 0)
			return &mms.files[i];
	return NULL;
}

/* mms_close_files - see mms_core.h. */
void mms_close_files(void)
{
	for (int i = 0; i < MMS_MAX_FILES; i++)
		if (mms.files[i].name[0]) {
			mms.ops->close(mms.files[i].h);
			mms.files[i].name[0] = '\0';
		}
}

/* memfd NAME SIZE: a new file (a free slot, a NAME not open), then its size. */
static int cmd_memfd(char **tok, int n, struct sb *o)
{
	struct mms_file *slot = NULL;
	unsigned long size;
	long h, r;

	if (n != 3 || !valid_name(tok[1], strlen(tok[1])) || parse_num(tok[2], &size) ||
	    find_file(tok[1]))
		return -1;
	for (int i = 0; i < MMS_MAX_FILES && !slot; i++)
		if (!mms.files[i].name[0])
			slot = &mms.files[i];
	if (!slot)
		return -1;              /* more than MMS_MAX_FILES open */
	h = mms.ops->memfd(tok[1]);
	if (mms_is_err(h)) {
		put_errno(o, h);
		return 0;
	}
	r = mms.ops->ftruncate(h, size);
	if (mms_is_err(r)) {
		mms.ops->close(h);
		put_errno(o, r);
		return 0;
	}
	strcpy(slot->name, tok[1]);
	slot->h = h;
	sb_puts(o, "ok");
	return 0;
}

/* truncate, pwrite, pread, close: commands on an open file. */
static int cmd_on_file(char **tok, int n, struct sb *o)
{
	struct mms_file *f = n >= 2 ? find_file(tok[1]) : NULL;
	unsigned long a;
	unsigned int val;
	long r;

	if (!f)
		return -1;
	if (strcmp(tok[0], "truncate") == 0) {
		if (n != 3 || parse_num(tok[2], &a))
			return -1;
		put_int_result(o, mms.ops->ftruncate(f->h, a));
	} else if (strcmp(tok[0], "pwrite") == 0) {
		if (n != 4 || parse_num(tok[2], &a) || parse_byte(tok[3], &val))
			return -1;
		r = mms.ops->pwrite1(f->h, a, val);
		if (mms_is_err(r))
			put_errno(o, r);
		else
			sb_puts(o, "ok");
	} else if (strcmp(tok[0], "pread") == 0) {
		if (n != 3 || parse_num(tok[2], &a))
			return -1;
		r = mms.ops->pread1(f->h, a, &val);
		if (mms_is_err(r))
			put_errno(o, r);
		else if (r == 0)
			sb_puts(o, "EOF");
		else
			sb_printf(o, "0x%x", val);
	} else {                                /* close */
		if (n != 2)
			return -1;
		r = mms.ops->close(f->h);
		f->name[0] = '\0';              /* the fd is gone whatever close says */
		put_int_result(o, r);
	}
	return 0;
}

/* mmap ADDR LEN PROT FLAGS [NAME OFF] */
static int cmd_mmap(char **tok, int n, struct sb *o)
{
	unsigned long a, len, off;
	long prot, flags;
	struct mms_file *f = NULL;

	if ((n != 5 && n != 7) || parse_addr(tok[1], &a) || parse_num(tok[2], &len) ||
	    parse_prot(tok[3], &prot) || parse_flags(tok[4], mmap_flag_names, &flags))
		return -1;
	if (n == 5) {
		put_addr_result(o, mms.ops->mmap(a, len, prot, flags));
		return 0;
	}
	f = find_file(tok[5]);
	if (!f || parse_num(tok[6], &off))
		return -1;
	put_addr_result(o, mms.ops->mmap_file(a, len, prot, flags, f->h, off));
	return 0;
}

/* msync ADDR LEN MODE: MODE names (sync, async, invalidate) or a number. */
static int cmd_msync(char **tok, int n, struct sb *o)
{
	unsigned long a, len, num;
	long mode;

	if (n != 4 || parse_addr(tok[1], &a) || parse_num(tok[2], &len))
		return -1;
	if (parse_num(tok[3], &num) == 0)
		mode = (long)num;
	else if (parse_flags(tok[3], msync_flag_names, &mode))
		return -1;
	put_int_result(o, mms.ops->msync(a, len, mode));
	return 0;
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
		return cmd_mmap(tok, n, o);
	} else if (strcmp(c, "memfd") == 0) {
		return cmd_memfd(tok, n, o);
	} else if (strcmp(c, "truncate") == 0 || strcmp(c, "pwrite") == 0 ||
		   strcmp(c, "pread") == 0 || strcmp(c, "close") == 0) {
		return cmd_on_file(tok, n, o);
	} else if (strcmp(c, "msync") == 0) {
		return cmd_msync(tok, n, o);
	} else if (strcmp(c, "munmap") == 0) {
		if (n != 3 || parse_addr(tok[1], &a) || parse_num(tok[2], &len))
			return -1;
		put_int_result(o, mms.ops->munmap(a, len));
	} else if (strcmp(c, "mremap") == 0) {
		a2 = 0;
		if ((n != 5 && n != 6) || parse_addr(tok[1], &a) || parse_num(tok[2], &len) ||
		    parse_num(tok[3], &len2) || parse_flags(tok[4], mremap_flag_names, &flags) ||
		    (n == 6 && parse_addr(tok[5], &a2)))
			return -1;
		put_addr_result(o, mms.ops->mremap(a, len, len2, flags, a2));
	} else if (strcmp(c, "mprotect") == 0) {
		if (n != 4 || parse_addr(tok[1], &a) || parse_num(tok[2], &len) ||
		    parse_prot(tok[3], &prot))
			return -1;
		put_int_result(o, mms.ops->mprotect(a, len, prot));
	} else if (strcmp(c, "madvise") == 0) {
		if (n != 4 || parse_addr(tok[1], &a) || parse_num(tok[2], &len) ||
		    parse_advice(tok[3], &adv))
			return -1;
		put_int_result(o, mms.ops->madvise(a, len, adv));
	} else if (strcmp(c, "brk") == 0) {
		long r;

		if (n != 2 || parse_addr(tok[1], &a))
			return -1;
		r = mms.ops->brk(a);
		if (mms_is_err(r))
			put_errno(o, r);
		else if ((unsigned long)r >= mms.brk0)
			sb_printf(o, "b+0x%lx", (unsigned long)r - mms.brk0);
		else
			sb_printf(o, "b-0x%lx", mms.brk0 - (unsigned long)r);
	} else if (strcmp(c, "read") == 0) {
		int sig;

		if (n != 2 || parse_addr(tok[1], &a))
			return -1;
		sig = mms.ops->read(a, &val);
		if (sig)
			sb_puts(o, sig_name(sig));
		else
			sb_printf(o, "0x%x", val);
	} else if (strcmp(c, "write") == 0) {
		int sig;

		if (n != 3 || parse_addr(tok[1], &a) || parse_byte(tok[2], &val))
			return -1;
		sig = mms.ops->write(a, val);
		sb_puts(o, sig ? sig_name(sig) : "ok");
	} else if (strcmp(c, "fill") == 0) {
		unsigned long page;
		int sig = 0;

		if (n != 4 || parse_addr(tok[1], &a) || parse_num(tok[2], &len) ||
		    parse_byte(tok[3], &val))
			return -1;
		if (len)
			sig = mms.ops->fill(a, len, val, &page);
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

/* mms_fmt_rel - see mms_core.h. */
void mms_fmt_rel(struct sb *out, unsigned long addr)
{
	if (addr >= mms.window)
		sb_printf(out, "+0x%lx", addr - mms.window);
	else
		sb_printf(out, "-0x%lx", mms.window - addr);
}

/* One line of `maps` for a VMA that intersects the window (a memfd's: NAME@0xOFF after PERMS). */
static void maps_emit(void *arg, unsigned long s, unsigned long e, const char *perms,
		      const char *file, unsigned long off)
{
	struct sb *out = arg;

	if (s >= mms.window + MMS_WINDOW_SIZE || e <= mms.window)
		return;
	sb_puts(out, "  ");
	mms_fmt_rel(out, s);
	sb_putc(out, '-');
	mms_fmt_rel(out, e);
	sb_printf(out, " %.4s", perms);
	if (file)
		sb_printf(out, " %s@0x%lx", file, off);
	sb_putc(out, '\n');
}

/* mms_maps_print - see mms_core.h. */
int mms_maps_print(struct sb *out)
{
	struct sb body;
	int r;

	sb_init(&body);
	r = mms.ops->maps(maps_emit, &body);
	if (r == 0)
		sb_putn(out, body.buf, body.len);
	sb_free(&body);
	return r;
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
	mms.ops->output(o.buf, o.len);
	sb_free(&o);
	free(tok);
}

/* mms_run_script - see mms_core.h. */
int mms_run_script(const char *text, size_t len)
{
	size_t i = 0;

	memset(mms.files, 0, sizeof(mms.files));
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
