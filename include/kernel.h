/* Small helpers used everywhere: container_of, alignment, min/max, BUG_ON. */
#ifndef KERNEL_H
#define KERNEL_H

#include "types.h"

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define ALIGN_UP(x, a)   (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define __unused __attribute__((unused))
#define __noreturn __attribute__((noreturn))
#ifndef __always_inline                 /* (the host's C library has the same) */
#define __always_inline inline __attribute__((always_inline))   /* a hot path's step, not a call */
#endif
#ifndef __noinline
#define __noinline __attribute__((noinline))                    /* a cold case, kept out of its caller */
#endif
#define __printf(a, b) __attribute__((format(printf, a, b)))

/* Stop the kernel (or abort the host test) naming the function and message. */
__noreturn __printf(1, 2) void panic(const char *fmt, ...);

/* BUG_ON(cond): a broken invariant; panics naming the function and the condition. */
#define BUG_ON(cond) do { \
	if (unlikely(cond)) \
		panic("%s:%d %s: BUG_ON(%s)", __FILE__, __LINE__, __func__, #cond); \
} while (0)

#endif
