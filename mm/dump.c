/*
 * A process's virtual memory as text, for debugging: its VMAs with their
 * flags decoded, and its page-table tree (arch_mmu_dump). The vmk_vmdump
 * system call prints it on the console; tests capture it line by line.
 *
 *   vmas: 3 (index btree, map_count 3, rss 2)
 *     0x400000-0x401000 r-xp pgoff 0x400 anon - [read exec mayread maywrite mayexec]
 *     0x7ffffffde000-0x7ffffffff000 rw-p pgoff 0x7fffffffe anon 7 [read write ... growsdown]
 *
 * Locking: takes mm's mmap_lock for reading, and pt_lock around the
 * page-table dump; the caller holds neither.
 */
#include "internal.h"
#include "kstring.h"
#include "printk.h"

#define N(f, n) { .flag = (f), .name = (n) }
static const struct { unsigned long flag; const char *name; } vm_flag_names[] = {
	N(VM_READ, "read"), N(VM_WRITE, "write"), N(VM_EXEC, "exec"), N(VM_SHARED, "shared"),
	N(VM_MAYREAD, "mayread"), N(VM_MAYWRITE, "maywrite"), N(VM_MAYEXEC, "mayexec"),
	N(VM_MAYSHARE, "mayshare"), N(VM_GROWSDOWN, "growsdown"), N(VM_LOCKED, "locked"),
	N(VM_SEQ_READ, "seq_read"), N(VM_RAND_READ, "rand_read"), N(VM_DONTCOPY, "dontcopy"),
	N(VM_DONTEXPAND, "dontexpand"), N(VM_ACCOUNT, "account"), N(VM_NORESERVE, "noreserve"),
	N(VM_WIPEONFORK, "wipeonfork"), N(VM_DONTDUMP, "dontdump"), N(VM_SOFTDIRTY, "softdirty"),
	N(VM_HUGEPAGE, "hugepage"), N(VM_NOHUGEPAGE, "nohugepage"), N(VM_MERGEABLE, "mergeable"),
};
#undef N

size_t vm_flags_format(char *buf, size_t size, unsigned long flags)
{
	size_t n = 0;

	if (size)
		buf[0] = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(vm_flag_names) && n < size; i++) {
		if (!(flags & vm_flag_names[i].flag))
			continue;
		n += ksnprintf(buf + n, size - n, "%s%s", n ? " " : "", vm_flag_names[i].name);
		flags &= ~vm_flag_names[i].flag;
	}
	if (flags && n < size)
		n += ksnprintf(buf + n, size - n, "%s%#lx", n ? " " : "", flags);
	return MIN(n, size ? size - 1 : 0);
}

static void dump_vma(const struct vma *v, mmu_dump_fn emit, void *arg)
{
	char flags[200], anon[40], line[320];

	vm_flags_format(flags, sizeof(flags), v->flags);
	if (v->anon)
		ksnprintf(anon, sizeof(anon), "%lu%s", v->anon->id, v->anon_forked ? " (forked)" : "");
	else
		ksnprintf(anon, sizeof(anon), "-%s", v->file ? " file" : "");
	ksnprintf(line, sizeof(line), "  0x%lx-0x%lx %c%c%c%c pgoff 0x%lx anon %s [%s]", v->start, v->end,
		  v->flags & VM_READ ? 'r' : '-', v->flags & VM_WRITE ? 'w' : '-',
		  v->flags & VM_EXEC ? 'x' : '-', v->flags & VM_MAYSHARE ? 's' : 'p', v->pgoff, anon, flags);
	emit(arg, line);
}

void mm_dump(struct mm *mm, unsigned what, mmu_dump_fn emit, void *arg)
{
	char line[120];

	mmap_read_lock(mm);
	if (what & MM_DUMP_VMAS) {
		ksnprintf(line, sizeof(line), "vmas: %d (index %s, rss %lu, zero-page maps %lu)",
			  mm->map_count, mm->index.ops->name, READ_ONCE(mm->rss), READ_ONCE(mm->zero_maps));
		emit(arg, line);
		for (struct vma *v = vma_first(mm); v; v = vma_next(mm, v))
			dump_vma(v, emit, arg);
	}
	if (what & MM_DUMP_PAGES) {
		mm_pt_lock(mm);
		arch_mmu_dump(mm->mmu, 0, TASK_SIZE, emit, arg);
		mm_pt_unlock(mm);
	}
	mmap_read_unlock(mm);
}
