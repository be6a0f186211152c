/*
 * arch_mmu_dump, the page-table printer (arch/x86_64/ptdump.c; the
 * page-table lab, docs/labs/pgtbl.md, has the student write it). Pages are
 * mapped with arch_mmu_map at chosen addresses, so the tree's shape is
 * known: the indexes and addresses below are worked out from the x86-64
 * 4-level split of a virtual address (9 bits per level above the 12-bit
 * offset). Table pages come from the allocator, so their addresses are
 * checked only to be page aligned and distinct; a leaf's frame is the one
 * mapped, its flags the state arch_mmu_query reports. Also the VMA half
 * of mm_dump (mm/dump.c), which vmk_vmdump prints next to the tree.
 */
#include "ktest.h"
#include "arch_mmu.h"
#include "pmm.h"
#include "kstring.h"
#include "printk.h"
#include "mm.h"
#include "mm/internal.h"

#define MAX_LINES 24
#define LINE_LEN 160

struct captured {
	unsigned n;
	char line[MAX_LINES][LINE_LEN];
};

static void capture(void *arg, const char *line)
{
	struct captured *c = arg;

	if (c->n < MAX_LINES)
		ksnprintf(c->line[c->n], LINE_LEN, "%s", line);
	c->n++;
}

/* "rwx ad" letters of a state, as the dump format spells them. */
static void flags_of(char *out, unsigned st)
{
	ksnprintf(out, 8, "%c%c%c %c%c", st & MMU_READ ? 'r' : '-', st & MMU_WRITE ? 'w' : '-',
		  st & MMU_EXEC ? 'x' : '-', st & MMU_ACCESSED ? 'a' : '-', st & MMU_DIRTY ? 'd' : '-');
}

/*
 * Does got equal want, where "T" in want stands for a table address
 * ("0x" and hex digits, page aligned, not 0)? The address is stored in *table.
 */
static bool line_matches(const char *got, const char *want, unsigned long long *table)
{
	const char *t = strchr(want, 'T');
	size_t pre = t ? (size_t)(t - want) : strlen(want);
	unsigned long long v = 0;
	const char *p;

	if (strncmp(got, want, pre) != 0)
		return false;
	if (!t)
		return strcmp(got, want) == 0;
	p = got + pre;
	if (p[0] != '0' || p[1] != 'x')
		return false;
	for (p += 2; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
		v = v * 16 + (unsigned)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	*table = v;
	return v && !(v & (PAGE_SIZE - 1)) && strcmp(p, t + 1) == 0;
}

struct fixture {
	struct arch_mmu *m;
	struct page *frame[4];
	phys_addr_t pa[4];
	char flags[4][8];
};

#define VA_TEXT 0x400000UL            /* L4[0] L3[0] L2[2] L1[0] */
#define VA_DATA 0x401000UL            /* ... L1[1] */
#define VA_NONE 0x402000UL            /* ... L1[2], PROT_NONE */
#define VA_TOP  0x7ffffffff000UL      /* L4[255] L3[511] L2[511] L1[511]: the last user page */

static const uintptr_t fixture_va[4] = { VA_TEXT, VA_DATA, VA_NONE, VA_TOP };
static const unsigned fixture_prot[4] = {
	MMU_READ | MMU_EXEC, MMU_READ | MMU_WRITE | MMU_ACCESSED | MMU_DIRTY, 0, MMU_READ,
};

static bool fixture_setup(struct ktest *t, struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->m = arch_mmu_create();
	if (!f->m)
		return false;
	for (int i = 0; i < 4; i++) {
		unsigned st = 0;

		f->frame[i] = pmm_alloc(0, GFP_ZERO);
		if (!f->frame[i] || arch_mmu_map(f->m, fixture_va[i], page_to_phys(f->frame[i]),
						 fixture_prot[i]))
			return false;
		f->pa[i] = page_to_phys(f->frame[i]);
		EXPECT_EQ(t, arch_mmu_query(f->m, fixture_va[i], NULL, &st), 0);
		flags_of(f->flags[i], st);
	}
	return true;
}

static enum mmu_action clear_all(void *arg, uintptr_t va, phys_addr_t pa, unsigned *state)
{
	return MMU_CLEAR;
}

static void fixture_teardown(struct fixture *f)
{
	if (f->m) {
		arch_mmu_walk(f->m, 0, 1UL << 47, clear_all, NULL, NULL);
		arch_mmu_destroy(f->m);
	}
	for (int i = 0; i < 4; i++)
		if (f->frame[i])
			pmm_free(f->frame[i], 0);
}

/* Compare the captured dump with want[] line by line; table addresses must be distinct. */
static void expect_lines(struct ktest *t, const struct captured *c, char want[][LINE_LEN], unsigned n)
{
	unsigned long long tables[MAX_LINES];
	unsigned ntables = 0;

	EXPECT_EQ(t, c->n, n);
	for (unsigned i = 0; i < n && i < c->n; i++) {
		unsigned long long tab = 0;

		if (!line_matches(c->line[i], want[i], &tab))
			ktest_fail(t, __FILE__, __LINE__, "line %u: got '%s', want '%s'", i, c->line[i],
				   want[i]);
		for (unsigned j = 0; tab && j < ntables; j++)
			EXPECT_NE(t, tables[j], tab);
		if (tab)
			tables[ntables++] = tab;
	}
}

/* want[0..3]: the root line and the table lines down to the page table holding 0x400000. */
static void want_path_to_text(char want[][LINE_LEN], struct arch_mmu *m)
{
	ksnprintf(want[0], LINE_LEN, "page table 0x%llx", (unsigned long long)arch_mmu_root(m));
	ksnprintf(want[1], LINE_LEN, " .. L4[0] va 0x0 -> table T");
	ksnprintf(want[2], LINE_LEN, " .. .. L3[0] va 0x0 -> table T");
	ksnprintf(want[3], LINE_LEN, " .. .. .. L2[2] va 0x400000 -> table T");
}

/* The whole user half: the path to 0x400000's table (three leaves) and the path to the last page. */
static void test_dump_tree(struct ktest *t)
{
	static struct fixture f;
	static struct captured c;
	static char want[11][LINE_LEN];
	unsigned long leaves;

	ASSERT_TRUE(t, fixture_setup(t, &f));
	c.n = 0;
	leaves = arch_mmu_dump(f.m, 0, 1UL << 47, capture, &c);
	EXPECT_EQ(t, leaves, 4);
	want_path_to_text(want, f.m);
	ksnprintf(want[4], LINE_LEN, " .. .. .. .. L1[0] va 0x400000 -> page 0x%llx %s",
		  (unsigned long long)f.pa[0], f.flags[0]);
	ksnprintf(want[5], LINE_LEN, " .. .. .. .. L1[1] va 0x401000 -> page 0x%llx %s",
		  (unsigned long long)f.pa[1], f.flags[1]);
	ksnprintf(want[6], LINE_LEN, " .. .. .. .. L1[2] va 0x402000 -> page 0x%llx --- --",
		  (unsigned long long)f.pa[2]);
	ksnprintf(want[7], LINE_LEN, " .. L4[255] va 0x7f8000000000 -> table T");
	ksnprintf(want[8], LINE_LEN, " .. .. L3[511] va 0x7fffc0000000 -> table T");
	ksnprintf(want[9], LINE_LEN, " .. .. .. L2[511] va 0x7fffffe00000 -> table T");
	ksnprintf(want[10], LINE_LEN, " .. .. .. .. L1[511] va 0x7ffffffff000 -> page 0x%llx %s",
		  (unsigned long long)f.pa[3], f.flags[3]);
	expect_lines(t, &c, want, 11);
	/* The flags columns are the mapped permissions (r-x, rw- with a and d, r--) where x86 can express them. */
	EXPECT_STREQ(t, f.flags[1], "rw- ad");
	EXPECT_EQ(t, f.flags[0][0], 'r');
	EXPECT_EQ(t, f.flags[0][2], 'x');
	fixture_teardown(&f);
}

/* A range holding one leaf: only the tables on its path and that leaf. */
static void test_dump_range(struct ktest *t)
{
	static struct fixture f;
	static struct captured c;
	static char want[5][LINE_LEN];

	ASSERT_TRUE(t, fixture_setup(t, &f));
	c.n = 0;
	EXPECT_EQ(t, arch_mmu_dump(f.m, VA_DATA, VA_DATA + PAGE_SIZE, capture, &c), 1);
	want_path_to_text(want, f.m);
	ksnprintf(want[4], LINE_LEN, " .. .. .. .. L1[1] va 0x401000 -> page 0x%llx %s",
		  (unsigned long long)f.pa[1], f.flags[1]);
	expect_lines(t, &c, want, 5);
	/*
	 * Nothing mapped in [256 MiB, 512 MiB): the L4[0] and L3[0] entries
	 * cover it (the first 512 GiB and 1 GiB), the L2 entry 2 does not.
	 */
	c.n = 0;
	EXPECT_EQ(t, arch_mmu_dump(f.m, 0x10000000UL, 0x20000000UL, capture, &c), 0);
	expect_lines(t, &c, want, 3);
	fixture_teardown(&f);
}

/* A new address space: the root line only, in the kernel too (its kernel half is not shown). */
static void test_dump_empty(struct ktest *t)
{
	static struct captured c;
	struct arch_mmu *m = arch_mmu_create();
	char want[LINE_LEN];

	ASSERT_TRUE(t, m != NULL);
	c.n = 0;
	EXPECT_EQ(t, arch_mmu_dump(m, 0, 1UL << 47, capture, &c), 0);
	ksnprintf(want, sizeof(want), "page table 0x%llx", (unsigned long long)arch_mmu_root(m));
	EXPECT_EQ(t, c.n, 1);
	EXPECT_STREQ(t, c.line[0], want);
	arch_mmu_destroy(m);
}

/* Flag names in bit order, unknown bits in hex at the end. */
static void test_vm_flags_format(struct ktest *t)
{
	char buf[200];

	EXPECT_EQ(t, vm_flags_format(buf, sizeof(buf), VM_READ | VM_WRITE | VM_GROWSDOWN | 0x800UL),
		  strlen("read write growsdown 0x800"));
	EXPECT_STREQ(t, buf, "read write growsdown 0x800");
	vm_flags_format(buf, sizeof(buf), 0);
	EXPECT_STREQ(t, buf, "");
	vm_flags_format(buf, 10, VM_READ | VM_MAYREAD | VM_MAYWRITE);
	EXPECT_STREQ(t, buf, "read mayr");          /* truncated to the buffer, terminated */
}

/*
 * mm_dump's VMA lines: a written private mapping has an anon identity, a
 * never-touched one has none ("anon -"); pgoff is the address in pages,
 * as mmap gives anonymous memory. The flag list is vm_flags_format's.
 */
static void test_mm_dump_vmas(struct ktest *t)
{
	static struct captured c;
	struct mm *mm = mm_create();
	char flags[200], want[LINE_LEN];
	uint8_t one = 1;
	struct vma *v;

	ASSERT_TRUE(t, mm != NULL);
	ASSERT_EQ(t, vm_mmap(mm, 0x10000000UL, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), 0x10000000L);
	ASSERT_EQ(t, vm_mmap(mm, 0x20000000UL, PAGE_SIZE, PROT_READ,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), 0x20000000L);
	ASSERT_EQ(t, mm_soft_access(mm, 0x10000000UL, FAULT_WRITE, &one, 1), FAULT_OK);
	c.n = 0;
	mm_dump(mm, MM_DUMP_VMAS, capture, &c);
	ASSERT_EQ(t, c.n, 3);
	ksnprintf(want, sizeof(want), "vmas: 2 (index %s, rss 1, zero-page maps 0)", mm->index.ops->name);
	EXPECT_STREQ(t, c.line[0], want);
	mmap_read_lock(mm);
	v = vma_first(mm);
	vm_flags_format(flags, sizeof(flags), v->flags);
	ksnprintf(want, sizeof(want), "  0x10000000-0x10002000 rw-p pgoff 0x10000 anon %lu [%s]",
		  v->anon ? v->anon->id : 0UL, flags);
	EXPECT_STREQ(t, c.line[1], want);
	v = vma_next(mm, v);
	vm_flags_format(flags, sizeof(flags), v->flags);
	mmap_read_unlock(mm);
	ksnprintf(want, sizeof(want), "  0x20000000-0x20001000 r--p pgoff 0x20000 anon - [%s]", flags);
	EXPECT_STREQ(t, c.line[2], want);
	/* Both halves: the tree follows the VMA lines, its root line first. */
	c.n = 0;
	mm_dump(mm, MM_DUMP_VMAS | MM_DUMP_PAGES, capture, &c);
	ksnprintf(want, sizeof(want), "page table 0x%llx", (unsigned long long)arch_mmu_root(mm->mmu));
	EXPECT_STREQ(t, c.line[3], want);
	mm_put(mm);
}

static const struct ktest_case ptdump_cases[] = {
	KTEST_CASE(test_dump_empty),
	KTEST_CASE(test_dump_tree),
	KTEST_CASE(test_dump_range),
	KTEST_CASE(test_vm_flags_format),
	KTEST_CASE(test_mm_dump_vmas),
	{ NULL, NULL },
};

KTEST_SUITE(ptdump, ptdump_cases);
