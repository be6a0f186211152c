/*
 * printf.c - vsnprintf and the fd-writing printf family (no floating point).
 */
#include "ulib.h"

struct out {
	char *buf;      /* destination, may be NULL */
	size_t size;    /* capacity including the NUL */
	size_t len;     /* characters produced so far (even past size) */
};

static void out_char(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void out_pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		out_char(o, c);
}

/* Format one unsigned magnitude with its prefix, honouring flags/width/precision. */
static void out_number(struct out *o, unsigned long long v, int base, int upper,
		       const char *prefix, int width, int prec, int left, int zero)
{
	char digits[24];
	int nd = 0, plen = (int)strlen(prefix), zeros, total;
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";

	do {
		digits[nd++] = set[v % (unsigned)base];
		v /= (unsigned)base;
	} while (v);
	if (prec == 0 && nd == 1 && digits[0] == '0')
		nd = 0;                 /* "%.0d" of 0 prints nothing */
	zeros = prec > nd ? prec - nd : 0;
	total = plen + zeros + nd;
	if (!left && zero && prec < 0 && width > total) {
		zeros += width - total;
		total = width;
	}
	if (!left)
		out_pad(o, ' ', width - total);
	while (*prefix)
		out_char(o, *prefix++);
	out_pad(o, '0', zeros);
	while (nd)
		out_char(o, digits[--nd]);
	if (left)
		out_pad(o, ' ', width - total);
}

/* vsnprintf - see ustdio.h. */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		int left = 0, zero = 0, plus = 0, space = 0, alt = 0;
		int width = 0, prec = -1, lng = 0;
		unsigned long long u;
		long long s;
		const char *str;
		char sign[4];

		if (*fmt != '%') {
			out_char(&o, *fmt);
			continue;
		}
		for (fmt++;; fmt++) {
			if (*fmt == '-') left = 1;
			else if (*fmt == '0') zero = 1;
			else if (*fmt == '+') plus = 1;
			else if (*fmt == ' ') space = 1;
			else if (*fmt == '#') alt = 1;
			else break;
		}
		if (*fmt == '*') {
			width = va_arg(ap, int);
			if (width < 0) {
				left = 1;
				width = -width;
			}
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				width = width * 10 + (*fmt++ - '0');
		}
		if (*fmt == '.') {
			fmt++;
			prec = 0;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					prec = prec * 10 + (*fmt++ - '0');
			}
		}
		for (;; fmt++) {
			if (*fmt == 'l') lng++;
			else if (*fmt == 'z' || *fmt == 't' || *fmt == 'j') lng = 2;
			else if (*fmt == 'h') lng = lng > 0 ? lng : 0;
			else break;
		}
		switch (*fmt) {
		case 'd':
		case 'i':
			s = lng >= 2 ? va_arg(ap, long long) : lng == 1 ? va_arg(ap, long)
								      : va_arg(ap, int);
			sign[0] = 0;
			if (s < 0) {
				strcpy(sign, "-");
				u = 0ULL - (unsigned long long)s;
			} else {
				u = (unsigned long long)s;
				if (plus)
					strcpy(sign, "+");
				else if (space)
					strcpy(sign, " ");
			}
			out_number(&o, u, 10, 0, sign, width, prec, left, zero);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			u = lng >= 2 ? va_arg(ap, unsigned long long)
			    : lng == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
			out_number(&o, u, *fmt == 'o' ? 8 : *fmt == 'u' ? 10 : 16, *fmt == 'X',
				   alt && u ? (*fmt == 'x' ? "0x" : *fmt == 'X' ? "0X"
					       : *fmt == 'o' ? "0" : "") : "",
				   width, prec, left, zero);
			break;
		case 'p':
			u = (unsigned long long)(uintptr_t)va_arg(ap, void *);
			out_number(&o, u, 16, 0, "0x", width, prec, left, zero);
			break;
		case 'c':
			if (!left)
				out_pad(&o, ' ', width - 1);
			out_char(&o, (char)va_arg(ap, int));
			if (left)
				out_pad(&o, ' ', width - 1);
			break;
		case 's': {
			int n;

			str = va_arg(ap, const char *);
			if (!str)
				str = "(null)";
			n = (int)strnlen(str, prec >= 0 ? (size_t)prec : (size_t)-1);
			if (!left)
				out_pad(&o, ' ', width - n);
			for (int i = 0; i < n; i++)
				out_char(&o, str[i]);
			if (left)
				out_pad(&o, ' ', width - n);
			break;
		}
		case '%':
			out_char(&o, '%');
			break;
		case '\0':
			fmt--;
			break;
		default:
			out_char(&o, '%');
			out_char(&o, *fmt);
			break;
		}
	}
	if (o.size)
		o.buf[o.len < o.size ? o.len : o.size - 1] = '\0';
	return (int)o.len;
}

/* snprintf - see ustdio.h. */
int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* uwrite_all - see ustdio.h. */
long uwrite_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		long r = sys_write(fd, p, n);

		if (r == -EINTR)
			continue;
		if (r < 0)
			return r;
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* vdprintf - see ustdio.h. Formats twice when the output exceeds 1 KiB. */
int vdprintf(int fd, const char *fmt, va_list ap)
{
	char small[1024];
	va_list ap2;
	int n;
	long r;

	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if ((size_t)n < sizeof(small)) {
		r = uwrite_all(fd, small, (size_t)n);
	} else {
		char *big = malloc((size_t)n + 1);

		if (!big) {
			va_end(ap2);
			return -1;
		}
		vsnprintf(big, (size_t)n + 1, fmt, ap2);
		r = uwrite_all(fd, big, (size_t)n);
		free(big);
	}
	va_end(ap2);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return n;
}

/* dprintf - see ustdio.h. */
int dprintf(int fd, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vdprintf(fd, fmt, ap);
	va_end(ap);
	return n;
}

/* printf - see ustdio.h. */
int printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vdprintf(1, fmt, ap);
	va_end(ap);
	return n;
}

/* puts_nonl - see ustdio.h. */
int puts_nonl(const char *s)
{
	return (int)uwrite_all(1, s, strlen(s));
}
