/*
 * kvsnprintf formatting. Expected strings are what ISO C's printf produces
 * for the same format and arguments (checked against glibc's printf).
 */
#include "ktest.h"
#include "printk.h"
#include "kstring.h"

#define FMT(t, expect, ...) do { \
	char buf[128]; \
	int n = ksnprintf(buf, sizeof(buf), __VA_ARGS__); \
	EXPECT_STREQ(t, buf, expect); \
	EXPECT_EQ(t, n, (int)strlen(expect)); \
} while (0)

static void test_integers(struct ktest *t)
{
	FMT(t, "0", "%d", 0);
	FMT(t, "-42", "%d", -42);
	FMT(t, "-2147483648", "%d", (int)0x80000000);
	FMT(t, "4294967295", "%u", 0xffffffffu);
	FMT(t, "-9223372036854775808", "%lld", (long long)0x8000000000000000ULL);
	FMT(t, "18446744073709551615", "%llu", ~0ULL);
	FMT(t, "ff FF 377", "%x %X %o", 255, 255, 255);
	FMT(t, "-1 255", "%hhd %hhu", 255, 255);
	FMT(t, "-1 65535", "%hd %hu", 65535, 65535);
	FMT(t, "123 456", "%zu %ld", (size_t)123, 456L);
}

static void test_flags_width_precision(struct ktest *t)
{
	FMT(t, "   42", "%5d", 42);
	FMT(t, "42   |", "%-5d|", 42);
	FMT(t, "00042", "%05d", 42);
	FMT(t, "-0042", "%05d", -42);
	FMT(t, "+42  42", "%+d % d", 42, 42);
	FMT(t, "  007", "%5.3d", 7);
	FMT(t, "0x1f 0X1F 017", "%#x %#X %#o", 31, 31, 15);
	FMT(t, "0 0", "%#x %#o", 0, 0);
	FMT(t, "", "%.0d", 0);
	FMT(t, "0x00ff", "%#06x", 255);
	FMT(t, "   ab", "%*x", 5, 0xab);
	FMT(t, "ab   |", "%*x|", -5, 0xab);
}

static void test_strings_chars(struct ktest *t)
{
	FMT(t, "hello", "%s", "hello");
	FMT(t, "  hi|hi  |", "%4s|%-4s|", "hi", "hi");
	FMT(t, "hel", "%.3s", "hello");
	FMT(t, "he", "%.*s", 2, "hello");
	const char *volatile null_str = NULL;   /* volatile: keep the compiler's format check quiet */
	FMT(t, "(null)", "%s", null_str);
	FMT(t, "x|  y", "%c|%3c", 'x', 'y');
	FMT(t, "100%", "100%%");
	FMT(t, "0xdeadbeef", "%p", (void *)0xdeadbeefUL);
	FMT(t, "(nil)", "%p", (void *)0);
}

static void test_truncation(struct ktest *t)
{
	char buf[8];
	/* Like vsnprintf: output truncated to size-1 chars plus NUL; returns the full length. */
	int n = ksnprintf(buf, sizeof(buf), "%s", "0123456789");
	EXPECT_EQ(t, n, 10);
	EXPECT_STREQ(t, buf, "0123456");
	n = ksnprintf(buf, 1, "abc");
	EXPECT_EQ(t, n, 3);
	EXPECT_EQ(t, buf[0], '\0');
	EXPECT_EQ(t, ksnprintf(NULL, 0, "%d", 12345), 5);
}

static const struct ktest_case printk_cases[] = {
	KTEST_CASE(test_integers),
	KTEST_CASE(test_flags_width_precision),
	KTEST_CASE(test_strings_chars),
	KTEST_CASE(test_truncation),
	{ 0 },
};
KTEST_SUITE(printk, printk_cases);
