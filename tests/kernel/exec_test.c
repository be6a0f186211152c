/*
 * The ELF loader: a small valid static executable built here by hand loads
 * (segments, brk, stack with argv/envp/auxv as Linux lays them out), and
 * every kind of broken file is rejected with -ENOEXEC without leaking.
 *
 * The test image: ELF header, one program header, then 16 bytes of code,
 * all in one PT_LOAD at file offset 0 mapped at 0x400000 (r-x), plus a
 * second PT_LOAD for data at 0x401000 (rw-, 8 bytes in the file, 0x2000 in
 * memory: bss). Entry 0x4000e8 (just after the program headers: two used,
 * a third for PT_INTERP when a test asks for one, whose name is at the end).
 *
 * Dynamic linking: the same image as ET_DYN at 0 serves as the interpreter
 * a program with PT_INTERP names; its load address (AT_BASE), entry and the
 * program's AT_ENTRY/AT_PHDR are checked, and each way a PT_INTERP can be
 * wrong gets Linux's errno (load_elf_binary, do_open_execat).
 */
#include "ktest.h"
#include "exec.h"
#include "file.h"
#include "mm.h"
#include "pmm.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"

struct img {
	uint8_t e_ident[16];
	uint16_t e_type, e_machine;
	uint32_t e_version;
	uint64_t e_entry, e_phoff, e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
	struct {
		uint32_t p_type, p_flags;
		uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
	} ph[3];
	uint8_t code[16];
	uint8_t data[8];
	char interp[24];
} __attribute__((packed));

static void make_image(struct img *m)
{
	memset(m, 0, sizeof(*m));
	memcpy(m->e_ident, "\177ELF\2\1\1", 7);
	m->e_type = 2;
	m->e_machine = 62;
	m->e_version = 1;
	m->e_phoff = 64;
	m->e_entry = 0x400000 + offsetof(struct img, code);
	m->e_ehsize = 64;
	m->e_phentsize = 56;
	m->e_phnum = 2;
	m->ph[0].p_type = 1;
	m->ph[0].p_flags = 5;                   /* r-x */
	m->ph[0].p_offset = 0;
	m->ph[0].p_vaddr = 0x400000;
	m->ph[0].p_filesz = m->ph[0].p_memsz = offsetof(struct img, data);
	m->ph[1].p_type = 1;
	m->ph[1].p_flags = 6;                   /* rw- */
	m->ph[1].p_offset = offsetof(struct img, data);
	m->ph[1].p_vaddr = 0x401000 + offsetof(struct img, data);
	m->ph[1].p_filesz = 8;
	m->ph[1].p_memsz = 0x2000;
	memcpy(m->code, "\x0f\x05\xeb\xfc", 4); /* syscall; jmp back */
	memcpy(m->data, "DATADATA", 8);
}

static size_t copy_in(void *arg, size_t done, void *kaddr, size_t n)
{
	memcpy(kaddr, (const char *)arg + done, n);
	return 0;
}

/* exec_build of the bytes [elf, elf + size) put in a file of no directory, as exec reads a program. */
static int build(const void *elf, size_t size, const char *const *argv, const char *const *envp,
		 struct exec_image *ex)
{
	struct dentry *d = fs_create_unlinked("prog", 0755);
	struct file *f;
	int err;

	if (!d)
		return -ENOMEM;
	if (size && fs_write(d->inode, 0, size, copy_in, (void *)elf) != (long)size) {
		dput(d);
		return -ENOSPC;
	}
	err = (int)file_open_dentry(d, O_RDONLY, &f);
	if (err) {
		dput(d);
		return err;
	}
	err = exec_build(f, "/prog", argv, envp, ex);
	file_put(f);
	return err;
}

/* Drop what a successful build made. */
static void unbuild(struct exec_image *ex)
{
	mm_put(ex->mm);
	dput(ex->exe);
}

/* ---------------------------------------------------------- PT_INTERP */

#define INTERP_NAME "vmk-exec-test-ld"

/* A file name (in "/") holding size bytes of data, with mode. */
static int put_file(const char *name, const void *data, size_t size, uint32_t mode)
{
	struct dentry *d;
	int err = fs_create(fs_root(), name, strlen(name), S_IFREG | mode, 0, NULL, &d);

	if (err)
		return err;
	if (fs_write(d->inode, 0, size, copy_in, (void *)data) != (long)size)
		err = -ENOSPC;
	dput(d);
	return err;
}

/* The program image naming path (filesz bytes of it, NUL included normally) as its interpreter. */
static void make_dynamic(struct img *m, const char *path, size_t filesz)
{
	make_image(m);
	m->e_phnum = 3;
	m->ph[2].p_type = 3;                    /* PT_INTERP */
	m->ph[2].p_offset = offsetof(struct img, interp);
	m->ph[2].p_filesz = filesz;
	memcpy(m->interp, path, MIN(strlen(path), sizeof(m->interp) - 1));
}

/* The image as a position-independent interpreter: ET_DYN, segments from address 0. */
static void make_interp(struct img *m)
{
	make_image(m);
	m->e_type = 3;
	m->ph[0].p_vaddr = 0;
	m->ph[1].p_vaddr = 0x1000 + offsetof(struct img, data);
	m->e_entry = offsetof(struct img, code);
}

/* The value of auxv entry type in ex's initial stack (argc 1, no environment), or ~0. */
static uint64_t auxv_get(struct exec_image *ex, uint64_t type)
{
	uint64_t w[4 + 48];

	if (mm_copy_from(ex->mm, w, ex->sp, sizeof(w)))
		return ~0UL;
	for (size_t i = 4; i + 1 < ARRAY_SIZE(w) && w[i]; i += 2)
		if (w[i] == type)
			return w[i + 1];
	return ~0UL;
}

/* The interpreter loads where mmap(NULL) would put it; the program's own entry and headers go to auxv. */
static void test_interp_loads(struct ktest *t)
{
	static const char *const argv[] = { "prog", NULL };
	struct img m, in;
	struct exec_image ex;
	uint64_t base;
	struct vma *v;
	size_t free0;

	mm_put(mm_create());
	slab_shrink_all();
	free0 = pmm_free_frames();
	make_interp(&in);
	ASSERT_EQ(t, put_file(INTERP_NAME, &in, sizeof(in), 0755), 0);
	make_dynamic(&m, "/" INTERP_NAME, sizeof("/" INTERP_NAME));
	ASSERT_EQ(t, build(&m, sizeof(m), argv, argv + 1, &ex), 0);
	base = auxv_get(&ex, 7);                /* AT_BASE */
	EXPECT_NE(t, base, 0);
	EXPECT_EQ(t, base & (PAGE_SIZE - 1), 0);
	EXPECT_GT(t, base, 0x400000);
	EXPECT_LT(t, base, STACK_TOP - STACK_EXPAND);
	/* the interpreter runs first; the program's entry and headers are in auxv for it */
	EXPECT_EQ(t, ex.entry, base + offsetof(struct img, code));
	EXPECT_EQ(t, auxv_get(&ex, 9), 0x400000 + offsetof(struct img, code));   /* AT_ENTRY */
	EXPECT_EQ(t, auxv_get(&ex, 3), 0x400000 + 64);                         /* AT_PHDR */
	EXPECT_EQ(t, auxv_get(&ex, 5), 3);                                      /* AT_PHNUM */
	/* its text mapped from its file, its data segment's bytes at base + 0x1000 + offset */
	mmap_read_lock(ex.mm);
	v = vma_lookup(ex.mm, base);
	EXPECT_TRUE(t, v && v->start == base && v->file && (v->flags & VM_EXEC));
	mmap_read_unlock(ex.mm);
	{
		char d[9] = "";

		ASSERT_EQ(t, mm_copy_from(ex.mm, d, base + 0x1000 + offsetof(struct img, data), 8), 0);
		EXPECT_STREQ(t, d, "DATADATA");
	}
	unbuild(&ex);
	EXPECT_EQ(t, fs_unlink(fs_root(), INTERP_NAME, strlen(INTERP_NAME)), 0);
	slab_shrink_all();
	EXPECT_EQ(t, pmm_free_frames(), free0);
}

/* Each way PT_INTERP can be wrong, with Linux's errno; nothing leaks. */
static void test_interp_errors(struct ktest *t)
{
	static const char *const argv[] = { "prog", NULL };
	static const char text[] = "#!/bin/sh\nnot an ELF file\n";
	struct img m, in;
	struct exec_image ex;
	size_t free0;

	mm_put(mm_create());
	slab_shrink_all();
	free0 = pmm_free_frames();
	make_interp(&in);
	/* missing: ENOENT (the famous "No such file" of a binary whose loader is absent) */
	make_dynamic(&m, "/" INTERP_NAME, sizeof("/" INTERP_NAME));
	EXPECT_EQ(t, build(&m, sizeof(m), argv, argv + 1, &ex), -ENOENT);
	/* the name without its NUL, or too short: ENOEXEC */
	make_dynamic(&m, "/" INTERP_NAME, sizeof("/" INTERP_NAME) - 1);
	EXPECT_EQ(t, build(&m, sizeof(m), argv, argv + 1, &ex), -ENOEXEC);
	make_dynamic(&m, "/", 1);
	EXPECT_EQ(t, build(&m, sizeof(m), argv, argv + 1, &ex), -ENOEXEC);
	/* not executable: EACCES; a directory: EACCES */
	ASSERT_EQ(t, put_file(INTERP_NAME, &in, sizeof(in), 0644), 0);
	make_dynamic(&m, "/" INTERP_NAME, sizeof("/" INTERP_NAME));
	EXPECT_EQ(t, build(&m, sizeof(m), argv, argv + 1, &ex), -EACCES);
	EXPECT_EQ(t, fs_unlink(fs_root(), INTERP_NAME, strlen(INTERP_NAME)), 0);
	make_dynamic(&m, "/", 2);
	EXPECT_EQ(t, build(&m, sizeof(m), argv, argv + 1, &ex), -EACCES);
	/* not an ELF program: ELIBBAD */
	ASSERT_EQ(t, put_file(INTERP_NAME, text, sizeof(text) - 1, 0755), 0);
	make_dynamic(&m, "/" INTERP_NAME, sizeof("/" INTERP_NAME));
	EXPECT_EQ(t, build(&m, sizeof(m), argv, argv + 1, &ex), -ELIBBAD);
	EXPECT_EQ(t, fs_unlink(fs_root(), INTERP_NAME, strlen(INTERP_NAME)), 0);
	slab_shrink_all();
	EXPECT_EQ(t, pmm_free_frames(), free0);
}

static void test_valid_image(struct ktest *t)
{
	static const char *const argv[] = { "prog", "-x", NULL };
	static const char *const envp[] = { "A=1", NULL };
	struct img m;
	struct exec_image ex;
	uint64_t words[8];
	char s[8];
	struct vma *v;
	size_t free0;

	make_image(&m);
	mm_put(mm_create());            /* first-use allocations (zero page, caches) before measuring */
	slab_shrink_all();
	free0 = pmm_free_frames();
	ASSERT_EQ(t, elf_check(&m, sizeof(m)), 0);
	ASSERT_EQ(t, build(&m, sizeof(m), argv, envp, &ex), 0);
	EXPECT_EQ(t, ex.entry, 0x400000 + offsetof(struct img, code));
	EXPECT_EQ(t, ex.sp & 15, 0);
	/* argc, argv[0], argv[1], NULL, envp[0], NULL */
	ASSERT_EQ(t, mm_copy_from(ex.mm, words, ex.sp, 6 * 8), 0);
	EXPECT_EQ(t, words[0], 2);
	EXPECT_EQ(t, words[3], 0);
	EXPECT_EQ(t, words[5], 0);
	ASSERT_EQ(t, mm_copy_from(ex.mm, s, words[1], 5), 0);
	EXPECT_STREQ(t, s, "prog");
	ASSERT_EQ(t, mm_copy_from(ex.mm, s, words[4], 4), 0);
	EXPECT_STREQ(t, s, "A=1");
	/* strings in order argv[0], argv[1], envp[0] (Linux copies them that way) */
	EXPECT_LT(t, words[1], words[2]);
	EXPECT_LT(t, words[2], words[4]);
	/* the data segment's file bytes and its zeroed bss */
	ASSERT_EQ(t, mm_copy_from(ex.mm, s, 0x401000 + offsetof(struct img, data), 8), 0);
	EXPECT_EQ(t, memcmp(s, "DATADATA", 8), 0);
	ASSERT_EQ(t, mm_copy_from(ex.mm, words, 0x402000, 8), 0);
	EXPECT_EQ(t, words[0], 0);

	mmap_read_lock(ex.mm);
	v = vma_lookup(ex.mm, 0x400000);
	EXPECT_TRUE(t, v && (v->flags & (VM_READ | VM_WRITE | VM_EXEC)) == (VM_READ | VM_EXEC));
	v = vma_lookup(ex.mm, 0x402000);
	EXPECT_TRUE(t, v && (v->flags & (VM_READ | VM_WRITE | VM_EXEC)) == (VM_READ | VM_WRITE));
	v = vma_lookup(ex.mm, STACK_TOP - 1);
	EXPECT_TRUE(t, v && (v->flags & VM_GROWSDOWN) && v->end == STACK_TOP);
	/* small arguments: [stack] is 7ffffffde000-7ffffffff000 as on Linux with ASLR off */
	EXPECT_EQ(t, v ? v->start : 0, 0x7ffffffde000UL);
	/* brk starts at the page after the highest segment end: 0x4010c0 + 0x2000 -> 0x404000 */
	EXPECT_EQ(t, ex.mm->start_brk, 0x404000);
	mmap_read_unlock(ex.mm);

	unbuild(&ex);
	slab_shrink_all();
	EXPECT_EQ(t, pmm_free_frames(), free0);
}

/* Each corruption of the valid image, and the loader must say -ENOEXEC. */
static void test_bad_images(struct ktest *t)
{
	static const char *const argv[] = { "prog", NULL };
	struct img m;
	struct exec_image ex;
	size_t free0;

#define BAD(stmt, size) do { \
	make_image(&m); \
	stmt; \
	EXPECT_EQ(t, elf_check(&m, size), -ENOEXEC); \
	EXPECT_EQ(t, build(&m, size, argv, argv + 1, &ex), -ENOEXEC); \
} while (0)
	mm_put(mm_create());
	slab_shrink_all();
	free0 = pmm_free_frames();
	BAD((void)0, 10);                                       /* truncated header */
	BAD(m.e_ident[0] = 0x7e, sizeof(m));                    /* bad magic */
	BAD(m.e_ident[4] = 1, sizeof(m));                       /* ELFCLASS32 */
	BAD(m.e_ident[5] = 2, sizeof(m));                       /* big endian */
	BAD(m.e_machine = 3, sizeof(m));                        /* i386 */
	BAD(m.e_type = 1, sizeof(m));                           /* ET_REL */
	BAD(m.e_phentsize = 32, sizeof(m));
	BAD(m.e_phnum = 0, sizeof(m));
	BAD(m.e_phnum = 1000, sizeof(m));
	BAD(m.e_phoff = sizeof(m) - 8, sizeof(m));              /* headers past the end */
	BAD(m.e_phoff = ~0UL - 8, sizeof(m));                   /* offset + size wraps */
	BAD(m.ph[0].p_filesz = m.ph[0].p_memsz + 1, sizeof(m)); /* filesz > memsz */
	BAD(m.ph[1].p_offset = sizeof(m), sizeof(m));           /* data past the end */
	BAD(m.ph[1].p_offset = ~0UL, sizeof(m));
	BAD(m.ph[1].p_vaddr += 1, sizeof(m));                   /* offset and address not congruent */
	BAD(m.ph[1].p_vaddr = 0xffffffff80000000UL + offsetof(struct img, data), sizeof(m));
	BAD(m.ph[1].p_memsz = ~0UL, sizeof(m));                 /* wraps */
	BAD((m.ph[0].p_vaddr = 0x500000, m.e_entry = 0x500000), sizeof(m));   /* unsorted, overlapping */
	BAD((m.ph[0].p_type = 4, m.ph[1].p_type = 4), sizeof(m));       /* no PT_LOAD */
	BAD((m.ph[0].p_vaddr = 0, m.e_entry = 0x78), sizeof(m));        /* below mmap_min_addr */
	BAD(m.e_entry = 0xffff800000000000UL, sizeof(m));       /* entry not a user address */
#undef BAD
	/* PT_INTERP: not static (elf_check); exec looks for the interpreter its bytes name (Linux: ENOENT) */
	make_image(&m);
	m.ph[0].p_type = 3;
	EXPECT_EQ(t, elf_check(&m, sizeof(m)), -ENOEXEC);
	EXPECT_EQ(t, build(&m, sizeof(m), argv, argv + 1, &ex), -ENOENT);
	/* too many argument bytes */
	{
		static char big[EXEC_ARG_MAX];
		const char *bigv[] = { "prog", big, NULL };

		memset(big, 'a', sizeof(big) - 1);
		make_image(&m);
		EXPECT_EQ(t, build(&m, sizeof(m), bigv, argv + 1, &ex), -E2BIG);
	}
	slab_shrink_all();
	EXPECT_EQ(t, pmm_free_frames(), free0);
}

static const struct ktest_case exec_cases[] = {
	KTEST_CASE(test_valid_image),
	KTEST_CASE(test_bad_images),
	KTEST_CASE(test_interp_loads),
	KTEST_CASE(test_interp_errors),
	{ 0 },
};

static const struct ktest_suite exec_suite = {
	"exec", exec_cases, 0, NULL, NULL, NULL, KTEST_KERNEL_ONLY,
};
KTEST_REGISTER(exec_suite);
