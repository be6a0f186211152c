/*
 * User-mode samples by instruction (include/profile.h): the profiler
 * counts each user-mode sample under (task name, interrupted RIP) in an
 * open-addressing table, so that the host can name the program's
 * functions from its ELF symbol table (tools/profile/profilelib.py:
 * resolve_user) instead of one opaque "user" line. Linux's perf does the
 * same split: the kernel records addresses, user space symbolizes them.
 *
 * Printed after the table as
 *     # profile-user begin
 *     COMM 0xRIP COUNT          (one line per distinct pair, any order)
 *     [dropped] N               (samples that found the table full)
 *     # profile-user end
 *
 * Locking: only the boot CPU samples (arch/x86_64/lapic.c), from its timer
 * interrupt; reset and print run while sampling is stopped
 * (kernel/profile/profile.c), so the table needs no lock.
 */
#include "profile.h"
#include "printk.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "task.h"

#define USER_SLOTS 8192                 /* distinct (comm, rip) pairs, a power of two */

struct user_sample {
	uintptr_t rip;
	uint32_t count;                 /* 0: slot free */
	char comm[TASK_COMM_LEN];
};

static struct user_sample *user_table;
static uint64_t user_dropped;

int profile_user_reset(void)
{
	if (!user_table) {
		user_table = kzalloc(USER_SLOTS * sizeof(*user_table));
		if (!user_table)
			return -ENOMEM;
	}
	memset(user_table, 0, USER_SLOTS * sizeof(*user_table));
	user_dropped = 0;
	return 0;
}

static uint32_t user_hash(uintptr_t rip, const char *comm)
{
	uint64_t h = rip * 0x9e3779b97f4a7c15ULL;

	for (unsigned i = 0; i < TASK_COMM_LEN && comm[i]; i++)
		h = (h ^ (uint8_t)comm[i]) * 0x100000001b3ULL;
	return (uint32_t)(h >> 32);
}

void profile_user_record(uintptr_t rip)
{
	const struct task *t = current;
	char comm[TASK_COMM_LEN];

	if (!user_table)
		return;
	memset(comm, 0, sizeof(comm));
	if (t)
		memcpy(comm, t->comm, strnlen(t->comm, TASK_COMM_LEN - 1));
	for (uint32_t h = user_hash(rip, comm), n = 0; n < USER_SLOTS; h++, n++) {
		struct user_sample *s = &user_table[h & (USER_SLOTS - 1)];

		if (s->count == 0) {
			s->rip = rip;
			memcpy(s->comm, comm, sizeof(comm));
			s->count = 1;
			return;
		}
		if (s->rip == rip && memcmp(s->comm, comm, sizeof(comm)) == 0) {
			s->count++;
			return;
		}
	}
	user_dropped++;
}

void profile_user_print(void)
{
	printk("# profile-user begin\n");
	for (unsigned i = 0; user_table && i < USER_SLOTS; i++)
		if (user_table[i].count)
			printk("%s 0x%lx %u\n", user_table[i].comm[0] ? user_table[i].comm : "?",
			       (unsigned long)user_table[i].rip, user_table[i].count);
	if (user_dropped)
		printk("[dropped] %llu\n", (unsigned long long)user_dropped);
	printk("# profile-user end\n");
}

uint64_t profile_user_samples_in(uintptr_t start, uintptr_t end)
{
	uint64_t n = 0;

	for (unsigned i = 0; user_table && i < USER_SLOTS; i++)
		if (user_table[i].count && user_table[i].rip >= start && user_table[i].rip < end)
			n += user_table[i].count;
	return n;
}
