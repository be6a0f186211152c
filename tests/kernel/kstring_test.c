/* lib/string.c: the cases where a naive implementation goes wrong. */
#include "ktest.h"
#include "kstring.h"

static void test_memmove_overlap(struct ktest *t)
{
	char buf[16];

	memcpy(buf, "0123456789", 11);
	memmove(buf + 2, buf, 8);               /* forward overlap: copy must go backwards */
	EXPECT_EQ(t, memcmp(buf, "0101234567", 10), 0);
	memcpy(buf, "0123456789", 11);
	memmove(buf, buf + 2, 8);               /* backward overlap */
	EXPECT_EQ(t, memcmp(buf, "2345678989", 10), 0);
}

static void test_memset_memcmp(struct ktest *t)
{
	unsigned char a[8], b[8];

	memset(a, 0xAB, sizeof(a));
	memset(b, 0xAB, sizeof(b));
	EXPECT_EQ(t, memcmp(a, b, 8), 0);
	b[5] = 0xFF;                            /* unsigned comparison: 0xAB < 0xFF */
	EXPECT_LT(t, memcmp(a, b, 8), 0);
	EXPECT_GT(t, memcmp(b, a, 8), 0);
	EXPECT_EQ(t, memcmp(a, b, 5), 0);
	EXPECT_EQ(t, memcmp(a, b, 0), 0);
}

static void test_str(struct ktest *t)
{
	const char *s = "hello";

	EXPECT_EQ(t, strlen(""), 0);
	EXPECT_EQ(t, strlen(s), 5);
	EXPECT_EQ(t, strnlen(s, 3), 3);
	EXPECT_EQ(t, strnlen(s, 10), 5);
	EXPECT_EQ(t, strcmp("abc", "abc"), 0);
	EXPECT_LT(t, strcmp("abc", "abd"), 0);
	EXPECT_GT(t, strcmp("abc", "ab"), 0);
	EXPECT_LT(t, strcmp("a", "\xff"), 0);   /* compared as unsigned char */
	EXPECT_EQ(t, strncmp("abcx", "abcy", 3), 0);
	EXPECT_NE(t, strncmp("abcx", "abcy", 4), 0);
	EXPECT_TRUE(t, strchr(s, 'l') == s + 2);
	EXPECT_TRUE(t, strchr(s, 0) == s + 5);  /* the terminator is part of the string */
	EXPECT_TRUE(t, strchr(s, 'z') == NULL);
}

static const struct ktest_case kstring_cases[] = {
	KTEST_CASE(test_memmove_overlap),
	KTEST_CASE(test_memset_memcmp),
	KTEST_CASE(test_str),
	{ NULL, NULL },
};

static const struct ktest_suite kstring_suite = {
	"kstring", kstring_cases, 0, NULL, NULL, NULL, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(kstring_suite);
