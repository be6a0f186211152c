/* The boot-time allocator (include/memblock.h). */
#include "memblock.h"
#include "printk.h"
#include "kerrno.h"
#include "kernel.h"

struct mb_list {
	struct mem_range r[MEMBLOCK_MAX_REGIONS];
	size_t n;
};

/* Allocations never return memory below 1 MiB (BIOS data, and so never 0). */
#define MEMBLOCK_LOW 0x100000UL

static struct mb_list memory, reserved;
static phys_addr_t alloc_limit = ~0UL;

/* Insert [start, end) keeping the list sorted and merging touching/overlapping ranges. */
static int mb_insert(struct mb_list *l, phys_addr_t start, phys_addr_t end)
{
	size_t i, j;

	if (end <= start)
		return 0;
	/* first range that ends at or after start (could merge) */
	for (i = 0; i < l->n && l->r[i].end < start; i++)
		;
	/* ranges i .. j-1 touch [start, end) */
	for (j = i; j < l->n && l->r[j].start <= end; j++) {
		start = MIN(start, l->r[j].start);
		end = MAX(end, l->r[j].end);
	}
	if (j == i) {                   /* no merge: make room at i */
		if (l->n == MEMBLOCK_MAX_REGIONS)
			return -ENOSPC;
		for (size_t k = l->n; k > i; k--)
			l->r[k] = l->r[k - 1];
		l->n++;
	} else if (j > i + 1) {         /* merged several: close the gap */
		size_t gone = j - i - 1;
		for (size_t k = i + 1; k + gone < l->n; k++)
			l->r[k] = l->r[k + gone];
		l->n -= gone;
	}
	l->r[i].start = start;
	l->r[i].end = end;
	return 0;
}

int memblock_add(phys_addr_t start, phys_addr_t end)
{
	return mb_insert(&memory, start, end);
}

int memblock_reserve(phys_addr_t start, phys_addr_t end)
{
	return mb_insert(&reserved, start, end);
}

void memblock_set_limit(phys_addr_t limit)
{
	alloc_limit = limit;
}

/*
 * Walk free ranges in order: calls fn for each until it returns true.
 * Free = each memory range minus the (sorted) reserved ranges.
 */
static bool for_each_free(bool (*fn)(phys_addr_t s, phys_addr_t e, void *arg), void *arg)
{
	for (size_t i = 0; i < memory.n; i++) {
		phys_addr_t cur = memory.r[i].start, end = memory.r[i].end;

		for (size_t j = 0; j < reserved.n && cur < end; j++) {
			const struct mem_range *rv = &reserved.r[j];

			if (rv->end <= cur)
				continue;
			if (rv->start >= end)
				break;
			if (rv->start > cur && fn(cur, rv->start, arg))
				return true;
			cur = MAX(cur, rv->end);
		}
		if (cur < end && fn(cur, end, arg))
			return true;
	}
	return false;
}

struct alloc_req {
	size_t size, align;
	phys_addr_t found;
};

static bool try_alloc(phys_addr_t s, phys_addr_t e, void *arg)
{
	struct alloc_req *req = arg;
	phys_addr_t a = ALIGN_UP(MAX(s, MEMBLOCK_LOW), req->align);

	e = MIN(e, alloc_limit);
	if (a < e && e - a >= req->size) {
		req->found = a;
		return true;
	}
	return false;
}

phys_addr_t memblock_alloc(size_t size, size_t align)
{
	struct alloc_req req = { size, align ? align : 8, 0 };

	if (!size || !for_each_free(try_alloc, &req))
		return 0;
	if (memblock_reserve(req.found, req.found + size))
		return 0;
	return req.found;
}

struct collect {
	struct mem_range *out;
	size_t max, n;
};

static bool collect_range(phys_addr_t s, phys_addr_t e, void *arg)
{
	struct collect *c = arg;

	if (c->n < c->max) {
		c->out[c->n].start = s;
		c->out[c->n].end = e;
	}
	c->n++;
	return false;
}

size_t memblock_free_ranges(struct mem_range *out, size_t max)
{
	struct collect c = { out, max, 0 };

	for_each_free(collect_range, &c);
	return c.n;
}

size_t memblock_memory(struct mem_range *out, size_t max)
{
	for (size_t i = 0; i < memory.n && i < max; i++)
		out[i] = memory.r[i];
	return memory.n;
}

phys_addr_t memblock_end_of_ram(void)
{
	return memory.n ? memory.r[memory.n - 1].end : 0;
}

size_t memblock_total_ram(void)
{
	size_t t = 0;

	for (size_t i = 0; i < memory.n; i++)
		t += memory.r[i].end - memory.r[i].start;
	return t;
}

static bool sum_range(phys_addr_t s, phys_addr_t e, void *arg)
{
	*(size_t *)arg += e - s;
	return false;
}

size_t memblock_reserved_bytes(void)
{
	size_t free = 0;

	for_each_free(sum_range, &free);
	return memblock_total_ram() - free;
}

void memblock_dump(void)
{
	printk("memblock: %zu KiB RAM in %zu ranges, %zu KiB reserved\n",
	       memblock_total_ram() >> 10, memory.n, memblock_reserved_bytes() >> 10);
	for (size_t i = 0; i < reserved.n; i++)
		printk("  reserved [0x%llx-0x%llx)\n", (unsigned long long)reserved.r[i].start,
		       (unsigned long long)reserved.r[i].end);
}
