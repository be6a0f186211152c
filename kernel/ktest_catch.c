/*
 * In the kernel, every ktest case runs under arch_fault_catch (the
 * kernel's counterpart of the host runner's --fork, tests/host/isolate.c):
 * an exception in a case (a NULL dereference in the code under test) or a
 * panic (a failed BUG_ON) fails that case, with the report as diagnostic
 * lines, and the run goes on with the next case. What the case held stays
 * held (its locks, its memory): a later case may hang on a lock it left,
 * which a timeout catches (the grader then boots again after that case).
 * The test hooks a case may have armed are reset (slab failure injection).
 */
#include "ktest.h"
#include "printk.h"
#include "slab.h"
#include "x86.h"

struct case_call {
	struct ktest *t;
	void (*fn)(struct ktest *t);
};

static void call_case(void *arg)
{
	struct case_call *c = arg;

	c->fn(c->t);
}

static void run_caught(struct ktest *t, void (*fn)(struct ktest *t))
{
	struct case_call c = { t, fn };
	struct arch_fault_info info;

	if (!arch_fault_catch(call_case, &c, &info))
		return;
	t->failures++;
	slab_fail_nth(0);
	if (info.vector == ARCH_FAULT_PANIC)
		printk("the case panicked: failed, the run goes on\n");
	else
		printk("the case took exception %u at %016llx: failed, the run goes on\n", info.vector,
		       (unsigned long long)info.rip);
}

void ktest_catch_faults(void)
{
	ktest_case_runner = run_caught;
}
