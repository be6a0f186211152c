/*
 * sb.c - growable strings for mmscript (output lines, maps text); part of the
 * environment-neutral core (mms_core.h).
 */
#include "mms_core.h"

static void sb_grow(struct sb *s, size_t need)
{
	size_t cap = s->cap ? s->cap : 256;
	char *n;

	while (cap < need)
		cap *= 2;
	if (cap == s->cap)
		return;
	n = realloc(s->buf, cap);
	if (!n) {
		dprintf(2, "mmscript: out of memory\n");
		exit(3);
	}
	s->buf = n;
	s->cap = cap;
}

/* sb_init - see mms_core.h. */
void sb_init(struct sb *s)
{
	s->buf = NULL;
	s->len = s->cap = 0;
	sb_grow(s, 1);
	s->buf[0] = '\0';
}

/* sb_free - see mms_core.h. */
void sb_free(struct sb *s)
{
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
}

/* sb_putn - see mms_core.h. */
void sb_putn(struct sb *s, const char *str, size_t n)
{
	sb_grow(s, s->len + n + 1);
	memcpy(s->buf + s->len, str, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

/* sb_putc - see mms_core.h. */
void sb_putc(struct sb *s, char c)
{
	sb_putn(s, &c, 1);
}

/* sb_puts - see mms_core.h. */
void sb_puts(struct sb *s, const char *str)
{
	sb_putn(s, str, strlen(str));
}

/* sb_printf - see mms_core.h. */
void sb_printf(struct sb *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	sb_grow(s, s->len + (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s->buf + s->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
}
