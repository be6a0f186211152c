/* Kernel command-line parsing: known keys, defaults, and bad input that must only warn. */
#include "ktest.h"
#include "cmdline.h"
#include "kstring.h"
#include "mm.h"

static void test_defaults(struct ktest *t)
{
	static struct kernel_params p;

	EXPECT_EQ(t, cmdline_parse(&p, ""), 0u);
	EXPECT_STREQ(t, p.ktest, "default");
	EXPECT_STREQ(t, p.profile, "");
	EXPECT_STREQ(t, p.vma, "");
	EXPECT_TRUE(t, p.merge);
	/* thp=always: Linux's Kconfig default (TRANSPARENT_HUGEPAGE_ALWAYS), Debian's */
	EXPECT_EQ(t, p.thp, (unsigned)THP_ALWAYS);
	/* Linux's khugepaged/scan_sleep_millisecs default */
	EXPECT_EQ(t, p.khugepaged_sleep_ms, 10000u);
	EXPECT_EQ(t, cmdline_parse(&p, NULL), 0u);
}

static void test_known_keys(struct ktest *t)
{
	static struct kernel_params p;

	/* the loader's leading file name is skipped silently */
	EXPECT_EQ(t, cmdline_parse(&p, "/boot/kernel.elf ktest=pmm,slab  profile=default vma=avl merge=off"), 0u);
	EXPECT_STREQ(t, p.ktest, "pmm,slab");
	EXPECT_STREQ(t, p.profile, "default");
	EXPECT_STREQ(t, p.vma, "avl");
	EXPECT_FALSE(t, p.merge);
	EXPECT_EQ(t, cmdline_parse(&p, "merge=on ktest=all"), 0u);
	EXPECT_TRUE(t, p.merge);
	EXPECT_STREQ(t, p.ktest, "all");
	EXPECT_EQ(t, cmdline_parse(&p, "khugepaged_sleep_ms=100"), 0u);
	EXPECT_EQ(t, p.khugepaged_sleep_ms, 100u);
	EXPECT_EQ(t, cmdline_parse(&p, "khugepaged_sleep_ms=fast"), 1u);
	EXPECT_EQ(t, p.khugepaged_sleep_ms, 10000u);
}

static void test_profile_keys(struct ktest *t)
{
	static struct kernel_params p;

	EXPECT_EQ(t, cmdline_parse(&p, ""), 0u);
	EXPECT_EQ(t, p.profile_hz, 1000u);
	EXPECT_FALSE(t, p.profile_stacks);
	EXPECT_FALSE(t, p.vmastat);
	EXPECT_FALSE(t, p.profile_entry);
	EXPECT_EQ(t, cmdline_parse(&p, "profile=user profile_hz=10000 profile_stacks=on vmastat=on "
				       "profile_entry=on"), 0u);
	EXPECT_STREQ(t, p.profile, "user");
	EXPECT_EQ(t, p.profile_hz, 10000u);
	EXPECT_TRUE(t, p.profile_stacks);
	EXPECT_TRUE(t, p.vmastat);
	EXPECT_TRUE(t, p.profile_entry);
	/* not numbers: a warning each, the default stays */
	EXPECT_EQ(t, cmdline_parse(&p, "profile_hz=10k profile_hz= profile_hz=-5"), 3u);
	EXPECT_EQ(t, p.profile_hz, 1000u);
	EXPECT_EQ(t, cmdline_parse(&p, "profile_hz=99999999999"), 1u);
	EXPECT_EQ(t, p.profile_hz, 1000u);
}

static void test_unknown_options_warn_and_continue(struct ktest *t)
{
	static struct kernel_params p;

	/* three bad words (unknown key, bare word after the first, bad merge value); the rest applies */
	EXPECT_EQ(t, cmdline_parse(&p, "kernel bogus=1 ktest=slab stray merge=maybe vma=btree"), 3u);
	EXPECT_STREQ(t, p.ktest, "slab");
	EXPECT_STREQ(t, p.vma, "btree");
	EXPECT_TRUE(t, p.merge);
	EXPECT_EQ(t, p.warnings, 3u);
}

/* A value longer than its field is cut to the field (ktest= has a larger one: long filters). */
static void test_long_value_truncated(struct ktest *t)
{
	static char line[KTEST_FILTER_MAX + 64];
	static struct kernel_params p;

	memcpy(line, "vma=", 4);
	memset(line + 4, 'x', CMDLINE_VALUE_MAX + 20);
	line[4 + CMDLINE_VALUE_MAX + 20] = 0;
	cmdline_parse(&p, line);
	EXPECT_EQ(t, strlen(p.vma), (size_t)CMDLINE_VALUE_MAX - 1);
	memcpy(line, "ktest=", 6);
	memset(line + 6, 'x', KTEST_FILTER_MAX + 20);
	line[6 + KTEST_FILTER_MAX + 20] = 0;
	cmdline_parse(&p, line);
	EXPECT_EQ(t, strlen(p.ktest), (size_t)KTEST_FILTER_MAX - 1);
}

static const struct ktest_case cmdline_cases[] = {
	KTEST_CASE(test_defaults),
	KTEST_CASE(test_known_keys),
	KTEST_CASE(test_profile_keys),
	KTEST_CASE(test_unknown_options_warn_and_continue),
	KTEST_CASE(test_long_value_truncated),
	{ NULL, NULL },
};

static const struct ktest_suite cmdline_suite = {
	"cmdline", cmdline_cases, 0, NULL, NULL, NULL, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(cmdline_suite);
