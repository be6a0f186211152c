/*
 * Fitting an aligned range into one free gap: the arithmetic every VMA
 * index backend's gap_top/gap_bottom shares (private to mm/vma_index/).
 */
#ifndef VMA_GAP_H
#define VMA_GAP_H

#include "kernel.h"
#include "kerrno.h"
#include "vma.h"

/*
 * Highest a with a % align == 0, max(gs, low) <= a and a + len <= min(ge, high):
 * true and *out, or false when the clipped gap cannot hold len. align is a power of two.
 */
static inline bool vma_gap_fit_top(uintptr_t gs, uintptr_t ge, uintptr_t len, uintptr_t align,
				   uintptr_t low, uintptr_t high, uintptr_t *out)
{
	uintptr_t lo = MAX(gs, low), hi = MIN(ge, high), a;

	if (hi <= lo || hi - lo < len)
		return false;
	a = ALIGN_DOWN(hi - len, align);
	if (a < lo)
		return false;
	*out = a;
	return true;
}

/* Lowest such a; as vma_gap_fit_top. */
static inline bool vma_gap_fit_bottom(uintptr_t gs, uintptr_t ge, uintptr_t len, uintptr_t align,
				      uintptr_t low, uintptr_t high, uintptr_t *out)
{
	uintptr_t lo = MAX(gs, low), hi = MIN(ge, high), a;

	if (hi <= lo || hi - lo < len)
		return false;
	a = ALIGN_UP(lo, align);
	if (a < lo || a > hi - len)               /* a < lo: the round-up wrapped */
		return false;
	*out = a;
	return true;
}

/* The VMA that v's link points to at byte offset off (a list kept in the VMAs' links). */
static inline struct vma *vma_link_at(struct vma *v, size_t off)
{
	return *(struct vma **)((char *)vma_link(v) + off);
}

/*
 * gap_top over an address-sorted list kept in the VMAs' links: walk down
 * from tail by the pointer at offset prev_off, one access per VMA visited;
 * hi is the top of the free range being looked at (high, then the start of
 * the last VMA passed). Stops as soon as what is left below hi is shorter
 * than len. Returns 0 and *out, or -ENOMEM (the gap_top contract).
 */
static inline int vma_list_gap_top(struct vma_index *idx, struct vma *tail, size_t prev_off,
				   uintptr_t len, uintptr_t align, uintptr_t low, uintptr_t high,
				   uintptr_t *out)
{
	uintptr_t hi = high;
	struct vma *w;

	if (len == 0 || high <= low || high - low < len)
		return -ENOMEM;
	for (w = tail; w; w = vma_link_at(w, prev_off)) {
		idx->accesses++;
		if (w->start >= hi)
			continue;                 /* above high */
		if (vma_gap_fit_top(w->end, hi, len, align, low, high, out))
			return 0;
		hi = w->start;
		if (hi <= low || hi - low < len)
			return -ENOMEM;
	}
	return vma_gap_fit_top(low, hi, len, align, low, high, out) ? 0 : -ENOMEM;
}

/* gap_bottom over such a list: the mirror image, up from head by the pointer at next_off. */
static inline int vma_list_gap_bottom(struct vma_index *idx, struct vma *head, size_t next_off,
				      uintptr_t len, uintptr_t align, uintptr_t low, uintptr_t high,
				      uintptr_t *out)
{
	uintptr_t lo = low;
	struct vma *w;

	if (len == 0 || high <= low || high - low < len)
		return -ENOMEM;
	for (w = head; w; w = vma_link_at(w, next_off)) {
		idx->accesses++;
		if (w->end <= lo)
			continue;                 /* below low */
		if (vma_gap_fit_bottom(lo, w->start, len, align, low, high, out))
			return 0;
		lo = w->end;
		if (lo >= high || high - lo < len)
			return -ENOMEM;
	}
	return vma_gap_fit_bottom(lo, high, len, align, low, high, out) ? 0 : -ENOMEM;
}

#endif
