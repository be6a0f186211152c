/*
 * libFuzzer target over the VMA index operation stream: the input bytes
 * drive the same random-operation generator as the differential test
 * (tests/unit/vma_model.c), so every input is a sequence of inserts, erases,
 * updates, finds, neighbour walks and gap searches applied to every
 * registered backend and compared with the sorted-array model, with check()
 * after every step. A disagreement prints the step and aborts.
 *
 * First input byte: the address-space shape; the rest: the operations.
 * Build and run: make fuzz-vma [FUZZ_TIME=seconds].
 */
#include <stdlib.h>

#include "vma_model.h"
#include "vma_host.h"

static const struct vma_diff_space shapes[] = {
	{ 0x400000, 64, 0, 4, 48 },                                      /* tiny, dense */
	{ 0x10000000, 1024, 4, 4, 64 },                                  /* 64 KiB units */
	{ 0, 128, 0, 8, 48 },                                            /* from address 0 */
	{ (UINTPTR_MAX & PAGE_MASK) - 128 * PAGE_SIZE, 128, 0, 4, 48 },  /* top of 2^64 */
	{ 0, 1UL << 36, 28, 24, 48 },                                    /* 1 TiB units: >= 16 TiB lengths, gaps */
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	static struct vma_diff d;
	const struct vma_diff_space *s;
	struct vma_rng r;

	if (!ready) {
		vma_host_init(64UL << 20);
		ready = true;
	}
	if (size < 2)
		return 0;
	s = &shapes[data[0] % (sizeof(shapes) / sizeof(shapes[0]))];
	if (vma_diff_init(&d, s->max_vmas, NULL))
		abort();
	vma_rng_seed(&r, 0);
	r.data = data + 1;
	r.len = size - 1;
	if (vma_diff_run(&d, &r, s, 1000000))
		abort();
	vma_diff_destroy(&d);
	return 0;
}
