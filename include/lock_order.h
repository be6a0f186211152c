/*
 * The lock order: every lock class of the kernel, outermost first. A CPU
 * (or, for sleeping locks, a task) holding a lock of class A may take a lock
 * of class B only when A comes before B in this table. Two locks of one
 * class may nest only where the second acquisition says so (the _nested
 * variants: fork holds the parent's and the child's mmap_lock). The checker
 * (lib/lockdep.c, built with LOCKDEP) enforces the table at run time and
 * reports a violation with the stacks of both acquisitions.
 *
 * This is the one place the order is written down; docs/guide.md explains
 * why it is this order.
 *
 *   class        kind      protects                                   file
 *   TEST_OUTER / TEST_INNER: two classes for the checker's own tests (outermost,
 *                so a test holding them may print)
 *   PIPE         sleeping  a pipe's ring (held across user copies)  fs/pipe.c
 *   MMAP         sleeping  an mm's VMA set (rwsem, read for faults)  mm/mmap_lock.c
 *   SWAP_IO      sleeping  the swap staging buffer (runs of slots    mm/swap_pte.c
 *                written or read in one request)
 *   BLOCKDEV     sleeping  one virtio disk's request (rwsem taken    drivers/block/virtio_blk.c
 *                for writing; swap I/O under the mmap_lock)
 *   FS           spinning  the file system's names and directories    fs/tmpfs/dcache.c
 *   VMA          spinning  one VMA against lock-free faults          mm/vma_lock.c
 *   PT           spinning  an mm's page tables (and anon_vma_prepare) mm/mm.c
 *   ANON_VMA     spinning  an anon identity's list of VMAs (linked     mm/anon_vma.c
 *                under pt_lock by a fault; rmap_walk takes it alone,
 *                copies (mm, address) pairs and drops it before any
 *                mmap_lock or pt_lock: mm/rmap.c)
 *   I_MMAP       spinning  a page cache's list of the VMAs mapping it  mm/filemap.c
 *                (Linux's i_mapping->i_mmap_rwsem; linked under the
 *                mmap_lock by VMA changes, taken alone by rmap_walk
 *                like ANON_VMA: mm/rmap.c)
 *   VM_OBJECT    spinning  a page cache: its tree, size, page count    mm/filemap.c
 *                (a fault looks its page up under pt_lock; truncation
 *                takes it before, not around, each mm's locks)
 *   SWAP_CACHE   spinning  the swap cache: slot -> page of a shared    mm/swap_cache.c
 *                page written out (looked up under pt_lock)
 *   SWAP         spinning  the swap areas and their slot counts      mm/swapfile.c
 *                (slots are freed where page tables are zapped)
 *   LRU_ADD      spinning  one CPU's batch of pages queued for the   mm/lru.c
 *                LRU lists (a page is freed under any mm lock above;
 *                interrupts stay on: the timer's DEFAULT lock comes after)
 *   LRU          spinning  the LRU lists and their pages' links    mm/lru.c
 *   FUTEX        spinning  the futex waiter lists (wakes under it)     kernel/futex.c
 *   EPOLL        spinning  an epoll file's interest list (its entries'  fs/epoll.c
 *                fds are looked up, and their files polled, under it)
 *   FDTABLE      spinning  an fd table's slots (held with interrupts on:  fs/fdtable.c
 *                before DEFAULT, which the timer interrupt takes)
 *   RWSEM        spinning  the wait queue inside a sleeping rwsem     lib/rwsem.c
 *                (held with interrupts on: before DEFAULT, as FDTABLE)
 *   DEFAULT      spinning  locks not named here (leaf-like users: files, wait queues)
 *   MM_LIST      spinning  the list of every mm (checks)              mm/mm.c
 *   SCHED        spinning  run queues, task states, the task tree     kernel/sched/sched.c
 *   KSTACK       spinning  the kernel-stack slots (a stack is freed    arch/x86_64/kstack.c
 *                under the sched lock)
 *   SLAB_LIST    spinning  the list of slab caches                     mm/slab.c
 *   KASAN_QUARANTINE spinning  the sanitizer's freed objects (taken by  kernel/mm/kasan_quarantine.c
 *                a free under any lock; KASAN builds)
 *   SLAB_CACHE   spinning  one slab cache                              mm/slab.c
 *   PCP          spinning  one CPU's list of free frames (a drain     mm/pmm.c
 *                takes every CPU's; interrupts off)
 *   PMM          spinning  the buddy allocator                         mm/pmm.c
 *   STREAMS      spinning  the programs' console streams (virtio)     arch/x86_64/virtio_console.c
 *   CONSOLE      spinning  the console (printk)                        lib/printk.c
 *   CONSOLE_DEV  spinning  the console's devices: serial port and      arch/x86_64/arch.c
 *                framebuffer console (innermost; also taken alone by
 *                the programs' output without a virtio console)
 *
 * Spinning locks taken with spin_lock() (not _irqsave) leave interrupts on
 * while held and while waiting: the page-table lock is one, so that a CPU
 * spinning for it still answers TLB shootdown IPIs (docs/guide.md). A
 * sleeping lock may never be taken while any spinning lock is held.
 */
#ifndef LOCK_ORDER_H
#define LOCK_ORDER_H

#include "types.h"

#define LOCK_ORDER_TABLE(X) \
	X(TEST_OUTER,  "test_outer",  0) \
	X(TEST_INNER,  "test_inner",  0) \
	X(PIPE,        "pipe",        1) \
	X(MMAP,        "mmap_lock",   1) \
	X(SWAP_IO,     "swap_io",     1) \
	X(BLOCKDEV,    "blockdev",    1) \
	X(FS,          "fs_lock",     0) \
	X(VMA,         "vma_lock",    0) \
	X(PT,          "pt_lock",     0) \
	X(ANON_VMA,    "anon_vma",    0) \
	X(I_MMAP,      "i_mmap",      0) \
	X(VM_OBJECT,   "vm_object",   0) \
	X(SWAP_CACHE,  "swap_cache",  0) \
	X(SWAP,        "swap",        0) \
	X(LRU_ADD,     "lru_add",     0) \
	X(LRU,         "lru",         0) \
	X(FUTEX,       "futex",       0) \
	X(EPOLL,       "epoll",       0) \
	X(FDTABLE,     "fdtable",     0) \
	X(RWSEM,       "rwsem_wait",  0) \
	X(DEFAULT,     "default",     0) \
	X(MM_LIST,     "mm_list",     0) \
	X(SCHED,       "sched",       0) \
	X(KSTACK,      "kstack",      0) \
	X(SLAB_LIST,   "slab_list",   0) \
	X(KASAN_QUARANTINE, "kasan_quarantine", 0) \
	X(SLAB_CACHE,  "slab_cache",  0) \
	X(PCP,         "pcp",         0) \
	X(PMM,         "pmm",         0) \
	X(STREAMS,     "streams",     0) \
	X(CONSOLE,     "console",     0) \
	X(CONSOLE_DEV, "console_dev", 0)

#define LOCK_CLASS_ENUM(id, name, sleeping) LOCK_CLASS_##id,
enum lock_class { LOCK_ORDER_TABLE(LOCK_CLASS_ENUM) LOCK_CLASS_COUNT };
#undef LOCK_CLASS_ENUM

/* Name and kind of a class (the rank is its position in the table). */
const char *lock_class_name(unsigned c);
bool lock_class_sleeping(unsigned c);

#endif
