/*
 * The x86-64 half of tasks: SYSCALL set-up, SSE enablement, a new task's
 * kernel stack, and the context switch (kernel stack, FS/GS base, FPU
 * state, TSS.rsp0, the per-CPU current pointer).
 *
 * FPU/SSE state is switched eagerly with FXSAVE/FXRSTOR: the kernel is
 * built without SSE, so the registers always hold the state of the last
 * user task that ran.
 */
#include "x86.h"
#include "task.h"
#include "kstring.h"
#include "x86_mmu.h"

#define MSR_STAR   0xC0000081
#define MSR_LSTAR  0xC0000082
#define MSR_FMASK  0xC0000084
#define EFER_SCE   (1UL << 0)

#define CR0_MP (1UL << 1)
#define CR0_EM (1UL << 2)
#define CR0_TS (1UL << 3)
#define CR4_OSFXSR     (1UL << 9)
#define CR4_OSXMMEXCPT (1UL << 10)

/* RFLAGS bits SYSCALL clears: TF, IF, DF, IOPL, NT, AC (as Linux). */
#define SYSCALL_FMASK 0x47700UL

extern const char syscall_entry[], ret_from_fork[], ret_from_kthread[];
void x86_switch(uint64_t *save_ksp, uint64_t next_ksp);

/* The FXSAVE image a new program starts with: FCW 0x37f, MXCSR 0x1f80, all else 0. */
static uint8_t fpu_initial[512] __attribute__((aligned(16)));

/* syscall_init_cpu: SYSCALL MSRs and SSE enablement of the running CPU (every CPU, at its start). */
void syscall_init_cpu(void)
{
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/* SYSRET: CS = 0x20 + 16 | 3 = USER_CS, SS = 0x20 + 8 | 3 = USER_DS (as Linux's STAR);
	 * SYSCALL: CS = KERNEL_CS, SS = KERNEL_CS + 8 = KERNEL_DS */
	wrmsr(MSR_STAR, ((uint64_t)USER32_CS << 48) | ((uint64_t)KERNEL_CS << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_FMASK, SYSCALL_FMASK);
	wrmsr(MSR_KERNEL_GS_BASE, 0);           /* the user's GS base until a task sets one */

	write_cr0((read_cr0() & ~(CR0_EM | CR0_TS)) | CR0_MP);
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
}

/* syscall_init: the boot CPU's syscall_init_cpu, and the initial FPU image every new program gets. */
void syscall_init(void)
{
	syscall_init_cpu();
	memset(fpu_initial, 0, sizeof(fpu_initial));
	fpu_initial[0] = 0x7f;                  /* FCW = 0x037f */
	fpu_initial[1] = 0x03;
	fpu_initial[24] = 0x80;                 /* MXCSR = 0x1f80 */
	fpu_initial[25] = 0x1f;
}

/* arch_task_reset_fpu: t's user FPU/SSE state (and PKRU) as after exec. */
void arch_task_reset_fpu(struct task *t)
{
	memcpy(t->arch.fpu, fpu_initial, sizeof(fpu_initial));
	t->arch.pkru = PKRU_INIT;
}

/* arch_task_save_fpu: store the live FPU state into current's image (before copying it: fork, signals). */
void arch_task_save_fpu(struct task *t)
{
	__asm__ volatile("fxsave64 %0" : "=m"(*(uint8_t (*)[512])t->arch.fpu));
	if (x86_pku_enabled)
		t->arch.pkru = rdpkru();   /* user state too: WRPKRU is unprivileged */
}

/* arch_task_load_fpu: load t's image into the FPU (after changing it: sigreturn, exec). */
void arch_task_load_fpu(struct task *t)
{
	__asm__ volatile("fxrstor64 %0" : : "m"(*(uint8_t (*)[512])t->arch.fpu));
	if (x86_pku_enabled)
		wrpkru(t->arch.pkru);
}

/*
 * arch_task_setup_stack: make t's first switch-in "return" into
 * ret_from_fork, which leaves for user mode through t->tf (already filled in).
 */
void arch_task_setup_stack(struct task *t)
{
	uint64_t *sp = (uint64_t *)t->tf;

	*--sp = (uint64_t)ret_from_fork;
	for (int i = 0; i < 6; i++)             /* rbp rbx r12 r13 r14 r15 */
		*--sp = 0;
	t->arch.ksp = (uint64_t)sp;
}

/*
 * arch_task_setup_kthread: make t's first switch-in "return" into
 * ret_from_kthread (uentry.asm), which calls t->kthread_fn(t->kthread_arg)
 * with interrupts on and then kthread_exit.
 */
void arch_task_setup_kthread(struct task *t)
{
	uint64_t *sp = (uint64_t *)((char *)t->kstack + KSTACK_SIZE);

	*--sp = (uint64_t)ret_from_kthread;
	*--sp = 0;                              /* rbp: the call chain ends here */
	*--sp = 0;                              /* rbx */
	*--sp = (uint64_t)t->kthread_arg;       /* r12 */
	*--sp = (uint64_t)t->kthread_fn;        /* r13 */
	*--sp = 0;                              /* r14 */
	*--sp = 0;                              /* r15 */
	t->arch.ksp = (uint64_t)sp;
}

static inline uint64_t kstack_top(const struct task *t)
{
	return (uint64_t)t->kstack + KSTACK_SIZE;
}

/* arch_set_current: record t as running on this CPU (kernel stack for entries, current pointer). */
void arch_set_current(struct task *t)
{
	struct percpu *cpu = this_cpu();

	cpu->cur_task = t;
	if (t->kstack) {
		cpu->kstack_top = kstack_top(t);
		tss_set_rsp0(kstack_top(t));
	}
}

/* arch_switch_to: switch from prev (current) to next. Interrupts off; sched_lock held. */
void arch_switch_to(struct task *prev, struct task *next)
{
	arch_task_save_fpu(prev);
	arch_task_load_fpu(next);
	wrmsr(MSR_FS_BASE, next->arch.fs_base);
	wrmsr(MSR_KERNEL_GS_BASE, next->arch.gs_base);  /* swapgs makes it live in user mode */
	arch_set_current(next);
	prev->arch.fault_catch = this_cpu()->fault_catch;      /* a catch belongs to its task */
	this_cpu()->fault_catch = next->arch.fault_catch;
	x86_switch(&prev->arch.ksp, next->arch.ksp);
}

/* arch_set_fs_base: set the running task's user FS base now and for later switches. */
void arch_set_fs_base(struct task *t, uint64_t base)
{
	t->arch.fs_base = base;
	wrmsr(MSR_FS_BASE, base);
}

/* arch_set_gs_base: the running task's user GS base, live once swapgs returns to user mode. */
void arch_set_gs_base(struct task *t, uint64_t base)
{
	t->arch.gs_base = base;
	wrmsr(MSR_KERNEL_GS_BASE, base);        /* the user's GS base while in the kernel */
}

_Static_assert(__builtin_offsetof(struct percpu, cur_task) == 40, "current_task (include/sleep.h) reads %gs:40");
