/*
 * /proc/self/smaps and /proc/self/smaps_rollup (Linux fs/proc/task_mmu.c
 * show_smap, show_smaps_rollup): each VMA's maps line followed by what its
 * pages use (include/mm.h vm_usage_add, which counts them), in Linux
 * 6.18's fields and layout: a label padded to 16 columns, the value in 8,
 * " kB". Fields for what this kernel does not have (KSM merging, huge
 * hugetlb, PMD-mapped files) are there and 0, as on a Linux that has not
 * used them; AnonHugePages counts the VMA's 2 MiB leaves (mm/thp.c) and
 * THPeligible says whether the VMA may hold one now; ProtectionKey appears
 * when protection keys are on (arch_mmu_exec_only: this kernel turns them
 * on exactly when it can use them), always key 0. The rollup totals every
 * VMA, from the first's start to the last's end. Any process's: the
 * files are in /proc/PID (pid.c's table).
 *
 * Locking: the mm's mmap_lock (read) while the text is made.
 */
#include "internal.h"
#include "file.h"
#include "task.h"
#include "arch_mmu.h"
#include "mm.h"
#include "kstring.h"
#include "slab.h"
#include "printk.h"

/* Linux's names for the VM_* bits (show_smap_vma_flags), by bit; NULL: never shown. */
static const char *const vm_flag_mnemonic[32] = {
	"rd", "wr", "ex", "sh", "mr", "mw", "me", "ms",
	"gd", "um", "pf", NULL, "uw", "lo", "io", "sr",
	"rr", "dc", "de", "lf", "ac", "nr", "ht", "sf",
	"ar", "wf", "dd", "sd", "mm", "hg", "nh", "mg",
};

struct text {
	char *buf;
	size_t size, len;             /* len: what the whole text needs, even past size */
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->len < t->size)
		memcpy(t->buf + t->len, s, MIN(n, t->size - t->len));
	t->len += n;
}

static void putf(struct text *t, const char *fmt, unsigned long v)
{
	char line[64];
	int n = ksnprintf(line, sizeof(line), fmt, v);

	put(t, line, (size_t)n);
}

/* "Label:" padded to 16 columns, the value in kB in 8 (Linux's SEQ_PUT_DEC). */
static void put_kb(struct text *t, const char *label, unsigned long bytes)
{
	char line[64];
	int n = ksnprintf(line, sizeof(line), "%-16s%8lu kB\n", label, bytes >> 10);

	put(t, line, (size_t)n);
}

/* The fields every VMA and the rollup show, from Rss to Locked; the rollup has the Pss split too. */
static void put_usage(struct text *t, const struct vm_usage *u, bool rollup)
{
	put_kb(t, "Rss:", u->resident);
	put_kb(t, "Pss:", (unsigned long)(u->pss >> VM_PSS_SHIFT));
	put_kb(t, "Pss_Dirty:", (unsigned long)(u->pss_dirty >> VM_PSS_SHIFT));
	if (rollup) {
		put_kb(t, "Pss_Anon:", (unsigned long)(u->pss_anon >> VM_PSS_SHIFT));
		put_kb(t, "Pss_File:", (unsigned long)(u->pss_file >> VM_PSS_SHIFT));
		put_kb(t, "Pss_Shmem:", (unsigned long)(u->pss_shmem >> VM_PSS_SHIFT));
	}
	put_kb(t, "Shared_Clean:", u->shared_clean);
	put_kb(t, "Shared_Dirty:", u->shared_dirty);
	put_kb(t, "Private_Clean:", u->private_clean);
	put_kb(t, "Private_Dirty:", u->private_dirty);
	put_kb(t, "Referenced:", u->referenced);
	put_kb(t, "Anonymous:", u->anonymous);
	put_kb(t, "KSM:", 0);
	put_kb(t, "LazyFree:", u->lazyfree);
	put_kb(t, "AnonHugePages:", u->anon_huge);
	put_kb(t, "ShmemPmdMapped:", 0);
	put_kb(t, "FilePmdMapped:", 0);
	put_kb(t, "Shared_Hugetlb:", 0);
	put_kb(t, "Private_Hugetlb:", 0);
	put_kb(t, "Swap:", u->swap);
	put_kb(t, "SwapPss:", (unsigned long)(u->swap_pss >> VM_PSS_SHIFT));
	put_kb(t, "Locked:", (unsigned long)(u->pss_locked >> VM_PSS_SHIFT));
}

static void put_vma(struct text *t, struct mm *mm, const struct vma *v, char *line, size_t room)
{
	struct vm_usage u = { 0 };

	put(t, line, proc_maps_line(mm, v, line, room));
	vm_usage_add(mm, v, &u);
	put_kb(t, "Size:", v->end - v->start);
	put_kb(t, "KernelPageSize:", PAGE_SIZE);
	put_kb(t, "MMUPageSize:", PAGE_SIZE);
	put_usage(t, &u, false);
	putf(t, "THPeligible:    %8lu\n", thp_vma_eligible(mm, v));
	if (arch_mmu_exec_only())
		putf(t, "ProtectionKey:  %8lu\n", 0);
	put(t, "VmFlags: ", 9);
	for (unsigned bit = 0; bit < 32; bit++) {
		if ((v->flags & (1UL << bit)) && vm_flag_mnemonic[bit]) {
			put(t, vm_flag_mnemonic[bit], 2);
			put(t, " ", 1);
		}
	}
	put(t, "\n", 1);
}

/* The text of smaps (or, rollup, smaps_rollup) of mm into buf; the length needed. */
static size_t smaps_text(struct mm *mm, char *buf, size_t size, bool rollup)
{
	struct text t = { .buf = buf, .size = size };
	size_t room = MAPS_HDR_MAX + PATH_MAX + 16;
	struct vm_usage total = { 0 };
	uintptr_t first = 0, last = 0;
	char *line = kmalloc(room);

	if (!line)
		return 0;
	mmap_read_lock(mm);
	for (struct vma *v = vma_first(mm); v; v = vma_next(mm, v)) {
		if (!rollup) {
			put_vma(&t, mm, v, line, room);
			continue;
		}
		if (!last)
			first = v->start;
		last = v->end;
		vm_usage_add(mm, v, &total);
	}
	mmap_read_unlock(mm);
	if (rollup && last) {
		int n = ksnprintf(line, MAPS_HDR_MAX, "%08lx-%08lx ---p 00000000 00:00 0 ",
				  (unsigned long)first, (unsigned long)last);

		put(&t, line, proc_maps_name(line, (size_t)n, "[rollup]"));
		put_usage(&t, &total, true);
	}
	kfree(line);
	return t.len;
}

/* The text for process pid: empty for a zombie or a kernel thread, as Linux's. */
static long smaps_of(int pid, char *buf, size_t size, bool rollup)
{
	char comm[TASK_COMM_LEN];
	struct mm *mm = task_get_mm(pid, comm);
	size_t n;

	if (!mm)
		return 0;
	n = smaps_text(mm, buf, size, rollup);
	mm_put(mm);
	return (long)n;
}

static long smaps_fill(int pid, char *buf, size_t size)
{
	return smaps_of(pid, buf, size, false);
}

static long smaps_rollup_fill(int pid, char *buf, size_t size)
{
	return smaps_of(pid, buf, size, true);
}

PROC_TEXT_FILE(, proc_smaps, smaps_fill);
PROC_TEXT_FILE(, proc_smaps_rollup, smaps_rollup_fill);
