/*
 * Copying between the kernel and the current task's user memory.
 *
 * Every function first checks that the whole user range lies below
 * TASK_SIZE (no wrap-around): a kernel-half, non-canonical or wrapping range
 * gives -EFAULT without touching memory. The copy itself runs through
 * arch/x86_64/uaccess.asm, whose instructions are listed in an exception
 * table: a page fault there first tries handle_mm_fault(current mm, addr,
 * read/write) (demand paging, COW, stack growth, exactly as a user access
 * would, without FAULT_USER), and if that fails the copy stops and the
 * function returns -EFAULT. Never panics on a bad user pointer.
 * These are the kernel's only way to user memory: with SMAP on
 * (arch/x86_64/smap.c) the helpers alone open it (STAC/CLAC), and any
 * other dereference of a user address faults as an SMAP violation.
 *
 * Callable from system calls (process context, interrupts on or off; the
 * fault path takes mmap_lock for read, so the caller must not hold it for
 * writing).
 */
#ifndef UACCESS_H
#define UACCESS_H

#include "types.h"

/* True when [uaddr, uaddr + n) is a possible user range (below TASK_SIZE, no wrap). */
bool access_ok(uintptr_t uaddr, size_t n);

/* copy_from_user: n bytes from user usrc to dst. 0 or -EFAULT (dst may then be partly written). */
int copy_from_user(void *dst, const void *usrc, size_t n);
/*
 * copy_from_user_nofault: as copy_from_user, but a page fault is not
 * resolved (no handle_mm_fault, no mmap_lock): the copy fails with -EFAULT
 * at once. For callers holding a spinlock (Linux's pagefault_disable);
 * they drop it, fault the page in with copy_from_user and retry.
 */
int copy_from_user_nofault(void *dst, const void *usrc, size_t n);
/* copy_to_user: n bytes from src to user udst. 0 or -EFAULT (partly written). */
int copy_to_user(void *udst, const void *src, size_t n);
/* clear_user: zero n user bytes. 0 or -EFAULT. */
int clear_user(void *udst, size_t n);

/*
 * strncpy_from_user: copy the NUL-terminated user string usrc into dst
 * (max bytes of room). Returns its length (without the NUL, dst
 * terminated) if it fits in max - 1 bytes; max if no NUL was found within
 * max bytes (dst not terminated: the caller reports -ENAMETOOLONG or
 * -E2BIG); -EFAULT on a bad address.
 */
long strncpy_from_user(char *dst, const char *usrc, size_t max);

/* Lower-level: bytes NOT copied (0 on success). Range checks are the caller's. */
size_t x86_copy_user(void *dst, const void *src, size_t n);
size_t x86_clear_user(void *dst, size_t n);

/*
 * uaccess_fixup: called by the page-fault/#GP handler for a kernel-mode
 * fault at rip: if rip is a user-copy instruction, returns the address to
 * resume at (the copy's failure exit), else 0.
 */
uint64_t uaccess_fixup(uint64_t rip);

#endif
