/*
 * Private to mm/vma_index/btree.c (and to tools that want to report its node
 * size): the node layout of the `btree` VMA index. See the design note at
 * the top of mm/vma_index/btree.c.
 */
#ifndef MM_VMA_BTREE_H
#define MM_VMA_BTREE_H

#include "vma.h"

#define BT_SLOTS      10     /* entries per node, leaf and internal alike */
#define BT_MIN        4      /* fewest entries in a node other than the root */
#define BT_MAX_HEIGHT 32     /* far above what 2^52 page-sized VMAs need */
#define BT_SPARE_KEEP 64     /* freed nodes kept for reuse beyond this go back to the cache */

/*
 * One 256-byte node (four cache lines). Slot i of a leaf is the VMA
 * [start[i], key[i]); slot i of an internal node is child[i], key[i] being
 * the largest end in that child and gap[i] the largest free gap that child
 * owns (see the design note). Slots past nr have key == UINTPTR_MAX so the
 * search loop can always scan all BT_SLOTS keys.
 */
struct btree_node {
	uint8_t nr;                   /* slots in use */
	uint8_t leaf;                 /* 1: slots are VMAs, 0: slots are children */
	uint8_t pad[6];
	uintptr_t key[BT_SLOTS];      /* leaf: VMA end; internal: largest end below child */
	union {
		uintptr_t start[BT_SLOTS];            /* leaf: VMA start */
		uintptr_t gap[BT_SLOTS];              /* internal: largest gap child owns */
	};
	union {
		struct vma *vma[BT_SLOTS];            /* leaf */
		struct btree_node *child[BT_SLOTS];   /* internal */
		void *ptr[BT_SLOTS];                  /* either, for moving slots */
	};
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct btree_node) == 256, "btree node must be 256 bytes");

#endif
