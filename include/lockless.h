/*
 * Lockless accesses: the one way to write a load or store of a field that
 * another CPU may read or write at the same time without the lock that
 * normally guards it (Linux's READ_ONCE/WRITE_ONCE, include/asm-generic/
 * rwonce.h, and smp_load_acquire/smp_store_release, asm-generic/barrier.h).
 *
 *   READ_ONCE(x), WRITE_ONCE(x, v)   one whole access to the lvalue x, never
 *                                    torn, merged or re-read by the compiler;
 *                                    no ordering with other accesses
 *   smp_load_acquire(p)              load *p; later accesses stay after it
 *   smp_store_release(p, v)          store v to *p; earlier accesses stay
 *                                    before it (pairs with smp_load_acquire)
 *
 * They are the compiler's __atomic builtins with relaxed, acquire and
 * release order, so they also work on the host build and under the
 * sanitizers (ThreadSanitizer sees them as atomics). x must be a naturally
 * aligned scalar of at most 8 bytes. Read-modify-write operations
 * (__atomic_add_fetch, compare-exchange) and full fences stay the builtins,
 * whose names say their order; so do the few loads and stores that need
 * sequential consistency (a store that a later load may not pass, as in
 * vma_start_write against vma_read_trylock): __atomic_load_n/_store_n
 * with __ATOMIC_SEQ_CST, and a comment saying what they pair with.
 *
 * Convention: where a field is read or written outside its lock, use these
 * (never a plain access or a volatile cast), and say in a comment at the
 * access what it races with, when the field's declaration does not already
 * ([atomic]: only ever accessed with these or the builtins). volatile is
 * for device memory, whose every access is a device access (LAPIC
 * registers, the virtqueue rings a device reads and writes, the
 * framebuffer), and for accesses the compiler must keep: kernel/main.c's
 * crash= tests, and a few in tests/ (reads that must fault, KASAN's probes).
 * Tests' flags shared between CPUs use these wrappers too.
 * tools/lockless-check (make test's style stage) fails on a raw relaxed,
 * acquire or release __atomic_load_n/_store_n, and on a volatile outside
 * its short allow-list, in the kernel's sources and in tests/.
 */
#ifndef LOCKLESS_H
#define LOCKLESS_H

#define READ_ONCE(x)              __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)          __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p)       __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)   __atomic_store_n((p), (v), __ATOMIC_RELEASE)

#endif
