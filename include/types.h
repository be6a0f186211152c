/* Basic types shared by the kernel and the hosted (host-test) build. */
#ifndef TYPES_H
#define TYPES_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdarg.h>

typedef uint64_t phys_addr_t;   /* a physical address */
typedef uint64_t pfn_t;         /* a physical frame number (phys >> PAGE_SHIFT) */

#define PAGE_SHIFT 12
#define PAGE_SIZE  (1UL << PAGE_SHIFT)
#define PAGE_MASK  (~(PAGE_SIZE - 1))

#endif
