/*
 * fnmatch, the part the programs here use: '*' matches any run of
 * characters (the empty one too), '?' exactly one, everything else itself.
 * No bracket expressions, no flags. Recursive on '*': patterns are short.
 */
#include "ustring.h"

int fnmatch(const char *pattern, const char *s, int flags)
{
	(void)flags;
	for (; *pattern; pattern++, s++) {
		if (*pattern == '*') {
			while (pattern[1] == '*')
				pattern++;
			for (const char *rest = s;; rest++) {
				if (fnmatch(pattern + 1, rest, 0) == 0)
					return 0;
				if (!*rest)
					return FNM_NOMATCH;
			}
		}
		if (!*s || (*pattern != '?' && *pattern != *s))
			return FNM_NOMATCH;
	}
	return *s ? FNM_NOMATCH : 0;
}
