/*
 * strtoul.c - number parsing (C semantics without locale; overflow saturates
 * to ULONG_MAX/LONG_MAX with errno ERANGE).
 */
#include "ulib.h"

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/* strtoul - see ulib.h. */
unsigned long strtoul(const char *s, char **end, int base)
{
	const char *p = s;
	unsigned long v = 0;
	int neg = 0, any = 0, overflow = 0;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    digit_value(p[2]) < 16) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = p[0] == '0' ? 8 : 10;
	}
	for (; digit_value(*p) < base; p++) {
		unsigned long d = (unsigned long)digit_value(*p);

		any = 1;
		if (v > (~0UL - d) / (unsigned long)base)
			overflow = 1;
		v = v * (unsigned long)base + d;
	}
	if (end)
		*end = (char *)(any ? p : s);
	if (overflow) {
		errno = ERANGE;
		return ~0UL;
	}
	return neg ? -v : v;
}

/* strtol - see ulib.h. */
long strtol(const char *s, char **end, int base)
{
	return (long)strtoul(s, end, base);
}
