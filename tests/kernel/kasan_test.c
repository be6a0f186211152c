/*
 * The kernel address sanitizer (include/kasan.h), in KASAN=1 builds only
 * (make kasan; make test's kernel-kasan stage). Each case makes one bad
 * access on purpose, with one report allowed (kasan_expect_reports), and
 * checks what the report says against what the case did: the address,
 * the size, the kind (the shadow code), and for slab objects that the
 * allocation and free stacks lead back to this file. The good accesses
 * around them must not report.
 */
#ifdef KASAN
#include "ktest.h"
#include "kasan.h"
#include "ksyms.h"
#include "kstring.h"
#include "pmm.h"
#include "slab.h"

/*
 * Accesses the compiler instruments (not inlined, so each is one call to
 * check); volatile: each is a real one-byte access, never dropped or merged
 * (tools/lockless-check allows these two).
 */
static __attribute__((noinline)) char read_byte(const volatile char *p)
{
	return *p;
}

static __attribute__((noinline)) void write_byte(volatile char *p, char v)
{
	*p = v;
}

/* Does one of the stack's frames lie in the function named fn? */
static bool stack_has(const uintptr_t *stack, const char *fn)
{
	for (unsigned i = 0; i < KASAN_STACK_DEPTH && stack[i]; i++) {
		const char *name = ksyms_lookup(stack[i], NULL, NULL);

		if (name && strcmp(name, fn) == 0)
			return true;
	}
	return false;
}

/* Run the bad access `access` allowing one report; true when exactly one came. */
#define ONE_REPORT(t, access) ({                                        \
	unsigned long before_ = kasan_reports();                        \
	kasan_expect_reports(1);                                        \
	access;                                                         \
	kasan_expect_reports(0);                                        \
	EXPECT_EQ(t, kasan_reports(), before_ + 1);                     \
	kasan_reports() == before_ + 1;                                 \
})

/*
 * kmalloc(13) comes from the 16-byte class: bytes 13..15 of the slot are
 * not the caller's (shadow 5 for the second 8 bytes), 16.. are the red
 * zone. Bytes 0..12 are fine.
 */
static void test_slab_out_of_bounds(struct ktest *t)
{
	char *p = kmalloc(13);
	unsigned long before = kasan_reports();

	ASSERT_TRUE(t, p != NULL);
	for (int i = 0; i < 13; i++)
		write_byte(p + i, (char)i);
	EXPECT_EQ(t, read_byte(p + 12), 12);
	EXPECT_EQ(t, kasan_reports(), before);
	if (ONE_REPORT(t, read_byte(p + 13))) {
		EXPECT_EQ(t, kasan_last_report()->addr, (uintptr_t)(p + 13));
		EXPECT_EQ(t, kasan_last_report()->size, 1);
		EXPECT_FALSE(t, kasan_last_report()->write);
		EXPECT_EQ(t, kasan_last_report()->shadow, 5);
	}
	if (ONE_REPORT(t, write_byte(p + 16, 1))) {
		EXPECT_TRUE(t, kasan_last_report()->write);
		EXPECT_EQ(t, kasan_last_report()->shadow, KASAN_SLAB_REDZONE);
		EXPECT_TRUE(t, stack_has(kasan_last_report()->alloc_stack, "test_slab_out_of_bounds"));
	}
	kfree(p);
}

/* A freed object stays poisoned (the quarantine keeps its slot); both stacks are reported. */
static void test_use_after_free(struct ktest *t)
{
	char *p = kmalloc(64);

	ASSERT_TRUE(t, p != NULL);
	write_byte(p + 8, 7);
	kfree(p);
	if (ONE_REPORT(t, read_byte(p + 8))) {
		const struct kasan_report_info *r = kasan_last_report();

		EXPECT_EQ(t, r->addr, (uintptr_t)(p + 8));
		EXPECT_EQ(t, r->shadow, KASAN_SLAB_FREE);
		EXPECT_TRUE(t, r->had_alloc_stack);
		EXPECT_TRUE(t, r->had_free_stack);
		EXPECT_TRUE(t, stack_has(r->alloc_stack, "test_use_after_free"));
		EXPECT_TRUE(t, stack_has(r->free_stack, "test_use_after_free"));
	}
}

/*
 * The quarantine: without it the freelist hands the slot just freed out
 * again at once (LIFO), and a stale pointer would reach the new object
 * unnoticed. With it, the next allocation of the size is another slot.
 */
static void test_quarantine_delays_reuse(struct ktest *t)
{
	void *p = kmalloc(64), *q;

	ASSERT_TRUE(t, p != NULL);
	kfree(p);
	q = kmalloc(64);
	ASSERT_TRUE(t, q != NULL);
	EXPECT_TRUE(t, q != p);
	kfree(q);
}

/* A freed buddy page: any access reports (use-after-free (page)). */
static void test_page_use_after_free(struct ktest *t)
{
	struct page *pg = pmm_alloc(0, 0);
	char *va;

	ASSERT_TRUE(t, pg != NULL);
	va = page_address(pg);
	write_byte(va + 100, 1);
	pmm_free(pg, 0);
	if (ONE_REPORT(t, write_byte(va + 100, 2))) {
		EXPECT_EQ(t, kasan_last_report()->addr, (uintptr_t)(va + 100));
		EXPECT_EQ(t, kasan_last_report()->shadow, KASAN_PAGE_FREE);
	}
}

/* memcpy is not instrumented (one string instruction): it checks its ranges itself. */
static void test_memcpy_checked(struct ktest *t)
{
	char *p = kmalloc(32), dst[48];

	ASSERT_TRUE(t, p != NULL);
	memset(p, 1, 32);
	memcpy(dst, p, 32);
	if (ONE_REPORT(t, memcpy(dst, p, 40))) {
		EXPECT_EQ(t, kasan_last_report()->addr, (uintptr_t)p);
		EXPECT_EQ(t, kasan_last_report()->size, 40);
		EXPECT_FALSE(t, kasan_last_report()->write);
	}
	kfree(p);
}

static const struct ktest_case kasan_cases[] = {
	KTEST_CASE(test_slab_out_of_bounds),
	KTEST_CASE(test_use_after_free),
	KTEST_CASE(test_quarantine_delays_reuse),
	KTEST_CASE(test_page_use_after_free),
	KTEST_CASE(test_memcpy_checked),
	{ 0 },
};

static const struct ktest_suite kasan_suite = {
	"kasan", kasan_cases, 0, NULL, NULL, NULL, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(kasan_suite);
#endif
