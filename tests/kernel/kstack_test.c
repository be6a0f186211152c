/*
 * Kernel stacks with guard pages (arch/x86_64/kstack.c): a stack is mapped
 * at both ends with its guard below; a freed stack's slot is handed out
 * again only after a flush round (an IPI to every other CPU), never while
 * another CPU may still cache the old mapping; frames come back exactly.
 */
#include "ktest.h"
#include "arch.h"
#include "x86.h"
#include "task.h"
#include "pmm.h"

/*
 * Allocate and free stacks until the first one's slot comes back: each
 * freed slot stays stale until a flush, so the first returns only after
 * one; the flush comes within kstack_slot_count() + 1 rounds (then every
 * slot is used or stale), the first slot within as many more.
 */
static void test_slot_reused_after_flush(struct ktest *t)
{
	unsigned slots = kstack_slot_count(), i;
	size_t free0 = pmm_free_frames();
	unsigned long flushes0 = kstack_flush_count();
	char *first = arch_kstack_alloc(), *s = NULL;

	ASSERT_TRUE(t, first != NULL);
	first[0] = 1;
	first[KSTACK_SIZE - 1] = 2;
	EXPECT_TRUE(t, kstack_guard_hit((uintptr_t)first - 1));
	arch_kstack_free(first);
	for (i = 0; i < 2 * slots + 2 && s != first; i++) {
		s = arch_kstack_alloc();
		ASSERT_TRUE(t, s != NULL);
		s[0] = 3;                                       /* both ends are mapped, writable */
		s[KSTACK_SIZE - 1] = 4;
		arch_kstack_free(s);
		if (s == first)
			EXPECT_TRUE(t, kstack_flush_count() > flushes0);
	}
	EXPECT_TRUE(t, s == first);
	EXPECT_EQ(t, pmm_free_frames(), free0);
}

static const struct ktest_case kstack_cases[] = {
	KTEST_CASE(test_slot_reused_after_flush),
	{ NULL, NULL },
};

static const struct ktest_suite kstack_suite = {
	"kstack", kstack_cases, 0, NULL, NULL, NULL, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(kstack_suite);
