/*
 * printk and the freestanding formatter behind it. The same code runs in the
 * kernel and in host tests; output goes through arch_console_write().
 */
#include "printk.h"
#include "arch.h"
#include "spinlock.h"
#include "kstring.h"
#include "lockless.h"

struct outbuf {
	char *buf;
	size_t size;
	size_t len;          /* characters the full output has (may exceed size) */
};

static void out_char(struct outbuf *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void out_pad(struct outbuf *o, char c, int n)
{
	while (n-- > 0)
		out_char(o, c);
}

struct spec {
	bool left, zero, plus, space, alt;
	int width;
	int prec;            /* -1: none */
};

/* Print v in base, with sign, prefix, precision and padding as spec says. */
static void out_number(struct outbuf *o, unsigned long long v, bool negative,
		       unsigned base, bool upper, const struct spec *s)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;
	bool was_zero = v == 0;

	while (v) {
		tmp[n++] = digits[v % base];
		v /= base;
	}
	if (was_zero && s->prec != 0)
		tmp[n++] = '0';

	const char *prefix = "";
	if (negative)
		prefix = "-";
	else if (s->plus)
		prefix = "+";
	else if (s->space)
		prefix = " ";
	if (s->alt && base == 16 && !was_zero)
		prefix = upper ? "0X" : "0x";
	int plen = 0;
	while (prefix[plen])
		plen++;
	int zeros = s->prec > n ? s->prec - n : 0;
	/* C: for %#o the precision grows so that the first digit is 0. */
	if (s->alt && base == 8 && zeros == 0 && (n == 0 || tmp[n - 1] != '0'))
		zeros = 1;
	int body = plen + zeros + n;
	int pad = s->width > body ? s->width - body : 0;
	bool zero_pad = s->zero && !s->left && s->prec < 0;

	if (!s->left && !zero_pad)
		out_pad(o, ' ', pad);
	for (const char *p = prefix; *p; p++)
		out_char(o, *p);
	if (zero_pad)
		out_pad(o, '0', pad);
	out_pad(o, '0', zeros);
	while (n)
		out_char(o, tmp[--n]);
	if (s->left)
		out_pad(o, ' ', pad);
}

static void out_string(struct outbuf *o, const char *str, const struct spec *s)
{
	if (!str)
		str = "(null)";
	int n = 0;
	while (str[n] && (s->prec < 0 || n < s->prec))
		n++;
	int pad = s->width > n ? s->width - n : 0;
	if (!s->left)
		out_pad(o, ' ', pad);
	for (int i = 0; i < n; i++)
		out_char(o, str[i]);
	if (s->left)
		out_pad(o, ' ', pad);
}

enum length { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE };

/* A width or precision: digits, or '*' taken from the arguments. p is past it on return. */
static int parse_count(const char **p, va_list *ap)
{
	int n = 0;

	if (**p == '*') {
		(*p)++;
		return va_arg(*ap, int);
	}
	while (**p >= '0' && **p <= '9')
		n = n * 10 + (*(*p)++ - '0');
	return n;
}

/* Flags, width and precision of the conversion starting at p (past the '%'); returns p past them. */
static const char *parse_spec(const char *p, va_list *ap, struct spec *s)
{
	for (;; p++) {
		if (*p == '-') s->left = true;
		else if (*p == '0') s->zero = true;
		else if (*p == '+') s->plus = true;
		else if (*p == ' ') s->space = true;
		else if (*p == '#') s->alt = true;
		else break;
	}
	s->width = parse_count(&p, ap);
	if (s->width < 0) {               /* a negative '*' width means '-' */
		s->left = true;
		s->width = -s->width;
	}
	if (*p == '.') {
		p++;
		s->prec = parse_count(&p, ap);
		if (s->prec < 0)
			s->prec = -1;             /* a negative '*' precision is none */
	}
	return p;
}

/* The length modifier at p (hh h l ll z t j); returns p past it. */
static const char *parse_length(const char *p, enum length *len)
{
	*len = LEN_INT;
	if (*p == 'h') {
		*len = LEN_SHORT;
		if (*++p == 'h') { *len = LEN_CHAR; p++; }
	} else if (*p == 'l') {
		*len = LEN_LONG;
		if (*++p == 'l') { *len = LEN_LLONG; p++; }
	} else if (*p == 'z' || *p == 't' || *p == 'j') {
		*len = *p == 'j' ? LEN_LLONG : LEN_SIZE;
		p++;
	}
	return p;
}

static long long arg_signed(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_CHAR:  return (signed char)va_arg(*ap, int);
	case LEN_SHORT: return (short)va_arg(*ap, int);
	case LEN_LONG:  return va_arg(*ap, long);
	case LEN_LLONG: return va_arg(*ap, long long);
	case LEN_SIZE:  return va_arg(*ap, ptrdiff_t);
	default:        return va_arg(*ap, int);
	}
}

static unsigned long long arg_unsigned(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_CHAR:  return (unsigned char)va_arg(*ap, unsigned);
	case LEN_SHORT: return (unsigned short)va_arg(*ap, unsigned);
	case LEN_LONG:  return va_arg(*ap, unsigned long);
	case LEN_LLONG: return va_arg(*ap, unsigned long long);
	case LEN_SIZE:  return va_arg(*ap, size_t);
	default:        return va_arg(*ap, unsigned);
	}
}

static void out_char_padded(struct outbuf *o, char c, const struct spec *s)
{
	int pad = s->width > 1 ? s->width - 1 : 0;

	if (!s->left)
		out_pad(o, ' ', pad);
	out_char(o, c);
	if (s->left)
		out_pad(o, ' ', pad);
}

/*
 * One conversion: p points at its character (after flags, width,
 * precision and length). Returns the last character it consumed.
 */
static const char *format_one(struct outbuf *o, const char *p, va_list *ap, struct spec *s,
			      enum length len)
{
	unsigned long long u;
	long long v;

	switch (*p) {
	case 'd':
	case 'i':
		v = arg_signed(ap, len);
		u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
		out_number(o, u, v < 0, 10, false, s);
		break;
	case 'u':
	case 'x':
	case 'X':
	case 'o':
		u = arg_unsigned(ap, len);
		s->plus = s->space = false;
		out_number(o, u, false, *p == 'u' ? 10 : *p == 'o' ? 8 : 16, *p == 'X', s);
		break;
	case 'p':
		u = (uintptr_t)va_arg(*ap, void *);
		s->alt = true;
		if (u == 0)
			out_string(o, "(nil)", s);
		else
			out_number(o, u, false, 16, false, s);
		break;
	case 'c':
		out_char_padded(o, (char)va_arg(*ap, int), s);
		break;
	case 's':
		out_string(o, va_arg(*ap, const char *), s);
		break;
	case '%':
		out_char(o, '%');
		break;
	case '\0':
		return p - 1;             /* a lone '%' at the end: stop at the NUL */
	default:                      /* unknown conversion: print it as written */
		out_char(o, '%');
		out_char(o, *p);
		break;
	}
	return p;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct outbuf o = { buf, size, 0 };
	va_list args;

	va_copy(args, ap);
	for (const char *p = fmt; *p; p++) {
		struct spec s = { .prec = -1 };
		enum length len;

		if (*p != '%') {
			out_char(&o, *p);
			continue;
		}
		p = parse_spec(p + 1, &args, &s);
		p = parse_length(p, &len);
		p = format_one(&o, p, &args, &s, len);
	}
	va_end(args);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* Serializes whole lines from different CPUs; protects the two below. */
static struct spinlock console_lock = SPINLOCK_INIT_CLASS("console", LOCK_CLASS_CONSOLE);
static const char *line_prefix;         /* printk_set_line_prefix */
static bool at_line_start = true;       /* the last character written was a newline */

bool printk_held_here(void)
{
	return READ_ONCE(console_lock.locked) && READ_ONCE(console_lock.holder_cpu) == (int)arch_cpu_id();
}

void printk_bust_lock(void)
{
	spin_init_class(&console_lock, "console", LOCK_CLASS_CONSOLE);
}

void printk_set_line_prefix(const char *prefix)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);

	line_prefix = prefix;
	spin_unlock_irqrestore(&console_lock, flags);
}

/* Does the line starting at p (up to end) already read "# ..." after blanks? */
static bool is_diagnostic(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p < end && *p == '#';
}

/* Write buf line by line, starting each new line with line_prefix when one is set. */
static void console_write_lines(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = p;
		const char *seg_end;

		while (nl < end && *nl != '\n')
			nl++;
		seg_end = nl < end ? nl + 1 : end;
		if (at_line_start && line_prefix && !is_diagnostic(p, seg_end))
			arch_console_write(line_prefix, strlen(line_prefix));
		arch_console_write(p, (size_t)(seg_end - p));
		at_line_start = seg_end[-1] == '\n';
		p = seg_end;
	}
}

int vprintk(const char *fmt, va_list ap)
{
	char buf[512];
	int n = kvsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1;

	unsigned long flags = spin_lock_irqsave(&console_lock);
	console_write_lines(buf, len);
	spin_unlock_irqrestore(&console_lock, flags);
	return (int)len;
}

void printk_write(const char *text, size_t len)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);

	console_write_lines(text, len);
	spin_unlock_irqrestore(&console_lock, flags);
}

int printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}
