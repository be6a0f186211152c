/*
 * Folded kernel stacks for the sampling profiler (include/profile.h): each
 * sample's interrupted stack, walked along the frame-pointer chain (the
 * kernel is built with -fno-omit-frame-pointer) and reduced to the kernel
 * functions on it, is counted in an open-addressing table keyed by the
 * task's name, user/kernel mode and the function list. Printed as the
 * "folded" format of Brendan Gregg's stackcollapse scripts, which
 * flamegraph.pl and speedscope read: "COMM;ROOT;...;LEAF COUNT".
 *
 * A frame is followed only while it lies inside the interrupted task's
 * kernel stack (the boot stack for the idle context) and moves up the stack,
 * so a corrupt or foreign rbp ends the walk instead of faulting. gcc gives
 * leaf functions no frame even with -fno-omit-frame-pointer, so when the
 * interrupted function has not set one up (no push %rbp; mov %rsp,%rbp at
 * its start, or rip before it or on a ret) its caller is found as the first
 * word above rsp that is a return address into kernel text right after a
 * call instruction; then the rbp chain goes on. (A function reached by a
 * tail call shows under its caller's caller, as in every unwinder.)
 * An assembly routine without a frame loses its caller's frame, as with
 * every frame-pointer profiler.
 * When the table is full, further new stacks are counted as "[dropped]".
 *
 * With profile_entry=on a kernel stack of a user task also keeps where the
 * task entered the kernel from: the rip of its user frame at the top of its
 * kernel stack (the instruction after the syscall, or the one that faulted
 * or was interrupted), printed as a "[user@0xRIP]" frame under the task's
 * name, so that the host can put each kernel stack under the program's
 * function that caused it (tools/profile/profilelib.py: resolve_entries).
 */
#include "profile.h"
#include "ksyms.h"
#include "printk.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "spinlock.h"
#include "task.h"
#include "x86.h"

#define STACK_DEPTH 24                  /* functions kept per stack, leaf first */
#define STACK_SLOTS 4096                /* distinct stacks (a power of two) */

extern const char boot_stack_bottom[], boot_stack_top[];

struct stack_entry {
	uint32_t count;                 /* 0: slot free */
	uint16_t depth;
	bool user;
	char comm[TASK_COMM_LEN];
	uintptr_t entry;                /* profile_entry_rip (0: none or not recorded) */
	uint32_t sym[STACK_DEPTH];      /* ksyms indexes, leaf first */
};

static struct stack_entry *table;
static uint64_t dropped;
static bool record_entry;               /* profile_entry=on */
static struct spinlock stacks_lock = SPINLOCK_INIT("profile_stacks");

int profile_stacks_reset(bool entry)
{
	record_entry = entry;
	if (!table) {
		table = kzalloc(STACK_SLOTS * sizeof(*table));
		if (!table)
			return -ENOMEM;
	}
	memset(table, 0, STACK_SLOTS * sizeof(*table));
	dropped = 0;
	return 0;
}

/* The stack the interrupted code ran on: the task's kernel stack, or the boot stack. */
static void stack_bounds(const struct task *t, uintptr_t *lo, uintptr_t *hi)
{
	*lo = (uintptr_t)boot_stack_bottom;
	*hi = (uintptr_t)boot_stack_top;
	if (t && t->kstack) {
		*lo = (uintptr_t)t->kstack;
		*hi = *lo + KSTACK_SIZE;
	}
}

/*
 * Bytes from the start of function f to the end of its frame set-up
 * (push %rbp, then mov %rsp,%rbp, which gcc may schedule a few instructions
 * later; an endbr64 may come first), or 0 when f makes no frame: gcc builds
 * leaf functions without one even with -fno-omit-frame-pointer.
 */
static unsigned frame_setup_end(const uint8_t *f)
{
	unsigned o = 0;

	if (f[0] == 0xf3 && f[1] == 0x0f && f[2] == 0x1e && f[3] == 0xfa)
		o = 4;
	if (f[o] != 0x55)
		return 0;
	for (unsigned i = o + 1; i < o + 24; i++)
		if (f[i] == 0x48 && f[i + 1] == 0x89 && f[i + 2] == 0xe5)
			return i + 3;
	return 0;
}

/*
 * True when ret follows a call instruction: a direct call (whatever its
 * target: the callee may have been reached by a tail call), or an indirect
 * call (0xff with modrm.reg = 2, 2 to 7 bytes long with SIB and displacement).
 */
static bool after_call(uintptr_t ret)
{
	const uint8_t *p = (const uint8_t *)ret;

	if (p[-5] == 0xe8)
		return true;
	for (unsigned len = 2; len <= 7; len++)
		if (p[-(int)len] == 0xff && ((p[-(int)len + 1] >> 3) & 7) == 2)
			return true;
	return false;
}

/*
 * The interrupted function has no frame of its own at rip (a leaf without
 * one, or rip in its set-up or at its ret): its return address is on the
 * stack near sp. Returns the address of that stack slot, or 0.
 */
static uintptr_t find_return_slot(uintptr_t sp, uintptr_t lo, uintptr_t hi)
{
	for (unsigned i = 0; i < 16 && sp >= lo && sp + 8 <= hi; i++, sp += 8) {
		uintptr_t v = *(const uintptr_t *)sp;

		if (ksyms_index(v - 1) >= 0 && after_call(v))
			return sp;
	}
	return 0;
}

/* Fill e->sym with the functions on the stack at (rip, sp, fp), leaf first. */
static void walk(struct stack_entry *e, uintptr_t rip, uintptr_t sp, uintptr_t fp,
		 const struct task *t)
{
	uintptr_t lo, hi, func;
	long i = ksyms_index(rip);

	e->depth = 0;
	if (i < 0)
		return;
	e->sym[e->depth++] = (uint32_t)i;
	stack_bounds(t, &lo, &hi);
	func = ksyms_table[i].addr;
	unsigned setup = frame_setup_end((const uint8_t *)func);
	if (!setup || rip < func + setup || *(const uint8_t *)rip == 0xc3) {
		uintptr_t slot = find_return_slot(sp, lo, hi);

		if (slot) {
			i = ksyms_index(*(const uintptr_t *)slot - 1);
			e->sym[e->depth++] = (uint32_t)i;
			/* skip frames below the slot (the function's own, made after a shrink-wrapped start) */
			for (unsigned n = 0; n < 4 && fp >= lo && fp + 16 <= hi && fp < slot; n++)
				fp = *(const uintptr_t *)fp;
		}
	}
	while (e->depth < STACK_DEPTH && fp >= lo && fp + 16 <= hi && (fp & 7) == 0) {
		const uintptr_t *frame = (const uintptr_t *)fp;

		/* a return address may be just past the end of a noreturn call's function */
		i = frame[1] ? ksyms_index(frame[1] - 1) : -1;
		if (i < 0)
			break;
		e->sym[e->depth++] = (uint32_t)i;
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
}

uintptr_t profile_entry_rip(const struct task *t)
{
	if (!t || t->kthread_fn || t->is_idle || !t->tf || t->tf->cs != USER_CS)
		return 0;
	return t->tf->rip;
}

static uint32_t hash_entry(const struct stack_entry *e)
{
	uint32_t h = (2166136261u ^ e->user ^ (uint32_t)e->entry) * 16777619u;

	for (unsigned i = 0; i < e->depth; i++)
		h = (h ^ e->sym[i]) * 16777619u;
	for (unsigned i = 0; i < TASK_COMM_LEN && e->comm[i]; i++)
		h = (h ^ (uint8_t)e->comm[i]) * 16777619u;
	return h;
}

static bool same_stack(const struct stack_entry *a, const struct stack_entry *b)
{
	return a->user == b->user && a->depth == b->depth && a->entry == b->entry &&
	       strncmp(a->comm, b->comm, TASK_COMM_LEN) == 0 &&
	       memcmp(a->sym, b->sym, a->depth * sizeof(a->sym[0])) == 0;
}

void profile_stacks_record(uintptr_t rip, uintptr_t sp, uintptr_t fp, bool user)
{
	const struct task *t = current;
	struct stack_entry e;
	unsigned long flags;

	if (!table)
		return;
	memset(&e, 0, sizeof(e));
	e.user = user;
	if (t)
		memcpy(e.comm, t->comm, strnlen(t->comm, TASK_COMM_LEN - 1));
	if (!user)
		walk(&e, rip, sp, fp, t);
	if (!user && record_entry)
		e.entry = profile_entry_rip(t);
	flags = spin_lock_irqsave(&stacks_lock);
	for (uint32_t h = hash_entry(&e), n = 0; n < STACK_SLOTS; h++, n++) {
		struct stack_entry *s = &table[h & (STACK_SLOTS - 1)];

		if (s->count == 0) {
			*s = e;
			s->count = 1;
			goto out;
		}
		if (same_stack(s, &e)) {
			s->count++;
			goto out;
		}
	}
	dropped++;
out:
	spin_unlock_irqrestore(&stacks_lock, flags);
}

static void print_entry(const struct stack_entry *s)
{
	printk("%s", s->comm[0] ? s->comm : "?");
	if (s->user)
		printk(";[user]");
	if (s->entry)
		printk(";[user@0x%lx]", (unsigned long)s->entry);
	for (unsigned i = s->depth; i > 0; i--)
		printk(";%s", ksyms_table[s->sym[i - 1]].name);
	if (!s->user && s->depth == 0)
		printk(";[unknown]");
	printk(" %u\n", s->count);
}

void profile_stacks_print(void)
{
	if (!table)
		return;
	for (unsigned i = 0; i < STACK_SLOTS; i++)
		if (table[i].count)
			print_entry(&table[i]);
	if (dropped)
		printk("[dropped] %llu\n", (unsigned long long)dropped);
}

uint64_t profile_stacks_samples(uintptr_t leaf, uintptr_t caller)
{
	long l = ksyms_index(leaf), c = ksyms_index(caller);
	uint64_t n = 0;

	if (!table || l < 0 || c < 0)
		return 0;
	for (unsigned i = 0; i < STACK_SLOTS; i++) {
		const struct stack_entry *s = &table[i];

		if (s->count && !s->user && s->depth >= 2 && s->sym[0] == (uint32_t)l &&
		    s->sym[1] == (uint32_t)c)
			n += s->count;
	}
	return n;
}
