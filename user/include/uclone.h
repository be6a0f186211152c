/*
 * uclone.h - clone(2) for the user programs: Linux's flag values and a
 * clone onto a stack the caller provides (user/lib/clone.c), shared by the
 * user tests' threads (user/tests/uthread.c) and the fuzzer's
 * (user/fuzz/thread.c).
 */
#ifndef UCLONE_H
#define UCLONE_H

#define CLONE_VM             0x100
#define CLONE_FS             0x200
#define CLONE_FILES          0x400
#define CLONE_SIGHAND        0x800
#define CLONE_THREAD         0x10000
#define CLONE_VFORK          0x4000
#define CLONE_SYSVSEM        0x40000
#define CLONE_PARENT_SETTID  0x100000
#define CLONE_CHILD_CLEARTID 0x200000
#define CLONE_DETACHED       0x400000
#define CLONE_CHILD_SETTID   0x1000000
#define CLONE_CLEAR_SIGHAND  0x100000000UL

/* What glibc's pthread_create passes (without CLONE_SETTLS: these threads keep the caller's TLS). */
#define CLONE_PTHREAD_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | \
			     CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

/*
 * clone_on_stack: clone(flags, stack_top, tid, tid, 0). The child starts on
 * stack_top, calls fn(arg) and passes its result to exit(2) (that thread
 * only). With CLONE_PARENT_SETTID / CLONE_CHILD_CLEARTID the kernel writes
 * the child's id into *tid and clears it (with a futex wake) when the
 * child exits. Returns clone's result in the caller: the child's id or a
 * negative errno. stack_top must be 16-byte aligned with 16 bytes below it
 * free for fn and arg.
 */
long clone_on_stack(long flags, char *stack_top, int (*fn)(void *), void *arg, volatile int *tid);

#endif
