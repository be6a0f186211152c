/*
 * Fitting an aligned range into one free gap: the arithmetic every VMA
 * index backend's gap_top/gap_bottom shares (private to mm/vma_index/).
 */
#ifndef VMA_GAP_H
#define VMA_GAP_H

#include "kernel.h"

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

#endif
