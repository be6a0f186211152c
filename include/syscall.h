/*
 * The system-call table (Linux x86-64 numbers). Entry: SYSCALL with the
 * number in rax and arguments in rdi, rsi, rdx, r10, r8, r9; result in rax
 * (-errno in [-4095, -1]); rcx and r11 are clobbered (docs/abi.md lists the
 * calls this kernel implements and how each differs from Linux).
 *
 * Handlers are long sys_NAME(struct trap_frame *tf, uint64_t a0 .. a5);
 * most ignore tf; fork, execve, rt_sigreturn and arch_prctl use it.
 */
#ifndef SYSCALL_H
#define SYSCALL_H

#include "types.h"

struct trap_frame;

typedef long (*syscall_fn)(struct trap_frame *tf, uint64_t a0, uint64_t a1, uint64_t a2,
			   uint64_t a3, uint64_t a4, uint64_t a5);

/* The numbers: Linux's, and this kernel's own (vmk_memstat, vmk_profile, vmk_vmdump, vmk_check). */
#include "uapi/syscall_nr.h"
#include "uapi/vmk.h"

#define NR_SYSCALLS          512                 /* table size for Linux's numbers */
#define NR_SYSCALLS_VMK      (__NR_vmk_check + 1)

/* Linux's system-call names by number (kernel/syscall_names.c); NULL where there is none. */
#define SYSCALL_NAMES_MAX 462
extern const char *const syscall_names[SYSCALL_NAMES_MAX + 1];

/*
 * syscall_dispatch: called by the SYSCALL entry with the saved frame
 * (interrupts off): enables interrupts, runs the handler, stores the result
 * in tf->rax, runs exit_to_user. Returns 1 when the frame can return with
 * SYSRET (rcx == rip, r11 == rflags, rip canonical user), 0 for IRET.
 */
int syscall_dispatch(struct trap_frame *tf);

#endif
