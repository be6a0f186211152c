/*
 * Memory operations on the arena: mmap (anonymous and of pool fds,
 * private and shared, always MAP_FIXED inside the arena or left to the
 * kernel), munmap, mprotect, madvise, mremap (moving inside the arena),
 * mincore, msync, brk, and touches: reads and writes of arena pages from
 * user mode, whose SIGSEGV/SIGBUS is caught (seed.c). Some mappings cover
 * whole 2 MiB slots, for huge pages (op_huge).
 */
#include "fuzz.h"

static const int advices[] = {
	MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED, MADV_DONTNEED, MADV_FREE, MADV_REMOVE,
	MADV_DONTFORK, MADV_DOFORK, MADV_MERGEABLE, MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_DONTDUMP,
	MADV_DODUMP, MADV_WIPEONFORK, MADV_KEEPONFORK, MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ,
	MADV_POPULATE_WRITE, MADV_DONTNEED_LOCKED, MADV_COLLAPSE, 57, -1,
};

static long prot(struct actor *a)
{
	static const long p[] = { PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE,
				  PROT_READ | PROT_EXEC, PROT_WRITE, PROT_READ | PROT_WRITE | PROT_EXEC, 0x40 };
	return p[fz_below(a, sizeof(p) / sizeof(p[0]))];
}

/* A destination for a memory op: the arena (almost always), clipped so that it ends inside it. */
static void range(struct actor *a, unsigned long *addr, unsigned long *len)
{
	unsigned long end = (unsigned long)fz_pool->arena + FZ_ARENA_PAGES * UPAGE_SIZE;

	*addr = fz_addr(a);
	*len = fz_len(a);
	/* outside the arena only with lengths the kernel refuses, or ranges wholly above user space */
	if (*addr >= (unsigned long)fz_pool->arena && *addr < end && *len < end - *addr + 1 && *addr + *len > end)
		*len = end - *addr;
}

static bool in_arena(unsigned long addr, unsigned long len)
{
	unsigned long lo = (unsigned long)fz_pool->arena, hi = lo + FZ_ARENA_PAGES * UPAGE_SIZE;

	return addr >= lo && addr < hi && len <= hi - addr;
}

/*
 * Where munmap, mprotect and madvise may go: the arena, the first pages
 * (nothing is mapped there), or a length that overflows (-EINVAL). Never
 * the program, its stack or the pool's own memory. The length -4096
 * overflows only from a start of a page or more: from 0 it ends at the
 * top of memory without wrapping, and madvise (Linux's too) then applies
 * to every VMA on the way, holes skipped (MADV_DONTNEED from 0 zapped
 * the program's own data page, which then read back its file's bytes).
 */
static bool harmless(unsigned long addr, unsigned long len)
{
	return in_arena(addr, len) || (addr < (1UL << 20) && len < (1UL << 20)) ||
	       (len == -UPAGE_SIZE && addr >= UPAGE_SIZE);
}

#define FZ_HUGE (2UL << 20)

/*
 * A private anonymous read-write mapping of one or two whole 2 MiB-aligned
 * slots of the arena, or their collapse (MADV_COLLAPSE): under thp=always (the kernel's default, as
 * Linux's) its first touch maps a huge page, which the seed's forks then
 * share, split (munmap, mprotect of a part, a child's write), collapse
 * (MADV_COLLAPSE) and drop as they exit or are killed: the huge-page
 * paths with every other operation around them.
 */
static void op_huge(struct actor *a)
{
	unsigned long lo = ((unsigned long)fz_pool->arena + FZ_HUGE - 1) & ~(FZ_HUGE - 1);
	unsigned long hi = ((unsigned long)fz_pool->arena + FZ_ARENA_PAGES * UPAGE_SIZE) & ~(FZ_HUGE - 1);
	unsigned long slots = (hi - lo) / FZ_HUGE, addr, len;

	if (slots < 1)
		return;
	addr = lo + fz_below(a, slots) * FZ_HUGE;
	len = addr + 2 * FZ_HUGE <= hi && fz_chance(a, 50) ? 2 * FZ_HUGE : FZ_HUGE;
	if (fz_chance(a, 30)) {         /* whatever is there now: pages of many kinds, shared or not */
		fz_count(sys_madvise(addr, len, MADV_HUGEPAGE));
		fz_count(sys_madvise(addr, len, MADV_COLLAPSE));
		return;
	}
	fz_count(sys_mmap(addr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	if (fz_chance(a, 50))           /* 4 KiB pages, for a later collapse */
		fz_count(sys_madvise(addr, len, MADV_NOHUGEPAGE));
}

static void op_mmap(struct actor *a)
{
	unsigned long addr, len;
	long flags = fz_chance(a, 30) ? MAP_SHARED : MAP_PRIVATE, fd = -1, off = 0;

	if (fz_chance(a, 10)) {
		op_huge(a);
		return;
	}
	range(a, &addr, &len);
	if (fz_chance(a, 35)) {
		fd = fz_fd(a);
		off = fz_chance(a, 80) ? fz_below(a, 512) * UPAGE_SIZE : fz_rand(a) & 0xfffff;
	} else {
		flags |= MAP_ANONYMOUS;
	}
	if (fz_chance(a, 10))
		flags |= MAP_POPULATE;
	if (fz_chance(a, 5))
		flags |= MAP_NORESERVE;
	if (fz_chance(a, 3))
		flags &= ~(long)(MAP_SHARED | MAP_PRIVATE);     /* neither: -EINVAL */
	if (!in_arena(addr, len) || fz_chance(a, 90)) {
		if (!in_arena(addr, len))
			len = fz_chance(a, 50) ? len : UPAGE_SIZE;      /* hint only: the kernel places it */
		else
			flags |= fz_chance(a, 10) ? MAP_FIXED_NOREPLACE : MAP_FIXED;
	}
	if (!(flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && fz_chance(a, 50))
		addr = 0;
	fz_count(sys_mmap(addr, len, prot(a), flags, fd, (unsigned long)off));
}

static void op_munmap(struct actor *a)
{
	unsigned long addr, len;

	range(a, &addr, &len);
	if (harmless(addr, len))
		fz_count(sys_munmap(addr, len));
}

static void op_mprotect(struct actor *a)
{
	unsigned long addr, len;

	range(a, &addr, &len);
	if (harmless(addr, len))
		fz_count(sys_mprotect(addr, len, prot(a) | (fz_chance(a, 3) ? 0x01000000 : 0)));   /* GROWSDOWN */
}

static void op_madvise(struct actor *a)
{
	unsigned long addr, len;

	range(a, &addr, &len);
	if (harmless(addr, len))
		fz_count(sys_madvise(addr, len, advices[fz_below(a, sizeof(advices) / sizeof(advices[0]))]));
}

static void op_mremap(struct actor *a)
{
	unsigned long old, oldlen, newlen, dst, dstlen;
	long flags;
	unsigned r = (unsigned)fz_below(a, 100);

	range(a, &old, &oldlen);
	range(a, &dst, &newlen);
	dstlen = newlen;
	if (!in_arena(old, oldlen) || fz_chance(a, 5))
		oldlen = fz_chance(a, 50) ? 0 : oldlen;         /* 0: a copy of a shared mapping */
	if (!in_arena(old, oldlen ? oldlen : 1))
		return;
	flags = r < 30 ? 0 : r < 55 ? MREMAP_MAYMOVE : r < 90 ? MREMAP_MAYMOVE | MREMAP_FIXED
		: r < 97 ? MREMAP_MAYMOVE | MREMAP_DONTUNMAP : MREMAP_FIXED;
	if ((flags & MREMAP_FIXED) && !in_arena(dst, dstlen))
		return;
	if (flags & MREMAP_DONTUNMAP)
		newlen = oldlen;
	fz_count(sys_mremap(old, oldlen, newlen, flags, dst));
}

static void op_brk(struct actor *a)
{
	long cur = fz_count(sys_brk(0));
	long delta = fz_chance(a, 50) ? (long)fz_below(a, 64) * (long)UPAGE_SIZE : -(long)fz_below(a, 32) * (long)UPAGE_SIZE;

	fz_count(sys_brk((unsigned long)(cur + delta + (fz_chance(a, 10) ? 123 : 0))));
}

/* Read or write a few bytes of arena pages from user mode; a fault is caught and ends the touch. */
static void op_touch(struct actor *a)
{
	volatile char *p = (volatile char *)(fz_pool->arena + fz_below(a, FZ_ARENA_PAGES) * UPAGE_SIZE);
	unsigned pages = 1 + (unsigned)fz_below(a, 16);
	bool write = fz_chance(a, 60);

	if (p + (size_t)pages * UPAGE_SIZE > fz_pool->arena + FZ_ARENA_PAGES * UPAGE_SIZE)
		pages = 1;
	if (setjmp(a->touch_jmp) == 0) {
		a->touching = 1;
		for (unsigned i = 0; i < pages; i++, p += UPAGE_SIZE) {
			if (write)
				p[fz_below(a, UPAGE_SIZE)] = (char)i;
			else
				(void)p[fz_below(a, UPAGE_SIZE)];
		}
	}
	a->touching = 0;
}

static void op_probe(struct actor *a)
{
	unsigned long addr, len;

	range(a, &addr, &len);
	if (fz_chance(a, 50)) {
		if (len <= FZ_BUF_SIZE * UPAGE_SIZE)
			fz_count(sys_mincore(addr, len, (unsigned char *)a->buf));
	} else {
		fz_count(sys_msync(addr, len, fz_chance(a, 90) ? (fz_chance(a, 50) ? 4 : 1) : 7));  /* SYNC, ASYNC, both */
	}
}

void fz_op_mem(struct actor *a)
{
	switch (fz_below(a, 12)) {
	case 0: case 1: op_mmap(a); break;
	case 2: op_munmap(a); break;
	case 3: case 4: op_mprotect(a); break;
	case 5: op_madvise(a); break;
	case 6: case 7: op_mremap(a); break;
	case 8: op_brk(a); break;
	case 9: op_probe(a); break;
	default: op_touch(a); break;
	}
}
