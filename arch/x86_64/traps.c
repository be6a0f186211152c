/*
 * Exceptions that concern user processes:
 *   - from user mode: a page fault goes to handle_mm_fault(current mm, cr2,
 *     FAULT_USER | access | FAULT_PROT if present); a failure becomes
 *     SIGSEGV (SEGV_MAPERR/ACCERR) or SIGBUS; out of memory (after direct
 *     reclaim) goes to the OOM killer, kernel/mm/oom_kill.c; #GP (non-canonical addresses, privileged
 *     instructions) is SIGSEGV, #UD SIGILL, #DE and x87/SIMD errors SIGFPE,
 *     #BP/#DB SIGTRAP, #AC SIGBUS. A signal that will kill the process is
 *     reported first, in the spirit of Linux's segfault line:
 *       comm[pid]: segfault at ADDR ip RIP sp RSP error E (read, not present) in VMA [start-end rwx]
 *   - from kernel mode at a user-copy instruction (exception table): the
 *     fault is resolved like a user access (without FAULT_USER) or the copy
 *     is abandoned and returns -EFAULT.
 */
#include "x86.h"
#include "task.h"
#include "signal.h"
#include "uaccess.h"
#include "mm.h"
#include "printk.h"


static unsigned fault_flags(uint64_t error)
{
	unsigned f = (error & PF_W) ? FAULT_WRITE : (error & PF_I) ? FAULT_EXEC : FAULT_READ;

	return f | ((error & PF_P) ? FAULT_PROT : 0);
}

/* One line about the fault, and the VMA holding addr (or "no VMA"). */
static void fault_report(const char *kind, uintptr_t addr, const struct trap_frame *tf,
			 uint64_t error, bool is_pf)
{
	struct task *t = current;
	struct vma *v = NULL;
	uintptr_t vs = 0, ve = 0;
	unsigned long vf = 0;

	if (t->mm && addr < TASK_SIZE) {
		mmap_read_lock(t->mm);
		v = vma_lookup(t->mm, addr);
		if (v) {
			vs = v->start;
			ve = v->end;
			vf = v->flags;
		}
		mmap_read_unlock(t->mm);
	}
	printk("%s%s[%d]: %s at %lx ip %016llx sp %016llx error %llx", report_begin(t), t->comm, t->pid,
	       kind, (unsigned long)addr, (unsigned long long)tf->rip, (unsigned long long)tf->rsp,
	       (unsigned long long)error);
	if (is_pf)
		printk(" (%s, %s)", (error & PF_I) ? "exec" : (error & PF_W) ? "write" : "read",
		       (error & PF_P) ? "protection" : "not present");
	if (v)
		printk(" in VMA [%lx-%lx %c%c%c%s]\n%s", (unsigned long)vs, (unsigned long)ve,
		       (vf & VM_READ) ? 'r' : '-', (vf & VM_WRITE) ? 'w' : '-', (vf & VM_EXEC) ? 'x' : '-',
		       (vf & VM_GROWSDOWN) ? " growsdown" : "", report_end(t));
	else
		printk(" (no VMA)\n%s", report_end(t));
}

static void user_signal(int sig, int code, uintptr_t addr, const struct trap_frame *tf,
			const char *kind, uint64_t error, bool is_pf)
{
	if (signal_fatal(current, sig))
		fault_report(kind, addr, tf, error, is_pf);
	force_sig_fault(sig, code, addr);
}

/* user_page_fault: a page fault in user mode (trap_dispatch calls it first of all: the common trap). */
void user_page_fault(struct trap_frame *tf);
void user_page_fault(struct trap_frame *tf)
{
	uintptr_t addr = read_cr2();
	struct task *t = current;
	enum fault_result r;

	if (addr >= TASK_SIZE) {
		r = FAULT_SIGSEGV_MAPERR;       /* Linux: the kernel half is never the user's (no VMA) */
	} else {
		sti();
		r = handle_mm_fault(t->mm, addr, fault_flags(tf->error) | FAULT_USER);
		cli();
		if (likely(r == FAULT_OK))
			return;
	}
	switch (r) {
	case FAULT_OK:
		return;
	case FAULT_SIGSEGV_MAPERR:
		user_signal(SIGSEGV, SEGV_MAPERR, addr, tf, "segfault", tf->error, true);
		return;
	case FAULT_SIGSEGV_ACCERR:
		user_signal(SIGSEGV, SEGV_ACCERR, addr, tf, "segfault", tf->error, true);
		return;
	case FAULT_SIGSEGV_PKUERR:
		user_signal(SIGSEGV, SEGV_PKUERR, addr, tf, "segfault", tf->error, true);
		return;
	case FAULT_SIGBUS:
		user_signal(SIGBUS, BUS_ADRERR, addr, tf, "bus error", tf->error, true);
		return;
	case FAULT_OOM:
		out_of_memory();        /* the largest process is killed (perhaps this one); then retry */
		return;
	}
}

/* user_exception: an exception in user mode: resolve it or queue the signal. */
void user_exception(struct trap_frame *tf);
void user_exception(struct trap_frame *tf)
{
	switch (tf->vector) {
	case VEC_DE:
		user_signal(SIGFPE, FPE_INTDIV, tf->rip, tf, "divide error", 0, false);
		break;
	case 16:        /* x87 floating point */
	case 19:        /* SIMD floating point */
		user_signal(SIGFPE, 0, tf->rip, tf, "floating-point exception", 0, false);
		break;
	case VEC_UD:
		user_signal(SIGILL, ILL_ILLOPN, tf->rip, tf, "invalid opcode", 0, false);
		break;
	case VEC_BP:    /* Linux: SIGTRAP with SI_KERNEL for int3 */
		user_signal(SIGTRAP, SI_KERNEL, 0, tf, "int3", 0, false);
		break;
	case VEC_DB:
		user_signal(SIGTRAP, TRAP_BRKPT, tf->rip, tf, "trap", 0, false);
		break;
	case 17:        /* alignment check */
		user_signal(SIGBUS, BUS_ADRERR, 0, tf, "alignment check", tf->error, false);
		break;
	default:        /* #GP, #SS, #NP, #TS...: Linux gives SIGSEGV, si_code SI_KERNEL */
		user_signal(SIGSEGV, SI_KERNEL, 0, tf, "general protection fault", tf->error, false);
		break;
	}
}

/*
 * kernel_uaccess_fault: a kernel-mode #PF/#GP; 1 when it was handled (the
 * access is retried, or the copy resumes at its failure exit), 0 when it
 * was not in a user copy. A fault that comes back FAULT_OK without
 * mapping what the copy needs (a broken fault handler, as a lab's can be)
 * retries the access forever without returning to user mode, where
 * signals are delivered: so a task with SIGKILL pending fails the copy
 * instead (-EFAULT, then it dies, as Linux's fault_signal_pending), and
 * the retry is a point where it yields the CPU when its slice is over
 * (else, on one CPU, the task that would kill it never runs). A fault that
 * found no page even after reclaim (FAULT_OOM) runs the OOM killer and
 * retries, as a user-mode fault does: Linux's page allocator kills and
 * retries inside the allocation, so a copy to user memory (a read(), a
 * signal frame) waits for the victim's memory instead of failing. Not
 * where interrupts were off (the copy's caller cannot give up the CPU).
 * An SMAP or SMEP violation is not handled: retrying would fault again
 * forever.
 */
int kernel_uaccess_fault(struct trap_frame *tf);
int kernel_uaccess_fault(struct trap_frame *tf)
{
	uint64_t fixup = uaccess_fixup(tf->rip);
	struct task *t = current;

	if (!fixup)
		return 0;
	/* A helper that left user memory closed (no STAC) is a kernel bug: report it, never retry. */
	if (x86_fault_violation(tf, read_cr2()))
		return 0;
	if (tf->vector == VEC_PF) {
		uintptr_t addr = read_cr2();

		if (addr < TASK_SIZE && t && t->mm && !t->uaccess_nofault) {
			enum fault_result r;

			if (tf->rflags & RFLAGS_IF)
				sti();
			r = handle_mm_fault(t->mm, addr, fault_flags(tf->error));
			if (r == FAULT_OOM && (tf->rflags & RFLAGS_IF) && out_of_memory())
				r = FAULT_OK;   /* retried: a victim's memory comes back, or this task dies */
			if (r == FAULT_OK && t->need_resched && (tf->rflags & RFLAGS_IF))
				schedule();
			cli();
			if (r == FAULT_OK && !fatal_signal_pending(t))
				return 1;
		}
	}
	tf->rip = fixup;
	return 1;
}
