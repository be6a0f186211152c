/*
 * The ELF64 loader (include/exec.h), as Linux's load_elf_binary:
 * reads and validates the headers from the file, maps each PT_LOAD segment
 * from the file (MAP_PRIVATE | MAP_FIXED with its own permissions, later
 * segments over earlier ones where they share a page), zeroes the rest of
 * the last file page of a segment whose bss starts there (padzero: a write,
 * which copies that page) and maps the rest of the bss as anonymous memory
 * (vm_brk_flags), sets the brk heap after the highest segment. A program
 * with PT_INTERP (dynamically linked) also gets its interpreter (e.g.
 * /lib64/ld-linux-x86-64.so.2), opened by path from the file system and
 * mapped the same way where mmap(NULL) would put it (load_elf_interp); it
 * starts at the interpreter's entry, with AT_BASE its load address and
 * AT_PHDR/AT_PHNUM/AT_ENTRY the program's. Unlike Linux, a failure to map
 * the interpreter fails the execve (Linux is past its point of no return
 * then and kills the process). Then the loader builds the initial stack as
 * Linux's create_elf_tables does, top down:
 *
 *   STACK_TOP  8 zero bytes
 *              argv strings, envp strings, AT_EXECFN string (ascending)
 *              (16-byte alignment) "x86_64" (AT_PLATFORM), 16 AT_RANDOM bytes
 *              (padding)
 *   sp + ..    auxv pairs ending with AT_NULL
 *              NULL, envp[envc-1] .. envp[0]  (ascending: envp[0] first)
 *              NULL, argv pointers
 *   sp         argc                          (sp 16-byte aligned)
 *
 * The [stack] VMA is [page of the lowest string - STACK_EXPAND, STACK_TOP),
 * VM_GROWSDOWN, as after Linux's setup_arg_pages (7ffffffde000-7ffffffff000
 * for small arguments, as with ASLR off).
 */
#include "exec.h"
#include "task.h"
#include "mm.h"
#include "x86.h"
#include "pmm.h"
#include "slab.h"
#include "kstring.h"
#include "kerrno.h"
#include "kernel.h"
#include "prng.h"
#include "file.h"
#include "uaccess.h"

/* ELF64 definitions (the System V gABI). */
struct elf64_ehdr {
	uint8_t e_ident[16];
	uint16_t e_type, e_machine;
	uint32_t e_version;
	uint64_t e_entry, e_phoff, e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
};

struct elf64_phdr {
	uint32_t p_type, p_flags;
	uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
};

#define ET_EXEC 2
#define ET_DYN  3
#define EM_X86_64 62
#define PT_LOAD 1
#define PT_INTERP 3
#define PT_PHDR 6
#define PT_GNU_STACK 0x6474e551
#define ELF_PF_X 1
#define ELF_PF_W 2
#define ELF_PF_R 4
#define ELF_MAX_PHNUM 64

/* Auxiliary vector types. */
#define AT_NULL 0
#define AT_PHDR 3
#define AT_PHENT 4
#define AT_PHNUM 5
#define AT_PAGESZ 6
#define AT_BASE 7
#define AT_FLAGS 8
#define AT_ENTRY 9
#define AT_UID 11
#define AT_EUID 12
#define AT_GID 13
#define AT_EGID 14
#define AT_PLATFORM 15
#define AT_HWCAP 16
#define AT_CLKTCK 17
#define AT_SECURE 23
#define AT_RANDOM 25
#define AT_HWCAP2 26
#define AT_EXECFN 31
#define AT_MINSIGSTKSZ 51

#define USER_HZ 100
#define MINSIGSTKSZ_VALUE 2048          /* our rt_sigframe + FXSAVE area fit well below this */

/* The headers of an ELF file as the loader uses them. */
struct elf_file {
	struct elf64_ehdr eh;
	struct elf64_phdr ph[ELF_MAX_PHNUM];
	uint64_t size;                  /* the file's size */
};

/* The ELF header's checks (the program headers must lie inside size bytes). */
static int elf_check_header(const struct elf64_ehdr *eh, uint64_t size)
{
	if (size < sizeof(*eh))
		return -ENOEXEC;
	if (memcmp(eh->e_ident, "\177ELF", 4) != 0 || eh->e_ident[4] != 2 /* 64-bit */ ||
	    eh->e_ident[5] != 1 /* little endian */ || eh->e_ident[6] != 1 /* version */)
		return -ENOEXEC;
	if ((eh->e_type != ET_EXEC && eh->e_type != ET_DYN) || eh->e_machine != EM_X86_64 ||
	    eh->e_version != 1)
		return -ENOEXEC;
	if (eh->e_phentsize != sizeof(struct elf64_phdr) || eh->e_phnum == 0 ||
	    eh->e_phnum > ELF_MAX_PHNUM)
		return -ENOEXEC;
	if (eh->e_phoff > size || size - eh->e_phoff < (uint64_t)eh->e_phnum * sizeof(struct elf64_phdr) ||
	    (eh->e_phoff & 7))
		return -ENOEXEC;
	if (eh->e_type == ET_EXEC && eh->e_entry >= TASK_SIZE / 2)
		return -ENOEXEC;        /* cannot be a user address (an ET_DYN entry is biased) */
	return 0;
}

/*
 * The program headers' checks: PT_LOAD segments inside the file, sorted,
 * congruent, in user space; a PT_INTERP only where interp allows it.
 */
static int elf_check_phdrs(const struct elf64_ehdr *eh, const struct elf64_phdr *ph, uint64_t size,
			   bool interp)
{
	uint64_t prev_end = 0;
	unsigned loads = 0;

	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const struct elf64_phdr *p = &ph[i];

		if (p->p_type == PT_INTERP && !interp)
			return -ENOEXEC;
		if (p->p_type != PT_LOAD || p->p_memsz == 0)
			continue;
		if (p->p_filesz > p->p_memsz || p->p_offset > size || size - p->p_offset < p->p_filesz)
			return -ENOEXEC;
		if (p->p_vaddr + p->p_memsz < p->p_vaddr || p->p_vaddr + p->p_memsz > TASK_SIZE / 2)
			return -ENOEXEC;        /* wraps, or leaves no room for a bias and the stack */
		if ((p->p_vaddr - p->p_offset) & (PAGE_SIZE - 1))
			return -ENOEXEC;
		if (p->p_vaddr < prev_end && ALIGN_DOWN(p->p_vaddr, PAGE_SIZE) < ALIGN_DOWN(prev_end - 1, PAGE_SIZE))
			return -ENOEXEC;        /* unsorted or overlapping beyond one shared page */
		if (eh->e_type == ET_EXEC && p->p_vaddr < MMAP_MIN_ADDR)
			return -ENOEXEC;
		prev_end = p->p_vaddr + p->p_memsz;
		loads++;
	}
	return loads ? 0 : -ENOEXEC;
}

int elf_check(const void *elf, size_t size)
{
	const struct elf64_ehdr *eh = elf;
	int err;

	if (!elf)
		return -ENOEXEC;
	err = elf_check_header(eh, size);
	return err ? err : elf_check_phdrs(eh, (const void *)((const uint8_t *)elf + eh->e_phoff), size, false);
}

static size_t copy_kernel(void *arg, size_t done, void *kaddr, size_t n)
{
	memcpy((char *)arg + done, kaddr, n);
	return 0;
}

/* Read and check the headers of the regular file f into ef. 0 or -ENOEXEC. */
static int elf_read(struct file *f, struct elf_file *ef)
{
	struct inode *inode = f->dentry->inode;
	size_t phbytes;
	int err;

	ef->size = fs_size(inode);
	if (fs_read(inode, 0, sizeof(ef->eh), copy_kernel, &ef->eh) != (long)sizeof(ef->eh))
		return -ENOEXEC;
	err = elf_check_header(&ef->eh, ef->size);
	if (err)
		return err;
	phbytes = ef->eh.e_phnum * sizeof(struct elf64_phdr);
	if (fs_read(inode, ef->eh.e_phoff, phbytes, copy_kernel, ef->ph) != (long)phbytes)
		return -ENOEXEC;
	return elf_check_phdrs(&ef->eh, ef->ph, ef->size, true);
}

static int prot_of(uint32_t pf)
{
	return ((pf & ELF_PF_R) ? PROT_READ : 0) | ((pf & ELF_PF_W) ? PROT_WRITE : 0) |
	       ((pf & ELF_PF_X) ? PROT_EXEC : 0);
}

/*
 * Linux's elf_load for one PT_LOAD segment p of f at bias: the file's
 * pages, the end of the last one zeroed when the bss starts in it, the
 * rest of the bss anonymous. 0 or -errno.
 */
static int load_segment(struct mm *mm, struct file *f, const struct elf64_phdr *p, uintptr_t bias)
{
	uintptr_t s = ALIGN_DOWN(p->p_vaddr + bias, PAGE_SIZE);
	uintptr_t file_end = p->p_vaddr + bias + p->p_filesz, mem_end = p->p_vaddr + bias + p->p_memsz;
	int prot = prot_of(p->p_flags);
	long r;

	if (p->p_filesz) {
		r = vm_mmap_pgoff(mm, s, ALIGN_UP(file_end, PAGE_SIZE) - s, prot, MAP_PRIVATE | MAP_FIXED,
				  &f->vm, ALIGN_DOWN(p->p_offset, PAGE_SIZE) >> PAGE_SHIFT);
		if (r < 0)
			return (int)r;
		if (mem_end > file_end && (file_end & (PAGE_SIZE - 1))) {
			static const char zeros[PAGE_SIZE];
			size_t n = ALIGN_UP(file_end, PAGE_SIZE) - file_end;

			/* padzero: errors only count in a writable segment */
			if (mm_copy_to(mm, file_end, zeros, n) && (prot & PROT_WRITE))
				return -EFAULT;
		}
		s = ALIGN_UP(file_end, PAGE_SIZE);
	}
	if (ALIGN_UP(mem_end, PAGE_SIZE) > s) {
		r = vm_mmap(mm, s, ALIGN_UP(mem_end, PAGE_SIZE) - s,
			    PROT_READ | PROT_WRITE | (prot & PROT_EXEC), MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
		if (r < 0)
			return (int)r;
	}
	return 0;
}

/* Map every PT_LOAD segment; *brk_out = the page-aligned end of the highest one. */
static int load_segments(struct mm *mm, struct file *f, const struct elf_file *ef, uintptr_t bias,
			 uintptr_t *brk_out)
{
	uintptr_t end = 0;

	for (unsigned i = 0; i < ef->eh.e_phnum; i++) {
		const struct elf64_phdr *p = &ef->ph[i];
		int err;

		if (p->p_type != PT_LOAD || p->p_memsz == 0)
			continue;
		err = load_segment(mm, f, p, bias);
		if (err)
			return err;
		end = MAX(end, ALIGN_UP(p->p_vaddr + bias + p->p_memsz, PAGE_SIZE));
	}
	*brk_out = end;
	return 0;
}

/* ------------------------------------------------------ the interpreter */

/* The program's interpreter (PT_INTERP) once opened: its file and headers. */
struct interp {
	struct file *f;
	struct elf_file ef;
};

/* The first PT_INTERP of ef (Linux looks no further), or NULL: a static program. */
static const struct elf64_phdr *find_interp(const struct elf_file *ef)
{
	for (unsigned i = 0; i < ef->eh.e_phnum; i++)
		if (ef->ph[i].p_type == PT_INTERP)
			return &ef->ph[i];
	return NULL;
}

/*
 * Open the interpreter PT_INTERP p of f names and read its headers (Linux
 * load_elf_binary): -ENOEXEC a name that is not 2..PATH_MAX bytes ending
 * with its NUL; -EIO a short read; exec_open's errors (ENOENT, EACCES...);
 * -ELIBBAD an interpreter that is no x86-64 ELF program; -ENOMEM.
 * 0 and *out (the caller's to free with interp_close).
 */
static int interp_open(struct file *f, const struct elf64_phdr *p, struct interp **out)
{
	struct dentry *base = current && current->cwd ? current->cwd : fs_root();
	struct interp *in;
	char *path;
	int err;

	if (p->p_filesz > PATH_MAX || p->p_filesz < 2)
		return -ENOEXEC;
	path = kmalloc(p->p_filesz);
	in = kmalloc(sizeof(*in));
	if (!path || !in)
		err = -ENOMEM;
	else if (fs_read(f->dentry->inode, p->p_offset, p->p_filesz, copy_kernel, path) != (long)p->p_filesz)
		err = -EIO;
	else if (path[p->p_filesz - 1])
		err = -ENOEXEC;
	else
		err = (int)exec_open(base, path, &in->f);
	kfree(path);
	if (!err && elf_read(in->f, &in->ef)) {
		file_put(in->f);
		err = -ELIBBAD;
	}
	if (err) {
		kfree(in);
		return err;
	}
	*out = in;
	return 0;
}

static void interp_close(struct interp *in)
{
	if (in) {
		file_put(in->f);
		kfree(in);
	}
}

/*
 * Map the interpreter (Linux load_elf_interp): an ET_DYN one where a
 * top-down search for its whole span finds room, as mmap(NULL) of the
 * span would (Linux maps the first segment that long, then unmaps the
 * rest), an ET_EXEC one at its own addresses. *base = its load bias
 * (AT_BASE). 0 or -errno.
 */
static int load_interp(struct mm *mm, struct interp *in, uintptr_t *base)
{
	const struct elf_file *ef = &in->ef;
	const struct elf64_phdr *first = NULL;
	uintptr_t lo = 0, hi = 0, unused;
	long r;

	*base = 0;
	for (unsigned i = 0; i < ef->eh.e_phnum; i++) {
		const struct elf64_phdr *p = &ef->ph[i];

		if (p->p_type != PT_LOAD || p->p_memsz == 0)
			continue;
		if (!first) {
			first = p;
			lo = ALIGN_DOWN(p->p_vaddr, PAGE_SIZE);
		}
		hi = MAX(hi, ALIGN_UP(p->p_vaddr + p->p_memsz, PAGE_SIZE));
	}
	if (ef->eh.e_type == ET_DYN) {
		r = vm_mmap_pgoff(mm, 0, hi - lo, prot_of(first->p_flags), MAP_PRIVATE, &in->f->vm,
				  ALIGN_DOWN(first->p_offset, PAGE_SIZE) >> PAGE_SHIFT);
		if (r < 0)
			return (int)r;
		vm_munmap(mm, (uintptr_t)r, hi - lo);
		*base = (uintptr_t)r - lo;
	}
	return load_segments(mm, in->f, ef, *base, &unused);
}

/* Where the program headers are in memory (AT_PHDR): PT_PHDR, or the PT_LOAD holding e_phoff. */
static uintptr_t phdr_address(const struct elf_file *ef, uintptr_t bias)
{
	const struct elf64_ehdr *eh = &ef->eh;
	const struct elf64_phdr *ph = ef->ph;

	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_PHDR)
			return ph[i].p_vaddr + bias;
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && eh->e_phoff >= ph[i].p_offset &&
		    eh->e_phoff - ph[i].p_offset < ph[i].p_filesz)
			return ph[i].p_vaddr + bias + (eh->e_phoff - ph[i].p_offset);
	return 0;
}

static bool stack_executable(const struct elf_file *ef)
{
	const struct elf64_ehdr *eh = &ef->eh;
	const struct elf64_phdr *ph = ef->ph;

	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_GNU_STACK)
			return ph[i].p_flags & ELF_PF_X;
	return false;   /* Linux x86-64: no PT_GNU_STACK means a non-executable stack too */
}

static size_t count_strings(const char *const *v, size_t *bytes)
{
	size_t n = 0;

	for (; v && v[n]; n++)
		*bytes += strlen(v[n]) + 1;
	return n;
}

static struct prng exec_prng;

/* Build the initial stack image in buf (representing [STACK_TOP - EXEC_BUF, STACK_TOP)). */
#define EXEC_BUF_ORDER 5                        /* 128 KiB: EXEC_ARG_MAX plus the tables */
#define EXEC_BUF_SIZE  (PAGE_SIZE << EXEC_BUF_ORDER)

struct stack_builder {
	uint8_t *buf;
	uintptr_t p;                            /* user address of the lowest byte used */
};

static void *sb_at(struct stack_builder *b, uintptr_t uaddr)
{
	return b->buf + (uaddr - (STACK_TOP - EXEC_BUF_SIZE));
}

static uintptr_t sb_push_bytes(struct stack_builder *b, const void *src, size_t n)
{
	b->p -= n;
	memcpy(sb_at(b, b->p), src, n);
	return b->p;
}

/* The load bias of an ET_DYN (static-pie) program: its first PT_LOAD goes to ET_DYN_BASE. 0 for ET_EXEC. */
static uintptr_t exec_bias(const struct elf_file *ef)
{
	const struct elf64_ehdr *eh = &ef->eh;
	const struct elf64_phdr *ph = ef->ph;

	if (eh->e_type != ET_DYN)
		return 0;
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			return ET_DYN_BASE - ALIGN_DOWN(ph[i].p_vaddr, PAGE_SIZE);
	return 0;
}

/* What the stack's string area holds, as user addresses (for the auxiliary vector). */
struct stack_strings {
	uintptr_t execfn;                       /* AT_EXECFN */
	uintptr_t platform;                     /* AT_PLATFORM: "x86_64" */
	uintptr_t random;                       /* AT_RANDOM: 16 bytes */
	uintptr_t low;                          /* the lowest string byte (argv[0]) */
};

/*
 * The strings, top down: 8 zero bytes, execfn, envp (last first), argv
 * (last first). ptrs (argc + envc + 2 entries) gets the argv pointers, NULL,
 * the envp pointers, NULL: the tables' middle part.
 */
static void push_strings(struct stack_builder *b, const char *execfn, const char *const *argv,
			 size_t argc, const char *const *envp, size_t envc, uintptr_t *ptrs,
			 struct stack_strings *s)
{
	uintptr_t *envptr = ptrs + argc + 1;

	b->p = STACK_TOP - sizeof(uint64_t);
	s->execfn = sb_push_bytes(b, execfn, strlen(execfn) + 1);
	for (size_t i = envc; i-- > 0;)
		envptr[i] = sb_push_bytes(b, envp[i], strlen(envp[i]) + 1);
	envptr[envc] = 0;
	for (size_t i = argc; i-- > 0;)
		ptrs[i] = sb_push_bytes(b, argv[i], strlen(argv[i]) + 1);
	ptrs[argc] = 0;
	s->low = b->p;
}

/* Below the strings, on a 16-byte boundary: the platform name, then 16 random bytes. */
static void push_platform_random(struct stack_builder *b, struct stack_strings *s)
{
	uint8_t rnd[16];

	b->p &= ~15UL;
	s->platform = sb_push_bytes(b, "x86_64", 7);
	if (!exec_prng.s)
		prng_seed(&exec_prng, arch_cycles());
	for (int i = 0; i < 16; i += 8) {
		uint64_t v = prng_next(&exec_prng) ^ arch_cycles();

		memcpy(rnd + i, &v, 8);
	}
	s->random = sb_push_bytes(b, rnd, 16);
}

/* Where the program went: its load bias, the interpreter's (AT_BASE; 0 without one), the first instruction. */
struct exec_addrs {
	uintptr_t bias;
	uintptr_t base;
	uintptr_t entry;
};

/* The auxiliary vector in create_elf_tables' order, ending with AT_NULL. Returns the words used (<= 48). */
static size_t fill_auxv(uint64_t *auxv, const struct elf_file *ef, const struct exec_addrs *a,
			const struct stack_strings *s)
{
	const struct elf64_ehdr *eh = &ef->eh;
	size_t n = 0;

#define AUX(type, val) do { auxv[n++] = (type); auxv[n++] = (val); } while (0)
	AUX(AT_MINSIGSTKSZ, MINSIGSTKSZ_VALUE);
	AUX(AT_HWCAP, 0);
	AUX(AT_PAGESZ, PAGE_SIZE);
	AUX(AT_CLKTCK, USER_HZ);
	AUX(AT_PHDR, phdr_address(ef, a->bias));
	AUX(AT_PHENT, sizeof(struct elf64_phdr));
	AUX(AT_PHNUM, eh->e_phnum);
	AUX(AT_BASE, a->base);
	AUX(AT_FLAGS, 0);
	AUX(AT_ENTRY, eh->e_entry + a->bias);
	AUX(AT_UID, 0);
	AUX(AT_EUID, 0);
	AUX(AT_GID, 0);
	AUX(AT_EGID, 0);
	AUX(AT_SECURE, 0);
	AUX(AT_RANDOM, s->random);
	AUX(AT_HWCAP2, 0);
	AUX(AT_EXECFN, s->execfn);
	AUX(AT_PLATFORM, s->platform);
	AUX(AT_NULL, 0);
#undef AUX
	return n;
}

/*
 * The whole initial stack image in b (the layout at the top of this file):
 * strings, then argc, argv, envp and auxv at the 16-byte aligned *sp.
 * 0 or -ENOMEM.
 */
static int build_stack_image(struct mm *mm, struct stack_builder *b, const struct elf_file *ef,
			     const struct exec_addrs *a, const char *execfn, const char *const *argv,
			     size_t argc, const char *const *envp, size_t envc, struct stack_strings *s,
			     uintptr_t *sp)
{
	size_t nptrs = argc + envc + 2, nauxv;
	uint64_t auxv[2 * 24], *tbl;
	uintptr_t *ptrs = kmalloc(nptrs * sizeof(uintptr_t));

	if (!ptrs)
		return -ENOMEM;
	push_strings(b, execfn, argv, argc, envp, envc, ptrs, s);
	push_platform_random(b, s);
	nauxv = fill_auxv(auxv, ef, a, s);
	/* Linux: sp = STACK_ROUND(p - auxv words, items), items = argc+1 + envc+1 + 1 */
	*sp = ((b->p - nauxv * 8) - (nptrs + 1) * 8) & ~15UL;
	tbl = sb_at(b, *sp);
	*tbl++ = argc;
	for (size_t i = 0; i < nptrs; i++)
		*tbl++ = ptrs[i];
	memcpy(tbl, auxv, nauxv * 8);
	/* (fill_auxv's 48 words at most fit MM_SAVED_AUXV) */
	memcpy(mm->saved_auxv, auxv, nauxv * 8);
	mm->saved_auxv_words = (unsigned)nauxv;
	kfree(ptrs);
	return 0;
}

/*
 * The [stack] VMA (from STACK_EXPAND below the strings' page, or lower
 * when the tables reach below it, up to STACK_TOP), the brk and stack
 * bases, then the image from sp up copied in.
 */
static int map_stack(struct mm *mm, const struct elf_file *ef, struct stack_builder *b, uintptr_t strings_low,
		     uintptr_t sp, uintptr_t brk)
{
	uintptr_t stack_start = ALIGN_DOWN(strings_low, PAGE_SIZE) - STACK_EXPAND;
	unsigned long stack_flags;
	int err;

	if (sp < stack_start)
		stack_start = ALIGN_DOWN(sp, PAGE_SIZE);
	stack_flags = VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC | VM_GROWSDOWN |
		      VM_ACCOUNT | VM_SOFTDIRTY | (stack_executable(ef) ? VM_EXEC : 0);
	mmap_write_lock(mm);
	err = vma_map_anon(mm, stack_start, STACK_TOP, stack_flags, NULL);
	if (!err) {
		mm->start_stack = sp;
		mm->start_brk = mm->brk = brk;
	}
	mmap_write_unlock(mm);
	if (err)
		return err;
	return mm_copy_to(mm, sp, sb_at(b, sp), STACK_TOP - sp);
}

/* The new address space for ef (read from f): segments, then the stack image. 0 and out's mm, entry, sp. */
static int exec_layout(struct file *f, const struct elf_file *ef, struct interp *in, const char *execfn,
		       const char *const *argv, size_t argc, const char *const *envp, size_t envc,
		       struct exec_image *out)
{
	struct exec_addrs a = { .bias = exec_bias(ef) };
	uintptr_t brk = 0, sp = 0;
	struct page *bufpage = pmm_alloc(EXEC_BUF_ORDER, GFP_ZERO);
	struct stack_builder sb;
	struct stack_strings strs;
	struct mm *mm = bufpage ? mm_create() : NULL;
	int err;

	if (!mm) {
		if (bufpage)
			pmm_free(bufpage, EXEC_BUF_ORDER);
		return -ENOMEM;
	}
	sb.buf = page_address(bufpage);
	err = load_segments(mm, f, ef, a.bias, &brk);
	if (!err && in)
		err = load_interp(mm, in, &a.base);
	a.entry = in ? in->ef.eh.e_entry + a.base : ef->eh.e_entry + a.bias;
	if (!err)
		err = build_stack_image(mm, &sb, ef, &a, execfn, argv, argc, envp, envc, &strs, &sp);
	if (!err)
		err = map_stack(mm, ef, &sb, strs.low, sp, brk);
	if (!err) {                     /* for /proc/PID/cmdline: the argv strings, lowest first */
		mm->arg_start = mm->arg_end = strs.low;
		for (size_t i = 0; i < argc; i++)
			mm->arg_end += strlen(argv[i]) + 1;
	}
	pmm_free(bufpage, EXEC_BUF_ORDER);
	if (err) {
		mm_put(mm);
		return err;
	}
	out->mm = mm;
	out->entry = a.entry;
	out->sp = sp;
	return 0;
}

int exec_build(struct file *f, const char *execfn, const char *const *argv,
	       const char *const *envp, struct exec_image *out)
{
	size_t strbytes = 0, argc, envc;
	const struct elf64_phdr *ip;
	struct interp *in = NULL;
	struct elf_file *ef;
	int err;

	argc = count_strings(argv, &strbytes);
	envc = count_strings(envp, &strbytes);
	strbytes += strlen(execfn) + 1;
	if (strbytes + (argc + envc + 2) * sizeof(uintptr_t) > EXEC_ARG_MAX)
		return -E2BIG;          /* Linux: while copying the strings, before the ELF checks */
	ef = kmalloc(sizeof(*ef));
	if (!ef)
		return -ENOMEM;
	err = elf_read(f, ef);
	ip = err ? NULL : find_interp(ef);
	if (ip)
		err = interp_open(f, ip, &in);
	if (!err)
		err = exec_layout(f, ef, in, execfn, argv, argc, envp, envc, out);
	interp_close(in);
	kfree(ef);
	if (!err) {
		out->exe = f->dentry;
		dget(out->exe);
	}
	return err;
}

const char *exec_basename(const char *path)
{
	const char *b = path;

	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1])
			b = p + 1;
	return b;
}

long exec_open(struct dentry *base, const char *path, struct file **out)
{
	struct dentry *d;
	long err = fs_lookup(base, path, LOOKUP_FOLLOW, &d);

	if (err)
		return err;
	/* do_open_execat: a regular file with an execute bit (root needs one too) */
	if (!S_ISREG(d->inode->mode) || d->inode->special || !(d->inode->mode & 0111))
		err = -EACCES;
	if (!err)
		err = file_open_dentry(d, O_RDONLY, out);
	if (err)
		dput(d);
	return err;
}

void exec_install(struct task *t, struct exec_image *img, const char *name)
{
	struct trap_frame *tf = t->tf;
	struct mm *old;
	bool running = t == current;
	size_t n;

	if (running)
		mm_activate(img->mm);
	if (t->mm)              /* PR_SET_THP_DISABLE survives execve, as in Linux */
		img->mm->thp_disabled = t->mm->thp_disabled;
	mm_enter(img->mm);
	old = task_set_mm(t, img->mm);
	mm_leave(old);
	memset(tf, 0, sizeof(*tf));
	tf->rip = img->entry;
	tf->rsp = img->sp;
	tf->cs = USER_CS;
	tf->ss = USER_DS;
	tf->rflags = 0x202;
	tf->vector = VEC_SYSCALL;
	t->arch.fs_base = 0;
	t->arch.gs_base = 0;
	arch_task_reset_fpu(t);
	if (running) {
		arch_set_fs_base(t, 0);
		arch_task_load_fpu(t);
	}
	t->clear_child_tid = 0;
	signal_exec(t);
	n = MIN(strlen(name), (size_t)TASK_COMM_LEN - 1);
	memcpy(t->comm, name, n);
	t->comm[n] = 0;
	if (t->exe)
		dput(t->exe);
	t->exe = img->exe;
	if (t->fdt)
		fdtable_exec(t->fdt);
	if (running)
		vfork_release(t);
}
