/*
 * printk and the freestanding formatter behind it. The same code runs in the
 * kernel and in host tests; output goes through arch_console_write().
 */
#include "printk.h"
#include "arch.h"
#include "spinlock.h"
#include "kstring.h"

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

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct outbuf o = { buf, size, 0 };

	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			out_char(&o, *p);
			continue;
		}
		struct spec s = { .prec = -1 };
		for (;;) {
			p++;
			if (*p == '-') s.left = true;
			else if (*p == '0') s.zero = true;
			else if (*p == '+') s.plus = true;
			else if (*p == ' ') s.space = true;
			else if (*p == '#') s.alt = true;
			else break;
		}
		if (*p == '*') {
			s.width = va_arg(ap, int);
			if (s.width < 0) {
				s.left = true;
				s.width = -s.width;
			}
			p++;
		} else {
			while (*p >= '0' && *p <= '9')
				s.width = s.width * 10 + (*p++ - '0');
		}
		if (*p == '.') {
			p++;
			s.prec = 0;
			if (*p == '*') {
				s.prec = va_arg(ap, int);
				if (s.prec < 0)
					s.prec = -1;
				p++;
			} else {
				while (*p >= '0' && *p <= '9')
					s.prec = s.prec * 10 + (*p++ - '0');
			}
		}
		enum length len = LEN_INT;
		if (*p == 'h') {
			len = LEN_SHORT;
			if (*++p == 'h') { len = LEN_CHAR; p++; }
		} else if (*p == 'l') {
			len = LEN_LONG;
			if (*++p == 'l') { len = LEN_LLONG; p++; }
		} else if (*p == 'z' || *p == 't' || *p == 'j') {
			len = *p == 'j' ? LEN_LLONG : LEN_SIZE;
			p++;
		}

		unsigned long long u;
		long long v;
		switch (*p) {
		case 'd':
		case 'i':
			switch (len) {
			case LEN_CHAR:  v = (signed char)va_arg(ap, int); break;
			case LEN_SHORT: v = (short)va_arg(ap, int); break;
			case LEN_LONG:  v = va_arg(ap, long); break;
			case LEN_LLONG: v = va_arg(ap, long long); break;
			case LEN_SIZE:  v = va_arg(ap, ptrdiff_t); break;
			default:        v = va_arg(ap, int); break;
			}
			u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
			out_number(&o, u, v < 0, 10, false, &s);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			switch (len) {
			case LEN_CHAR:  u = (unsigned char)va_arg(ap, unsigned); break;
			case LEN_SHORT: u = (unsigned short)va_arg(ap, unsigned); break;
			case LEN_LONG:  u = va_arg(ap, unsigned long); break;
			case LEN_LLONG: u = va_arg(ap, unsigned long long); break;
			case LEN_SIZE:  u = va_arg(ap, size_t); break;
			default:        u = va_arg(ap, unsigned); break;
			}
			s.plus = s.space = false;
			out_number(&o, u, false, *p == 'u' ? 10 : *p == 'o' ? 8 : 16, *p == 'X', &s);
			break;
		case 'p':
			u = (uintptr_t)va_arg(ap, void *);
			s.alt = true;
			if (u == 0) {
				out_string(&o, "(nil)", &s);
				break;
			}
			out_number(&o, u, false, 16, false, &s);
			break;
		case 'c': {
			char c = (char)va_arg(ap, int);
			int pad = s.width > 1 ? s.width - 1 : 0;
			if (!s.left)
				out_pad(&o, ' ', pad);
			out_char(&o, c);
			if (s.left)
				out_pad(&o, ' ', pad);
			break;
		}
		case 's':
			out_string(&o, va_arg(ap, const char *), &s);
			break;
		case '%':
			out_char(&o, '%');
			break;
		case '\0':
			p--;        /* a lone '%' at the end: stop at the NUL */
			break;
		default:        /* unknown conversion: print it as written */
			out_char(&o, '%');
			out_char(&o, *p);
			break;
		}
	}
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
static struct spinlock console_lock = SPINLOCK_INIT("console");
static const char *line_prefix;         /* printk_set_line_prefix */
static bool at_line_start = true;       /* the last character written was a newline */

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

int printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}
