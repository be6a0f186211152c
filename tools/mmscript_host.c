/*
 * mmscript_host.c - mmscript on the host, against our mm/ code: the same
 * parser and formatter as the user-mode runner (user/mmscript/script.c,
 * sb.c, built with -DMMS_HOST), with an ops table that calls the kernel's
 * VM system-call cores (vm_mmap, vm_munmap, vm_mremap, vm_mprotect,
 * vm_madvise, vm_brk, vm_mincore, vm_msync, vm_mmap_pgoff) on a hosted
 * address space (mm/ over arch/hosted: software page tables, simulated
 * RAM), keeps its memfds in our file system (fs/: fs_create_unlinked,
 * fs_truncate, fs_read, fs_write), and performs read/write/fill as user
 * accesses through mm_soft_access, which calls handle_mm_fault as the CPU
 * would.
 *
 *   mmscript-host [--framed] FILE...
 *   mmscript-host --bundle PATH|-          (format: docs/mmscript.md)
 *
 * Output, framing, INCOMPLETE and the exit status are those of the
 * user-mode runner (user/mmscript/main.c), so tools/mmscript splits both
 * alike (`--target host`). Every script runs in a forked child with a new
 * address space laid out like a freshly started static program:
 *
 *   0x400000-0x404000 r-xp   text         (VM_EXEC | VM_READ, no account)
 *   0x404000-0x405000 rw-p   data+bss     (VM_ACCOUNT)
 *   0x406000          start_brk = brk     (one page above the bss, as Linux
 *                                          leaves with brk randomization)
 *   0x7ffffffde000-0x7ffffffff000 rw-p    the stack (VM_GROWSDOWN)
 *   W = 0x600000000000                    the script window
 *
 * and with transparent huge pages disabled, as the user-mode runner
 * disables them for itself (PR_SET_THP_DISABLE: MADV_COLLAPSE -EINVAL).
 *
 * After every command the child runs vma_check() (the VMA invariants); at
 * the end it closes its files, destroys the address space and checks that
 * no frame, VMA, anon identity, object, inode or dentry leaked. A broken invariant or a leak
 * makes the child exit with status 4 (the script is INCOMPLETE), a kernel
 * BUG or a sanitizer error aborts it (INCOMPLETE too).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <sys/wait.h>

#include "mm.h"
#include "mm/internal.h"
#include "pmm.h"
#include "slab.h"
#include "kerrno.h"
#include "hosted.h"
#include "fs.h"
#include "mms_core.h"

#define HOST_RAM        (512UL << 20)
#define HOST_WINDOW     0x600000000000UL
#define PROG_TEXT       0x400000UL
#define PROG_DATA       0x404000UL
#define PROG_END        0x405000UL
#define PROG_BRK        0x406000UL
#define STACK_TOP_HOST  TASK_SIZE
#define STACK_SIZE_HOST (33UL << PAGE_SHIFT)
/*
 * Where the runner's mincore vector would be (Linux access_ok(vec, pages)
 * fails beyond TASK_SIZE): a typical top-down mmap address.
 */
#define FAKE_VEC        (MMAP_BASE_DEFAULT - (1UL << 30))

struct mms_state mms;
static struct mm *cur_mm;

/* ------------------------------------------------------------------ ops */

static long h_mmap(unsigned long addr, unsigned long len, long prot, long flags)
{
	return vm_mmap(cur_mm, addr, len, (int)prot, (int)flags);
}

static long h_munmap(unsigned long addr, unsigned long len)
{
	return vm_munmap(cur_mm, addr, len);
}

static long h_mremap(unsigned long addr, unsigned long oldlen, unsigned long newlen, long flags,
		     unsigned long newaddr)
{
	return vm_mremap(cur_mm, addr, oldlen, newlen, (int)flags, newaddr);
}

static long h_mprotect(unsigned long addr, unsigned long len, long prot)
{
	return vm_mprotect(cur_mm, addr, len, (int)prot);
}

static long h_madvise(unsigned long addr, unsigned long len, long advice)
{
	return vm_madvise(cur_mm, addr, len, (int)advice);
}

static long h_brk(unsigned long addr)
{
	return vm_brk(cur_mm, addr);
}

/*
 * Linux's mincore system call around vm_mincore: argument checks, then
 * chunks of at most one page of results, each ending at a VMA's end,
 * copied to the user vector (here: vec, of which cap bytes are
 * accessible) before the next chunk is looked at.
 */
static long h_mincore(unsigned long addr, unsigned long len, unsigned char *vec, unsigned long cap)
{
	static unsigned char tmp[PAGE_SIZE];
	unsigned long pages, done = 0;

	if (addr & ~PAGE_MASK)
		return -EINVAL;
	if (len > TASK_SIZE || addr > TASK_SIZE - len)
		return -ENOMEM;
	pages = (len >> PAGE_SHIFT) + ((len & ~PAGE_MASK) != 0);
	if (pages > TASK_SIZE - FAKE_VEC)
		return -EFAULT;
	while (done < pages) {
		uintptr_t start = addr + (done << PAGE_SHIFT);
		unsigned long n = MIN(pages - done, (unsigned long)PAGE_SIZE);
		struct vma *v;
		int r;

		mmap_read_lock(cur_mm);
		v = vma_lookup(cur_mm, start);
		if (v)
			n = MIN(n, (v->end - start) >> PAGE_SHIFT);
		mmap_read_unlock(cur_mm);
		if (!v)
			return -ENOMEM;
		r = vm_mincore(cur_mm, start, n << PAGE_SHIFT, tmp);
		if (r)
			return r;
		if (done + n > cap)
			return -EFAULT;
		memcpy(vec + done, tmp, n);
		done += n;
	}
	return 0;
}

/* A fault result as the signal Linux would send (or abort: a kernel bug). */
static int fault_signal(int r)
{
	switch (r) {
	case FAULT_OK:
		return 0;
	case FAULT_SIGSEGV_MAPERR:
	case FAULT_SIGSEGV_ACCERR:
	case FAULT_SIGSEGV_PKUERR:
		return MMS_SIGSEGV;
	case FAULT_SIGBUS:
		return MMS_SIGBUS;
	default:
		fprintf(stderr, "mmscript-host: user access: %s\n",
			r == FAULT_OOM ? "out of memory" : "fault handler did not fix the entry");
		abort();
	}
}

static int h_read(unsigned long addr, unsigned int *val)
{
	uint8_t b = 0;
	int sig = fault_signal(hosted_user_read8(cur_mm, addr, &b));

	if (!sig)
		*val = b;
	return sig;
}

static int h_write(unsigned long addr, unsigned int val)
{
	return fault_signal(hosted_user_write8(cur_mm, addr, (uint8_t)val));
}

static int h_fill(unsigned long addr, unsigned long len, unsigned int val, unsigned long *fault_page)
{
	unsigned long cur = addr;

	for (;;) {
		unsigned long next;
		int sig = fault_signal(hosted_user_write8(cur_mm, cur, (uint8_t)val));

		if (sig) {
			*fault_page = cur & PAGE_MASK;
			return sig;
		}
		next = (cur & PAGE_MASK) + PAGE_SIZE;
		if (next == 0 || next - addr >= len)
			return 0;
		cur = next;
	}
}

/*
 * /proc/PID/maps permissions: rwx, then 's' for VM_MAYSHARE else 'p'
 * (show_map_vma); a memfd's NAME from the file's path as maps would show it.
 */
static int h_maps(mms_maps_emit emit, void *arg)
{
	char path[PATH_MAX], name[MMS_NAME_MAX + 1];
	struct vma *v;

	mmap_read_lock(cur_mm);
	for (v = vma_first(cur_mm); v; v = vma_next(cur_mm, v)) {
		char perms[5] = {
			v->flags & VM_READ ? 'r' : '-',
			v->flags & VM_WRITE ? 'w' : '-',
			v->flags & VM_EXEC ? 'x' : '-',
			v->flags & VM_MAYSHARE ? 's' : 'p',
			0,
		};
		bool memfd = false;

		if (v->file) {
			uint64_t dev, ino;

			v->file->ops->describe(v->file, path, sizeof(path), &dev, &ino);
			memfd = mms_memfd_name(path, strlen(path), name) == 0;
		}
		emit(arg, v->start, v->end, perms, memfd ? name : NULL, v->pgoff << PAGE_SHIFT);
	}
	mmap_read_unlock(cur_mm);
	return 0;
}

/* ---------------------------------------------------------------- files */

/* A memfd of the script: an unlinked file of fs/ and the vm_file its mappings hold. */
struct hfile {
	struct vm_file vm;
	struct dentry *d;
	int refs;                       /* the script's handle + the VMAs mapping it */
};

static struct hfile *hfiles[MMS_MAX_FILES];

static void hf_get(struct vm_file *f)
{
	container_of(f, struct hfile, vm)->refs++;
}

static void hf_put(struct vm_file *f)
{
	struct hfile *hf = container_of(f, struct hfile, vm);

	if (--hf->refs)
		return;
	dput(hf->d);
	free(hf);
}

static void hf_describe(const struct vm_file *f, char *buf, size_t size, uint64_t *dev, uint64_t *ino)
{
	const struct hfile *hf = container_of(f, struct hfile, vm);

	fs_path(hf->d, buf, size);
	*dev = 1;
	*ino = hf->d->inode->ino;
}

static const struct vm_file_ops hf_ops = { .get = hf_get, .put = hf_put, .describe = hf_describe };

static struct hfile *hf_of(long h)
{
	return h >= 0 && h < MMS_MAX_FILES ? hfiles[h] : NULL;
}

/* memfd_create(name, 0): "memfd:NAME", opened read-write, size 0. */
static long h_memfd(const char *name)
{
	char full[MMS_NAME_MAX + 8];
	struct hfile *hf;
	long h;

	for (h = 0; h < MMS_MAX_FILES && hfiles[h]; h++)
		;
	if (h == MMS_MAX_FILES)
		return -EMFILE;
	snprintf(full, sizeof(full), "memfd:%s", name);
	hf = calloc(1, sizeof(*hf));
	if (!hf)
		return -ENOMEM;
	hf->d = fs_create_unlinked(full, 0777);
	if (!hf->d) {
		free(hf);
		return -ENOMEM;
	}
	hf->vm.ops = &hf_ops;
	hf->vm.obj = &hf->d->inode->data;
	hf->vm.mode = VMF_READ | VMF_WRITE;
	hf->refs = 1;
	hfiles[h] = hf;
	return h;
}

/* ftruncate: a negative length is -EINVAL (do_sys_ftruncate), then fs_truncate (-EFBIG). */
static long h_ftruncate(long h, unsigned long size)
{
	if ((long)size < 0)
		return -EINVAL;
	return fs_truncate(hf_of(h)->d->inode, size);
}

static size_t hcopy_in(void *arg, size_t done, void *kaddr, size_t n)
{
	memcpy(kaddr, (const char *)arg + done, n);
	return 0;
}

static size_t hcopy_out(void *arg, size_t done, void *kaddr, size_t n)
{
	memcpy((char *)arg + done, kaddr, n);
	return 0;
}

/* pwrite64 of one byte: an offset below 0, or whose byte ends past 2^63 - 1, is -EINVAL (rw_verify_area). */
static long h_pwrite1(long h, unsigned long off, unsigned int val)
{
	unsigned char b = (unsigned char)val;

	if ((long)off < 0 || (long)(off + 1) < 0)
		return -EINVAL;
	return fs_write(hf_of(h)->d->inode, off, 1, hcopy_in, &b);
}

static long h_pread1(long h, unsigned long off, unsigned int *val)
{
	unsigned char b = 0;
	long r;

	if ((long)off < 0 || (long)(off + 1) < 0)
		return -EINVAL;
	r = fs_read(hf_of(h)->d->inode, off, 1, hcopy_out, &b);
	*val = b;
	return r;
}

static long h_close(long h)
{
	struct hfile *hf = hf_of(h);

	hfiles[h] = NULL;
	hf_put(&hf->vm);
	return 0;
}

/* mmap with an fd: Linux's sys_mmap and ksys_mmap_pgoff checks, then vm_mmap_pgoff. */
static long h_mmap_file(unsigned long addr, unsigned long len, long prot, long flags, long h,
			unsigned long off)
{
	if (off & ~PAGE_MASK)
		return -EINVAL;
	if (flags & MAP_ANONYMOUS)
		return vm_mmap(cur_mm, addr, len, (int)prot, (int)flags);
	if (flags & MAP_HUGETLB)
		return -EINVAL;
	return vm_mmap_pgoff(cur_mm, addr, len, (int)prot, (int)flags, &hf_of(h)->vm, off >> PAGE_SHIFT);
}

static long h_msync(unsigned long addr, unsigned long len, long flags)
{
	return vm_msync(cur_mm, addr, len, (int)flags);
}

static const char *h_errno_name(int err)
{
	return errno_name(err);
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			exit(3);
		buf += n;
		len -= (size_t)n;
	}
}

/* Each finished line: out it goes, then the VMA invariants are checked. */
static void h_output(const char *buf, size_t len)
{
	int bad;

	write_all(1, buf, len);
	mmap_read_lock(cur_mm);
	bad = vma_check(cur_mm);
	mmap_read_unlock(cur_mm);
	if (bad) {
		fflush(stdout);
		fprintf(stderr, "mmscript-host: vma_check failed after: %.*s", (int)len, buf);
		exit(4);
	}
}

static const struct mms_ops host_ops = {
	.mmap = h_mmap,
	.munmap = h_munmap,
	.mremap = h_mremap,
	.mprotect = h_mprotect,
	.madvise = h_madvise,
	.brk = h_brk,
	.mincore = h_mincore,
	.read = h_read,
	.write = h_write,
	.fill = h_fill,
	.maps = h_maps,
	.memfd = h_memfd,
	.ftruncate = h_ftruncate,
	.pwrite1 = h_pwrite1,
	.pread1 = h_pread1,
	.close = h_close,
	.mmap_file = h_mmap_file,
	.msync = h_msync,
	.errno_name = h_errno_name,
	.output = h_output,
};

/* ------------------------------------------------------ address spaces */

/* A new address space laid out like a freshly started static program (see the top). */
static struct mm *process_mm(void)
{
	struct mm *mm = mm_create();
	int err;

	if (!mm)
		return NULL;
	mmap_write_lock(mm);
	err = vma_map_anon(mm, PROG_TEXT, PROG_DATA,
			   VM_READ | VM_EXEC | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC, NULL);
	if (!err)
		err = vma_map_anon(mm, PROG_DATA, PROG_END,
				   VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC |
				   VM_ACCOUNT, NULL);
	if (!err)
		err = vma_map_anon(mm, STACK_TOP_HOST - STACK_SIZE_HOST, STACK_TOP_HOST,
				   VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC |
				   VM_GROWSDOWN | VM_ACCOUNT, NULL);
	if (!err) {
		mm->start_brk = mm->brk = PROG_BRK;
		mm->start_stack = STACK_TOP_HOST - PAGE_SIZE;
		mm->thp_disabled = true;        /* the user-mode runner's PR_SET_THP_DISABLE */
	}
	mmap_write_unlock(mm);
	if (err) {
		mm_put(mm);
		return NULL;
	}
	return mm;
}

static size_t free_frames(void)
{
	slab_shrink_all();
	return pmm_free_frames();
}

/* The child's work: run one script on a fresh address space, then check for leaks. */
static int child_run(const char *text, size_t len)
{
	size_t frames = free_frames(), objects = vm_object_inuse(), inodes = fs_inodes_inuse();
	size_t dentries = fs_dentries_inuse();

	cur_mm = process_mm();
	if (!cur_mm) {
		fprintf(stderr, "mmscript-host: cannot create the address space\n");
		return 3;
	}
	mms.ops = &host_ops;
	mms.window = HOST_WINDOW;
	mms.brk0 = (unsigned long)vm_brk(cur_mm, 0);
	mms_run_script(text, len);
	mms_close_files();
	mm_put(cur_mm);
	cur_mm = NULL;
	if (free_frames() != frames || vma_objects_inuse() || anon_identity_inuse() ||
	    vm_object_inuse() != objects || fs_inodes_inuse() != inodes || fs_dentries_inuse() != dentries) {
		fprintf(stderr, "mmscript-host: leak: %zd frames, %zu VMAs, %zu anon, %zd objects, "
			"%zd inodes, %zd dentries\n", (ssize_t)(frames - free_frames()), vma_objects_inuse(),
			anon_identity_inuse(), (ssize_t)(vm_object_inuse() - objects),
			(ssize_t)(fs_inodes_inuse() - inodes), (ssize_t)(fs_dentries_inuse() - dentries));
		return 4;
	}
	return 0;
}

static void say(const char *fmt, const char *name)
{
	char line[4096];
	int n = snprintf(line, sizeof(line), fmt, name);

	write_all(1, line, (size_t)MIN((size_t)n, sizeof(line) - 1));
}

/* Run one script in a child; 1 when it ran to its end. */
static int run_one(const char *name, const char *text, size_t len, int framed)
{
	int status = 0;
	pid_t pid;

	if (framed)
		say("@@mmscript begin %s\n", name);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child_run(text, len));
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = -1;
	if (status != 0) {
		if (status > 0 && WIFSIGNALED(status))
			fprintf(stderr, "mmscript-host: %s: killed by signal %d\n", name, WTERMSIG(status));
		else if (status > 0 && WIFEXITED(status))
			fprintf(stderr, "mmscript-host: %s: exit status %d\n", name, WEXITSTATUS(status));
		say("%sINCOMPLETE\n", "");
	}
	if (framed)
		say("@@mmscript end %s\n", name);
	return status == 0;
}

/* ------------------------------------------------------------- inputs */

static char *read_fd(int fd, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);

	while (b) {
		ssize_t r;

		if (n == cap) {
			char *nb = realloc(b, cap *= 2);

			if (!nb) {
				free(b);
				return NULL;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(b);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*len = n;
	return b;
}

static char *read_path(const char *path, size_t *len)
{
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY);
	char *b;

	if (fd < 0)
		return NULL;
	b = read_fd(fd, len);
	if (fd)
		close(fd);
	return b;
}

static char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(base);

	if (n > 4 && strcmp(base + n - 4, ".mms") == 0)
		n -= 4;
	return strndup(base, n);
}

/* Run every script of a bundle; -1 when it is malformed, else 1 when all ran to their end. */
static int run_bundle(char *b, size_t len)
{
	char *p = b, *end = b + len, *nl;
	int all_ok = 1;

	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl || (size_t)(nl - p) != strlen("@@mmscript-bundle 1") ||
	    memcmp(p, "@@mmscript-bundle 1", (size_t)(nl - p)))
		return -1;
	p = nl + 1;
	for (;;) {
		char *q, *name;
		unsigned long flen;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return -1;
		*nl = '\0';
		if (strcmp(p, "@@end") == 0)
			break;
		if (strncmp(p, "@@file ", 7) != 0)
			return -1;
		flen = strtoul(p + 7, &q, 10);
		if (q == p + 7 || *q != ' ' || !q[1] || flen > (size_t)(end - (nl + 1)))
			return -1;
		name = q + 1;
		if (!run_one(name, nl + 1, flen, 1))
			all_ok = 0;
		p = nl + 1 + flen;
	}
	say("@@mmscript done\n%s", "");
	return all_ok;
}

int main(int argc, char **argv)
{
	static struct page pages[HOST_RAM >> PAGE_SHIFT];
	struct mem_range ram = { PAGE_SIZE, HOST_RAM };
	int framed = 0, i = 1, all_ok = 1;

	hosted_ram_init(HOST_RAM);
	pmm_init(pages, HOST_RAM >> PAGE_SHIFT, &ram, 1);
	slab_init();
	if (fs_init()) {
		fprintf(stderr, "mmscript-host: cannot make the file system\n");
		return 2;
	}
	{
		/* Lazily made caches and the zero page, before any leak baseline. */
		struct mm *mm = process_mm();

		if (!mm) {
			fprintf(stderr, "mmscript-host: cannot create an address space\n");
			return 2;
		}
		mm_put(mm);
	}

	/* The personality of the Linux to imitate (docs/mmscript.md). */
	while (i + 1 < argc && (strcmp(argv[i], "--zero-page") == 0 ||
				strcmp(argv[i], "--exec-only") == 0)) {
		bool on = strcmp(argv[i + 1], "on") == 0;

		if (!on && strcmp(argv[i + 1], "off") != 0) {
			fprintf(stderr, "mmscript-host: %s takes on or off\n", argv[i]);
			return 2;
		}
		if (strcmp(argv[i], "--zero-page") == 0)
			mm_zero_page_enabled = on;
		else
			hosted_exec_only = on;
		i += 2;
	}
	if (i < argc && strcmp(argv[i], "--framed") == 0) {
		framed = 1;
		i++;
	}
	if (i + 2 == argc && strcmp(argv[i], "--bundle") == 0) {
		size_t len;
		char *b = read_path(argv[i + 1], &len);
		int r;

		if (!b) {
			fprintf(stderr, "mmscript-host: cannot read %s\n", argv[i + 1]);
			return 2;
		}
		r = run_bundle(b, len);
		free(b);
		if (r < 0) {
			fprintf(stderr, "mmscript-host: malformed bundle\n");
			return 2;
		}
		return r ? 0 : 1;
	}
	if (i >= argc || argv[i][0] == '-') {
		fprintf(stderr, "usage: mmscript-host [--zero-page on|off] [--exec-only on|off] [--framed] FILE...\n"
				"       mmscript-host [--zero-page on|off] [--exec-only on|off] --bundle PATH|-\n");
		return 2;
	}
	if (argc - i > 1)
		framed = 1;
	for (; i < argc; i++) {
		size_t len;
		char *text = read_path(argv[i], &len);

		if (!text) {
			fprintf(stderr, "mmscript-host: cannot read %s\n", argv[i]);
			return 2;
		}
		if (!run_one(base_name(argv[i]), text, len, framed))
			all_ok = 0;
		free(text);
	}
	if (framed)
		say("@@mmscript done\n%s", "");
	return all_ok ? 0 : 1;
}
