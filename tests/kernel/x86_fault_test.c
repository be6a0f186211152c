/*
 * Deliberate faults, caught by the test-only recovery path
 * (arch_fault_catch): each one must report the right vector, error code
 * and CR2, and the kernel must carry on afterwards.
 */
#include "ktest.h"
#include "x86.h"
#include "x86_mmu.h"
#include "task.h"

static const int ro_value = 42;                 /* .rodata */
static uint8_t data_code[16] = { 0xC3 };        /* "ret", in .data (NX) */

/*
 * The faulting addresses come in through arg, so that the compiler cannot
 * see a NULL dereference and replace it with a trap instruction; volatile:
 * the access must happen although its value is unused (tools/lockless-check
 * allows these two).
 */
static void read_at(void *arg) { (void)*(volatile int *)arg; }
static void write_at(void *arg) { *(volatile int *)arg = 1; }
static void call_at(void *arg) { ((void (*)(void))arg)(); }
static void undefined_opcode(void *arg) { __asm__ volatile("ud2"); }
static void divide_by_zero(void *arg)
{
	uint64_t zero = 0, lo = 1, hi = 0;
	__asm__ volatile("divq %2" : "+a"(lo), "+d"(hi) : "r"(zero));
}
static void no_fault(void *arg) { (*(int *)arg)++; }

static void test_null_read(struct ktest *t)
{
	struct arch_fault_info fi;

	ASSERT_EQ(t, arch_fault_catch(read_at, NULL, &fi), 1);
	EXPECT_EQ(t, fi.vector, (unsigned)VEC_PF);
	EXPECT_EQ(t, fi.cr2, 0);
	EXPECT_EQ(t, fi.error & (PF_P | PF_W | PF_U | PF_I), 0);   /* not present, read, kernel */
}

static void test_null_write(struct ktest *t)
{
	struct arch_fault_info fi;

	ASSERT_EQ(t, arch_fault_catch(write_at, NULL, &fi), 1);
	EXPECT_EQ(t, fi.vector, (unsigned)VEC_PF);
	EXPECT_EQ(t, fi.cr2, 0);
	EXPECT_EQ(t, fi.error & (PF_P | PF_W | PF_U), PF_W);
}

static void test_write_rodata(struct ktest *t)
{
	struct arch_fault_info fi;

	ASSERT_EQ(t, arch_fault_catch(write_at, (void *)&ro_value, &fi), 1);
	EXPECT_EQ(t, fi.vector, (unsigned)VEC_PF);
	EXPECT_EQ(t, fi.cr2, (uintptr_t)&ro_value);
	EXPECT_EQ(t, fi.error & (PF_P | PF_W | PF_U), PF_P | PF_W); /* present but read-only */
	EXPECT_EQ(t, ro_value, 42);
}

static void test_write_text(struct ktest *t)
{
	struct arch_fault_info fi;

	ASSERT_EQ(t, arch_fault_catch(write_at, (void *)(uintptr_t)write_at, &fi), 1);
	EXPECT_EQ(t, fi.vector, (unsigned)VEC_PF);
	EXPECT_EQ(t, fi.cr2, (uintptr_t)write_at);
	EXPECT_EQ(t, fi.error & (PF_P | PF_W), PF_P | PF_W);
}

static void test_exec_data_nx(struct ktest *t)
{
	struct arch_fault_info fi;

	if (!x86_cpu.nx) {
		ktest_skip(t, "CPU has no NX");
		return;
	}
	ASSERT_EQ(t, arch_fault_catch(call_at, data_code, &fi), 1);
	EXPECT_EQ(t, fi.vector, (unsigned)VEC_PF);
	EXPECT_EQ(t, fi.cr2, (uintptr_t)data_code);
	EXPECT_EQ(t, fi.rip, (uintptr_t)data_code);
	EXPECT_EQ(t, fi.error & (PF_P | PF_I), PF_P | PF_I);        /* instruction fetch, present */
}

static void test_general_protection(struct ktest *t)
{
	struct arch_fault_info fi;

	ASSERT_EQ(t, arch_fault_catch(read_at, (void *)0x8000000000000000UL, &fi), 1);
	EXPECT_EQ(t, fi.vector, (unsigned)VEC_GP);
	EXPECT_EQ(t, fi.error, 0);
}

static void test_invalid_opcode(struct ktest *t)
{
	struct arch_fault_info fi;

	ASSERT_EQ(t, arch_fault_catch(undefined_opcode, NULL, &fi), 1);
	EXPECT_EQ(t, fi.vector, (unsigned)VEC_UD);
	/* ud2 is the 2-byte instruction the fault points at */
	EXPECT_EQ(t, *(const uint16_t *)fi.rip, 0x0B0F);
}

static void test_divide_error(struct ktest *t)
{
	struct arch_fault_info fi;

	ASSERT_EQ(t, arch_fault_catch(divide_by_zero, NULL, &fi), 1);
	EXPECT_EQ(t, fi.vector, (unsigned)VEC_DE);
}

static void test_no_fault_returns_zero(struct ktest *t)
{
	struct arch_fault_info fi;
	int calls = 0;

	EXPECT_EQ(t, arch_fault_catch(no_fault, &calls, &fi), 0);
	EXPECT_EQ(t, calls, 1);
	EXPECT_EQ(t, fi.vector, ~0u);
}

/*
 * After a catch the catch armed before it is armed again: none outside a
 * test, the ktest runner's own inside one (kernel/ktest_catch.c).
 */
static void test_recovery_disarmed_after_catch(struct ktest *t)
{
	void *outer = this_cpu()->fault_catch;
	struct arch_fault_info fi;

	ASSERT_EQ(t, arch_fault_catch(read_at, NULL, &fi), 1);
	EXPECT_TRUE(t, this_cpu()->fault_catch == outer);
	/* and it can be used again */
	EXPECT_EQ(t, arch_fault_catch(write_at, NULL, &fi), 1);
	EXPECT_TRUE(t, this_cpu()->fault_catch == outer);
}

static void panic_now(void *arg)
{
	panic("deliberate panic under arch_fault_catch");
}

static void nested_fault(void *arg)
{
	struct arch_fault_info *inner = arg;

	arch_fault_catch(read_at, NULL, inner);     /* the inner catch takes this fault */
	read_at(NULL);                              /* the outer one takes this one */
}

/* A panic under a catch resumes there too; catches nest, the innermost taking the fault. */
static void test_panic_and_nesting(struct ktest *t)
{
	struct arch_fault_info fi, inner;

	EXPECT_EQ(t, arch_fault_catch(panic_now, NULL, &fi), 1);
	EXPECT_EQ(t, fi.vector, ARCH_FAULT_PANIC);
	EXPECT_EQ(t, arch_fault_catch(nested_fault, &inner, &fi), 1);
	EXPECT_EQ(t, inner.vector, 14);
	EXPECT_EQ(t, fi.vector, 14);
	EXPECT_EQ(t, fi.cr2, 0);
}

/*
 * The running task's kernel stack has its guard below it
 * (arch/x86_64/kstack.c): a read just under the stack's lowest byte is a
 * not-present fault, not a read of whatever lies next in memory, and the
 * overflow report recognises the whole guard, and nothing of the stack.
 */
static void test_kstack_guard(struct ktest *t)
{
	struct arch_fault_info fi;
	uintptr_t lo = (uintptr_t)current->kstack, here = (uintptr_t)&fi;

	ASSERT_TRUE(t, lo != 0);                        /* the test thread's own stack */
	EXPECT_TRUE(t, here >= lo && here < lo + KSTACK_SIZE);
	ASSERT_EQ(t, arch_fault_catch(read_at, (void *)(lo - 8), &fi), 1);
	EXPECT_EQ(t, fi.vector, (unsigned)VEC_PF);
	EXPECT_EQ(t, fi.cr2, lo - 8);
	EXPECT_EQ(t, fi.error & (PF_P | PF_W | PF_U | PF_I), 0);   /* not present, read, kernel */
	EXPECT_TRUE(t, kstack_guard_hit(lo - 8));
	EXPECT_TRUE(t, kstack_guard_hit(lo - KSTACK_SIZE));
	EXPECT_FALSE(t, kstack_guard_hit(lo));
	EXPECT_FALSE(t, kstack_guard_hit(lo + KSTACK_SIZE - 1));
}

static const struct ktest_case x86_fault_cases[] = {
	KTEST_CASE(test_null_read),
	KTEST_CASE(test_null_write),
	KTEST_CASE(test_write_rodata),
	KTEST_CASE(test_write_text),
	KTEST_CASE(test_exec_data_nx),
	KTEST_CASE(test_general_protection),
	KTEST_CASE(test_invalid_opcode),
	KTEST_CASE(test_divide_error),
	KTEST_CASE(test_no_fault_returns_zero),
	KTEST_CASE(test_recovery_disarmed_after_catch),
	KTEST_CASE(test_panic_and_nesting),
	KTEST_CASE(test_kstack_guard),
	{ NULL, NULL },
};

static const struct ktest_suite x86_fault_suite = {
	"x86_fault", x86_fault_cases, 0, NULL, NULL, NULL, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(x86_fault_suite);
